#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest script (root, in the VM): an event whose file the worker cannot
# open never stalls the group.  Stacks dazukofs on refusefs (a FUSE
# pass-through of a tmpfs that refuses root's open of some names, with
# allow_other) and runs openerr-test: openers run as nobody, the worker
# as root.  Then unmounts, unloads and checks that nothing is left.
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

dz_check_idle || rc=1
echo "counters at the end: $(dz_counters)"
dz_unload "$OEMNT" "$FUSE" || rc=1
wait "$fusepid" || { echo "guest-openerr: FAIL: refusefs exited with $?" >&2; cat "$OUT/refusefs.log"; rc=1; }
umount "$SRC" || rc=1
[ "$rc" = 0 ] && echo "guest-openerr: PASS" || echo "guest-openerr: FAIL"
exit "$rc"
