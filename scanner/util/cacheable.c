// SPDX-License-Identifier: GPL-2.0
/* Whether a verdict may be cached and reused (see cacheable.h). */
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "util/cacheable.h"
#include "util/file_version.h"

#define NSEC_PER_SEC 1000000000LL

/*
 * Local filesystems: every change to a file goes through this kernel's
 * inode, so timestamps and write counts see it.
 */
static const unsigned long local_fs_types[] = {
	TMPFS_MAGIC, RAMFS_MAGIC, EXT4_SUPER_MAGIC, XFS_SUPER_MAGIC,
	BTRFS_SUPER_MAGIC, F2FS_SUPER_MAGIC, MSDOS_SUPER_MAGIC,
	EXFAT_SUPER_MAGIC, SQUASHFS_MAGIC, ISOFS_SUPER_MAGIC,
	EROFS_SUPER_MAGIC_V1,
};

static int local_fs(int fd)
{
	struct statfs sfs;

	if (fstatfs(fd, &sfs))
		return 0;
	for (size_t i = 0; i < sizeof(local_fs_types) / sizeof(local_fs_types[0]); i++)
		if ((unsigned long)sfs.f_type == local_fs_types[i])
			return 1;
	return 0;
}

int cacheable_no_writer(int fd)
{
	/*
	 * A read lease is refused (EAGAIN) while the inode is open for
	 * writing anywhere; any other refusal (no CAP_LEASE, a filesystem
	 * without leases) proves nothing either.  It is dropped at once, so
	 * a writer arriving meanwhile waits only for these two calls.
	 */
	if (fcntl(fd, F_SETLEASE, F_RDLCK))
		return 0;
	fcntl(fd, F_SETLEASE, F_UNLCK);
	return 1;
}

void cacheable_clock(struct timespec *now)
{
	clock_gettime(CLOCK_REALTIME_COARSE, now);
}

/*
 * Timestamps are multiples of their filesystem's granularity, a divisor
 * of a second (1 ns, 100 ns, 10 ms, 1 s) or 2 s (vfat): a timestamp's
 * trailing decimal zeros bound it from above.
 */
static long long granularity_of(const struct timespec *t)
{
	long long g = 1;
	long nsec = t->tv_nsec;

	if (!nsec)
		return 2 * NSEC_PER_SEC;
	while (nsec % 10 == 0) {
		nsec /= 10;
		g *= 10;
	}
	return g;
}

long long cacheable_granularity_ns(const struct stat *st)
{
	return granularity_of(&st->st_ctim);
}

static long long ns_of(const struct timespec *t)
{
	return (long long)t->tv_sec * NSEC_PER_SEC + t->tv_nsec;
}

int cacheable_before_scan(int fd, const struct stat *st, const struct timespec *now)
{
	long long limit = ns_of(now) - cacheable_granularity_ns(st);

	/*
	 * Every change sets ctime (mtime is the user's to set) to the coarse
	 * clock of then, truncated to the granularity: at least limit.  Only
	 * a file last changed before limit is told apart from its next
	 * version.
	 */
	if (ns_of(&st->st_ctim) >= limit)
		return 0;
	return local_fs(fd) && cacheable_no_writer(fd);
}

int cacheable_after_scan(int fd, const struct stat *st)
{
	struct stat now;

	if (fstat(fd, &now))
		return 0;
	if (!stat_same_version(&now, st))
		return 0;
	return cacheable_no_writer(fd);
}
