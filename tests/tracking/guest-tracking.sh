#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest script (runs as root inside the VM): crash-tracked registration,
# the ignore device and verdict timeouts.  Loads the module, mounts
# dazukofs over a tmpfs, runs $DAZUKOFS_BUILD/tests/tracking/tracking
# (or, with TRK_PROG=tracking-soak, the soak), then checks that no group
# is left, unmounts and unloads.  Exits non-zero on any failure.
# Optional: DAZUKOFS_TEST_FILTER (cmocka pattern), TRK_SOAK_SECONDS.
set -u

BIN=${DAZUKOFS_BUILD:?}/tests/tracking
PROG=${TRK_PROG:-tracking}
KO=${DAZUKOFS_KO:?}
L=/mnt/trk-lower
M=/mnt/trk
rc=0

echo "guest-tracking: kernel $(uname -r), $PROG"
[ -x "$BIN/$PROG" ] || { echo "guest-tracking: $BIN/$PROG missing" >&2; exit 1; }

modprobe configfs 2>/dev/null
grep -q ' /sys/kernel/config configfs ' /proc/mounts ||
	mount -t configfs configfs /sys/kernel/config || exit 1
insmod "$KO" || { echo "guest-tracking: insmod failed" >&2; exit 1; }
mkdir -p "$L" "$M"
mount -t tmpfs -o size=64m,mode=0755 trk-lower "$L" || exit 1
mount -t dazukofs "$L" "$M" || { echo "guest-tracking: mount failed" >&2; exit 1; }

if [ "$PROG" = tracking ]; then
	"$BIN/tracking" "$L" "$M" ${DAZUKOFS_TEST_FILTER:-} || rc=1
else
	"$BIN/$PROG" "$L" "$M" "${TRK_SOAK_SECONDS:-45}" || rc=1
fi

left=$(ls /sys/kernel/config/dazukofs 2>/dev/null)
if [ -n "$left" ]; then
	echo "guest-tracking: FAIL: groups left: $left"
	rc=1
	for g in $left; do rmdir "/sys/kernel/config/dazukofs/$g"; done
fi
for c in waiting in_hand readers; do
	v=$(cat /sys/fs/dazukofs/$c)
	[ "$v" = 0 ] || { echo "guest-tracking: FAIL: global $c=$v"; rc=1; }
done
echo "guest-tracking: global counters:"
for c in events allowed denied cancelled timeouts; do
	echo "  $c=$(cat /sys/fs/dazukofs/$c)"
done
umount "$M" || { echo "guest-tracking: FAIL: umount $M"; rc=1; }
umount "$L"
rmmod dazukofs || { echo "guest-tracking: FAIL: rmmod"; rc=1; }
[ $rc = 0 ] && echo "guest-tracking: all passed" || echo "guest-tracking: FAILED"
exit $rc
