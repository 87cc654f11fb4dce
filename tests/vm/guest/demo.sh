#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The README's demo, run inside the VM by `make demo`: stack dazukofs over a
# directory (same path twice) and show that files created, read, mmapped and
# written through it land in the lower directory.
set -euo pipefail

run() { echo "+ $*"; "$@"; }
fail() { echo "demo: FAIL: $*" >&2; exit 1; }

# the module's dependencies (configfs) first: insmod does not resolve them
deps=$(modinfo -F depends "$DAZUKOFS_KO" | tr ',' ' ')
[[ -z $deps ]] || run modprobe -a $deps
run insmod "$DAZUKOFS_KO"

echo "## a lower directory (tmpfs) with a few files"
run mkdir -p /srv/demo /srv/lower-view
run mount -t tmpfs demo-lower /srv/demo
echo "hello from the lower" >/srv/demo/hello.txt
printf 'line %d\n' 1 2 3 >/srv/demo/lines.txt
run mkdir /srv/demo/dir
echo "nested" >/srv/demo/dir/nested.txt
echo "## keep a view of the lower: bind mount it before stacking over it"
run mount --bind /srv/demo /srv/lower-view

echo "## stack dazukofs over it, same path twice"
run mount -t dazukofs /srv/demo /srv/demo
echo "+ grep ' /srv/demo ' /proc/mounts"
grep ' /srv/demo ' /proc/mounts

echo "## read through dazukofs"
run ls -la /srv/demo
run cat /srv/demo/hello.txt /srv/demo/dir/nested.txt

echo "## create and write through dazukofs"
echo "+ echo 'written through dazukofs' > /srv/demo/new.txt"
echo 'written through dazukofs' >/srv/demo/new.txt
echo "+ echo 'line 4' >> /srv/demo/lines.txt"
echo 'line 4' >>/srv/demo/lines.txt

echo "## mmap through dazukofs: read, then write via a shared mapping"
cat >/tmp/mmap-demo.py <<'PY'
import mmap, sys
with open(sys.argv[1], "r+b") as f:
    m = mmap.mmap(f.fileno(), 0)
    print("mmap read:", m[:5])
    m[0:5] = b"HELLO"
    m.flush()
    m.close()
PY
run python3 /tmp/mmap-demo.py /srv/demo/hello.txt

echo "## what the lower sees"
run ls -la /srv/lower-view
run cat /srv/lower-view/new.txt /srv/lower-view/lines.txt /srv/lower-view/hello.txt
[[ $(cat /srv/lower-view/new.txt) == 'written through dazukofs' ]] || fail "new.txt not in the lower"
[[ $(tail -n1 /srv/lower-view/lines.txt) == 'line 4' ]] || fail "append not in the lower"
[[ $(cat /srv/lower-view/hello.txt) == 'HELLO from the lower' ]] || fail "mmap write not in the lower"

echo "## and the other way: a file made in the lower shows through dazukofs"
echo "from below" >/srv/lower-view/below.txt
run cat /srv/demo/below.txt

echo "## clean up"
run umount /srv/demo
run umount /srv/lower-view
run umount /srv/demo
run rmmod dazukofs
echo "demo: done"
