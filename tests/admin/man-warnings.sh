#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# man --warnings must print nothing for any man page in the DIRs.
set -u
rc=0
[ $# -gt 0 ] || { echo "usage: man-warnings.sh DIR..." >&2; exit 2; }
for dir in "$@"; do
for f in "$dir"/*.[0-9]; do
	w=$(MANWIDTH=80 man --warnings -l "$f" 2>&1 >/dev/null)
	if [ -n "$w" ]; then
		echo "FAIL: $f:"
		echo "$w"
		rc=1
	else
		echo "ok: $f"
	fi
done
done
exit $rc
