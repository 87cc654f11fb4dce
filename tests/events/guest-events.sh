#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest script (root, in the VM): the access event integration tests.
# Loads dazukofs, mounts configfs and a dazukofs over a tmpfs, runs
# events-test, record-test, cgroup-test and cache-test, then cache-test over lowers
# that remember nothing (the harness's 9p share, ext4 on a loop device,
# remember=off) and over a disk, then unmounts, unloads and checks that no
# group is left.
# Optional: DAZUKOFS_TEST_FILTER (cmocka pattern).
set -u
. "$(dirname "$0")/guest-common.sh"

[ -x "$BIN/events-test" ] || { echo "guest-events: $BIN/events-test missing (build first)" >&2; exit 1; }
echo "guest-events: kernel $(uname -r)"
ev_setup || { echo "guest-events: setup failed" >&2; exit 1; }

start=$(date +%s)
"$BIN/events-test" "$LOWER" "$MNT" ${DAZUKOFS_TEST_FILTER:-} >"$OUT/events-test.log" 2>&1
rc=$?
cat "$OUT/events-test.log"
echo "guest-events: events-test took $(( $(date +%s) - start )) s"

start=$(date +%s)
"$BIN/record-test" "$LOWER" "$MNT" ${DAZUKOFS_TEST_FILTER:-} >"$OUT/record-test.log" 2>&1 || rc=1
cat "$OUT/record-test.log"
echo "guest-events: record-test took $(( $(date +%s) - start )) s"

start=$(date +%s)
"$BIN/cgroup-test" "$LOWER" "$MNT" ${DAZUKOFS_TEST_FILTER:-} >"$OUT/cgroup-test.log" 2>&1 || rc=1
cat "$OUT/cgroup-test.log"
echo "guest-events: cgroup-test took $(( $(date +%s) - start )) s"

# A FUSE filesystem whose reads of "stall" files wait to be released:
# cache-test's direct reads that hold a page (dio_into_mapping).
FSRC=/mnt/ev-fuse-src FUSE=/mnt/ev-fuse
mkdir -p "$FSRC" "$FUSE"
fuse_mounted() { grep -q " $FUSE fuse" /proc/mounts; }
fusepid=
if modprobe fuse && mount -t tmpfs -o size=1m,mode=0755 ev-fuse-src "$FSRC"; then
	"$BIN/refusefs" "$FSRC" "$FUSE" -f -s -o allow_other >"$OUT/refusefs.log" 2>&1 &
	fusepid=$!
	dz_wait_for 60 "refusefs mounted at $FUSE" fuse_mounted || rc=1
else
	echo "guest-events: FAIL: no FUSE for refusefs" >&2
	rc=1
fi

start=$(date +%s)
CACHE_TEST_FUSE=$FUSE CACHE_TEST_FUSE_SRC=$FSRC \
	"$BIN/cache-test" "$LOWER" "$MNT" ${DAZUKOFS_TEST_FILTER:-} >"$OUT/cache-test.log" 2>&1 || rc=1
cat "$OUT/cache-test.log"
echo "guest-events: cache-test took $(( $(date +%s) - start )) s"
if [ -n "$fusepid" ]; then
	touch "$FSRC/.release"	# nothing left waiting, whatever the test did
	umount "$FUSE" || { echo "guest-events: FAIL: umount $FUSE" >&2; rc=1; }
	wait "$fusepid" || { echo "guest-events: FAIL: refusefs exited with $?" >&2; cat "$OUT/refusefs.log"; rc=1; }
fi
umount "$FSRC" 2>/dev/null

# A remote lower: the harness's output share (9p, no cache mode), whose
# server may change files behind the kernel's back.  Nothing is remembered.
if [ -z "${DAZUKOFS_TEST_FILTER:-}" ]; then
	RLOWER=$OUT/remote-lower RMNT=/tmp/ev-remote
	rm -rf "$RLOWER"
	mkdir -p "$RLOWER" "$RMNT"
	if mount -t dazukofs "$RLOWER" "$RMNT"; then
		"$BIN/cache-test" "$RLOWER" "$RMNT" --remembers-nothing >"$OUT/cache-test-remote.log" 2>&1 || rc=1
		cat "$OUT/cache-test-remote.log"
		umount "$RMNT" || { echo "guest-events: umount $RMNT failed" >&2; rc=1; }
	else
		echo "guest-events: mount dazukofs over the 9p share failed" >&2
		rc=1
	fi
	rm -rf "$RLOWER"
fi

# Lowers on block devices, and remember=.  W/lower is the ext4 on DEV;
# cache-test runs over a dazukofs on it with OPTS (none: remember=auto).
BW=/tmp/ev-bdev
lower_fail() { echo "guest-events: FAIL: $*" >&2; rc=1; }
on_bdev() { # NAME DEV OPTS CACHE-TEST-ARGS...
	_name=$1 _dev=$2 _opts=$3
	shift 3
	mount -t ext4 "$_dev" "$BW/lower" || { lower_fail "$_name: mount $_dev"; return; }
	if mount -t dazukofs ${_opts:+-o "$_opts"} "$BW/lower" "$BW/mnt"; then
		"$BIN/cache-test" "$BW/lower" "$BW/mnt" "$@" >"$OUT/cache-test-$_name.log" 2>&1 ||
			lower_fail "$_name: cache-test $*"
		cat "$OUT/cache-test-$_name.log"
		umount "$BW/mnt" || lower_fail "$_name: umount dazukofs"
	else
		lower_fail "$_name: mount -t dazukofs ${_opts:+-o $_opts}"
	fi
	umount "$BW/lower" || lower_fail "$_name: umount $_dev"
}
# DEV's sectors as a device-mapper linear device NAME.
dm_linear() { dmsetup create "$1" --table "0 $(blockdev --getsz "$2") linear $2 0"; }
dazukofs_disk() {
	for _s in /sys/block/*/serial; do
		[ "$(cat "$_s" 2>/dev/null)" = "$DAZUKOFS_DISK" ] || continue
		_d=${_s%/serial}
		echo "/dev/${_d##*/}"
		return 0
	done
	return 1
}

if [ -z "${DAZUKOFS_TEST_FILTER:-}" ]; then
	# No udev in the guest: libdevmapper makes the /dev/mapper nodes itself.
	export DM_DISABLE_UDEV=1
	modprobe -a loop ext4 dm-mod 2>/dev/null
	modprobe virtio_blk 2>/dev/null
	mkdir -p "$BW/lower" "$BW/mnt"
	# The image belongs to a user, as udisks sets one up for its owner.
	truncate -s 16M "$BW/image" && mkfs.ext4 -q -F "$BW/image" &&
		chown 65534:65534 "$BW/image" && chmod 600 "$BW/image" ||
		lower_fail "make the ext4 image"
	LOOPDEV=$(losetup -f --show "$BW/image") || lower_fail "losetup"
	if [ -n "${LOOPDEV:-}" ]; then
		dmesg -C
		on_bdev loop "$LOOPDEV" "" --image "$BW/image"
		dmesg | grep -q "dazukofs: $BW/lower is on ${LOOPDEV#/dev/}, which can change unseen" ||
			lower_fail "no log line for the loop device"
		on_bdev loop-remember-on "$LOOPDEV" remember=on remembered_allow_makes_no_event
		if dm_linear dzev-overloop "$LOOPDEV"; then
			on_bdev dm-over-loop /dev/mapper/dzev-overloop "" --remembers-nothing
			dmsetup remove dzev-overloop || lower_fail "dmsetup remove dzev-overloop"
		else
			lower_fail "dmsetup create over $LOOPDEV"
		fi
		losetup -d "$LOOPDEV" || lower_fail "losetup -d $LOOPDEV"
	fi
	# A disk (virtio): neither file-backed nor remote, remembered.
	if [ -z "${DAZUKOFS_DISK:-}" ]; then
		lower_fail "no test disk (run-vm --disk)"
	elif ! dz_wait_for 30 "the test disk" dazukofs_disk >/dev/null; then
		rc=1
	else
		DISK=$(dazukofs_disk)
		mkfs.ext4 -q -F "$DISK" || lower_fail "mkfs.ext4 $DISK"
		on_bdev disk "$DISK" "" remembered_allow_makes_no_event
		if dm_linear dzev-overdisk "$DISK"; then
			on_bdev dm-over-disk /dev/mapper/dzev-overdisk "" remembered_allow_makes_no_event
			dmsetup remove dzev-overdisk || lower_fail "dmsetup remove dzev-overdisk"
		else
			lower_fail "dmsetup create over $DISK"
		fi
	fi
	# remember=off, a remount to on and back, and bad options.
	mount -t tmpfs ev-off "$BW/lower" || lower_fail "mount tmpfs"
	if mount -t dazukofs -o remember=off "$BW/lower" "$BW/mnt"; then
		grep -q " $BW/mnt dazukofs .*remember=off" /proc/mounts ||
			lower_fail "/proc/mounts lacks remember=off: $(grep " $BW/mnt " /proc/mounts)"
		"$BIN/cache-test" "$BW/lower" "$BW/mnt" --remembers-nothing >"$OUT/cache-test-off.log" 2>&1 ||
			lower_fail "remember=off: cache-test"
		cat "$OUT/cache-test-off.log"
		mount -o remount,remember=on "$BW/mnt" || lower_fail "remount,remember=on"
		"$BIN/cache-test" "$BW/lower" "$BW/mnt" remembered_allow_makes_no_event >"$OUT/cache-test-on.log" 2>&1 ||
			lower_fail "remounted remember=on: cache-test"
		cat "$OUT/cache-test-on.log"
		mount -o remount,remember=maybe "$BW/mnt" 2>/dev/null &&
			lower_fail "remount,remember=maybe succeeded"
		grep -q " $BW/mnt dazukofs .*remember=on" /proc/mounts ||
			lower_fail "a bad remount changed the mount: $(grep " $BW/mnt " /proc/mounts)"
		umount "$BW/mnt" || lower_fail "umount $BW/mnt"
	else
		lower_fail "mount -o remember=off"
	fi
	for bad in remember=maybe remember remember= bogus; do
		mount -t dazukofs -o "$bad" "$BW/lower" "$BW/mnt" 2>/dev/null &&
			{ lower_fail "mount -o $bad succeeded"; umount "$BW/mnt"; }
	done
	umount "$BW/lower" || lower_fail "umount the tmpfs"
	rm -rf "$BW"
fi

ev_teardown || rc=1
[ "$rc" = 0 ] && echo "guest-events: PASS" || echo "guest-events: FAIL"
exit "$rc"
