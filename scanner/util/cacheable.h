/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether a verdict about a file's content may be cached and reused.  The
 * cache key (dev, ino, size, mtime, ctime) only proves that a file did not
 * change if every change shows in it, and two kinds do not:
 *
 * - writes through a shared writable mapping into a page that is dirty
 *   already change no timestamp; such a mapping keeps the file open for
 *   writing, so nothing is cached or served while anyone has the file
 *   open for writing (a read lease is granted only then);
 * - a change within the timestamp's granularity (a clock tick, or 2 s on
 *   vfat) leaves the timestamps equal; a file whose ctime is not older
 *   than that before the scan starts is "racily clean" (as git calls it)
 *   and is not cached.
 *
 * Filesystems that can change under us without a local writer (network
 * and FUSE filesystems, overlayfs whose lower layers are written directly)
 * are not cached at all: only a list of local filesystems is.
 */
#ifndef SCANNER_CACHEABLE_H
#define SCANNER_CACHEABLE_H

#include <sys/stat.h>
#include <time.h>

/* 1 if nobody has the file open for writing (or mapped shared-writable). */
int cacheable_no_writer(int fd);

/*
 * Before the fstat whose st cacheable_before_scan() judges: the coarse
 * clock, the one file timestamps come from.
 */
void cacheable_clock(struct timespec *now);

/* 1 if a verdict from a scan of fd, starting now, may be cached. */
int cacheable_before_scan(int fd, const struct stat *st, const struct timespec *now);

/* After the scan: 1 if the file is still what st described, with no writer. */
int cacheable_after_scan(int fd, const struct stat *st);

/* For the tests: the window within which a change may not show in st. */
long long cacheable_granularity_ns(const struct stat *st);

#endif
