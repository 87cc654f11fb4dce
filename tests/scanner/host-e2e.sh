# SPDX-License-Identifier: GPL-2.0
# Sourced by the scanner's host end-to-end tests (fanotify source, root),
# after common.sh: their work directory and the scanner's stop.

# e2e_workdir NAME TMPFS_OPTIONS: W, a new directory under /var/tmp; M, a
# tmpfs mounted at $W/mnt with TMPFS_OPTIONS; PID, the scanner's (empty
# until one runs). On exit the scanner is killed and both go.
e2e_workdir() {
	[ "$(id -u)" = 0 ] || fail "needs root (fanotify permission events)"
	W=$(mktemp -d "/var/tmp/scanner-$1.XXXXXX")
	M=$W/mnt
	PID=
	trap e2e_cleanup EXIT
	mkdir -p "$M"
	mount -t tmpfs -o "$2" "scanner-$1" "$M" || fail "mount tmpfs"
}

e2e_cleanup() {
	[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null
	umount "$M" 2>/dev/null
	rm -rf "$W"
}

# e2e_stop LOG: SIGTERM to the scanner, whose exit status must be 0 (an
# ASan report fails it); LOG is shown if not.
e2e_stop() {
	kill -TERM "$PID"
	wait "$PID"
	_rc=$?
	PID=
	[ "$_rc" = 0 ] || { cat "$1"; fail "scanner exited with $_rc after SIGTERM"; }
}
