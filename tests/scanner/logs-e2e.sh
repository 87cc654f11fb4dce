#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The scanner's logs end to end with source=fanotify on this host (root),
# one mode per ctest:
#   file    log_file, log_format = json, log_clean = yes: a clean open and
#           EICAR (also under a name that is not UTF-8) are records in the
#           file, each line one strict JSON object of the documented
#           fields; rotated by logrotate with the shipped config
#           (systemd/examples/dazuko-clamscan.logrotate, installed in
#           /etc/logrotate.d): renamed, SIGHUP,
#           the scanner writes to the new file, the next detection lands
#           there, not in the old.
#   syslog  log_target = syslog, log_facility = local3: the records reach
#           /dev/log (a test socket, in a mount namespace of the scanner's
#           own) with the facility's priorities.
#   journal log_target = journal, log_clean = yes: the entries reach the
#           journal's socket (a test one, the same way) with DAZUKOFS_EVENT,
#           _PATH (raw bytes), _PID, _COMM, _UID, _SIGNATURE, _ACTION.
# Usage: logs-e2e.sh MODE SCANNER DBDIR
set -u
MODE=$1
SCANNER=$2
DB_SRC=$3
. "$(dirname "$0")/common.sh"

. "$(dirname "$0")/host-e2e.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)

# python3 of the system (PATH's may be another one without a json module
# that matters; the standard library's is all this needs)
PY=/usr/bin/python3

e2e_workdir logs size=16m,mode=0755
ERR=$W/stderr.log
mkdir -p "$W/db" "$W/log"
cp "$DB_SRC"/* "$W/db/"
echo "clean text" > "$M/clean.txt"
make_eicar "$M/eicar.com"
ODD=$(printf '%s/odd-\377-name.com' "$M")
make_eicar "$ODD"
chmod 0644 "$M"/*

# records FILE KEY=VALUE...: 0 if a record of FILE has every KEY=VALUE
# (strings; pid must be an integer); the test fails at once on a line
# that is not one strict JSON object (only a last line still without its
# newline is left for the next look).  records --count FILE KEY=VALUE...
# prints how many records match instead.
records() {
	"$PY" - "$@" <<'PY'
import json, re, sys
args = sys.argv[1:]
count_only = args[0] == "--count"
if count_only:
    args = args[1:]
path, want = args[0], dict(a.split("=", 1) for a in args[1:])
try:
    data = open(path, "rb").read()
except FileNotFoundError:
    sys.exit(1)
lines = data.split(b"\n")
found = 0
for i, raw in enumerate(lines[:-1]):
    try:
        rec = json.loads(raw.decode("utf-8", errors="strict"))
    except (UnicodeDecodeError, ValueError) as e:
        print(f"{path}:{i + 1}: not one JSON object ({e}): {raw!r}", file=sys.stderr)
        sys.exit(2)
    if not isinstance(rec, dict):
        print(f"{path}:{i + 1}: not an object", file=sys.stderr)
        sys.exit(2)
    for k in ("schema", "time", "level", "event", "message", "scanner_pid"):
        if k not in rec:
            print(f"{path}:{i + 1}: no '{k}': {rec}", file=sys.stderr)
            sys.exit(2)
    if rec["schema"] != 1 or not re.fullmatch(
            r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}[+-]\d\d:\d\d", rec["time"]):
        print(f"{path}:{i + 1}: schema or time: {rec}", file=sys.stderr)
        sys.exit(2)
    if "path" in rec and not isinstance(rec.get("pid"), int):
        print(f"{path}:{i + 1}: pid not an integer: {rec}", file=sys.stderr)
        sys.exit(2)
    if all(str(rec.get(k)) == v for k, v in want.items()):
        found += 1
if count_only:
    print(found)
    sys.exit(0)
sys.exit(0 if found else 1)
PY
	_rc=$?
	[ "$_rc" = 2 ] && fail "$1 holds a line that is not a JSON record"
	return "$_rc"
}

# wait_record SECONDS FILE KEY=VALUE...
wait_record() {
	_s=$1
	shift
	wait_for "$_s" "a record $* in $1" records "$@"
}

case $MODE in
file)
	F=$W/log/clamscan.log
	"$SCANNER" -f -c /dev/null --store no --source fanotify --fanotify-mount "$M" \
		--database "$W/db" --workers 2 --log-file "$F" --log-format json \
		--log-clean yes >"$ERR" 2>&1 &
	PID=$!
	wait_record 60 "$F" event=start level=notice
	[ "$(stat -c %a "$F")" = 640 ] || [ "$(stat -c %a "$F")" = 600 ] ||
		fail "log file created with mode $(stat -c %a "$F")"
	pass "started, logging JSON to $F (mode $(stat -c %a "$F"))"

	expect_allowed "$M/clean.txt"
	wait_record 30 "$F" event=clean level=info path="$M/clean.txt" comm=cat
	records "$F" event=clean path="$M/clean.txt" signature=None ||
		fail "a clean record with a signature"
	pass "log_clean: the clean open is a record with path, pid, comm"

	expect_denied "$M/eicar.com"
	wait_record 30 "$F" event=detection level=warning path="$M/eicar.com" comm=cat \
		signature=Dazukofs.Test.EICAR.UNOFFICIAL action=denied uid=0
	pass "the detection is a record with path, pid, uid, comm, signature, action"

	# not UTF-8: escaped as in the text log (\xff), the line still JSON
	expect_denied "$ODD"
	wait_record 30 "$F" event=detection path="$M/odd-\\xff-name.com"
	pass "a name that is not UTF-8: \\xff in a valid JSON line"

	# nothing on stderr: the log is the file
	[ ! -s "$ERR" ] || { cat "$ERR"; fail "the scanner wrote to stderr"; }

	# the shipped logrotate config, on this file, its postrotate
	# signalling this scanner: renamed, a new file, SIGHUP
	command -v logrotate >/dev/null || fail "logrotate is missing (scripts/setup)"
	sed -e "s|^/var/log/dazukofs/\*\.log {|$F {|" \
	    -e "s|systemctl kill --kill-whom=main --signal=HUP dazuko-clamscan.service .*|kill -HUP $PID|" \
		"$SRC/systemd/examples/dazuko-clamscan.logrotate" > "$W/logrotate.conf"
	grep -q "^$F {" "$W/logrotate.conf" && grep -q "kill -HUP $PID" "$W/logrotate.conf" ||
		fail "the logrotate example changed: $(cat "$W/logrotate.conf")"
	logrotate --force --state "$W/logrotate.state" "$W/logrotate.conf" ||
		fail "logrotate failed"
	[ -e "$F.1" ] || fail "logrotate did not rotate $F"
	wait_for 30 "a new $F" test -e "$F"
	wait_record 30 "$F" event=message message="log file reopened"
	expect_denied "$M/eicar.com"
	wait_record 30 "$F" event=detection path="$M/eicar.com"
	n=$(records --count "$F.1" event=detection)
	[ "$n" = 2 ] || fail "the old file has $n detections, not the 2 before the rotation"
	records "$F" event=reload || wait_record 30 "$F" event=reload
	pass "rotated: a new file after SIGHUP, the next detection in it, the old one left alone"
	e2e_stop "$ERR"
	records "$F" event=stop || fail "no stop record"
	[ ! -s "$ERR" ] || { cat "$ERR"; fail "the scanner wrote to stderr"; }
	pass "stop record; every line one JSON object"
	;;
syslog)
	command -v unshare >/dev/null || fail "unshare (util-linux) is missing"
	SOCK=$W/devlog
	SYS=$W/syslog.txt
	# the test's syslog daemon: every datagram a line
	"$PY" - "$SOCK" "$SYS" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "ab", buffering=0) as out:
    while True:
        out.write(s.recv(65536).replace(b"\n", b" ") + b"\n")
PY
	LISTENER=$!
	trap 'kill "$LISTENER" 2>/dev/null; e2e_cleanup' EXIT
	wait_for 10 "the test syslog socket" test -S "$SOCK"
	# /dev/log, in the scanner's own mount namespace only: a tmpfs /dev
	# with the few nodes it needs and log pointing at the test socket
	unshare -m --propagation private sh -c '
		sock=$1; shift
		mount -t tmpfs -o mode=0755 devlog-test /dev &&
		mknod -m 0666 /dev/null c 1 3 && mknod -m 0666 /dev/zero c 1 5 &&
		mknod -m 0666 /dev/random c 1 8 && mknod -m 0666 /dev/urandom c 1 9 &&
		ln -s "$sock" /dev/log && exec "$@"' sh "$SOCK" \
		"$SCANNER" -f -c /dev/null --store no --source fanotify --fanotify-mount "$M" \
		--database "$W/db" --workers 2 --log-target syslog --log-facility local3 \
		--log-clean yes >"$ERR" 2>&1 &
	PID=$!
	# local3 is 19: <PRI> = 19 * 8 + severity (notice 5, info 6, warning 4)
	wait_log 60 "$SYS" '^<157>.* dazuko-clamscan\[[0-9]*\]: notice: ready:'
	expect_allowed "$M/clean.txt"
	wait_log 30 "$SYS" "^<158>.* dazuko-clamscan\[[0-9]*\]: info: clean path=$M/clean.txt pid=[0-9]* comm=cat"
	expect_denied "$M/eicar.com"
	wait_log 30 "$SYS" "^<156>.* dazuko-clamscan\[[0-9]*\]: warning: FOUND signature=Dazukofs.Test.EICAR.UNOFFICIAL path=$M/eicar.com pid=[0-9]* comm=cat action=denied"
	e2e_stop "$ERR"
	[ ! -s "$ERR" ] || { cat "$ERR"; fail "the scanner wrote to stderr"; }
	pass "syslog with facility local3: start, clean, detection, at their priorities"
	;;
journal)
	command -v unshare >/dev/null || fail "unshare (util-linux) is missing"
	SOCK=$W/journal.sock
	JR=$W/journal.txt
	# the test's journald: the native protocol's entries (FIELD=value
	# lines; a value with a newline as FIELD, newline, le64 length, bytes),
	# one JSON object per entry; a field given twice is a list
	"$PY" - "$SOCK" "$JR" <<'PY' &
import json, socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as out:
    while True:
        d, i, e = s.recv(1 << 20), 0, {}
        while i < len(d):
            nl = d.index(b"\n", i)
            line = d[i:nl]
            if b"=" in line:
                k, v = line.split(b"=", 1)
                i = nl + 1
            else:
                k = line
                n = struct.unpack("<Q", d[nl + 1:nl + 9])[0]
                v = d[nl + 9:nl + 9 + n]
                i = nl + 9 + n + 1
            k, v = k.decode(), v.decode("utf-8", "backslashreplace")
            e[k] = [e[k], v] if k in e else v
        out.write(json.dumps(e) + "\n")
PY
	LISTENER=$!
	trap 'kill "$LISTENER" 2>/dev/null; e2e_cleanup' EXIT
	wait_for 10 "the test journal socket" test -S "$SOCK"
	# the journal's socket, in the scanner's own mount namespace only
	unshare -m --propagation private sh -c '
		sock=$1; shift
		mount -t tmpfs -o mode=0755 journal-test /run &&
		mkdir -p /run/systemd/journal && ln -s "$sock" /run/systemd/journal/socket &&
		exec "$@"' sh "$SOCK" \
		"$SCANNER" -f -c /dev/null --store no --source fanotify --fanotify-mount "$M" \
		--database "$W/db" --workers 2 --log-target journal --log-clean yes \
		--max-file-size 1K --alert-exceeds-max no >"$ERR" 2>&1 &
	PID=$!
	# entry FIELD=VALUE...: an entry has every field with exactly that value
	entry() {
		"$PY" - "$JR" "$@" <<'PY'
import json, sys
want = dict(a.split("=", 1) for a in sys.argv[2:])
for line in open(sys.argv[1]):
    e = json.loads(line)
    if all(e.get(k) == v for k, v in want.items()):
        sys.exit(0)
sys.exit(1)
PY
	}
	wait_for 60 "the start entry" entry DAZUKOFS_EVENT=start PRIORITY=5 \
		SYSLOG_IDENTIFIER=dazuko-clamscan
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	chmod 0755 "$W"
	as_nobody cat "$M/clean.txt" >/dev/null || fail "nobody cannot read clean.txt"
	wait_for 30 "the clean entry" entry DAZUKOFS_EVENT=clean PRIORITY=6 \
		DAZUKOFS_PATH="$M/clean.txt" DAZUKOFS_COMM=cat DAZUKOFS_UID=65534
	expect_denied "$M/eicar.com"
	wait_for 30 "the detection entry" entry DAZUKOFS_EVENT=detection PRIORITY=4 \
		DAZUKOFS_PATH="$M/eicar.com" DAZUKOFS_COMM=cat DAZUKOFS_UID=0 \
		DAZUKOFS_SIGNATURE=Dazukofs.Test.EICAR.UNOFFICIAL DAZUKOFS_ACTION=denied \
		MESSAGE_ID=5d2b6e0b9f6a4c8e8a1f3c7d9e2b4a61
	# the raw bytes in DAZUKOFS_PATH, the escaped ones in MESSAGE
	expect_denied "$ODD"
	wait_for 30 "the entry of the name that is not UTF-8" entry DAZUKOFS_EVENT=detection \
		DAZUKOFS_PATH="$M/odd-\\xff-name.com" \
		MESSAGE="FOUND Dazukofs.Test.EICAR.UNOFFICIAL in $M/odd-\\xff-name.com (opened by pid $(
			"$PY" -c 'import json,sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e.get("DAZUKOFS_PATH", "").startswith(sys.argv[2] + "/odd-"):
        print(e["DAZUKOFS_PID"]); break' "$JR" "$M") cat): denied"
	# a message about one file, not a detection: its path as a field too
	head -c 4096 /dev/zero > "$M/big.bin"
	expect_allowed "$M/big.bin"
	wait_for 30 "the entry of a file not fully scanned" entry PRIORITY=5 \
		DAZUKOFS_PATH="$M/big.bin" \
		MESSAGE="$M/big.bin: not fully scanned (Heuristics.Limits.Exceeded.MaxFileSize); allowed by alert_exceeds_max = no"
	e2e_stop "$ERR"
	entry DAZUKOFS_EVENT=stop || fail "no stop entry"
	[ ! -s "$ERR" ] || { cat "$ERR"; fail "the scanner wrote to stderr"; }
	pass "journal: start, clean (uid 65534), detections (uid 0, raw path), a file's notice and stop with their fields"
	;;
*)
	fail "unknown mode $MODE"
	;;
esac
echo "scanner-logs-$MODE: all passed"
