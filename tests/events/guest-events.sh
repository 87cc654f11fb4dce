#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest script (root, in the VM): the access event integration tests.
# Loads dazukofs, mounts configfs and a dazukofs over a tmpfs, runs
# events-test, record-test and cache-test, and cache-test --remote over a
# dazukofs on the harness's 9p share, then unmounts, unloads and checks
# that no group is left.
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
"$BIN/cache-test" "$LOWER" "$MNT" ${DAZUKOFS_TEST_FILTER:-} >"$OUT/cache-test.log" 2>&1 || rc=1
cat "$OUT/cache-test.log"
echo "guest-events: cache-test took $(( $(date +%s) - start )) s"

# A remote lower: the harness's output share (9p, no cache mode), whose
# server may change files behind the kernel's back.  Nothing is remembered.
if [ -z "${DAZUKOFS_TEST_FILTER:-}" ]; then
	RLOWER=$OUT/remote-lower RMNT=/tmp/ev-remote
	rm -rf "$RLOWER"
	mkdir -p "$RLOWER" "$RMNT"
	if mount -t dazukofs "$RLOWER" "$RMNT"; then
		"$BIN/cache-test" "$RLOWER" "$RMNT" --remote >"$OUT/cache-test-remote.log" 2>&1 || rc=1
		cat "$OUT/cache-test-remote.log"
		umount "$RMNT" || { echo "guest-events: umount $RMNT failed" >&2; rc=1; }
	else
		echo "guest-events: mount dazukofs over the 9p share failed" >&2
		rc=1
	fi
	rm -rf "$RLOWER"
fi

ev_teardown || rc=1
[ "$rc" = 0 ] && echo "guest-events: PASS" || echo "guest-events: FAIL"
exit "$rc"
