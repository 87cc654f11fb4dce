/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The settings that change what a scan finds, as a digest: half of what
 * a stored verdict must have been found with (the signatures' digest is
 * the other, util/db_fingerprint.h).
 */
#ifndef SCANNER_FINGERPRINT_H
#define SCANNER_FINGERPRINT_H

#include "config/config.h"
#include "util/hash.h"

/* SHA-256 over the backend and the scan limits, as text.  0, or -1. */
int settings_fingerprint(const struct config *cfg, unsigned char out[SHA256_LEN]);

#endif
