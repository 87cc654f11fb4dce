#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest script (root, in the VM): a dazukofs mount never grants what its
# lower refuses (tests/fs/fs-restrict.c: lower flags changed behind the
# mount, nosuid/nodev/noexec lowers, automount points). Then the module
# must unload: nothing left mounted or referenced.
set -u
DZ_TAG=guest-restrict
. "${DAZUKOFS_SRC:?}/tests/vm/guest/lib.sh"
BIN=${DAZUKOFS_BUILD:?}/tests/fs/fs-restrict
W=/tmp/fs-restrict

dz_load || exit 1
mkdir -p "$W" && chmod 0755 "$W" || exit 1
rc=0
"$BIN" "$W" || rc=1
if grep -q " dazukofs " /proc/mounts; then
	dz_err "FAIL: dazukofs mounts left behind:"
	grep " dazukofs " /proc/mounts >&2
	rc=1
fi
rmmod dazukofs || { dz_err "FAIL: rmmod dazukofs"; rc=1; }
exit $rc
