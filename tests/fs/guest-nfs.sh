#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest script (root, in the VM): dazukofs over NFSv4.  The guest's own
# nfsd exports a tmpfs owned by a user (uid 1000) with root_squash to
# 127.0.0.1; the guest mounts it (NFSv4.2) and stacks dazukofs on that.
# fs-nfs checks unlink (no sillyrename unless open), root_squash through
# the mount, locks held on the server, and a worker's EACCES reported.
# Then the whole fs-passthrough suite: over the root_squash export, where
# root is nobody (the suite runs as an unprivileged user would), and over
# a second export without root_squash, where it runs as root.  Last, that
# export marked crossmnt with a submount: the automount point is refused.
set -u
DZ_TAG=guest-nfs
. "${DAZUKOFS_SRC:?}/tests/vm/guest/lib.sh"
BIN=${DAZUKOFS_BUILD:?}/tests/fs
W=/tmp/dz-nfs
USER_UID=1000
rc=0
fail() { dz_err "FAIL: $*"; rc=1; }

# run_fsp NAME LOWER UPPER: the fs-passthrough suite, its log in
# $DAZUKOFS_OUT/fsp-NAME.log, failures and skips shown here.
run_fsp() {
	start=$(date +%s)
	if DAZUKOFS_LOWER=$2 DAZUKOFS_UPPER=$3 \
		"$BIN/fs-passthrough" "$2" "$3" >"$DAZUKOFS_OUT/fsp-$1.log" 2>&1; then
		echo "guest-nfs: PASS: fs-passthrough over $1"
	else
		fail "fs-passthrough over $1 (see $DAZUKOFS_OUT/fsp-$1.log)"
	fi
	grep -E '^\[ *(FAILED|SKIPPED) *\]|^\[  ERROR|lower (has no|rejects|refuses|squashes)' \
		"$DAZUKOFS_OUT/fsp-$1.log"
	echo "guest-nfs: fs-passthrough over $1 took $(( $(date +%s) - start )) s"
}

[ -x "$BIN/fs-nfs" ] || { dz_err "$BIN/fs-nfs missing (build first)"; exit 1; }
modprobe -a nfsd nfsv4 || { dz_err "modprobe nfsd nfsv4 failed"; exit 1; }
dz_load || exit 1

# The server's state stays in the guest: the root filesystem is the host's.
mount -t tmpfs nfs-state /var/lib/nfs || exit 1
mkdir -p /var/lib/nfs/v4recovery /var/lib/nfs/rpc_pipefs "$W/export" "$W/client" "$W/upper"
touch /var/lib/nfs/etab /var/lib/nfs/rmtab
mount -t nfsd nfsd /proc/fs/nfsd || exit 1
mount -t rpc_pipefs rpc_pipefs /var/lib/nfs/rpc_pipefs || exit 1
mount -t tmpfs -o mode=0755,size=400m nfs-export "$W/export" || exit 1
chown "$USER_UID:$USER_UID" "$W/export"
# The shortest grace period: locks wait for it to end.
echo 10 >/proc/fs/nfsd/nfsv4gracetime
echo 10 >/proc/fs/nfsd/nfsv4leasetime
ip link set lo up
exportfs -i -o rw,root_squash,fsid=0,no_subtree_check,insecure,sync \
	"127.0.0.1/32:$W/export" || { dz_err "exportfs failed"; exit 1; }
rpc.mountd -N 3 --no-udp || { dz_err "rpc.mountd failed"; exit 1; }
rpc.nfsd -N 3 --no-udp 4 || { dz_err "rpc.nfsd failed"; exit 1; }
timeout 60 mount -t nfs4 -o vers=4.2,retry=0 127.0.0.1:/ "$W/client" ||
	{ dz_err "mount -t nfs4 failed"; exit 1; }
mount -t dazukofs "$W/client" "$W/upper" || { dz_err "mount -t dazukofs over NFS failed"; exit 1; }

start=$(date +%s)
"$BIN/fs-nfs" "$W/export" "$W/client" "$W/upper" "$USER_UID" || rc=1
echo "guest-nfs: fs-nfs took $(( $(date +%s) - start )) s"

# A directory anyone may write to, so that root, squashed to nobody, can
# run the suite in it.
mkdir -m 1777 "$W/export/squashed" || exit 1
run_fsp nfs-root-squash "$W/client/squashed" "$W/upper/squashed"
grep -q '^fs-passthrough: the lower squashes root' "$DAZUKOFS_OUT/fsp-nfs-root-squash.log" ||
	fail "fs-passthrough did not see root squashed"

umount "$W/upper" || fail "umount dazukofs"
umount "$W/client" || fail "umount nfs"

# The whole fs-passthrough suite over NFS: a second export, of a bigger
# tmpfs, with no_root_squash (the suite runs as root and creates devices,
# chowns and the like; root_squash is fs-nfs's part above).  The suite
# holds the mount to what the client mount does itself.
mkdir -p "$W/export-full"
mount -t tmpfs -o mode=1777,size=400m nfs-full "$W/export-full" || exit 1
exportfs -u "127.0.0.1/32:$W/export"
exportfs -i -o rw,no_root_squash,fsid=0,no_subtree_check,insecure,sync \
	"127.0.0.1/32:$W/export-full" || { dz_err "exportfs of the full export failed"; exit 1; }
exportfs -f
if timeout 60 mount -t nfs4 -o vers=4.2,retry=0 127.0.0.1:/ "$W/client" &&
	mount -t dazukofs "$W/client" "$W/upper"; then
	run_fsp nfs "$W/client" "$W/upper"
	umount "$W/upper" || fail "umount dazukofs (full export)"
	umount "$W/client" || fail "umount nfs (full export)"
else
	fail "mount the full export and dazukofs over it"
fi

# An automount point on the lower: the export marked crossmnt, with another
# filesystem mounted (and exported) inside it, which the NFS client mounts
# on first access.  Through dazukofs its lookup is refused with EREMOTE and
# one log line, never followed through a NULL ->d_automount; the rest of
# the mount works, and the client itself crosses into it (the control).
mkdir -p "$W/export-full/sub"
mount -t tmpfs -o size=8m nfs-sub "$W/export-full/sub" || exit 1
echo inside >"$W/export-full/sub/file"
echo beside >"$W/export-full/beside"
exportfs -u "127.0.0.1/32:$W/export-full"
exportfs -i -o rw,no_root_squash,fsid=0,crossmnt,no_subtree_check,insecure,sync \
	"127.0.0.1/32:$W/export-full" || { dz_err "exportfs crossmnt failed"; exit 1; }
exportfs -i -o rw,no_root_squash,fsid=1,no_subtree_check,insecure,sync \
	"127.0.0.1/32:$W/export-full/sub" || { dz_err "exportfs of the submount failed"; exit 1; }
exportfs -f
if timeout 60 mount -t nfs4 -o vers=4.2,retry=0 127.0.0.1:/ "$W/client" &&
	mount -t dazukofs "$W/client" "$W/upper"; then
	dmesg -C
	for try in first again; do
		err=$(LC_ALL=C stat "$W/upper/sub/file" 2>&1 >/dev/null)
		case $err in
		*"Object is remote"*) echo "guest-nfs: PASS: crossmnt submount refused ($try): EREMOTE" ;;
		*) fail "crossmnt submount through dazukofs ($try): '$err', not EREMOTE" ;;
		esac
		# the control, once: the client mounts the submount itself
		[ "$try" = first ] && { [ "$(cat "$W/client/sub/file" 2>&1)" = inside ] ||
			fail "the NFS client does not cross into its submount (control)"; }
	done
	[ "$(dmesg | grep -c 'sub is an automount point on the lower filesystem')" -ge 1 ] ||
		fail "no log line for the refused automount point"
	[ "$(cat "$W/upper/beside" 2>&1)" = beside ] ||
		fail "a file beside the automount point, through dazukofs"
	ls "$W/upper" | grep -qx sub || fail "readdir through dazukofs lost the submount's name"
	umount "$W/upper" || fail "umount dazukofs (crossmnt export)"
	umount -R "$W/client" || fail "umount nfs (crossmnt export)"
else
	fail "mount the crossmnt export and dazukofs over it"
fi
exportfs -u "127.0.0.1/32:$W/export-full/sub"
rpc.nfsd 0
pkill -x rpc.mountd
exportfs -ua 2>/dev/null
rmmod dazukofs || fail "rmmod dazukofs"
[ "$rc" = 0 ] && echo "guest-nfs: PASS" || echo "guest-nfs: FAIL"
exit "$rc"
