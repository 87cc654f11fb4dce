#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Guest script (root, in the VM): libdazukofs against the real module.
# Loads dazukofs, mounts configfs and a dazukofs over a tmpfs, runs lib-vm,
# then checks nothing is left and unloads.
set -u
BIN=${DAZUKOFS_BUILD:?}/tests/lib
KO=${DAZUKOFS_KO:?}
L=/mnt/lib-lower
M=/mnt/lib
rc=0
echo "guest-lib: kernel $(uname -r)"
[ -x "$BIN/lib-vm" ] || { echo "guest-lib: $BIN/lib-vm missing" >&2; exit 1; }
deps=$(modinfo -F depends "$KO" | tr ',' ' ')
modprobe -a configfs $deps
grep -q ' /sys/kernel/config configfs ' /proc/mounts ||
	mount -t configfs configfs /sys/kernel/config || exit 1
insmod "$KO" || { echo "guest-lib: insmod failed" >&2; exit 1; }
mkdir -p "$L" "$M"
mount -t tmpfs -o size=16m lib-lower "$L" || exit 1
mount -t dazukofs "$L" "$M" || { echo "guest-lib: mount failed" >&2; exit 1; }

"$BIN/lib-vm" "$L" "$M" ${DAZUKOFS_TEST_FILTER:-} || rc=1

left=$(ls /sys/kernel/config/dazukofs 2>/dev/null)
if [ -n "$left" ]; then
	echo "guest-lib: FAIL: groups left: $left"
	rc=1
	for g in $left; do rmdir "/sys/kernel/config/dazukofs/$g"; done
fi
for c in waiting in_hand readers; do
	v=$(cat /sys/fs/dazukofs/$c)
	[ "$v" = 0 ] || { echo "guest-lib: FAIL: global $c=$v"; rc=1; }
done
umount "$M" || { echo "guest-lib: FAIL: umount"; rc=1; }
umount "$L"
rmmod dazukofs || { echo "guest-lib: FAIL: rmmod"; rc=1; }
[ $rc = 0 ] && echo "guest-lib: PASS" || echo "guest-lib: FAIL"
exit $rc
