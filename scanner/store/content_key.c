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

/* SHA-256 of exactly the st_size bytes the caller's fstat saw. */
static int sha256_of_file(int fd, off_t size, unsigned char out[STORE_DIGEST_LEN],
			  uint64_t *hashed)
{
	struct sha256_ctx *ctx = sha256_new();
	int rc;

	*hashed = 0;
	if (!ctx) {
		errno = ENOMEM;
		return -1;
	}
	rc = sha256_update_fd(ctx, fd, (uint64_t)size, hashed);
	if (rc) {
		sha256_free(ctx);
		/* content_key.h: EIO for a length that is not st_size any more */
		if (rc > 0 || rc == SHA256_FD_FAILED)
			errno = EIO;
		return -1;
	}
	return sha256_final(ctx, out);
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
	if (sha256_of_file(fd, st->st_size, digest, hashed))
		return -1;
	store_key_sha256(key, digest);
	return 0;
}
