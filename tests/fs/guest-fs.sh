#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest script (runs as root inside the VM): pass-through integration tests.
#
# Needs: $DAZUKOFS_KO (the module), $DAZUKOFS_BUILD (binaries in
# $DAZUKOFS_BUILD/tests/fs, or $DAZUKOFS_FS_BIN), optional $DAZUKOFS_OUT
# (logs go to $DAZUKOFS_OUT/fs-$(uname -r)/).
# Optional: DAZUKOFS_FS_LOWERFS (default "tmpfs ext4 xfs btrfs
# btrfs-snapshot vfat ext4-casefold"; xfs, btrfs and casefold skipped where
# the kernel has none; ext4-casefold: the mount's lower is a casefold
# directory; btrfs-snapshot: a snapshot of a subvolume, mounted with
# subvol=, whose inode numbers repeat the subvolume's; over vfat
# the tests that need Unix modes and symlinks give way to
# test_nonposix_agrees),
# DAZUKOFS_TEST_FILTER (cmocka pattern for fs-passthrough), DAZUKOFS_CACHE_MB.
#
# For each lower filesystem: the cmocka suite through "mount -t dazukofs X X"
# (lower view = a bind mount of X taken before) and through a distinct
# mountpoint; then an /etc/fstab mount, rmmod refused while mounted, and
# the bad mounts (errno, one "dazukofs:" kernel log line, nothing mounted).
# Exits non-zero if anything failed.
set -u

BIN=${DAZUKOFS_FS_BIN:-${DAZUKOFS_BUILD:?}/tests/fs}
KO=${DAZUKOFS_KO:?}
LOWERFS=${DAZUKOFS_FS_LOWERFS:-tmpfs ext4 xfs btrfs btrfs-snapshot vfat ext4-casefold}
W=/tmp/dazukofs-fs
OUT=${DAZUKOFS_OUT:+$DAZUKOFS_OUT/fs-$(uname -r)}
OUT=${OUT:-$W/out}
mkdir -p "$W" "$OUT"

PASSED=""
FAILED=""
pass() { PASSED="$PASSED
  PASS $*"; echo "=== PASS: $*"; }
fail() { FAILED="$FAILED
  FAIL $*"; echo "=== FAIL: $*"; }
check() { # check DESCRIPTION COMMAND...
	d=$1; shift
	if "$@"; then pass "$d"; else fail "$d"; fi
}

dz_mounted() { # is a dazukofs mounted at $1 (or anywhere if no arg)?
	if [ $# -eq 0 ]; then
		awk '$3 == "dazukofs" { f = 1 } END { exit !f }' /proc/mounts
	else
		awk -v m="$1" '$3 == "dazukofs" && $2 == m { f = 1 } END { exit !f }' /proc/mounts
	fi
}
dz_count() { awk '$3 == "dazukofs"' /proc/mounts | wc -l; }
klog_count() { dmesg -t 2>/dev/null | grep -c '^dazukofs:'; }

# Memory for the page cache test: at most 1/8 of RAM, at most 16 MiB (the
# test tells one cached copy from two at any size; 64 MiB took half a
# minute per lower on the debug kernel).
if [ -z "${DAZUKOFS_CACHE_MB:-}" ]; then
	mem_mb=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
	DAZUKOFS_CACHE_MB=$((mem_mb / 8))
	[ "$DAZUKOFS_CACHE_MB" -gt 16 ] && DAZUKOFS_CACHE_MB=16
	[ "$DAZUKOFS_CACHE_MB" -lt 8 ] && DAZUKOFS_CACHE_MB=8
fi
export DAZUKOFS_CACHE_MB
echo "guest-fs: kernel $(uname -r), binaries in $BIN, cache test ${DAZUKOFS_CACHE_MB} MiB"

for b in fs-passthrough dazukofs-mount; do
	if [ ! -x "$BIN/$b" ]; then
		echo "guest-fs: $BIN/$b missing (build first)" >&2
		exit 1
	fi
done

DZ_TAG=guest-fs
. "${DAZUKOFS_SRC:?}/tests/vm/guest/lib.sh"
modprobe -a loop ext4 || { echo "guest-fs: modprobe loop ext4 failed" >&2; exit 1; }
dz_load || exit 1
grep -qw dazukofs /proc/filesystems || fail "dazukofs in /proc/filesystems"

LOOPDEV=""
# setup_lower FS DIR: make DIR a fresh filesystem of type FS
setup_lower() {
	mkdir -p "$2"
	case $1 in
	tmpfs)
		mount -t tmpfs -o size=512m,mode=0755 dazukofs-lower "$2" ;;
	ext4)
		rm -f "$W/ext4.img"
		truncate -s 512M "$W/ext4.img" &&
		mkfs.ext4 -q -F -O ^has_journal "$W/ext4.img" >/dev/null 2>&1 ||
		mkfs.ext4 -q -F "$W/ext4.img" || return 1
		LOOPDEV=$(losetup -f --show "$W/ext4.img") || return 1
		mount -t ext4 -o user_xattr,acl "$LOOPDEV" "$2" ||
		mount -t ext4 "$LOOPDEV" "$2" ;;
	xfs|btrfs|btrfs-snapshot)
		fstype=${1%-snapshot}
		rm -f "$W/$fstype.img"
		truncate -s 512M "$W/$fstype.img" || return 1
		if [ "$fstype" = xfs ]; then
			mkfs.xfs -q -f -m reflink=1 "$W/$fstype.img"
		else
			mkfs.btrfs -q -f "$W/$fstype.img"
		fi || return 1
		LOOPDEV=$(losetup -f --show "$W/$fstype.img") || return 1
		[ "$1" = btrfs-snapshot ] || { mount -t "$1" "$LOOPDEV" "$2"; return; }
		# a snapshot of a subvolume that holds a file (removed from
		# the snapshot, for an empty lower): its root repeats the
		# subvolume's inode number, under its own st_dev
		mkdir -p "$2-fs" && mount -t btrfs "$LOOPDEV" "$2-fs" &&
		btrfs subvolume create "$2-fs/sv" >/dev/null &&
		echo kept >"$2-fs/sv/kept" &&
		btrfs subvolume snapshot "$2-fs/sv" "$2-fs/snap" >/dev/null &&
		rm "$2-fs/snap/kept" &&
		mount -t btrfs -o subvol=snap "$LOOPDEV" "$2" ;;
	vfat)
		rm -f "$W/vfat.img"
		truncate -s 512M "$W/vfat.img" && mkfs.vfat "$W/vfat.img" >/dev/null || return 1
		LOOPDEV=$(losetup -f --show "$W/vfat.img") || return 1
		mount -t vfat "$LOOPDEV" "$2" ;;
	ext4-casefold)
		# the root cannot be casefold (lost+found): a +F directory of it,
		# bind-mounted at DIR
		rm -f "$W/casefold.img"
		truncate -s 512M "$W/casefold.img" &&
		mkfs.ext4 -q -F -O casefold "$W/casefold.img" || return 1
		LOOPDEV=$(losetup -f --show "$W/casefold.img") || return 1
		mkdir -p "$2-fs" && mount -t ext4 "$LOOPDEV" "$2-fs" &&
		mkdir "$2-fs/ci" && chattr +F "$2-fs/ci" &&
		mount --bind "$2-fs/ci" "$2" ;;
	*)
		echo "unknown lower fs $1" >&2; return 1 ;;
	esac
}
teardown_lower() {
	umount "$1" || fail "umount lower $1"
	if mountpoint -q "$1-fs"; then
		umount "$1-fs" || fail "umount lower $1-fs"
	fi
	if [ -n "$LOOPDEV" ]; then
		losetup -d "$LOOPDEV"
		LOOPDEV=""
		rm -f "$W"/*.img
	fi
}

# run_suite NAME LOWERVIEW UPPER
run_suite() {
	log="$OUT/$1.log"
	echo "--- fs-passthrough $1: lower view $2, mount $3"
	if DAZUKOFS_LOWER=$2 DAZUKOFS_UPPER=$3 \
	   "$BIN/fs-passthrough" $2 $3 ${DAZUKOFS_TEST_FILTER:-} >"$log" 2>&1; then
		pass "fs-passthrough $1"
	else
		fail "fs-passthrough $1 (see $log)"
	fi
	grep -E '^\[ *(FAILED|SKIPPED|PASSED) *\]|^\[  ERROR|^ERROR|Cached grew|lower (has no|rejects)' "$log"
}

for fs in $LOWERFS; do
	X=/mnt/dz-$fs
	XL=/mnt/dz-$fs-lower
	Y=/mnt/dz-$fs-upper
	mkdir -p "$X" "$XL" "$Y"
	# the debug kernel is built without xfs and btrfs
	case $fs in
	xfs|btrfs|btrfs-snapshot|vfat)
		if ! modprobe -q "${fs%-snapshot}"; then
			echo "--- $fs: SKIP: this kernel has no $fs"
			continue
		fi ;;
	ext4-casefold)
		if [ ! -e /sys/fs/ext4/features/casefold ]; then
			echo "--- $fs: SKIP: this kernel's ext4 has no casefold"
			continue
		fi ;;
	esac
	if ! setup_lower "$fs" "$X"; then
		fail "$fs: set up lower"
		continue
	fi

	# 1. the same path twice: mount -t dazukofs X X, lower view via bind
	mount --bind "$X" "$XL"
	if mount -t dazukofs "$X" "$X"; then
		check "$fs: mount -t dazukofs $X $X listed" dz_mounted "$X"
		run_suite "$fs-samepath" "$XL" "$X"
		check "$fs: umount $X" umount "$X"
		check "$fs: nothing left mounted" eval '! dz_mounted'
	else
		fail "$fs: mount -t dazukofs $X $X"
	fi
	umount "$XL"

	# 2. a distinct mountpoint (on the slow debug kernel only over the
	# first lower: the suite's code paths are the same)
	if dz_slow_kernel && [ "$fs" != "${LOWERFS%% *}" ]; then
		echo "--- $fs-distinct: not on this debug kernel (ran on ${LOWERFS%% *})"
	elif mount -t dazukofs "$X" "$Y"; then
		check "$fs: mount -t dazukofs $X $Y listed" dz_mounted "$Y"
		run_suite "$fs-distinct" "$X" "$Y"
		check "$fs: umount $Y" umount "$Y"
	else
		fail "$fs: mount -t dazukofs $X $Y"
	fi
	teardown_lower "$X"
done

# 3. /etc/fstab and rmmod while mounted
X=/mnt/dz-fstab-lower
Y=/mnt/dz-fstab
mkdir -p "$X" "$Y"
mount -t tmpfs dazukofs-lower "$X"
echo hello >"$X/file"
cp /etc/fstab "$W/fstab.orig" 2>/dev/null || : >"$W/fstab.orig"
echo "$X $Y dazukofs defaults 0 0" >>/etc/fstab
if mount "$Y"; then
	check "fstab: mounted" dz_mounted "$Y"
	check "fstab: content through the mount" \
		sh -c "[ \"\$(cat $Y/file)\" = hello ]"
	if rmmod dazukofs 2>"$W/rmmod.err"; then
		fail "rmmod refused while mounted (it succeeded)"
		insmod "$KO"
	else
		echo "rmmod while mounted: $(cat "$W/rmmod.err")"
		check "rmmod refused while mounted (module still loaded)" \
			grep -q '^dazukofs ' /proc/modules
		check "rmmod error says busy" grep -qiE 'in use|busy' "$W/rmmod.err"
	fi
	check "fstab: umount" umount "$Y"
	check "rmmod after umount" rmmod dazukofs
	check "insmod again" insmod "$KO"
else
	fail "fstab: mount $Y"
fi
cp "$W/fstab.orig" /etc/fstab

# 4. bad mounts: exact errno, one "dazukofs:" log line, nothing mounted
: >"$W/notadir"
mkdir -p /mnt/dz-bad /mnt/dz-bad2
# bad_mount DESCRIPTION ERRNO [-o DATA] SOURCE TARGET
bad_mount() {
	desc=$1; want=$2; shift 2
	before_log=$(klog_count)
	before_mnt=$(dz_count)
	check "bad mount: $desc -> $want" "$BIN/dazukofs-mount" -e "$want" "$@"
	new=$(( $(klog_count) - before_log ))
	for tgt in "$@"; do :; done
	if [ "$new" -eq 1 ]; then
		pass "bad mount: $desc: one dazukofs: log line"
		dmesg -t | grep '^dazukofs:' | tail -n 1
	else
		fail "bad mount: $desc: $new dazukofs: log lines (want 1)"
		dmesg -t | tail -n 5
	fi
	if [ "$(dz_count)" -eq "$before_mnt" ] && ! dz_mounted "$tgt"; then
		pass "bad mount: $desc: nothing left mounted"
	else
		fail "bad mount: $desc: left a mount behind"
		umount "$tgt" 2>/dev/null
	fi
}
bad_mount "missing source" ENOENT /mnt/dz-does-not-exist /mnt/dz-bad
bad_mount "file as source" ENOTDIR "$W/notadir" /mnt/dz-bad
bad_mount "unknown option" EINVAL -o bogus "$X" /mnt/dz-bad
if mount -t dazukofs "$X" "$Y"; then
	mkdir -p "$Y/sub"
	bad_mount "dazukofs on dazukofs" EINVAL "$Y" /mnt/dz-bad2
	bad_mount "dazukofs on a dir inside dazukofs" EINVAL "$Y/sub" /mnt/dz-bad2
	check "umount after bad stacking" umount "$Y"
else
	fail "mount for the stacking test"
fi
umount "$X"

check "no dazukofs mount left" eval '! dz_mounted'
check "final rmmod" rmmod dazukofs

echo
echo "===== guest-fs summary ($(uname -r)) ====="
echo "passed:$PASSED"
if [ -n "$FAILED" ]; then
	echo "FAILED:$FAILED"
	echo "logs: $OUT"
	exit 1
fi
echo "all passed; logs: $OUT"
exit 0
