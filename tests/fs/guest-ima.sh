#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest script (root, in the VM, booted with ima_policy=tcb): IMA through a
# dazukofs mount.  The tcb policy measures every exec and every file root
# reads.  A script on ext4 (with i_version) is run and read through the
# mount; then changed directly in the lower directory, or through the
# mount, and run again: IMA must measure the new contents each time (a new
# entry with the new hash), as it does for the same change run on the
# lower itself.  A stale measurement (IMA trusting what it measured before
# the lower changed) fails.  IMA's per-inode records of files read through
# the mount are freed when the mount goes.  Then the module goes away
# cleanly.
set -u
DZ_TAG=guest-ima
. "${DAZUKOFS_SRC:?}/tests/vm/guest/lib.sh"
W=/tmp/dz-ima
SEC=/sys/kernel/security
rc=0
fail() { dz_err "FAIL: $*"; rc=1; }
pass() { echo "guest-ima: PASS: $*"; }

grep -q ' securityfs ' /proc/mounts || mount -t securityfs securityfs "$SEC" ||
	{ dz_err "mount securityfs"; exit 1; }
LIST=$SEC/ima/ascii_runtime_measurements
[ -r "$LIST" ] || { dz_err "no IMA measurement list (kernel without IMA?)"; exit 1; }
grep -q 'ima_policy=tcb' /proc/cmdline || { dz_err "not booted with ima_policy=tcb"; exit 1; }
modprobe -a loop ext4 || { dz_err "modprobe loop ext4 failed"; exit 1; }
dz_load || exit 1

mkdir -p "$W/lower" "$W/upper"
truncate -s 32M "$W/ext4.img" && mkfs.ext4 -q -F "$W/ext4.img" || exit 1
mount -o loop,iversion "$W/ext4.img" "$W/lower" || exit 1
mount -t dazukofs "$W/lower" "$W/upper" || exit 1

# has_hash PATH CONTENT-FILE: some entry for PATH carries this content's hash
has_hash() {
	awk -v p="$1" '$NF == p { print $4 }' "$LIST" | sed 's/^[a-z0-9-]*://' >"$W/hashes"
	for _algo in sha256 sha1 sha512 sha384 md5; do
		_h=$(openssl dgst -"$_algo" -r "$2" | cut -d' ' -f1)
		grep -qx "$_h" "$W/hashes" && return 0
	done
	return 1
}

write_script() { printf '#!/bin/sh\necho %s\n' "$2" >"$1"; chmod 755 "$1"; }

# run_and_check NAME PATH-RUN WORD: run PATH-RUN, which must print WORD,
# and the measurement list must then hold its current contents' hash.
run_and_check() {
	out=$("$2" 2>&1)
	[ "$out" = "$3" ] || { fail "$1: $2 printed '$out', not '$3'"; return; }
	cp "$2" "$W/content"
	if has_hash "$2" "$W/content"; then
		pass "$1: $2 measured with its contents ($3)"
	else
		fail "$1: $2 ran '$3' but IMA has no measurement of those contents (stale)"
	fi
}

for where in lower upper; do
	dir=$W/$where
	# each case its own file: IMA keeps one state per inode
	write_script "$W/lower/run-$where" one
	run_and_check "$where: first run" "$dir/run-$where" one
	write_script "$W/lower/run-$where" two
	run_and_check "$where: changed in the lower, run again" "$dir/run-$where" two
	write_script "$dir/run-$where" three
	run_and_check "$where: changed through $where, run again" "$dir/run-$where" three

	# a file root reads (FILE_CHECK), changed in the lower in between
	printf 'data one\n' >"$W/lower/read-$where"
	cat "$dir/read-$where" >/dev/null
	has_hash "$dir/read-$where" "$W/lower/read-$where" ||
		fail "$where: read by root not measured"
	printf 'data two\n' >"$W/lower/read-$where"
	cat "$dir/read-$where" >/dev/null
	if has_hash "$dir/read-$where" "$W/lower/read-$where"; then
		pass "$where: read by root after a change in the lower measured again"
	else
		fail "$where: read by root after a change in the lower: stale measurement"
	fi
	# appended to in the lower: the size changes, nothing else
	printf 'log one\n' >"$W/lower/app-$where"
	cat "$dir/app-$where" >/dev/null
	printf 'log two\n' >>"$W/lower/app-$where"
	cat "$dir/app-$where" >/dev/null
	if has_hash "$dir/app-$where" "$W/lower/app-$where"; then
		pass "$where: read by root after an append in the lower measured again"
	else
		fail "$where: read by root after an append in the lower: stale measurement"
	fi
	# stat only: nothing to measure, nothing to go wrong
	stat "$dir/read-$where" >/dev/null || fail "$where: stat"
done

# No integrity state left behind.  IMA keeps a record per inode it
# measured (6.1: iint_cache, found by the S_IMA flag the inode carries;
# 6.12: ima_iint_cache, in the inode's security blob), freed with the
# inode.  Files read twice through the mount, then the mount and the lower
# unmounted: every inode is gone, and so must their records be (the tools
# this script runs, on the root filesystem, may add a few).  The harness's
# slub_debug keeps the cache apart from others of its size.
iint_objects() {
	for _c in ima_iint_cache iint_cache; do
		[ -r "/sys/kernel/slab/$_c/objects" ] || continue
		[ -L "/sys/kernel/slab/$_c" ] && { echo merged; return; }
		cut -d' ' -f1 "/sys/kernel/slab/$_c/objects"
		return
	done
	echo none
}
N=200
i=0
while [ $i -lt $N ]; do printf 'record %d\n' $i >"$W/lower/rec-$i"; i=$((i + 1)); done
before=$(iint_objects)
case $before in
none) fail "no IMA integrity cache in /sys/kernel/slab" ;;
merged) echo "guest-ima: the integrity cache is merged with another (no slub_debug): record count not checked" ;;
*)
	i=0
	while [ $i -lt $N ]; do
		cat "$W/upper/rec-$i" "$W/upper/rec-$i" >/dev/null || fail "read rec-$i"
		i=$((i + 1))
	done
	read_them=$(iint_objects)
	# the control: the cache counts the records of the files read
	[ $((read_them - before)) -ge $N ] ||
		fail "the control: $N files read through the mount added $((read_them - before)) integrity records"
	umount "$W/upper" || fail "umount dazukofs"
	umount "$W/lower" || fail "umount ext4"
	after=$(iint_objects)
	if [ $((after - before)) -le $((N / 4)) ]; then
		pass "integrity records freed with the inodes: $before, $read_them after the reads, $after after umount"
	else
		fail "integrity records left after umount: $before before, $read_them after the reads, $after after umount"
	fi ;;
esac

mountpoint -q "$W/upper" && { umount "$W/upper" || fail "umount dazukofs"; }
mountpoint -q "$W/lower" && { umount "$W/lower" || fail "umount ext4"; }
rmmod dazukofs || fail "rmmod dazukofs"
exit $rc
