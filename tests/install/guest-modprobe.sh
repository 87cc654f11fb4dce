#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest script (vm-modprobe-*): the module DKMS built and installed for this
# kernel (test dkms-build, in $DAZUKOFS_BUILD/dkms-test/modules/REL/) goes to
# /lib/modules/REL/updates/dkms/ (the guest's writable overlay), depmod finds
# it, and `modprobe dazukofs` loads it together with configfs, which it
# depends on; /sys/fs/dazukofs appears, mount -t dazukofs works, and
# `modprobe -r dazukofs` unloads it.
#
# depmod indexes just this module and configfs (dz_index_module): a depmod
# -a reads and unpacks every module of the kernel, 40 to 80 s under TCG,
# and finds nothing more about this one.
set -euo pipefail
DZ_TAG=modprobe
. "${DAZUKOFS_SRC:?}/tests/vm/guest/lib.sh"

step() { echo "modprobe: $*"; }
fail() { echo "modprobe: FAIL: $*" >&2; exit 1; }
loaded() { [[ -d /sys/module/$1 ]] && grep -q "^$1 " /proc/modules; }

rel=$(uname -r)
dkmsdir=${DAZUKOFS_BUILD:?}/dkms-test/modules/$rel/updates/dkms
ko=
for f in "$dkmsdir"/dazukofs.ko{,.xz,.zst,.gz}; do
	[[ -f $f ]] && { ko=$f; break; }
done
[[ -n $ko ]] || fail "no dazukofs.ko* in $dkmsdir (test dkms-build makes it)"

dst=/lib/modules/$rel/updates/dkms
step "install $ko into $dst; depmod"
loaded dazukofs && fail "dazukofs is loaded already"
dz_index_module "$ko" updates/dkms || fail "depmod of $ko and configfs"
where=$(modinfo -n dazukofs) || fail "modinfo dazukofs: depmod did not index it"
[[ $where == "$dst/${ko##*/}" ]] || fail "modinfo -n dazukofs is $where, expected $dst/${ko##*/}"
step "modinfo -n dazukofs: $where (depends: $(modinfo -F depends dazukofs))"

step "configfs must not be loaded before modprobe dazukofs"
if loaded configfs; then
	mountpoint -q /sys/kernel/config && umount /sys/kernel/config
	rmmod configfs || fail "configfs is loaded and in use ($(grep '^configfs ' /proc/modules))"
fi
loaded configfs && fail "configfs still loaded"

step "modprobe dazukofs"
modprobe dazukofs || fail "modprobe dazukofs"
loaded dazukofs || fail "dazukofs not loaded after modprobe"
loaded configfs || fail "configfs was not loaded as a dependency of dazukofs"
grep -q '^dazukofs .* configfs\|^configfs .*dazukofs' /proc/modules ||
	fail "configfs is not used by dazukofs: $(grep -E '^(dazukofs|configfs) ' /proc/modules)"
[[ -d /sys/fs/dazukofs ]] || fail "no /sys/fs/dazukofs"
step "$(grep -E '^(dazukofs|configfs) ' /proc/modules | tr '\n' ';')"

step "mount -t dazukofs"
d=/tmp/modprobe-dir
mkdir -p "$d"
echo hello >"$d/file"
mount -t dazukofs "$d" "$d" || fail "mount -t dazukofs $d $d"
grep -q " $d dazukofs " /proc/mounts || fail "$d is not a dazukofs mount: $(grep " $d " /proc/mounts)"
[[ $(cat "$d/file") == hello ]] || fail "cannot read $d/file through dazukofs"
umount "$d" || fail "umount $d"

step "modprobe -r dazukofs"
modprobe -r dazukofs || fail "modprobe -r dazukofs"
loaded dazukofs && fail "dazukofs still loaded after modprobe -r"
step "PASS"
