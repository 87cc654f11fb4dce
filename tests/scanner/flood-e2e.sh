#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A flood of opens against the scanner's own open-file limit, with
# source=fanotify on this host (root): 2000 threads open 2000 clean files
# at once while one worker scans them, and the scanner's limit is 512.
# Each event it has read holds an fd until it is answered, and an event
# whose fd the kernel cannot make (EMFILE) is denied by the kernel: every
# open must succeed all the same (the scanner reads no more events than
# its limit leaves room for; the rest wait in the kernel), and the scanner
# stays up and counts no error.  A limit too low for the workers is
# refused at start with a message that says so.
# Usage: flood-e2e.sh SCANNER DBDIR
set -u
SCANNER=$1
DB=$2
. "$(dirname "$0")/common.sh"

. "$(dirname "$0")/host-e2e.sh"
e2e_workdir flood size=64m
N=2000
PY=/usr/bin/python3
LOG=$W/scanner.log

# The files, made before the scanner watches.
$PY - "$M" "$N" <<'PY' || fail "making the files"
import sys
d, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    with open(f"{d}/f{i:04d}.txt", "w") as f:
        f.write(f"clean file {i}\n" * 1024)
PY

# Too low a limit for 2 workers: refused, saying why.
out=$(prlimit --nofile=300:300 "$SCANNER" -f -c /dev/null --store no --source fanotify \
	--fanotify-mount "$M" --database "$DB" --workers 2 2>&1) &&
	fail "the scanner started with an open-file limit of 300"
case $out in
*"open-file limit 300 is too low for 2 workers"*) ;;
*) fail "no clear message for a low open-file limit: $out" ;;
esac
pass "a limit too low for the workers is refused at start"

prlimit --nofile=512:512 "$SCANNER" -f -c /dev/null --store no --source fanotify \
	--fanotify-mount "$M" --database "$DB" --workers 1 --log-level info \
	>"$LOG" 2>&1 &
PID=$!
wait_log 60 "$LOG" 'notice: ready:'
log_has "$LOG" 'open files: limit 512, at most 176 events held at once' ||
	{ cat "$LOG"; fail "no line about the open-file limit"; }

# 2000 opens at once, one thread each; each reads a byte
$PY - "$M" "$N" <<'PY' >"$W/flood.out" 2>&1 || { cat "$W/flood.out"; fail "opens were refused"; }
import sys, threading
d, n = sys.argv[1], int(sys.argv[2])
threading.stack_size(256 * 1024)
failed = []
go = threading.Event()
def opener(i):
    go.wait()
    try:
        with open(f"{d}/f{i:04d}.txt", "rb") as f:
            f.read(1)
    except OSError as e:
        failed.append(f"f{i:04d}.txt: {e}")
threads = [threading.Thread(target=opener, args=(i,)) for i in range(n)]
for t in threads:
    t.start()
go.set()
for t in threads:
    t.join(300)
print(f"{n - len(failed)} of {n} opened")
for f in failed[:10]:
    print(f)
sys.exit(1 if failed or any(t.is_alive() for t in threads) else 0)
PY
pass "$(cat "$W/flood.out")"
kill -0 "$PID" || { cat "$LOG"; fail "the scanner did not survive the flood"; }
! log_has "$LOG" 'an event failed' || { grep 'an event failed' "$LOG" | head; fail "events failed"; }
e2e_stop "$LOG"
pass "the scanner stayed up, no event failed"
