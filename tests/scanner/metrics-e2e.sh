#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# metrics_file end to end with source=fanotify on this host (root): the
# scanner writes the Prometheus file at the start, mode 0644; after a
# clean open and an EICAR the file shows them within metrics_interval;
# python3-prometheus-client parses it, the counters have the counts and
# the histogram is consistent (buckets never fall, +Inf is _count, _count
# is scanned_total); SIGTERM leaves it with up 0 and no temporary file.
# A metrics_file in a missing directory is a warning, and the scanner
# scans on.  Bad settings are refused with a clear message.
# Usage: metrics-e2e.sh SCANNER DBDIR
set -u
SCANNER=$1
DB_SRC=$2
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/host-e2e.sh"

PY=/usr/bin/python3
"$PY" -c 'import prometheus_client' ||
	fail "$PY lacks prometheus_client (python3-prometheus-client, scripts/setup)"

# bad settings first: no root or mount needed for them
for bad in "--metrics-interval 0|metrics_interval: '0' is not a number of seconds from 1 to 3600" \
	   "--metrics-interval 99999|metrics_interval: '99999' is not a number of seconds from 1 to 3600" \
	   "--metrics-file m.prom|metrics_file: 'm.prom' is not an absolute path of a file named *.prom" \
	   "--metrics-file /tmp/m.txt|metrics_file: '/tmp/m.txt' is not an absolute path of a file named *.prom"; do
	opts=${bad%%|*} want=${bad#*|}
	# shellcheck disable=SC2086 # the option and its value: two words
	out=$("$SCANNER" -c /dev/null --check-config $opts 2>&1) &&
		fail "$opts accepted"
	case $out in
	*"$want"*) pass "$opts refused: $want" ;;
	*) fail "$opts: '$out' lacks '$want'" ;;
	esac
done

e2e_workdir metrics size=16m
LOG=$W/scanner.log
PROM=$W/out/dazuko-clamscan.prom
mkdir -p "$W/out"
echo "clean text" > "$M/clean.txt"
make_eicar "$M/eicar.com"

"$SCANNER" -f -c /dev/null --store no --source fanotify --fanotify-mount "$M" \
	--database "$DB_SRC" --workers 2 --cache-size 0 \
	--metrics-file "$PROM" --metrics-interval 1 >"$LOG" 2>&1 &
PID=$!
wait_log 60 "$LOG" 'notice: ready:'
# written before READY: there at once
[ -f "$PROM" ] || fail "no $PROM once ready"
mode=$(stat -c %a "$PROM")
[ "$mode" = 644 ] || fail "$PROM has mode $mode, not 644"
pass "metrics file there at the start, mode 644"

expect_allowed "$M/clean.txt"
expect_denied "$M/eicar.com"

# check.py FILE UP: asserts the contents; exit 3 while the counts are not
# in yet (the writer's next interval), 1 on a wrong file
cat > "$W/check.py" <<'PYEOF'
import sys
from prometheus_client.parser import text_string_to_metric_families

path, want_up = sys.argv[1], float(sys.argv[2])
with open(path) as f:
    text = f.read()
fam = {f.name: f for f in text_string_to_metric_families(text)}
P = "dazuko_clamscan_"

def value(name, suffix=""):
    samples = [s for s in fam[P + name].samples if s.name == P + name + suffix]
    assert len(samples) == 1, (name, samples)
    return samples[0].value

if value("scanned", "_total") < 2 or value("infected", "_total") < 1:
    sys.exit(3)
for name in ("events", "scanned", "infected", "denied", "errors", "reported",
             "cache_hits", "scanned_bytes", "reloads", "reload_failures",
             "exceeds_max", "encrypted", "skipped_filter", "skipped_excluded"):
    assert fam[P + name].type == "counter", name
assert value("scanned", "_total") == 2, value("scanned", "_total")
assert value("infected", "_total") == 1
assert value("denied", "_total") == 1
assert value("errors", "_total") == 0
assert value("reported", "_total") == 0
assert value("events", "_total") >= 2
assert value("scanned_bytes", "_total") == len("clean text\n") + 68
assert value("up") == want_up, value("up")
assert fam[P + "up"].type == "gauge"
assert 1.7e9 < value("start_time_seconds") < 4e9

h = fam[P + "scan_duration_seconds"]
assert h.type == "histogram"
buckets = [(s.labels["le"], s.value) for s in h.samples if s.name.endswith("_bucket")]
assert buckets[-1][0] == "+Inf", buckets
bounds = [float(le) for le, _ in buckets]
assert bounds == sorted(bounds), bounds
counts = [v for _, v in buckets]
assert all(a <= b for a, b in zip(counts, counts[1:])), counts
count = [s.value for s in h.samples if s.name.endswith("_count")][0]
total = [s.value for s in h.samples if s.name.endswith("_sum")][0]
assert counts[-1] == count == value("scanned", "_total"), (counts, count)
assert 0 < total <= count * value("scan_duration_max_seconds") + 1e-6, total
print("metrics ok: %d families, histogram %s" % (len(fam), counts))
PYEOF

check() { "$PY" "$W/check.py" "$PROM" "$1"; _rc=$?; [ $_rc = 0 ] || [ $_rc = 3 ] || fail "metrics file wrong:
$(cat "$PROM")"; [ $_rc = 0 ]; }
wait_for 20 "the counts in $PROM" check 1
pass "metrics file parsed: counters, up 1, histogram consistent"

e2e_stop "$LOG"
check 0 || fail "counts missing after the stop"
[ "$(find "$W/out" -mindepth 1 | wc -l)" = 1 ] || fail "left behind: $(ls -a "$W/out")"
pass "clean stop: up 0, no temporary file"

# a directory that is not there: a warning, once, and scanning goes on
"$SCANNER" -f -c /dev/null --store no --source fanotify --fanotify-mount "$M" \
	--database "$DB_SRC" --workers 1 \
	--metrics-file "$W/gone/m.prom" --metrics-interval 1 >"$LOG" 2>&1 &
PID=$!
wait_log 60 "$LOG" 'notice: ready:'
grep -q "warning: metrics_file: creating $W/gone/m.prom.tmp.*: No such file or directory (retried every 1 s, logged once)" "$LOG" ||
	{ cat "$LOG"; fail "no warning about the missing directory"; }
expect_denied "$M/eicar.com"
e2e_stop "$LOG"
[ "$(grep -c 'metrics_file: creating' "$LOG")" = 1 ] || fail "the warning repeated"
pass "missing directory: one warning, scanning goes on"
