/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a stored verdict was found with, as digests: the signatures (every
 * file libclamav may load from the database directory, by content) and
 * the settings that change what a scan finds.  Two scans with equal
 * fingerprints of equal bytes find the same.
 */
#ifndef SCANNER_FINGERPRINT_H
#define SCANNER_FINGERPRINT_H

#include <stddef.h>

#include "config/config.h"
#include "store/verdict_store.h"

/*
 * SHA-256 over libclamav's version and, in name order, each file of dir
 * (a symbolic link's target's content) but its state files (names from
 * '.', freshclam.dat, mirrors.dat): name, size, bytes.  Any file that
 * libclamav loads changes it; so may files it ignores, which only makes
 * entries miss.  0, or -1 with err.
 */
int signatures_fingerprint(const char *dir, unsigned char out[STORE_DIGEST_LEN], char *err,
			   size_t errlen);

/* SHA-256 over the backend and the scan limits. */
int settings_fingerprint(const struct config *cfg, unsigned char out[STORE_DIGEST_LEN]);

#endif
