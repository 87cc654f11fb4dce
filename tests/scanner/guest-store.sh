#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest script (vm-store-*, root): the verdict store with source dazukofs,
# on a dazukofs over ext4 (with fs-verity where the kernel has it: 6.1 and
# 6.12; the debug kernel is built without).
#   - first run: every file scanned; the store's hashed bytes are those of
#     the files without fs-verity only: a verity file is keyed by its
#     verity digest, nothing read;
#   - the scanner restarted (the kernel's remembered verdicts flushed):
#     the clean files (the verity one too) and EICAR are answered from the
#     store, nothing scanned, EICAR denied with its FOUND line; the kernel
#     remembers the clean verdicts: a re-open makes no event;
#   - a write below the mount while a worker holds an open's event (the
#     digest or the scan under way): that answer is neither stored nor
#     remembered by the kernel (its change detection); once the file
#     settles it is scanned, stored and remembered.
# Every wait is on a log line or a counter, with a deadline.
set -u
SRC=${DAZUKOFS_SRC:?}
SCANNER=${DAZUKOFS_BUILD:?}/scanner/dazuko-clamscan
KO=${DAZUKOFS_KO:?}
OUT=${DAZUKOFS_OUT:-/tmp/store-out}
. "$SRC/tests/scanner/common.sh"

W=/tmp/guest-store
L=$W/lower
M=$W/mnt
DB=$W/db
STORE=$W/verdicts
G=store
GS=/sys/fs/dazukofs/groups/$G
PID=
mkdir -p "$OUT" "$L" "$M" "$DB"
chmod 0700 "$W"

cleanup() {
	[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	[ -d /sys/kernel/config/dazukofs/$G ] && rmdir /sys/kernel/config/dazukofs/$G
	umount "$M" 2>/dev/null
	umount "$L" 2>/dev/null
	rmmod dazukofs 2>/dev/null
}
trap 'rc=$?; cleanup; [ $rc = 0 ] || { echo "--- scanner log"; cat "$OUT"/scanner.*.log; }; exit $rc' EXIT

echo "guest-store: kernel $(uname -r)"
[ -x "$SCANNER" ] || fail "$SCANNER missing (build first)"
deps=$(modinfo -F depends "$KO" | tr ',' ' ')
modprobe -a configfs loop ext4 $deps || fail "modprobe configfs loop ext4 $deps"
insmod "$KO" || fail "insmod $KO"
grep -q ' /sys/kernel/config configfs ' /proc/mounts ||
	mount -t configfs none /sys/kernel/config || fail "mount configfs"

# ext4 with the verity feature where the kernel has fs-verity (a kernel
# without it refuses to mount such a filesystem read-write)
VERITY=no
[ -e /sys/fs/ext4/features/verity ] && VERITY=yes
truncate -s 128M "$W/ext4.img" || fail "truncate"
if [ $VERITY = yes ]; then
	# fs-verity on ext4 needs blocks of the page size; a small image gets 1K
	mkfs.ext4 -q -F -b 4096 -O verity "$W/ext4.img" || fail "mkfs.ext4 -O verity"
else
	mkfs.ext4 -q -F "$W/ext4.img" || fail "mkfs.ext4"
fi
mount -o loop "$W/ext4.img" "$L" || fail "mount $W/ext4.img"
# a loop device: dazukofs remembers nothing on one unless told (its file is ours)
mount -t dazukofs -o remember=on "$L" "$M" || fail "mount dazukofs"
cp "$SRC/tests/scanner/db/"* "$DB/"

# written below the mount (no events)
echo "clean text" >"$L/clean.txt"
make_eicar "$L/eicar.com"
yes "a clean file sealed with fs-verity" | head -c 64K >"$L/verity.txt"
# big enough that a worker holds its event while the test writes to it
yes "a big clean file" | head -c 32M >"$L/big.bin"
if [ $VERITY = yes ]; then
	fsverity enable "$L/verity.txt" || fail "fsverity enable"
	fsverity measure "$L/verity.txt" || fail "fsverity measure"
fi
HASHED=$(( $(stat -c %s "$L/clean.txt") + $(stat -c %s "$L/eicar.com") ))
[ $VERITY = yes ] || HASHED=$((HASHED + $(stat -c %s "$L/verity.txt")))
wait_for 10 "the files' ctime 1 s old" ctime_settled "$L/clean.txt" "$L/eicar.com" "$L/verity.txt" \
	"$L/big.bin"

N=0
start() {
	N=$((N + 1))
	LOG=$OUT/scanner.$N.log
	"$SCANNER" -f -c /dev/null --group "$G" --workers 2 --database "$DB" \
		--log-level debug --timeout-ms 0 --store-path "$STORE" --store-size 4M \
		>"$LOG" 2>&1 &
	PID=$!
	wait_for 120 "the scanner ready (run $N)" log_has "$LOG" 'notice: ready:'
}
stop() {
	kill -TERM "$PID"
	wait "$PID" || fail "the scanner exited with $? (run $N)"
	PID=
}
# the running scanner's statistics line, and one counter of it
stats() { scanner_stats "$LOG" "$PID"; }
counter() { stats_value "$1" "$(stats)"; }
expect_counter() {
	_v=$(counter "$1")
	[ "$_v" = "$2" ] || fail "$1=$_v, not $2 (run $N)"
}

start
expect_allowed "$M/clean.txt"
expect_allowed "$M/verity.txt"
expect_denied "$M/eicar.com"
expect_counter scanned 3
expect_counter store_hashed_bytes "$HASHED"
stop
pass "first run: 3 files scanned; $HASHED bytes hashed (fs-verity: $VERITY, its file not read)"

start
expect_allowed "$M/clean.txt"
expect_allowed "$M/verity.txt"
expect_denied "$M/eicar.com"
log_has "$LOG" 'clean.txt: clean (verdict store)' || fail "clean.txt not answered by the store"
if [ $VERITY = yes ]; then
	log_has "$LOG" 'verity.txt: clean (verdict store, fs-verity)' ||
		fail "verity.txt not answered by its verity digest"
fi
log_has "$LOG" "FOUND signature=Dazukofs.Test.EICAR.* path=$L/eicar.com" ||
	fail "no FOUND line for eicar.com from the store"
expect_counter store_hits 3
expect_counter scanned 0
expect_counter store_hashed_bytes "$HASHED"
# the clean answers were remembered by the kernel: no event now
ev=$(cat "$GS/events")
expect_allowed "$M/clean.txt"
expect_allowed "$M/verity.txt"
[ "$(cat "$GS/events")" = "$ev" ] || fail "a re-open of a file the store found clean made an event"
pass "restart: answered from the store (fs-verity: $VERITY), nothing scanned, clean verdicts remembered by the kernel"

# A write below the mount while a worker holds big.bin's open (digesting
# or scanning it): neither the store nor the kernel's change detection may
# keep that answer.
cat "$M/big.bin" >/dev/null &
OPENER=$!
wait_for 60 "a worker to hold big.bin's event" counter_ge "$GS/in_hand" 1
printf 'X' | dd of="$L/big.bin" bs=1 seek=4096 conv=notrunc status=none ||
	fail "write below the mount"
counter_ge "$GS/in_hand" 1 && kill -0 "$OPENER" 2>/dev/null &&
	! log_has "$LOG" 'big.bin: clean' ||
	fail "big.bin's event was decided before the write: the test proves nothing"
wait "$OPENER" || fail "big.bin denied"
hits=$(counter store_hits)
scanned=$(counter scanned)
wait_for 10 "big.bin's ctime 1 s old" ctime_settled "$L/big.bin"
ev=$(cat "$GS/events")
expect_allowed "$M/big.bin"
[ "$(cat "$GS/events")" = $((ev + 1)) ] ||
	fail "the kernel answered big.bin from the verdict given while it was written"
expect_counter store_hits "$hits"
expect_counter scanned $((scanned + 1))
# the control: the answer on the settled file is remembered (and stored)
ev=$(cat "$GS/events")
expect_allowed "$M/big.bin"
[ "$(cat "$GS/events")" = "$ev" ] || fail "big.bin's settled clean verdict was not remembered"
stop
printf 'store_path = %s\n' "$STORE" >"$W/store.conf"
out=$("$SCANNER" store stats -c "$W/store.conf") || fail "store stats: $out"
echo "$out" | grep -qx "entries: 4" ||
	fail "not 4 entries (3 + big.bin settled; nothing from the racing write): $out"
pass "a write below the mount during the scan: nothing stored, nothing remembered; rescanned once settled"
echo "guest-store: all passed"
