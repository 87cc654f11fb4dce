// SPDX-License-Identifier: GPL-2.0
/*
 * refusefs: a FUSE filesystem (libfuse3) that passes a directory through,
 * read-only, except that open() by root fails for some names:
 *   a name containing "refused" fails with EACCES (an LSM, NFS root_squash
 *   or a FUSE lower that refuses root: a permanent error);
 *   a name containing "nomem" fails with ENOMEM (a transient error);
 * and a read of a name containing "stall" makes SOURCE/.stalled and waits
 * for SOURCE/.release.
 * Any other user opens them normally.  For the open-error tests
 * (guest-events-openerr.sh): the opener's open succeeds, the worker's
 * (root) open of the same file fails.
 *
 * usage: refusefs SOURCE MOUNTPOINT [FUSE options, e.g. -f -s -o allow_other]
 */
#define FUSE_USE_VERSION 31

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

static char source[PATH_MAX];

/* SOURCE + path; -ENAMETOOLONG if it does not fit. */
static int src(char *buf, const char *path)
{
	if ((size_t)snprintf(buf, PATH_MAX, "%s%s", source, path) >= PATH_MAX)
		return -ENAMETOOLONG;
	return 0;
}

static void *rf_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	(void)conn;
	/* Every open reaches rf_open: no caching of attributes or data. */
	cfg->attr_timeout = 0;
	cfg->entry_timeout = 0;
	cfg->negative_timeout = 0;
	cfg->direct_io = 0;
	cfg->kernel_cache = 0;
	return NULL;
}

static int rf_getattr(const char *path, struct stat *st,
		      struct fuse_file_info *fi)
{
	char p[PATH_MAX];
	int err = src(p, path);

	(void)fi;
	if (err)
		return err;
	return lstat(p, st) ? -errno : 0;
}

static int rf_readdir(const char *path, void *buf, fuse_fill_dir_t fill,
		      off_t off, struct fuse_file_info *fi,
		      enum fuse_readdir_flags flags)
{
	char p[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int err = src(p, path);

	(void)off;
	(void)fi;
	(void)flags;
	if (err)
		return err;
	d = opendir(p);
	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (fill(buf, de->d_name, NULL, 0, 0))
			break;
	closedir(d);
	return 0;
}

static int rf_open(const char *path, struct fuse_file_info *fi)
{
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char p[PATH_MAX];
	int fd, err;

	if (fuse_get_context()->uid == 0) {
		if (strstr(name, "refused"))
			return -EACCES;
		if (strstr(name, "nomem"))
			return -ENOMEM;
	}
	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		return -EROFS;
	err = src(p, path);
	if (err)
		return err;
	fd = open(p, O_RDONLY);
	if (fd < 0)
		return -errno;
	fi->fh = (uint64_t)fd;
	return 0;
}

/*
 * A read of a name containing "stall" makes SOURCE/.stalled and waits
 * until SOURCE/.release exists (at most a minute): a worker's scan that
 * outlasts the group's timeout, or a direct read whose reply comes late.
 */
static void rf_stall(const char *path)
{
	char flag[PATH_MAX];
	int tries, fd;

	if (!strstr(path, "stall") || src(flag, "/.stalled"))
		return;
	fd = open(flag, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	if (src(flag, "/.release"))
		return;
	for (tries = 0; tries < 6000 && access(flag, F_OK); tries++)
		usleep(10000);
}

static int rf_read(const char *path, char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	ssize_t n;

	rf_stall(path);
	n = pread((int)fi->fh, buf, size, off);
	return n < 0 ? -errno : (int)n;
}

static int rf_release(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	close((int)fi->fh);
	return 0;
}

static int rf_statfs(const char *path, struct statvfs *st)
{
	char p[PATH_MAX];
	int err = src(p, path);

	if (err)
		return err;
	return statvfs(p, st) ? -errno : 0;
}

static const struct fuse_operations rf_ops = {
	.init		= rf_init,
	.getattr	= rf_getattr,
	.readdir	= rf_readdir,
	.open		= rf_open,
	.read		= rf_read,
	.release	= rf_release,
	.statfs		= rf_statfs,
};

int main(int argc, char **argv)
{
	if (argc < 3 || !realpath(argv[1], source)) {
		fprintf(stderr, "usage: %s SOURCE MOUNTPOINT [FUSE options]\n",
			argv[0]);
		return 2;
	}
	/* fuse_main() takes the mount point and the options. */
	argv[1] = argv[0];
	return fuse_main(argc - 1, argv + 1, &rf_ops, NULL);
}
