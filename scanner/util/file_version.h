/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Is it still the same version of the file?  Every write moves a file's
 * ctime (and mtime), so two stats of one inode with the same size, mtime
 * and ctime saw the same content, but for the changes a timestamp cannot
 * show (cacheable.h says which, and what is done about them).
 */
#ifndef SCANNER_FILE_VERSION_H
#define SCANNER_FILE_VERSION_H

#include <sys/stat.h>

/* The same size and times, whatever the inode's identity. */
static inline int stat_same_times(const struct stat *a, const struct stat *b)
{
	return a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* The same inode, in the same version. */
static inline int stat_same_version(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       stat_same_times(a, b);
}

#endif
