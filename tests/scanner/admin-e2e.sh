#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What admins coming from clamonacc or fapolicyd expect, end to end with
# source=fanotify on this host (root), one mode per ctest:
#   report-only  prevention = no: EICAR opens, the FOUND line says it was
#                allowed, statistics count it as reported, not denied.
#   exclude      exclude_uid, exclude_user, exclude_root, exclude_exe: the
#                excluded process opens EICAR, others are denied, also
#                right after an excluded open of the same file.
#   virus-event  virus_event runs a command with the detection in its
#                environment, without a shell, never delaying the verdict,
#                one at a time with virus_event_max = 1.
# Usage: admin-e2e.sh MODE SCANNER DBDIR
set -u
MODE=$1
SCANNER=$2
DB_SRC=$3
. "$(dirname "$0")/common.sh"

. "$(dirname "$0")/host-e2e.sh"

e2e_workdir admin size=16m,mode=0755
LOG=$W/scanner.log
mkdir -p "$W/db"
cp "$DB_SRC"/* "$W/db/"
echo "clean text" > "$M/clean.txt"
make_eicar "$M/eicar.com"
chmod 0644 "$M"/*

# start_scanner OPTION...: the scanner on $M, until it is ready
start_scanner() {
	# emptied here, not only by the child's redirection: else the last
	# scanner's "ready" could be read before the new one truncates it
	: >"$LOG"
	${SCANNER_WRAP:-} "$SCANNER" -f -c /dev/null --source fanotify --fanotify-mount "$M" \
		--database "$W/db" --workers 2 --log-level debug "$@" >"$LOG" 2>&1 &
	PID=$!
	wait_log 60 "$LOG" 'notice: ready:'
}

# stop_scanner: SIGTERM, exit status 0 (ASan's reports fail it)
stop_scanner() { e2e_stop "$LOG"; }

# statistics: the last statistics line, after SIGUSR1
statistics() {
	_n=$(grep -c 'statistics:' "$LOG")
	kill -USR1 "$PID"
	wait_log 10 "$LOG" 'statistics:' $(( _n + 1 ))
	grep 'statistics:' "$LOG" | tail -1
}

case $MODE in
report-only)
	start_scanner --prevention no
	expect_allowed "$M/eicar.com"
	expect_allowed "$M/eicar.com"
	expect_allowed "$M/clean.txt"
	grep -q "FOUND signature=Dazukofs.Test.EICAR.* path=$M/eicar.com pid=[0-9]* comm=cat action=allowed-report-only" "$LOG" ||
		{ cat "$LOG"; fail "no FOUND line saying the open was allowed"; }
	# both opens scanned: a reported file is never cached as clean
	log_has "$LOG" "FOUND .*path=$M/eicar.com" 2 || fail "the second open was not scanned"
	st=$(statistics)
	case $st in
	*" infected=2 denied=0 reported=2 "*) ;;
	*) fail "statistics do not count the report: $st" ;;
	esac
	pass "report only: detected, logged, counted, allowed ($st)"
	stop_scanner
	# the same scanner, prevention back on (the default): denied
	start_scanner
	expect_denied "$M/eicar.com"
	stop_scanner
	;;
exclude)
	chmod 0755 "$W"
	cp /bin/cat "$W/trusted-cat"
	# as_nobody CMD...: CMD with every uid and gid nobody's
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	# run_opens WHAT CMD...: 0 if CMD (reading a file) succeeds, 1 on EPERM
	run_opens() {
		_what=$1
		shift
		_err=$("$@" 2>&1 >/dev/null) && return 0
		case $_err in
		*"Operation not permitted"*) return 1 ;;
		*) fail "$_what: unexpected error: $_err" ;;
		esac
	}
	allowed() { run_opens "$@" || fail "$1: denied, should be excluded"; pass "$1: allowed"; }
	denied() { run_opens "$@" && fail "$1: opened, should be denied"; pass "$1: denied"; }

	# by uid: nobody's open passes unscanned; then root's open of the
	# same file is scanned and denied (the exclusion cached nothing)
	start_scanner --exclude-uid 65534
	allowed "nobody (excluded uid) opens EICAR" as_nobody cat "$M/eicar.com"
	log_has "$LOG" "eicar.com: not scanned (opened by pid [0-9]*, excluded by uid 65534)" ||
		{ cat "$LOG"; fail "no log line for the exclusion"; }
	denied "root then opens the same EICAR" cat "$M/eicar.com"
	allowed "nobody again" as_nobody cat "$M/eicar.com"
	denied "root again" cat "$M/eicar.com"
	st=$(statistics)
	case $st in
	*" infected=2 denied=2 "*" excluded=2 "*) ;;
	*) fail "statistics: $st" ;;
	esac
	pass "statistics: $st"
	stop_scanner

	# by user name and by executable; root's own cat is still scanned
	start_scanner --exclude-user nobody --exclude-exe "$W/trusted-cat"
	allowed "nobody (excluded user) opens EICAR" as_nobody cat "$M/eicar.com"
	allowed "an excluded executable opens EICAR" "$W/trusted-cat" "$M/eicar.com"
	denied "root's /bin/cat opens EICAR" cat "$M/eicar.com"
	# a set-uid-like process (real uid nobody, effective root) is scanned
	denied "ruid nobody, euid root" setpriv --ruid=65534 cat "$M/eicar.com"
	stop_scanner

	# without CAP_SYS_PTRACE (the shipped unit) the exe of a process with
	# more capabilities cannot be read: scanned, and a warning says why
	SCANNER_WRAP="setpriv --bounding-set -sys_ptrace --inh-caps -sys_ptrace"
	start_scanner --exclude-exe "$W/trusted-cat"
	SCANNER_WRAP=
	denied "an excluded executable the scanner cannot see" "$W/trusted-cat" "$M/eicar.com"
	log_has "$LOG" "warning: exclude_exe: cannot read /proc/[0-9]*/exe" ||
		{ cat "$LOG"; fail "no warning about the unreadable exe"; }
	stop_scanner

	# root excluded: root's opens pass, nobody's are scanned
	start_scanner --exclude-root yes
	allowed "root (exclude_root) opens EICAR" cat "$M/eicar.com"
	denied "nobody opens EICAR" as_nobody cat "$M/eicar.com"
	stop_scanner
	;;
virus-event)
	# the command: records its environment, one file per run, then
	# holds its slot until released; exits 7 so the status shows
	cat > "$W/event.sh" <<'SH'
#!/bin/sh
out=$1
if ! mkdir "$out/running" 2>/dev/null; then
	: > "$out/overlap"	# two at once with virus_event_max = 1
fi
n=0
while [ -e "$out/run.$n" ]; do n=$((n + 1)); done
env > "$out/run.$n.tmp"
printf '%s' "$CLAM_VIRUSEVENT_FILENAME" > "$out/run.$n.file"
mv "$out/run.$n.tmp" "$out/run.$n"
i=0
while [ ! -e "$out/release" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
rmdir "$out/running"
exit 7
SH
	chmod 0755 "$W/event.sh"
	mkdir "$W/out"
	# a name a shell would act on: spaces, quotes, a command substitution
	NASTY="$M/a b 'q' \"d\" \$(id) \`id\`; *.com"
	make_eicar "$NASTY"
	start_scanner --virus-event "$W/event.sh $W/out" --virus-event-max 1
	# the open is answered while the command still runs (it waits for
	# "release"): the verdict does not wait for the command
	expect_denied "$NASTY"
	wait_for 30 "the command's first run" test -e "$W/out/run.0"
	# it waits for "release" (up to 30 s): had the verdict waited for
	# it, it would be gone by now
	[ -d "$W/out/running" ] || fail "the command ended before the open was answered"
	pass "denied while the command was still running"
	# a second detection waits for the only slot
	expect_denied "$M/eicar.com"
	wait_log 30 "$LOG" "FOUND .*path=$M/eicar.com" 1
	: > "$W/out/release"
	wait_log 30 "$LOG" 'virus_event .*exited with status 7' 2
	[ ! -e "$W/out/overlap" ] || fail "two commands ran at once with virus_event_max = 1"
	pass "one command at a time, exit statuses logged"

	printf '%s' "$NASTY" | cmp -s - "$W/out/run.0.file" ||
		fail "CLAM_VIRUSEVENT_FILENAME is not the file's name: $(cat "$W/out/run.0.file")"
	grep -qx "CLAM_VIRUSEVENT_VIRUSNAME=Dazukofs.Test.EICAR.UNOFFICIAL" "$W/out/run.0" ||
		fail "no CLAM_VIRUSEVENT_VIRUSNAME: $(cat "$W/out/run.0")"
	grep -qx "DAZUKOFS_VIRUSEVENT_PID=[1-9][0-9]*" "$W/out/run.0" || fail "no DAZUKOFS_VIRUSEVENT_PID"
	grep -qx "DAZUKOFS_VIRUSEVENT_ACTION=denied" "$W/out/run.0" || fail "no DAZUKOFS_VIRUSEVENT_ACTION"
	grep -qx "CLAM_VIRUSEVENT_FILENAME=$M/eicar.com" "$W/out/run.1" || fail "second run: $(cat "$W/out/run.1")"
	# nothing of the scanner's own environment goes along
	! grep -q '^ASAN_OPTIONS=' "$W/out/run.0" || fail "the scanner's environment leaked into the command"
	pass "environment: name with spaces, quotes, \$() passed as bytes; signature, pid, action"
	st=$(statistics)
	case $st in
	*" virus_event_run=2 virus_event_dropped=0") ;;
	*) fail "statistics: $st" ;;
	esac
	stop_scanner
	;;
*)
	fail "unknown mode $MODE"
	;;
esac
echo "scanner-$MODE: all passed"
