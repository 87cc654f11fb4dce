#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest script (root, in the VM): dazuko-clamscan on a dazukofs mount.
# The module, a dazukofs over a tmpfs and the scanner (source dazukofs,
# 2 workers, the test signatures) run; then: readers == workers; both
# workers scan at once (the scans_in_progress_peak statistic); a clean
# file opens; EICAR gets EPERM and a FOUND line; a clean file changed to
# infected is caught; with events open close_write an infected file is
# caught as its writer closes it; after SIGHUP with a new signature in the database a
# file that was clean is caught; kill -9 of the scanner under load loses
# no verdict (every opener returns, group counters add up; grace_ms 0)
# and a restart re-arms the tracked group; with grace_ms set, an EICAR
# file opened while the scanner is dead (after kill -9, before the
# restart) waits and is denied by the restarted scanner, and a clean file
# opened then is allowed by it; SIGTERM removes the group; quarantine =
# move takes a detected file out of the lower filesystem (the event's
# path is the lower one) and dazuko-quarantine restores it; a JSON log
# file, the metrics file and status --json show a clean open and a
# detection on the mount, and reload answers once done; exclude_uid takes
# the opener's uids from the group's format-2 records.  Every wait is on
# a log line, a file's contents or a sysfs counter, with a deadline.
set -u
SRC=${DAZUKOFS_SRC:?}
SCANNER=${DAZUKOFS_BUILD:?}/scanner/dazuko-clamscan
KO=${DAZUKOFS_KO:?}
OUT=${DAZUKOFS_OUT:-/tmp/scanner-out}
. "$SRC/tests/scanner/common.sh"

L=/mnt/scan-lower
M=/mnt/scan
DB=/tmp/scan-db
G=scan
GS=/sys/fs/dazukofs/groups/$G
WORKERS=2
LOG=$OUT/scanner.log
PID=
GRACE=0		# the scanner's --grace-ms
mkdir -p "$OUT"
: > "$LOG"

cleanup() {
	[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	[ -d /sys/kernel/config/dazukofs/$G ] && rmdir /sys/kernel/config/dazukofs/$G
	umount /mnt/scan-self 2>/dev/null && umount /mnt/scan-self 2>/dev/null
	umount "$M" 2>/dev/null
	umount "$L" 2>/dev/null
	rmmod dazukofs 2>/dev/null
}
trap 'rc=$?; cleanup; [ $rc = 0 ] || { echo "--- scanner log"; cat "$LOG"; }; exit $rc' EXIT

gs() { cat "$GS/$1"; }

start_scanner() {
	"$SCANNER" -f -c /dev/null --store no --group "$G" --workers "$WORKERS" \
		--database "$DB" --log-level debug --timeout-ms 0 \
		--grace-ms "$GRACE" --events "open close_write" "$@" >>"$LOG" 2>&1 &
	PID=$!
}

echo "guest-scanner: kernel $(uname -r)"
[ -x "$SCANNER" ] || fail "$SCANNER missing (build first)"
deps=$(modinfo -F depends "$KO" | tr ',' ' ')
modprobe -a configfs $deps || fail "modprobe configfs $deps"
insmod "$KO" || fail "insmod $KO"
grep -q ' /sys/kernel/config configfs ' /proc/mounts ||
	mount -t configfs none /sys/kernel/config || fail "mount configfs"
mkdir -p "$L" "$M" "$DB"
mount -t tmpfs -o size=64m scan-lower "$L" || fail "mount tmpfs"
mount -t dazukofs "$L" "$M" || fail "mount dazukofs"
cp "$SRC/tests/scanner/db/"* "$DB/"

# test files, written below the mount (no events)
echo "clean text" > "$L/clean.txt"
make_eicar "$L/eicar.com"
echo "innocent DAZUKOFS-NEW-SIGNATURE-9d2e here" > "$L/newsig.txt"
for i in $(seq 1 40); do echo "clean file $i" > "$L/load$i.txt"; done
# 8 MB of text each: a scan lasts long enough (under TCG) to overlap
for i in 1 2 3 4; do yes "big clean file $i" | head -c 8M > "$L/big$i.txt"; done

t0=$(now_ms)
start_scanner
wait_log 120 "$LOG" 'notice: ready:'
echo "scanner ready in $(( $(now_ms) - t0 )) ms"
[ "$(cat /sys/kernel/config/dazukofs/$G/track)" = 1 ] || fail "group not tracked"
[ "$(cat /sys/kernel/config/dazukofs/$G/grace_ms)" = 0 ] || fail "grace_ms not 0"
wait_for 10 "readers == $WORKERS" counter_is "$GS/readers" "$WORKERS"
pass "readers == $WORKERS: every worker holds the group device"

# verdicts
expect_allowed "$M/clean.txt"
expect_denied "$M/eicar.com"
# the event's fd is the file below the mount: its path is the lower one
wait_log 10 "$LOG" "FOUND signature=Dazukofs.Test.EICAR.* path=$L/eicar.com pid=[0-9]* comm=cat"
pass "FOUND line with path, pid and comm"

# workers scan in parallel: 8 openers at once all get their verdicts
before=$(gs events)
pids=
for i in $(seq 1 8); do cat "$M/load$i.txt" >/dev/null & pids="$pids $!"; done
for p in $pids; do wait "$p" || fail "concurrent open $p failed"; done
wait_for 10 "8 more events" counter_ge "$GS/events" $((before + 8))
pass "8 concurrent opens answered by $WORKERS workers"

# ... and really scan at once: files big enough that a scan takes a while,
# opened together; the scanner's peak of scans in progress reaches WORKERS
pids=
for i in 1 2 3 4; do cat "$M/big$i.txt" >/dev/null & pids="$pids $!"; done
for p in $pids; do wait "$p" || fail "concurrent open of a big file $p failed"; done
kill -USR1 "$PID"
wait_log 10 "$LOG" 'statistics: '
grep 'statistics: ' "$LOG" | tail -1 |
	grep -q " scans_in_progress=0 .* scans_in_progress_peak=$WORKERS " ||
	fail "scans did not run in parallel: $(grep 'statistics: ' "$LOG" | tail -1)"
pass "$WORKERS workers scanned at once (scans_in_progress_peak=$WORKERS)"

# the kernel's verdict cache: a clean scan is remembered, and a re-open of
# the unchanged file makes no event (a scan in the clock tick of the
# file's last change is not remembered: open until one makes no event);
# changed to infected through the mount, it is scanned again and denied
remembered() { # opens $1; true if that made no event
	_ev=$(gs events)
	opens "$1" || fail "$1 was denied"
	[ "$(gs events)" = "$_ev" ]
}
echo "clean until it is changed ................" > "$M/later.txt"
hits0=$(gs cache_hits)
wait_for 10 "an open of later.txt without an event" remembered "$M/later.txt"
counter_ge "$GS/cache_hits" $((hits0 + 1)) || fail "no cache hit counted"
pass "re-open of a scanned clean file: no event, a kernel cache hit"
echo "now infected $MARKER ..............." > "$M/later.txt"
expect_denied "$M/later.txt"

# scan-after-write (events open close_write): a file written through the
# mount is scanned when its writer closes it, before anyone opens it, and
# the deny is remembered: its first open is denied without an event; a
# clean file written so is remembered clean (the scan is the close's)
[ "$(cat /sys/kernel/config/dazukofs/$G/events)" = "open close_write" ] ||
	fail "group events: $(cat /sys/kernel/config/dazukofs/$G/events)"
cw0=$(gs close_writes) de0=$(gs denied)
make_eicar "$M/written.com"
wait_for 10 "a close-after-write event" counter_ge "$GS/close_writes" $((cw0 + 1))
wait_for 10 "the close's deny" counter_ge "$GS/denied" $((de0 + 1))
log_has "$LOG" "FOUND .* path=$L/written.com " 1 ||
	fail "written.com not found infected at its close"
ev0=$(gs events) hits0=$(gs cache_hits)
expect_denied "$M/written.com"
[ "$(gs events)" = "$ev0" ] || fail "the first open of written.com made an event"
[ "$(gs cache_hits)" -gt "$hits0" ] || fail "no cache hit for written.com"
pass "an infected file written through the mount is caught at its close, its first open denied without a scan"
cw0=$(gs close_writes) al0=$(gs allowed)
echo "written clean" > "$M/written.txt"
wait_for 10 "a close-after-write event" counter_ge "$GS/close_writes" $((cw0 + 1))
wait_for 10 "the close's allow" counter_ge "$GS/allowed" $((al0 + 2))
wait_for 10 "an open of written.txt without an event" remembered "$M/written.txt"
pass "a clean file written through the mount is scanned at its close and remembered"

# SIGHUP with a new signature
expect_allowed "$M/newsig.txt"
printf 'Dazukofs.Test.New:0:*:%s\n' \
	"$(printf '%s' DAZUKOFS-NEW-SIGNATURE-9d2e | od -An -tx1 | tr -d ' \n')" > "$DB/new.ndb"
wait_for 10 "an open of newsig.txt without an event" remembered "$M/newsig.txt"
kill -HUP "$PID"
wait_log 120 "$LOG" 'reloaded: 3 signatures'
# the reload flushed the group's remembered verdicts: scanned again
expect_denied "$M/newsig.txt"

kill -USR1 "$PID"
wait_log 10 "$LOG" 'statistics: .*infected=[1-9]' 2

# kill -9 under load: no opener hangs, no verdict is lost
ev0=$(gs events)
( for i in $(seq 1 40); do cat "$M/load$i.txt" >/dev/null || exit 1; done ) & o1=$!
( for i in $(seq 40 -1 1); do cat "$M/load$i.txt" >/dev/null || exit 1; done ) & o2=$!
wait_for 30 "load events" counter_ge "$GS/events" $((ev0 + 10))
kill -9 "$PID"
wait "$PID" 2>/dev/null
PID=
wait_for 30 "group inactive" counter_is "$GS/active" 0
wait "$o1" || fail "opener 1 failed after kill -9"
wait "$o2" || fail "opener 2 failed after kill -9"
for c in waiting in_hand readers; do
	[ "$(gs $c)" = 0 ] || fail "$c=$(gs $c) after kill -9"
done
ev=$(gs events) al=$(gs allowed) de=$(gs denied) ca=$(gs cancelled) to=$(gs timeouts)
[ "$ev" = $((al + de + ca + to)) ] ||
	fail "events=$ev != allowed=$al + denied=$de + cancelled=$ca + timeouts=$to"
pass "kill -9: every opener returned, events=$ev = allowed=$al + denied=$de + cancelled=$ca + timeouts=$to"

# restart: the group left behind is served again, now with a grace_ms
GRACE=120000
start_scanner
wait_log 120 "$LOG" "group '$G' exists already; serving it"
wait_log 120 "$LOG" 'notice: ready:' 2
wait_for 10 "group active" counter_is "$GS/active" 1
wait_for 10 "readers == $WORKERS" counter_is "$GS/readers" "$WORKERS"
[ "$(cat /sys/kernel/config/dazukofs/$G/grace_ms)" = $GRACE ] ||
	fail "grace_ms $(cat /sys/kernel/config/dazukofs/$G/grace_ms), not $GRACE"
expect_denied "$M/eicar.com"
# clean.txt's clean verdict of the last instance was flushed at the start:
# its signatures may not be this one's
ev0=$(gs events)
expect_allowed "$M/clean.txt"
[ "$(gs events)" -gt "$ev0" ] || fail "clean.txt answered from the last instance's remembered verdict"
pass "restart re-armed the tracked group and forgot the old verdicts"

# grace_ms: kill -9, then open EICAR and a clean file while no scanner
# runs: both wait (the group stays active), and the restarted scanner,
# which loads its signatures before it serves the group, scans them: EICAR
# is denied, not let through.
found0=$(grep -c "FOUND .* path=$L/eicar.com " "$LOG")
de0=$(gs denied)
kill -9 "$PID"
wait "$PID" 2>/dev/null
PID=
wait_for 30 "readers == 0" counter_is "$GS/readers" 0
wait_for 10 "in_hand == 0" counter_is "$GS/in_hand" 0
[ "$(gs active)" = 1 ] || fail "group inactive at once despite grace_ms=$GRACE"
w0=$(gs waiting)
# a clean file never opened before: clean.txt's verdict is remembered by
# the kernel, and its open would not wait for anyone
echo "clean, first opened while the scanner is away" > "$L/restart.txt"
( opens "$M/eicar.com" && exit 0; exit 1 ) & oe=$!
( opens "$M/restart.txt" && exit 0; exit 1 ) & oc=$!
wait_for 30 "2 openers waiting" counter_is "$GS/waiting" $((w0 + 2))
kill -0 "$oe" 2>/dev/null || fail "EICAR opener did not wait for the scanner"
kill -0 "$oc" 2>/dev/null || fail "clean opener did not wait for the scanner"
[ "$(gs active)" = 1 ] || fail "group went inactive within grace_ms"
start_scanner
wait_log 120 "$LOG" "group '$G' exists already; serving it" 2
wait "$oe" && fail "EICAR opened while the scanner was dead was let through"
wait "$oc" || fail "clean file opened while the scanner was dead was denied"
wait_log 120 "$LOG" 'notice: ready:' 3
log_has "$LOG" "FOUND .* path=$L/eicar.com " $((found0 + 1)) ||
	fail "no FOUND line of the restarted scanner for the waiting EICAR"
[ "$(gs denied)" -ge $((de0 + 1)) ] || fail "denied did not grow"
wait_for 10 "waiting == 0" counter_is "$GS/waiting" 0
pass "grace_ms: EICAR opened while the scanner was dead waited and was denied by the restarted one"

# exclude_uid on dazukofs: the group speaks record format 3, whose records
# carry the opener's uids (no /proc/PID/status, which a recycled pid makes
# racy) and cgroup.  Fresh EICAR files (no verdict remembered): nobody's open is not
# scanned; one with only the real uid excluded (a set-uid program run by
# nobody) is scanned and denied, as is root's.
kill -TERM "$PID" && wait "$PID" || fail "scanner exit before exclude_uid"
make_eicar "$L/ex1.com"
make_eicar "$L/ex2.com"
make_eicar "$L/ex3.com"
chmod 0644 "$L"/ex*.com
start_scanner --exclude-uid 65534
wait_log 120 "$LOG" 'notice: ready:' 4
wait_log 10 "$LOG" "group '$G': record format 3" 4
setpriv --reuid 65534 --regid 65534 --clear-groups cat "$M/ex1.com" >/dev/null ||
	fail "exclude_uid 65534: nobody's open of EICAR was denied"
wait_log 10 "$LOG" "ex1.com: not scanned (opened by pid [0-9]*, excluded by uid 65534)"
pass "exclude_uid: nobody's open is not scanned (uids from the record)"
err=$(setpriv --ruid 65534 cat "$M/ex2.com" 2>&1 >/dev/null) &&
	fail "exclude_uid: an open with euid 0 and ruid 65534 was let through"
case $err in
*"Operation not permitted"*) pass "exclude_uid: an open whose euid is not excluded is scanned and denied" ;;
*) fail "exclude_uid: ruid 65534 euid 0: $err" ;;
esac
expect_denied "$M/ex3.com"

# clean stop removes the group
kill -TERM "$PID"
wait "$PID"
rc=$?
PID=
[ "$rc" = 0 ] || fail "scanner exited with $rc after SIGTERM"
[ -d /sys/kernel/config/dazukofs/$G ] && fail "group $G left after SIGTERM"
wait_log 10 "$LOG" "group '$G' removed"
expect_allowed "$M/eicar.com"
pass "SIGTERM removed the group"

# quarantine = move: the open is denied, the file leaves the lower (and so
# the mount), and comes back with its owner and mode by dazuko-quarantine
make_eicar "$L/q.com"
chown 4321:4321 "$L/q.com"
chmod 0604 "$L/q.com"
start_scanner --quarantine move --quarantine-dir /tmp/scan-quarantine
wait_log 120 "$LOG" 'notice: ready:' 5
expect_denied "$M/q.com"
wait_log 30 "$LOG" "$L/q.com: quarantined as [0-9A-Za-z-]* and removed"
[ ! -e "$L/q.com" ] && [ ! -e "$M/q.com" ] || fail "quarantine = move left q.com"
QT="${DAZUKOFS_BUILD:?}/scanner/dazuko-quarantine"
"$QT" -d /tmp/scan-quarantine list | grep -q " $L/q.com\$" || fail "dazuko-quarantine list: $("$QT" -d /tmp/scan-quarantine list)"
# a mount over its own lower (the usual form): the event's path, the
# lower's, now names the dazukofs inode (another st_dev), and is removed
S=/mnt/scan-self
mkdir -p "$S"
mount -t tmpfs -o size=4m scan-self "$S" || fail "mount tmpfs $S"
make_eicar "$S/q2.com"
mount -t dazukofs "$S" "$S" || fail "mount -t dazukofs $S $S"
expect_denied "$S/q2.com"
wait_log 30 "$LOG" "$S/q2.com: quarantined as [0-9A-Za-z-]* and removed"
[ ! -e "$S/q2.com" ] || fail "quarantine = move left q2.com on a mount over itself"
umount "$S" && umount "$S" || fail "umount $S"
kill -TERM "$PID"
wait "$PID" || fail "scanner exited with $? after SIGTERM"
PID=
qid=$("$QT" -d /tmp/scan-quarantine list | awk -v p="$L/q.com" '$NF == p { print $1 }')
"$QT" -d /tmp/scan-quarantine restore "$qid" >/dev/null || fail "restore $qid"
[ "$(stat -c '%u:%g %a' "$M/q.com")" = "4321:4321 604" ] || fail "restored: $(stat -c '%u:%g %a' "$M/q.com")"
pass "quarantine = move on dazukofs (also mounted over itself): denied, removed, restored with owner and mode"

# logs, metrics and the control socket on dazukofs: the JSON log file
# (log_clean on), the Prometheus file and status --json all show a clean
# open and an EICAR denied through the mount, and reload answers when done
OPS=/tmp/scan-ops
mkdir -p -m 0700 "$OPS"
echo "ops clean" > "$L/ops-clean.txt"
make_eicar "$L/ops.com"
start_scanner --log-file "$OPS/log.json" --log-format json --log-clean yes \
	--metrics-file "$OPS/m.prom" --metrics-interval 1 --control-socket "$OPS/ctl.sock"
PY=/usr/bin/python3
# ops_check EXPR: EXPR over log (the JSON records), prom (name -> value)
# and st (status --json) holds
ops_check() {
	"$SCANNER" status --json --socket "$OPS/ctl.sock" > "$OPS/status.json" 2>/dev/null || return 1
	"$PY" - "$OPS" "$1" 2>/dev/null <<'PYEOF'
import json, sys
d, expr = sys.argv[1], sys.argv[2]
log = [json.loads(l) for l in open(d + "/log.json", encoding="utf-8") if l.strip()]
prom = {}
for l in open(d + "/m.prom"):
    if l.strip() and not l.startswith("#"):
        name, val = l.rsplit(" ", 1)
        prom[name] = float(val)
st = json.load(open(d + "/status.json"))
sys.exit(0 if eval(expr) else 1)
PYEOF
}
wait_for 120 "the scanner's control socket" ops_check "st['ok'] and any(r['event'] == 'start' for r in log)"
expect_allowed "$M/ops-clean.txt"
expect_denied "$M/ops.com"
wait_for 30 "the clean record" ops_check "any(r['event'] == 'clean' and r['path'] == '$L/ops-clean.txt' and r['comm'] == 'cat' for r in log)"
wait_for 30 "the detection record" ops_check "any(r['event'] == 'detection' and r['path'] == '$L/ops.com' and r['action'] == 'denied' and r['signature'].startswith('Dazukofs.Test.EICAR') for r in log)"
wait_for 30 "the metrics" ops_check "prom['dazuko_clamscan_infected_total'] == 1 and prom['dazuko_clamscan_denied_total'] == 1 and prom['dazuko_clamscan_scanned_total'] >= 2 and prom['dazuko_clamscan_up'] == 1"
ops_check "st['counters']['infected'] == 1 and st['detections'][0]['path'] == '$L/ops.com' and len(st['workers']) == $WORKERS" ||
	{ cat "$OPS/status.json"; fail "status --json on dazukofs"; }
out=$("$SCANNER" reload --socket "$OPS/ctl.sock" 2>&1) || fail "reload: $out"
case $out in *reload*) ;; *) fail "reload said: $out" ;; esac
ops_check "any(r['event'] == 'reload' for r in log)" ||
	fail "no reload record when reload returned"
kill -TERM "$PID"
wait "$PID" || fail "scanner exited with $? after SIGTERM"
PID=
grep -q '^dazuko_clamscan_up 0$' "$OPS/m.prom" || fail "metrics file not up 0 after the stop"
pass "logs (JSON, clean scans), metrics and status/reload on dazukofs"

umount "$M" || fail "umount $M"
umount "$L"
rmmod dazukofs || fail "rmmod"
echo "guest-scanner: all passed in $(( $(now_ms) - t0 )) ms"
