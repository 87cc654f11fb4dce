#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What admins coming from clamonacc or fapolicyd expect, end to end with
# source=fanotify on this host (root), one mode per ctest:
#   report-only  prevention = no: EICAR opens, the FOUND line says it was
#                allowed, statistics count it as reported, not denied.
# Usage: admin-e2e.sh MODE SCANNER DBDIR
set -u
MODE=$1
SCANNER=$2
DB_SRC=$3
. "$(dirname "$0")/common.sh"

[ "$(id -u)" = 0 ] || fail "needs root (fanotify permission events)"
W=$(mktemp -d /var/tmp/scanner-admin.XXXXXX)
M=$W/mnt
LOG=$W/scanner.log
PID=
cleanup() {
	[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null
	umount "$M" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
mkdir -p "$M" "$W/db"
cp "$DB_SRC"/* "$W/db/"
mount -t tmpfs -o size=16m,mode=0755 scanner-admin "$M" || fail "mount tmpfs"
echo "clean text" > "$M/clean.txt"
make_eicar "$M/eicar.com"
chmod 0644 "$M"/*

# start_scanner OPTION...: the scanner on $M, until it is ready
start_scanner() {
	"$SCANNER" -f -c /dev/null --source fanotify --fanotify-mount "$M" \
		--database "$W/db" --workers 2 --log-level debug "$@" >"$LOG" 2>&1 &
	PID=$!
	wait_log 60 "$LOG" 'notice: ready:'
}

# stop_scanner: SIGTERM, exit status 0 (ASan's reports fail it)
stop_scanner() {
	kill -TERM "$PID"
	wait "$PID"
	_rc=$?
	PID=
	[ "$_rc" = 0 ] || { cat "$LOG"; fail "scanner exited with $_rc"; }
}

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
*)
	fail "unknown mode $MODE"
	;;
esac
echo "scanner-$MODE: all passed"
