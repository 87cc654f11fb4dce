#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dazuko-clamscan --import-clamd-conf: on the clamd.conf that Debian's
# clamav-daemon ships (/etc/clamav/clamd.conf) and on a sample with every
# OnAccess option clamd.conf(5) lists: the mapped settings on stdout, which
# --check-config accepts, and each option not mapped on stderr as
# FILE:LINE: Option: why.
# Usage: import-clamd-conf.sh SCANNER
set -u
SCANNER=$1
. "$(dirname "$0")/common.sh"

W=$(mktemp -d /var/tmp/scanner-import.XXXXXX)
trap 'rm -rf "$W"' EXIT

# has FILE LINE: FILE has LINE exactly (fixed string, whole line)
has() { grep -qxF -- "$2" "$1" || { cat "$1"; fail "$1: no line '$2'"; }; }

DEB=/etc/clamav/clamd.conf
if [ -r "$DEB" ]; then
	"$SCANNER" --import-clamd-conf "$DEB" >"$W/deb.conf" 2>"$W/deb.notes" ||
		fail "import of $DEB failed: $(cat "$W/deb.notes")"
	out=$("$SCANNER" -c "$W/deb.conf" --check-config 2>&1) ||
		{ cat "$W/deb.conf"; fail "the imported config does not pass --check-config: $out"; }
	pass "$DEB: imported, --check-config: $out"
	# what Debian's file sets, as clamd reads it
	ln=$(grep -n '^DatabaseDirectory ' "$DEB" | cut -d: -f1)
	v=$(sed -n "${ln}p" "$DEB" | awk '{print $2}')
	has "$W/deb.conf" "database = $v	# DatabaseDirectory"
	v=$(awk '$1 == "MaxFileSize" {print $2}' "$DEB")
	[ -z "$v" ] || has "$W/deb.conf" "max_file_size = $v	# MaxFileSize"
	v=$(awk '$1 == "LogFile" {print $2}' "$DEB")
	[ -z "$v" ] || has "$W/deb.conf" "log_file = /var/log/dazukofs/${v##*/}	# LogFile"
	ln=$(grep -n '^LocalSocket ' "$DEB" | cut -d: -f1)
	[ -z "$ln" ] || grep -q "^$DEB:$ln: LocalSocket: not mapped: .*backend = clamd, local_socket" "$W/deb.notes" ||
		fail "LocalSocket not explained: $(cat "$W/deb.notes")"
	# every option line is either mapped (stdout) or explained (stderr)
	opts=$(grep -c '^[A-Za-z]' "$DEB")
	mapped=$(grep -c '^[a-z_]* = .*	# [A-Za-z]*$' "$W/deb.conf")
	noted=$(grep -c "^$DEB:[0-9]*: " "$W/deb.notes")
	[ "$(( mapped + noted ))" -ge "$opts" ] ||
		fail "$opts options, $mapped mapped and $noted noted"
	pass "$DEB: $opts options, $mapped lines out, $noted not mapped, each with FILE:LINE"
else
	echo "note: $DEB is absent (clamav-daemon not installed?); Debian's file not tested"
fi

cat > "$W/onaccess.conf" <<CONF
# every OnAccess option of clamd.conf(5)
OnAccessMountPath $W
OnAccessMountPath /second
OnAccessIncludePath /srv
OnAccessExcludePath /srv/cache
OnAccessExcludeRootUID yes
OnAccessExcludeUID 998
OnAccessExcludeUname nobody
OnAccessMaxFileSize 5M
OnAccessMaxThreads 5
OnAccessCurlTimeout 5000
OnAccessDisableDDD yes
OnAccessPrevention yes
OnAccessExtraScanning yes
OnAccessRetryAttempts 2
OnAccessDenyOnError yes
OnAccessExcludeUname no-such-user-7c1e
MaxScanTime 60000
VirusEvent /usr/local/bin/notify %v %f
LogFile /var/log/clamav/clamav.log
LogSyslog yes
LogFacility LOG_MAIL
LogClean yes
LogTime yes
LogFileMaxSize 2M
LogRotate yes
LogFileUnlock no
CONF
"$SCANNER" --import-clamd-conf "$W/onaccess.conf" >"$W/oa.conf" 2>"$W/oa.notes" ||
	fail "import failed: $(cat "$W/oa.notes")"
cat "$W/oa.conf" "$W/oa.notes"
for l in "fanotify_mount = $W	# OnAccessMountPath" "source = fanotify	# OnAccessMountPath" \
	"include = /srv	# OnAccessIncludePath" "exclude = /srv/cache	# OnAccessExcludePath" \
	"exclude_root = yes	# OnAccessExcludeRootUID" "exclude_uid = 998	# OnAccessExcludeUID" \
	"exclude_user = nobody	# OnAccessExcludeUname" "max_file_size = 5M	# OnAccessMaxFileSize" \
	"workers = 5	# OnAccessMaxThreads" "prevention = yes	# OnAccessPrevention" \
	"on_error = deny	# OnAccessDenyOnError" "max_scan_time = 60000	# MaxScanTime" \
	"log_file = /var/log/dazukofs/clamav.log	# LogFile" "log_facility = LOG_MAIL	# LogFacility" \
	"log_clean = yes	# LogClean"; do
	has "$W/oa.conf" "$l"
done
N=$W/onaccess.conf
for l in "$N:3: OnAccessMountPath: not mapped: one fanotify_mount" \
	"$N:11: OnAccessCurlTimeout: not mapped" "$N:12: OnAccessDisableDDD: not mapped" \
	"$N:14: OnAccessExtraScanning: not mapped" "$N:15: OnAccessRetryAttempts: not mapped" \
	"$N:17: OnAccessExcludeUname: not mapped: exclude_user: 'no-such-user-7c1e': no such user" \
	"$N:19: VirusEvent: not mapped: a shell command line" \
	"$N:21: LogSyslog: not mapped: one log target per scanner; log_file (LogFile) kept" \
	"$N:24: LogTime: not mapped" "$N:25: LogFileMaxSize: not mapped: the scanner does not rotate" \
	"$N:26: LogRotate: not mapped: the scanner does not rotate" "$N:27: LogFileUnlock: not mapped"; do
	grep -qF -- "$l" "$W/oa.notes" || fail "not noted: $l"
done
out=$("$SCANNER" -c "$W/oa.conf" --check-config 2>&1) ||
	fail "the imported sample does not pass --check-config: $out"
pass "every OnAccess and logging option mapped or explained; the result passes --check-config"

# syslog alone: the target; a facility clamd would refuse is not mapped;
# a LogFile in the unit's LogsDirectory stays where it is
printf 'LogSyslog yes\nLogFacility LOG_LOCAL9\nLogFacility LOG_LOCAL2\n' > "$W/syslog.conf"
"$SCANNER" --import-clamd-conf "$W/syslog.conf" >"$W/sl.conf" 2>"$W/sl.notes" ||
	fail "import failed: $(cat "$W/sl.notes")"
has "$W/sl.conf" "log_target = syslog	# LogSyslog"
has "$W/sl.conf" "log_facility = LOG_LOCAL2	# LogFacility"
grep -qF "$W/syslog.conf:2: LogFacility: not mapped: log_facility: 'LOG_LOCAL9' is not auth," "$W/sl.notes" ||
	fail "LOG_LOCAL9: $(cat "$W/sl.notes")"
out=$("$SCANNER" -c "$W/sl.conf" --check-config 2>&1) || fail "syslog sample: $out"
printf 'LogFile /var/log/dazukofs/own.log\nLogSyslog no\n' > "$W/file.conf"
"$SCANNER" --import-clamd-conf "$W/file.conf" >"$W/fl.conf" 2>"$W/fl.notes" || fail "import failed"
has "$W/fl.conf" "log_file = /var/log/dazukofs/own.log	# LogFile"
grep -qF "$W/file.conf:2: LogSyslog: not mapped: no is the default" "$W/fl.notes" || fail "LogSyslog no: $(cat "$W/fl.notes")"
pass "LogSyslog, LogFacility, LogFile: one target, bad facilities explained"

# a LogFile that names a directory or is too long: noted, never a mangled path
long=/var/log/$(printf '%04100d' 0)/clamav.log
printf 'LogFile /var/log/clamav/\nLogFile %s\nLogSyslog yes\n' "$long" > "$W/badlog.conf"
"$SCANNER" --import-clamd-conf "$W/badlog.conf" >"$W/bl.conf" 2>"$W/bl.notes" ||
	fail "import failed: $(cat "$W/bl.notes")"
grep -qF "$W/badlog.conf:1: LogFile: not mapped: '/var/log/clamav/' names a directory, not a file" "$W/bl.notes" ||
	fail "LogFile ending in /: $(cat "$W/bl.notes")"
grep -qF "$W/badlog.conf:2: LogFile: not mapped: the path is longer than PATH_MAX (${#long} bytes)" "$W/bl.notes" ||
	fail "LogFile longer than PATH_MAX: $(cat "$W/bl.notes")"
! grep -q '^log_file' "$W/bl.conf" || fail "a log_file from a bad LogFile: $(cat "$W/bl.conf")"
has "$W/bl.conf" "log_target = syslog	# LogSyslog"
out=$("$SCANNER" -c "$W/bl.conf" --check-config 2>&1) || fail "bad LogFile sample: $out"
pass "a LogFile ending in / or longer than PATH_MAX: not mapped, said so"

"$SCANNER" --import-clamd-conf "$W/missing.conf" >/dev/null 2>"$W/err" && fail "a missing file imported"
grep -q "missing.conf: No such file" "$W/err" || fail "missing file: $(cat "$W/err")"
echo "scanner-import-clamd-conf: all passed"
