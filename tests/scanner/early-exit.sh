#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dazuko-clamscan failing early closes none of stdin, stdout, stderr:
# strace makes signalfd fail (the first set-up step that can), the scanner
# must exit 1 with an error, and no close() of fd 0, 1 or 2 may be traced.
# Needs strace (scripts/setup installs it), no root.
# Usage: early-exit.sh SCANNER
set -u
SCANNER=$1
. "$(dirname "$0")/common.sh"

command -v strace >/dev/null || { echo "early-exit SKIPPED: no strace"; exit 77; }
W=$(mktemp -d /var/tmp/scanner-early.XXXXXX)
trap 'rm -rf "$W"' EXIT

strace -f -qq -o "$W/trace" -e trace=signalfd,signalfd4,close \
	-e inject=signalfd,signalfd4:error=EMFILE \
	"$SCANNER" -f -c /dev/null </dev/null >"$W/out" 2>&1
rc=$?
[ "$rc" = 1 ] || { cat "$W/out"; fail "exit status $rc, expected 1"; }
grep -q "error: signals: Too many open files" "$W/out" ||
	{ cat "$W/out"; fail "no 'signals' error message"; }
grep -q 'signalfd.*(INJECTED)' "$W/trace" || fail "the signalfd failure was not injected"
if grep -E '^[0-9]+ +close\([012]\)' "$W/trace"; then
	fail "the scanner closed a standard fd on its way out"
fi
pass "early failure: exit 1, fds 0-2 left alone"
