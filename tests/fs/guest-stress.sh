#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest script (runs as root inside the VM): concurrent stress through the
# mount while the lower changes directly.
#
# Needs: $DAZUKOFS_KO, $DAZUKOFS_BUILD (fs-lower-churn in
# $DAZUKOFS_BUILD/tests/fs, or $DAZUKOFS_FS_BIN), stress-ng, optional
# $DAZUKOFS_OUT (logs go to $DAZUKOFS_OUT/stress-$(uname -r)/).
# Optional: DAZUKOFS_STRESS_SECS (total, default 30, split over the lower
# filesystems), DAZUKOFS_STRESS_LOWERFS (default "tmpfs ext4"),
# DAZUKOFS_STRESS_CHURN (lower-changing processes, default 2).
#
# Per lower fs: stress-ng filesystem stressors with --temp-path in the mount
# plus fs-lower-churn changing the lower, then a clean umount; at the end
# rmmod.  Exits non-zero on any failure.
set -u

BIN=${DAZUKOFS_FS_BIN:-${DAZUKOFS_BUILD:?}/tests/fs}
LOWERFS=${DAZUKOFS_STRESS_LOWERFS:-tmpfs ext4}
# 60 until 120 on three kernels found nothing (HACKING.md, "The time budget")
TOTAL=${DAZUKOFS_STRESS_SECS:-30}
CHURN=${DAZUKOFS_STRESS_CHURN:-2}
W=/tmp/dazukofs-stress
OUT=${DAZUKOFS_OUT:+$DAZUKOFS_OUT/stress-$(uname -r)}
OUT=${OUT:-$W/out}
mkdir -p "$W" "$OUT"

nfs=$(echo $LOWERFS | wc -w)
SECS=$((TOTAL / nfs))
[ "$SECS" -lt 5 ] && SECS=5

FAILED=""
PASSED=""
pass() { PASSED="$PASSED
  PASS $*"; echo "=== PASS: $*"; }
fail() { FAILED="$FAILED
  FAIL $*"; echo "=== FAIL: $*"; }

if ! command -v stress-ng >/dev/null; then
	echo "guest-stress: stress-ng not found" >&2
	exit 1
fi
if [ ! -x "$BIN/fs-lower-churn" ]; then
	echo "guest-stress: $BIN/fs-lower-churn missing (build first)" >&2
	exit 1
fi

# The filesystem stressors of Debian 12's stress-ng (0.15), one worker each;
# sizes kept small for a TCG guest.
STRESSORS="--dir 1 --dentry 1 --rename 1 --filename 1 --mmap 1 --hdd 1
 --link 1 --symlink 1 --fallocate 1 --lockf 1 --flock 1 --seek 1
 --chmod 1 --utime 1 --open 1 --readahead 1 --getdent 1
 --sendfile 1 --splice 1 --io 1 --fiemap 1 --sync-file 1"
SIZES="--hdd-bytes 8M --mmap-bytes 8M --fallocate-bytes 8M --seek-size 8M
 --readahead-bytes 8M --sync-file-bytes 8M
 --fiemap-bytes 8M --dentries 512 --dir-dirs 256"

DZ_TAG=guest-stress
. "${DAZUKOFS_SRC:?}/tests/vm/guest/lib.sh"
# On the debug kernel one bogo op of link and symlink (thousands of links
# made and removed) outlasts the run by minutes; the other kernels run them.
if dz_slow_kernel; then
	STRESSORS=$(echo $STRESSORS | sed 's/--link 1 --symlink 1 //')
fi
modprobe -a loop ext4 || { echo "guest-stress: modprobe loop ext4 failed" >&2; exit 1; }
dz_load || exit 1
echo "guest-stress: kernel $(uname -r), ${SECS}s per lower fs ($LOWERFS)"

LOOPDEV=""
for fs in $LOWERFS; do
	X=/mnt/dzs-$fs
	XL=/mnt/dzs-$fs-lower
	mkdir -p "$X" "$XL"
	case $fs in
	tmpfs) mount -t tmpfs -o size=768m dazukofs-lower "$X" || { fail "$fs: lower"; continue; } ;;
	ext4)
		truncate -s 1G "$W/ext4.img"
		mkfs.ext4 -q -F "$W/ext4.img" &&
		LOOPDEV=$(losetup -f --show "$W/ext4.img") &&
		mount -t ext4 "$LOOPDEV" "$X" || { fail "$fs: lower"; continue; } ;;
	*) fail "unknown lower fs $fs"; continue ;;
	esac
	mount --bind "$X" "$XL"
	if ! mount -t dazukofs "$X" "$X"; then
		fail "$fs: mount -t dazukofs"
		umount "$XL"; umount "$X"
		continue
	fi
	mkdir -p "$X/stress"
	chmod 1777 "$X/stress"

	# xattr only where the lower has user xattrs (tmpfs before 6.6 has
	# none): stress-ng reports a skipped stressor as a failure (exit 3).
	extra=""
	if setfattr -n user.dazukofs_probe -v 1 "$XL/stress" 2>/dev/null; then
		setfattr -x user.dazukofs_probe "$XL/stress"
		extra="--xattr 1"
	fi

	echo "--- $fs: stress-ng in $X/stress + $CHURN lower churners for ${SECS}s"
	"$BIN/fs-lower-churn" "$XL" "$X" "$SECS" "$CHURN" \
		>"$OUT/$fs-churn.log" 2>&1 &
	churn_pid=$!
	# shellcheck disable=SC2086
	stress-ng $STRESSORS $extra $SIZES --temp-path "$X/stress" \
		--timeout "${SECS}s" --metrics-brief --verify \
		>"$OUT/$fs-stress-ng.log" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		pass "$fs: stress-ng"
	else
		fail "$fs: stress-ng exit $rc (see $OUT/$fs-stress-ng.log)"
	fi
	tail -n 40 "$OUT/$fs-stress-ng.log"
	if wait "$churn_pid"; then
		pass "$fs: lower churn"
	else
		fail "$fs: lower churn (see $OUT/$fs-churn.log)"
	fi
	tail -n 5 "$OUT/$fs-churn.log"

	# the views still agree after all that
	a=$(cd "$XL" && find . | sort | md5sum)
	b=$(cd "$X" && find . | sort | md5sum)
	if [ "$a" = "$b" ]; then
		pass "$fs: same tree through both views"
	else
		fail "$fs: trees differ between lower and mount"
	fi
	rm -rf "$X/stress" "$X"/churn.*

	sync
	if umount "$X"; then
		pass "$fs: clean umount"
	else
		fail "$fs: umount (busy?)"
		fuser -vm "$X" 2>&1 | head -n 20
		umount -l "$X"
	fi
	umount "$XL"
	umount "$X"
	if [ -n "$LOOPDEV" ]; then
		losetup -d "$LOOPDEV"
		LOOPDEV=""
		rm -f "$W/ext4.img"
	fi
done

if awk '$3 == "dazukofs" { f = 1 } END { exit !f }' /proc/mounts; then
	fail "dazukofs mount left behind"
fi
if rmmod dazukofs; then pass "rmmod"; else fail "rmmod"; fi

echo
echo "===== guest-stress summary ($(uname -r)) ====="
echo "passed:$PASSED"
if [ -n "$FAILED" ]; then
	echo "FAILED:$FAILED"
	echo "logs: $OUT"
	exit 1
fi
echo "all passed; logs: $OUT"
exit 0
