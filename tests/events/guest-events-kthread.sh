#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest script (root, in the VM): a kernel thread as the opener.  ksmbd
# (the in-kernel SMB server) exports a dazukofs mount, and the guest's
# own cifs client reads through it, so that the opens reaching dazukofs
# are ksmbd's kernel threads'.  Such an opener cannot be killed:
#   1. a worker sees its events (the pid is a kernel thread) and its deny
#      reaches the SMB client as a refused open (ksmbd reports EPERM as
#      a sharing violation: EBUSY);
#   2. with no worker answering, the group's timeout settles the events by
#      timeout_action: the kernel thread waits timeout_ms, no longer;
#   3. with timeout_ms 0 it waits until answered: killing the client does
#      not end the wait, removing the group does.
# Registered for 6.12 only (tests/events/CMakeLists.txt says why).
set -u
DZ_TAG=guest-kthread
. "$(dirname "$0")/guest-common.sh"

K=/tmp/kthread
SMB=/mnt/kt-smb
G=kt
GC=$DZ_GROUPS/$G
GS=$DZ_SYSFS/groups/$G
rc=0
mkdir -p "$K" "$SMB"

fail() { echo "FAIL: $*"; rc=1; failed=1; }
# pass WHAT: unless this case failed
pass() { [ "$failed" = 1 ] || echo "ok: $*"; failed=0; }
failed=0

cleanup() {
	exec 3>&- 2>/dev/null
	umount "$SMB" 2>/dev/null
	ksmbd.control --shutdown >/dev/null 2>&1
	[ -n "${mountd:-}" ] && kill "$mountd" 2>/dev/null && wait "$mountd" 2>/dev/null
	[ -d "$GC" ] && rmdir "$GC"
}

echo "guest-kthread: kernel $(uname -r)"
for b in ksmbd.mountd ksmbd.adduser ksmbd.control mount.cifs; do
	command -v $b >/dev/null || { echo "guest-kthread: $b missing (scripts/setup: ksmbd-tools, cifs-utils)" >&2; exit 1; }
done
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
modprobe ksmbd || { echo "guest-kthread: modprobe ksmbd failed" >&2; exit 1; }
modprobe cifs || { echo "guest-kthread: modprobe cifs failed" >&2; exit 1; }
ev_setup || exit 1
for f in f1 f2 f3 f4; do echo "data of $f" > "$LOWER/$f"; done

# ksmbd's configuration and users in /tmp: the guest's /etc is the host's
cat > "$K/ksmbd.conf" <<EOF
[global]
	map to guest = never
[dz]
	path = $MNT
	read only = no
	store dos attributes = no
	oplocks = no
EOF
ksmbd.adduser -c "$K/ksmbd.conf" -i "$K/users.db" -a root -p dz-secret >/dev/null ||
	{ echo "guest-kthread: ksmbd.adduser failed" >&2; exit 1; }
ksmbd.mountd -v -n -c "$K/ksmbd.conf" -u "$K/users.db" >"$OUT/ksmbd.log" 2>&1 &
mountd=$!
trap cleanup EXIT
smb_mounted() {
	mount -t cifs //127.0.0.1/dz "$SMB" \
		-o username=root,password=dz-secret,vers=3.1.1,cache=none,noserverino >/dev/null 2>&1
}
dz_wait_for 30 "a cifs mount of ksmbd's share" smb_mounted || { cat "$OUT/ksmbd.log"; exit 1; }

mkdir "$GC" || exit 1
# untracked: events wait with no worker (the 2009 semantics), which parts
# 2 and 3 use to hold ksmbd's threads
echo 0 > "$GC/track"
echo deny > "$GC/timeout_action"
# an event left in a worker's hands when it closes must not hang ksmbd
echo 5000 > "$GC/timeout_ms"
id=$(cat "$GC/id")

# is_kthread PID: PF_KTHREAD (0x00200000) in /proc/PID/stat's flags
is_kthread() {
	_st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	_flags=$(echo "${_st##*) }" | cut -d' ' -f7)
	[ $(( _flags & 0x00200000 )) != 0 ]
}

# read_client FILE TAG: cat FILE from the SMB mount in the background; its
# exit status and stderr go to $OUT/TAG.rc and $OUT/TAG.err
read_client() {
	( cat "$SMB/$1" >/dev/null 2>"$OUT/$2.err" &
	  echo $! >"$OUT/$2.pid"
	  wait $!
	  echo $? >"$OUT/$2.rc" ) &
	dz_wait_for 10 "the client's pid" test -s "$OUT/$2.pid"
}

# 1. a worker answers deny; every event's opener is a kernel thread
exec 3<>"/dev/dazukofs.$id"
read_client f1 c1
events=0 kthreads=0
while [ ! -e "$OUT/c1.rc" ]; do
	rec=$(timeout 5 dd bs=64 count=1 <&3 2>/dev/null) || continue
	[ -n "$rec" ] || continue
	eid=$(echo "$rec" | sed -n 's/^id=//p')
	epid=$(echo "$rec" | sed -n 's/^pid=//p')
	events=$((events + 1))
	is_kthread "$epid" && kthreads=$((kthreads + 1))
	echo "event $eid from pid $epid ($(cat /proc/$epid/comm 2>/dev/null))"
	printf 'id=%s r=1\n' "$eid" >&3
done
exec 3>&-
[ "$events" -ge 1 ] || fail "no event for a read through ksmbd"
[ "$kthreads" = "$events" ] || fail "$kthreads of $events events came from kernel threads"
[ "$(cat "$OUT/c1.rc")" != 0 ] && grep -qE 'Permission denied|Device or resource busy' "$OUT/c1.err" ||
	fail "the SMB client's read was not refused: rc $(cat "$OUT/c1.rc"), $(cat "$OUT/c1.err")"
pass "$events event(s) from ksmbd's kernel threads; the worker's deny refused the client's open ($(cat "$OUT/c1.err"))"

# 2. nobody answers (the group stays armed): timeout_ms settles them
echo 2000 > "$GC/timeout_ms"
t0=$(date +%s)
to0=$(cat "$GS/timeouts")
read_client f2 c2
dz_wait_for 60 "the client's read settled by the timeout" test -e "$OUT/c2.rc" || fail "still waiting"
took=$(( $(date +%s) - t0 ))
[ "$(cat "$GS/timeouts")" -gt "$to0" ] || fail "no timeout counted"
[ "$(cat "$OUT/c2.rc" 2>/dev/null)" != 0 ] || fail "the read passed: timeout_action deny was not applied"
pass "no answer: settled by timeout_ms 2000 and timeout_action deny after ${took}s"

# 3. timeout_ms 0: the kernel thread waits; killing the client does not
# end that wait (it cannot be killed), removing the group does
echo 0 > "$GC/timeout_ms"
w0=$(cat "$GS/waiting")
read_client f3 c3
dz_wait_for 60 "ksmbd's open waiting for the group" dz_value_is "$GS/waiting" $((w0 + 1)) || fail "no waiting open"
kill -9 "$(cat "$OUT/c3.pid")"
dz_wait_for 30 "the killed client reaped" test -e "$OUT/c3.rc" || fail "the client was not reaped"
cat "$GS/waiting" | grep -qx $((w0 + 1)) || fail "the waiting open went away with the client"
rmdir "$GC"
dz_wait_for 30 "nothing waiting once the group is gone" dz_value_is "$DZ_SYSFS/waiting" 0 || fail "still waiting"
cat "$SMB/f4" >/dev/null || fail "ksmbd does not serve the share after the group went"
pass "timeout_ms 0: the kernel thread waited past its client's death, until the group was removed"

cleanup
trap - EXIT
ev_teardown || rc=1
[ $rc = 0 ] && echo "guest-kthread: PASS" || echo "guest-kthread: FAIL"
exit $rc
