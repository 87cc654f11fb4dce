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
L=/mnt/trk-lower
M=/mnt/trk
rc=0
DZ_TAG=guest-tracking
. "${DAZUKOFS_SRC:?}/tests/vm/guest/lib.sh"

echo "guest-tracking: kernel $(uname -r), $PROG"
[ -x "$BIN/$PROG" ] || { echo "guest-tracking: $BIN/$PROG missing" >&2; exit 1; }

dz_load || exit 1
dz_mount_tmpfs "$L" "$M" size=64m,mode=0755 || exit 1

if [ "$PROG" = tracking ]; then
	"$BIN/tracking" "$L" "$M" ${DAZUKOFS_TEST_FILTER:-} || rc=1
else
	"$BIN/$PROG" "$L" "$M" "${TRK_SOAK_SECONDS:-22}" || rc=1
fi

dz_check_idle || rc=1
echo "guest-tracking: global counters: $(dz_counters)"
dz_unload "$M" "$L" || rc=1
[ $rc = 0 ] && echo "guest-tracking: all passed" || echo "guest-tracking: FAILED"
exit $rc
