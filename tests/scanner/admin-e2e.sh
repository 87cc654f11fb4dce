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
#   self-check   self_check = 1: a new signature file is loaded without a
#                signal, and an unchanged database is not reloaded.
#   quarantine   quarantine = move, copy, and move in report-only mode;
#                dazuko-quarantine list, show, restore, delete; a
#                quarantine_dir others may enter is refused.
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
	${SCANNER_WRAP:-} "$SCANNER" -f -c /dev/null --store no --source fanotify --fanotify-mount "$M" \
		--database "$W/db" --workers 2 --log-level debug "$@" >"$LOG" 2>&1 &
	PID=$!
	wait_log 60 "$LOG" 'notice: ready:'
}

# stop_scanner: SIGTERM, exit status 0 (ASan's reports fail it)
stop_scanner() { e2e_stop "$LOG"; }

# dead PID: no such process, or a zombie that nobody has reaped yet
dead() {
	! kill -0 "$1" 2>/dev/null ||
		[ "$(sed -n 's/^[0-9]* (.*) \([A-Z]\) .*/\1/p' "/proc/$1/stat" 2>/dev/null)" = Z ]
}

# statistics: the last statistics line, after SIGUSR1
statistics() {
	_n=$(grep -c 'statistics:' "$LOG")
	kill -USR1 "$PID"
	wait_log 10 "$LOG" 'statistics:' $(( _n + 1 ))
	grep 'statistics:' "$LOG" | tail -1
}

# flood N: nobody (an unprivileged user) writes $M/flood/flood1.com ...
# floodN.com, EICAR each, and opens them all at once, not waiting for the
# scanner (which runs in the background): every open must be denied
flood() {
	chmod 0755 "$W"
	rm -rf "$M/flood" "$W/flood.bad"
	mkdir "$M/flood"
	chown 65534:65534 "$M/flood"
	make_eicar "$W/flood.ref"
	for _i in $(seq 1 "$1"); do
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			cp "$W/flood.ref" "$M/flood/flood$_i.com" || fail "nobody cannot write flood$_i.com"
	done
	_openers=
	for _i in $(seq 1 "$1"); do
		( _err=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
			cat "$M/flood/flood$_i.com" 2>&1 >/dev/null) &&
			echo "flood$_i.com opened" >> "$W/flood.bad"
		  case $_err in
		  ""|*"Operation not permitted"*) ;;
		  *) echo "flood$_i.com: $_err" >> "$W/flood.bad" ;;
		  esac ) &
		_openers="$_openers $!"
	done
	# shellcheck disable=SC2086 # the pids, one word each
	wait $_openers
	[ ! -e "$W/flood.bad" ] || fail "$(cat "$W/flood.bad")"
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
	*" infected=2 denied=2 "*" skipped_excluded=2 excluded=2 "*) ;;
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
	*" virus_event_run=2 virus_event_dropped=0 virus_event_timeouts=0 quarantined=0 quarantine_failed=0 quarantine_skipped=0") ;;
	*) fail "statistics: $st" ;;
	esac
	stop_scanner

	# A command that hangs, ignores SIGTERM and leaves a child behind:
	# killed with its group after virus_event_timeout, and a stop with
	# one running ends within its grace, killing it too.
	cat > "$W/hang.sh" <<'SH'
#!/bin/sh
trap '' TERM
sleep 600 &
echo $! > "$1/hang.child.$$"
wait
SH
	chmod 0755 "$W/hang.sh"
	rm -rf "$W/out"
	mkdir "$W/out"
	start_scanner --virus-event "$W/hang.sh $W/out" --virus-event-timeout 500
	expect_denied "$M/eicar.com"
	wait_log 30 "$LOG" 'virus_event .*still running after 500 ms; killed' 1
	for f in "$W"/out/hang.child.*; do
		[ -e "$f" ] || fail "the hung command left no pid"
		_child=$(cat "$f")
		wait_for 10 "the hung command's child $_child to be killed" dead "$_child"
	done
	st=$(statistics)
	case $st in
	*" virus_event_run=1 virus_event_dropped=0 virus_event_timeouts=1 "*) ;;
	*) fail "statistics after a timeout: $st" ;;
	esac
	pass "a hung command and its child killed after virus_event_timeout"
	# a flood of detections, each command hanging: every open is still
	# answered at once, every command is killed at its timeout, counted
	flood 24
	pass "24 detections at once by nobody, each command hanging: every open denied"
	flood_timed_out() {
		case $(statistics) in
		*" virus_event_run=25 virus_event_dropped=0 virus_event_timeouts=25 "*) return 0 ;;
		*) return 1 ;;
		esac
	}
	wait_for 60 "25 commands killed at their timeout" flood_timed_out
	for f in "$W"/out/hang.child.*; do
		wait_for 10 "the hung command's child $(cat "$f") to be killed" dead "$(cat "$f")"
	done
	rm -rf "$M/flood"
	pass "a flood of hung commands: each killed at virus_event_timeout and counted"
	stop_scanner
	rm -rf "$W/out"
	mkdir "$W/out"
	start_scanner --virus-event "$W/hang.sh $W/out" --virus-event-timeout 600000
	expect_denied "$M/eicar.com"
	started() { ls "$W"/out/hang.child.* >/dev/null 2>&1; }
	wait_for 30 "the hung command to start" started
	_child=$(cat "$W"/out/hang.child.*)
	# the stop's grace is 2 s; a hang would wait 600 s
	_t0=$(now_ms)
	stop_scanner
	[ $(( $(now_ms) - _t0 )) -lt 20000 ] || fail "the stop waited on a hung command"
	wait_for 10 "the hung command's child $_child to be killed by the stop" dead "$_child"
	pass "a stop does not wait on a hung command"
	;;
self-check)
	echo "innocent DAZUKOFS-NEW-SIGNATURE-9d2e here" > "$M/newsig.txt"
	start_scanner --self-check 1
	expect_allowed "$M/newsig.txt"
	printf 'Dazukofs.Test.New:0:*:%s\n' \
		"$(printf '%s' DAZUKOFS-NEW-SIGNATURE-9d2e | od -An -tx1 | tr -d ' \n')" > "$W/db/new.ndb"
	wait_log 30 "$LOG" "self_check: the signatures in $W/db changed; reloading"
	wait_log 60 "$LOG" 'reloaded: 3 signatures'
	expect_denied "$M/newsig.txt"
	pass "a new signature file loaded by self_check, no signal"
	# once settled (the first reload's view may be racy: it reloads
	# again), checks find nothing to do: no more reloads
	wait_log 30 "$LOG" 'self_check: the signatures in .* did not change' 2
	n=$(grep -c 'reloading signatures from' "$LOG")
	m=$(grep -c 'self_check: the signatures in .* did not change' "$LOG")
	wait_log 30 "$LOG" 'self_check: the signatures in .* did not change' $((m + 3))
	[ "$(grep -c 'reloading signatures from' "$LOG")" = "$n" ] ||
		fail "self_check reloaded an unchanged database"
	pass "self_check: an unchanged database is not reloaded"
	# clamav-unofficial-sigs' way: signature files linked into the
	# directory from elsewhere; a link added, its target rewritten in
	# place, the link pointed elsewhere: each is a change
	sig_for() {
		printf 'Dazukofs.Test.%s:0:*:%s\n' "$1" \
			"$(printf '%s' "DAZUKOFS-LINKED-$1" | od -An -tx1 | tr -d ' \n')"
	}
	mkdir -p "$W/ext"
	for i in 1 2 3; do echo "innocent DAZUKOFS-LINKED-L$i here" > "$M/linked$i.txt"; done
	sig_for L1 > "$W/ext/a.ndb"
	n=$(grep -c 'reloading signatures from' "$LOG")
	ln -s "$W/ext/a.ndb" "$W/db/linked.ndb"
	wait_log 30 "$LOG" 'reloading signatures from' $((n + 1))
	wait_log 60 "$LOG" 'reloaded: 4 signatures'
	expect_denied "$M/linked1.txt"
	expect_allowed "$M/linked2.txt"
	# the target rewritten in place: same inode, the link untouched
	n=$(grep -c 'reloading signatures from' "$LOG")
	{ sig_for L1; sig_for L2; } > "$W/ext/a.ndb"
	wait_log 30 "$LOG" 'reloading signatures from' $((n + 1))
	wait_log 60 "$LOG" 'reloaded: 5 signatures'
	expect_denied "$M/linked2.txt"
	pass "self_check: a linked signature file's target rewritten is reloaded"
	# the link pointed at another file
	n=$(grep -c 'reloading signatures from' "$LOG")
	m=$(grep -c 'reloaded: 4 signatures' "$LOG")
	sig_for L3 > "$W/ext/b.ndb"
	ln -sfn "$W/ext/b.ndb" "$W/db/linked.ndb"
	wait_log 30 "$LOG" 'reloading signatures from' $((n + 1))
	wait_log 60 "$LOG" 'reloaded: 4 signatures' $((m + 1))
	expect_denied "$M/linked3.txt"
	expect_allowed "$M/linked2.txt"
	pass "self_check: a signature link pointed elsewhere is reloaded"
	# SIGUSR2 loads the signatures even when nothing seems changed
	wait_log 30 "$LOG" 'self_check: the signatures in .* did not change' \
		$(($(grep -c 'self_check: the signatures in .* did not change' "$LOG") + 1))
	n=$(grep -c 'reloaded: 4 signatures' "$LOG")
	kill -USR2 "$PID"
	wait_log 30 "$LOG" "reloading signatures from $W/db (SIGUSR2)"
	wait_log 60 "$LOG" 'reloaded: 4 signatures' $((n + 1))
	pass "SIGUSR2 reloads unchanged signatures"
	stop_scanner
	;;
quarantine)
	Q=$W/q
	QT=${QUARANTINE_TOOL:?QUARANTINE_TOOL: dazuko-quarantine to test}
	qt() { "$QT" -d "$Q" "$@"; }
	# the only entry's id
	only_id() {
		_ids=$(cd "$Q" && ls -- *.json 2>/dev/null | sed 's/\.json$//')
		[ "$(echo "$_ids" | grep -c .)" = 1 ] || fail "quarantine entries: '$_ids'"
		echo "$_ids"
	}
	chown 1234:5678 "$M/eicar.com"
	chmod 0640 "$M/eicar.com"
	touch -m -d '2020-01-02 03:04:05.123456789' "$M/eicar.com"
	cat > "$W/event.sh" <<'SH'
#!/bin/sh
printf '%s' "$DAZUKOFS_QUARANTINE_ID" > "$1.tmp" && mv "$1.tmp" "$1"
SH
	chmod 0755 "$W/event.sh"

	# move: the open is denied, the file goes, the command learns the id
	start_scanner --quarantine move --quarantine-dir "$Q" --virus-event "$W/event.sh $W/qid"
	[ "$(stat -c %a "$Q")" = 700 ] || fail "quarantine_dir created with mode $(stat -c %a "$Q")"
	expect_denied "$M/eicar.com"
	wait_log 30 "$LOG" "eicar.com: quarantined as [0-9A-Za-z-]* and removed"
	[ ! -e "$M/eicar.com" ] || fail "move left the file in place"
	id=$(only_id)
	[ "$(stat -c %a "$Q/$id")" = 600 ] || fail "quarantined content has mode $(stat -c %a "$Q/$id")"
	cmp -s "$Q/$id" "$W/eicar.ref" 2>/dev/null || { make_eicar "$W/eicar.ref"; cmp "$Q/$id" "$W/eicar.ref"; } ||
		fail "quarantined content differs"
	wait_for 30 "virus_event's file" test -s "$W/qid"
	[ "$(cat "$W/qid")" = "$id" ] || fail "DAZUKOFS_QUARANTINE_ID '$(cat "$W/qid")', not $id"
	pass "move: denied, removed, quarantined as $id, the command got the id"
	st=$(statistics)
	case $st in
	*" quarantined=1 quarantine_failed=0"*) ;;
	*) fail "statistics: $st" ;;
	esac
	stop_scanner

	out=$(qt list) || fail "list failed"
	echo "$out" | grep -q "^$id .* Dazukofs.Test.EICAR.* $M/eicar.com\$" || fail "list: $out"
	qt list --json | python3 -c '
import json, sys
e = json.load(sys.stdin)[0]
want = {"id": sys.argv[1], "path": sys.argv[2], "uid": 1234, "gid": 5678,
        "mode": 0o640, "size": 68, "mtime_nsec": 123456789, "action": "move"}
bad = {k: e.get(k) for k, v in want.items() if e.get(k) != v}
assert not bad and e["signature"].startswith("Dazukofs.Test.EICAR"), (bad, e)
' "$id" "$M/eicar.com" || fail "list --json"
	qt show "$id" | grep -q '^owner: 1234:5678$' || fail "show"
	pass "list, list --json, show: path, owner, mode, size, times, signature"

	# restore: owner, group, mode and times come back; the entry goes
	qt restore "$id" | grep -q "restored $id to $M/eicar.com" || fail "restore"
	[ "$(stat -c '%u:%g %a %y' "$M/eicar.com")" = "1234:5678 640 2020-01-02 03:04:05.123456789 +0000" ] ||
		fail "restored as $(stat -c '%u:%g %a %y' "$M/eicar.com")"
	[ -z "$(ls "$Q")" ] || fail "restore left $(ls "$Q")"
	pass "restore: content, owner, group, mode, mtime; entry removed"

	# copy: denied, the file stays; restore refuses to overwrite it
	start_scanner --quarantine copy --quarantine-dir "$Q"
	expect_denied "$M/eicar.com"
	wait_log 30 "$LOG" "eicar.com: quarantined as [0-9A-Za-z-]*\$"
	[ -e "$M/eicar.com" ] || fail "copy removed the file"
	id=$(only_id)
	# opened again, unchanged: not copied again
	expect_denied "$M/eicar.com"
	wait_log 30 "$LOG" "eicar.com: quarantined already as $id"
	only_id >/dev/null
	stop_scanner
	err=$(qt restore "$id" 2>&1) && fail "restore over an existing file succeeded"
	case $err in *"File exists (--force replaces it)"*) ;; *) fail "restore: $err" ;; esac
	qt restore --keep --to "$W/restored.com" "$id" >/dev/null || fail "restore --to"
	cmp -s "$W/restored.com" "$M/eicar.com" || fail "restore --to: content"
	qt delete "$id" || fail "delete"
	[ -z "$(ls "$Q")" ] || fail "delete left $(ls "$Q")"
	pass "copy: file stays; restore refuses to replace; --to, --keep; delete"

	# report only: move acts as copy, nobody's file changes
	start_scanner --prevention no --quarantine move --quarantine-dir "$Q"
	expect_allowed "$M/eicar.com"
	wait_log 30 "$LOG" "eicar.com: quarantined as [0-9A-Za-z-]*\$"
	[ -e "$M/eicar.com" ] || fail "report only: move removed the file"
	stop_scanner
	qt delete "$(only_id)"
	pass "report only: move copies"

	# a flood of detections, 20 files opened at once: the quarantine
	# keeps to quarantine_max_files, the rest is counted as skipped, and
	# every open is still denied
	start_scanner --quarantine copy --quarantine-dir "$Q" --quarantine-max-files 3
	flood 20
	flood_done() {
		case $(statistics) in
		*" quarantined=3 quarantine_failed=0 quarantine_skipped=17"*) return 0 ;;
		*) return 1 ;;
		esac
	}
	wait_for 30 "3 files quarantined and 17 skipped" flood_done
	[ "$(ls "$Q" | grep -c '\.json$')" = 3 ] || fail "quarantine holds: $(ls "$Q")"
	wait_log 10 "$LOG" "flood[0-9]*\.com (Dazukofs.Test.EICAR[^)]*) not quarantined: quarantine_max_files: 3 entries already"
	stop_scanner
	for id in $(cd "$Q" && ls -- *.json | sed 's/\.json$//'); do qt delete "$id"; done
	rm -rf "$M/flood"
	pass "a flood of detections by nobody: 3 quarantined (quarantine_max_files), 17 counted as skipped, all denied"

	# a file only refused by a limit is no proven malware: not quarantined
	# (else any user could fill the disk with one sparse file)
	head -c 4096 /dev/zero > "$M/big.bin"
	rm -f "$W/qid"
	start_scanner --quarantine copy --quarantine-dir "$Q" --max-file-size 1K \
		--virus-event "$W/event.sh $W/qid"
	expect_denied "$M/big.bin"
	wait_for 30 "virus_event for big.bin" test -e "$W/qid"
	[ ! -s "$W/qid" ] || fail "big.bin quarantined as $(cat "$W/qid")"
	[ -z "$(ls "$Q")" ] || fail "big.bin quarantined: $(ls "$Q")"
	stop_scanner
	pass "copy: one copy for repeated opens; a file refused by a limit is not quarantined"

	# bad input: clear errors, nothing touched
	for bad in "../x" "a/b" ""; do
		err=$(qt delete "$bad" 2>&1) && fail "delete '$bad' succeeded"
		case $err in *"is not a quarantine id"*) ;; *) fail "delete '$bad': $err" ;; esac
	done
	err=$(qt restore 20200101T000000Z-00000000 2>&1) && fail "restore of a missing id"
	case $err in *"no such entry in the quarantine"*) ;; *) fail "restore missing: $err" ;; esac
	qt frobnicate 2>/dev/null; [ $? = 2 ] || fail "unknown command: not exit 2"
	chmod 0755 "$Q"
	err=$(qt list 2>&1) && fail "list of a quarantine others may enter"
	case $err in *"mode 0755"*"mode 0700"*) ;; *) fail "list: $err" ;; esac
	: >"$LOG"
	"$SCANNER" -f -c /dev/null --store no --source fanotify --fanotify-mount "$M" --database "$W/db" \
		--quarantine copy --quarantine-dir "$Q" >"$LOG" 2>&1 && fail "scanner started with a 0755 quarantine"
	log_has "$LOG" "quarantine_dir $Q: owned by uid 0 with mode 0755" || { cat "$LOG"; fail "no clear error"; }
	pass "bad ids, missing entry, unknown command, open quarantine_dir: clear errors"
	;;
*)
	fail "unknown mode $MODE"
	;;
esac
echo "scanner-$MODE: all passed"
