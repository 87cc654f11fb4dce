# SPDX-License-Identifier: GPL-2.0
# Sourced by the clamd tests (host: clamd-e2e.sh; guest: guest-clamd.sh),
# after common.sh: real clamd processes (Debian's clamav-daemon), each with
# its own config and sockets. Needs W (a work directory), W/db (the
# signatures), CLAMD (the binary), PY (python3) and CLAMD_PIDS set.

# clamd_answers ADDR: PING on a new connection (a socket path or host:port) gets PONG
clamd_answers() {
	$PY - "$1" <<'EOF' 2>/dev/null
import socket, sys
a = sys.argv[1]
if a.startswith('/'):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(2)
    s.connect(a)
else:
    h, p = a.rsplit(':', 1)
    s = socket.create_connection((h, int(p)), 2)
s.settimeout(2)
s.sendall(b'zPING\0')
sys.exit(0 if s.recv(64) == b'PONG\0' else 1)
EOF
}

# start_clamd NAME PORT|- [USER]: clamd with its own config in $W/NAME,
# listening on $W/NAME/sock and, with a PORT, on 127.0.0.1:PORT; answering
# PING before this returns.  Its pid in $CLAMD_PID.  CLAMD_TMPDIR,
# CLAMD_DBDIR and CLAMD_THREADS, if set, are its TemporaryDirectory
# (created), DatabaseDirectory and MaxThreads.
start_clamd() {
	_d=$W/$1
	_tmp=${CLAMD_TMPDIR:-$_d/tmp}
	mkdir -p "$_d" "$_tmp"
	cat > "$_d/clamd.conf" <<EOF
Foreground yes
LocalSocket $_d/sock
DatabaseDirectory ${CLAMD_DBDIR:-$W/db}
TemporaryDirectory $_tmp
LogFile $_d/clamd.log
LogVerbose yes
StreamMaxLength 1M
HeuristicAlerts yes
AlertExceedsMax yes
AlertEncrypted yes
MaxThreads ${CLAMD_THREADS:-4}
SelfCheck 0
EOF
	[ "$2" != - ] && printf 'TCPSocket %s\nTCPAddr 127.0.0.1\n' "$2" >> "$_d/clamd.conf"
	# more lines for the config, if the caller has any (bench/backends)
	[ -n "${CLAMD_EXTRA_CONF:-}" ] && printf '%s\n' "$CLAMD_EXTRA_CONF" >> "$_d/clamd.conf"
	if [ -n "${3:-}" ]; then
		echo "User $3" >> "$_d/clamd.conf"
		chown -R "$3" "$_d"
	fi
	rm -f "$_d/sock"
	"$CLAMD" -c "$_d/clamd.conf" > "$_d/stdout" 2>&1 &
	CLAMD_PID=$!
	CLAMD_PIDS="$CLAMD_PIDS $CLAMD_PID"
	if [ "$2" != - ]; then
		wait_for 60 "clamd $1 on port $2" clamd_answers "127.0.0.1:$2"
	else
		wait_for 60 "clamd $1 on $_d/sock" clamd_answers "$_d/sock"
	fi
}

# clamd_command ADDR CMD: send zCMD to the clamd at ADDR (socket path),
# print its reply
clamd_command() {
	$PY - "$1" "$2" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(10)
s.connect(sys.argv[1])
s.sendall(b'z' + sys.argv[2].encode() + b'\0')
print(s.recv(1024).rstrip(b'\0\n').decode())
EOF
}

# kill_clamd PID: gone (waited for)
kill_clamd() {
	kill -9 "$1"
	wait "$1" 2>/dev/null
}
