/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scanner's two hashes: FNV-1a (64 bits) to notice a change or a
 * damaged record, never against anyone; SHA-256 (OpenSSL's) where a
 * digest stands for content that someone may have chosen.
 */
#ifndef SCANNER_HASH_H
#define SCANNER_HASH_H

#include <stddef.h>
#include <stdint.h>

#define FNV1A64_INIT 0xcbf29ce484222325ULL
#define SHA256_LEN 32

uint64_t fnv1a64(uint64_t h, const void *data, size_t len);

/* An incremental SHA-256; NULL if out of memory. */
struct sha256_ctx *sha256_new(void);
int sha256_update(struct sha256_ctx *c, const void *data, size_t len);
/* The digest, and c freed; -1 (c freed too) if it failed. */
int sha256_final(struct sha256_ctx *c, unsigned char out[SHA256_LEN]);
void sha256_free(struct sha256_ctx *c);

int sha256_buffer(const void *data, size_t len, unsigned char out[SHA256_LEN]);

/*
 * The first size bytes of fd, from offset 0, into c; *done says how many
 * were read.  One byte more is read to tell a longer file from the one
 * its caller's fstat saw.  0: exactly size bytes; SHA256_FD_CHANGED: the
 * file held another number; SHA256_FD_FAILED: SHA-256 failed; -1: a read
 * or an allocation failed (errno).
 */
#define SHA256_FD_CHANGED 1
#define SHA256_FD_FAILED (-2)
int sha256_update_fd(struct sha256_ctx *c, int fd, uint64_t size, uint64_t *done);

#endif
