#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest script (vm-systemd-*): dazuko-clamscan installed and run by systemd
# as PID 1.  Two phases:
#
# 1. This script, run by tests/vm/stage2 like any guest script, prepares the
#    overlay root the way an admin would: `cmake --install` of the build
#    (staged on the host by tests/vm/stage-install, copied in; to
#    the prefix it was configured with: /usr/local by default), the test
#    signatures in the configured database directory, the scanner's
#    clamscan.conf, the module loaded; it masks what is slow or
#    pointless under TCG, writes the test units and asks stage2 (through
#    /run/dazukofs/exec-systemd) to exec /lib/systemd/systemd booting into
#    dazukofs-test.target.
# 2. dazukofs-test.service (a oneshot after basic.target) runs
#    tests/scanner/systemd-checks.sh: systemctl start/reload/stop of the
#    installed unit, READY, STATUS, the watchdog, detections in the journal,
#    the hardening in force.  Its ExecStopPost (systemd-checks.sh --finish)
#    runs whether the checks passed or not: it writes the status file and
#    the logs to DAZUKOFS_OUT and powers the machine off.  A boot that never
#    gets there is powered off by the target's JobTimeoutAction (no status:
#    run-vm fails the run).
set -euo pipefail
SRC=${DAZUKOFS_SRC:?}
BUILD=${DAZUKOFS_BUILD:?}
KO=${DAZUKOFS_KO:?}
OUT=${DAZUKOFS_OUT:?}
. "$SRC/tests/scanner/common.sh"
step() { echo "guest-systemd: $*"; }

t0=$(now_ms)
step "kernel $(uname -r), systemd $(/lib/systemd/systemd --version | sed -n '1s/^systemd //p')"
[[ -x /lib/systemd/systemd ]] || fail "no /lib/systemd/systemd on the host root"

. "$SRC/tests/scanner/systemd-guest.sh"

step "the build installed (cmake --install, staged in $BUILD/stage)"
sd_install
step "installed: $SD_SCANNER, $SD_UNIT, $SD_CONF"
DZ_TAG=guest-systemd
step "index $KO for modprobe"
sd_index_module

db=/var/lib/clamav
sd_database "$db"
cat >"$SD_CONF" <<EOF
# written by tests/scanner/guest-systemd.sh
group = systemd-test
track = yes
timeout_ms = 60000
workers = 2
database = $db
log_level = info
status_interval_ms = 1000
exclude_unit = dz-backup.scope
EOF

sd_quiet_boot
sd_boot_into dazukofs-test "$SRC/tests/scanner/systemd-checks.sh" \
	"DazukoFS systemd test: dazuko-clamscan under systemd"
step "prepared in $(( $(now_ms) - t0 )) ms; handing over to systemd"
