#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The control socket end to end, with source=fanotify on this host (root):
# a control_socket in a directory others may write is refused; status and
# status --json show the counts, the last detection and the hot event
# source (a process that opened 40 files); reload answers when done: 0
# with a good database, 1 and the scanner's error with a broken one (which
# keeps scanning with the old signatures); malformed, unknown, oversized
# and silent requests get an error and the scanner keeps serving; nobody
# cannot connect, and is refused by SO_PEERCRED when the socket's mode
# would let it; a second scanner on the same socket refuses to start; a
# stale socket (kill -9) is replaced; a garbage answer is a protocol error;
# a worker is shown scanning (file, opener) while a fake clamd holds the scan.
# Usage: control-e2e.sh SCANNER DBDIR
set -u
SCANNER=$1
DB_SRC=$2
PY=/usr/bin/python3
. "$(dirname "$0")/common.sh"

. "$(dirname "$0")/host-e2e.sh"

e2e_workdir ctl size=16m,mode=0755
LOG=$W/scanner.log
mkdir -p "$W/db" "$M/many"
cp "$DB_SRC"/* "$W/db/"
mkdir -m 0700 "$W/ctl"
SOCK=$W/ctl/clamscan.sock
echo "clean text" > "$M/clean.txt"
echo "clean too" > "$M/clean2.txt"
echo "held" > "$M/held.txt"
make_eicar "$M/eicar.com"
echo "innocent DAZUKOFS-NEW-SIGNATURE-9d2e here" > "$M/newsig.txt"
for i in $(seq 1 40); do echo "file $i" > "$M/many/$i"; done
chmod -R a+rX "$M"

ctl() { "$SCANNER" "$@" --socket "$SOCK"; }
# json EXPR: EXPR over status --json (as d), printed by python
json() {
	ctl status --json > "$W/status.json" || fail "status --json exited $?"
	"$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$W/status.json"
}
json_true() { [ "$(json "$1")" = True ]; }
# request BYTES: the raw answer to BYTES (escapes: \n, \x01), sent and
# the connection shut for writing; none (''): a client that says nothing
request() {
	"$PY" - "$SOCK" "$1" <<'EOF'
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
if sys.argv[2]:
    s.sendall(sys.argv[2].encode('latin-1').decode('unicode_escape').encode('latin-1'))
    s.shutdown(socket.SHUT_WR)
data = b''
while True:
    b = s.recv(65536)
    if not b:
        break
    data += b
print(data.decode(errors='replace'), end='')
EOF
}
start() {
	: >"$LOG"
	"$SCANNER" -f -c /dev/null --store no --source fanotify --fanotify-mount "$M" \
		--database "$W/db" --workers 2 --log-level debug "$@" >"$LOG" 2>&1 &
	PID=$!
	wait_log 60 "$LOG" 'notice: ready:'
}

# A directory others may write: refused before anything starts.
mkdir -m 0777 "$W/open"
timeout 60 "$SCANNER" -f -c /dev/null --store no --source fanotify --fanotify-mount "$M" \
	--database "$W/db" --control-socket "$W/open/s.sock" >"$W/open.log" 2>&1 &&
	fail "the scanner started with its socket in a world-writable directory"
grep -q "control_socket $W/open/s.sock: directory $W/open is owned by uid 0 with mode 0777; .*writable by nobody else" "$W/open.log" ||
	{ cat "$W/open.log"; fail "no clear message for the open directory"; }
[ -e "$W/open/s.sock" ] && fail "a socket was left in the open directory"
pass "a control_socket directory others may write is refused"

start --control-socket "$SOCK"
[ "$(stat -c %a "$SOCK")" = 600 ] || fail "socket mode $(stat -c %a "$SOCK"), not 600"
ctl status > "$W/status.txt" || fail "status exited $?"
grep -q "^workers:" "$W/status.txt" || { cat "$W/status.txt"; fail "status has no workers"; }
pass "the socket is 0600; status answers"

# counts and the last detection
expect_allowed "$M/clean.txt"
expect_denied "$M/eicar.com"
json_true "d['ok'] and d['counters']['infected'] == 1 and d['counters']['denied'] == 1 and d['counters']['events'] >= 2 and d['counters']['scanned'] >= 2 and d['detections_total'] == 1" ||
	{ cat "$W/status.json"; fail "status --json: wrong counts"; }
json_true "d['detections'][0]['path'] == '$M/eicar.com' and d['detections'][0]['signature'].startswith('Dazukofs.Test.EICAR') and d['detections'][0]['comm'] == 'cat' and d['detections'][0]['action'] == 'denied' and d['detections'][0]['pid'] > 0 and d['detections'][0]['time'].endswith('Z')" ||
	{ cat "$W/status.json"; fail "status --json: no detection of eicar.com"; }
json_true "d['signatures']['count'] == 2 and d['signatures']['database'] == '$W/db' and d['signatures']['loaded'] is not None and len(d['workers']) == 2 and d['pid'] == $PID" ||
	{ cat "$W/status.json"; fail "status --json: signatures, workers or pid wrong"; }
ctl status > "$W/status.txt"
grep -q "Dazukofs.Test.EICAR.* $M/eicar.com pid [0-9]* (cat) denied" "$W/status.txt" ||
	{ cat "$W/status.txt"; fail "status: no detection line"; }
grep -q "counters: events=[0-9]* scanned=[0-9]* infected=1 denied=1" "$W/status.txt" ||
	{ cat "$W/status.txt"; fail "status: no counters"; }
pass "status and status --json: counts, the detection (path, signature, comm, action)"

# a name with an ESC and a byte that is not UTF-8: status --json carries it
# escaped as the log does (valid UTF-8, no control), status prints that
BAD="$M/bad$(printf '\033\233')name.com"
make_eicar "$BAD"
expect_denied "$BAD"
ctl status --json > "$W/status.json" || fail "status --json exited $?"
"$PY" - "$W/status.json" <<'PYEOF' || { cat -v "$W/status.json"; fail "status --json: the odd name not escaped"; }
import json, sys
d = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
sys.exit(0 if d["detections"][0]["path"].endswith(r"/bad\x1b\x9bname.com") else 1)
PYEOF
ctl status > "$W/status.txt"
grep -qF 'bad\x1b\x9bname.com' "$W/status.txt" || { cat -v "$W/status.txt"; fail "status: the odd name"; }
LC_ALL=C grep -q "$(printf '\033')" "$W/status.txt" && fail "status printed a raw ESC"
pass "status: a name with control and non-UTF-8 bytes comes escaped, once"

# the hot event source: one process opening 40 files, alive while asked
mkfifo "$W/hold"
sh -c 'for f in "$1"/*; do : < "$f"; done; read x < "$2"' sh "$M/many" "$W/hold" &
HOT=$!
hot_seen() { json_true "d['hot_sources'][0]['pid'] == $HOT and d['hot_sources'][0]['events'] >= 40 and d['hot_sources'][0]['comm'] == 'sh'"; }
wait_for 30 "pid $HOT first in hot_sources" hot_seen
ctl status | grep -q "pid $HOT *sh *4[0-9] events" || fail "status: no hot source line"
echo > "$W/hold"
wait "$HOT"
pass "hot_sources: the process that opened 40 files comes first"

# reload: waits, then 0 with a good database...
printf 'Dazukofs.Test.New:0:*:%s\n' \
	"$(printf '%s' DAZUKOFS-NEW-SIGNATURE-9d2e | od -An -tx1 | tr -d ' \n')" > "$W/db/new.ndb"
out=$(ctl reload) || fail "reload exited $? with a good database: $out"
case $out in
"reloaded: 3 signatures from $W/db") ;;
*) fail "reload printed: $out" ;;
esac
# no wait: the reload was done when the command returned
expect_denied "$M/newsig.txt"
json_true "d['signatures']['count'] == 3 and d['counters']['reloads'] == 1" || fail "status after the reload"
pass "reload: done when it returns, the new signature in force"
# ... 1 and the scanner's error with a broken one, which keeps the old
echo "this is not a signature" > "$W/db/broken.ndb"
ctl reload >"$W/out" 2>"$W/err" && fail "reload of a broken database exited 0"
rc=$?
[ "$rc" = 1 ] || fail "reload of a broken database exited $rc, not 1"
grep -q "reload: reload failed, keeping the old signatures: .*$W/db" "$W/err" ||
	{ cat "$W/err"; fail "no error message from the failed reload"; }
expect_denied "$M/eicar.com"
expect_allowed "$M/clean2.txt"
json_true "d['counters']['reload_failures'] == 1 and d['signatures']['count'] == 3" || fail "status after the failed reload"
rm "$W/db/broken.ndb"
pass "reload of a broken database: exit 1 with the error, still scanning"

# as ExecReload= (MAINPID set) with no socket to ask: SIGHUP instead, exit
# 0; without MAINPID: exit 3
n=$(grep -c 'reloading signatures from\|did not change; engine and verdicts kept' "$LOG")
out=$(MAINPID=$PID "$SCANNER" reload --socket "$W/none.sock" 2>&1) ||
	fail "reload without a socket, MAINPID set, exited $?: $out"
case $out in *"sent SIGHUP to MAINPID $PID"*) ;; *) fail "reload without a socket: $out" ;; esac
wait_log 30 "$LOG" 'reloading signatures from\|did not change; engine and verdicts kept' $((n + 1))
"$SCANNER" reload --socket "$W/none.sock" 2>/dev/null
rc=$?
[ "$rc" = 3 ] || fail "reload without a socket or MAINPID exited $rc, not 3"
pass "reload with no socket: SIGHUP to MAINPID as ExecReload=, else exit 3"

# bad requests: an error each, and the scanner keeps serving
a=$(request 'bogus\n')
case $a in *'"ok":false'*"unknown command 'bogus'"*) ;; *) fail "unknown command: $a" ;; esac
a=$(request "$(printf '%0100d' 0)")
case $a in *'"ok":false'*"request longer than 64 bytes"*) ;; *) fail "oversized: $a" ;; esac
a=$(request 'st\x01tus\n')
case $a in *'"ok":false'*"malformed request"*) ;; *) fail "malformed: $a" ;; esac
a=$(request 'status\nreload\n')
case $a in *'"ok":false'*"one request per connection"*) ;; *) fail "two requests: $a" ;; esac
a=$(request 'status')
case $a in *'"ok":false'*"without a newline"*) ;; *) fail "no newline: $a" ;; esac
pass "unknown, oversized, malformed, doubled and unterminated requests: errors"
# a client that says nothing: answered by a timeout; others still served
t=$(now_ms)
request '' > "$W/silent" &
SILENT=$!
ctl status > /dev/null || fail "status while a client is silent exited $?"
wait "$SILENT"
grep -q '"ok":false.*no complete request within 2000 ms' "$W/silent" ||
	{ cat "$W/silent"; fail "the silent client got no timeout error"; }
[ $(( $(now_ms) - t )) -lt 10000 ] || fail "a silent client held the socket for 10 s"
log_has "$LOG" "control socket: pid [0-9]*: no complete request" || fail "the silent client was not logged"
ctl status > /dev/null || fail "status after the bad requests exited $?"
expect_denied "$M/eicar.com"
pass "a silent client times out; status is served meanwhile and after"

# nobody: cannot connect (0700 directory, 0600 socket) ...
setpriv --reuid nobody --regid nogroup --clear-groups "$SCANNER" status --socket "$SOCK" 2>"$W/err"
rc=$?
[ "$rc" = 3 ] || { cat "$W/err"; fail "nobody's status exited $rc, not 3 (cannot connect)"; }
grep -q "cannot connect to $SOCK: Permission denied" "$W/err" || { cat "$W/err"; fail "nobody: $(cat "$W/err")"; }
# ... and refused by SO_PEERCRED were the modes to let it in
chmod 0755 "$W" "$W/ctl"
chmod 0666 "$SOCK"
setpriv --reuid nobody --regid nogroup --clear-groups "$SCANNER" status --socket "$SOCK" 2>"$W/err"
rc=$?
chmod 0600 "$SOCK"
chmod 0700 "$W/ctl"
[ "$rc" = 1 ] || { cat "$W/err"; fail "nobody's status through an open socket exited $rc, not 1"; }
grep -q "permission denied: uid 65534 may not use the control socket (root only)" "$W/err" ||
	{ cat "$W/err"; fail "nobody was not told why"; }
log_has "$LOG" "control socket: uid 65534 (pid [0-9]*) refused: root only" || fail "nobody's refusal not logged"
ctl status > /dev/null || fail "status after nobody exited $?"
pass "nobody cannot connect, and is refused by SO_PEERCRED"

# a second scanner on the same socket refuses to start; the first serves on
timeout 60 "$SCANNER" -f -c /dev/null --store no --source fanotify --fanotify-mount "$M" \
	--database "$W/db" --control-socket "$SOCK" >"$W/second.log" 2>&1 &&
	fail "a second scanner started on the same control socket"
grep -q "control_socket $SOCK: another scanner is running and answers on it" "$W/second.log" ||
	{ cat "$W/second.log"; fail "the second scanner did not say why"; }
json_true "d['pid'] == $PID" || fail "the first scanner no longer answers"
pass "a second scanner on the same socket refuses to start"

# a stale socket (the scanner killed) is replaced
kill -9 "$PID"
wait "$PID" 2>/dev/null
PID=
[ -S "$SOCK" ] || fail "no stale socket after kill -9"
start --control-socket "$SOCK"
log_has "$LOG" "control socket $SOCK: replaced a stale socket" || fail "stale socket not replaced"
json_true "d['pid'] == $PID" || fail "the new scanner does not answer"
pass "a stale socket is replaced"

# the exit codes of the client: not running 3, a garbage answer 4
e2e_stop "$LOG"
[ -e "$SOCK" ] && fail "the socket was left after SIGTERM"
ctl status 2>"$W/err"
rc=$?
[ "$rc" = 3 ] || fail "status with no scanner exited $rc, not 3"
grep -q "cannot connect to $SOCK" "$W/err" || fail "no message naming the socket: $(cat "$W/err")"
"$PY" - "$SOCK" <<'EOF' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); s.listen(1)
c, _ = s.accept(); c.recv(100); c.sendall(b'garbage\n'); c.close()
EOF
FAKE=$!
wait_for 10 "the fake server's socket" test -S "$SOCK"
ctl status 2>"$W/err"
rc=$?
wait "$FAKE"
[ "$rc" = 4 ] || fail "a garbage answer gave exit $rc, not 4"
pass "exit 3 when not running, 4 on a garbage answer"

# a worker shown scanning while its scan is held: backend clamd, a fake
# clamd (PING and VERSION answered, scans never, until it is killed)
cat > "$W/fake-clamd.py" <<'EOF'
import socket, sys, threading
path = sys.argv[1]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path); s.listen(8)
held = []
def serve(c):
    buf = b''; session = False; n = 0
    while True:
        try:
            msg, anc, flags, addr = c.recvmsg(4096, socket.CMSG_SPACE(16))
        except OSError:
            return
        if not msg:
            return
        buf += msg
        while b'\0' in buf:
            cmd, buf = buf.split(b'\0', 1)
            if cmd == b'zIDSESSION':
                session = True; continue
            if cmd == b'zEND':
                continue
            n += 1
            pre = ('%d: ' % n).encode() if session else b''
            if cmd == b'zPING':
                c.sendall(pre + b'PONG\0')
            elif cmd == b'zVERSION':
                c.sendall(pre + b'ClamAV 1.0.0/27000/Thu Dec  3 00:00:00 2026\0')
            # a scan: never answered while this runs
while True:
    c, _ = s.accept()
    held.append(c)
    threading.Thread(target=serve, args=(c,), daemon=True).start()
EOF
"$PY" "$W/fake-clamd.py" "$W/clamd.sock" &
FAKE=$!
# it holds the test's output open: never left behind
trap 'kill "$FAKE" 2>/dev/null; e2e_cleanup' EXIT
wait_for 10 "the fake clamd's socket" test -S "$W/clamd.sock"
start --control-socket "$SOCK" --backend clamd --local-socket "$W/clamd.sock" \
	--clamd-timeout-ms 60000
log_has "$LOG" "PING answered" && { kill "$FAKE"; fail "the fake clamd was not taken: $(grep PING "$LOG")"; }
cat "$M/held.txt" > /dev/null &
OPENER=$!
held() { json_true "[w for w in d['workers'] if w['state'] == 'scanning' and w['path'] == '$M/held.txt' and w['pid'] == $OPENER and w['comm'] == 'cat' and w['for_ms'] >= 0] != []"; }
wait_for 30 "a worker scanning $M/held.txt for pid $OPENER" held
ctl status | grep -q "scanning $M/held.txt for pid $OPENER (cat), [0-9]* ms" ||
	{ kill "$FAKE"; fail "status: no scanning worker line"; }
out=$(ctl reload) || { kill "$FAKE"; fail "reload with backend clamd exited $?: $out"; }
case $out in *"(VERSION)"*) ;; *) kill "$FAKE"; fail "reload (clamd): $out" ;; esac
kill "$FAKE"
wait "$OPENER" || fail "the held open failed once the fake clamd went (on_error = allow)"
idle() { json_true "all(w['state'] == 'idle' for w in d['workers'])"; }
wait_for 30 "every worker idle" idle
pass "a worker is shown scanning its file for the opener while the scan is held, idle after"
e2e_stop "$LOG"
echo "scanner-control: all passed"
