#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run by dazukofs-test.service in the guest booted with systemd as PID 1
# (tests/scanner/guest-systemd.sh prepared it): the installed
# dazuko-clamscan.service through systemctl.
#   boot: systemd-modules-load loaded dazukofs from the installed entry;
#          the installed udev rules set the devices' modes;
#   start: Type=notify returns once READY=1 is sent; the group is there with
#          a reader per worker; STATUS= carries the live counts;
#   watchdog: with WatchdogSec=4s (drop-in) the timestamp advances and the
#          service stays up for more than a WatchdogSec;
#   hardening: seccomp filter, no_new_privs, the bounding set, own mount and
#          network namespaces, a read-only /usr, in force;
#   dazukofs mounted after the scanner is up: a clean file opens, EICAR gets
#          EPERM and a detection with its fields in the journal;
#   reload: a new signature catches a file that was clean; logged;
#          a broken database fails systemctl reload (ExecReload= waits),
#          the old signatures stay; dazuko-clamscan status answers;
#   stop: the group is removed, the unit inactive and never failed;
#   and it starts without its config directory (the scanner's defaults);
#   source fanotify under the unit: EICAR opened from outside the unit's
#          mount namespace and from nobody's unshare -Urm is denied;
#          exclude_unit applies (from /proc/PID/cgroup);
#   workloads: detections name the unit, a transient one too, and a
#          Docker-named scope's container; exclude_unit's cgroup makes no
#          event in the kernel, and is counted;
#   store: after a restart a file scanned before is answered from the
#          verdict store, unscanned.
# Every wait polls the real condition with a deadline.
#
# With --finish (the unit's ExecStopPost, run also when the checks fail):
# writes the status file (0 only if the checks passed), the journal and
# dmesg to DAZUKOFS_OUT, and powers off.
set -u
SRC=${DAZUKOFS_SRC:?}
OUT=${DAZUKOFS_OUT:?}
. "$SRC/tests/scanner/common.sh"

if [ "${1:-}" = --finish ]; then
	case ${SERVICE_RESULT:-} in
	success) rc=0 ;;
	*)
		rc=${EXIT_STATUS:-1}
		case $rc in '' | 0 | *[!0-9]*) rc=1 ;; esac ;;
	esac
	echo "systemd-checks: result ${SERVICE_RESULT:-?} (${EXIT_CODE:-?} ${EXIT_STATUS:-?}): status $rc"
	journalctl -q --no-pager -u dazukofs-test.service -o cat >>"$OUT/guest.log" 2>&1
	journalctl -q --no-pager -b -o short-monotonic >"$OUT/journal.txt" 2>&1
	systemctl --no-pager list-units --all --state=failed >"$OUT/failed-units.txt" 2>&1
	dmesg >"$OUT/dmesg.txt" 2>&1
	echo "$rc" >"$OUT/status"
	sync
	systemctl --force --force poweroff
	echo o >/proc/sysrq-trigger
	exit "$rc"
fi

U=dazuko-clamscan.service
UNIT_FILE=${DZ_UNIT_FILE:?}	# where cmake --install put the unit
CONF_DIR=${DZ_CONF_DIR:?}	# the scanner's config directory
G=systemd-test
CG=/sys/kernel/config/dazukofs/$G
GS=/sys/fs/dazukofs/groups/$G
WORKERS=2
DB=/var/lib/clamav
L=/srv/share-lower
M=/srv/share

prop() { systemctl show -P "$1" "$U"; }
prop_is() { [ "$(prop "$1")" = "$2" ]; }
prop_has() { prop "$1" | grep -q -- "$2"; }
jr() { journalctl -q --no-pager -u "$U" -o cat "$@"; }
journal_has() {
	_c=$(jr | grep -c -- "$1")
	[ "${_c:-0}" -ge "${2:-1}" ]
}
wait_journal() { wait_for "$1" "'$2' in the journal of $U" journal_has "$2" "${3:-1}"; }
# monotonic clock in microseconds, as systemd's *TimestampMonotonic
mono_us() { awk '{ printf "%d\n", $1 * 1000000 }' /proc/uptime; }

FAILED_RELOAD_LINES=0

trap 'rc=$?; [ $rc = 0 ] || { echo "--- journal of $U"; jr -o short-monotonic | tail -60; systemctl --no-pager status "$U"; }; exit $rc' EXIT

check_installed() {
	[ "$(cat /proc/1/comm)" = systemd ] || fail "PID 1 is $(cat /proc/1/comm), not systemd"
	prop_is LoadState loaded || fail "$U is not loaded: $(prop LoadState)"
	frag=$(prop FragmentPath)
	[ "$(readlink -f "$frag")" = "$(readlink -f "$UNIT_FILE")" ] ||
		fail "$U from $frag, not the installed $UNIT_FILE"
	prop_is Type notify || fail "$U Type=$(prop Type)"
	pass "$U installed as $UNIT_FILE, Type=notify"

	# what the install put in place for boot: modules-load.d loaded the module,
	# and the udev rules give the devices their modes (/dev/dazukofs.ign 0400;
	# coldplug is masked here, so replay the add event of the device that was
	# there before udevd)
	ML=systemd-modules-load.service
	[ "$(systemctl show -P Result $ML)" = success ] ||
		fail "$ML: $(systemctl show -P Result $ML); $(journalctl -q --no-pager -u $ML -o cat | tail -5)"
	# by its identifier: the process ends before journald can look up its unit
	mljr() { journalctl -q --no-pager -b -t systemd-modules-load -o cat; }
	mljr | grep -q "Inserted module 'dazukofs'" ||
		fail "$ML did not load dazukofs: $(mljr | tail -5)"
	grep -q '^dazukofs ' /proc/modules || fail "dazukofs is not loaded"
	pass "$ML loaded dazukofs from the installed modules-load.d entry"
	udevadm trigger --action=add --sysname-match=dazukofs.ign --settle ||
		fail "udevadm trigger dazukofs.ign"
	[ "$(stat -c %a /dev/dazukofs.ign)" = 400 ] ||
		fail "/dev/dazukofs.ign is $(stat -c %a /dev/dazukofs.ign), not 400 (the installed udev rule)"
	pass "the installed udev rule made /dev/dazukofs.ign 0400 (the scanner works with it: below)"
}

# a shorter watchdog, to see it pinged within the test
use_short_watchdog() {
	mkdir -p /run/systemd/system/$U.d
	printf '[Service]\nWatchdogSec=4s\n' >/run/systemd/system/$U.d/watchdog.conf
	systemctl daemon-reload || fail "daemon-reload"
	prop_has DropInPaths watchdog.conf || fail "drop-in not loaded: $(prop DropInPaths)"
}

# start: Type=notify, so systemctl start returns once READY=1 arrived
check_start() {
	ts=$(now_ms)
	systemctl start "$U" || fail "systemctl start $U"
	echo "systemctl start took $(( $(now_ms) - ts )) ms"
	prop_is ActiveState active || fail "$U is $(prop ActiveState) after start"
	prop_is SubState running || fail "$U substate $(prop SubState) after start"
	wait_journal 10 "ready: source dazukofs group $G, $WORKERS workers, backend libclamav, database $DB"
	pass "systemctl start returned with $U active (READY=1 sent once the engine was ready)"
	[ -d "$CG" ] || fail "no group $CG after start"
	[ "$(cat "$CG/track")" = 1 ] || fail "group $G not tracked"
	wait_for 10 "readers == $WORKERS" counter_is "$GS/readers" "$WORKERS"
	pass "group $G in configfs, readers == $WORKERS (DeviceAllow lets the workers open their devices)"
	dev=$(ls -l /dev/dazukofs.[0-9]* | awk '{ print $1, $3, $4 }')
	[ "$dev" = "crw------- root root" ] || fail "the group device is '$dev', not crw------- root root (udev rule)"

	wait_for 10 "a status line" prop_has StatusText '^running: events='
	st0=$(prop StatusText)
	echo "StatusText: $st0"
	case $st0 in *" infected=0 "*) ;; *) fail "StatusText before any scan: $st0" ;; esac
}

# hardening in force
check_hardening() {
	pid=$(prop MainPID)
	[ "${pid:-0}" -gt 1 ] || fail "no MainPID"
	grep -q '^Seccomp:[[:space:]]*2$' /proc/$pid/status ||
		fail "scanner not in seccomp filter mode: $(grep Seccomp /proc/$pid/status)"
	grep -q '^NoNewPrivs:[[:space:]]*1$' /proc/$pid/status || fail "no_new_privs not set"
	grep -q '^CapBnd:[[:space:]]*0000000010200000$' /proc/$pid/status ||
		fail "bounding set is not CAP_SYS_ADMIN and CAP_LEASE alone: $(grep CapBnd /proc/$pid/status)"
	for t in /proc/$pid/task/*; do
		grep -q '^Seccomp:[[:space:]]*2$' "$t/status" || fail "thread ${t##*/} without seccomp filter"
	done
	[ -n "$(prop SystemCallFilter)" ] || fail "SystemCallFilter is empty"
	tr '\0' '\n' </proc/$pid/environ | grep -qx 'WATCHDOG_USEC=4000000' ||
		fail "the scanner did not get WATCHDOG_USEC=4000000 (drop-in WatchdogSec=4s)"
	[ "$(readlink /proc/$pid/ns/net)" != "$(readlink /proc/1/ns/net)" ] || fail "no private network namespace"
	[ "$(readlink /proc/$pid/ns/mnt)" != "$(readlink /proc/1/ns/mnt)" ] || fail "no own mount namespace"
	err=$(nsenter -t "$pid" -m touch /usr/dazukofs-rw-test 2>&1) && fail "/usr is writable for the scanner"
	case $err in *"Read-only file system"*) ;; *) fail "touch /usr in the scanner's namespace: $err" ;; esac
	err=$(nsenter -t "$pid" -m touch $DB/rw-test 2>&1) && fail "$DB is writable for the scanner"
	echo outside >/tmp/systemd-checks-tmp
	nsenter -t "$pid" -m test -e /tmp/systemd-checks-tmp && fail "the scanner sees the host's /tmp (PrivateTmp)"
	pass "WATCHDOG_USEC=4000000; seccomp=2 in all $(ls /proc/$pid/task | wc -l) threads, NoNewPrivs=1, CapBnd=CAP_SYS_ADMIN+CAP_LEASE, own net/mnt namespaces, read-only /usr and $DB, private /tmp"
}

# the watchdog: the timestamp advances, and the service lives on for more
# than a WatchdogSec (4 s) with no restart
check_watchdog() {
	wd0=$(prop WatchdogTimestampMonotonic)
	[ "${wd0:-0}" -gt 0 ] || fail "no WATCHDOG=1 received yet (WatchdogTimestampMonotonic=$wd0)"
	since=$(prop ActiveEnterTimestampMonotonic)
	last=$wd0 pings=0 end=$(( $(now_ms) + 30000 ))
	until [ "$pings" -ge 3 ] && [ $((last - wd0)) -gt 4000000 ]; do
		[ "$(now_ms)" -lt "$end" ] || fail "watchdog: $pings pings in 30 s"
		prop_is ActiveState active || fail "$U is $(prop ActiveState) while waiting for watchdog pings"
		cur=$(prop WatchdogTimestampMonotonic)
		if [ "$cur" -gt "$last" ]; then pings=$((pings + 1)); last=$cur; fi
		sleep 0.2
	done
	prop_is NRestarts 0 || fail "$U restarted $(prop NRestarts) times"
	[ "$(prop MainPID)" = "$pid" ] || fail "MainPID changed"
	journal_has 'Watchdog timeout' && fail "watchdog timeout in the journal"
	pass "watchdog: $pings pings over $(( (last - wd0) / 1000 )) ms > WatchdogSec=4s, active for $(( ($(mono_us) - since) / 1000 )) ms, no restart"
}

# dazukofs mounted after the scanner is up
check_detection() {
	mkdir -p "$L" "$M"
	mount -t tmpfs -o size=16m systemd-test-lower "$L" || fail "mount tmpfs $L"
	echo "clean text" >"$L/clean.txt"
	make_eicar "$L/eicar.com"
	echo "innocent DAZUKOFS-NEW-SIGNATURE-9d2e here" >"$L/newsig.txt"
	mount -t dazukofs "$L" "$M" || fail "mount -t dazukofs $L $M"
	expect_allowed "$M/clean.txt"
	expect_denied "$M/eicar.com"
	# the event's fd is the file below the mount: its path is the lower one
	wait_journal 20 "^FOUND Dazukofs.Test.EICAR[^ ]* in $L/eicar.com (opened by pid [0-9]* cat in dazukofs-test.service): denied"
	fields=$(jr -o verbose MESSAGE_ID=5d2b6e0b9f6a4c8e8a1f3c7d9e2b4a61 | sed 's/^[[:space:]]*//')
	for f in "DAZUKOFS_PATH=$L/eicar.com" DAZUKOFS_COMM=cat "DAZUKOFS_PID=[0-9]" \
		"DAZUKOFS_SIGNATURE=Dazukofs.Test.EICAR" DAZUKOFS_ACTION=denied PRIORITY=4 \
		DAZUKOFS_UNIT=dazukofs-test.service DAZUKOFS_CGROUP=/system.slice/dazukofs-test.service \
		_SYSTEMD_UNIT=$U; do
		echo "$fields" | grep -q "^$f" || fail "detection in the journal without $f: $fields"
	done
	pass "detection in the journal (journalctl -u $U) with DAZUKOFS_PATH/PID/COMM/SIGNATURE/ACTION"
	wait_for 10 "StatusText with the detection" prop_has StatusText ' infected=1 '
	st1=$(prop StatusText)
	[ "$st1" != "$st0" ] || fail "StatusText unchanged"
	echo "StatusText: $st1"
	pass "StatusText shows the live counts"
}

# The workload in detections: a transient unit, and a scope named as
# Docker names its containers' (what the journal says is the cgroup's
# name, whoever made it)
check_workloads() {
	systemd-run --quiet --wait --unit=dz-opener cat "$M/eicar.com" >/dev/null 2>&1 &&
		fail "cat $M/eicar.com in the transient unit dz-opener.service opened"
	wait_journal 20 "^FOUND Dazukofs.Test.EICAR[^ ]* in $L/eicar.com (opened by pid [0-9]* cat in dz-opener.service): denied"
	jr -o verbose MESSAGE_ID=5d2b6e0b9f6a4c8e8a1f3c7d9e2b4a61 DAZUKOFS_UNIT=dz-opener.service |
		grep -q "DAZUKOFS_CGROUP=/system.slice/dz-opener.service" ||
		fail "the detection in dz-opener.service has no DAZUKOFS_UNIT/DAZUKOFS_CGROUP"
	cid=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
	systemd-run --quiet --scope --unit="docker-$cid" cat "$M/eicar.com" >/dev/null 2>&1 &&
		fail "cat $M/eicar.com in docker-$cid.scope opened"
	wait_journal 20 "^FOUND Dazukofs.Test.EICAR[^ ]* in $L/eicar.com (opened by pid [0-9]* cat in docker-$cid.scope (container ${cid:0:12})): denied"
	jr -o verbose MESSAGE_ID=5d2b6e0b9f6a4c8e8a1f3c7d9e2b4a61 DAZUKOFS_CONTAINER=$cid |
		grep -q "DAZUKOFS_CONTAINER_RUNTIME=docker" ||
		fail "the detection in docker-$cid.scope has no DAZUKOFS_CONTAINER/_RUNTIME"
	pass "detections name the unit (DAZUKOFS_UNIT, _CGROUP) and the container (DAZUKOFS_CONTAINER, _RUNTIME)"

	# exclude_unit = dz-backup.scope (guest-systemd.sh): once the scope
	# exists the kernel skips it (the group's events stay put, its excluded
	# counter moves); until then the scanner does
	excluded_open() {
		systemd-run --quiet --scope --unit=dz-backup bash -c '
			. "$1/tests/scanner/common.sh"
			id=$(stat -c %i /sys/fs/cgroup/system.slice/dz-backup.scope)
			known() { grep -qx "$id" "$1/exclude_cgroups"; }
			wait_for 10 "the kernel to skip dz-backup.scope ($id)" known "$2"
			ev=$(cat "$3/events") ex=$(cat "$3/excluded")
			cat "$4" >/dev/null || fail "dz-backup.scope could not open $4"
			[ "$(cat "$3/events")" = "$ev" ] || fail "an excluded open made an event"
			[ "$(cat "$3/excluded")" = $((ex + 1)) ] || fail "the excluded open was not counted"
			# and a cgroup below it (a unit that delegates makes them)
			sub=/sys/fs/cgroup/system.slice/dz-backup.scope/job
			mkdir "$sub" && echo $$ >"$sub/cgroup.procs" || fail "cannot move into $sub"
			cat "$4" >/dev/null || fail "$sub could not open $4"
			[ "$(cat "$3/events")" = "$ev" ] || fail "an open below the excluded cgroup made an event"
			[ "$(cat "$3/excluded")" = $((ex + 2)) ] || fail "the open below the excluded cgroup was not counted"
		' bash "$SRC" "$CG" "$GS" "$1"
	}
	excluded_open "$M/eicar.com" || fail "the excluded unit's open"
	pass "exclude_unit: the kernel skips the unit's cgroup and its child: no event, counted in excluded"

	# bad writes to the kernel's list: a clear errno, the list unchanged
	before=$(cat "$CG/exclude_cgroups")
	bad_write() {
		err=$( (printf '%s' "$1" >"$CG/exclude_cgroups") 2>&1) &&
			fail "'$1' written to exclude_cgroups"
		case $err in *"$2"*) ;; *) fail "write '$1' to exclude_cgroups: $err, not $2" ;; esac
	}
	bad_write "12abc" "Invalid argument"
	bad_write "+12" "Invalid argument"
	bad_write "4294967295123" "No such file or directory"
	bad_write "/system.slice/dz-no-such.scope" "No such file or directory"
	bad_write "/system.slice/cgroup.procs" "No such file or directory"
	[ "$(cat "$CG/exclude_cgroups")" = "$before" ] || fail "a failed write changed exclude_cgroups"
	pass "exclude_cgroups: malformed writes get EINVAL, no cgroup ENOENT; the list stays"

	# the excluded scope stopped (killed, its cgroup removed) while its
	# processes open files: its id drops out, and scanning goes on
	systemd-run --quiet --scope --unit=dz-backup bash -c \
		'while :; do cat "$1" >/dev/null & cat "$1" >/dev/null; wait; done' bash "$M/clean.txt" &
	wait_for 10 "the racing dz-backup.scope" test -e /sys/fs/cgroup/system.slice/dz-backup.scope
	race_id=$(stat -c %i /sys/fs/cgroup/system.slice/dz-backup.scope)
	wait_for 30 "the kernel to skip the racing dz-backup.scope ($race_id)" \
		grep -qx "$race_id" "$CG/exclude_cgroups"
	ex=$(cat "$GS/excluded")
	wait_for 60 "opens spared in the racing dz-backup.scope" counter_ge "$GS/excluded" $((ex + 5))
	systemctl stop dz-backup.scope || fail "systemctl stop dz-backup.scope"
	wait
	[ -e /sys/fs/cgroup/system.slice/dz-backup.scope ] && fail "dz-backup.scope's cgroup is still there"
	grep -qx "$race_id" "$CG/exclude_cgroups" && fail "the removed cgroup $race_id is still excluded"
	expect_denied "$M/eicar.com"
	pass "the excluded scope stopped while its processes opened files: its id dropped out; EICAR still denied"
	check_unit_lookalike
}

# A local user cannot pass for an excluded unit.  nobody, in a cgroup
# subtree delegated to it (as user@UID.service and systemd-run --user
# have), makes a cgroup named dz-backup.scope, moves into it, tries to join
# the real dz-backup.scope and to make a cgroup below it, and opens EICAR:
# denied, as an event of its own unit.  The real scope is started after the
# look-alike exists, so once the kernel lists the real one the scanner has
# synced its exclusions with the look-alike in place.
check_unit_lookalike() {
	run=$(mktemp -d /run/dz-lookalike.XXXXXX) || fail "mktemp"
	chmod 0777 "$run"
	real=/sys/fs/cgroup/system.slice/dz-backup.scope
	[ -e "$real" ] && fail "$real is there before the test"
	# a file, not bash -c: systemd would expand $$ in a unit's command line
	cat >"$run/lookalike.sh" <<-'EOS'
		run=$1 real=$2 file=$3
		own=/sys/fs/cgroup$(sed -n "s/^0:://p" /proc/self/cgroup)
		mkdir "$own/dz-backup.scope" 2>"$run/mkdir.err" || exit 1
		echo $$ 2>"$run/move.err" >"$own/dz-backup.scope/cgroup.procs" || exit 1
		stat -c %i "$own/dz-backup.scope" >"$run/id.tmp" && mv "$run/id.tmp" "$run/id"
		end=$((SECONDS + 60))
		until [ -e "$run/go" ]; do
			[ $SECONDS -lt $end ] || exit 1
			sleep 0.05
		done
		echo $$ 2>"$run/join.err" >"$real/cgroup.procs" && echo joined >"$run/join"
		mkdir "$real/child" 2>"$run/child.err" && echo made >"$run/child"
		sed -n "s/^0:://p" /proc/self/cgroup >"$run/cgroup"
		if cat "$file" >/dev/null 2>"$run/cat.err"; then r=opened; else r=denied; fi
		echo $r >"$run/result.tmp" && mv "$run/result.tmp" "$run/result"
	EOS
	systemd-run --quiet --unit=dz-lookalike --property=Delegate=yes \
		--property=User=nobody --property=Group=nogroup \
		bash "$run/lookalike.sh" "$run" "$real" "$M/eicar.com" ||
		fail "systemd-run dz-lookalike.service"
	lookalike_made() {
		[ -s "$run/id" ] && return 0
		systemctl -q is-active dz-lookalike.service ||
			fail "dz-lookalike.service ended: $(systemctl show -P Result dz-lookalike.service); $(cat "$run"/*.err 2>&1)"
		return 1
	}
	wait_for 30 "nobody's look-alike dz-backup.scope" lookalike_made
	lookalike=$(cat "$run/id")
	systemd-run --quiet --scope --unit=dz-backup sleep 300 &
	holder=$!
	wait_for 10 "the real dz-backup.scope" test -e "$real"
	real_id=$(stat -c %i "$real")
	wait_for 10 "the kernel to skip the real dz-backup.scope ($real_id)" \
		grep -qx "$real_id" "$CG/exclude_cgroups"
	grep -qx "$lookalike" "$CG/exclude_cgroups" &&
		fail "the kernel skips nobody's look-alike dz-backup.scope ($lookalike)"
	ev=$(cat "$GS/events") ex=$(cat "$GS/excluded")
	touch "$run/go"
	wait_for 30 "nobody's open" test -s "$run/result"
	kill "$holder"
	[ -e "$run/join" ] && fail "nobody joined the excluded $real"
	[ -e "$run/child" ] && fail "nobody made a cgroup below the excluded $real"
	grep -q "Permission denied" "$run/join.err" ||
		fail "nobody's write to $real/cgroup.procs: $(cat "$run/join.err")"
	grep -q "Permission denied" "$run/child.err" ||
		fail "nobody's mkdir in $real: $(cat "$run/child.err")"
	[ "$(cat "$run/result")" = denied ] ||
		fail "nobody's look-alike dz-backup.scope ($(cat "$run/cgroup")) opened $M/eicar.com"
	grep -q "Operation not permitted" "$run/cat.err" || fail "nobody's cat: $(cat "$run/cat.err")"
	[ "$(cat "$GS/events")" -gt "$ev" ] || fail "the look-alike's open made no event"
	[ "$(cat "$GS/excluded")" = "$ex" ] || fail "the look-alike's open was counted as excluded"
	wait_journal 20 "^FOUND Dazukofs.Test.EICAR[^ ]* in $L/eicar.com (opened by pid [0-9]* cat in dz-lookalike.service): denied"
	rm -rf "$run"
	pass "nobody cannot join or grow the excluded scope; its look-alike in a delegated subtree is scanned (named as dz-lookalike.service)"
}

# The verdict store (the unit's StateDirectory): a file scanned before a
# restart is answered from it after, unscanned, once the kernel's
# remembered verdicts are gone with the old scanner.
check_store_restart() {
	echo "stored across a restart" >"$L/stored.txt"
	wait_for 10 "stored.txt's ctime 1 s old (else racily clean: never stored)" \
		ctime_settled "$L/stored.txt"
	expect_allowed "$M/stored.txt"
	systemctl restart "$U" || fail "systemctl restart $U"
	prop_is ActiveState active || fail "$U is $(prop ActiveState) after the restart"
	[ -d /var/lib/dazukofs/verdicts ] || fail "no /var/lib/dazukofs/verdicts (StateDirectory=)"
	expect_allowed "$M/stored.txt"
	wait_for 20 "store_hits=1 with nothing scanned, in the status line" \
		eval "prop_has StatusText ' scanned=0 ' && prop_has StatusText ' store_hits=1 '"
	pass "restarted: a file scanned before is answered from the verdict store, unscanned"
}

# reload with a new signature
check_reload() {
	expect_allowed "$M/newsig.txt"
	printf 'Dazukofs.Test.New:0:*:%s\n' \
		"$(printf '%s' DAZUKOFS-NEW-SIGNATURE-9d2e | od -An -tx1 | tr -d ' \n')" >"$DB/new.ndb"
	systemctl reload "$U" || fail "systemctl reload $U"
	wait_journal 120 "reloaded: 3 signatures from $DB"
	wait_for 30 "$U running after the reload" prop_is SubState running
	wait_journal 10 "^Reloaded $U - DazukoFS on-access virus scanner"
	expect_denied "$M/newsig.txt"
	wait_for 10 "StatusText with the reload" prop_has StatusText ' reloads=1 '
	pass "systemctl reload: the new signature is in force; logged; StatusText: $(prop StatusText)"

	# ExecReload= waits for the reload: a broken database fails systemctl
	# reload, and the scanner keeps the old signatures; status over the
	# control socket in the unit's RuntimeDirectory
	BIN=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$UNIT_FILE")
	[ "$(stat -c %a /run/dazukofs)" = 700 ] || fail "/run/dazukofs is $(stat -c %a /run/dazukofs), not 700"
	"$BIN" status | grep -q "reloads=1 " || fail "$BIN status: $("$BIN" status 2>&1)"
	echo "this is not a signature" >"$DB/broken.ndb"
	systemctl reload "$U" && fail "systemctl reload $U succeeded with a broken database"
	wait_journal 10 "reload failed, keeping the old signatures"
	prop_is SubState running || fail "$U is $(prop SubState) after a failed reload"
	expect_denied "$M/newsig.txt"
	rm "$DB/broken.ndb"
	FAILED_RELOAD_LINES=4
	pass "systemctl reload fails with a broken database; the old signatures stay; status answers"
}

# stop: the group goes away, the unit ends clean
check_stop() {
	systemctl stop "$U" || fail "systemctl stop $U"
	prop_is ActiveState inactive || fail "$U is $(prop ActiveState) after stop"
	prop_is Result success || fail "$U Result=$(prop Result)"
	prop_is ExecMainStatus 0 || fail "$U exited with $(prop ExecMainStatus)"
	[ -d "$CG" ] && fail "group $G still in configfs after stop"
	wait_journal 10 "group '$G' removed"
	expect_allowed "$M/eicar.com"
	pass "systemctl stop removed group $G; $U inactive, Result=success"
	prop_is NRestarts 0 || fail "$U restarted $(prop NRestarts) times"
	# but the reload check_reload made to fail: its four lines, once each
	expected='reload failed, keeping the old signatures: |^dazuko-clamscan reload: reload failed|Control process exited, code=exited, status=1/FAILURE$|^Reload failed for '
	[ "$(jr | grep -cE "$expected")" = "$FAILED_RELOAD_LINES" ] ||
		fail "the failed reload's lines, $FAILED_RELOAD_LINES expected: $(jr | grep -E "$expected")"
	bad=$(jr | grep -vE "$expected" | grep -iwE 'failed|failure|watchdog timeout|core-dump|dumped core|code=killed')
	[ -z "$bad" ] || fail "the journal of $U says: $bad"
	pass "nothing in the journal says $U failed, but a reload made to fail"
}

# the unit starts without the directories it lists that may be absent: no
# config directory (the scanner's defaults apply)
check_no_config() {
	mv "$CONF_DIR" "$CONF_DIR.away" || fail "mv $CONF_DIR"
	systemctl start "$U" ||
		fail "systemctl start $U without $CONF_DIR: $(prop Result) ExecMainStatus=$(prop ExecMainStatus); $(jr | tail -5)"
	wait_for 10 "readers of the default group" counter_is /sys/fs/dazukofs/groups/clamscan/readers "$(nproc)"
	expect_denied "$M/eicar.com"
	systemctl stop "$U" || fail "systemctl stop $U"
	prop_is Result success || fail "$U Result=$(prop Result) without $CONF_DIR"
	mv "$CONF_DIR.away" "$CONF_DIR"
	pass "$U runs without $CONF_DIR (defaults: group clamscan, a worker per CPU)"
}

# source fanotify under the unit: the unit's own mount namespace
# (ProtectSystem=, PrivateTmp=) must not hide the opens made outside it,
# nor may a user's own namespace (unshare -Urm)
check_fanotify() {
	cp "$CONF_DIR/clamscan.conf" "$CONF_DIR/clamscan.conf.dazukofs" || fail "cp clamscan.conf"
	printf 'source = fanotify\nfanotify_mount = %s\n' "$L" >>"$CONF_DIR/clamscan.conf"
	systemctl start "$U" || fail "systemctl start $U with source fanotify: $(jr | tail -5)"
	wait_journal 10 "ready: source fanotify mount $L"
	expect_allowed "$L/clean.txt"
	expect_denied "$L/eicar.com"
	wait_journal 20 "^FOUND Dazukofs.Test.EICAR[^ ]* in $L/eicar.com (opened by pid [0-9]* cat in dazukofs-test.service): denied"
	systemd-run --quiet --scope --unit=dz-backup cat "$L/eicar.com" >/dev/null ||
		fail "fanotify: the excluded unit dz-backup.scope could not open $L/eicar.com"
	err=$(setpriv --reuid=65534 --regid=65534 --clear-groups unshare -Urm cat "$L/eicar.com" 2>&1 >/dev/null) &&
		fail "nobody's unshare -Urm opened $L/eicar.com past the unit's fanotify source"
	case $err in
	*"cat: $L/eicar.com: Operation not permitted"*) ;;
	*) fail "nobody's unshare -Urm cat $L/eicar.com: $err" ;;
	esac
	systemctl stop "$U" || fail "systemctl stop $U (fanotify)"
	prop_is Result success || fail "$U Result=$(prop Result) with source fanotify"
	mv "$CONF_DIR/clamscan.conf.dazukofs" "$CONF_DIR/clamscan.conf"
	expect_allowed "$L/eicar.com"
	pass "source fanotify under the unit: opens from outside its namespace and from a user's own are scanned"
}

t0=$(now_ms)
echo "systemd-checks: ${DZ_CHECKS:=all} checks, systemd $(systemctl --version | sed -n '1s/^systemd //p'), kernel $(uname -r)"
case $DZ_CHECKS in
all)
	check_installed
	use_short_watchdog
	check_start
	check_hardening
	check_watchdog
	check_detection
	check_workloads
	check_store_restart
	check_reload
	check_stop
	check_no_config
	check_fanotify
	;;
# the debug kernel's run (vm-systemd-debug): what the kernel does for units
workloads)
	check_installed
	check_start
	check_detection
	check_workloads
	check_store_restart
	check_stop
	;;
*) fail "DZ_CHECKS=$DZ_CHECKS: all or workloads" ;;
esac
umount "$M" || fail "umount $M"
umount "$L"
echo "systemd-checks: all passed in $(( $(now_ms) - t0 )) ms (uptime $(cut -d' ' -f1 /proc/uptime) s)"
