#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest script (root, in the VM): syncfs() on a dazukofs mount reaches the
# lower filesystem's data. The lower is ext4 on a loop device over an image
# file; periodic writeback is off for the test, so data written through the
# mount stays dirty in the lower's page cache until something syncs it, and
# reaches the image (read back through the image file) only then.
set -u
DZ_TAG=guest-sync
. "${DAZUKOFS_SRC:?}/tests/vm/guest/lib.sh"
W=/tmp/dz-sync
rc=0
fail() { dz_err "FAIL: $*"; rc=1; }

in_image() { grep -qa "$1" "$W/ext4.img"; }

modprobe -a loop ext4 || { dz_err "modprobe loop ext4 failed"; exit 1; }
dz_load || exit 1
wb=$(cat /proc/sys/vm/dirty_writeback_centisecs)
ex=$(cat /proc/sys/vm/dirty_expire_centisecs)
echo 0 >/proc/sys/vm/dirty_writeback_centisecs
echo 360000 >/proc/sys/vm/dirty_expire_centisecs

# One fresh filesystem per case: once synced, ext4 on a loop device wrote
# later small files out at once here, which would hide a broken syncfs.
n=0
for how in file dir root; do
	n=$((n + 1))
	mkdir -p "$W/lower" "$W/upper"
	rm -f "$W/ext4.img"
	truncate -s 64M "$W/ext4.img" && mkfs.ext4 -q -F "$W/ext4.img" || exit 1
	# noauto_da_alloc: else ext4 writes a file truncated and rewritten on close
	mount -o loop,commit=600,noauto_da_alloc "$W/ext4.img" "$W/lower" || exit 1
	mount -t dazukofs "$W/lower" "$W/upper" || exit 1
	mkdir "$W/upper/d" || fail "$how: mkdir through the mount"

	pattern="dazukofs-sync-$how-$$-$n-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
	printf '%s\n' "$pattern" >"$W/upper/data" || fail "$how: write through the mount"
	# The control: without a sync the data has not reached the image yet
	# (else this test could not tell a working syncfs from a broken one).
	if in_image "$pattern"; then
		fail "$how: data reached the image before any sync (writeback not held off?)"
	else
		case $how in
		file) sync -f "$W/upper/data" ;;
		dir) sync -f "$W/upper/d" ;;
		root) sync -f "$W/upper" ;;
		esac || fail "$how: sync -f failed"
		if in_image "$pattern"; then
			echo "guest-sync: PASS: syncfs via $how on dazukofs reached the lower's disk"
		else
			fail "$how: syncfs on the dazukofs mount left the data dirty in the lower"
		fi
	fi
	umount "$W/upper" || fail "umount dazukofs"
	umount "$W/lower" || fail "umount lower"
done

echo "$wb" >/proc/sys/vm/dirty_writeback_centisecs
echo "$ex" >/proc/sys/vm/dirty_expire_centisecs
rmmod dazukofs || fail "rmmod dazukofs"
exit $rc
