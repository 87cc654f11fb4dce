// SPDX-License-Identifier: GPL-2.0
/*
 * Fingerprints of signatures and settings (fingerprint.h).  By content, not
 * by timestamps: a store outlives reboots, and a database copied back
 * with its old times must still be told apart from a new one.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <clamav.h>

#include "store/content_key.h"
#include "store/fingerprint.h"

#define READ_CHUNK (256 * 1024)

static int state_file(const char *name)
{
	return name[0] == '.' || !strcmp(name, "freshclam.dat") || !strcmp(name, "mirrors.dat");
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int keep(const struct dirent *d)
{
	return !state_file(d->d_name);
}

/* One file into ctx: name, size, bytes.  Directories are not loaded. */
static int hash_file(void *ctx, int dfd, const char *name, unsigned char *buf, char *err,
		     size_t errlen)
{
	uint64_t size, done = 0;
	struct stat st;
	ssize_t n;
	int fd;

	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(err, errlen, "%s: %s", name, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	size = st.st_size;
	cl_update_hash(ctx, name, strlen(name) + 1);
	cl_update_hash(ctx, &size, sizeof(size));
	while ((n = read(fd, buf, READ_CHUNK)) > 0) {
		cl_update_hash(ctx, buf, n);
		done += n;
	}
	close(fd);
	if (n < 0 || done != size) {
		snprintf(err, errlen, "%s: %s", name, n < 0 ? strerror(errno) : "changed while read");
		return -1;
	}
	return 0;
}

int signatures_fingerprint(const char *dir, unsigned char out[STORE_DIGEST_LEN], char *err,
			   size_t errlen)
{
	const char *version = cl_retver();
	struct dirent **names = NULL;
	unsigned char *buf = NULL;
	void *ctx = NULL;
	int n, i, dfd, rc = -1;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	n = scandirat(dfd, ".", &names, keep, by_name);
	if (n < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		close(dfd);
		return -1;
	}
	buf = malloc(READ_CHUNK);
	ctx = cl_hash_init("sha256");
	if (!buf || !ctx) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	cl_update_hash(ctx, version, strlen(version) + 1);
	for (i = 0; i < n; i++) {
		if (hash_file(ctx, dfd, names[i]->d_name, buf, err, errlen))
			goto out;
	}
	rc = cl_finish_hash(ctx, out) ? -1 : 0;
	ctx = NULL;
	if (rc)
		snprintf(err, errlen, "SHA-256 failed");
out:
	if (ctx)
		cl_hash_destroy(ctx);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(buf);
	close(dfd);
	return rc;
}

int settings_fingerprint(const struct config *cfg, unsigned char out[STORE_DIGEST_LEN])
{
	char text[512];
	int len;

	/*
	 * Text, field by field: no padding bytes, and a new setting added
	 * here changes every fingerprint, as it should.
	 */
	len = snprintf(text, sizeof(text),
		       "backend=%d max_file_size=%llu max_scan_size=%llu max_recursion=%u "
		       "max_files=%u max_scan_time_ms=%u",
		       (int)cfg->backend, (unsigned long long)cfg->limits.max_file_size,
		       (unsigned long long)cfg->limits.max_scan_size, cfg->limits.max_recursion,
		       cfg->limits.max_files, cfg->limits.max_scan_time_ms);
	if (len < 0 || (size_t)len >= sizeof(text))
		return -1;
	return sha256_buffer(text, len, out);
}
