#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dazuko-clamscan's scan limits end to end, with source=fanotify on this
# host (root): files libclamav cannot scan fully are never let through as
# clean.  An encrypted zip holding EICAR, zips nested past max_recursion
# with EICAR at the bottom, a file over max_scan_size and one over
# max_file_size, both starting with EICAR: each is denied with a FOUND
# line naming libclamav's heuristic, counted (exceeds_max, encrypted,
# denied), and scanned again at the next open (never cached), while a
# clean file is cached.  A zip with an encrypted entry and EICAR in clear
# is denied for EICAR (the signature wins).  With alert_exceeds_max and
# alert_encrypted off the same files open, each open logged and counted.
# Usage: limits-e2e.sh SCANNER DBDIR
set -u
SCANNER=$1
DB=$2
. "$(dirname "$0")/common.sh"

. "$(dirname "$0")/host-e2e.sh"
command -v zip >/dev/null || fail "needs zip (scripts/setup installs it)"
e2e_workdir limits size=32m
mkdir -p "$W/src"

# The test files, made before the scanner watches (zip reads no events then).
cd "$W/src" || fail "cd $W/src"
make_eicar eicar.com
zip -q -e -P secret "$M/encrypted.zip" eicar.com || fail "zip -e"
cp eicar.com n0
zip -q n1.zip n0 || fail zip
i=1
while [ "$i" -lt 20 ]; do	# 20 levels, past max_recursion 17
	zip -q "n$((i + 1)).zip" "n$i.zip" || fail zip
	i=$((i + 1))
done
cp n20.zip "$M/nested.zip"
cp n10.zip "$M/nested-shallow.zip"	# within the limit: found
echo "nothing here" > clean.txt
zip -q -e -P secret "$M/mixed.zip" clean.txt && zip -q "$M/mixed.zip" eicar.com ||
	fail "zip mixed.zip"
{ cat eicar.com; head -c 2M /dev/zero; } > "$M/over-scan-size.bin"
{ cat eicar.com; head -c 5M /dev/zero; } > "$M/over-file-size.bin"
echo "clean text" > "$M/clean.txt"
cd / || fail "cd /"

# start_scanner LOG OPTION...: the scanner on $M, ready
start_scanner() {
	_log=$1
	shift
	"$SCANNER" -f -c /dev/null --store no --source fanotify --fanotify-mount "$M" \
		--database "$DB" --workers 2 --log-level debug \
		--max-file-size 4M --max-scan-size 1M "$@" >"$_log" 2>&1 &
	PID=$!
	wait_log 60 "$_log" 'notice: ready:'
}

stop_scanner() { e2e_stop "$1"; }

# stats LOG: the last statistics line, after a fresh SIGUSR1
stats() {
	_n=$(grep -c 'statistics:' "$1")
	kill -USR1 "$PID"
	wait_log 10 "$1" 'statistics:' $((_n + 1))
	grep 'statistics:' "$1" | tail -1
}

# stat_is LINE NAME VALUE
stat_is() {
	case " ${1#*statistics: } " in
	*" $2=$3 "*) ;;
	*) fail "expected $2=$3 in: $1" ;;
	esac
}

# denied_twice LOG FILE SIGNATURE: two opens, each denied and each scanned
denied_twice() {
	expect_denied "$M/$2"
	expect_denied "$M/$2"
	wait_log 10 "$1" "FOUND signature=$3 path=$M/$2 .*action=denied" 2
	log_has "$1" "$M/$2: clean (cached)" && fail "$2 was answered from the cache"
	pass "$2: $3, denied at both opens, not cached"
}

t0=$(now_ms)
LOG=$W/alert.log
start_scanner "$LOG"
expect_allowed "$M/clean.txt"
expect_allowed "$M/clean.txt"
wait_log 10 "$LOG" "$M/clean.txt: clean (cached)"
pass "a clean file is cached"

denied_twice "$LOG" encrypted.zip 'Heuristics\.Encrypted\.Zip'
denied_twice "$LOG" nested.zip 'Heuristics\.Limits\.Exceeded\.MaxRecursion'
denied_twice "$LOG" over-scan-size.bin 'Heuristics\.Limits\.Exceeded\.MaxScanSize'
denied_twice "$LOG" over-file-size.bin 'Heuristics\.Limits\.Exceeded\.MaxFileSize'
expect_denied "$M/nested-shallow.zip"
wait_log 10 "$LOG" "FOUND signature=Dazukofs\.Test\.EICAR.* path=$M/nested-shallow.zip "
expect_denied "$M/mixed.zip"
wait_log 10 "$LOG" "FOUND signature=Dazukofs\.Test\.EICAR.* path=$M/mixed.zip "
pass "a signature wins over the heuristics in the same file"

st=$(stats "$LOG")
stat_is "$st" exceeds_max 6
stat_is "$st" encrypted 2
stat_is "$st" infected 2
stat_is "$st" denied 10
stat_is "$st" cache_hits 1
pass "counted: ${st#*statistics: }"
stop_scanner "$LOG"

LOG=$W/noalert.log
start_scanner "$LOG" --alert-exceeds-max no --alert-encrypted no
for f in encrypted.zip nested.zip over-scan-size.bin over-file-size.bin; do
	expect_allowed "$M/$f"
	expect_allowed "$M/$f"
	wait_log 10 "$LOG" "notice: $M/$f: not fully scanned (Heuristics\.[A-Za-z.]*); allowed by alert_" 2
done
log_has "$LOG" 'clean (cached)' && fail "a file not fully scanned was cached"
expect_denied "$M/mixed.zip"
st=$(stats "$LOG")
stat_is "$st" exceeds_max 6
stat_is "$st" encrypted 2
stat_is "$st" denied 1
stat_is "$st" cache_hits 0
pass "alerts off: allowed, logged and counted at every open: ${st#*statistics: }"
stop_scanner "$LOG"
echo "scanner-limits: all passed in $(( $(now_ms) - t0 )) ms"
