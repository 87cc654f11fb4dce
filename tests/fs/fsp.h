/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fs-passthrough: cmocka integration tests of the dazukofs pass-through.
 *
 * Every test works in its own directory, reachable through two paths:
 * the "lower view" (the lower directory, e.g. a bind mount of it) and the
 * "upper view" (the dazukofs mount).  L("name") and U("name") give the same
 * entry through the two views.
 */
#ifndef FSP_H
#define FSP_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define DAZUKOFS_MAGIC 0x64617a75

extern const char *fsp_lower;   /* lower view of the whole mount */
extern const char *fsp_upper;   /* dazukofs mount */
extern bool fsp_expect_dazukofs; /* false in self-test mode (no module) */
extern bool fsp_is_root;
extern long fsp_lower_fstype;   /* statfs f_type of the lower */
/*
 * Does the lower keep Unix file semantics (modes as given, symlinks)?  Not
 * vfat or exfat: the tests that rely on them are skipped there, and
 * test_nonposix_agrees holds the mount to the lower's answers instead.
 */
extern bool fsp_lower_posix;
#define FSP_NEEDS_POSIX() do { \
	if (!fsp_lower_posix) { \
		print_message("lower without Unix semantics: see test_nonposix_agrees\n"); \
		skip(); \
	} \
} while (0)
#define FSP_BTRFS_MAGIC 0x9123683e
/*
 * Does the mount show the lower's st_dev?  Only where that is not the
 * lower superblock's own (btrfs subvolumes): else (dev, ino) pairs would
 * repeat.  Everywhere else the mount has a st_dev of its own.
 */
#define fsp_mount_keeps_dev() (fsp_lower_fstype == FSP_BTRFS_MAGIC)

/* Paths of the current test's directory in the lower and upper views. */
const char *L(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *U(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* File helpers; they fail the test on error. */
void put_file(const char *path, const void *data, size_t len);
void put_str(const char *path, const char *s);
/* Reads up to cap bytes, returns length (fails the test on error). */
size_t get_file(const char *path, void *buf, size_t cap);
/* Asserts the whole content of path equals s. */
void assert_content(const char *path, const char *s);
void assert_content_mem(const char *path, const void *data, size_t len);
bool path_exists(const char *path); /* lstat succeeds */
void fill_pattern(void *buf, size_t len, unsigned seed);

/* Runs fn(arg) in a child with uid/gid 65534 and no supplementary groups;
 * fn returns 0 on success.  Asserts the child succeeded. */
void run_as_nobody(int (*fn)(void *), void *arg);

/* Result of a syscall: return value and errno (0 if it succeeded). */
struct res { long ret; int err; };
#define RES(expr) ({ errno = 0; long r__ = (long)(expr); \
	(struct res){ r__, r__ < 0 ? errno : 0 }; })

/* Asserts expr fails with errno e. */
#define assert_errno(expr, e) do { \
	errno = 0; long r__ = (long)(expr); int e__ = errno; \
	if (r__ != -1 || e__ != (e)) \
		fail_msg("%s: expected -1/%s, got %ld/%s", #expr, \
			 strerrorname_np(e), r__, \
			 r__ == -1 ? strerrorname_np(e__) : "-"); \
} while (0)

/* Asserts expr succeeds (>= 0) and evaluates to its value. */
#define OK(expr) ({ errno = 0; long r__ = (long)(expr); \
	if (r__ < 0) fail_msg("%s failed: %s", #expr, strerror(errno)); \
	r__; })

/* Asserts the lower and upper variant of a call give the same result. */
#define assert_same_res(a, b) do { \
	struct res a__ = (a), b__ = (b); \
	if (a__.ret != b__.ret || a__.err != b__.err) \
		fail_msg("lower gave %ld/%s, upper gave %ld/%s", \
			 a__.ret, a__.err ? strerrorname_np(a__.err) : "0", \
			 b__.ret, b__.err ? strerrorname_np(b__.err) : "0"); \
} while (0)

/* Same, for calls returning a new fd or pointer: only success/errno count. */
#define assert_same_err(a, b) do { \
	struct res a__ = (a), b__ = (b); \
	if (a__.err != b__.err) \
		fail_msg("lower gave %s, upper gave %s", \
			 a__.err ? strerrorname_np(a__.err) : "success", \
			 b__.err ? strerrorname_np(b__.err) : "success"); \
} while (0)

/* Child-side check (no cmocka in forked children). */
#define CHK(cond) do { if (!(cond)) { \
	fprintf(stderr, "child check failed %s:%d: %s (errno %s)\n", \
		__FILE__, __LINE__, #cond, strerrorname_np(errno)); \
	_exit(1); } } while (0)

/* Compares two struct stat, ignoring st_dev and atime. */
void assert_stat_same(const struct stat *a, const struct stat *b);

#define FSP_TESTS(X) \
	X(mount_identity) \
	X(lookup) X(create) X(open_trunc) X(open_append) X(open_excl) \
	X(open_excl_existing) X(o_tmpfile) X(o_direct) X(o_nofollow_o_directory) \
	X(read_write) X(pread_pwrite) X(readv_writev) X(preadv2_pwritev2) \
	X(lseek) X(seek_data_hole) X(fsync_fdatasync) X(fallocate_modes) \
	X(truncate_ftruncate) X(splice_file_pipe_file) X(sendfile_copy) \
	X(copy_file_range_within) X(copy_file_range_to_lower) \
	X(mmap_private_read) X(mmap_shared_write) X(mmap_sees_lower_write) \
	X(mmap_private_write_stays) X(mmap_after_ftruncate) X(mmap_maps_user_path) \
	X(lower_file_not_counted) X(etxtbsy_both_ways) \
	X(splice_notifies_lower) \
	X(page_cache_single_copy) \
	X(readdir_types) X(readdir_large) X(seekdir_telldir) X(mkdir_) \
	X(rmdir_) X(unlink_) X(rename_plain) X(rename_over_existing) \
	X(rename_noreplace) X(rename_exchange) X(rename_dir) X(link_) \
	X(symlink_readlink) X(mknod_fifo) X(mknod_chardev) X(chmod_) \
	X(chown_) X(utimensat_) X(stat_lstat_statx) X(statfs_statvfs) \
	X(nonposix_agrees) \
	X(xattr_user) X(xattr_errors) X(xattr_trusted) X(xattr_security) \
	X(acl_access) X(acl_default_inherited) X(acl_permission) \
	X(perm_private_file) X(perm_readable_file) X(perm_dir_noexec) \
	X(perm_sticky_dir) \
	X(flock_) X(posix_locks) X(ofd_locks) X(locks_are_the_lowers) \
	X(lease_refused) X(ioctl_flags) \
	X(lower_create_after_negative) X(lower_unlink) X(lower_rename) \
	X(lower_rmdir_mkdir) X(lower_replace) X(lower_truncate_extend) \
	X(lower_write_while_open) X(lower_random_interleaved)

#define FSP_DECL(name) void test_##name(void **state);
FSP_TESTS(FSP_DECL)

#endif
