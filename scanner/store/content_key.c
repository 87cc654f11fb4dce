// SPDX-License-Identifier: GPL-2.0
/* Content keys (content_key.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/fsverity.h>

#include "store/content_key.h"
#include "util/hash.h"

#define READ_CHUNK (256 * 1024)

/* 1 and the key if fd has fs-verity, 0 if not, -1 on an error. */
static int verity_key(int fd, struct store_key *key)
{
	union {
		struct fsverity_digest d;
		unsigned char raw[sizeof(struct fsverity_digest) + STORE_VERITY_DIGEST_MAX];
	} m = { .d.digest_size = STORE_VERITY_DIGEST_MAX };

	if (!ioctl(fd, FS_IOC_MEASURE_VERITY, &m))
		return store_key_verity(key, m.d.digest_algorithm, m.d.digest,
					m.d.digest_size) ? -1 : 1;
	/* not a verity file, or a filesystem (or kernel) without it */
	if (errno == ENODATA || errno == ENOTTY || errno == EOPNOTSUPP || errno == EINVAL)
		return 0;
	return -1;
}

static int sha256_fd(int fd, off_t size, unsigned char out[STORE_DIGEST_LEN],
		     uint64_t *hashed)
{
	unsigned char *buf = malloc(READ_CHUNK);
	struct sha256_ctx *ctx = sha256_new();
	off_t off = 0;
	ssize_t n = 0;

	if (!buf || !ctx)
		goto fail_nomem;
	/* one byte past st_size too: a longer file is not the one st saw */
	while (off <= size) {
		n = pread(fd, buf, READ_CHUNK, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (sha256_update(ctx, buf, n))
			goto fail_io;
		off += n;
	}
	*hashed = off;
	if (n < 0)
		goto fail;
	if (off != size)
		goto fail_io;
	free(buf);
	return sha256_final(ctx, out);

fail_nomem:
	errno = ENOMEM;
	goto fail;
fail_io:
	errno = EIO;
fail:
	free(buf);
	sha256_free(ctx);
	return -1;
}

int content_key(int fd, const struct stat *st, struct store_key *key, uint64_t *hashed,
		bool *verity)
{
	unsigned char digest[STORE_DIGEST_LEN];
	int rc;

	*hashed = 0;
	rc = verity_key(fd, key);
	*verity = rc == 1;
	if (rc)
		return rc < 0 ? -1 : 0;
	if (sha256_fd(fd, st->st_size, digest, hashed))
		return -1;
	store_key_sha256(key, digest);
	return 0;
}
