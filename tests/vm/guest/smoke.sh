#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest smoke test: is the VM environment what the other guest tests expect?
# Run inside the VM by tests/vm/run-vm (see HACKING.md for the variables).
set -euo pipefail

step() { echo "smoke: $*"; }
fail() { echo "smoke: FAIL: $*" >&2; exit 1; }

for v in DAZUKOFS_SRC DAZUKOFS_BUILD DAZUKOFS_KO DAZUKOFS_OUT DAZUKOFS_KREL; do
	[[ -n ${!v:-} ]] || fail "$v is not set"
	step "$v=${!v}"
done

step "uname -r"
[[ $(uname -r) == "$DAZUKOFS_KREL" ]] || fail "uname -r is $(uname -r), expected $DAZUKOFS_KREL"
[[ $(id -u) == 0 ]] || fail "not root"
[[ -d $DAZUKOFS_SRC/module ]] || fail "source tree not visible at $DAZUKOFS_SRC"

step "hung_task_timeout_secs=$(cat /proc/sys/kernel/hung_task_timeout_secs) panic_on_warn=$(cat /proc/sys/kernel/panic_on_warn)"
[[ $(cat /proc/sys/kernel/panic_on_warn) == 1 ]] || fail "panic_on_warn is not set"

step "modprobe configfs loop ext4"
modprobe -a configfs loop ext4 || fail "modprobe configfs loop ext4"
if ! grep -q ' /sys/kernel/config configfs ' /proc/mounts; then
	mount -t configfs configfs /sys/kernel/config || fail "mount configfs"
fi
grep -q ' /sys/kernel/config configfs ' /proc/mounts || fail "configfs not mounted at /sys/kernel/config"

step "loop device + ext4 under /tmp"
img=/tmp/smoke.img mnt=/tmp/smoke-mnt
truncate -s 32M "$img"
mkfs.ext4 -q -F "$img" || fail "mkfs.ext4"
mkdir -p "$mnt"
mount -o loop "$img" "$mnt" || fail "mount -o loop ext4"
echo data >"$mnt/file"
[[ $(cat "$mnt/file") == data ]] || fail "ext4 read back"
umount "$mnt" || fail "umount ext4"

step "insmod $DAZUKOFS_KO; rmmod dazukofs"
[[ -f $DAZUKOFS_KO ]] || fail "$DAZUKOFS_KO not built (cmake --build BUILD builds target kmod)"
deps=$(modinfo -F depends "$DAZUKOFS_KO" | tr ',' ' ')
[[ -z $deps ]] || modprobe -a $deps || fail "modprobe $deps (dependencies of dazukofs.ko)"
insmod "$DAZUKOFS_KO" || fail "insmod $DAZUKOFS_KO"
grep -q '^dazukofs ' /proc/modules || fail "dazukofs not in /proc/modules"
rmmod dazukofs || fail "rmmod dazukofs"
grep -q '^dazukofs ' /proc/modules && fail "dazukofs still loaded after rmmod"

step "write to DAZUKOFS_OUT"
echo "smoke ok on $(uname -r)" >"$DAZUKOFS_OUT/smoke.txt" || fail "cannot write $DAZUKOFS_OUT"
sync
step "PASS"
