#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make demo`, inside the VM: the main job, on a guest booted with systemd.
#
# Prepares the guest the way an admin would set up a server (`make install`
# of the build, the scanner's config, a dazukofs mount of /srv/data over
# itself in /etc/fstab that requires the scanner), then boots systemd into
# dazukofs-demo.target, whose service runs tests/vm/guest/demo-show.sh:
# one command at a time, the scanner started, a clean file opening, an
# infected (EICAR) file refused, the journal's detection line,
# scan-after-write, the verdict store answering a restarted scanner,
# dazukofsctl status and stats. The demo's signatures are the test database (EICAR and
# the test marker), so that the engine loads in a second.
set -euo pipefail
: "${DAZUKOFS_SRC:?}" "${DAZUKOFS_BUILD:?}" "${DAZUKOFS_KO:?}" "${DAZUKOFS_OUT:?}"
. "$DAZUKOFS_SRC/tests/scanner/common.sh"
. "$DAZUKOFS_SRC/tests/scanner/systemd-guest.sh"
say() { echo "demo: $*"; }

say "installing the build (cmake --install, staged on the host), as make install would"
sd_install
DZ_TAG=demo
sd_index_module
sd_database /var/lib/clamav
cat >"$SD_CONF" <<EOF
# /etc/dazukofs/clamscan.conf of the demo (written by tests/vm/guest/demo.sh)
group = demo
track = yes
timeout_ms = 30000
workers = 2
database = /var/lib/clamav
log_level = info
# scan a file also as soon as its writer closes it, before anyone opens it
events = open close_write
EOF

# the data on a filesystem of its own, as on a server: a tmpfs here (the
# guest's root is an overlay, whose files the verdict store never keys).
# At /srv, not /srv/data: systemd names both mounts of one path
# srv-data.mount, and stopping it would unmount both.
mkdir -p /srv
mount -t tmpfs -o size=16m,mode=0755 demo-srv /srv
mkdir /srv/data
echo "quarterly report: nothing to see here" >/srv/data/report.txt
make_eicar /srv/data/invoice.pdf.exe

sd_quiet_boot
# dazukofs over /srv/data at the same path: the mount requires the scanner,
# so nothing is opened through it unscanned. noauto: the demo mounts it.
echo "/srv/data /srv/data dazukofs noauto,x-systemd.requires=dazuko-clamscan.service 0 0" \
	>>/etc/fstab
sd_boot_into dazukofs-demo "$DAZUKOFS_SRC/tests/vm/guest/demo-show.sh" \
	"DazukoFS demo: dazuko-clamscan keeps an infected file from being opened" 240
say "booting systemd into dazukofs-demo.target"
