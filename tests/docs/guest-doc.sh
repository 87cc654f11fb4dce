#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the example session of Documentation/filesystems/dazukofs.rst in the
# VM, exactly as printed there, and check it did what the text says.
set -uo pipefail
doc=$DAZUKOFS_SRC/Documentation/filesystems/dazukofs.rst
script=/tmp/doc-example.sh

# The literal block after "A whole exchange from the shell": its indented lines.
awk '/^A whole exchange from the shell/ { on = 1; next }
     on && /^    / { sub(/^    /, ""); print; seen = 1; next }
     on && seen && !/^$/ { exit }' "$doc" > "$script"
if [ ! -s "$script" ]; then
	echo "guest-doc: no example found in $doc" >&2
	exit 1
fi
echo "--- the example:"
cat "$script"

# The example runs `modprobe dazukofs`: it must find the module the build
# made for this kernel.
DZ_TAG=guest-doc
. "$DAZUKOFS_SRC/tests/vm/guest/lib.sh"
dz_index_module || exit 1
mountpoint -q /sys/kernel/config || { modprobe configfs && mount -t configfs none /sys/kernel/config; }

echo "--- running it:"
out=$(timeout 120 bash "$script" 2>&1)
rc=$?
echo "$out"
fail=0
if [ $rc -ne 0 ]; then
	echo "FAIL: the example exited $rc" >&2
	fail=1
fi
if ! grep -qx "cat was denied" <<<"$out"; then
	echo "FAIL: the example's open was not denied" >&2
	fail=1
fi
if [ "$(cat /sys/fs/dazukofs/denied)" != 1 ]; then
	echo "FAIL: /sys/fs/dazukofs/denied is $(cat /sys/fs/dazukofs/denied), not 1" >&2
	fail=1
fi
if grep -q " /srv/example dazukofs " /proc/mounts || [ -e /sys/kernel/config/dazukofs/example ]; then
	echo "FAIL: the example left its mount or group behind" >&2
	fail=1
fi
# The example scanner of Documentation/userspace.md: deny files with a word.
echo "--- examples/deny-word:"
mkdir -p /srv/words && echo "nothing to see" > /srv/words/clean &&
	echo "this has EVILWORD in it" > /srv/words/bad
mount -t dazukofs /srv/words /srv/words
"$DAZUKOFS_BUILD/examples/deny-word" words EVILWORD 2 > /tmp/deny-word.log 2>&1 &
scanner=$!
for _ in $(seq 100); do grep -q ready /tmp/deny-word.log && break; sleep 0.1; done
cat /srv/words/clean > /dev/null || { echo "FAIL: clean file refused" >&2; fail=1; }
if cat /srv/words/bad > /dev/null 2>&1; then
	echo "FAIL: the file with the word was allowed" >&2
	fail=1
fi
wait $scanner || { echo "FAIL: deny-word exited $?" >&2; fail=1; }
cat /tmp/deny-word.log
grep -q "^deny /srv/words/bad" /tmp/deny-word.log || { echo "FAIL: no deny line" >&2; fail=1; }
[ -e /sys/kernel/config/dazukofs/words ] && { echo "FAIL: group left" >&2; fail=1; }
umount /srv/words

modprobe -r dazukofs || { echo "FAIL: modprobe -r dazukofs" >&2; fail=1; }
exit $fail
