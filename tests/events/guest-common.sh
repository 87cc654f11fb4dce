# SPDX-License-Identifier: GPL-2.0
# Sourced by the events guest scripts: load the module, mount configfs and
# a dazukofs over a tmpfs, and the checks after the test.
# Sets BIN, LOWER, MNT, OUT; defines ev_setup, ev_teardown (returns 1 on a
# leftover group, mount or module).

BIN=${DAZUKOFS_EVENTS_BIN:-${DAZUKOFS_BUILD:?}/tests/events}
KO=${DAZUKOFS_KO:?}
LOWER=/mnt/ev-lower
MNT=/mnt/ev
OUT=${DAZUKOFS_OUT:-/tmp/ev-out}
mkdir -p "$OUT"

ev_setup() {
	deps=$(modinfo -F depends "$KO" | tr ',' ' ')
	modprobe -a configfs $deps || { echo "modprobe configfs $deps failed" >&2; return 1; }
	insmod "$KO" || { echo "insmod $KO failed" >&2; return 1; }
	if ! grep -q ' /sys/kernel/config configfs ' /proc/mounts; then
		mount -t configfs none /sys/kernel/config || return 1
	fi
	[ -d /sys/kernel/config/dazukofs ] || { echo "no /sys/kernel/config/dazukofs" >&2; return 1; }
	[ -d /sys/fs/dazukofs ] || { echo "no /sys/fs/dazukofs" >&2; return 1; }
	mkdir -p "$LOWER" "$MNT"
	mount -t tmpfs -o size=64m ev-lower "$LOWER" || return 1
	mount -t dazukofs "$LOWER" "$MNT" || { echo "mount -t dazukofs failed" >&2; return 1; }
}

ev_teardown() {
	trc=0
	left=$(ls /sys/kernel/config/dazukofs/ 2>/dev/null)
	if [ -n "$left" ]; then
		echo "FAIL: groups left behind: $left" >&2
		for g in $left; do rmdir "/sys/kernel/config/dazukofs/$g"; done
		trc=1
	fi
	# Group devices are /dev/dazukofs.N; /dev/dazukofs.ign stays with the module.
	if ls /dev/dazukofs.[0-9]* >/dev/null 2>&1; then
		echo "FAIL: devices left behind: $(ls /dev/dazukofs.[0-9]*)" >&2
		trc=1
	fi
	if [ -d /sys/fs/dazukofs/groups ] && [ -n "$(ls /sys/fs/dazukofs/groups)" ]; then
		echo "FAIL: sysfs groups left: $(ls /sys/fs/dazukofs/groups)" >&2
		trc=1
	fi
	for c in waiting in_hand readers; do
		v=$(cat /sys/fs/dazukofs/$c)
		[ "$v" = 0 ] || { echo "FAIL: /sys/fs/dazukofs/$c is $v at the end" >&2; trc=1; }
	done
	echo "counters at the end:"
	for c in events allowed denied cancelled waiting in_hand readers; do
		printf '  %s=%s' $c "$(cat /sys/fs/dazukofs/$c)"
	done
	echo
	umount "$MNT" || { echo "FAIL: umount $MNT" >&2; trc=1; }
	umount "$LOWER" || trc=1
	rmmod dazukofs || { echo "FAIL: rmmod dazukofs" >&2; trc=1; }
	if grep -q '^dazukofs ' /proc/modules; then
		echo "FAIL: dazukofs still loaded" >&2
		trc=1
	fi
	return $trc
}
