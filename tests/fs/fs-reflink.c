// SPDX-License-Identifier: GPL-2.0
/*
 * fs-reflink UPPER LOWER: FICLONE, FICLONERANGE, FIDEDUPERANGE and
 * copy_file_range(2) through a dazukofs mount (UPPER) of a filesystem
 * that shares extents (LOWER: xfs with reflink, btrfs).  Each must succeed,
 * give the source's bytes, and leave the lower files sharing their extents
 * (FIEMAP_EXTENT_SHARED on the lower file), as the same call made on the
 * lower does.  Prints one PASS/FAIL line per check; exits 1 on any FAIL.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fs-check.h"

#define LEN (256 * 1024)	/* a multiple of every block size */

#define check(ok, what) check_as("fs-reflink", (ok), (what))

static int open_at(const char *dir, const char *name, int flags)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, flags | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "fs-reflink: open %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return fd;
}

static void fill(int fd, const unsigned char *data)
{
	if (pwrite(fd, data, LEN, 0) != LEN || fsync(fd)) {
		perror("fs-reflink: write");
		exit(1);
	}
}

static int same_bytes(const char *dir, const char *name,
		      const unsigned char *want)
{
	static unsigned char got[LEN];
	int fd = open_at(dir, name, O_RDONLY);
	ssize_t n = pread(fd, got, LEN, 0);

	close(fd);
	return n == LEN && memcmp(got, want, LEN) == 0;
}

/* Does every extent of the file carry FIEMAP_EXTENT_SHARED? */
static int all_shared(const char *dir, const char *name)
{
	struct {
		struct fiemap map;
		struct fiemap_extent ext[64];
	} fm;
	int fd = open_at(dir, name, O_RDONLY);
	int ok;

	memset(&fm, 0, sizeof(fm));
	fm.map.fm_length = FIEMAP_MAX_OFFSET;
	fm.map.fm_flags = FIEMAP_FLAG_SYNC;
	fm.map.fm_extent_count = 64;
	ok = ioctl(fd, FS_IOC_FIEMAP, &fm.map) == 0 && fm.map.fm_mapped_extents > 0;
	for (unsigned int i = 0; ok && i < fm.map.fm_mapped_extents; i++)
		ok = fm.ext[i].fe_flags & FIEMAP_EXTENT_SHARED;
	close(fd);
	return ok;
}

/* A file of its own bytes, not shared with anything. */
static int fresh(const char *dir, const char *name, const unsigned char *data)
{
	int fd = open_at(dir, name, O_RDWR | O_CREAT | O_TRUNC);

	fill(fd, data);
	return fd;
}

/* The four ways to share or copy extents, made through directory @dir. */
static void exercise(const char *dir, const char *lower, const char *where,
		     const unsigned char *data)
{
	char what[256];
	int src = fresh(dir, "src", data);
	int dst;

	dst = open_at(dir, "clone", O_WRONLY | O_CREAT | O_TRUNC);
	snprintf(what, sizeof(what), "FICLONE %s", where);
	check(ioctl(dst, FICLONE, src) == 0, what);
	close(dst);
	snprintf(what, sizeof(what), "FICLONE %s: same bytes, extents shared in the lower", where);
	check(same_bytes(dir, "clone", data) && all_shared(lower, "clone"), what);

	dst = open_at(dir, "clonerange", O_WRONLY | O_CREAT | O_TRUNC);
	struct file_clone_range range = { .src_fd = src, .src_length = LEN };
	snprintf(what, sizeof(what), "FICLONERANGE %s", where);
	check(ioctl(dst, FICLONERANGE, &range) == 0, what);
	close(dst);
	snprintf(what, sizeof(what), "FICLONERANGE %s: same bytes, extents shared in the lower", where);
	check(same_bytes(dir, "clonerange", data) && all_shared(lower, "clonerange"), what);

	dst = fresh(dir, "dedupe", data);
	struct {
		struct file_dedupe_range range;
		struct file_dedupe_range_info info;
	} dd = {
		.range = { .src_length = LEN, .dest_count = 1 },
		.info = { .dest_fd = dst },
	};
	snprintf(what, sizeof(what), "FIDEDUPERANGE %s", where);
	check(ioctl(src, FIDEDUPERANGE, &dd.range) == 0 && dd.info.status == 0 &&
	      dd.info.bytes_deduped == LEN, what);
	close(dst);
	snprintf(what, sizeof(what), "FIDEDUPERANGE %s: same bytes, extents shared in the lower", where);
	check(same_bytes(dir, "dedupe", data) && all_shared(lower, "dedupe"), what);

	dst = open_at(dir, "copied", O_WRONLY | O_CREAT | O_TRUNC);
	loff_t off_in = 0, off_out = 0;
	snprintf(what, sizeof(what), "copy_file_range %s", where);
	check(copy_file_range(src, &off_in, dst, &off_out, LEN, 0) == LEN, what);
	close(dst);
	snprintf(what, sizeof(what), "copy_file_range %s: same bytes", where);
	check(same_bytes(dir, "copied", data), what);
	close(src);
}

int main(int argc, char **argv)
{
	static unsigned char data[LEN];
	int urandom;

	if (argc != 3) {
		fprintf(stderr, "usage: %s UPPER LOWER\n", argv[0]);
		return 2;
	}
	urandom = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (urandom < 0 || read(urandom, data, LEN) != LEN) {
		perror("fs-reflink: /dev/urandom");
		return 1;
	}
	close(urandom);

	/* The control: the lower itself shares extents, or this proves nothing. */
	exercise(argv[2], argv[2], "on the lower", data);
	exercise(argv[1], argv[2], "through dazukofs", data);
	return check_done("fs-reflink");
}
