#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest script: the tracking soak (tracking-soak, ~22 s of work); see
# guest-tracking.sh.
TRK_PROG=tracking-soak exec sh "$(dirname "$0")/guest-tracking.sh"
