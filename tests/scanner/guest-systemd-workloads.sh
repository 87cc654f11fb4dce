#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest script (vm-systemd-debug): guest-systemd.sh with the workloads
# checks only (systemd-checks.sh, DZ_CHECKS=workloads): the installed
# scanner started by systemd, detections naming units and containers,
# exclude_unit in the kernel, and a user's look-alike of an excluded unit.
# The lifecycle checks (watchdog, hardening, reload, fanotify) are
# userspace and run on 6.1 and 6.12.
DZ_CHECKS=workloads
. "${DAZUKOFS_SRC:?}/tests/scanner/guest-systemd.sh"
