#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest script (root, in the VM): syncfs() on a dazukofs mount reaches the
# lower filesystem's data. The lower is ext4 on a loop device over an image
# file; periodic writeback is off for the test, so data written through the
# mount stays dirty in the lower's page cache until something syncs it, and
# reaches the image (read back through the image file) only then.  And a
# crash right after the sync loses nothing: a copy of the image taken then
# (what the disk holds, as if the power went) mounts, with the journal
# replayed, with the file and its contents; a copy taken before the sync
# does not (else the check could not fail).  Also for fsync and fdatasync
# of a file through the mount.
# Then the lower's write and freeze protection: splice, sendfile and
# copy_file_range into the mount under fsfreeze (fs-lockorder), the ioctl
# allow-list (fs-ioctl, and fs-ioctl32 for compat_ioctl), aio and io_uring
# (fs-aio), and reflinks over xfs and btrfs (fs-reflink).
set -u
DZ_TAG=guest-sync
. "${DAZUKOFS_SRC:?}/tests/vm/guest/lib.sh"
W=/tmp/dz-sync
rc=0
fail() { dz_err "FAIL: $*"; rc=1; }

in_image() { grep -qa "$1" "$W/ext4.img"; }

# after_crash FILE PATTERN: does the disk as it is now, mounted as after a
# crash (a copy of the image: the journal is replayed), hold FILE with the
# line PATTERN?  The copy is made while nothing writes: writeback is off.
after_crash() {
	mkdir -p "$W/crash"
	cp --sparse=always "$W/ext4.img" "$W/crash.img" || { fail "copy the image"; return 2; }
	mount -o loop "$W/crash.img" "$W/crash" || { fail "mount the copy of the image"; return 2; }
	grep -qx "$2" "$W/crash/$1" 2>/dev/null
	found=$?
	umount "$W/crash" || fail "umount the copy of the image"
	rm -f "$W/crash.img"
	return $found
}

modprobe -a loop ext4 || { dz_err "modprobe loop ext4 failed"; exit 1; }
dz_load || exit 1
wb=$(cat /proc/sys/vm/dirty_writeback_centisecs)
ex=$(cat /proc/sys/vm/dirty_expire_centisecs)
echo 0 >/proc/sys/vm/dirty_writeback_centisecs
echo 360000 >/proc/sys/vm/dirty_expire_centisecs

# One fresh filesystem per case: once synced, ext4 on a loop device wrote
# later small files out at once here, which would hide a broken syncfs.
n=0
for how in file dir root fsync fdatasync; do
	n=$((n + 1))
	mkdir -p "$W/lower" "$W/upper"
	rm -f "$W/ext4.img"
	# small: every case greps the image and copies it twice (a crash)
	truncate -s 16M "$W/ext4.img" && mkfs.ext4 -q -F "$W/ext4.img" || exit 1
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
	elif after_crash data "$pattern"; then
		fail "$how: a crash before any sync kept the file (writeback not held off?)"
	else
		case $how in
		file) sync -f "$W/upper/data" ;;
		dir) sync -f "$W/upper/d" ;;
		root) sync -f "$W/upper" ;;
		fsync) sync "$W/upper/data" ;;
		fdatasync) sync -d "$W/upper/data" ;;
		esac || fail "$how: sync failed"
		if in_image "$pattern"; then
			echo "guest-sync: PASS: $how on dazukofs reached the lower's disk"
		else
			fail "$how on the dazukofs mount left the data dirty in the lower"
		fi
		if after_crash data "$pattern"; then
			echo "guest-sync: PASS: after $how on dazukofs a crash keeps the file"
		else
			fail "$how on the dazukofs mount: a crash right after it loses the file"
		fi
	fi
	umount "$W/upper" || fail "umount dazukofs"
	umount "$W/lower" || fail "umount lower"
done

echo "$wb" >/proc/sys/vm/dirty_writeback_centisecs
echo "$ex" >/proc/sys/vm/dirty_expire_centisecs

BIN=${DAZUKOFS_BUILD:?}/tests/fs

# mount_lower FSTYPE: a fresh FSTYPE filesystem at $W/lower, dazukofs over
# it at $W/upper
mount_lower() {
	mkdir -p "$W/lower" "$W/upper"
	rm -f "$W/$1.img"
	truncate -s 320M "$W/$1.img" || return 1
	case $1 in
	# without metadata_csum, which turns FS_IOC_SETVERSION off (fs-ioctl ro)
	ext4) mkfs.ext4 -q -F -O ^metadata_csum "$W/$1.img" ;;
	xfs) mkfs.xfs -q -f -m reflink=1 "$W/$1.img" ;;
	vfat) mkfs.vfat "$W/$1.img" >/dev/null ;;
	exfat) mkfs.exfat "$W/$1.img" >/dev/null ;;
	ext4-casefold) mkfs.ext4 -q -F -O casefold "$W/$1.img" ;;
	btrfs) mkfs.btrfs -q -f "$W/$1.img" ;;
	esac || { fail "mkfs.$1"; return 1; }
	mount -o loop "$W/$1.img" "$W/lower" || { fail "mount $1"; return 1; }
	if [ "$1" = ext4-casefold ]; then
		mkdir "$W/lower/ci" && chattr +F "$W/lower/ci" || { fail "chattr +F"; return 1; }
	fi
	mount -t dazukofs "$W/lower" "$W/upper" || { fail "mount dazukofs over $1"; return 1; }
}
umount_lower() {
	umount "$W/upper" || fail "umount dazukofs over $1"
	umount "$W/lower" || fail "umount $1"
	rm -f "$W/$1.img"
}

# Lock order: the lower's freeze protection before the pipe lock, for
# splice, sendfile and copy_file_range into the mount, beside direct
# splices into the lower and fsfreeze of it.  A deadlock fails fs-lockorder;
# on the debug kernel lockdep reports the inversion (the harness fails on it).
if mount_lower ext4; then
	# open(O_CREAT) over a read-only bind mount of the lower gives the
	# bind mount's answers: the file it has opens (a name never looked up
	# through the mount, so the VFS asks ->atomic_open), a missing one is
	# EROFS.  Asked of the bind mount too, as the control.
	echo has >"$W/lower/ro-has" || fail "write $W/lower/ro-has"
	mkdir -p "$W/lower-ro" "$W/upper-ro"
	if mount --bind "$W/lower" "$W/lower-ro" &&
		mount -o remount,bind,ro "$W/lower-ro" &&
		mount -t dazukofs "$W/lower-ro" "$W/upper-ro"; then
		python3 - "$W/lower-ro" "$W/upper-ro" <<'EOF' || fail "open(O_CREAT) through the mount over a read-only lower"
import errno, os, sys
for d in sys.argv[1:]:
    os.close(os.open(d + "/ro-has", os.O_RDONLY | os.O_CREAT, 0o644))
    try:
        os.open(d + "/ro-missing", os.O_RDONLY | os.O_CREAT, 0o644)
        sys.exit(f"{d}/ro-missing: created on a read-only mount")
    except OSError as e:
        if e.errno != errno.EROFS:
            sys.exit(f"{d}/ro-missing: {e}, not EROFS")
EOF
	else
		fail "a dazukofs mount over a read-only bind mount of the lower"
	fi
	umount "$W/upper-ro" 2>/dev/null
	umount "$W/lower-ro" 2>/dev/null
	"$BIN/fs-lockorder" "$W/upper" "$W/lower" 8 ||
		fail "splice/sendfile/copy_file_range into the mount with fsfreeze of the lower"
	"$BIN/fs-create-race" "$W/upper" "$W/lower" 8 ||
		fail "open(O_CREAT) through the mount racing creates in the lower"
	# A file unlinked in the lower while the mount has it cached stays in
	# use until dazukofs lets the dentry go, and a read-only remount of
	# the lower is EBUSY meanwhile (Known limits).  Dropping the caches
	# lets it go, with whatever the tests above left: a reference leaked
	# anywhere would keep the remount failing.
	{ echo cached >"$W/lower/cached-unlinked" &&
		[ "$(cat "$W/upper/cached-unlinked")" = cached ] &&
		rm "$W/lower/cached-unlinked"; } || fail "a file read through the mount, unlinked in the lower"
	if mount -o remount,ro "$W/lower" 2>/dev/null; then
		echo "guest-sync: note: the lower remounted read-only before the caches were dropped"
		mount -o remount,rw "$W/lower" || fail "remount the lower rw"
	fi
	echo 2 >/proc/sys/vm/drop_caches
	if mount -o remount,ro "$W/lower"; then
		mount -o remount,rw "$W/lower" || fail "remount the lower rw"
	else
		fail "the lower cannot be remounted read-only after dropping the caches"
	fi
	echo "upper-$$" >"$W/upper/ioctl" || fail "write $W/upper/ioctl"
	"$BIN/fs-ioctl" "$W/upper/ioctl" "$W/lower/ioctl" || fail "ioctl forwarding"
	"$BIN/fs-ioctl32" "$W/upper/ioctl" "$W/lower/ioctl" ||
		fail "ioctl forwarding from a 32-bit program (compat_ioctl)"
	if mount -o remount,ro "$W/upper"; then
		"$BIN/fs-ioctl" "$W/upper/ioctl" "$W/lower/ioctl" ro ||
			fail "ioctl writers through a read-only mount"
		"$BIN/fs-ioctl32" "$W/upper/ioctl" "$W/lower/ioctl" ro ||
			fail "32-bit ioctl writers through a read-only mount"
		mount -o remount,rw "$W/upper" || fail "remount rw"
	else
		fail "remount the dazukofs mount read-only"
	fi
	umount_lower ext4
fi

# Asynchronous I/O stays asynchronous (aio, io_uring): ext4 on a
# device-mapper linear device over a loop device, which fs-aio suspends so
# that a submission that waits for the device shows.  No udev in the
# guest: libdevmapper makes the /dev/mapper nodes itself.
aio_test() {
	export DM_DISABLE_UDEV=1
	modprobe dm-mod 2>/dev/null
	mkdir -p "$W/lower" "$W/upper"
	# no background I/O of its own while fs-aio holds the device (and
	# small: lazy_*_init=0 writes every inode table and the journal now)
	truncate -s 16M "$W/aio.img" &&
		mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$W/aio.img" ||
		{ fail "aio: mkfs.ext4"; return; }
	loopdev=$(losetup -f --show "$W/aio.img") || { fail "aio: losetup"; return; }
	if dmsetup create dzaio --table "0 $(blockdev --getsz "$loopdev") linear $loopdev 0"; then
		if mount -o commit=600 /dev/mapper/dzaio "$W/lower"; then
			if mount -t dazukofs "$W/lower" "$W/upper"; then
				"$BIN/fs-aio" "$W/upper" "$W/lower" dzaio ||
					fail "aio and io_uring through the mount"
				# never left suspended, whatever fs-aio did
				dmsetup resume dzaio 2>/dev/null
				# every queued write gave back the lower's freeze
				# protection: else the freeze waits for ever
				if timeout 60 fsfreeze -f "$W/lower"; then
					fsfreeze -u "$W/lower"
				else
					fail "aio: fsfreeze of the lower after fs-aio (freeze protection leaked?)"
					fsfreeze -u "$W/lower" 2>/dev/null
				fi
				umount "$W/upper" || fail "aio: umount dazukofs"
			else
				fail "aio: mount dazukofs"
			fi
			umount "$W/lower" || fail "aio: umount ext4"
		else
			fail "aio: mount /dev/mapper/dzaio"
		fi
		dmsetup remove dzaio || fail "aio: dmsetup remove"
	else
		fail "aio: dmsetup create"
	fi
	losetup -d "$loopdev"
	rm -f "$W/aio.img"
}
aio_test

# overlayfs with a dazukofs mount as its lower layer: a read, and a copy-up
# (6.1's overlayfs opens the dazukofs file under the overlayfs path).
overlay_test() {
	modprobe overlay || { fail "modprobe overlay"; return; }
	O=$W/ovl
	mkdir -p "$O/low" "$O/dz" "$O/rw" "$O/merged"
	mount -t tmpfs ovl-low "$O/low" && mount -t tmpfs ovl-rw "$O/rw" ||
		{ fail "overlay: tmpfs"; return; }
	mkdir "$O/rw/up" "$O/rw/work"
	printf 'lower data\n' >"$O/low/f"
	if mount -t dazukofs "$O/low" "$O/dz" &&
		mount -t overlay -o "lowerdir=$O/dz,upperdir=$O/rw/up,workdir=$O/rw/work" \
			overlay "$O/merged"; then
		[ "$(cat "$O/merged/f")" = "lower data" ] ||
			fail "overlay over dazukofs: read"
		printf 'more\n' >>"$O/merged/f" || fail "overlay over dazukofs: copy-up"
		[ "$(cat "$O/merged/f")" = "$(printf 'lower data\nmore')" ] ||
			fail "overlay over dazukofs: copied-up contents"
		[ "$(cat "$O/low/f")" = "lower data" ] ||
			fail "overlay over dazukofs: the layer below changed"
		echo "guest-sync: overlayfs over dazukofs: read and copy-up done"
		umount "$O/merged" || fail "umount overlay"
	else
		fail "mount overlayfs over dazukofs"
	fi
	umount "$O/dz" 2>/dev/null
	umount "$O/low" "$O/rw"
}
overlay_test

# File identity over btrfs: subvolumes and snapshots repeat inode numbers
# under their own devices.  Through the mount, as on the lower: as many
# distinct (st_dev, st_ino) pairs, find sees no loop, du counts as much,
# and tar archives the same members, a hard link (within the subvolume) as
# a link and nothing else: tar takes files with the same pair for links.
pairs() { find "$1" -printf '%D %i\n' | sort -u | wc -l; }
tar_members() { tar -C "$1" -cf - . | tar -tvf -; }
btrfs_identity() {
	{ btrfs subvolume create "$W/lower/sv" &&
		echo one >"$W/lower/sv/f" && mkdir "$W/lower/sv/d" &&
		ln "$W/lower/sv/f" "$W/lower/sv/d/f-link" &&
		btrfs subvolume snapshot "$W/lower/sv" "$W/lower/snap"; } >/dev/null ||
		{ fail "btrfs subvolume and snapshot"; return; }
	tar_members "$W/lower" >"$W/tar.lower" 2>&1 || fail "btrfs: tar of the lower"
	tar_members "$W/upper" >"$W/tar.upper" 2>&1 || fail "btrfs: tar through the mount"
	[ "$(grep -c ' link to ' "$W/tar.lower")" -eq 2 ] ||
		fail "btrfs: the control: tar of the lower has the two hard links: $(cat "$W/tar.lower")"
	cmp -s "$W/tar.lower" "$W/tar.upper" ||
		fail "btrfs: tar through the mount differs from the lower's: $(diff "$W/tar.lower" "$W/tar.upper")"
	lower_pairs=$(pairs "$W/lower")
	upper_pairs=$(pairs "$W/upper")
	[ "$lower_pairs" -eq "$upper_pairs" ] ||
		fail "btrfs: $upper_pairs distinct (dev, ino) pairs through the mount, $lower_pairs on the lower"
	if ! find "$W/upper" >/dev/null 2>"$W/find.err" || [ -s "$W/find.err" ]; then
		fail "btrfs: find through the mount: $(cat "$W/find.err")"
	fi
	lower_du=$(du -s "$W/lower" | cut -f1)
	upper_du=$(du -s "$W/upper" | cut -f1)
	[ "$lower_du" = "$upper_du" ] ||
		fail "btrfs: du -s gives $upper_du through the mount, $lower_du on the lower"
	echo "guest-sync: btrfs identity: $upper_pairs pairs, du $upper_du (lower: $lower_pairs, $lower_du)"
}

# Reflinks: xfs and btrfs share extents through the mount as on the lower.
# The debug kernel has neither filesystem (its README): skipped there, said so.
for fs in xfs btrfs; do
	if ! modprobe "$fs" 2>/dev/null; then
		case $(uname -r) in
		*dazukodebug*) echo "guest-sync: SKIP: $fs reflinks: the debug kernel has no $fs"; continue ;;
		esac
		fail "modprobe $fs"
		continue
	fi
	mount_lower "$fs" || continue
	"$BIN/fs-reflink" "$W/upper" "$W/lower" || fail "reflinks through dazukofs over $fs"
	[ "$fs" = btrfs ] && btrfs_identity
	umount_lower "$fs"
done

# Case-insensitive lowers: vfat and exfat (removable media) and an ext4
# casefold directory, through the mount as on the lower.  The debug kernel
# has no exfat and no unicode tables (its README): skipped there, said so.
for fs in vfat exfat ext4-casefold; do
	mod=${fs%-casefold}
	if ! modprobe "$mod" 2>/dev/null ||
		{ [ "$fs" = ext4-casefold ] && [ ! -e /sys/fs/ext4/features/casefold ]; }; then
		case $(uname -r) in
		*dazukodebug*) echo "guest-sync: SKIP: $fs: the debug kernel lacks it"; continue ;;
		esac
		fail "$fs support in the kernel"
		continue
	fi
	mount_lower "$fs" || continue
	case $fs in
	ext4-casefold) "$BIN/fs-casefold" "$W/upper/ci" "$W/lower/ci" ;;
	*) "$BIN/fs-casefold" "$W/upper" "$W/lower" ;;
	esac || fail "case-insensitive lookups through dazukofs over $fs"
	# A mount whose root is a casefold directory (6.1's ext4 gives the
	# root dentry no case-insensitive operations of its own).
	if [ "$fs" = ext4-casefold ]; then
		mkdir -p "$W/lower/ci/root" "$W/upper2" &&
			mount -t dazukofs "$W/lower/ci/root" "$W/upper2" &&
			"$BIN/fs-casefold" "$W/upper2" "$W/lower/ci/root" ||
			fail "case-insensitive lookups through dazukofs over a casefold root"
		umount "$W/upper2" 2>/dev/null
	fi
	umount_lower "$fs"
done

rmmod dazukofs || fail "rmmod dazukofs"
exit $rc
