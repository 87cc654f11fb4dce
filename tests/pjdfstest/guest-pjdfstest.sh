#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest script (root, in the VM): pjdfstest, the POSIX conformance suite
# (upstream/, README.md), through a dazukofs mount over a fresh ext4, a
# filesystem the suite passes on.  Every test must pass through the mount,
# with the results for ext4 (PJDFSTEST_FS): the suite's tests that depend
# on the filesystem type take the lower's branch.
#
# Bounded for time (README.md): under TCG each test costs about 0.2 s of
# fork and exec.  The files that try every permutation of owners, modes
# and sticky bits (rename/09.t, rename/10.t, chown/00.t, chown/07.t,
# chmod/11.t, unlink/11.t: 6,243 of the 8,798 tests the suite runs on
# Linux) are left out, and each kernel series runs half of the rest: 6.12
# the namespace (open, rename, link, unlink, symlink), 6.1 the others
# (attributes, mkdir, rmdir, mknod, mkfifo, truncate, times).
# The lower is made with 4 KiB blocks: ext4 refuses a symlink target longer
# than a block, and pjdfstest makes one of PATH_MAX - 1 bytes.
# Optional: PJDFSTEST_FILES (test files or directories relative to the
# suite's tests/, instead of the kernel's half), PJDFSTEST_WHERE=lower (run
# on the lower itself, the control), PJDFSTEST_LIMIT (seconds, default
# 1500: prove is stopped and the test fails after that).
set -u
DZ_TAG=guest-pjdfstest
. "${DAZUKOFS_SRC:?}/tests/vm/guest/lib.sh"
SUITE=${DAZUKOFS_BUILD:?}/tests/pjdfstest
OUT=${DAZUKOFS_OUT:-/tmp}
W=/tmp/dz-pjdfstest
LIMIT=${PJDFSTEST_LIMIT:-1500}

[ -x "$SUITE/pjdfstest" ] && [ -r "$SUITE/tests/conf" ] ||
	{ dz_err "FAIL: $SUITE/pjdfstest or its tests missing (build first)"; exit 1; }
command -v prove >/dev/null || { dz_err "FAIL: prove (perl) missing"; exit 1; }
command -v busybox >/dev/null || { dz_err "FAIL: busybox missing"; exit 1; }
modprobe -a loop ext4 || { dz_err "FAIL: modprobe loop ext4"; exit 1; }
dz_load || exit 1

mkdir -p "$W/lower" "$W/mount"
truncate -s 256M "$W/ext4.img" && mkfs.ext4 -q -F -b 4096 "$W/ext4.img" &&
	mount -o loop "$W/ext4.img" "$W/lower" ||
	{ dz_err "FAIL: set up the ext4 lower"; exit 1; }
mount -t dazukofs "$W/lower" "$W/mount" ||
	{ dz_err "FAIL: mount dazukofs over ext4"; exit 1; }

if [ -n "${PJDFSTEST_FILES:-}" ]; then
	files=$PJDFSTEST_FILES
else
	case $(uname -r) in
	6.1.*) dirs='chflags chmod chown ftruncate granular mkdir mkfifo mknod
		posix_fallocate rmdir truncate utimensat' ;;
	*) dirs='link open rename symlink unlink' ;;
	esac
	files=$(cd "$SUITE/tests" && find $dirs -name '*.t' | sort |
		grep -vxE 'rename/(09|10)\.t|chown/0[07]\.t|chmod/11\.t|unlink/11\.t')
fi
where=${PJDFSTEST_WHERE:-mount}
set --
for f in $files; do set -- "$@" "$SUITE/tests/$f"; done
echo "guest-pjdfstest: $# test files through $where ($W/$where), ext4 results, at most $LIMIT s"

# Each check of the suite runs pjdfstest, tail and grep (misc.sh's
# expect), each file dirname, each name dd, openssl and awk.  Under TCG an
# exec of a dynamic program costs about 20 ms, most of it the loader's:
# pjdfstest is linked static, and the helpers are busybox's static applets
# (the same POSIX ERE for grep -E), first in PATH.
BB=$W/busybox-bin
mkdir -p "$BB"
for a in awk cut dd dirname grep id sed tail tr wc; do
	ln -sf "$(command -v busybox)" "$BB/$a" ||
		{ dz_err "FAIL: busybox applet $a"; exit 1; }
done

start=$(date +%s)
# -f: each failed test's line (what it tried, what it got) in the log
(cd "$W/$where" && PATH=$BB:$PATH PJDFSTEST_FS=EXT4 \
	timeout "$LIMIT" prove -r -f "$@") >"$OUT/pjdfstest.log" 2>&1
rc=$?
took=$(($(date +%s) - start))
# the summary, and every failed test with what it tried
grep -E 'not ok|^Failed|^Result|^Files=|Wstat|Parse errors' "$OUT/pjdfstest.log" | head -n 60
if [ $rc -eq 124 ]; then
	dz_err "FAIL: pjdfstest not done after $LIMIT s (log: $OUT/pjdfstest.log)"
elif [ $rc -ne 0 ] || ! grep -qx 'Result: PASS' "$OUT/pjdfstest.log"; then
	dz_err "FAIL: pjdfstest through $where: prove exited $rc (log: $OUT/pjdfstest.log)"
	rc=1
else
	echo "guest-pjdfstest: PASS: $# files in $took s"
fi

dz_unload "$W/mount" "$W/lower" || rc=1
[ $rc -eq 0 ]
