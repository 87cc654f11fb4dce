#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest script (bench/README.md, "The round trip, counted"): where dz-g1's
# round trip goes against fanotify's.  In one boot, on a tmpfs of
# $NFILES files, ROUNDS times in turn: open+close for SECS seconds through
# a dazukofs mount with one group answered by dzworker (1 thread), then on
# the tmpfs itself with fanlistener's FAN_OPEN_PERM mark.  For each run it
# prints the events/s and, per event, the function-call IPIs (cross-CPU
# wake-ups), context switches and timer interrupts, and the CPUs that the
# opener and the worker's threads were on halfway (read from /proc without
# forking, which would disturb the run).  Numbers only: nothing is
# asserted but that every open was answered.
#
#   tests/vm/run-vm --kernel 6.12 --build BUILD --no-slub-debug \
#       --script bench/guest-roundtrip.sh --name roundtrip
#
# Output in the guest log (BUILD/vm-logs/roundtrip-6.12/guest.log).
set -u

BIN=${DAZUKOFS_BUILD:?}/bench
KO=${DAZUKOFS_KO:?}
ROUNDS=${ROUNDS:-8} SECS=${SECS:-3} NFILES=${NFILES:-2000}
W=/tmp/roundtrip
GDIR=/sys/kernel/config/dazukofs/roundtrip

fail() { echo "roundtrip: FAIL: $*" >&2; exit 1; }

modprobe -a configfs $(modinfo -F depends "$KO" | tr ',' ' ') || fail "modprobe"
insmod "$KO" || fail "insmod $KO"
grep -q ' /sys/kernel/config configfs ' /proc/mounts ||
	mount -t configfs none /sys/kernel/config || fail "mount configfs"
mkdir -p "$W/lower" "$W/mnt"
mount -t tmpfs roundtrip "$W/lower" || fail "mount tmpfs"
mkdir "$W/lower/data"
"$BIN/fsbench" prep "$W/lower/data" "$NFILES" 10 1 >/dev/null || fail "fsbench prep"
mount -t dazukofs "$W/lower/data" "$W/mnt" || fail "mount -t dazukofs"

# The CPU each task of process $1 was last on (field 39 of its stat).
cpus_of() {
	local t s out=
	for t in /proc/"$1"/task/*; do
		read -r s <"$t/stat" || continue
		s=${s##*) }
		# shellcheck disable=SC2086
		set -- $s
		out="$out${out:+,}${37}"
	done
	echo "$out"
}

# Sum of the per-CPU counts of interrupt $1 in /proc/interrupts.
irqs() {
	awk -v n="$1:" '$1 == n { s = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; print s }' /proc/interrupts
}

# run NAME DIR HELPER_PID: one warm-up second, then the counted run.
run() {
	local cal0 loc0 ctxt0 cal1 loc1 ctxt1 pid where ops
	(cd "$2" && exec "$BIN/fsbench" open . -t 1 -n "$NFILES" >/dev/null) ||
		fail "$1: warm-up"
	cal0=$(irqs CAL) loc0=$(irqs LOC) ctxt0=$(awk '/^ctxt/ { print $2 }' /proc/stat)
	(cd "$2" && exec "$BIN/fsbench" open . -t "$SECS" -n "$NFILES") >"$W/out" &
	pid=$!
	sleep "$(awk -v s="$SECS" 'BEGIN { print s / 2 }')"
	where="opener $(cpus_of "$pid") worker $(cpus_of "$3")"
	wait "$pid" || fail "$1: fsbench"
	cal1=$(irqs CAL) loc1=$(irqs LOC) ctxt1=$(awk '/^ctxt/ { print $2 }' /proc/stat)
	ops=$(sed -n 's/.*ops=\([0-9]*\).*/\1/p' "$W/out")
	[[ $ops -gt 0 ]] || fail "$1: no opens ($(cat "$W/out"))"
	awk -v name="$1" -v ops="$ops" -v secs="$SECS" -v where="$where" \
		-v cal=$((cal1 - cal0)) -v loc=$((loc1 - loc0)) -v ctxt=$((ctxt1 - ctxt0)) \
		'BEGIN { printf "roundtrip: %-8s %7.0f events/s  per event: IPIs %.2f, switches %.2f, ticks %.3f  (%s)\n",
			name, ops / secs, cal / ops, ctxt / ops, loc / ops, where }'
}

for ((round = 1; round <= ROUNDS; round++)); do
	mkdir "$GDIR" || fail "mkdir $GDIR"
	echo 1 >"$GDIR/track" || fail "track=1"
	"$BIN/dzworker" "$(cat "$GDIR/id")" 1 >"$W/dzworker.log" 2>&1 &
	helper=$!
	until grep -q "dzworker: ready" "$W/dzworker.log"; do
		kill -0 "$helper" 2>/dev/null || fail "dzworker: $(cat "$W/dzworker.log")"
		sleep 0.1
	done
	before=$(cat /sys/fs/dazukofs/groups/roundtrip/allowed)
	run dz-g1 "$W/mnt" "$helper"
	kill "$helper"
	wait "$helper" 2>/dev/null
	[[ $(cat /sys/fs/dazukofs/groups/roundtrip/allowed) -gt $before ]] ||
		fail "dz-g1: no event allowed"
	rmdir "$GDIR" || fail "rmdir $GDIR"

	"$BIN/fanlistener" "$W/lower" "$W/fan.count" >"$W/fan.log" 2>&1 &
	helper=$!
	until grep -q "fanlistener: ready" "$W/fan.log"; do
		kill -0 "$helper" 2>/dev/null || fail "fanlistener: $(cat "$W/fan.log")"
		sleep 0.1
	done
	run fanotify "$W/lower/data" "$helper"
	kill "$helper"
	wait "$helper" 2>/dev/null
done
umount "$W/mnt" "$W/lower"
rmmod dazukofs
echo "roundtrip: done"
