#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# dazukofsctl on the host, against a fake configfs/sysfs tree (DAZUKOFS_*
# environment overrides): every command, --help, bad input -> exit status
# and message.   cli-test.sh DAZUKOFSCTL
set -u
CTL=${1:?usage: cli-test.sh DAZUKOFSCTL}
T=$(mktemp -d "${TMPDIR:-/tmp}/dzctl-XXXXXX")
trap 'rm -rf "$T"' EXIT
fails=0
n=0

export DAZUKOFS_CONFIGFS=$T/config/dazukofs DAZUKOFS_SYSFS=$T/sys/dazukofs
export DAZUKOFS_MODULE=$T/module/dazukofs DAZUKOFS_MOUNTINFO=$T/mountinfo
export DAZUKOFS_DEV=$T/dev/dazukofs.
mkdir -p "$DAZUKOFS_CONFIGFS" "$DAZUKOFS_SYSFS/groups" "$DAZUKOFS_MODULE"

counters() { # DIR BASE
	mkdir -p "$1/latency"
	i=0
	for c in events allowed denied cancelled timeouts waiting in_hand readers \
	    latency/max_us latency/le_100us latency/le_1ms latency/le_10ms \
	    latency/le_100ms latency/le_1s latency/gt_1s \
	    cache_hits cache_misses cache_invalidations; do
		echo $(($2 + i)) >"$1/$c"
		i=$((i + 1))
	done
}
counters "$DAZUKOFS_SYSFS" 0
cat >"$DAZUKOFS_MOUNTINFO" <<'MI'
22 1 0:21 / /sys rw,nosuid - sysfs sysfs rw
98 1 0:45 / /srv/my\040files rw,relatime shared:1 - dazukofs /srv/my\040files rw
MI

# run EXPECTED_STATUS ARGS...: output in $T/out, $T/err
run() {
	want=$1
	shift
	n=$((n + 1))
	"$CTL" "$@" >"$T/out" 2>"$T/err"
	got=$?
	if [ "$got" != "$want" ]; then
		echo "FAIL: dazukofsctl $*: exit $got, want $want"
		sed 's/^/  out: /' "$T/out"
		sed 's/^/  err: /' "$T/err"
		fails=$((fails + 1))
	fi
}
# run_sampling EXPECTED_STATUS SHELL_CMD ARGS...: like run, for a command
# that samples twice (status --interval): SHELL_CMD runs between the two
# samples, once dazukofsctl sleeps in (clock_)nanosleep
run_sampling() {
	want=$1 between=$2
	shift 2
	"$CTL" "$@" >"$T/out" 2>"$T/err" &
	pid=$!
	deadline=$(($(date +%s) + 10))
	until read -r nr _ <"/proc/$pid/syscall" 2>/dev/null &&
	    { [ "$nr" = 35 ] || [ "$nr" = 230 ]; }; do
		if [ "$(date +%s)" -ge "$deadline" ]; then
			echo "FAIL: dazukofsctl $* never slept between its samples"
			fails=$((fails + 1))
			break
		fi
		sleep 0.01
	done
	eval "$between"
	wait $pid
	got=$?
	n=$((n + 1))
	if [ "$got" != "$want" ]; then
		echo "FAIL: dazukofsctl $*: exit $got, want $want"
		sed 's/^/  out: /' "$T/out"
		sed 's/^/  err: /' "$T/err"
		fails=$((fails + 1))
	fi
}
# expect FILE PATTERN (grep -E)
expect() {
	if ! grep -qE -- "$2" "$T/$1"; then
		echo "FAIL (test $n): $1 lacks /$2/:"
		sed 's/^/  | /' "$T/$1"
		fails=$((fails + 1))
	fi
}
# one line on stderr, with the prefix
oneline() {
	if [ "$(wc -l <"$T/err")" != 1 ] || ! grep -q '^dazukofsctl: ' "$T/err"; then
		echo "FAIL (test $n): stderr is not one 'dazukofsctl: ' line:"
		sed 's/^/  | /' "$T/err"
		fails=$((fails + 1))
	fi
}
empty() {
	if [ -s "$T/$1" ]; then
		echo "FAIL (test $n): $1 not empty:"
		sed 's/^/  | /' "$T/$1"
		fails=$((fails + 1))
	fi
}

# --help everywhere: exit 0, usage on stdout, nothing on stderr
for args in "--help" "-h" "help" "group --help" "group add --help" \
    "group del --help" "group list --help" "group show --help" \
    "stats --help" "status --help"; do
	run 0 $args
	expect out '^Usage: dazukofsctl'
	empty err
done
run 0 --version
expect out '^dazukofsctl [0-9]'

# usage errors: exit 2, one line
run 2;				expect err '^Usage:'
run 2 frobnicate;		oneline; expect err "unknown command 'frobnicate'"
run 2 group;			oneline
run 2 group frob;		oneline; expect err "unknown subcommand 'frob'"
run 2 group add;		oneline; expect err 'which group'
run 2 group add 'bad name';	oneline; expect err "invalid group name 'bad name'"
run 2 group add a/b;		oneline; expect err "invalid group name"
run 2 group add $(printf 'x%.0s' $(seq 65)); oneline
run 2 group add g --timeout;	oneline; expect err 'needs a value'
run 2 group add g --timeout abc; oneline; expect err "'abc' is not a number"
run 2 group add g --timeout 86400001; oneline
run 2 group add g --timeout -1;	oneline
run 2 group add g --on-timeout maybe; oneline; expect err 'allow or deny'
run 2 group add g --frob;	oneline; expect err "unknown option '--frob'"
run 2 group add g --record 4;	oneline; expect err "'4' is not a number from 1 to 3"
run 2 group add g --exclude-cgroups 'x';	oneline; expect err "'x' is neither a cgroup id nor a path"
run 2 group add g --exclude-cgroups '/no/such/cgroup'; oneline; expect err "cannot resolve cgroup '/no/such/cgroup'"
run 2 group add g --exclude-cgroups "$(seq -s , 1 65)"; oneline; expect err "more than 64 cgroups"
run 2 group add g --record=0;	oneline
run 2 group add g --record;	oneline; expect err "needs a value"
run 2 group add g --busy-poll 1001; oneline; expect err "'1001' is not a number from 0 to 1000"
run 2 group add g --busy-poll=-1; oneline
# the library's one number rule (dazukofs_parse_uint): digits only
run 2 group add g --timeout +5;	oneline; expect err "'[+]5' is not a number from 0 to"
run 2 group add g --timeout ' 5'; oneline; expect err "' 5' is not a number from 0 to"
run 2 group add g --timeout 0x10; oneline
run 2 group add g --busy-poll;	oneline; expect err "needs a value"
run 2 group add g h;		oneline
run 2 group del;		oneline
run 2 group show 'x y';		oneline
run 2 group list extra;		oneline
run 2 stats --watch 0;		oneline
run 2 stats --count 2;		oneline; expect err 'goes with --watch'
run 2 stats --frob;		oneline
run 2 stats a b;		oneline
run 2 status --interval x;	oneline
run 2 status extra;		oneline
[ -z "$(ls "$DAZUKOFS_CONFIGFS")" ] || { echo "FAIL: usage errors made groups"; fails=$((fails + 1)); }

# group add: the settings are written
run 0 group add scan-1 --track --timeout 2500 --on-timeout deny
empty out; empty err
[ "$(cat "$DAZUKOFS_CONFIGFS/scan-1/track")" = 1 ] &&
[ "$(cat "$DAZUKOFS_CONFIGFS/scan-1/timeout_ms")" = 2500 ] &&
[ "$(cat "$DAZUKOFS_CONFIGFS/scan-1/timeout_action")" = deny ] ||
	{ echo "FAIL: group add settings"; fails=$((fails + 1)); }
run 0 group add plain --untracked --timeout=10 --on-timeout=allow
[ "$(cat "$DAZUKOFS_CONFIGFS/plain/timeout_ms")" = 10 ] ||
	{ echo "FAIL: --timeout="; fails=$((fails + 1)); }
[ "$(cat "$DAZUKOFS_CONFIGFS/plain/track")" = 0 ] ||
	{ echo "FAIL: --untracked"; fails=$((fails + 1)); }
# the defaults: crash-tracked, no timeout, allow
run 0 group add dflt;		empty out; empty err
[ "$(cat "$DAZUKOFS_CONFIGFS/dflt/track")" = 1 ] &&
[ "$(cat "$DAZUKOFS_CONFIGFS/dflt/timeout_ms")" = 0 ] &&
[ "$(cat "$DAZUKOFS_CONFIGFS/dflt/timeout_action")" = allow ] ||
	{ echo "FAIL: group add defaults"; fails=$((fails + 1)); }
rm -rf "$DAZUKOFS_CONFIGFS/dflt"
run 1 group add scan-1;		oneline; expect err "group 'scan-1' already exists"
# --record: the fake is a module without the attribute (no O_CREAT for it)
run 0 group add rec-1 --record 1;	empty out; empty err
[ ! -e "$DAZUKOFS_CONFIGFS/rec-1/record" ] ||
	{ echo "FAIL: --record 1 made the attribute up"; fails=$((fails + 1)); }
run 1 group add rec-2 --record=2;	oneline; expect err 'has no record \(too old\)'
rm -rf "$DAZUKOFS_CONFIGFS/rec-1" "$DAZUKOFS_CONFIGFS/rec-2"
# --busy-poll: likewise (the fake's rmdir cannot remove the half-made group)
run 1 group add bp-1 --busy-poll 50;	oneline; expect err 'has no busy_poll_us \(too old\)'
rm -rf "$DAZUKOFS_CONFIGFS/bp-1"
# the fake needs what the module would add: ids and sysfs directories
echo 0 >"$DAZUKOFS_CONFIGFS/scan-1/id"
echo 1 >"$DAZUKOFS_CONFIGFS/plain/id"
for g in scan-1 plain; do
	counters "$DAZUKOFS_SYSFS/groups/$g" 0
	echo 1 >"$DAZUKOFS_SYSFS/groups/$g/active"
	for c in waiting readers timeouts; do echo 0 >"$DAZUKOFS_SYSFS/groups/$g/$c"; done
done

run 0 group list
expect out '^NAME +ID +TRACK +TIMEOUT_MS +ON_TIMEOUT'
expect out '^plain +1 +no +10 +allow'
expect out '^scan-1 +0 +yes +2500 +deny'
run 0 group show scan-1
expect out '^name: +scan-1'
expect out '^track: +yes \(a reader that dies hands its events on'
expect out '^device: +.*/dev/dazukofs\.0$'
expect out '^timeout: +2500 ms, then deny'
! grep -q '^record:' "$T/out" ||
	{ echo "FAIL: group show: a record format without the attribute"; fails=$((fails + 1)); }
echo 2 >"$DAZUKOFS_CONFIGFS/scan-1/record"
run 0 group show scan-1
expect out '^record: +2 \(also who opened how'
rm "$DAZUKOFS_CONFIGFS/scan-1/record"
! grep -q '^busy poll:' "$T/out" ||
	{ echo "FAIL: group show: busy poll without the attribute"; fails=$((fails + 1)); }
echo 0 >"$DAZUKOFS_CONFIGFS/scan-1/busy_poll_us"
run 0 group show scan-1
! grep -q '^busy poll:' "$T/out" ||
	{ echo "FAIL: group show: busy poll 0 shown"; fails=$((fails + 1)); }
echo 200 >"$DAZUKOFS_CONFIGFS/scan-1/busy_poll_us"
run 0 group show scan-1
expect out '^busy poll: +200 us'
rm "$DAZUKOFS_CONFIGFS/scan-1/busy_poll_us"
expect out '^readers: +0'
expect out '^events: +0 \(allowed 1, denied 2, cancelled 3, timeouts 0\)'
run 1 group show nope;		oneline; expect err "no such group 'nope'"
# --exclude-cgroups: paths resolved on the host's own cgroup2 filesystem
cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ -n "$cg2" ]; then
	: >"$DAZUKOFS_CONFIGFS/scan-1/exclude_cgroups"
	echo 7 >"$DAZUKOFS_SYSFS/groups/scan-1/excluded"
	run 0 group set scan-1 --exclude-cgroups "/, $cg2 42"
	root=$(stat -c %i "$cg2")
	[ "$(cat "$DAZUKOFS_CONFIGFS/scan-1/exclude_cgroups")" = "$root $root 42" ] ||
		{ echo "FAIL: --exclude-cgroups wrote '$(cat "$DAZUKOFS_CONFIGFS/scan-1/exclude_cgroups")'"; fails=$((fails + 1)); }
	printf '%s\n42\n' "$root" >"$DAZUKOFS_CONFIGFS/scan-1/exclude_cgroups"
	run 0 group show scan-1
	expect out "^excluded: +2 cgroup\\(s\\), 7 accesses spared"
	expect out "^  cgroup $root '/'\$"
	expect out "^  cgroup 42 \\(not found: "
	run 0 group set scan-1 --exclude-cgroups ''
	[ "$(cat "$DAZUKOFS_CONFIGFS/scan-1/exclude_cgroups")" = " " ] ||
		{ echo "FAIL: --exclude-cgroups '' did not empty the list"; fails=$((fails + 1)); }
	rm "$DAZUKOFS_CONFIGFS/scan-1/exclude_cgroups" "$DAZUKOFS_SYSFS/groups/scan-1/excluded"
else
	echo "cli-test: no cgroup2 filesystem here: --exclude-cgroups paths not tested"
fi

# group set: every attribute, --opt VALUE and --opt=VALUE; the fake has
# the attributes a current module has (it makes none up)
for a in grace_ms max_queue overflow_action open_error_action events record \
    busy_poll_us armed; do
	echo x >"$DAZUKOFS_CONFIGFS/scan-1/$a"
done
run 0 group set scan-1 --untracked --timeout=0 --on-timeout allow --grace 3000 \
	--max-queue=128 --on-overflow allow --on-open-error=allow \
	--events open,close_write --record=2 --busy-poll 5 --arm
empty out; empty err
for kv in track=0 timeout_ms=0 timeout_action=allow grace_ms=3000 max_queue=128 \
    overflow_action=allow open_error_action=allow "events=open close_write" \
    record=2 busy_poll_us=5 armed=1; do
	[ "$(cat "$DAZUKOFS_CONFIGFS/scan-1/${kv%%=*}")" = "${kv#*=}" ] ||
		{ echo "FAIL: group set: ${kv%%=*} is '$(cat "$DAZUKOFS_CONFIGFS/scan-1/${kv%%=*}")', not '${kv#*=}'"; fails=$((fails + 1)); }
done
run 0 group show scan-1
expect out '^track: +no '
expect out '^grace: +3000 ms$'
expect out '^max queue: +128 events$'
expect out '^on overflow: +allow$'
expect out '^on open error: +allow$'
expect out '^event types: +open close_write$'
expect out '^record: +2 '
expect out '^busy poll: +5 us$'
expect out '^armed: +yes$'
expect out '^events: +0 \(allowed 1, '
run 0 group set scan-1 --track --events 'exec open'
[ "$(cat "$DAZUKOFS_CONFIGFS/scan-1/track")" = 1 ] &&
[ "$(cat "$DAZUKOFS_CONFIGFS/scan-1/events")" = "open exec" ] ||
	{ echo "FAIL: group set --track --events 'exec open'"; fails=$((fails + 1)); }
# bad input: usage errors (2), one line, nothing written
run 2 group set scan-1;			oneline; expect err 'which setting'
run 2 group set;			oneline; expect err 'which group'
run 2 group set scan-1 --events bogus;	oneline; expect err "'bogus' is not a list of open, exec and close_write"
run 2 group set scan-1 --events ,;	oneline; expect err "',' is not a list of open, exec and close_write"
run 2 group set scan-1 --on-overflow=maybe; oneline; expect err 'allow or deny'
run 2 group set scan-1 --max-queue 0;	oneline; expect err "'0' is not a number from 1"
run 2 group set scan-1 --grace=600001;	oneline
run 2 group set scan-1 --record;	oneline; expect err '--record needs a value'
run 2 group set scan-1 --frob 1;	oneline; expect err "unknown option '--frob'"
run 2 group set 'a b' --arm;		oneline; expect err 'invalid group name'
[ "$(cat "$DAZUKOFS_CONFIGFS/scan-1/max_queue")" = 128 ] ||
	{ echo "FAIL: a refused group set wrote something"; fails=$((fails + 1)); }
# no such group: an error, and no directory made for it
run 1 group set nope --arm;		oneline; expect err "no such group 'nope'"
[ ! -e "$DAZUKOFS_CONFIGFS/nope" ] || { echo "FAIL: group set made 'nope'"; fails=$((fails + 1)); }
# a module without the attribute
run 1 group set plain --max-queue 5;	oneline; expect err 'has no max_queue \(too old\)'
# --opt=VALUE where it was not accepted before
run 0 stats --watch=1 --count=1
expect out '^dazukofs counters at '
run 0 status --interval=0

# stats
counters "$DAZUKOFS_SYSFS" 100
run 0 stats
expect out '^GROUP +EVENTS +ALLOWED'
expect out '^\(accesses\) +100 +101 +102 +103 +104 +105 +106 +107 +-'
expect out '^scan-1 +0 +1 +2 '
expect out '^LATENCY'
expect out '^VERDICT CACHE +HITS +MISSES +INVALIDATIONS'
expect out '^\(accesses\) +115 +116 +117$'
# the first row says what it counts, and why the groups need not add up to it
expect out "^\(accesses\): the module's count, each access that waited for verdicts once,"
expect out 'the groups need not add up to \(accesses\)'
run 0 stats scan-1 --json
expect out '^\{"group":"scan-1","counters":\{"events":0,"allowed":1,.*"active":true,"latency":\{"max_us":8,.*"cache":\{"hits":15,"misses":16,"invalidations":17\}\}\}$'
# the whole line, byte for byte as the printf-made JSON was (now json-c's)
[ "$(cat "$T/out")" = '{"group":"scan-1","counters":{"events":0,"allowed":1,"denied":2,"cancelled":3,"timeouts":0,"waiting":0,"in_hand":6,"readers":0,"active":true,"latency":{"max_us":8,"le_100us":9,"le_1ms":10,"le_10ms":11,"le_100ms":12,"le_1s":13,"gt_1s":14},"cache":{"hits":15,"misses":16,"invalidations":17}}}' ] ||
	{ echo "FAIL: stats scan-1 --json changed: $(cat "$T/out")"; fails=$((fails + 1)); }
run 0 stats --json
expect out '^\{"total":\{"events":100,.*"groups":\{"plain":\{.*\},"scan-1":\{.*\}\}\}$'
if command -v python3 >/dev/null; then
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out" ||
		{ echo "FAIL: stats --json is not JSON"; fails=$((fails + 1)); }
fi
run 0 stats --format prometheus
expect out '^# TYPE dazukofs_events_total counter$'
expect out '^dazukofs_events_total 100$'
expect out '^dazukofs_group_denied_total\{group="scan-1"\} 2$'
expect out '^dazukofs_group_active\{group="scan-1"\} 1$'
# cumulative buckets of the totals' 109, 110, ... 114
expect out '^dazukofs_verdict_latency_seconds_bucket\{le="0.001"\} 219$'
expect out '^dazukofs_verdict_latency_seconds_bucket\{le="\+Inf"\} 669$'
expect out '^dazukofs_verdict_latency_seconds_count 669$'
expect out '^dazukofs_verdict_latency_max_seconds 0.000108$'
expect out '^dazukofs_group_cache_hits_total\{group="scan-1"\} 15$'
# what a Prometheus server would make of it (its own client's parser)
/usr/bin/python3 - "$T/out" <<'PY' || { echo "FAIL: stats --format prometheus does not parse"; fails=$((fails + 1)); }
import sys
from prometheus_client.parser import text_string_to_metric_families
fams = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
h = fams["dazukofs_group_verdict_latency_seconds"]
assert h.type == "histogram", h.type
s = {(x.name, x.labels.get("group"), x.labels.get("le")): x.value for x in h.samples}
assert s[("dazukofs_group_verdict_latency_seconds_bucket", "scan-1", "+Inf")] == \
    s[("dazukofs_group_verdict_latency_seconds_count", "scan-1", None)]
assert fams["dazukofs_events"].type == "counter"
assert fams["dazukofs_group_waiting"].type == "gauge"
assert {x.labels["group"] for x in fams["dazukofs_group_events"].samples} == {"plain", "scan-1"}
PY
run 0 stats scan-1 --format prometheus
expect out '^dazukofs_group_events_total\{group="scan-1"\} 0$'
grep -q '^dazukofs_events_total' "$T/out" && { echo "FAIL: stats GROUP --format prometheus has the totals"; fails=$((fails + 1)); }
run 2 stats --format xml;	oneline; expect err "--format takes table, json or prometheus, not 'xml'"
run 2 stats --format;		oneline
run 2 stats --format prometheus --watch 1;	oneline; expect err 'run it again instead of --watch'
run 2 stats --format prometheus --json;	oneline; expect err 'two formats, prometheus and json'
run 0 stats --json --format json
run 0 stats --json --watch 1 --count 2
[ "$(grep -c '^{"total"' "$T/out")" = 2 ] || { echo "FAIL: --watch --count 2 --json"; fails=$((fails + 1)); }
run 0 stats scan-1 --watch 1 --count 2
[ "$(grep -c '^dazukofs counters at ' "$T/out")" = 2 ] || { echo "FAIL: --watch --count 2"; fails=$((fails + 1)); }
run 1 stats nope;		oneline; expect err "no such group 'nope'"
run 2 stats 'bad!';		oneline

# status: all well
run 0 status --interval 0
expect out '^module: loaded'
expect out '^  /srv/my files \(over /srv/my files\)'
expect out '^  scan-1 +id=0 readers=0 active'
expect out '^status: ok'
# libmount's reading: escapes undone (\134 backslash, \011 tab), optional
# fields, a FUSE type named like the module's and no dazukofs mount
printf '%s\n' '22 1 0:21 / /sys rw,nosuid - sysfs sysfs rw' \
	'30 1 0:50 / /a\134b\011c rw shared:7 master:2 - dazukofs /x\040y rw' \
	'31 1 0:51 / /fuse rw - fuse.dazukofs dz rw' \
	'32 1 0:52 / /r rw - dazukofs /r rw,remember=off' >"$T/mountinfo2"
DAZUKOFS_MOUNTINFO=$T/mountinfo2 run 0 status --interval 0
expect out "^  /a\\\\b$(printf '\t')c \(over /x y\)$"
expect out '^  /r \(over /r, remember=off\)$'
[ "$(grep -c '^  /' "$T/out")" = 2 ] || { echo "FAIL: status counted other mounts: $(cat "$T/out")"; fails=$((fails + 1)); }
printf '' >"$T/mountinfo2"
DAZUKOFS_MOUNTINFO=$T/mountinfo2 run 0 status --interval 0
expect out '^mounts: none$'
# a group with opens waiting and no reader; a tracked group inactive
echo 3 >"$DAZUKOFS_SYSFS/groups/plain/waiting"
echo 0 >"$DAZUKOFS_SYSFS/groups/scan-1/active"
echo 2 >"$DAZUKOFS_SYSFS/groups/scan-1/timeouts"
run 1 status --interval 0
expect out "^problem: group 'plain' has 3 open\(s\) waiting and no reader"
expect out "^problem: tracked group 'scan-1' is inactive"
expect out "^note: group 'scan-1' has had 2 verdict timeout"
expect out '^status: 2 problem'
# timeouts rising between the two samples
echo 0 >"$DAZUKOFS_SYSFS/groups/plain/waiting"
echo 1 >"$DAZUKOFS_SYSFS/groups/scan-1/active"
run_sampling 1 'echo 5 >"$DAZUKOFS_SYSFS/groups/scan-1/timeouts"' status --interval 1500
expect out "^problem: group 'scan-1': 3 verdict timeout\(s\) in the last 1500 ms \(5 in all\)"

# group del
rm -f "$DAZUKOFS_CONFIGFS"/plain/*	# configfs would do this itself
run 0 group del plain;		empty err
run 1 group del plain;		oneline; expect err "no such group 'plain'"

# permission denied (not as root: root ignores the mode bits)
if [ "$(id -u)" != 0 ]; then
	chmod 555 "$DAZUKOFS_CONFIGFS"
	run 3 group add x;	oneline; expect err 'permission denied'
	chmod 755 "$DAZUKOFS_CONFIGFS"
fi

# environment: configfs not mounted, module not loaded
mv "$DAZUKOFS_CONFIGFS" "$T/config/away"
for args in "group list" "group add x" "group show scan-1" "stats"; do
	run 3 $args;		oneline; expect err 'configfs is not mounted'
done
run 3 status --interval 0;	oneline; expect err 'configfs is not mounted'
mv "$T/config/away" "$DAZUKOFS_CONFIGFS"
DAZUKOFS_MODULE=$T/none DAZUKOFS_SYSFS=$T/none DAZUKOFS_CONFIGFS=$T/none run 3 group list
oneline; expect err 'the dazukofs module is not loaded'
DAZUKOFS_MODULE=$T/none DAZUKOFS_SYSFS=$T/none DAZUKOFS_CONFIGFS=$T/none run 3 status
oneline; expect out '^module: not loaded'
DAZUKOFS_MODULE=$T/none DAZUKOFS_SYSFS=$T/none DAZUKOFS_CONFIGFS=$T/none run 3 stats
oneline
DAZUKOFS_MOUNTINFO=$T/none run 3 status --interval 0
oneline; expect err 'cannot read the mounts'

echo "cli-test: $n runs, $fails failure(s)"
[ "$fails" = 0 ]
