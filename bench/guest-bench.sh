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
#   dazukofs   mount -t dazukofs LOWER/data M (remember=on for ext4 on its
#              loop device), no group
#   overlay    single-layer read-write overlayfs: upperdir=LOWER/data,
#              workdir on the same filesystem, an empty lowerdir
#   bindfs     FUSE pass-through: bindfs LOWER/data M
#   dz-gN      dazukofs with one group (track=1) answered by dzworker with N
#              threads (allow-all); every open must show up in the group's
#              sysfs events and allowed counters
#   dz-gN-bp   the same with the group's busy_poll_us = $BUSY_POLL_US
#   dz-gx      dz-g1 whose group excludes the cgroup fsbench runs in
#              (exclude_cgroups): every open must be counted in the group's
#              excluded counter, none in its events; against dazukofs, what
#              an excluded workload pays for the group
#   fanotify   M = LOWER/data, FAN_OPEN_PERM on LOWER's mount answered by
#              fanlistener (allow-all); every open must be counted by it
# In quick mode ext4 runs only $CONFIGS_EXT4 (a subset); full mode runs all.
# The configurations are interleaved: each repeat sets up and runs every one
# once, the order rotated by one each repeat; each configuration's first
# setup runs every workload once untimed (fsbench suite -W) before its
# timed run (later repeats find code and caches warm from the earlier ones:
# warming every setup doubled the quick run's time).
#
# Then the scanner benchmark (fs "scanner" in the CSV), over a generated
# corpus (fsbench corpus: $CORPUS files of mixed sizes, deterministic) on a
# tmpfs, with the test signatures (tests/scanner/db):
#   dazuko-clamscan-wN  dazuko-clamscan (verdict cache and libclamav's cache
#                       off: every open a whole scan) answering a group on a
#                       dazukofs over the corpus, N workers; workload scan:
#                       $SCANJ threads open every file once (files/s), after
#                       an untimed warm-up pass (TCG translates code the
#                       first time it runs; clamscan gets a warm-up run too)
#   clamscan            clamscan -d DB -r over the corpus (the lower, no
#                       dazukofs): files/s with its engine load (clamscan of
#                       an empty directory, measured just before, workload
#                       "engine") subtracted; clamscan+load: without
#   dazuko-clamscan-store, -stored
#                       the verdict store (1 worker, caches off, a new
#                       store each repeat): a first pass that scans and
#                       stores every file, then a restarted scanner's pass
#                       answered from the store
#   (clamscan, the store and dazuko-clamscan-wN interleave per repeat, a fresh
#   scanner each time, warm-up passes in repeat 1; so do the three reopen
#   configurations)
#   reopen              open+close of the already scanned corpus (loops of
#                       $REOPENSECS s) on dazukofs with no group, with dz-g1
#                       (allow-all) and with dazuko-clamscan-cache (1 worker,
#                       verdict cache on, after one untimed scan pass: the
#                       kernel remembers its clean verdicts)
# The scanner's statistics (SIGUSR1) must show scanned == the files opened
# (cache off), the group's kernel cache_hits == the re-opens (cache on), no
# errors, no infected;
# every corpus file must open; EICAR copied into the corpus at the end of
# each scanner configuration must be denied (and counted infected).
set -u

BIN=${DAZUKOFS_BUILD:?}/bench
OUT=${DAZUKOFS_OUT:?}
KO=${DAZUKOFS_KO:?}
params=$DAZUKOFS_BUILD/bench/params/$(basename "$OUT").env

MODE=quick REPEATS=3 SECS=0.2 NFILES=500 TREE=500 BIGMB=4 TARFILES=100
CORPUS=150 CORPUSKB=1024 SCANWORKERS="1 2" SCANJ=2 REOPENSECS=1
LOWERFS="tmpfs ext4"
CONFIGS="lower dazukofs overlay bindfs dz-g1 dz-g1-bp dz-g2 dz-g4 dz-gx fanotify"
# A round trip takes ~100 us of the host's time under TCG: the spin must
# outlast it to pay (on hardware a few tens of microseconds would do).
BUSY_POLL_US=300
CONFIGS_EXT4=   # empty: $CONFIGS (bench/run --quick gives a subset)
WORKLOADS="open stat create seqwrite seqread mmapread walk untar"
if [[ -f $params ]]; then
	. "$params"
else
	echo "bench: no $params, quick defaults"
fi
CONFIGS_EXT4=${CONFIGS_EXT4:-$CONFIGS}
SCANNER=$DAZUKOFS_BUILD/scanner/dazuko-clamscan
SIGDB=${DAZUKOFS_SRC:?}/tests/scanner/db
EICAR='X5O!P%@AP[4\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*'

W=/tmp/bench
RAW=$OUT/bench-raw.csv
GROUP=bench
GDIR=/sys/kernel/config/dazukofs/$GROUP
GSYS=/sys/fs/dazukofs/groups/$GROUP
HELPER=     # pid of dzworker or fanlistener
CGROOT=/sys/fs/cgroup
CGX=$CGROOT/dzbench-excluded	# dz-gx's excluded cgroup
RUN_IN_CGROUP=	# the cgroup.procs fsbench moves to, or none
M=          # where the current configuration shows the data set
COUNT=      # how to read the current configuration's event counter

fail() {
	echo "bench: FAIL: $*" >&2
	[[ -n $HELPER ]] && kill "$HELPER" 2>/dev/null
	exit 1
}
say() { echo "bench: $*"; }
say "booted in $(cut -d' ' -f1 /proc/uptime) s"

for b in fsbench dzworker fanlistener; do
	[[ -x $BIN/$b ]] || fail "$BIN/$b missing (build first)"
done
command -v bindfs >/dev/null || fail "bindfs not installed (scripts/setup)"
command -v clamscan >/dev/null || fail "clamscan not installed (scripts/setup)"
[[ -x $SCANNER ]] || fail "$SCANNER missing (build first)"
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
	echo "configs_ext4=\"$CONFIGS_EXT4\""
	echo "busy_poll_us=$BUSY_POLL_US"
	echo "scanworkers=\"$SCANWORKERS\""
	echo "scanj=$SCANJ"
	echo "corpus=$CORPUS"
	echo "reopensecs=$REOPENSECS"
	echo "corpuskb=$CORPUSKB"
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
		# ext4 on a loop device remembers no verdict by default (its
		# image could be rewritten unseen); this one is the bench's own.
		mount -t dazukofs ${LOOPDEV:+-o remember=on} "$L/data" "$M" ||
			fail "mount -t dazukofs"
		if [[ $cfg == dz-g* ]]; then
			local threads=${cfg#dz-g}
			[[ $threads == x ]] && threads=1
			mkdir "$GDIR" || fail "mkdir $GDIR"
			echo 1 >"$GDIR/track" || fail "track=1"
			if [[ $threads == *-bp ]]; then
				threads=${threads%-bp}
				echo "$BUSY_POLL_US" >"$GDIR/busy_poll_us" || fail "busy_poll_us"
			fi
			id=$(cat "$GDIR/id")
			: >"$W/helper.log"	# no "ready" left from the last helper
			"$BIN/dzworker" "$id" "$threads" >"$W/helper.log" 2>&1 &
			HELPER=$!
			wait_ready "$W/helper.log" dzworker || fail "dzworker did not start: $(cat "$W/helper.log")"
			[[ $(cat "$GSYS/active") == 1 ]] || fail "group not active"
			COUNT=dz
			if [[ $cfg == dz-gx ]]; then
				[[ $(stat -f -c %T "$CGROOT") == cgroup2fs ]] ||
					mount -t cgroup2 none "$CGROOT" || fail "mount cgroup2"
				mkdir -p "$CGX" || fail "mkdir $CGX"
				stat -c %i "$CGX" >"$GDIR/exclude_cgroups" || fail "exclude_cgroups"
				RUN_IN_CGROUP=$CGX/cgroup.procs
				COUNT=dzx
			fi
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
		: >"$W/helper.log"
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
		umount "$M" || fail "umount $M"
		RUN_IN_CGROUP= ;;
	dazukofs|overlay|bindfs)
		umount "$M" || fail "umount $M" ;;
	esac
	[[ $cfg == overlay ]] && rm -rf "$L/ovlwork"
	return 0
}

run_config() { # FS CONFIG REP: one timed run of every workload (repeat 1: an untimed warm-up run first)
	local counter=none warm=
	[[ $3 == 1 ]] && warm=-W
	case $COUNT in
	dz) counter=dz:$GSYS ;;
	dzx) counter=dzx:$GSYS ;;
	fan) counter=fan:$W/fan.count ;;
	esac
	# Inside M, with paths relative to it: the guest's root is overlayfs
	# over 9p, whose revalidation leaves RCU walk, so an absolute path
	# would walk every component in ref-walk, as no host with a local
	# root does.
	(cd "$M" && { [[ -z $RUN_IN_CGROUP ]] || echo "$BASHPID" >"$RUN_IN_CGROUP"; } &&
		exec "$BIN/fsbench" suite . -w "$WORKLOADS" -r 1 -R "$3" $warm \
		-c "$counter" -o "$RAW" -l "$1,$2" ${HELPER:+-p "$HELPER"} -t "$SECS" \
		-n "$NFILES" -s "$BIGMB" -a "$W/src.tar" -f "$TARFILES") ||
		fail "$1/$2: fsbench suite"
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
	cfgs=$CONFIGS
	[[ $fs == ext4 ]] && cfgs=$CONFIGS_EXT4
	read -ra ca <<<"$cfgs"
	# configurations interleaved: each repeat runs every one once, the
	# order rotated by one each repeat (repeat 1 in the listed order)
	for ((r = 1; r <= REPEATS; r++)); do
		for ((i = 0; i < ${#ca[@]}; i++)); do
			cfg=${ca[$(( (i + r - 1) % ${#ca[@]} ))]}
			t=$(date +%s)
			setup_config "$cfg" "$L"
			run_config "$fs" "$cfg" "$r"
			teardown_config "$cfg" "$L"
			say "$fs/$cfg #$r done in $(( $(date +%s) - t )) s"
		done
	done
	teardown_lower "$L"
done
say "filesystem workloads done in $(( $(date +%s) - start )) s"

# ---- the scanner benchmark -------------------------------------------------
SLOG=$W/scanner.log
now_s() { local t; t=$(date +%s%N); echo "${t:0:-9}.${t: -9}"; }

start_scanner() { # WORKERS CACHE_SIZE CLAMAV_CACHE [STORE_PATH]: dazuko-clamscan on group $GROUP, ready
	: >"$SLOG"
	"$SCANNER" -f -c /dev/null --group "$GROUP" --workers "$1" --cache-size "$2" \
		--clamav-cache "$3" \
		$([[ -n ${4:-} ]] && echo "--store yes --store-path $4" || echo "--store no") \
		--database "$W/db" --log-level notice --timeout-ms 0 >>"$SLOG" 2>&1 &
	HELPER=$!
	local i
	for ((i = 0; i < 1200; i++)); do
		grep -q 'notice: ready:' "$SLOG" && [[ $(cat "$GSYS/readers" 2>/dev/null) == "$1" ]] && return 0
		kill -0 "$HELPER" 2>/dev/null || fail "dazuko-clamscan died: $(cat "$SLOG")"
		sleep 0.1
	done
	fail "dazuko-clamscan not ready after 120 s: $(cat "$SLOG")"
}

scan_stats() { # the scanner's statistics line, fresh (SIGUSR1)
	local n i
	n=$(grep -c 'statistics:' "$SLOG")
	kill -USR1 "$HELPER" || fail "SIGUSR1 to dazuko-clamscan"
	for ((i = 0; i < 100; i++)); do
		(( $(grep -c 'statistics:' "$SLOG") > n )) && break
		sleep 0.1
	done
	grep 'statistics:' "$SLOG" | tail -n 1
}
stat_of() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$2"; }

check_stats() { # CONFIG SCANNED CACHE_HITS INFECTED: the scanner's counters
	local st
	st=$(scan_stats)
	say "$1: $st"
	[[ $(stat_of scanned "$st") == "$2" ]] || fail "$1: scanned should be $2: $st"
	[[ $(stat_of cache_hits "$st") == "$3" ]] || fail "$1: cache_hits should be $3: $st"
	[[ $(stat_of infected "$st") == "$4" ]] || fail "$1: infected should be $4: $st"
	[[ $(stat_of errors "$st") == 0 && $(stat_of exceeds_max "$st") == 0 &&
		$(stat_of encrypted "$st") == 0 &&
		$(stat_of filtered "$st") == 0 ]] || fail "$1: errors or skipped files: $st"
}

eicar_denied() { # CONFIG: EICAR in the corpus is denied through the mount
	local err
	printf '%s' "$EICAR" >"$L/data/zz-eicar.com"
	err=$(cat "$M/zz-eicar.com" 2>&1 >/dev/null) && fail "$1: EICAR opened through the mount"
	[[ $err == *"Operation not permitted"* ]] || fail "$1: EICAR: unexpected error: $err"
	rm -f "$L/data/zz-eicar.com"
	say "$1: EICAR denied"
}

stop_scanner() { # CONFIG
	local rc
	kill -0 "$HELPER" 2>/dev/null || fail "$1: dazuko-clamscan died: $(cat "$SLOG")"
	kill -TERM "$HELPER"
	wait "$HELPER"
	rc=$?
	HELPER=
	[[ $rc == 0 ]] || fail "$1: dazuko-clamscan exited with $rc: $(cat "$SLOG")"
	[[ -d $GDIR ]] && fail "$1: group left after SIGTERM"
	umount "$M" || fail "umount $M"
}

raw_row() { # CONFIG WORKLOAD REP VALUE UNIT OPS SECS
	printf 'scanner,%s,%s,%s,%.3f,%s,%s,0,,%.4f\n' "$@" >>"$RAW"
	printf 'bench: %-16s %-9s #%s %12.1f %s\n' "scanner,$1" "$2" "$3" "$4" "$5"
}

sstart=$(date +%s)
mkdir -p "$W/db" && cp "$SIGDB"/* "$W/db/" || fail "copy $SIGDB"
L=/mnt/bench-scan
mkdir -p "$L"
mount -t tmpfs -o size=$((CORPUS * CORPUSKB / 4 / 1024 + 64))m bench-scan "$L" || fail "mount tmpfs for the corpus"
corpus=$("$BIN/fsbench" corpus "$L/data" "$CORPUS" "$CORPUSKB") || fail "fsbench corpus"
cfiles=$(sed -n 's/^files=\([0-9]*\) .*/\1/p' <<<"$corpus")
cbytes=$(sed -n 's/.* bytes=\([0-9]*\)$/\1/p' <<<"$corpus")
[[ -n $cfiles && -n $cbytes ]] || fail "fsbench corpus said '$corpus'"
echo "corpus_files=$cfiles" >>"$OUT/bench-meta.env"
echo "corpus_bytes=$cbytes" >>"$OUT/bench-meta.env"
say "scanner corpus: $cfiles files, $cbytes bytes"

clamscan_run() { # REP: engine load (an empty directory), then the corpus
	local t0 t1 t2 res rc n load full scan
	t0=$(now_s)
	clamscan --no-summary -d "$W/db" "$W/empty" >/dev/null 2>&1 || fail "clamscan of an empty directory"
	t1=$(now_s)
	res=$(clamscan -d "$W/db" -r "$L/data" 2>&1)
	rc=$?
	t2=$(now_s)
	[[ $rc == 0 ]] || fail "clamscan of the corpus exited $rc: $res"
	n=$(sed -n 's/^Scanned files: //p' <<<"$res")
	[[ $n == "$cfiles" ]] || fail "clamscan scanned '$n' files, not $cfiles"
	read -r load full scan <<<"$(awk -v a="$t0" -v b="$t1" -v c="$t2" \
		'BEGIN { printf "%.4f %.4f %.4f\n", b - a, c - b, (c - b) - (b - a) }')"
	awk -v s="$scan" 'BEGIN { exit !(s > 0) }' || fail "clamscan: corpus ($full s) not slower than engine load ($load s)"
	raw_row clamscan engine "$1" "$load" s 0 "$load"
	raw_row clamscan scan "$1" "$(awk -v n="$n" -v s="$scan" 'BEGIN { print n / s }')" files/s "$n" "$scan"
	raw_row clamscan+load scan "$1" "$(awk -v n="$n" -v s="$full" 'BEGIN { print n / s }')" files/s "$n" "$full"
}

# dazuko-clamscan, verdict cache and libclamav's clean-file cache off: every
# open is a whole scan, as each file is for clamscan (without the latter the
# repeats would only hash the files libclamav found clean before)
scanner_run() { # WORKERS REP: a fresh scanner, one timed pass (repeat 1: an untimed one first)
	local nw=$1 cfg=dazuko-clamscan-w$1 passes=1
	M=/mnt/bench-dz
	mkdir -p "$M"
	mount -t dazukofs "$L/data" "$M" || fail "mount -t dazukofs"
	start_scanner "$nw" 0 no
	if [[ $2 == 1 ]]; then
		"$BIN/fsbench" scan "$M" -j "$SCANJ" >/dev/null || fail "$cfg: warm-up pass"
		passes=2
	fi
	"$BIN/fsbench" suite "$M" -w scan -r 1 -R "$2" -c "dz:$GSYS" -p "$HELPER" \
		-j "$SCANJ" -o "$RAW" -l "scanner,$cfg" || fail "scanner/$cfg: fsbench suite"
	check_stats "$cfg" $((cfiles * passes)) 0 0
	eicar_denied "$cfg"
	check_stats "$cfg" $((cfiles * passes + 1)) 0 1
	stop_scanner "$cfg"
}

# The verdict store across a restart: dazuko-clamscan-store is a first pass
# with an empty store (every file scanned and stored), dazuko-clamscan-stored
# the pass of a scanner restarted over the same files (every file answered
# from the store: digested, not scanned).  1 worker, verdict cache and
# libclamav's cache off, as dazuko-clamscan-w1.  A new store each repeat.
store_run() { # REP
	local st
	M=/mnt/bench-dz
	mkdir -p "$M"
	rm -rf "$W/store"
	mount -t dazukofs "$L/data" "$M" || fail "mount -t dazukofs"
	start_scanner 1 0 no "$W/store"
	"$BIN/fsbench" suite "$M" -w scan -r 1 -R "$1" -c "dz:$GSYS" -p "$HELPER" \
		-j "$SCANJ" -o "$RAW" -l "scanner,dazuko-clamscan-store" ||
		fail "scanner/dazuko-clamscan-store: fsbench suite"
	check_stats dazuko-clamscan-store "$cfiles" 0 0
	stop_scanner dazuko-clamscan-store
	mount -t dazukofs "$L/data" "$M" || fail "mount -t dazukofs"
	start_scanner 1 0 no "$W/store"
	"$BIN/fsbench" suite "$M" -w scan -r 1 -R "$1" -c "dz:$GSYS" -p "$HELPER" \
		-j "$SCANJ" -o "$RAW" -l "scanner,dazuko-clamscan-stored" ||
		fail "scanner/dazuko-clamscan-stored: fsbench suite"
	check_stats dazuko-clamscan-stored 0 0 0
	st=$(scan_stats)
	[[ $(stat_of store_hits "$st") == "$cfiles" ]] ||
		fail "dazuko-clamscan-stored: store_hits should be $cfiles: $st"
	eicar_denied dazuko-clamscan-stored
	stop_scanner dazuko-clamscan-stored
}

# clamscan and dazuko-clamscan-wN interleaved, the order rotated each
# repeat; in repeat 1 each dazuko-clamscan gets an untimed pass first,
# clamscan an untimed run (TCG translates code when it first runs it, and
# keeps the translation for the same guest pages: later repeats find it)
t=$(date +%s)
clamscan --no-summary -d "$W/db" -r "$L/data" >/dev/null 2>&1 || fail "clamscan warm-up run"
scfgs=(clamscan store)
for nw in $SCANWORKERS; do scfgs+=("w$nw"); done
for ((r = 1; r <= REPEATS; r++)); do
	for ((i = 0; i < ${#scfgs[@]}; i++)); do
		c=${scfgs[$(( (i + r - 1) % ${#scfgs[@]} ))]}
		t1=$(date +%s)
		case $c in
		clamscan) clamscan_run "$r" ;;
		store) store_run "$r" ;;
		*) scanner_run "${c#w}" "$r" ;;
		esac
		say "scanner/$c #$r done in $(( $(date +%s) - t1 )) s"
	done
done
say "scanner: clamscan and dazuko-clamscan done in $(( $(date +%s) - t )) s"

# re-opening the already scanned corpus: dazukofs, dz-g1 and the scanner
# with its verdict cache, interleaved, each with an untimed warm-up run in
# repeat 1
reopen_cache_run() { # REP
	local cfg=dazuko-clamscan-cache reopens
	M=/mnt/bench-dz
	mount -t dazukofs "$L/data" "$M" || fail "mount -t dazukofs"
	start_scanner 1 65536 yes
	"$BIN/fsbench" scan "$M" -j 1 >/dev/null || fail "$cfg: the first (scanning) pass"
	check_stats "$cfg" "$cfiles" 0 0
	: >"$W/reopen.csv"
	"$BIN/fsbench" suite "$M" -w reopen -r 1 -R "$1" $([[ $1 == 1 ]] && echo -W) -c "dzhit:$GSYS" -p "$HELPER" \
		-t "$REOPENSECS" -o "$W/reopen.csv" -l "scanner,$cfg" || fail "scanner/$cfg: fsbench suite"
	cat "$W/reopen.csv" >>"$RAW"
	reopens=$(awk -F, '{ n += $8 } END { print n + 0 }' "$W/reopen.csv")
	check_stats "$cfg" "$cfiles" 0 0
	say "$cfg: all $reopens timed re-opens (and any warm-up's) were kernel verdict cache hits, no event"
	eicar_denied "$cfg"
	stop_scanner "$cfg"
}
rcfgs=(dazukofs dz-g1 dazuko-clamscan-cache)
for ((r = 1; r <= REPEATS; r++)); do
	for ((i = 0; i < ${#rcfgs[@]}; i++)); do
		cfg=${rcfgs[$(( (i + r - 1) % ${#rcfgs[@]} ))]}
		t=$(date +%s)
		if [[ $cfg == dazuko-clamscan-cache ]]; then
			reopen_cache_run "$r"
		else
			setup_config "$cfg" "$L"
			[[ $cfg == dz-g1 ]] && counter=dz:$GSYS || counter=none
			"$BIN/fsbench" suite "$M" -w reopen -r 1 -R "$r" $([[ $r == 1 ]] && echo -W) -c "$counter" ${HELPER:+-p "$HELPER"} \
				-t "$REOPENSECS" -o "$RAW" -l "scanner,$cfg" || fail "scanner/$cfg: fsbench suite"
			teardown_config "$cfg" "$L"
		fi
		say "scanner/$cfg #$r done in $(( $(date +%s) - t )) s"
	done
done
umount "$L" || fail "umount $L"
say "scanner benchmark done in $(( $(date +%s) - sstart )) s"

rmmod dazukofs || fail "rmmod dazukofs"
say "all done in $(( $(date +%s) - start )) s"
exit 0
