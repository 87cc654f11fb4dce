#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# man --warnings must print nothing for any man page in DIR.
set -u
rc=0
for f in "${1:?usage: man-warnings.sh DIR}"/*.[0-9]; do
	w=$(MANWIDTH=80 man --warnings -l "$f" 2>&1 >/dev/null)
	if [ -n "$w" ]; then
		echo "FAIL: $f:"
		echo "$w"
		rc=1
	else
		echo "ok: $f"
	fi
done
exit $rc
