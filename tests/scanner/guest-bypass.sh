#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest script (vm-bypass-*, root, in the VM): every known way to get an
# infected file past dazuko-clamscan, tried on this kernel, each of which
# must fail (issue 15's list):
# - tests/scanner/bypass.sh with source dazukofs and with source fanotify:
#   another mount namespace (root's unshare -m, nobody's unshare -Urm),
#   the scanner's database and libclamav's temporary directory on the
#   scanned filesystem with one worker and an archive, a reload, and a
#   write into a dirty shared page after the file was scanned clean;
# - tests/scanner/limits-e2e.sh: an encrypted zip, zips nested past the
#   recursion limit, files past the size limits, each with EICAR inside,
#   are never let through as clean;
# - the scanning core's unit tests (scanner-test-core) on this kernel's
#   coarse timestamps: a same-size rewrite within one clock tick is never
#   served from the cache (the host's kernel may be multigrain).
set -u
SRC=${DAZUKOFS_SRC:?}
BUILD=${DAZUKOFS_BUILD:?}
SCANNER=$BUILD/scanner/dazuko-clamscan
DB=$SRC/tests/scanner/db
DZ_TAG=guest-bypass
. "$SRC/tests/vm/guest/lib.sh"
. "$SRC/tests/scanner/common.sh"

echo "guest-bypass: kernel $(uname -r)"
[ -x "$SCANNER" ] || fail "$SCANNER missing (build first)"
dz_load || fail "loading the module"

"$SRC/tests/scanner/bypass.sh" dazukofs "$SCANNER" "$DB" ||
	fail "a way past the scanner on dazukofs"
"$SRC/tests/scanner/bypass.sh" fanotify "$SCANNER" "$DB" ||
	fail "a way past the scanner with fanotify"
"$SRC/tests/scanner/limits-e2e.sh" "$SCANNER" "$DB" ||
	fail "a file past the scan limits"

CORE_TMP=/mnt/bypass-core
mkdir -p "$CORE_TMP"
mount -t tmpfs bypass-core "$CORE_TMP" || fail "mount tmpfs for scanner-test-core"
TMPDIR=$CORE_TMP \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	"$BUILD/tests/scanner/scanner-test-core" "$DB" ||
	fail "scanner-test-core on $(uname -r)"
umount "$CORE_TMP"
pass "scanner-test-core on $(uname -r), coarse timestamps"

dz_check_idle || fail "left behind"
rmmod dazukofs || fail "rmmod dazukofs"
echo "guest-bypass: all passed"
