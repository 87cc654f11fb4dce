#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest script of bench/run (root, in the VM): runs every workload of
# fsbench on every configuration, in this one boot, and writes
#   $DAZUKOFS_OUT/bench-raw.csv   one row per run
#   $DAZUKOFS_OUT/bench-meta.env  kernel, guest CPUs and memory, sizes
# Parameters come from $DAZUKOFS_BUILD/bench/params/<out dir name>.env,
# written by bench/run (defaults below are the quick mode's).
#
# Configurations, for each lower filesystem (tmpfs, ext4 on a loop device);
# each exposes the same data set (LOWER/data) at a directory M:
#   lower      M = LOWER/data, no stacking (the baseline of the ratios)
#   dazukofs   mount -t dazukofs LOWER/data M, no group
#   overlay    single-layer read-write overlayfs: upperdir=LOWER/data,
#              workdir on the same filesystem, an empty lowerdir
#   bindfs     FUSE pass-through: bindfs LOWER/data M
#   dz-gN      dazukofs with one group (track=1) answered by dzworker with N
#              threads (allow-all); every open must show up in the group's
#              sysfs events and allowed counters
#   fanotify   M = LOWER/data, FAN_OPEN_PERM on LOWER's mount answered by
#              fanlistener (allow-all); every open must be counted by it
# Fails (non-zero) if a configuration cannot be set up, a worker or listener
# dies, an open goes unanswered or uncounted, or fsbench fails.  Never on
# the numbers.
# TODO(scanner): a configuration with the real scanner (being written
# elsewhere) answering the group belongs here, next to dz-gN.
set -u

BIN=${DAZUKOFS_BUILD:?}/bench
OUT=${DAZUKOFS_OUT:?}
KO=${DAZUKOFS_KO:?}
params=$DAZUKOFS_BUILD/bench/params/$(basename "$OUT").env

MODE=quick REPEATS=3 SECS=0.2 NFILES=500 TREE=1000 BIGMB=8 TARFILES=150
LOWERFS="tmpfs ext4"
CONFIGS="lower dazukofs overlay bindfs dz-g1 dz-g2 dz-g4 fanotify"
WORKLOADS="open stat create seqwrite seqread mmapread walk untar"
if [[ -f $params ]]; then
	. "$params"
else
	echo "bench: no $params, quick defaults"
fi

W=/tmp/bench
RAW=$OUT/bench-raw.csv
GROUP=bench
GDIR=/sys/kernel/config/dazukofs/$GROUP
GSYS=/sys/fs/dazukofs/groups/$GROUP
HELPER=     # pid of dzworker or fanlistener
M=          # where the current configuration shows the data set
COUNT=      # how to read the current configuration's event counter

fail() {
	echo "bench: FAIL: $*" >&2
	[[ -n $HELPER ]] && kill "$HELPER" 2>/dev/null
	exit 1
}
say() { echo "bench: $*"; }

for b in fsbench dzworker fanlistener; do
	[[ -x $BIN/$b ]] || fail "$BIN/$b missing (build first)"
done
command -v bindfs >/dev/null || fail "bindfs not installed (scripts/setup)"
rm -rf "$W"
mkdir -p "$W/empty"

deps=$(modinfo -F depends "$KO" | tr ',' ' ')
modprobe -a configfs loop ext4 overlay fuse $deps || fail "modprobe"
insmod "$KO" || fail "insmod $KO"
grep -q ' /sys/kernel/config configfs ' /proc/mounts ||
	mount -t configfs none /sys/kernel/config || fail "mount configfs"

mem_mb=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
{
	echo "kernel=$(uname -r)"
	echo "guest_cpus=$(nproc)"
	echo "guest_mem_mb=$mem_mb"
	echo "mode=$MODE"
	echo "repeats=$REPEATS"
	echo "secs=$SECS"
	echo "nfiles=$NFILES"
	echo "tree=$TREE"
	echo "bigmb=$BIGMB"
	echo "tarfiles=$TARFILES"
	echo "lowerfs=\"$LOWERFS\""
	echo "configs=\"$CONFIGS\""
	echo "workloads=\"$WORKLOADS\""
} >"$OUT/bench-meta.env"
echo "fs,config,workload,rep,value,unit,ops,opens,events,secs" >"$RAW"

say "kernel $(uname -r), $(nproc) CPUs, $mem_mb MiB, mode $MODE, $REPEATS repeats"
"$BIN/fsbench" gensrc "$W/gensrc" "$TARFILES" || fail "gensrc"
tar cf "$W/src.tar" -C "$W/gensrc" src || fail "tar cf"
rm -rf "$W/gensrc"
say "tarball: $TARFILES files, $(du -k "$W/src.tar" | cut -f1) KiB"

LOOPDEV=
setup_lower() { # FS DIR
	mkdir -p "$2"
	case $1 in
	tmpfs) mount -t tmpfs -o size=$((BIGMB * 2 + 256))m bench-lower "$2" ;;
	ext4)
		truncate -s $((BIGMB * 2 + 256))M "$W/ext4.img" &&
		mkfs.ext4 -q -F "$W/ext4.img" &&
		LOOPDEV=$(losetup -f --show "$W/ext4.img") &&
		mount -t ext4 "$LOOPDEV" "$2" ;;
	*) return 1 ;;
	esac
}
teardown_lower() { # DIR
	umount "$1" || fail "umount $1"
	if [[ -n $LOOPDEV ]]; then
		losetup -d "$LOOPDEV"
		LOOPDEV=
		rm -f "$W/ext4.img"
	fi
}

wait_ready() { # LOGFILE WORD
	local i
	for ((i = 0; i < 300; i++)); do
		grep -q "$2: ready" "$1" 2>/dev/null && return 0
		kill -0 "$HELPER" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

setup_config() { # CONFIG LOWER
	local cfg=$1 L=$2 id
	COUNT=
	case $cfg in
	lower) M=$L/data ;;
	dazukofs|dz-g*)
		M=/mnt/bench-dz
		mkdir -p "$M"
		mount -t dazukofs "$L/data" "$M" || fail "mount -t dazukofs"
		if [[ $cfg == dz-g* ]]; then
			mkdir "$GDIR" || fail "mkdir $GDIR"
			echo 1 >"$GDIR/track" || fail "track=1"
			id=$(cat "$GDIR/id")
			"$BIN/dzworker" "$id" "${cfg#dz-g}" >"$W/helper.log" 2>&1 &
			HELPER=$!
			wait_ready "$W/helper.log" dzworker || fail "dzworker did not start: $(cat "$W/helper.log")"
			[[ $(cat "$GSYS/active") == 1 ]] || fail "group not active"
			COUNT=dz
		fi ;;
	overlay)
		M=/mnt/bench-ovl
		mkdir -p "$M" "$L/ovlwork"
		mount -t overlay -o "lowerdir=$W/empty,upperdir=$L/data,workdir=$L/ovlwork" \
			bench-ovl "$M" || fail "mount overlay"
		;;
	bindfs)
		M=/mnt/bench-fuse
		mkdir -p "$M"
		bindfs "$L/data" "$M" || fail "bindfs"
		;;
	fanotify)
		M=$L/data
		"$BIN/fanlistener" "$L" "$W/fan.count" >"$W/helper.log" 2>&1 &
		HELPER=$!
		wait_ready "$W/helper.log" fanlistener || fail "fanlistener did not start: $(cat "$W/helper.log")"
		COUNT=fan ;;
	*) fail "unknown configuration $cfg" ;;
	esac
}

teardown_config() { # CONFIG LOWER
	local cfg=$1 L=$2
	if [[ -n $HELPER ]]; then
		kill -0 "$HELPER" 2>/dev/null || fail "$cfg: helper died: $(cat "$W/helper.log")"
		kill "$HELPER"
		wait "$HELPER" 2>/dev/null
		HELPER=
	fi
	case $cfg in
	dz-g*)
		rmdir "$GDIR" || fail "rmdir $GDIR"
		umount "$M" || fail "umount $M" ;;
	dazukofs|overlay|bindfs)
		umount "$M" || fail "umount $M" ;;
	esac
	[[ $cfg == overlay ]] && rm -rf "$L/ovlwork"
	return 0
}

run_config() { # FS CONFIG: every workload, $REPEATS times, one fsbench process
	local counter=none
	case $COUNT in
	dz) counter=dz:$GSYS ;;
	fan) counter=fan:$W/fan.count ;;
	esac
	"$BIN/fsbench" suite "$M" -w "$WORKLOADS" -r "$REPEATS" -c "$counter" \
		-o "$RAW" -l "$1,$2" ${HELPER:+-p "$HELPER"} -t "$SECS" -n "$NFILES" \
		-s "$BIGMB" -a "$W/src.tar" -f "$TARFILES" || fail "$1/$2: fsbench suite"
}

start=$(date +%s)
for fs in $LOWERFS; do
	L=/mnt/bench-$fs
	setup_lower "$fs" "$L" || fail "set up $fs"
	mkdir -p "$L/data"
	t=$(date +%s)
	"$BIN/fsbench" prep "$L/data" "$NFILES" "$TREE" "$BIGMB" || fail "prep $fs"
	sync
	say "$fs: data set ready in $(( $(date +%s) - t )) s"
	for cfg in $CONFIGS; do
		t=$(date +%s)
		setup_config "$cfg" "$L"
		run_config "$fs" "$cfg"
		teardown_config "$cfg" "$L"
		say "$fs/$cfg done in $(( $(date +%s) - t )) s"
	done
	teardown_lower "$L"
done
rmmod dazukofs || fail "rmmod dazukofs"
say "all done in $(( $(date +%s) - start )) s"
exit 0
