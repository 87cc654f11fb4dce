#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dazuko-clamscan, source fanotify or dazukofs (root; for dazukofs the
# module must be loaded, as in the VM): ways to get an infected file past
# the scanner, or to hang it, each of which must fail:
# - opening from another mount namespace: root's `unshare -m`, and an
#   unprivileged user's `unshare -Urm` (a fanotify mount mark misses their
#   copies of the mount);
# - the scanner's own opens on the watched filesystem: its database and
#   libclamav's temporary directory there, one worker, an archive whose
#   scan writes temporary files, a reload (nothing may wait on itself);
# - a write through a shared mapping into a page that is dirty already,
#   after the clean file was scanned (no timestamp changes);
# - dazukofs: opens through an overlayfs whose lower layer is the mount.
# Every wait has a deadline; an open that hangs fails the test.
# Usage: bypass.sh fanotify|dazukofs SCANNER DBDIR
set -u
SOURCE=$1
SCANNER=$2
DB_SRC=$3
. "$(dirname "$0")/common.sh"

[ "$(id -u)" = 0 ] || fail "needs root (fanotify permission events, mounts)"
PY=/usr/bin/python3
W=$(mktemp -d /var/tmp/scanner-bypass.XXXXXX)
M=$W/mnt	# what openers open: the tmpfs, or dazukofs over it
L=$W/lower
G=bypass
LOG=$W/scanner.log
PID= MAPPER=
cleanup() {
	[ -n "$MAPPER" ] && kill -9 "$MAPPER" 2>/dev/null
	[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	[ -d "/sys/kernel/config/dazukofs/$G" ] && rmdir "/sys/kernel/config/dazukofs/$G"
	umount "$M" 2>/dev/null
	umount "$L" 2>/dev/null
	rm -rf "$W"
}
trap 'rc=$?; [ $rc = 0 ] || { echo "--- scanner log"; cat "$LOG"; }; cleanup; exit $rc' EXIT
chmod 755 "$W"		# the unprivileged opener must reach the files
mkdir -p "$M" "$L"
case $SOURCE in
fanotify)
	mount -t tmpfs -o size=32m,mode=755 scanner-bypass "$M" || fail "mount tmpfs"
	set -- --source fanotify --fanotify-mount "$M" ;;
dazukofs)
	mount -t tmpfs -o size=32m,mode=755 scanner-bypass "$L" || fail "mount tmpfs"
	mount -t dazukofs "$L" "$M" || fail "mount dazukofs"
	set -- --source dazukofs --group "$G" --timeout-ms 0 ;;
*)
	fail "usage: bypass.sh fanotify|dazukofs SCANNER DBDIR" ;;
esac
echo "bypass: source $SOURCE, kernel $(uname -r)"
mkdir -p "$M/db" "$M/tmp"
cp "$DB_SRC"/* "$M/db/"

# bounded: an open that waits on a hung scanner fails instead of hanging
opens() {
	_err=$(timeout 60 cat "$1" 2>&1 >/dev/null) && return 0
	case $_err in
	*"Operation not permitted"*) return 1 ;;
	*) fail "open $1: unexpected error or hang: $_err" ;;
	esac
}
ns_opens() {	# ns_opens WHO FILE: 0 if it opens, 1 on EPERM
	case $1 in
	root) _err=$(timeout 60 unshare -m cat "$2" 2>&1 >/dev/null) ;;
	user) _err=$(timeout 60 setpriv --reuid=65534 --regid=65534 --clear-groups \
		unshare -Urm cat "$2" 2>&1 >/dev/null) ;;
	esac && return 0
	# cat's own EPERM only: unshare's "Operation not permitted" (no user
	# namespaces here) is no verdict
	case $_err in
	*"cat: $2: Operation not permitted"*) return 1 ;;
	*) fail "$1 in a new mount namespace: open $2: $_err" ;;
	esac
}

echo "clean text" > "$M/clean.txt"
make_eicar "$M/eicar.com"
# an archive: scanning it makes libclamav write temporary files
"$PY" -c 'import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("inner/eicar.com", sys.argv[2])' "$M/eicar.zip" "$EICAR_STR" ||
	fail "making eicar.zip"
printf 'clean: %s\n' "$(echo "$MARKER" | tr -c '\n' .)" > "$M/mapped.txt"
chmod 644 "$M"/*.txt "$M/eicar.com" "$M/eicar.zip"

t0=$(now_ms)
TMPDIR=$M/tmp "$SCANNER" -f -c /dev/null --store no "$@" \
	--database "$M/db" --workers 1 --log-level debug >"$LOG" 2>&1 &
PID=$!
wait_log 120 "$LOG" 'notice: ready:' ||
	fail "not ready with its database on the watched filesystem"
pass "ready in $(( $(now_ms) - t0 )) ms with its database on the watched filesystem"

expect_allowed "$M/clean.txt"
expect_denied "$M/eicar.com"

ns_opens root "$M/eicar.com" && fail "root's unshare -m opened eicar.com"
pass "root in another mount namespace: eicar.com denied"
ns_opens user "$M/eicar.com" && fail "nobody's unshare -Urm opened eicar.com"
pass "an unprivileged user's own mount namespace: eicar.com denied"
ns_opens user "$M/clean.txt" || fail "nobody's unshare -Urm could not open clean.txt"
pass "an unprivileged user's own mount namespace: clean.txt opens"

# dazukofs only: an overlayfs stacked on the mount (its lower layer)
# opens the files through dazukofs: the same verdicts (6.1's overlayfs
# opens them under its own path)
if [ "$SOURCE" = dazukofs ] && modprobe overlay 2>/dev/null; then
	mkdir -p "$W/ovl-rw" "$W/ovl"
	mount -t tmpfs -o size=8m ovl-rw "$W/ovl-rw" && mkdir "$W/ovl-rw/up" "$W/ovl-rw/work" &&
		mount -t overlay -o "lowerdir=$M,upperdir=$W/ovl-rw/up,workdir=$W/ovl-rw/work" \
			bypass-ovl "$W/ovl" || fail "overlayfs over the dazukofs mount"
	expect_allowed "$W/ovl/clean.txt"
	expect_denied "$W/ovl/eicar.com"
	pass "overlayfs over dazukofs: eicar.com denied, clean.txt opens"
	umount "$W/ovl" && umount "$W/ovl-rw" || fail "umount the overlayfs"
fi

expect_denied "$M/eicar.zip"
# the path as the source names it: the lower file's for dazukofs
grep -q "FOUND signature=Dazukofs.Test.EICAR.* path=[^ ]*/eicar.zip" "$LOG" ||
	fail "no FOUND line for eicar.zip"
pass "an archive scanned with the temporary directory on the watched filesystem"

# a reload reads the database on the watched filesystem, one worker busy or not
# (touched: a reload of an unchanged database loads nothing)
touch "$M/db/"*
kill -HUP "$PID"
wait_log 60 "$LOG" 'reloaded: [0-9]* signatures'
expect_denied "$M/eicar.com"
pass "reload with the database on the watched filesystem"

# a shared mapping dirties the page, the file is scanned (clean), then
# the marker is written into the dirty page: no timestamp moves
mkfifo "$W/to-mapper" "$W/from-mapper"
"$PY" -c 'import mmap, sys
f = open(sys.argv[1], "r+b")
m = mmap.mmap(f.fileno(), 0)
f.close()
m[0:1] = b"C"
open(sys.argv[3], "w").write("dirty\n")
open(sys.argv[2]).read()
m[7:7 + len(sys.argv[4])] = sys.argv[4].encode()
open(sys.argv[3], "w").write("infected\n")
open(sys.argv[2]).read()' "$M/mapped.txt" "$W/to-mapper" "$W/from-mapper" "$MARKER" &
MAPPER=$!
[ "$(timeout 60 cat "$W/from-mapper")" = dirty ] || fail "mapper did not start"
expect_allowed "$M/mapped.txt"
expect_allowed "$M/mapped.txt"
echo go > "$W/to-mapper"
[ "$(timeout 60 cat "$W/from-mapper")" = infected ] || fail "mapper did not write"
expect_denied "$M/mapped.txt"
pass "a write into a dirty shared page is not served from the cache"
echo go > "$W/to-mapper"
wait "$MAPPER"
MAPPER=

kill -TERM "$PID"
wait "$PID"
rc=$?
PID=
[ "$rc" = 0 ] || { cat "$LOG"; fail "scanner exited with $rc after SIGTERM"; }
echo "bypass ($SOURCE): all passed in $(( $(now_ms) - t0 )) ms"
