/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Has the signature directory changed?  clamd's SelfCheck, done with a
 * fingerprint of the directory's files instead of libclamav's
 * cl_statchkdir(), which compares modification times in whole seconds
 * and so misses a file replaced in the second it was looked at.  And the
 * signatures' digest by content, for the verdict store.
 */
#ifndef SCANNER_DBWATCH_H
#define SCANNER_DBWATCH_H

#include <stddef.h>
#include <stdint.h>

#include "util/hash.h"

struct db_fingerprint {
	/*
	 * Of every file's name, device, inode, size, mtime and ctime, a
	 * symbolic link's target's, and the link's own inode and ctime.
	 */
	uint64_t hash;
	unsigned int files;
	/*
	 * Taken in the clock tick of a file's last change (or the second,
	 * for a coarse filesystem): a change made just after, in that same
	 * tick, may not show.  Such a fingerprint never proves "unchanged".
	 */
	int racy;
};

/* Fingerprint dir now; -1 with errno if it cannot be read. */
int db_fingerprint_take(const char *dir, struct db_fingerprint *fp);

/*
 * Whether dir differs from old: 1 changed (or old was racy, or dir
 * cannot be read: a reload will say why), 0 unchanged.
 */
int db_changed(const char *dir, const struct db_fingerprint *old);

/*
 * The files of the directory that are no signatures: freshclam's state
 * (freshclam.dat, mirrors.dat) and temporary names (from '.').  Every
 * other file counts: one libclamav ignores can only cause a needless
 * reload or store miss, never a stale verdict.
 */
int db_state_file(const char *name);

/*
 * The signatures by content, for the verdict store, which outlives
 * reboots (a database copied back with its old times must not pass for
 * the new one): SHA-256 over salt (the engine's identity: libclamav's
 * version and options, engine_identity()) and, in name
 * order, each signature file's name, size and bytes (a symbolic link's
 * target's).  0, or -1 with err.
 */
int db_content_digest(const char *dir, const char *salt, unsigned char out[SHA256_LEN],
		      char *err, size_t errlen);

#endif
