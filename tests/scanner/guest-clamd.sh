#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest script (root, in the VM): dazuko-clamscan with source dazukofs and
# backend clamd, against a real clamd (Debian's clamav-daemon, from the
# host root) running inside the guest on its UNIX socket, with the test
# signatures. The event's fd is passed to clamd (FILDES): a clean file
# opens through the mount, EICAR is denied with EPERM, with the same FOUND
# line (naming the clamd server) as with the in-process engine, and clamd
# logged the detection. The scanner stops with status 0 and removes its
# group; the module unloads. Every wait has a deadline.
set -u
SRC=${DAZUKOFS_SRC:?}
SCANNER=${DAZUKOFS_BUILD:?}/scanner/dazuko-clamscan
OUT=${DAZUKOFS_OUT:-/tmp/clamd-out}
. "$SRC/tests/scanner/common.sh"
DZ_TAG=guest-clamd
. "$SRC/tests/vm/guest/lib.sh"

W=/tmp/clamd-guest
L=$W/lower
M=$W/mnt
G=clamd
LOG=$OUT/scanner.log
CLAMD=$(command -v clamd || echo /usr/sbin/clamd)
PY=/usr/bin/python3
PID=
CLAMD_PIDS=
mkdir -p "$OUT" "$W/db"
. "$SRC/tests/scanner/clamd-lib.sh"

cleanup() {
	[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null
	for p in $CLAMD_PIDS; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -d "$DZ_GROUPS/$G" ] && rmdir "$DZ_GROUPS/$G"
	umount "$M" 2>/dev/null
	umount "$L" 2>/dev/null
	rmmod dazukofs 2>/dev/null
}
trap 'rc=$?; cleanup; [ $rc = 0 ] || { echo "--- scanner log"; cat "$LOG"; echo "--- clamd log"; cat "$W/local/clamd.log"; }; exit $rc' EXIT

echo "guest-clamd: kernel $(uname -r), $($CLAMD --version)"
[ -x "$CLAMD" ] || fail "needs clamd (Debian's clamav-daemon; scripts/setup installs it)"
[ -x "$SCANNER" ] || fail "$SCANNER missing (build first)"
cp "$SRC/tests/scanner/db/"* "$W/db/"
dz_load || fail "cannot load the module"
dz_mount_tmpfs "$L" "$M" || fail "cannot mount dazukofs over a tmpfs"
echo "clean text" >"$L/clean.txt"
make_eicar "$L/eicar.com"

start_clamd local -
pass "clamd answers on $W/local/sock"
"$SCANNER" -f -c /dev/null --group "$G" --workers 2 --timeout-ms 0 \
	--backend clamd --local-socket "$W/local/sock" --log-level debug \
	>"$LOG" 2>&1 &
PID=$!
wait_log 60 "$LOG" 'notice: ready: source dazukofs group clamd, 2 workers, backend clamd'

expect_allowed "$M/clean.txt"
expect_denied "$M/eicar.com"
wait_log 10 "$LOG" "FOUND signature=Dazukofs\.Test\.EICAR[^ ]* path=$L/eicar.com .*action=denied server=$W/local/sock\$"
pass "FOUND line names the clamd server"
# clamd read the fd it was passed: it logs the detection (of an fd, as
# clamd names passed files by their /proc path or fd)
wait_log 10 "$W/local/clamd.log" 'Dazukofs.Test.EICAR.* FOUND'
pass "clamd logged the detection"

kill -TERM "$PID"
wait "$PID"
rc=$?
PID=
[ "$rc" = 0 ] || fail "scanner exited with $rc after SIGTERM"
[ -d "$DZ_GROUPS/$G" ] && fail "group $G left behind"
pass "scanner stopped, group removed"
