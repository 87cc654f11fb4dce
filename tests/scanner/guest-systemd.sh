#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest script (vm-systemd-*): dazuko-clamscan installed and run by systemd
# as PID 1.  Two phases:
#
# 1. This script, run by tests/vm/stage2 like any guest script, prepares the
#    overlay root the way an admin would: `cmake --install` of the build (to
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

# What an admin does: `make install`, i.e. install the build to the prefix
# it was configured with (the overlay root is a tmpfs, so this changes
# nothing on the host; the manifest lands in the overlay too). No network is
# needed. systemd, udev and modules-load read /usr/local/lib too, and the
# unit and the scanner's default config path follow the prefix.
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$BUILD/CMakeCache.txt")
[[ -n $prefix ]] || fail "no CMAKE_INSTALL_PREFIX in $BUILD/CMakeCache.txt"
step "cmake --install $BUILD (prefix $prefix)"
cmake --install "$BUILD" >"$OUT/install.log" 2>&1 ||
	{ tail -20 "$OUT/install.log"; fail "cmake --install"; }
ldconfig
for f in sbin/dazuko-clamscan sbin/dazukofsctl lib/systemd/system/dazuko-clamscan.service \
	lib/modules-load.d/dazukofs.conf lib/udev/rules.d/60-dazukofs.rules; do
	[[ -f $prefix/$f ]] || fail "$prefix/$f not installed"
done
scanner=$prefix/sbin/dazuko-clamscan
unit=$prefix/lib/systemd/system/dazuko-clamscan.service
grep -qx "ExecStart=$scanner --foreground" "$unit" ||
	fail "$unit does not start $scanner: $(grep ^ExecStart= "$unit")"
installed_lib=$(grep -m1 '/libdazukofs\.so\.1$' "$BUILD/install_manifest.txt") ||
	fail "libdazukofs.so.1 is not in the install manifest"
lib=$(ldd "$scanner" | sed -n 's/^[[:space:]]*libdazukofs.so.1 => \([^ ]*\) .*/\1/p')
[[ -n $lib && $(readlink -f "$lib") == "$(readlink -f "$installed_lib")" ]] ||
	fail "dazuko-clamscan does not use the installed $installed_lib: $(ldd "$scanner")"
# the config file the scanner reads by default is where the example went
conf=$("$scanner" --help | sed -n 's/.*--config FILE .*(default \(.*\))$/\1/p')
[[ -f $conf ]] || fail "the scanner's default config '$conf' was not installed"
step "installed: $scanner, $unit, $installed_lib, $conf"

# The module is loaded at boot by systemd-modules-load, from the installed
# modules-load.d entry, as on a server. modprobe needs a module index that
# knows it; a full depmod takes minutes under TCG, so dz_index_module
# indexes just dazukofs and configfs (vm-modprobe-* runs the full depmod of
# a DKMS install). Other modules cannot be modprobed after this: the ones
# the test needs are loaded now.
DZ_TAG=guest-systemd
. "$SRC/tests/vm/guest/lib.sh"
grep -q '^dazukofs ' /proc/modules && fail "dazukofs is loaded before systemd starts"
step "index $KO for modprobe"
dz_index_module || fail "cannot index the module"

# The test signatures in the database directory of the config: the unit has
# PrivateTmp=yes, so nothing under /tmp (and the build may live under /tmp).
db=/var/lib/clamav
mkdir -p "$db"
rm -f "$db"/*
cp "$SRC/tests/scanner/db/"* "$db/"
cat >"$conf" <<EOF
# written by tests/scanner/guest-systemd.sh
group = systemd-test
track = yes
timeout_ms = 60000
workers = 2
database = $db
log_level = info
status_interval_ms = 1000
EOF

# systemd: a machine-id (the host's, else a new one); no fstab entries of the
# host; no container marker of the host (systemd would think it runs in a
# container, not in a VM); nothing slow or irrelevant under TCG (network,
# time sync, timers, gettys, pstore, and udev's coldplug, which would load
# every hardware module; udevd itself runs and sees the dazukofs devices).
[[ -s /etc/machine-id ]] || systemd-machine-id-setup
echo "# no mounts: written by tests/scanner/guest-systemd.sh" >/etc/fstab
rm -f /.dockerenv /run/.containerenv
for u in timers.target getty.target remote-fs.target \
	systemd-timesyncd.service systemd-pstore.service systemd-networkd.service \
	systemd-resolved.service systemd-hwdb-update.service systemd-udev-trigger.service \
	systemd-journal-catalog-update.service systemd-update-done.service \
	e2scrub_reap.service postgresql.service cron.service; do
	ln -sf /dev/null "/etc/systemd/system/$u"
done

# The test units. The environment for the checks script.
cat >/etc/dazukofs-test.env <<EOF
DAZUKOFS_SRC=$SRC
DAZUKOFS_BUILD=$BUILD
DAZUKOFS_KO=$KO
DAZUKOFS_OUT=$OUT
DAZUKOFS_KREL=$DAZUKOFS_KREL
DZ_UNIT_FILE=$unit
DZ_CONF_DIR=${conf%/*}
EOF
cat >/etc/systemd/system/dazukofs-test.target <<EOF
[Unit]
Description=DazukoFS systemd test
Requires=basic.target dazukofs-test.service
After=basic.target dazukofs-test.service
AllowIsolate=yes
# a boot that never gets here: power off (no status file, the run fails)
JobTimeoutSec=480
JobTimeoutAction=poweroff-force
EOF
cat >/etc/systemd/system/dazukofs-test.service <<EOF
[Unit]
Description=DazukoFS systemd test: dazuko-clamscan under systemd
After=basic.target

[Service]
Type=oneshot
EnvironmentFile=/etc/dazukofs-test.env
ExecStart=/bin/bash $SRC/tests/scanner/systemd-checks.sh
# always, whatever the result: status file, logs, power off
ExecStopPost=/bin/bash $SRC/tests/scanner/systemd-checks.sh --finish
TimeoutStartSec=400
TimeoutStopSec=60
StandardOutput=journal+console
StandardError=inherit
EOF

echo dazukofs-test.target >/run/dazukofs/exec-systemd
step "prepared in $(( $(now_ms) - t0 )) ms; handing over to systemd"
