#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest script (root, in the VM): an event whose file the worker cannot
# open never stalls the group.  Stacks dazukofs on refusefs (a FUSE
# pass-through of a tmpfs that refuses root's open of some names, with
# allow_other) and runs openerr-test: openers run as nobody, the worker
# as root.  Then dazuko-clamscan's answer after the group timeout (a scan
# stalled in a FUSE read) must be logged as late.  Then unmounts, unloads
# and checks that nothing is left.
# Optional: DAZUKOFS_TEST_FILTER (cmocka pattern).
set -u
DZ_TAG=guest-openerr
. "$(dirname "$0")/guest-common.sh"

SRC=/mnt/oe-src
FUSE=/mnt/oe-fuse
OEMNT=/mnt/oe

for b in openerr-test refusefs; do
	[ -x "$BIN/$b" ] || { echo "guest-openerr: $BIN/$b missing (build first)" >&2; exit 1; }
done
echo "guest-openerr: kernel $(uname -r)"
dz_load || exit 1
modprobe fuse || { echo "guest-openerr: modprobe fuse failed" >&2; exit 1; }
mkdir -p "$SRC" "$FUSE" "$OEMNT"
mount -t tmpfs -o size=16m,mode=0755 oe-src "$SRC" || exit 1

fuse_mounted() { grep -q " $FUSE fuse" /proc/mounts; }
"$BIN/refusefs" "$SRC" "$FUSE" -f -s -o allow_other >"$OUT/refusefs.log" 2>&1 &
fusepid=$!
dz_wait_for 60 "refusefs mounted at $FUSE" fuse_mounted || { cat "$OUT/refusefs.log"; exit 1; }
mount -t dazukofs "$FUSE" "$OEMNT" || { echo "guest-openerr: mount -t dazukofs $FUSE $OEMNT failed" >&2; exit 1; }

start=$(date +%s)
"$BIN/openerr-test" "$SRC" "$OEMNT" ${DAZUKOFS_TEST_FILTER:-} >"$OUT/openerr-test.log" 2>&1
rc=$?
cat "$OUT/openerr-test.log"
echo "guest-openerr: openerr-test took $(( $(date +%s) - start )) s"

# dazuko-clamscan's verdict that comes after the kernel's timeout is logged
# as what happened, not as its own verdict: the scan of stall.txt waits in
# a read of the FUSE lower (until .release appears) past timeout_ms, the
# kernel settles the open by timeout_action, and the late answer fails.
late_answer() {
	_scanner=$DAZUKOFS_BUILD/scanner/dazuko-clamscan _log=$OUT/late-scanner.log
	_gs=/sys/fs/dazukofs/groups/late
	[ -x "$_scanner" ] || { echo "guest-openerr: $_scanner missing" >&2; return 1; }
	echo "a file whose scan stalls" >"$SRC/stall.txt"
	"$_scanner" -f -c /dev/null --group late --workers 1 \
		--database "$DAZUKOFS_SRC/tests/scanner/db" --timeout-ms 1000 \
		--timeout-action allow --grace-ms 0 --cache-size 0 \
		--clamav-cache no >"$_log" 2>&1 &
	_pid=$!
	_ready() { grep -q 'notice: ready:' "$_log"; }
	dz_wait_for 120 "the scanner ready" _ready || { cat "$_log"; return 1; }
	cat "$OEMNT/stall.txt" >/dev/null 2>"$OUT/late-cat.err" &
	_cat=$!
	_timed_out() { [ "$(cat $_gs/timeouts)" = 1 ]; }
	dz_wait_for 30 "the kernel's timeout of the stalled scan" _timed_out ||
		{ cat "$_log"; return 1; }
	touch "$SRC/.release"
	_late() { grep -q 'verdict [a-z]* answered after the group timeout (timeout_ms=1000); the kernel had applied timeout_action=allow' "$_log"; }
	dz_wait_for 30 "the late answer's log line" _late || { cat "$_log"; return 1; }
	wait "$_cat" || { echo "guest-openerr: FAIL: the timed-out open failed" >&2; return 1; }
	kill -TERM "$_pid" && wait "$_pid" || { echo "guest-openerr: FAIL: scanner exit" >&2; cat "$_log"; return 1; }
	echo "guest-openerr: PASS: a verdict after the group timeout is logged as late"
}
late_answer || rc=1

dz_check_idle || rc=1
echo "counters at the end: $(dz_counters)"
dz_unload "$OEMNT" "$FUSE" || rc=1
wait "$fusepid" || { echo "guest-openerr: FAIL: refusefs exited with $?" >&2; cat "$OUT/refusefs.log"; rc=1; }
umount "$SRC" || rc=1
[ "$rc" = 0 ] && echo "guest-openerr: PASS" || echo "guest-openerr: FAIL"
exit "$rc"
