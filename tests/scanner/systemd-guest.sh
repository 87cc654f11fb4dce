# SPDX-License-Identifier: GPL-2.0
# Sourced by the guest scripts that hand PID 1 over to systemd with the
# build installed (tests/scanner/guest-systemd.sh, tests/vm/guest/demo.sh).
# Needs bash, tests/scanner/common.sh sourced and DAZUKOFS_* set.

# sd_install: what an admin does, `make install`, i.e. install the build to
# the prefix it was configured with: the files `cmake --install` put in
# BUILD/stage on the host (tests/vm/stage-install), copied to / (the
# overlay root is a tmpfs, so this changes nothing on the host). No
# network is needed. systemd, udev and modules-load read /usr/local/lib
# too, and the unit and the scanner's default config path follow the
# prefix. Sets SD_PREFIX, SD_SCANNER, SD_UNIT, SD_CONF.
sd_install() {
	local f installed_lib lib
	SD_PREFIX=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$DAZUKOFS_BUILD/CMakeCache.txt")
	[[ -n $SD_PREFIX ]] || fail "no CMAKE_INSTALL_PREFIX in $DAZUKOFS_BUILD/CMakeCache.txt"
	# the build's install, staged on the host (tests/vm/stage-install):
	# the same files as cmake --install, without its minute under KASAN
	local stage=$DAZUKOFS_BUILD/stage
	[[ -x $stage$SD_PREFIX/sbin/dazuko-clamscan ]] ||
		fail "no staged install in $stage: run tests/vm/stage-install $DAZUKOFS_BUILD"
	# (the staged files keep the build's mtimes; the manifest is the stage's time)
	for f in scanner/dazuko-clamscan admin/dazukofsctl lib/libdazukofs.so.1; do
		[[ ! $DAZUKOFS_BUILD/$f -nt $DAZUKOFS_BUILD/stage-manifest.txt ]] ||
			fail "the staged install in $stage is older than $f: run tests/vm/stage-install $DAZUKOFS_BUILD"
	done
	cp -dR --preserve=mode,timestamps "$stage/." / >"$DAZUKOFS_OUT/install.log" 2>&1 ||
		{ tail -20 "$DAZUKOFS_OUT/install.log"; fail "installing the staged build"; }
	# no ldconfig (46 s on the KASAN kernel): the programs find the
	# installed libdazukofs through their RUNPATH, checked below
	for f in sbin/dazuko-clamscan sbin/dazukofsctl lib/systemd/system/dazuko-clamscan.service \
		lib/modules-load.d/dazukofs.conf lib/udev/rules.d/60-dazukofs.rules; do
		[[ -f $SD_PREFIX/$f ]] || fail "$SD_PREFIX/$f not installed"
	done
	SD_SCANNER=$SD_PREFIX/sbin/dazuko-clamscan
	SD_UNIT=$SD_PREFIX/lib/systemd/system/dazuko-clamscan.service
	grep -qx "ExecStart=$SD_SCANNER --foreground" "$SD_UNIT" ||
		fail "$SD_UNIT does not start $SD_SCANNER: $(grep ^ExecStart= "$SD_UNIT")"
	installed_lib=$(grep -m1 '/libdazukofs\.so\.1$' "$DAZUKOFS_BUILD/stage-manifest.txt") ||
		fail "libdazukofs.so.1 is not in the install manifest"
	lib=$(ldd "$SD_SCANNER" | sed -n 's/^[[:space:]]*libdazukofs.so.1 => \([^ ]*\) .*/\1/p')
	[[ -n $lib && $(readlink -f "$lib") == "$(readlink -f "$installed_lib")" ]] ||
		fail "dazuko-clamscan does not use the installed $installed_lib: $(ldd "$SD_SCANNER")"
	# the config file the scanner reads by default is where the example went
	SD_CONF=$("$SD_SCANNER" --help | sed -n 's/.*--config FILE .*(default \(.*\))$/\1/p')
	[[ -f $SD_CONF ]] || fail "the scanner's default config '$SD_CONF' was not installed"
}

# sd_index_module: the module is loaded at boot by systemd-modules-load,
# from the installed modules-load.d entry, as on a server. modprobe needs a
# module index that knows it; a full depmod takes minutes under TCG, so
# dz_index_module indexes just dazukofs and configfs (as vm-modprobe-*
# does for the DKMS install). Other modules cannot be modprobed after
# this: load the ones needed before.
sd_index_module() {
	DZ_TAG=${DZ_TAG:-systemd-guest}
	. "$DAZUKOFS_SRC/tests/vm/guest/lib.sh"
	grep -q '^dazukofs ' /proc/modules && fail "dazukofs is loaded before systemd starts"
	dz_index_module || fail "cannot index the module"
}

# sd_database DIR: the test signatures, and nothing else, in DIR. The unit
# has PrivateTmp=yes, so nothing under /tmp (and the build may live there).
sd_database() {
	mkdir -p "$1"
	rm -f "$1"/*
	cp "$DAZUKOFS_SRC/tests/scanner/db/"* "$1/"
}

# sd_quiet_boot: a machine-id (the host's, else a new one); no fstab
# entries of the host; no container marker of the host (systemd would think
# it runs in a container, not in a VM); nothing slow or irrelevant under TCG
# (network, time sync, timers, gettys, pstore, and udev's coldplug, which
# would load every hardware module; udevd itself runs and sees the dazukofs
# devices).
sd_quiet_boot() {
	local u
	[[ -s /etc/machine-id ]] || systemd-machine-id-setup
	echo "# no host mounts: written by tests/scanner/systemd-guest.sh" >/etc/fstab
	rm -f /.dockerenv /run/.containerenv
	for u in timers.target getty.target remote-fs.target \
		systemd-timesyncd.service systemd-pstore.service systemd-networkd.service \
		systemd-resolved.service systemd-hwdb-update.service systemd-udev-trigger.service \
		systemd-journal-catalog-update.service systemd-update-done.service \
		e2scrub_reap.service postgresql.service cron.service; do
		ln -sf /dev/null "/etc/systemd/system/$u"
	done
}

# sd_boot_into NAME SCRIPT DESCRIPTION [TIMEOUT_S]: boot systemd into
# NAME.target, whose NAME.service (a oneshot after basic.target) runs
# "bash SCRIPT" and, whatever its result, "bash SCRIPT --finish", which must
# write the status file and power off. A boot that never gets there is
# powered off by the target's JobTimeoutAction (no status: run-vm fails).
# SCRIPT gets DAZUKOFS_*, DZ_UNIT_FILE, DZ_CONF_DIR and DZ_CHECKS (the
# caller's, or "all") from /etc/NAME.env.
sd_boot_into() {
	local name=$1 script=$2 what=$3 timeout=${4:-400}
	cat >"/etc/$name.env" <<EOF
DAZUKOFS_SRC=$DAZUKOFS_SRC
DAZUKOFS_BUILD=$DAZUKOFS_BUILD
DAZUKOFS_KO=$DAZUKOFS_KO
DAZUKOFS_OUT=$DAZUKOFS_OUT
DAZUKOFS_KREL=$DAZUKOFS_KREL
DZ_UNIT_FILE=$SD_UNIT
DZ_CONF_DIR=${SD_CONF%/*}
DZ_CHECKS=${DZ_CHECKS:-all}
EOF
	cat >"/etc/systemd/system/$name.target" <<EOF
[Unit]
Description=$what
Requires=basic.target $name.service
After=basic.target $name.service
AllowIsolate=yes
# a boot that never gets here: power off (no status file, the run fails)
JobTimeoutSec=$((timeout + 80))
JobTimeoutAction=poweroff-force
EOF
	cat >"/etc/systemd/system/$name.service" <<EOF
[Unit]
Description=$what
After=basic.target

[Service]
Type=oneshot
EnvironmentFile=/etc/$name.env
ExecStart=/bin/bash $script
# always, whatever the result: status file, logs, power off
ExecStopPost=/bin/bash $script --finish
TimeoutStartSec=$timeout
TimeoutStopSec=60
StandardOutput=journal+console
StandardError=inherit
EOF
	echo "$name.target" >/run/dazukofs/exec-systemd
}
