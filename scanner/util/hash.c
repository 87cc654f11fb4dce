// SPDX-License-Identifier: GPL-2.0
/* FNV-1a and SHA-256 (hash.h); SHA-256 is OpenSSL's EVP. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "util/hash.h"

uint64_t fnv1a64(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

struct sha256_ctx *sha256_new(void)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();

	if (md && !EVP_DigestInit_ex(md, EVP_sha256(), NULL)) {
		EVP_MD_CTX_free(md);
		md = NULL;
	}
	return (struct sha256_ctx *)md;
}

int sha256_update(struct sha256_ctx *c, const void *data, size_t len)
{
	return EVP_DigestUpdate((EVP_MD_CTX *)c, data, len) ? 0 : -1;
}

int sha256_final(struct sha256_ctx *c, unsigned char out[SHA256_LEN])
{
	unsigned int len = 0;
	int ok = EVP_DigestFinal_ex((EVP_MD_CTX *)c, out, &len) && len == SHA256_LEN;

	EVP_MD_CTX_free((EVP_MD_CTX *)c);
	return ok ? 0 : -1;
}

void sha256_free(struct sha256_ctx *c)
{
	EVP_MD_CTX_free((EVP_MD_CTX *)c);
}

int sha256_buffer(const void *data, size_t len, unsigned char out[SHA256_LEN])
{
	struct sha256_ctx *c = sha256_new();

	if (!c)
		return -1;
	if (sha256_update(c, data, len)) {
		sha256_free(c);
		return -1;
	}
	return sha256_final(c, out);
}

int sha256_update_fd(struct sha256_ctx *c, int fd, uint64_t size, uint64_t *done)
{
	const size_t chunk = 256 * 1024;
	unsigned char *buf = malloc(chunk);
	uint64_t off = 0;
	ssize_t n = 0;

	*done = 0;
	if (!buf) {
		errno = ENOMEM;
		return -1;
	}
	while (off <= size) {
		n = pread(fd, buf, chunk, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (sha256_update(c, buf, n)) {
			free(buf);
			*done = off;
			return SHA256_FD_FAILED;
		}
		off += n;
	}
	*done = off;
	if (n < 0) {
		int err = errno;

		free(buf);
		errno = err;
		return -1;
	}
	free(buf);
	return off == size ? 0 : SHA256_FD_CHANGED;
}
