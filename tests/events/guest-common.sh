# SPDX-License-Identifier: GPL-2.0
# Sourced by the events guest scripts: load the module, mount configfs and
# a dazukofs over a tmpfs, and the checks after the test
# (tests/vm/guest/lib.sh does the work).
# Sets BIN, LOWER, MNT, OUT; defines ev_setup, ev_teardown (returns 1 on a
# leftover group, device, mount or module).

. "${DAZUKOFS_SRC:?}/tests/vm/guest/lib.sh"
BIN=${DAZUKOFS_EVENTS_BIN:-${DAZUKOFS_BUILD:?}/tests/events}
LOWER=/mnt/ev-lower
MNT=/mnt/ev
OUT=${DAZUKOFS_OUT:-/tmp/ev-out}
mkdir -p "$OUT"

ev_setup() {
	dz_load && dz_mount_tmpfs "$LOWER" "$MNT"
}

ev_teardown() {
	trc=0
	dz_check_idle || trc=1
	echo "counters at the end: $(dz_counters)"
	dz_unload "$MNT" "$LOWER" || trc=1
	return $trc
}
