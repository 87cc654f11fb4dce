/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verdict store's key of a file's content: its fs-verity digest, which
 * the kernel keeps and nothing needs to read, or else the SHA-256 of its
 * bytes.  Whether those bytes are the ones scanned (no write between the
 * digest and the scan) is the caller's to prove (util/cacheable.h).
 */
#ifndef SCANNER_CONTENT_KEY_H
#define SCANNER_CONTENT_KEY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "store/verdict_store.h"

/*
 * The key of the file open at fd, which st describes.  *hashed: the bytes
 * read (0 for a verity file); *verity: whether it was its verity digest.
 * 0, or -1 with errno: EIO also if the file's length is not st_size any
 * more (a write raced the read).
 */
int content_key(int fd, const struct stat *st, struct store_key *key, uint64_t *hashed,
		bool *verity);

#endif
