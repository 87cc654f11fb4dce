#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dazuko-clamscan with backend clamd, end to end with source fanotify on
# this host (root), against real clamd processes (Debian's clamav-daemon)
# that the test starts in the foreground with their own config, sockets,
# ports and the test signatures; Debian's clamav-daemon service is not used.
#   local     a local clamd over its UNIX socket with fd passing: clamd runs
#             as nobody and the files are root's 0600, so only a passed fd
#             lets it read them; a clean file opens, EICAR is denied and
#             logged with the server's name.  clamd killed: on_error (deny)
#             decides, counted and logged; restarted: in use again.
#   tcp       two clamd on 127.0.0.1 over TCP (INSTREAM); for each: a clean
#             file opens, EICAR is denied, the server counts the scans, and
#             they all went over one persistent session (IDSESSION).
#   failover  both servers in order; the first is killed (-9) during two
#             runs of opens at once: every verdict is right (none lost to on_error), no
#             open takes longer than the request timeout; restarted, it is
#             used again.  Stopped (SIGSTOP, a slow server): its requests
#             time out and go to the other one, within the timeout.
#   oversize  a file larger than stream_max_length is not sent and not
#             allowed as clean (the limits policy, never cached); with a
#             stream_max_length above clamd's StreamMaxLength, clamd's
#             size-limit reply is an error for on_error, never clean.
#   signatures  clamd loads a new signature on its own (RELOAD, as after
#             freshclam): the scanner notices its new VERSION and drops its
#             cached clean verdicts; a file that was clean (and cached) is
#             now denied.
#   haproxy   two clamd behind HAProxy on 127.0.0.1 (the configuration of
#             Documentation/userspace.md): the scanner uses the one
#             endpoint, both servers take scans; one killed, the verdicts
#             stay right.
#   fanotify  a local clamd (one thread) whose TemporaryDirectory and
#             DatabaseDirectory are on the watched filesystem: archives make
#             it write temporary files there, and its opens must not wait
#             for the scanner that waits for it.  An infected zip and
#             tar.gz are denied, a clean zip opens, each well within 20 s
#             (none hangs); the scanner scanned none of clamd's files
#             (temporary ones, signatures read at a RELOAD); restarted,
#             clamd's new pid is learnt and its opens go unscanned again.
#   localdb   a local .ndb added to the local clamd's DatabaseDirectory,
#             which no VERSION shows: the scanner's watcher flushes a
#             cached clean verdict, asks clamd to RELOAD, and the file is
#             denied once clamd has loaded it; meanwhile no clean answer
#             is remembered.
#   dns       a TCP server whose name the resolver never answers (a
#             nameserver that swallows queries, in a mount namespace of the
#             test's own): the name is looked up at start and by the
#             watcher, never in a scan, so an open is answered (on_error)
#             at once, not after the resolver's timeout.
# Every wait has a deadline.
# Usage: clamd-e2e.sh local|tcp|failover|oversize|haproxy|signatures|localdb|fanotify|dns SCANNER DBDIR
set -u
MODE=$1
SCANNER=$2
DB_SRC=$3
. "$(dirname "$0")/common.sh"

# dns: the whole test in a mount namespace whose /etc/resolv.conf names a
# nameserver that never answers; nothing of it is seen outside.
if [ "$MODE" = dns ] && [ -z "${DNS_NS:-}" ]; then
	exec unshare -m --propagation private env DNS_NS=1 "$0" "$@"
fi

[ "$(id -u)" = 0 ] || fail "needs root (fanotify permission events)"
CLAMD=$(command -v clamd || echo /usr/sbin/clamd)
[ -x "$CLAMD" ] || fail "needs clamd (Debian's clamav-daemon; scripts/setup installs it)"
PY=/usr/bin/python3
W=$(mktemp -d /var/tmp/scanner-clamd.XXXXXX)
chmod 755 "$W"		# clamd runs as nobody in mode local
M=$W/mnt
PID=
CLAMD_PIDS=
cleanup() {
	[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null
	for p in $CLAMD_PIDS; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	umount "$M" 2>/dev/null
	rm -rf "$W"
}
trap 'rc=$?; if [ $rc != 0 ]; then for l in "$W"/*.log "$W"/*/clamd.log; do [ -f "$l" ] && { echo "--- $l"; tail -40 "$l"; }; done; fi; cleanup; exit $rc' EXIT
mkdir -p "$M" "$W/db"
cp "$DB_SRC"/* "$W/db/"
chmod 755 "$W/db"
chmod 644 "$W/db"/*
mount -t tmpfs -o size=32m,mode=755 scanner-clamd "$M" || fail "mount tmpfs"

# free_port: a TCP port on 127.0.0.1 nobody listens on now
free_port() {
	$PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

. "$(dirname "$0")/clamd-lib.sh"

# start_scanner LOG OPTION...: the scanner on $M with backend clamd, ready
start_scanner() {
	_log=$1
	shift
	"$SCANNER" -f -c /dev/null --source fanotify --fanotify-mount "$M" \
		--workers 2 --log-level debug --backend clamd "$@" >"$_log" 2>&1 &
	PID=$!
	wait_log 60 "$_log" 'notice: ready:'
}

stop_scanner() {
	kill -TERM "$PID"
	wait "$PID"
	_rc=$?
	PID=
	[ "$_rc" = 0 ] || { cat "$1"; fail "scanner exited with $_rc after SIGTERM"; }
}

# server_stats LOG SERVER: SERVER's statistics line, after a fresh SIGUSR1
server_stats() {
	_n=$(grep -c "statistics: clamd $2:" "$1")
	kill -USR1 "$PID"
	wait_log 10 "$1" "statistics: clamd $2:" $((_n + 1))
	grep "statistics: clamd $2:" "$1" | tail -1
}

# stat_of LINE NAME: the value of NAME=... in LINE
stat_of() {
	printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# found_by LOG FILE SERVER: a FOUND line for FILE naming SERVER
found_by() {
	wait_log 10 "$1" "FOUND signature=Dazukofs\.Test\.EICAR[^ ]* path=$2 pid=[0-9]* comm=[^ ]* action=denied server=$3\$"
}

echo "clean text" > "$M/clean.txt"
make_eicar "$M/eicar.com"
chmod 600 "$M/clean.txt" "$M/eicar.com"
t0=$(now_ms)

case $MODE in
dns)
	# UDP and TCP on 127.0.0.2:53, read and never answered
	$PY -c '
import socket, time
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.2", 53))
t = socket.socket(); t.bind(("127.0.0.2", 53)); t.listen()
print("listening", flush=True)
time.sleep(600)' >"$W/blackhole.log" 2>&1 &
	CLAMD_PIDS="$CLAMD_PIDS $!"
	wait_log 10 "$W/blackhole.log" listening
	printf 'nameserver 127.0.0.2\noptions timeout:5 attempts:1\n' >"$W/resolv.conf"
	mount --bind "$W/resolv.conf" /etc/resolv.conf || fail "bind-mount resolv.conf"
	_t=$(now_ms)
	getent hosts clamd.dazukofs-test.example >/dev/null && fail "the blackhole resolved a name"
	[ $(( $(now_ms) - _t )) -ge 4000 ] || fail "the resolver did not wait for the blackhole"
	start_scanner "$W/dns.log" --tcp-server clamd.dazukofs-test.example:3310 \
		--clamd-timeout-ms 2000 --clamd-retry-ms 1 --on-error deny
	log_has "$W/dns.log" "resolving clamd.dazukofs-test.example" ||
		{ cat "$W/dns.log"; fail "no warning about the name"; }
	for i in 1 2 3; do
		_t=$(now_ms)
		expect_denied "$M/clean.txt"
		_d=$(( $(now_ms) - _t ))
		# the resolver's timeout is 5 s: a lookup in the scan would
		# show (clamd_retry_ms 1: every scan tries the server again)
		[ "$_d" -lt 4000 ] || fail "open $i took $_d ms: a name lookup in the scan?"
	done
	pass "no name lookup in the scan path: opens answered at once"
	stop_scanner "$W/dns.log"
	;;
local)
	start_clamd c1 - nobody
	SOCK=$W/c1/sock
	# clamd (nobody) cannot open the files: only the passed fd reads them
	setpriv --reuid=65534 --regid=65534 --clear-groups cat "$M/clean.txt" \
		>/dev/null 2>&1 && fail "nobody can read $M/clean.txt: the test proves nothing"
	echo "clean too" > "$M/clean2.txt"	# opened first while clamd is gone
	chmod 600 "$M/clean2.txt"
	LOG=$W/local.log
	start_scanner "$LOG" --local-socket "$SOCK" --on-error deny --clamd-retry-ms 300
	expect_allowed "$M/clean.txt"
	expect_denied "$M/eicar.com"
	found_by "$LOG" "$M/eicar.com" "$SOCK"
	# clamd names a passed fd by its path (/proc/self/fd), a stream "instream(...)"
	log_has "$W/c1/clamd.log" "^$M/eicar.com: Dazukofs.Test.EICAR.* FOUND" ||
		fail "clamd did not scan eicar.com through a passed fd"
	st=$(server_stats "$LOG" "$SOCK")
	[ "$(stat_of "$st" state)" = up ] && [ "$(stat_of "$st" scans)" = 2 ] &&
		[ "$(stat_of "$st" errors)" = 0 ] || fail "server statistics: $st"
	pass "local clamd with fd passing: ${st#*statistics: }"

	# no clamd left: on_error decides, counted and logged
	kill_clamd "$CLAMD_PID"
	expect_denied "$M/clean2.txt"
	wait_log 10 "$LOG" "$M/clean2.txt: scan error: no clamd server answered.*; verdict deny"
	kill -USR1 "$PID"
	wait_log 10 "$LOG" 'statistics: events=.* errors=1 '
	pass "clamd gone: on_error=deny, counted and logged"

	# restarted: used again once its retry time has come
	start_clamd c1 - nobody
	wait_for 30 "the restarted clamd to answer for the scanner" opens "$M/clean2.txt"
	wait_log 10 "$LOG" "clamd $SOCK: answering again; back in use"
	# its engine and clamd.conf may be new: what was clean is scanned again
	wait_log 10 "$LOG" "clamd $SOCK: a new process (pid $CLAMD_PID, was [0-9]*)"
	wait_log 10 "$LOG" 'clamd loaded new signatures: verdict cache cleared'
	expect_denied "$M/eicar.com"
	pass "restarted clamd in use again, the verdicts of the old one flushed"
	stop_scanner "$LOG"
	;;
tcp)
	for c in c1 c2; do
		for i in 1 2 3; do echo "clean $i" > "$M/clean-$c-$i.txt"; done
	done
	for c in c1 c2; do
		port=$(free_port)
		start_clamd "$c" "$port"
		LOG=$W/tcp-$c.log
		start_scanner "$LOG" --tcp-server "127.0.0.1:$port"
		expect_allowed "$M/clean.txt"
		expect_denied "$M/eicar.com"
		found_by "$LOG" "$M/eicar.com" "127.0.0.1:$port"
		# persistent: more scans, still the one session of the start's PING
		for i in 1 2 3; do
			expect_allowed "$M/clean-$c-$i.txt" >/dev/null
		done
		conns=$(ss -Htn state established "( dport = :$port )" | wc -l)
		[ "$conns" = 1 ] || fail "$conns connections to clamd $c after 5 scans, not one session"
		st=$(server_stats "$LOG" "127.0.0.1:$port")
		[ "$(stat_of "$st" state)" = up ] && [ "$(stat_of "$st" scans)" = 5 ] &&
			[ "$(stat_of "$st" idle_sessions)" = 1 ] || fail "server statistics: $st"
		# the file went to this clamd as a stream
		log_has "$W/$c/clamd.log" 'instream(127.0.0.1@[0-9]*): Dazukofs.Test.EICAR.* FOUND' ||
			fail "clamd $c did not log the stream's detection"
		pass "clamd $c on 127.0.0.1:$port: ${st#*statistics: }"
		stop_scanner "$LOG"
	done
	;;
failover)
	P1=$(free_port)
	start_clamd c1 "$P1"
	C1=$CLAMD_PID
	P2=$(free_port)
	start_clamd c2 "$P2"
	S1=127.0.0.1:$P1 S2=127.0.0.1:$P2
	TMO=3000
	LOG=$W/failover.log
	# no verdict cache: every open is a scan
	start_scanner "$LOG" --tcp-server "$S1" --tcp-server "$S2" --cache-size 0 \
		--clamd-timeout-ms $TMO --clamd-retry-ms 300
	# opener N: N clean and N infected opens; one line per open:
	# "ok|BAD FILE MS"
	opener() {
		_i=0
		while [ "$_i" -lt "$1" ]; do
			for _f in clean.txt eicar.com; do
				_t=$(now_ms)
				if timeout 30 cat "$M/$_f" >/dev/null 2>&1; then _r=allowed; else _r=denied; fi
				_ms=$(( $(now_ms) - _t ))
				case $_f$_r in
				clean.txtallowed|eicar.comdenied) echo "ok $_f $_ms" ;;
				*) echo "BAD $_f $_r $_ms" ;;
				esac
			done >> "$W/opens"
			_i=$((_i + 1))
		done
	}
	: > "$W/opens"
	# two at once, so that the kill is likely to catch a scan in flight
	opener 60 &
	OPENER1=$!
	opener 60 &
	OPENER2=$!
	wait_for 60 "80 opens" log_has "$W/opens" '^' 80
	kill_clamd "$C1"
	pass "killed clamd $S1 after $(wc -l < "$W/opens") opens"
	wait_for 120 "the openers to finish" \
		sh -c "! kill -0 $OPENER1 2>/dev/null && ! kill -0 $OPENER2 2>/dev/null"
	wait "$OPENER1" "$OPENER2"
	[ "$(wc -l < "$W/opens")" = 240 ] || fail "$(wc -l < "$W/opens") opens of 240"
	if grep -q '^BAD' "$W/opens"; then
		grep '^BAD' "$W/opens"
		fail "verdicts lost or wrong after clamd $S1 was killed"
	fi
	slowest=$(sort -k3 -n "$W/opens" | tail -1 | cut -d' ' -f3)
	[ "$slowest" -lt $((TMO + 1000)) ] || fail "an open took $slowest ms (request timeout $TMO ms)"
	s2=$(server_stats "$LOG" "$S2")
	[ "$(stat_of "$s2" scans)" -gt 0 ] || fail "clamd $S2 took no scans: $s2"
	s1=$(server_stats "$LOG" "$S1")
	[ "$(stat_of "$s1" state)" = down ] || fail "clamd $S1 not taken out: $s1"
	pass "240 opens, every verdict right, slowest $slowest ms; ${s2#*statistics: }"

	# restarted on its port: back in use (it comes first)
	n1=$(stat_of "$s1" scans)
	start_clamd c1 "$P1"
	C1=$CLAMD_PID
	back_in_use() {
		expect_allowed "$M/clean.txt" >/dev/null
		_s=$(server_stats "$LOG" "$S1")
		[ "$(stat_of "$_s" state)" = up ] && [ "$(stat_of "$_s" scans)" -gt "$n1" ]
	}
	wait_for 30 "clamd $S1 back in use" back_in_use
	wait_log 10 "$LOG" "clamd $S1: answering again; back in use"
	pass "restarted clamd $S1 back in use"

	# a slow server (stopped): its request times out, the next server answers
	kill -STOP "$C1"
	for f in clean.txt eicar.com clean.txt; do
		t=$(now_ms)
		case $f in
		clean.txt) expect_allowed "$M/$f" ;;
		*) expect_denied "$M/$f" ;;
		esac
		ms=$(( $(now_ms) - t ))
		[ "$ms" -lt $((TMO + 1000)) ] || fail "$f took $ms ms with $S1 stopped"
	done
	wait_log 10 "$LOG" "clamd $S1: .*timed out.*; taken out"
	kill -CONT "$C1"
	pass "a stopped clamd times out and is taken out; the other answers"
	stop_scanner "$LOG"
	;;
oversize)
	P1=$(free_port)
	start_clamd c1 "$P1"	# StreamMaxLength 1M
	S1=127.0.0.1:$P1
	head -c 2M /dev/zero > "$M/big.bin"
	head -c 1000000 /dev/zero > "$M/fits.bin"
	LOG=$W/oversize.log
	start_scanner "$LOG" --tcp-server "$S1" --stream-max-length 1M
	expect_allowed "$M/fits.bin"
	expect_denied "$M/big.bin"
	expect_denied "$M/big.bin"
	wait_log 10 "$LOG" "FOUND signature=Heuristics\.Limits\.Exceeded\.StreamMaxLength path=$M/big.bin .*action=denied" 2
	log_has "$LOG" "big.bin: clean" && fail "big.bin was taken for clean"
	kill -USR1 "$PID"
	wait_log 10 "$LOG" 'statistics: events=.* exceeds_max=2 '
	pass "over stream_max_length: the limits policy at every open"
	stop_scanner "$LOG"

	# our limit above clamd's: its size-limit reply is an error, never clean
	LOG=$W/oversize-mismatch.log
	start_scanner "$LOG" --tcp-server "$S1" --stream-max-length 4M --on-error deny
	expect_denied "$M/big.bin"
	wait_log 10 "$LOG" "$M/big.bin: scan error: .*; verdict deny"
	log_has "$LOG" "big.bin: clean" && fail "big.bin was taken for clean"
	kill -USR1 "$PID"
	wait_log 10 "$LOG" 'statistics: events=.* errors=1 '
	pass "clamd's size limit: $(grep 'big.bin: scan error' "$LOG" | head -1 | sed 's/.*scan error: //')"
	stop_scanner "$LOG"

	# past max_scan_size (the servers' MaxScanSize, which clamd does
	# not read past and calls clean): a clean answer, never remembered
	LOG=$W/oversize-scansize.log
	start_scanner "$LOG" --tcp-server "$S1" --max-scan-size 512K
	expect_allowed "$M/fits.bin"
	expect_allowed "$M/fits.bin"
	wait_log 10 "$LOG" "$M/fits.bin: clean, not remembered: larger than max_scan_size" 2
	kill -USR1 "$PID"
	wait_log 10 "$LOG" 'statistics: events=.* scanned=2 .* cache_hits=0 '
	pass "a clean answer past max_scan_size is scanned again at every open"
	stop_scanner "$LOG"
	;;
haproxy)
	HAPROXY=$(command -v haproxy || echo /usr/sbin/haproxy)
	[ -x "$HAPROXY" ] || fail "needs haproxy (scripts/setup installs it)"
	P1=$(free_port)
	start_clamd c1 "$P1"
	C1=$CLAMD_PID
	P2=$(free_port)
	start_clamd c2 "$P2"
	HP=$(free_port)
	# the configuration of Documentation/userspace.md, on test ports
	cat > "$W/haproxy.cfg" <<HAEOF
global
	maxconn 256
defaults
	mode tcp
	timeout connect 2s
	timeout client 130s
	timeout server 130s
	retries 2
	option redispatch
frontend clamd
	bind 127.0.0.1:$HP
	default_backend clamd_servers
backend clamd_servers
	balance leastconn
	option tcp-check
	tcp-check send PING\\n
	tcp-check expect string PONG
	server c1 127.0.0.1:$P1 check inter 500ms fall 2 rise 1
	server c2 127.0.0.1:$P2 check inter 500ms fall 2 rise 1
HAEOF
	"$HAPROXY" -db -f "$W/haproxy.cfg" > "$W/haproxy.log" 2>&1 &
	CLAMD_PIDS="$CLAMD_PIDS $!"
	wait_for 30 "haproxy on 127.0.0.1:$HP" clamd_answers "127.0.0.1:$HP"
	SH=127.0.0.1:$HP
	LOG=$W/haproxy-scanner.log
	start_scanner "$LOG" --tcp-server "$SH" --clamd-timeout-ms 3000 --clamd-retry-ms 300
	expect_allowed "$M/clean.txt"
	expect_denied "$M/eicar.com"
	found_by "$LOG" "$M/eicar.com" "$SH"
	# opens from four processes at once (EICAR is never cached): the two
	# workers' sessions land on both servers
	both_scanned() {
		_pids=
		for _j in 1 2 3 4; do
			( for _k in 1 2 3 4 5; do timeout 30 cat "$M/eicar.com" >/dev/null 2>&1 &&
				echo "BAD eicar.com allowed" >> "$W/opens"; done ) &
			_pids="$_pids $!"
		done
		# shellcheck disable=SC2086 # the openers only, not the servers
		wait $_pids
		log_has "$W/c1/clamd.log" 'instream(127.0.0.1@[0-9]*): Dazukofs.Test.EICAR.* FOUND' &&
			log_has "$W/c2/clamd.log" 'instream(127.0.0.1@[0-9]*): Dazukofs.Test.EICAR.* FOUND'
	}
	: > "$W/opens"
	wait_for 60 "both clamd behind haproxy to take scans" both_scanned
	grep -q BAD "$W/opens" && fail "EICAR allowed through haproxy"
	st=$(server_stats "$LOG" "$SH")
	pass "both servers took scans through the one endpoint: ${st#*statistics: }"

	# one server killed: haproxy's check and redispatch keep the endpoint whole
	kill_clamd "$C1"
	for i in 1 2 3 4 5; do
		expect_denied "$M/eicar.com" >/dev/null
		expect_allowed "$M/clean.txt" >/dev/null
	done
	st=$(server_stats "$LOG" "$SH")
	pass "clamd c1 killed: verdicts right through haproxy: ${st#*statistics: }"
	stop_scanner "$LOG"
	;;
signatures)
	# Signatures with a version, as ClamAV's daily.cvd has (VERSION shows
	# it; loose .ndb files have none): an unsigned daily.cud built by
	# sigtool from the test signatures (and SIGS, extra .ndb lines).
	command -v sigtool >/dev/null || fail "needs sigtool (package clamav)"
	# make_daily VERSION [SIGS]: $W/db holds just daily.cud, version VERSION
	make_daily() {
		_b=$W/daily-$1
		mkdir -p "$_b"
		{ cat "$DB_SRC"/*.ndb; [ -z "${2:-}" ] || printf '%s\n' "$2"; } > "$_b/daily.ndb"
		cat "$DB_SRC"/*.hdb > "$_b/daily.hdb"
		echo "DazukoFS test signatures" > "$_b/COPYING"	# sigtool wants one
		(cd "$_b" && echo dazukofs-test | sigtool --build=daily.cud --unsigned \
			--cvd-version="$1" --max-bad-sigs=10 --datadir="$_b") \
			> "$_b/sigtool.log" 2>&1 || { cat "$_b/sigtool.log"; fail "sigtool --build"; }
		rm -f "$W/db"/*
		cp "$_b/daily.cud" "$W/db/"
	}
	make_daily 100
	start_clamd c1 -
	SOCK=$W/c1/sock
	echo "innocent DAZUKOFS-NEW-SIGNATURE-9d2e here" > "$M/newsig.txt"
	LOG=$W/signatures.log
	start_scanner "$LOG" --local-socket "$SOCK" --database "$W/db"
	wait_log 10 "$LOG" "clamd $SOCK: ClamAV [^ ]*/100/"
	log_has "$LOG" "clamd $SOCK: its DatabaseDirectory $W/db is watched" ||
		fail "the local clamd's DatabaseDirectory is not watched"
	expect_denied "$M/eicar.com"
	expect_allowed "$M/newsig.txt"
	expect_allowed "$M/newsig.txt"
	_n=$(grep -c 'statistics:' "$LOG")
	kill -USR1 "$PID"
	wait_log 10 "$LOG" 'statistics:' $((_n + 1))
	st=$(grep 'statistics: events=' "$LOG" | tail -1)
	[ "$(stat_of "$st" cache_hits)" -ge 1 ] ||
		fail "the clean verdict was not cached, the test proves nothing: $st"
	# SIGHUP (each logrotate rotation sends one) while clamd keeps its
	# signatures: the cached verdict stays, no rescan of everything
	_h=$(stat_of "$st" cache_hits)
	kill -HUP "$PID"
	wait_log 10 "$LOG" 'reload: every clamd server has the same signatures (VERSION); verdicts kept'
	expect_allowed "$M/newsig.txt"
	_n=$(grep -c 'statistics:' "$LOG")
	kill -USR1 "$PID"
	wait_log 10 "$LOG" 'statistics:' $((_n + 1))
	st=$(grep 'statistics: events=' "$LOG" | tail -1)
	[ "$(stat_of "$st" cache_hits)" -gt "$_h" ] ||
		fail "SIGHUP with the same clamd signatures emptied the cache: $st"
	# SIGUSR2 (clamd's reload signal): emptied all the same, for
	# signatures without a version (own .ndb) that VERSION cannot show
	kill -USR2 "$PID"
	wait_log 10 "$LOG" 'reload (SIGUSR2): verdict cache cleared'
	# clamd loads new signatures on its own (as after freshclam's update
	# and its RELOAD): the cached clean verdict must go with them
	make_daily 101 "Dazukofs.Test.New:0:*:$(printf '%s' DAZUKOFS-NEW-SIGNATURE-9d2e | od -An -tx1 | tr -d ' \n')"
	[ "$(clamd_command "$SOCK" RELOAD)" = RELOADING ] || fail "clamd RELOAD"
	wait_log 30 "$LOG" "clamd $SOCK: new signatures ('ClamAV [^ ]*/101/"
	wait_log 10 "$LOG" 'clamd loaded new signatures: verdict cache cleared'
	expect_denied "$M/newsig.txt"
	pass "clamd's new VERSION flushed the cached clean verdict"
	stop_scanner "$LOG"
	;;
localdb)
	# A local signature file added to the local clamd's DatabaseDirectory:
	# no VERSION shows it, and clamd (SelfCheck 0 here) loads it only if
	# asked.  The scanner watches the directory: it flushes, asks clamd to
	# RELOAD and remembers no clean answer while clamd may still load.
	start_clamd c1 -
	SOCK=$W/c1/sock
	LOG=$W/localdb.log
	# a fingerprint taken within a second of a file's change counts as
	# changed at the first look (db_fingerprint.h): start once that is past, so
	# that the only change the watcher sees is the test's
	db_settled() {
		[ $(( $(date +%s) - $(stat -c %Z "$W/db" "$W/db"/* | sort -n | tail -1) )) -ge 2 ]
	}
	wait_for 10 "the copied signatures to be 2 s old" db_settled
	start_scanner "$LOG" --local-socket "$SOCK" --database "$W/db"
	wait_log 10 "$LOG" "clamd $SOCK: its DatabaseDirectory $W/db is watched"
	echo "innocent DAZUKOFS-LOCAL-SIGNATURE-4b1c here" > "$M/localsig.txt"
	wait_for 10 "localsig.txt's ctime 1 s old" ctime_settled "$M/localsig.txt"
	# cache_hits_now: the scanner's cache hits, from a fresh SIGUSR1
	cache_hits_now() {
		_n=$(grep -c 'statistics: events=' "$LOG")
		kill -USR1 "$PID"
		wait_log 10 "$LOG" 'statistics: events=' $((_n + 1)) >/dev/null
		stat_of "$(grep 'statistics: events=' "$LOG" | tail -1)" cache_hits
	}
	expect_allowed "$M/localsig.txt"
	_h=$(cache_hits_now)
	expect_allowed "$M/localsig.txt"
	[ "$(cache_hits_now)" = $((_h + 1)) ] ||
		fail "the second open of localsig.txt was no cache hit: the test proves nothing"
	_r=$(grep -c 'Database correctly reloaded' "$W/c1/clamd.log")
	printf 'Dazukofs.Test.Local:0:*:%s\n' \
		"$(printf '%s' DAZUKOFS-LOCAL-SIGNATURE-4b1c | od -An -tx1 | tr -d ' \n')" > "$W/db/local.ndb"
	wait_log 30 "$LOG" "the local clamd's DatabaseDirectory $W/db changed: RELOAD sent, verdicts flushed"
	wait_log 60 "$W/c1/clamd.log" 'Database correctly reloaded' $((_r + 1))
	expect_denied "$M/localsig.txt"
	pass "a local .ndb added: flushed, clamd told to RELOAD, the file denied"
	# while clamd may still be loading, clean answers are not remembered
	expect_allowed "$M/clean.txt"
	wait_log 10 "$LOG" "$M/clean.txt: clean, not remembered: the local clamd is reloading"
	pass "no clean answer remembered while the local clamd reloads"
	stop_scanner "$LOG"
	;;
fanotify)
	# clamd's own files on the watched filesystem: every open it makes
	# there (its temporary files while it unpacks an archive, its
	# signatures at a RELOAD) is a permission event.  With one clamd
	# thread, an event of clamd's that waited for a scan by that same
	# clamd would wait until the request timed out (30 s here): bounded
	# by 20 s, such an open fails the test rather than hang it.
	CT=$M/clamd-tmp CD=$M/clamd-db
	mkdir -p "$CD"
	cp "$W/db"/* "$CD/"
	mkdir -p "$W/arc"
	make_eicar "$W/arc/eicar.com"
	echo "clean text in an archive" > "$W/arc/clean.txt"
	echo "more clean text, restarted" > "$W/arc/clean2.txt"
	# zip: clamd writes each member to a temporary file and scans that
	for z in eicar clean clean2; do
		(cd "$W/arc" && zip -q "$M/$z.zip" "$z".*) || fail "zip $z"
	done
	tar -C "$W/arc" -czf "$M/eicar.tar.gz" eicar.com || fail "tar"
	# LeaveTemporaryFiles: to see that clamd's temporary files were there
	CLAMD_TMPDIR=$CT CLAMD_DBDIR=$CD CLAMD_THREADS=1 \
		CLAMD_EXTRA_CONF="LeaveTemporaryFiles yes" start_clamd c1 -
	SOCK=$W/c1/sock
	LOG=$W/fanotify.log
	start_scanner "$LOG" --local-socket "$SOCK" --on-error deny \
		--clamd-timeout-ms 30000 --clamd-retry-ms 300
	# open_within SECS FILE: OPENED=allowed or denied (EPERM); fails the
	# test if the open takes SECS or more, or fails otherwise
	open_within() {
		_t=$(now_ms)
		_err=$(timeout -s KILL "$1" cat "$2" 2>&1 >/dev/null)
		_rc=$?
		[ "$_rc" = 137 ] && fail "opening $2 hung: killed after $1 s"
		OPENED=allowed
		if [ "$_rc" != 0 ]; then
			case $_err in
			*"Operation not permitted"*) OPENED=denied ;;
			*) fail "open $2: unexpected error: $_err" ;;
			esac
		fi
		echo "$2: $OPENED in $(( $(now_ms) - _t )) ms"
	}
	open_within 20 "$M/eicar.zip"
	[ "$OPENED" = denied ] || fail "eicar.zip was allowed"
	found_by "$LOG" "$M/eicar.zip" "$SOCK"
	open_within 20 "$M/eicar.tar.gz"
	[ "$OPENED" = denied ] || fail "eicar.tar.gz was allowed"
	found_by "$LOG" "$M/eicar.tar.gz" "$SOCK"
	open_within 20 "$M/clean.zip"
	[ "$OPENED" = allowed ] || fail "clean.zip was denied"
	wait_log 10 "$LOG" "$M/clean.zip: clean"
	# the test proves something only if clamd wrote there
	[ -n "$(find "$CT" -type f | head -1)" ] ||
		fail "clamd left no temporary file in $CT: the test proves nothing"
	log_has "$LOG" "$CT/" && fail "the scanner scanned clamd's temporary files"
	wait_log 10 "$LOG" "clamd $SOCK: pid $CLAMD_PID (its opens are answered at once, unscanned)"
	pass "clamd's temporary files on the watched filesystem: archives scanned, no wait"

	# its signatures on the watched filesystem, read again at a RELOAD
	n=$(grep -c 'Database correctly reloaded' "$W/c1/clamd.log")
	[ "$(clamd_command "$SOCK" RELOAD)" = RELOADING ] || fail "clamd RELOAD"
	wait_log 30 "$W/c1/clamd.log" 'Database correctly reloaded' $((n + 1))
	open_within 20 "$M/eicar.zip"
	[ "$OPENED" = denied ] || fail "eicar.zip was allowed after the reload"
	log_has "$LOG" "$CD/" && fail "the scanner scanned clamd's signatures"
	pass "clamd's signatures on the watched filesystem: reloaded, not scanned"

	# restarted: another pid, learnt when the scanner connects again.
	# Its signatures off the watched filesystem this time: a clamd that
	# starts reads them before it listens, before anyone can learn its
	# pid, so those opens are scanned, by no server yet (on_error).
	OLD=$CLAMD_PID
	kill_clamd "$OLD"
	CLAMD_TMPDIR=$CT CLAMD_THREADS=1 \
		CLAMD_EXTRA_CONF="LeaveTemporaryFiles yes" start_clamd c1 -
	[ "$CLAMD_PID" != "$OLD" ] || fail "the restarted clamd has the old pid"
	# until the scanner uses it again (on_error denies before)
	clean2_allowed() { open_within 20 "$M/clean2.zip" >/dev/null; [ "$OPENED" = allowed ]; }
	wait_for 30 "the restarted clamd to scan clean2.zip" clean2_allowed
	wait_log 10 "$LOG" "clamd $SOCK: pid $CLAMD_PID (its opens are answered at once, unscanned)"
	# denied by clamd's answer, not by on_error: one more FOUND line
	n=$(grep -c "FOUND .*path=$M/eicar.zip " "$LOG")
	open_within 20 "$M/eicar.zip"
	[ "$OPENED" = denied ] || fail "eicar.zip was allowed after the restart"
	wait_log 10 "$LOG" "FOUND .*path=$M/eicar.zip .*server=$SOCK\$" $((n + 1))
	log_has "$LOG" "$CT/" && fail "the scanner scanned clamd's temporary files"
	pass "restarted clamd (pid $OLD, now $CLAMD_PID): its opens answered at once"
	stop_scanner "$LOG"
	;;
*)
	fail "usage: clamd-e2e.sh local|tcp|failover|oversize|haproxy|signatures|fanotify SCANNER DBDIR" ;;

esac
echo "scanner-clamd-$MODE: all passed in $(( $(now_ms) - t0 )) ms"
