#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dazuko-clamscan --version and --check-config: the version of the VERSION
# file; a good config passes (exit 0, nothing loaded: the database does not
# even exist); a bad one lists every problem with FILE:LINE, the command
# line's too, and exits 1.
# Usage: check-config.sh SCANNER VERSION
set -u
SCANNER=$1
VERSION=$2
. "$(dirname "$0")/common.sh"

W=$(mktemp -d /var/tmp/scanner-check.XXXXXX)
trap 'rm -rf "$W"' EXIT

out=$("$SCANNER" --version) || fail "--version exited non-zero"
[ "$out" = "dazuko-clamscan $VERSION" ] || fail "--version printed '$out'"
pass "--version: $out"

cat > "$W/good.conf" <<CONF
workers = 2
database = /nonexistent/db
source = fanotify
fanotify_mount = /nonexistent/mnt
CONF
out=$("$SCANNER" -c "$W/good.conf" --check-config 2>&1) ||
	fail "a good config failed --check-config: $out"
[ "$out" = "$W/good.conf: OK" ] || fail "good config: '$out'"
pass "a good config passes without loading anything"

# the example config that is installed passes
EX=$(dirname "$0")/../../systemd/examples/clamscan.conf
out=$("$SCANNER" -c "$EX" --check-config 2>&1) || fail "the example config: $out"
pass "the example config passes"

cat > "$W/bad.conf" <<CONF
# a comment
workers = many
no_such_key = 1
timeout_ms = 1000

log_level = loud
just some words
max_scan_time = 5000
CONF
out=$("$SCANNER" -c "$W/bad.conf" --check-config --on-error maybe 2>&1) &&
	fail "a bad config passed --check-config: $out"
echo "$out"
for want in "$W/bad.conf:2: workers: 'many'" "$W/bad.conf:3: unknown key 'no_such_key'" \
	"$W/bad.conf:6: log_level: 'loud'" "$W/bad.conf:7: expected 'key = value'" \
	"command line: on_error: 'maybe'" "max_scan_time 5000 ms is longer than timeout_ms 1000" \
	"6 problem(s)"; do
	printf '%s\n' "$out" | grep -qF -- "$want" || fail "--check-config did not report: $want"
done
pass "every problem reported, with FILE:LINE"

out=$("$SCANNER" -c "$W/missing.conf" --check-config 2>&1) &&
	fail "a missing config passed"
printf '%s\n' "$out" | grep -qF "$W/missing.conf: No such file" || fail "missing config: $out"
pass "a missing config file is a problem"
echo "scanner-check-config: all passed"
