# SPDX-License-Identifier: GPL-2.0
# Shared by the scanner test scripts (host and guest): test files and
# waiting on real conditions with deadlines.

EICAR_STR='X5O!P%@AP[4\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*'
MARKER=DAZUKOFS-SCANNER-TEST-MARKER-41c7

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }

make_eicar() { printf '%s' "$EICAR_STR" > "$1"; }

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# wait_for SECONDS DESCRIPTION COMMAND...: until COMMAND succeeds
wait_for() {
	_secs=$1 _what=$2
	shift 2
	_end=$(( $(now_ms) + _secs * 1000 ))
	until "$@"; do
		[ "$(now_ms)" -lt "$_end" ] || fail "timed out after ${_secs}s waiting for $_what"
		sleep 0.05
	done
}

# ctime_settled FILE...: every FILE last changed over a second ago.  A
# file changed within its timestamps' granularity is racily clean
# (util/cacheable.h): never cached, remembered, digested or stored.
ctime_settled() {
	for _f; do
		[ $(( $(date +%s%N) - $(stat -c %.9Z "$_f" | tr -d .) )) -gt 1000000000 ] || return 1
	done
}

# counter_is FILE VALUE, counter_ge FILE MIN: a sysfs counter's value
counter_is() { [ "$(cat "$1" 2>/dev/null)" = "$2" ]; }
counter_ge() { [ "$(cat "$1" 2>/dev/null || echo -1)" -ge "$2" ]; }

# log_has FILE PATTERN [N]: at least N (default 1) lines match
log_has() {
	_c=$(grep -c -- "$2" "$1" 2>/dev/null)
	[ "${_c:-0}" -ge "${3:-1}" ]
}

# wait_log SECONDS FILE PATTERN [N]: until log_has FILE PATTERN N
wait_log() {
	wait_for "$1" "'$3' x${4:-1} in $2" log_has "$2" "$3" "${4:-1}"
}

# scanner_stats LOG PID: a fresh statistics line of the scanner PID
# logging to LOG (SIGUSR1 asks for it)
scanner_stats() {
	_n=$(grep -c 'statistics: ' "$1")
	kill -USR1 "$2"
	wait_for 20 "a statistics line in $1" log_has "$1" 'statistics: ' $((_n + 1))
	grep 'statistics: ' "$1" | tail -1
}

# stats_value NAME LINE: the counter NAME in a statistics LINE
stats_value() { echo "$2" | sed -n "s/.* $1=\([0-9]*\).*/\1/p"; }

# readable FILE: 0 if it opens, 1 on EPERM (anything else fails the test)
opens() {
	_err=$(cat "$1" 2>&1 >/dev/null) && return 0
	case $_err in
	*"Operation not permitted"*) return 1 ;;
	*) fail "open $1: unexpected error: $_err" ;;
	esac
}

expect_allowed() { opens "$1" || fail "$1 was denied"; pass "$1 opens"; }
expect_denied() { opens "$1" && fail "$1 opened but should be denied"; pass "$1 denied (EPERM)"; }
