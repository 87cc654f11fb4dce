#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest script (root, in the VM): dazukofsctl against the real module.
set -u
CTL=${DAZUKOFS_BUILD:?}/admin/dazukofsctl
DZ_TAG=guest-admin
. "${DAZUKOFS_SRC:?}/tests/vm/guest/lib.sh"
L=/mnt/adm-lower
M=/mnt/adm
T=/tmp/adm
mkdir -p "$T"
fails=0
n=0
echo "guest-admin: kernel $(uname -r)"
[ -x "$CTL" ] || { echo "guest-admin: $CTL missing" >&2; exit 1; }

run() {
	want=$1
	shift
	n=$((n + 1))
	"$CTL" "$@" >"$T/out" 2>"$T/err"
	got=$?
	echo "\$ dazukofsctl $* -> $got"
	sed 's/^/  | /' "$T/out" "$T/err"
	if [ "$got" != "$want" ]; then
		echo "FAIL: exit $got, want $want"
		fails=$((fails + 1))
	fi
}
expect() {
	grep -qE -- "$2" "$T/$1" || { echo "FAIL (run $n): $1 lacks /$2/"; fails=$((fails + 1)); }
}
check() { # DESCRIPTION ACTUAL WANT
	[ "$2" = "$3" ] || { echo "FAIL: $1 is '$2', want '$3'"; fails=$((fails + 1)); }
}

# before the module is loaded
modprobe configfs
grep -q ' /sys/kernel/config configfs ' /proc/mounts ||
	mount -t configfs configfs /sys/kernel/config || exit 1
run 3 status
expect out '^module: not loaded'
expect err '^dazukofsctl: the dazukofs module is not loaded'
run 3 group list
expect err '^dazukofsctl: the dazukofs module is not loaded'

dz_load || exit 1
dz_mount_tmpfs "$L" "$M" size=16m || exit 1
echo data >"$L/f"

run 0 status --interval 0
expect out "^  $M \\(over "
expect out '^groups: none'
expect out '^status: ok'

run 0 group add trk --track --timeout 3000 --on-timeout deny --busy-poll 40
C=/sys/kernel/config/dazukofs
check "trk/busy_poll_us" "$(cat $C/trk/busy_poll_us)" 40
check "trk/track" "$(cat $C/trk/track)" 1
check "trk/timeout_ms" "$(cat $C/trk/timeout_ms)" 3000
check "trk/timeout_action" "$(cat $C/trk/timeout_action)" deny
run 1 group add trk
expect err "^dazukofsctl: group 'trk' already exists$"
run 2 group add 'no way'
run 2 group add x --timeout 86400001
run 0 group list
expect out "^trk +$(cat $C/trk/id) +yes +3000 +deny"
run 0 group show trk
expect out '^active: +no'
expect out '^busy poll: +40 us'
run 1 status --interval 0
expect out "^problem: tracked group 'trk' is inactive"
# every attribute through group set, as the real module takes them
run 0 group set trk --grace=2500 --max-queue 64 --on-overflow allow \
	--on-open-error=allow --events close_write,open --record 2 --busy-poll=0 \
	--untracked --timeout 0 --on-timeout allow
for kv in grace_ms=2500 max_queue=64 overflow_action=allow open_error_action=allow \
    "events=open close_write" record=2 busy_poll_us=0 track=0 timeout_ms=0 \
    timeout_action=allow; do
	check "trk/${kv%%=*}" "$(cat "$C/trk/${kv%%=*}")" "${kv#*=}"
done
run 0 group show trk
expect out '^grace: +2500 ms$'
expect out '^max queue: +64 events$'
expect out '^event types: +open close_write$'
expect out '^armed: +no '
# the module's own range check, as one clear line
run 2 group set trk --max-queue 4294967295
expect err "^dazukofsctl: .*max_queue.*Invalid argument"
check "trk/max_queue" "$(cat $C/trk/max_queue)" 64
run 0 group set trk --track
run 0 group del trk
run 1 group del trk
expect err "^dazukofsctl: no such group 'trk'$"
run 1 group show trk
run 1 stats trk

# an untracked group without reader, armed by hand (as in 2009: a new
# group takes part only once a worker opened its device): opens wait, then
# time out (allowed)
run 0 group add slow --untracked --timeout 4000
echo 1 >/sys/kernel/config/dazukofs/slow/armed || fails=$((fails + 1))
cat "$M/f" >/dev/null &
opener=$!
dz_wait_for 10 "open waiting in group slow" \
	dz_value_is /sys/fs/dazukofs/groups/slow/waiting 1 || fails=$((fails + 1))
run 1 status --interval 0
expect out "^problem: group 'slow' has 1 open\\(s\\) waiting and no reader"
wait $opener || { echo "FAIL: the open was not allowed after the timeout"; fails=$((fails + 1)); }
run 0 stats slow --json
expect out '"events":1,.*"timeouts":1,'
run 0 status --interval 0
expect out "^note: group 'slow' has had 1 verdict timeout"
# timeouts rising while status samples: the open starts once status has
# read the counters and sleeps; it times out (4 s) inside the 8 s interval
"$CTL" status --interval 8000 >"$T/out" 2>"$T/err" &
sampler=$!
dz_wait_for 10 "status sleeping in its interval" dz_sleeping $sampler || fails=$((fails + 1))
cat "$M/f" >/dev/null &
opener=$!
wait $sampler
got=$?
n=$((n + 1))
echo "\$ dazukofsctl status --interval 8000 (an open times out meanwhile) -> $got"
sed 's/^/  | /' "$T/out" "$T/err"
check "exit status of status --interval 8000" "$got" 1
expect out "^problem: group 'slow': 1 verdict timeout\\(s\\) in the last 8000 ms \\(2 in all\\)"
wait $opener

run 0 stats
expect out '^slow +2 +0 +0 +0 +2 +0 +0 +0 +yes'
run 0 stats --json --watch 1 --count 2
check "--watch --count 2 lines" "$(grep -c '^{"total"' "$T/out")" 2
if command -v python3 >/dev/null; then
	head -1 "$T/out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["groups"]["slow"]["timeouts"] == 2' ||
		{ echo "FAIL: stats --json"; fails=$((fails + 1)); }
fi
check "sysfs readers" "$(cat /sys/fs/dazukofs/groups/slow/readers)" 0
# counter visibility: the counters are root's; id and active are anyone's
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
for f in events groups/slow/events groups/slow/cache_hits latency/max_us \
	groups/slow/latency/le_1ms close_writes; do
	err=$(nobody cat "/sys/fs/dazukofs/$f" 2>&1) &&
		{ echo "FAIL: an unprivileged user read $f"; fails=$((fails + 1)); }
	case $err in *"Permission denied"*) ;; *) echo "FAIL: $f as nobody: $err"; fails=$((fails + 1)) ;; esac
done
check "group id, as nobody" "$(nobody cat /sys/fs/dazukofs/groups/slow/id)" "$(cat /sys/fs/dazukofs/groups/slow/id)"
check "group active, as nobody" "$(nobody cat /sys/fs/dazukofs/groups/slow/active)" "$(cat /sys/fs/dazukofs/groups/slow/active)"
n=$((n + 1))
nobody "$CTL" stats >"$T/out" 2>"$T/err"
got=$?
echo "\$ (as nobody) dazukofsctl stats -> $got"
sed 's/^/  | /' "$T/out" "$T/err"
check "exit status of stats as nobody" "$got" 3
expect err 'permission denied: .* \(run as root\)'
run 0 group del slow
run 0 status --interval 0
expect out '^status: ok'

dz_check_idle || fails=$((fails + 1))
dz_unload "$M" "$L" || fails=$((fails + 1))
echo "guest-admin: $n runs, $fails failure(s)"
[ "$fails" = 0 ] && echo "guest-admin: PASS" || echo "guest-admin: FAIL"
[ "$fails" = 0 ]
