#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest script (tests/deb/vm-deb): the Debian packages of BUILD/deb (make deb)
# installed with `apt install ./*.deb` on the guest, run by systemd, purged.
# The guest's root is the host's, read-only over 9p, under a tmpfs overlay:
# everything apt, dpkg and DKMS write stays in the guest (checked first).
#
# 1. Run by tests/vm/stage2 (no systemd yet): the root must be that overlay;
#    none of the packages installed, no DKMS state of dazukofs; then
#    `apt-get install BUILD/deb/*.deb` (the guest has no network: every
#    dependency must be on the host root already). DKMS (dazukofs-dkms's postinst) must have built and
#    installed the module for the guest's kernel, depmod indexed it,
#    `modprobe dazukofs` / `modprobe -r` work; the unit is enabled, not
#    started; the conffile is registered. The test signatures go to
#    /var/lib/clamav (the default config's database); then PID 1 goes to
#    systemd, booting into dazukofs-deb.target.
# 2. dazukofs-deb.service (this script again, under systemd): the module was
#    loaded at boot by systemd-modules-load from the package's
#    modules-load.d entry; udev gave /dev/dazukofs.ign the package's mode;
#    the unit is enabled and inactive; `systemctl start dazuko-clamscan`;
#    on a dazukofs mount a clean file opens and EICAR is denied (EPERM), and
#    the journal has the detection. Then `apt purge` of every package: the
#    prerm stopped the scanner, and nothing the packages or their scripts
#    installed is left (their files, the DKMS tree and module, the unit's
#    enable link, /etc/dazukofs, dpkg's records).
# 3. --finish (ExecStopPost, also on failure): status, journal, power off.
set -euo pipefail
SRC=${DAZUKOFS_SRC:?}
BUILD=${DAZUKOFS_BUILD:?}
OUT=${DAZUKOFS_OUT:?}
KREL=${DAZUKOFS_KREL:?}
. "$SRC/tests/scanner/common.sh"
DEBS=$BUILD/deb
ME=$(readlink -f "$0")
t0=$(now_ms)
step() { echo "guest-deb: $(( ($(now_ms) - t0) / 1000 ))s: $*"; }

if [[ ${1:-} == --finish ]]; then
	set +e
	case ${SERVICE_RESULT:-} in
	success) rc=0 ;;
	*) rc=${EXIT_STATUS:-1}; case $rc in '' | 0 | *[!0-9]*) rc=1 ;; esac ;;
	esac
	echo "guest-deb: result ${SERVICE_RESULT:-?} (${EXIT_CODE:-?} ${EXIT_STATUS:-?}): status $rc"
	journalctl -q --no-pager -u dazukofs-deb.service -o cat >>"$OUT/guest.log" 2>&1
	journalctl -q --no-pager -b -o short-monotonic >"$OUT/journal.txt" 2>&1
	dmesg >"$OUT/dmesg.txt" 2>&1
	echo "$rc" >"$OUT/status"
	sync
	systemctl --force --force poweroff
	echo o >/proc/sysrq-trigger
	exit "$rc"
fi

# the packages, by name (the .deb files' own Package fields)
shopt -s nullglob
debs=("$DEBS"/*.deb)
shopt -u nullglob
((${#debs[@]} >= 5)) || fail "no packages in $DEBS (make deb)"
pkgs=()
for d in "${debs[@]}"; do pkgs+=("$(dpkg-deb -f "$d" Package)"); done
version=$(dpkg-deb -f "$DEBS/dazukofs-dkms_"*_all.deb Version)
U=dazuko-clamscan.service
WANTS=/etc/systemd/system/multi-user.target.wants/$U
state() { dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null || true; }
# what the packages' maintainer scripts (DKMS, deb-systemd-helper, dpkg)
# create besides the packages' files; globs, not find: 9p under TCG is slow
leftovers() {
	local p
	shopt -s nullglob
	for p in /usr/src/dazukofs-* /var/lib/dkms/dazukofs /etc/dazukofs \
		/lib/modules/*/updates/dkms/dazukofs.ko* /etc/systemd/system/*/dazuko* \
		/var/lib/systemd/deb-systemd-helper-enabled/*dazuko* \
		/var/lib/systemd/deb-systemd-helper-enabled/*/*dazuko* \
		/var/lib/dpkg/info/*dazuko* /var/lib/dazukofs; do
		# nullglob drops only the patterns that match nothing: a plain
		# path (/etc/dazukofs) comes out whether it exists or not
		[[ -e $p || -L $p ]] && echo "$p"
	done
	for p in "${pkgs[@]}"; do
		[[ -e /usr/share/doc/$p ]] && echo "/usr/share/doc/$p"
	done
	shopt -u nullglob
}

if [[ -z ${INVOCATION_ID:-} ]]; then
	#### phase 1: under stage2 ####
	step "kernel $KREL; packages: ${pkgs[*]}"
	# all writes must stay in the guest: / is the overlay of tests/vm/init
	# (upper: a tmpfs; lower: the host root, a read-only 9p export)
	read -r fstype opts <<<"$(findmnt -n -o FSTYPE,OPTIONS /)"
	[[ $fstype == overlay && $opts == *upperdir=/rw/upper* ]] ||
		fail "/ is not the guest's tmpfs overlay ($fstype $opts): refusing to install"
	for p in "${pkgs[@]}"; do
		[[ $(state "$p") == ii* ]] && fail "$p is installed on the host root already"
	done
	[[ -e /usr/src/dazukofs-$version || -e /var/lib/dkms/dazukofs ]] &&
		fail "DKMS has dazukofs already (/usr/src/dazukofs-$version, /var/lib/dkms/dazukofs)"
	grep -q '^dazukofs ' /proc/modules && fail "dazukofs is loaded"
	leftovers >"$OUT/files-before.txt"
	for d in "${debs[@]}"; do dpkg-deb --fsys-tarfile "$d" | tar -t; done |
		sed 's|^\./|/|; s|/$||; /^$/d' | sort -u >"$OUT/package-paths.txt"
	while read -r p; do [[ -e $p || -L $p ]] && echo "$p"; done <"$OUT/package-paths.txt" \
		>"$OUT/package-paths-before.txt"

	# stage2's /dev is a bare devtmpfs; dkms's <(...) needs /dev/fd, which
	# a booted system has (systemd makes the link)
	[[ -e /dev/fd ]] || ln -s /proc/self/fd /dev/fd
	# Under TCG: no man-db index update (minutes over 9p); DKMS builds for
	# the running kernel and, when /boot has a newer one, that one too:
	# this guest has one kernel, so no other /boot/config-*.
	rm -f /var/lib/man-db/auto-update
	for f in /boot/config-*; do [[ $f == /boot/config-$KREL ]] || rm -f "$f"; done

	step "apt-get install $DEBS/*.deb (log: apt-install.log)"
	a0=$(now_ms)
	# The guest has no network device: apt cannot download anything (and
	# the log must show no download). Not --no-download: with local .deb
	# files, apt 2.6 then stops with "Internal Error, Pathname to install
	# is not absolute".
	DEBIAN_FRONTEND=noninteractive apt-get install -y \
		-o Dpkg::Use-Pty=0 -o APT::Color=0 "${debs[@]}" >"$OUT/apt-install.log" 2>&1 ||
		{ tail -n 40 "$OUT/apt-install.log"; fail "apt install ./*.deb"; }
	step "installed in $(( ($(now_ms) - a0) / 1000 ))s"
	grep -E 'Building for|Building initial|Done|dkms|depmod' "$OUT/apt-install.log" | sed 's/^/  /' || true
	for p in "${pkgs[@]}"; do
		[[ $(state "$p") == ii* ]] || fail "$p is not installed: $(state "$p")"
	done
	grep -E '^Get:[0-9]+ [a-z]+://' "$OUT/apt-install.log" && fail "apt downloaded something"

	step "DKMS built and installed the module for $KREL"
	st=$(dkms status -m dazukofs -v "$version" -k "$KREL")
	[[ $st == "dazukofs/$version, $KREL, x86_64: installed"* ]] || fail "dkms status: '$st'"
	ko=
	for f in /lib/modules/"$KREL"/updates/dkms/dazukofs.ko{,.xz,.zst,.gz}; do
		[[ -f $f ]] && { ko=$f; break; }
	done
	[[ -n $ko ]] || fail "no /lib/modules/$KREL/updates/dkms/dazukofs.ko*"
	vm=$(modinfo -F vermagic "$ko")
	[[ $vm == "$KREL "* ]] || fail "$ko: vermagic '$vm' is not $KREL's"
	[[ $(modinfo -n dazukofs) == "$ko" ]] || fail "modinfo -n dazukofs: $(modinfo -n dazukofs), expected $ko (depmod)"
	step "$st; $ko"
	step "modprobe dazukofs; modprobe -r dazukofs"
	modprobe dazukofs || fail "modprobe dazukofs"
	[[ -d /sys/fs/dazukofs ]] || fail "no /sys/fs/dazukofs after modprobe"
	modprobe -r dazukofs || fail "modprobe -r dazukofs"
	grep -q '^dazukofs ' /proc/modules && fail "dazukofs still loaded"

	step "the unit: enabled, not started; the conffile"
	[[ -L $WANTS ]] || fail "the postinst did not enable $U (no $WANTS)"
	pgrep -x dazuko-clamscan >/dev/null && fail "a dazuko-clamscan runs after the install"
	dpkg-query -W -f='${Conffiles}\n' dazuko-clamscan | grep -q '^ /etc/dazukofs/clamscan.conf ' ||
		fail "/etc/dazukofs/clamscan.conf is not a conffile: $(dpkg-query -W -f='${Conffiles}' dazuko-clamscan)"
	grep -qx 'database = /var/lib/clamav' /etc/dazukofs/clamscan.conf ||
		fail "the default config's database is not /var/lib/clamav"

	# the test signatures (EICAR), not the host's full ones (too slow here)
	. "$SRC/tests/scanner/systemd-guest.sh"
	sd_database /var/lib/clamav
	sd_quiet_boot
	SD_UNIT=/lib/systemd/system/$U SD_CONF=/etc/dazukofs/clamscan.conf
	# the purge's DKMS remove runs depmod -a again: minutes under TCG
	sd_boot_into dazukofs-deb "$ME" "DazukoFS Debian packages: installed, scanning, purged" 1500
	step "booting systemd into dazukofs-deb.target"
	exit 0
fi

#### phase 2: under systemd ####
step "systemd $(systemctl --version | sed -n '1s/^systemd //p') is PID 1"
[[ $(readlink /proc/1/exe) == */systemd ]] || fail "PID 1 is $(readlink /proc/1/exe)"
grep -q '^dazukofs ' /proc/modules ||
	fail "dazukofs was not loaded at boot (/lib/modules-load.d/dazukofs.conf): $(systemctl status --no-pager systemd-modules-load 2>&1 | tail -5)"
step "dazukofs loaded at boot by systemd-modules-load"
wait_for 20 "/dev/dazukofs.ign" test -c /dev/dazukofs.ign
# the module may be loaded before udevd runs (and the guest has no coldplug)
udevadm trigger --action=add --sysname-match=dazukofs.ign --settle || fail "udevadm trigger"
[[ $(stat -c %a:%U /dev/dazukofs.ign) == 400:root ]] ||
	fail "/dev/dazukofs.ign is $(stat -c %a:%U /dev/dazukofs.ign), not 400:root (60-dazukofs.rules)"
[[ $(systemctl is-enabled $U) == enabled ]] || fail "$U is $(systemctl is-enabled $U), not enabled"
[[ $(systemctl is-active $U || true) == inactive ]] || fail "$U is $(systemctl is-active $U) before it was started"

step "systemctl start $U"
s0=$(now_ms)
systemctl start $U || fail "systemctl start $U: $(journalctl -q --no-pager -u $U -o cat | tail -20)"
step "started (signatures loaded) in $(( $(now_ms) - s0 )) ms"
d=/srv/deb-test
mkdir -p "$d"
echo "nothing to see here" >"$d/clean.txt"
make_eicar "$d/eicar.com"
mount -t dazukofs "$d" "$d" || fail "mount -t dazukofs $d $d"
expect_allowed "$d/clean.txt"
expect_denied "$d/eicar.com"
detected() { journalctl -q --no-pager -u $U -o cat | grep -q 'eicar.com'; }
wait_for 10 "the detection in the journal" detected
step "journal: $(journalctl -q --no-pager -u $U -o cat | grep 'eicar.com' | head -1)"
umount "$d"

# The host root may be a Docker image's, whose /usr/sbin/policy-rc.d (exit
# 101) forbids maintainer scripts to start or stop services: the prerm's
# deb-systemd-invoke stop would be skipped. A server has none.
rm -f /usr/sbin/policy-rc.d
step "apt purge ${pkgs[*]} (log: apt-purge.log)"
p0=$(now_ms)
DEBIAN_FRONTEND=noninteractive apt-get purge -y -o Dpkg::Use-Pty=0 "${pkgs[@]}" \
	>"$OUT/apt-purge.log" 2>&1 || { tail -n 40 "$OUT/apt-purge.log"; fail "apt purge"; }
step "purged in $(( ($(now_ms) - p0) / 1000 ))s"
for p in "${pkgs[@]}"; do
	s=$(state "$p")
	[[ -z $s || $s == un* || $s == pn* ]] || fail "$p is still known to dpkg: '$s'"
done
pgrep -x dazuko-clamscan >/dev/null && fail "dazuko-clamscan still runs after the purge (prerm)"
[[ $(systemctl is-active $U || true) != active ]] || fail "$U still active"
[[ -e $WANTS || -L $WANTS ]] && fail "$WANTS left behind"
rmmod dazukofs || fail "rmmod dazukofs"
# every path the packages held is gone, unless it was there before (shared dirs)
left=$(comm -23 "$OUT/package-paths.txt" "$OUT/package-paths-before.txt" |
	while read -r p; do [[ -e $p || -L $p ]] && echo "$p"; done) || true
[[ -z $left ]] || fail "left after apt purge: $left"
leftovers >"$OUT/files-after.txt"
diff -u "$OUT/files-before.txt" "$OUT/files-after.txt" ||
	fail "apt purge left files behind (+ above: the DKMS tree, the module, /etc/dazukofs...)"
[[ -e /var/lib/dkms/dazukofs || -e /usr/src/dazukofs-$version ]] && fail "DKMS state of dazukofs left"
ls /lib/modules/"$KREL"/updates/dkms/dazukofs.ko* >/dev/null 2>&1 && fail "the DKMS module is left"
step "PASS"
