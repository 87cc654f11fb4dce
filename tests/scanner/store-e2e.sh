#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The verdict store end to end, with source=fanotify on this host (root),
# the scanner built with ASan/UBSan:
#   - a restart with the same signatures: a clean file opens and EICAR is
#     denied from the store, unscanned (store_hits moves, scanned stays 0);
#   - a file whose content changed after it was stored is scanned again;
#   - a local .ndb added, or a symlinked database file changed: every old
#     entry misses;
#   - a damaged store: the scanner starts, says so, makes it anew and
#     scans;
#   - store = no: nothing is stored or read;
#   - dazuko-clamscan store stats and store clear (beside the running
#     scanner); stats reports a damaged store and leaves it alone.
# Usage: store-e2e.sh SCANNER DBDIR
set -u
SCANNER=$1
DB_SRC=$2
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/host-e2e.sh"

e2e_workdir store size=16m
STORE=$W/store
mkdir -p "$W/db" "$W/linked"
cp "$DB_SRC"/* "$W/db/"
echo "Dazukofs.Test.Linked:0:*:4c494e4b45442d4f4e45" >"$W/linked/linked.ndb"
ln -s ../linked/linked.ndb "$W/db/linked.ndb"

echo "clean text" >"$M/clean.txt"
echo "another clean text" >"$M/other.txt"
make_eicar "$M/eicar.com"

N=0
# start [ARGS...]: a scanner on $M with the store in $STORE; LOG is its log
start() {
	N=$((N + 1))
	LOG=$W/scanner.$N.log
	"$SCANNER" -f -c /dev/null --source fanotify --fanotify-mount "$M" \
		--database "$W/db" --workers 2 --log-level debug \
		--store-path "$STORE" --store-size 4M "$@" >"$LOG" 2>&1 &
	PID=$!
	wait_log 60 "$LOG" 'notice: ready:'
}
# the running scanner's statistics line, and one counter of it
stats() { scanner_stats "$LOG" "$PID"; }
counter() { stats_value "$1" "$(stats)"; }
expect_counter() {
	_v=$(counter "$1")
	[ "$_v" = "$2" ] || { cat "$LOG"; fail "$1=$_v, not $2 (run $N)"; }
}

start
grep -q "verdict store: $STORE, 0 entries" "$LOG" || { cat "$LOG"; fail "no new store in $STORE"; }
[ "$(stat -c %a "$STORE")" = 700 ] || fail "$STORE is not 0700"
[ "$(stat -c %a "$STORE/data.mdb")" = 600 ] || fail "$STORE/data.mdb is not 0600"
expect_allowed "$M/clean.txt"
expect_allowed "$M/other.txt"
expect_denied "$M/eicar.com"
expect_counter scanned 3
expect_counter store_hits 0
e2e_stop "$LOG"
pass "first run: 3 files scanned, the store made 0700/0600"

# the admin's view: store stats, from the config file's store_path
printf 'store_path = %s\nstore_size = 4M\n' "$STORE" >"$W/clamscan.conf"
out=$("$SCANNER" store stats -c "$W/clamscan.conf") || fail "store stats: $out"
echo "$out" | grep -qx "entries: 3" || fail "store stats: $out"
echo "$out" | grep -qx "store: $STORE" || fail "store stats: $out"
pass "store stats: 3 entries"

# a restart with the same signatures: answered from the store
start
grep -q "verdict store: $STORE, 3 entries" "$LOG" || { cat "$LOG"; fail "the store lost its entries"; }
expect_allowed "$M/clean.txt"
expect_denied "$M/eicar.com"
grep -q 'clean.txt: clean (verdict store)' "$LOG" || { cat "$LOG"; fail "clean.txt was not answered by the store"; }
grep -q "FOUND signature=Dazukofs.Test.EICAR.* path=$M/eicar.com" "$LOG" ||
	fail "no FOUND line for eicar.com from the store"
expect_counter store_hits 2
expect_counter scanned 0
pass "restart, same signatures: clean allowed and EICAR denied from the store, nothing scanned"

# a file changed after it was stored: its new content is scanned
echo "clean text, changed" >"$M/clean.txt"
expect_allowed "$M/clean.txt"
# (the writer's own open was an event too)
[ "$(counter scanned)" -ge 1 ] || fail "the changed clean.txt was not scanned"
expect_counter store_hits 2
e2e_stop "$LOG"
pass "a changed file is scanned again"

# new signatures: a local .ndb added; every old entry misses
echo "Dazukofs.Test.Local:0:*:4c4f43414c2d4f4e45" >"$W/db/local.ndb"
start
expect_allowed "$M/other.txt"
expect_denied "$M/eicar.com"
expect_counter store_hits 0
expect_counter scanned 2
e2e_stop "$LOG"
# and a symlinked database file's content changed
echo "Dazukofs.Test.Linked:0:*:4c494e4b45442d54574f" >"$W/linked/linked.ndb"
start
expect_allowed "$M/other.txt"
expect_counter store_hits 0
expect_counter scanned 1
e2e_stop "$LOG"
pass "a local .ndb added, a symlinked database file changed: every old entry misses"

# store clear while the scanner runs: the next open is scanned
start
expect_allowed "$M/other.txt"
expect_counter store_hits 1
out=$("$SCANNER" store clear -c "$W/clamscan.conf") || fail "store clear: $out"
echo "$out" | grep -q "entries removed" || fail "store clear: $out"
"$SCANNER" store stats -c "$W/clamscan.conf" | grep -qx "entries: 0" ||
	fail "entries left after store clear"
echo "a third clean text" >"$M/third.txt"
wait_for 10 "third.txt's ctime 1 s old" ctime_settled "$M/third.txt"
expect_allowed "$M/third.txt"
e2e_stop "$LOG"
"$SCANNER" store stats -c "$W/clamscan.conf" | grep -qx "entries: 1" ||
	fail "after store clear, the scanner stored nothing new"
pass "store clear beside the running scanner: emptied, new verdicts stored after"

# a damaged store: said, made anew, scanning goes on
printf 'garbage over the meta pages %.0s' $(seq 1 300) |
	dd of="$STORE/data.mdb" conv=notrunc status=none
cp "$STORE/data.mdb" "$W/damaged.mdb"
out=$("$SCANNER" store stats -c "$W/clamscan.conf" 2>&1) && fail "store stats of a damaged store: $out"
case $out in *"no LMDB store"*) ;; *) fail "store stats of a damaged store: $out" ;; esac
cmp -s "$STORE/data.mdb" "$W/damaged.mdb" || fail "store stats changed the damaged store"
start
grep -q "verdict store: .*made anew" "$LOG" || { cat "$LOG"; fail "no word of the damaged store"; }
expect_allowed "$M/other.txt"
expect_denied "$M/eicar.com"
expect_counter scanned 2
e2e_stop "$LOG"
truncate -s 100 "$STORE/data.mdb"
start
grep -q "verdict store: .*truncated.*made anew" "$LOG" || { cat "$LOG"; fail "no word of the truncated store"; }
expect_denied "$M/eicar.com"
e2e_stop "$LOG"
pass "a damaged or truncated store is made anew; the scanner scans meanwhile"

# store = no: not read, not written
start --store no
grep -q 'verdict store' "$LOG" && { cat "$LOG"; fail "store = no, but the log speaks of the store"; }
expect_denied "$M/eicar.com"
expect_counter scanned 1
stats | grep -q store_hits && fail "store = no, but its counters are shown"
e2e_stop "$LOG"
pass "store = no: no store"
