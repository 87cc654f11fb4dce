// SPDX-License-Identifier: GPL-2.0
/* The signature directory's fingerprint (db_fingerprint.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/db_fingerprint.h"
#include "util/hash.h"

/* A changed file's new times may equal the old ones within this. */
#define RACY_NS 1000000000LL

struct entry {
	char *name;
	struct stat st;		/* the file, a symbolic link followed */
	struct stat link;	/* the link itself; st_ino 0: no link */
};

static int cmp_entries(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

/* A fingerprint, not a defence against anyone: FNV-1a. */
static uint64_t fnv(uint64_t h, const void *data, size_t len)
{
	return fnv1a64(h, data, len);
}

int db_state_file(const char *name)
{
	return name[0] == '.' || !strcmp(name, "freshclam.dat") || !strcmp(name, "mirrors.dat");
}

static long long ns(const struct timespec *t)
{
	return (long long)t->tv_sec * 1000000000LL + t->tv_nsec;
}

int db_fingerprint_take(const char *dir, struct db_fingerprint *fp)
{
	struct entry *entries = NULL;
	size_t n = 0, cap = 0;
	long long newest = 0, now_ns;
	struct timespec now;
	struct dirent *de;
	int dfd, saved;
	DIR *d;

	memset(fp, 0, sizeof(*fp));
	fp->hash = FNV1A64_INIT;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	d = fdopendir(dfd);
	if (!d) {
		saved = errno;
		close(dfd);
		errno = saved;
		return -1;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	while ((de = readdir(d))) {
		struct stat st, link = { 0 };

		if (db_state_file(de->d_name) ||
		    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		/*
		 * clamav-unofficial-sigs links its files into the directory:
		 * a new target, or the target rewritten, is a change too.  A
		 * dangling link counts as the link alone.
		 */
		if (S_ISLNK(st.st_mode)) {
			link = st;
			if (fstatat(dfd, de->d_name, &st, 0))
				st = link;
			else if (!S_ISREG(st.st_mode))
				continue;
		} else if (!S_ISREG(st.st_mode)) {
			continue;
		}
		if (n == cap) {
			struct entry *grown = realloc(entries, (cap = cap ? 2 * cap : 32) *
						      sizeof(*entries));

			if (!grown)
				goto nomem;
			entries = grown;
		}
		entries[n].name = strdup(de->d_name);
		if (!entries[n].name)
			goto nomem;
		entries[n].link = link;
		entries[n++].st = st;
	}
	closedir(d);
	if (n)	/* qsort(NULL, 0, ...) is undefined */
		qsort(entries, n, sizeof(*entries), cmp_entries);
	for (size_t i = 0; i < n; i++) {
		const struct stat *st = &entries[i].st, *link = &entries[i].link;
		long long m = ns(&st->st_mtim), c = ns(&st->st_ctim), lc = ns(&link->st_ctim);

		fp->hash = fnv(fp->hash, entries[i].name, strlen(entries[i].name) + 1);
		fp->hash = fnv(fp->hash, &st->st_ino, sizeof(st->st_ino));
		fp->hash = fnv(fp->hash, &st->st_size, sizeof(st->st_size));
		fp->hash = fnv(fp->hash, &m, sizeof(m));
		fp->hash = fnv(fp->hash, &c, sizeof(c));
		fp->hash = fnv(fp->hash, &st->st_dev, sizeof(st->st_dev));
		fp->hash = fnv(fp->hash, &link->st_ino, sizeof(link->st_ino));
		fp->hash = fnv(fp->hash, &lc, sizeof(lc));
		if (c > newest)
			newest = c;
		if (lc > newest)
			newest = lc;
		free(entries[i].name);
	}
	free(entries);
	fp->files = (unsigned int)n;
	now_ns = ns(&now);
	fp->racy = n && now_ns - newest < RACY_NS;
	return 0;
nomem:
	closedir(d);
	for (size_t i = 0; i < n; i++)
		free(entries[i].name);
	free(entries);
	errno = ENOMEM;
	return -1;
}

int db_changed(const char *dir, const struct db_fingerprint *old)
{
	struct db_fingerprint now;

	if (old->racy || db_fingerprint_take(dir, &now))
		return 1;
	return now.hash != old->hash || now.files != old->files;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int signature_file(const struct dirent *d)
{
	return !db_state_file(d->d_name);
}

/* One file into c: name, size, bytes.  Not a regular file: none. */
static int digest_file(struct sha256_ctx *c, int dfd, const char *name, char *err,
		       size_t errlen)
{
	uint64_t size, done;
	struct stat st;
	int fd, rc;

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
	if (sha256_update(c, name, strlen(name) + 1) || sha256_update(c, &size, sizeof(size))) {
		close(fd);
		snprintf(err, errlen, "SHA-256 failed");
		return -1;
	}
	rc = sha256_update_fd(c, fd, size, &done);
	if (rc) {
		snprintf(err, errlen, "%s: %s", name,
			 rc == SHA256_FD_CHANGED ? "changed while read" :
			 rc == SHA256_FD_FAILED ? "SHA-256 failed" : strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

int db_content_digest(const char *dir, const char *salt, unsigned char out[SHA256_LEN],
		      char *err, size_t errlen)
{
	struct dirent **names = NULL;
	struct sha256_ctx *c = NULL;
	int n, i, dfd, rc = -1;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	n = scandirat(dfd, ".", &names, signature_file, by_name);
	if (n < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		close(dfd);
		return -1;
	}
	c = sha256_new();
	if (!c) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (sha256_update(c, salt, strlen(salt) + 1)) {
		snprintf(err, errlen, "SHA-256 failed");
		goto out;
	}
	for (i = 0; i < n; i++)
		if (digest_file(c, dfd, names[i]->d_name, err, errlen))
			goto out;
	rc = sha256_final(c, out);
	c = NULL;
	if (rc)
		snprintf(err, errlen, "SHA-256 failed");
out:
	sha256_free(c);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	close(dfd);
	return rc;
}
