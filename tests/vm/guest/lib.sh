# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Sourced by the guest scripts (POSIX sh; root, in the VM of tests/vm/run-vm):
# the set-up and teardown they share, so that every suite loads the module
# and checks what it leaves behind the same way.  Each function says what
# went wrong on stderr (prefixed with $DZ_TAG, default "guest") and returns
# non-zero; the caller decides whether that ends the script.
#
#   dz_load                   configfs and the module's dependencies, insmod
#                             $DAZUKOFS_KO, configfs mounted
#   dz_mount_tmpfs LOWER MNT [OPTIONS]
#                             a fresh tmpfs at LOWER (mount options, default
#                             size=64m) and dazukofs LOWER stacked at MNT
#   dz_check_idle             nothing left behind by the test: no group in
#                             configfs or sysfs, no group device, waiting,
#                             in_hand and readers all 0 (leftover groups are
#                             removed, so that the module can unload)
#   dz_counters               one line with the global counters
#   dz_unload MNT LOWER       umount MNT and LOWER, rmmod dazukofs
#   dz_index_module [KO [DIR]]
#                             make `modprobe dazukofs` (and modules-load.d)
#                             find KO (default $DAZUKOFS_KO), installed in
#                             /lib/modules/REL/DIR (default extra), without a
#                             full depmod
#   dz_wait_for SECS WHAT CMD...
#                             until CMD succeeds; fails after SECS seconds
#   dz_value_is FILE VALUE    the file (a counter) holds VALUE
#   dz_sleeping PID           the process sleeps in (clock_)nanosleep

DZ_CONFIGFS=/sys/kernel/config
DZ_GROUPS=$DZ_CONFIGFS/dazukofs
DZ_SYSFS=/sys/fs/dazukofs

dz_err() { echo "${DZ_TAG:-guest}: $*" >&2; }

dz_configfs_mounted() { grep -q " $DZ_CONFIGFS configfs " /proc/mounts; }

dz_load() {
	# insmod does not resolve dependencies; modprobe them (configfs) first
	_deps=$(modinfo -F depends "${DAZUKOFS_KO:?}" | tr ',' ' ')
	# shellcheck disable=SC2086 # a list of module names
	modprobe -a configfs $_deps || { dz_err "modprobe configfs $_deps failed"; return 1; }
	insmod "$DAZUKOFS_KO" || { dz_err "insmod $DAZUKOFS_KO failed"; return 1; }
	if ! dz_configfs_mounted; then
		mount -t configfs configfs "$DZ_CONFIGFS" || { dz_err "cannot mount configfs"; return 1; }
	fi
	[ -d "$DZ_GROUPS" ] || { dz_err "no $DZ_GROUPS after insmod"; return 1; }
	[ -d "$DZ_SYSFS" ] || { dz_err "no $DZ_SYSFS after insmod"; return 1; }
}

dz_mount_tmpfs() {
	mkdir -p "$1" "$2" || return 1
	mount -t tmpfs -o "${3:-size=64m}" dz-lower "$1" ||
		{ dz_err "cannot mount a tmpfs at $1"; return 1; }
	mount -t dazukofs "$1" "$2" || { dz_err "mount -t dazukofs $1 $2 failed"; return 1; }
}

dz_check_idle() {
	_rc=0
	_left=$(ls "$DZ_GROUPS" 2>/dev/null)
	if [ -n "$_left" ]; then
		dz_err "FAIL: groups left behind: $_left"
		for _g in $_left; do rmdir "$DZ_GROUPS/$_g"; done
		_rc=1
	fi
	# /dev/dazukofs.ign belongs to the module, /dev/dazukofs.N to groups
	if ls /dev/dazukofs.[0-9]* >/dev/null 2>&1; then
		dz_err "FAIL: group devices left behind: $(ls /dev/dazukofs.[0-9]*)"
		_rc=1
	fi
	if [ -n "$(ls "$DZ_SYSFS/groups" 2>/dev/null)" ]; then
		dz_err "FAIL: sysfs groups left behind: $(ls "$DZ_SYSFS/groups")"
		_rc=1
	fi
	for _c in waiting in_hand readers; do
		_v=$(cat "$DZ_SYSFS/$_c")
		[ "$_v" = 0 ] || { dz_err "FAIL: $DZ_SYSFS/$_c is $_v at the end"; _rc=1; }
	done
	return $_rc
}

dz_counters() {
	for _c in events allowed denied cancelled timeouts open_errors overflows waiting in_hand readers; do
		printf '%s=%s ' "$_c" "$(cat "$DZ_SYSFS/$_c")"
	done
	echo
}

dz_unload() {
	_rc=0
	umount "$1" || { dz_err "FAIL: umount $1"; _rc=1; }
	umount "$2" || { dz_err "FAIL: umount $2"; _rc=1; }
	rmmod dazukofs || { dz_err "FAIL: rmmod dazukofs"; _rc=1; }
	if grep -q '^dazukofs ' /proc/modules; then
		dz_err "FAIL: dazukofs still loaded"
		_rc=1
	fi
	return $_rc
}

dz_index_module() {
	# A full depmod reads every module of the kernel and takes minutes
	# under TCG.  Index just dazukofs and configfs in a scratch tree and
	# install that index in the guest's overlay: modprobe of modules other
	# than these two does not work after this, so load those first.
	_rel=${DAZUKOFS_KREL:?}
	_mods=/lib/modules/$_rel
	_configfs=$(modinfo -n configfs) || { dz_err "modinfo configfs failed"; return 1; }
	_scratch=/tmp/dz-depmod-root
	_smods=$_scratch/lib/modules/$_rel
	_ko=${1:-${DAZUKOFS_KO:?}}
	_dir=${2:-extra}
	mkdir -p "$_smods/$_dir"
	# built in (the debug kernel): modules.builtin, copied below, has it
	if [ "$_configfs" != "(builtin)" ]; then
		_rel_configfs=${_configfs#"$_mods"/}
		mkdir -p "$(dirname "$_smods/$_rel_configfs")"
		cp "$_configfs" "$_smods/$_rel_configfs"
	fi
	cp "$_ko" "$_smods/$_dir/"
	cp "$_mods"/modules.builtin* "$_mods/modules.order" "$_smods/" 2>/dev/null
	depmod -b "$_scratch" "$_rel" || { dz_err "depmod -b $_scratch failed"; return 1; }
	mkdir -p "$_mods/$_dir"
	cp "$_ko" "$_mods/$_dir/"
	cp "$_smods"/modules.* "$_mods/"
}

dz_wait_for() {
	_secs=$1 _what=$2
	shift 2
	_end=$(($(date +%s) + _secs))
	until "$@"; do
		if [ "$(date +%s)" -ge "$_end" ]; then
			dz_err "FAIL: no $_what after ${_secs}s"
			return 1
		fi
		sleep 0.05
	done
}

# A kernel with lockdep (the KASAN/lockdep debug kernel) runs everything
# several times slower: the longest suites trim their repeats there.
dz_slow_kernel() { [ -e /proc/lockdep ]; }

dz_value_is() { [ "$(cat "$1" 2>/dev/null)" = "$2" ]; }

dz_sleeping() {
	# /proc/PID/syscall: the number of the system call it is blocked in
	read -r _nr _rest <"/proc/$1/syscall" 2>/dev/null || return 1
	[ "$_nr" = 35 ] || [ "$_nr" = 230 ]	# x86_64 nanosleep, clock_nanosleep
}
