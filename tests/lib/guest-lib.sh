#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Guest script (root, in the VM): libdazukofs against the real module.
# Loads dazukofs, mounts configfs and a dazukofs over a tmpfs, runs lib-vm,
# then checks nothing is left and unloads.
set -u
BIN=${DAZUKOFS_BUILD:?}/tests/lib
L=/mnt/lib-lower
M=/mnt/lib
rc=0
DZ_TAG=guest-lib
. "${DAZUKOFS_SRC:?}/tests/vm/guest/lib.sh"
echo "guest-lib: kernel $(uname -r)"
[ -x "$BIN/lib-vm" ] || { echo "guest-lib: $BIN/lib-vm missing" >&2; exit 1; }
dz_load || exit 1
dz_mount_tmpfs "$L" "$M" size=16m || exit 1

"$BIN/lib-vm" "$L" "$M" ${DAZUKOFS_TEST_FILTER:-} || rc=1

dz_check_idle || rc=1
dz_unload "$M" "$L" || rc=1
[ $rc = 0 ] && echo "guest-lib: PASS" || echo "guest-lib: FAIL"
exit $rc
