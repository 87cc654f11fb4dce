// SPDX-License-Identifier: GPL-2.0
/* The signature directory's fingerprint (db_fingerprint.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/db_fingerprint.h"

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

/* FNV-1a, 64 bits: a fingerprint, not a defence against anyone. */
static uint64_t fnv(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
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
	fp->hash = 0xcbf29ce484222325ULL;
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

		/* freshclam's temporary files and directories start with '.' or are dirs */
		if (de->d_name[0] == '.' || fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
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
