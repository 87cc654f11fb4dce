#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dazuko-clamscan end to end with source=fanotify on this host (root):
# a tmpfs is mounted, the scanner watches it; a clean file opens, EICAR
# and the marker get EPERM with a FOUND log line (one escaped line for a
# file name with a newline opened by a process named with a terminal
# escape), a clean file changed to
# infected is caught (cache), SIGHUP with a new signature catches a file
# that was clean, a failed reload keeps scanning, SIGUSR2 reloads like
# clamd (not kills the scanner), a reload of an unchanged database keeps
# the engine, SIGUSR1 logs statistics,
# SIGTERM stops with status 0.
# Usage: fanotify-e2e.sh SCANNER DBDIR
set -u
SCANNER=$1
DB_SRC=$2
. "$(dirname "$0")/common.sh"

. "$(dirname "$0")/host-e2e.sh"

e2e_workdir fan size=16m
LOG=$W/scanner.log
mkdir -p "$W/db"
cp "$DB_SRC"/* "$W/db/"

echo "clean text" > "$M/clean.txt"
make_eicar "$M/eicar.com"
echo "clean until it is changed ................" > "$M/later.txt"
echo "innocent DAZUKOFS-NEW-SIGNATURE-9d2e here" > "$M/newsig.txt"

t0=$(now_ms)
"$SCANNER" -f -c /dev/null --store no --source fanotify --fanotify-mount "$M" \
	--database "$W/db" --workers 2 --log-level debug >"$LOG" 2>&1 &
PID=$!
wait_log 60 "$LOG" 'notice: ready:'
echo "scanner ready in $(( $(now_ms) - t0 )) ms"

expect_allowed "$M/clean.txt"
expect_denied "$M/eicar.com"
grep -q "FOUND signature=Dazukofs.Test.EICAR.* path=$M/eicar.com pid=[0-9]* comm=cat" "$LOG" ||
	fail "no FOUND line for eicar.com"
pass "FOUND line with path, pid and comm"

# Paths and command names come from users: a newline in a file name and a
# terminal escape in the opener's name (written to /proc/PID/comm, as
# prctl(PR_SET_NAME) would) are escaped, the detection stays one line.
FORGED="dazuko-clamscan: warning: FOUND signature=Forged path=_etc_passwd pid=1 comm=init action=denied"
EVIL="$M/evil
$FORGED"
make_eicar "$EVIL"
# the shell renames itself, then opens the file itself (exec 3<, no fork)
opener_err=$(sh -c 'printf "ev\033[2J\nx" > /proc/$$/comm && exec 3< "$1"' sh "$EVIL" 2>&1) &&
	fail "the file with a newline in its name opened"
case $opener_err in
*"not permitted"*) ;;
*) fail "opening the file with a newline in its name: $opener_err" ;;
esac
# (escaped or not: the checks below tell)
wait_log 30 "$LOG" 'FOUND signature=Dazukofs.Test.EICAR.* path=.*/evil'
want="path=\"$M/evil\\n$FORGED\" pid="
grep -F -- "$want" "$LOG" | grep -q -F 'comm=ev\x1b[2J\nx action=denied' ||
	{ cat "$LOG"; fail "no escaped FOUND line for the file named with a newline"; }
if grep -q "^$FORGED" "$LOG"; then
	cat "$LOG"; fail "a forged line made it into the log"
fi
if grep -q "$(printf '\033')" "$LOG"; then
	fail "a raw escape byte made it into the log"
fi
pass "a newline in a path and an escape in comm are escaped, one line"

# cached, then changed to infected
expect_allowed "$M/later.txt"
expect_allowed "$M/later.txt"
grep -q "later.txt: clean (cached)" "$LOG" || fail "second open was not a cache hit"
echo "now infected $MARKER ..............." > "$M/later.txt"
expect_denied "$M/later.txt"

# reload with a new signature
expect_allowed "$M/newsig.txt"
printf 'Dazukofs.Test.New:0:*:%s\n' \
	"$(printf '%s' DAZUKOFS-NEW-SIGNATURE-9d2e | od -An -tx1 | tr -d ' \n')" > "$W/db/new.ndb"
kill -HUP "$PID"
wait_log 60 "$LOG" 'reloaded: 3 signatures'
expect_denied "$M/newsig.txt"

# a broken database: the reload fails, the old engine keeps scanning
echo "this is not a signature" > "$W/db/broken.ndb"
kill -HUP "$PID"
wait_log 60 "$LOG" 'reload failed, keeping the old signatures'
expect_denied "$M/eicar.com"
expect_allowed "$M/clean.txt"
rm "$W/db/broken.ndb"

# SIGUSR2 reloads, as it does for clamd (the database changed: touched)
# (a killed scanner is a zombie until waited for: kill -0 would not tell)
touch "$W/db/new.ndb"
# one second past the change: the reload's fingerprint of the directory
# is then not racy, and the next reload can tell that nothing changed
db_settled() { [ $(( $(date +%s%N) - $(stat -c %Z "$W/db/new.ndb")000000000 )) -gt 2000000000 ]; }
wait_for 10 "2 s since the database's last change" db_settled
running() {
	_st=$(sed 's/.*) //' "/proc/$PID/stat" 2>/dev/null | cut -c1)
	[ -n "$_st" ] && [ "$_st" != Z ]
}
reloaded_or_dead() { log_has "$LOG" 'reloaded: 3 signatures' 2 || ! running; }
kill -USR2 "$PID"
wait_for 60 "a reload after SIGUSR2" reloaded_or_dead
running || fail "SIGUSR2 killed the scanner"
pass "SIGUSR2 reloads"

# a reload that changed nothing keeps the engine and the verdicts
kill -HUP "$PID"
wait_log 60 "$LOG" 'reload: the signatures in .* did not change; engine and verdicts kept'
log_has "$LOG" 'reloaded: 3 signatures' 3 && fail "an unchanged database was loaded again"
pass "SIGHUP with an unchanged database: engine and verdicts kept"
expect_denied "$M/eicar.com"

kill -USR1 "$PID"
wait_log 10 "$LOG" 'statistics: .*infected=[1-9]'
pass "SIGUSR1 statistics: $(grep 'statistics:' "$LOG" | tail -1 | sed 's/.*statistics: //')"

e2e_stop "$LOG"
expect_allowed "$M/eicar.com"	# nobody watches any more
echo "scanner-fanotify: all passed in $(( $(now_ms) - t0 )) ms"
