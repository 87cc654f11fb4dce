#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The demo itself, run by dazukofs-demo.service under systemd (prepared by
# tests/vm/guest/demo.sh): shows each command and its output on the
# console, and fails if anything does not behave as shown.
# With --finish (the unit's ExecStopPost): status file, power off.
set -u
OUT=${DAZUKOFS_OUT:?}
. "${DAZUKOFS_SRC:?}/tests/scanner/common.sh"

if [ "${1:-}" = --finish ]; then
	rc=1
	[ "${SERVICE_RESULT:-}" = success ] && rc=0
	journalctl -q --no-pager -b -o short-monotonic >"$OUT/journal.txt" 2>&1
	echo "$rc" >"$OUT/status"
	sync
	systemctl --force --force poweroff
	echo o >/proc/sysrq-trigger
	exit "$rc"
fi

# Straight to the console (and a copy in OUT), without the journal's prefixes.
exec > >(tee "$OUT/demo.txt" >/dev/console) 2>&1

show() { printf '\n\033[1m# %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

show "the scanner, a systemd service (Type=notify: started = signatures loaded)"
run systemctl start dazuko-clamscan || fail "systemctl start dazuko-clamscan"
run systemctl --no-pager --lines=0 status dazuko-clamscan

show "dazukofs over /srv/data, at the same path (from /etc/fstab; requires the scanner)"
run grep /srv/data /etc/fstab
run mount /srv/data || fail "mount /srv/data"
run findmnt /srv/data

show "a clean file opens"
run cat /srv/data/report.txt || fail "the clean file did not open"

show "an infected file (the EICAR test file) does not"
printf '$ %s\n' "cat /srv/data/invoice.pdf.exe"
if cat /srv/data/invoice.pdf.exe >/dev/null 2>"$OUT/demo-denied.err"; then
	fail "the infected file opened"
fi
cat "$OUT/demo-denied.err"
grep -q "Operation not permitted" "$OUT/demo-denied.err" || fail "not refused with EPERM"

show "the detection in the journal"
detected() { journalctl -q --no-pager -u dazuko-clamscan -o cat | grep -q 'invoice.pdf.exe'; }
wait_for 10 "the detection in the journal" detected
printf '$ %s\n' "journalctl -u dazuko-clamscan -o cat | grep invoice.pdf.exe"
journalctl -q --no-pager -u dazuko-clamscan -o cat | grep 'invoice.pdf.exe'

show "scan-after-write: a file written through the mount is scanned as its writer closes it"
run grep events "$(dazuko-clamscan --help | sed -n 's/.*--config FILE .*(default \(.*\))$/\1/p')"
printf '$ %s\n' "printf '%s' \"\$EICAR\" > /srv/data/upload.bin   # the upload itself is not refused"
make_eicar /srv/data/upload.bin || fail "writing the upload failed"
caught() { journalctl -q --no-pager -u dazuko-clamscan -o cat | grep -q 'upload.bin'; }
wait_for 10 "the upload's detection at its close" caught
printf '$ %s\n' "journalctl -u dazuko-clamscan -o cat | grep upload.bin   # caught before anyone opened it"
journalctl -q --no-pager -u dazuko-clamscan -o cat | grep 'upload.bin'
printf '$ %s\n' "cat /srv/data/upload.bin   # denied by the kernel's remembered verdict, no rescan"
if cat /srv/data/upload.bin >/dev/null 2>"$OUT/demo-upload.err"; then
	fail "the infected upload opened"
fi
cat "$OUT/demo-upload.err"
grep -q "Operation not permitted" "$OUT/demo-upload.err" || fail "upload not refused with EPERM"

show "the verdict store: restarted, the scanner answers a file it found clean from its store, unscanned"
run systemctl restart dazuko-clamscan || fail "systemctl restart dazuko-clamscan"
# the mount requires the scanner: systemd unmounts it for the restart
# and mounts it again once the scanner is up
remounted() { [ "$(findmnt -n -o FSTYPE /srv/data)" = dazukofs ]; }
wait_for 30 "systemd to mount /srv/data again" remounted
run findmnt /srv/data
run cat /srv/data/report.txt || fail "the clean file did not open after the restart"
store_hit() { dazuko-clamscan status | grep -q ' store_hits=1 '; }
wait_for 10 "a store hit in dazuko-clamscan status" store_hit
printf '$ %s\n' "dazuko-clamscan status | tr ' ' '\\n' | grep -E '^(scanned|store_hits)='"
dazuko-clamscan status | tr ' ' '\n' | grep -E '^(scanned|store_hits)='
dazuko-clamscan status | grep -q ' scanned=0 ' || fail "the restarted scanner scanned report.txt again"
run dazuko-clamscan store stats || fail "dazuko-clamscan store stats"

show "what the kernel sees"
run dazukofsctl status || fail "dazukofsctl status"
run dazukofsctl stats || fail "dazukofsctl stats"
printf '\n\033[1m# demo: done\033[0m\n'
