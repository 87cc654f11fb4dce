// SPDX-License-Identifier: GPL-2.0
/* fs-passthrough: directories, names, inode attributes, statfs. */
#include "fsp.h"

#include <dirent.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

struct dent { char name[256]; unsigned char type; uint64_t ino; };

static int dent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct dent *)a)->name,
		      ((const struct dent *)b)->name);
}

/* Reads a whole directory with getdents64 and a buffer of bufsz bytes. */
static size_t read_dents(const char *path, struct dent *out, size_t max,
			 size_t bufsz, int *calls)
{
	char *buf = malloc(bufsz);
	size_t n = 0;
	long r;
	int fd = OK(open(path, O_RDONLY | O_DIRECTORY));

	assert_non_null(buf);
	*calls = 0;
	while ((r = syscall(SYS_getdents64, fd, buf, bufsz)) > 0) {
		(*calls)++;
		for (long off = 0; off < r;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);

			assert_true(n < max);
			snprintf(out[n].name, sizeof(out[n].name), "%s",
				 d->d_name);
			out[n].type = d->d_type;
			out[n].ino = d->d_ino;
			n++;
			off += d->d_reclen;
		}
	}
	assert_int_equal(r, 0);
	close(fd);
	free(buf);
	qsort(out, n, sizeof(*out), dent_cmp);
	return n;
}

static void assert_dents_same(const char *lp, const char *up, size_t max,
			      size_t bufsz, int *ucalls)
{
	struct dent *a = calloc(max, sizeof(*a)), *b = calloc(max, sizeof(*b));
	int calls;
	size_t na, nb;

	assert_non_null(a);
	assert_non_null(b);
	na = read_dents(lp, a, max, 32768, &calls);
	nb = read_dents(up, b, max, bufsz, ucalls);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_string_equal(a[i].name, b[i].name);
		if (i && !strcmp(b[i].name, b[i - 1].name))
			fail_msg("duplicate entry %s", b[i].name);
		assert_int_equal(a[i].type, b[i].type);
		if (strcmp(a[i].name, ".."))
			assert_int_equal(a[i].ino, b[i].ino);
	}
	free(a);
	free(b);
}

void test_readdir_types(void **state)
{
	int calls;

	(void)state;
	FSP_NEEDS_POSIX();
	put_str(L("file"), "x");
	OK(mkdir(L("dir"), 0755));
	OK(symlink("file", L("link")));
	OK(mkfifo(L("fifo"), 0644));
	put_str(U("via-upper"), "y");
	OK(mkdir(U("dir-upper"), 0755));
	assert_dents_same(L("."), U("."), 64, 32768, &calls);
	{
		struct dent d[16];
		size_t n = read_dents(U("."), d, 16, 32768, &calls);

		assert_int_equal(n, 8);
		for (size_t i = 0; i < n; i++)
			if (!strcmp(d[i].name, "fifo"))
				assert_true(d[i].type == DT_FIFO ||
					    d[i].type == DT_UNKNOWN);
	}
}

void test_readdir_large(void **state)
{
	int calls;

	(void)state;
	OK(mkdir(L("big"), 0755));
	/* vfat creates in time linear in the directory's size: 500, not more */
	for (int i = 0; i < 500; i++) {
		char name[64];
		int fd;

		snprintf(name, sizeof(name), "big/entry-with-a-longish-name-%05d",
			 i);
		fd = OK(open(L("%s", name), O_CREAT | O_WRONLY, 0644));
		close(fd);
	}
	assert_dents_same(L("big"), U("big"), 600, 2048, &calls);
	assert_true(calls > 5);
	print_message("502 entries in %d getdents64 calls\n", calls);
}

void test_seekdir_telldir(void **state)
{
	char first[10][256], again[10][256];
	struct dirent *d;
	long pos;
	int total = 0, total2 = 0;
	DIR *dir;

	(void)state;
	OK(mkdir(L("d"), 0755));
	for (int i = 0; i < 300; i++) {
		int fd = OK(open(L("d/f%04d", i), O_CREAT | O_WRONLY, 0644));

		close(fd);
	}
	dir = opendir(U("d"));
	assert_non_null(dir);
	for (int i = 0; i < 150; i++)
		assert_non_null(readdir(dir));
	pos = telldir(dir);
	assert_true(pos >= 0);
	for (int i = 0; i < 10; i++) {
		assert_non_null(d = readdir(dir));
		snprintf(first[i], 256, "%s", d->d_name);
	}
	seekdir(dir, pos);
	for (int i = 0; i < 10; i++) {
		assert_non_null(d = readdir(dir));
		snprintf(again[i], 256, "%s", d->d_name);
		assert_string_equal(first[i], again[i]);
	}
	rewinddir(dir);
	while (readdir(dir))
		total++;
	assert_int_equal(total, 302);
	/* lseek on the directory fd to 0 also restarts */
	OK(lseek(dirfd(dir), 0, SEEK_SET));
	while ((d = readdir(dir)))
		total2++;
	assert_int_equal(total2, 302);
	closedir(dir);
}

void test_mkdir_(void **state)
{
	/* btrfs counts no subdirectories: a directory's st_nlink is 1 */
	nlink_t base = fsp_lower_fstype == FSP_BTRFS_MAGIC ? 1 : 2;
	struct stat st;

	(void)state;
	FSP_NEEDS_POSIX();
	OK(mkdir(U("d"), 0750));
	OK(stat(L("d"), &st));
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0750);
	assert_int_equal(st.st_nlink, base);
	OK(mkdir(U("d/e"), 0755));
	OK(stat(L("d"), &st));
	assert_int_equal(st.st_nlink, base == 1 ? 1 : 3);
	assert_true(path_exists(L("d/e")));
	assert_errno(mkdir(U("d"), 0755), EEXIST);
	assert_errno(mkdir(U("nope/x"), 0755), ENOENT);
	put_str(L("f"), "");
	assert_errno(mkdir(U("f/x"), 0755), ENOTDIR);
	/* files created in the new dir through the mount land there */
	put_str(U("d/e/file"), "deep");
	assert_content(L("d/e/file"), "deep");
}

void test_rmdir_(void **state)
{
	(void)state;
	OK(mkdir(L("full"), 0755));
	put_str(L("full/f"), "x");
	assert_same_res(RES(rmdir(L("full"))), RES(rmdir(U("full"))));
	assert_errno(rmdir(U("full")), ENOTEMPTY);
	assert_true(path_exists(L("full/f")));
	OK(mkdir(L("empty"), 0755));
	OK(rmdir(U("empty")));
	assert_false(path_exists(L("empty")));
	assert_errno(rmdir(U("empty")), ENOENT);
	assert_errno(rmdir(U("full/f")), ENOTDIR);
	/* emptied through the mount: now removable */
	OK(unlink(U("full/f")));
	OK(rmdir(U("full")));
	assert_false(path_exists(L("full")));
}

void test_unlink_(void **state)
{
	char buf[8];
	int fd;

	(void)state;
	put_str(L("f"), "gone soon");
	fd = OK(open(U("f"), O_RDONLY));
	OK(unlink(U("f")));
	assert_false(path_exists(L("f")));
	assert_errno(open(U("f"), O_RDONLY), ENOENT);
	/* the open file stays readable */
	assert_int_equal(read(fd, buf, 4), 4);
	assert_memory_equal(buf, "gone", 4);
	close(fd);
	assert_errno(unlink(U("f")), ENOENT);
	OK(mkdir(L("d"), 0755));
	assert_same_res(RES(unlink(L("d"))), RES(unlink(U("d"))));
	assert_true(path_exists(L("d")));
	/* recreate the same name through the mount */
	put_str(U("f"), "new");
	assert_content(L("f"), "new");
}

void test_rename_plain(void **state)
{
	struct stat a, b;

	(void)state;
	put_str(L("a"), "content-a");
	OK(stat(L("a"), &a));
	OK(rename(U("a"), U("b")));
	assert_false(path_exists(L("a")));
	assert_content(L("b"), "content-a");
	OK(stat(L("b"), &b));
	assert_int_equal(a.st_ino, b.st_ino);
	assert_errno(stat(U("a"), &a), ENOENT);
	OK(mkdir(L("sub"), 0755));
	OK(rename(U("b"), U("sub/c")));
	assert_content(L("sub/c"), "content-a");
	assert_content(U("sub/c"), "content-a");
	assert_errno(rename(U("nope"), U("x")), ENOENT);
	/* rename to itself is a no-op */
	OK(rename(U("sub/c"), U("sub/c")));
	assert_content(L("sub/c"), "content-a");
}

void test_rename_over_existing(void **state)
{
	struct stat st, sa;
	int fd;

	(void)state;
	put_str(L("a"), "new content");
	put_str(L("b"), "old content");
	OK(stat(L("a"), &sa));
	fd = OK(open(U("b"), O_RDONLY));
	OK(rename(U("a"), U("b")));
	assert_content(L("b"), "new content");
	assert_content(U("b"), "new content");
	OK(stat(U("b"), &st));
	assert_int_equal(st.st_ino, sa.st_ino);
	assert_false(path_exists(L("a")));
	{
		char buf[16] = { 0 };

		assert_int_equal(read(fd, buf, 15), 11);
		assert_string_equal(buf, "old content");
	}
	close(fd);
	/* directory over non-empty directory / file over directory */
	OK(mkdir(L("d1"), 0755));
	OK(mkdir(L("d2"), 0755));
	put_str(L("d2/x"), "x");
	assert_same_res(RES(rename(L("d1"), L("d2"))),
			RES(rename(U("d1"), U("d2"))));
	assert_errno(rename(U("b"), U("d1")), EISDIR);
	assert_errno(rename(U("d1"), U("b")), ENOTDIR);
	OK(mkdir(L("d3"), 0755));
	OK(rename(U("d1"), U("d3")));
	assert_false(path_exists(L("d1")));
}

/*
 * Does the lower take this renameat2() flag?  NFS takes none: then the
 * mount must refuse it the same way (after the VFS's own EEXIST check).
 */
static bool lower_renames_with(unsigned int flag, const char *what)
{
	struct res rl, ru;

	put_str(L("probe-a"), "A");
	/* RENAME_EXCHANGE needs a target, RENAME_NOREPLACE none */
	if (flag == RENAME_EXCHANGE)
		put_str(L("probe-b"), "B");
	rl = RES(renameat2(AT_FDCWD, L("probe-a"), AT_FDCWD, L("probe-b"),
			   flag));
	if (!rl.err) {
		if (flag != RENAME_EXCHANGE)
			OK(unlink(L("probe-b")));
		return true;
	}
	ru = RES(renameat2(AT_FDCWD, U("probe-a"), AT_FDCWD, U("probe-b"),
			   flag));
	assert_same_res(rl, ru);
	print_message("lower refuses %s (%s), mount agrees\n", what,
		      strerrorname_np(rl.err));
	return false;
}

void test_rename_noreplace(void **state)
{
	(void)state;
	if (!lower_renames_with(RENAME_NOREPLACE, "RENAME_NOREPLACE"))
		return;
	put_str(L("a"), "A");
	put_str(L("b"), "B");
	assert_errno(renameat2(AT_FDCWD, U("a"), AT_FDCWD, U("b"),
			       RENAME_NOREPLACE), EEXIST);
	assert_content(L("a"), "A");
	assert_content(L("b"), "B");
	OK(renameat2(AT_FDCWD, U("a"), AT_FDCWD, U("c"), RENAME_NOREPLACE));
	assert_content(L("c"), "A");
	assert_false(path_exists(L("a")));
}

void test_rename_exchange(void **state)
{
	struct dent;
	struct stat sa, sb, st;

	(void)state;
	if (!lower_renames_with(RENAME_EXCHANGE, "RENAME_EXCHANGE"))
		return;
	put_str(L("a"), "A");
	OK(mkdir(L("b"), 0755));
	put_str(L("b/inner"), "I");
	OK(stat(L("a"), &sa));
	OK(stat(L("b"), &sb));
	OK(renameat2(AT_FDCWD, U("a"), AT_FDCWD, U("b"), RENAME_EXCHANGE));
	assert_content(L("b"), "A");
	assert_content(L("a/inner"), "I");
	assert_content(U("a/inner"), "I");
	OK(stat(U("a"), &st));
	assert_int_equal(st.st_ino, sb.st_ino);
	assert_true(S_ISDIR(st.st_mode));
	OK(stat(U("b"), &st));
	assert_int_equal(st.st_ino, sa.st_ino);
	assert_errno(renameat2(AT_FDCWD, U("a"), AT_FDCWD, U("nope"),
			       RENAME_EXCHANGE), ENOENT);
}

void test_rename_dir(void **state)
{
	(void)state;
	OK(mkdir(L("d"), 0755));
	OK(mkdir(L("d/sub"), 0755));
	put_str(L("d/sub/f"), "deep");
	assert_content(U("d/sub/f"), "deep"); /* cache the dentries */
	OK(mkdir(L("other"), 0755));
	OK(rename(U("d"), U("other/moved")));
	assert_false(path_exists(L("d")));
	assert_errno(open(U("d/sub/f"), O_RDONLY), ENOENT);
	assert_content(L("other/moved/sub/f"), "deep");
	assert_content(U("other/moved/sub/f"), "deep");
	/* into its own subdirectory */
	assert_errno(rename(U("other"), U("other/moved/x")), EINVAL);
	/* creation in the renamed dir through the mount */
	put_str(U("other/moved/new"), "n");
	assert_content(L("other/moved/new"), "n");
}

void test_link_(void **state)
{
	struct stat sl, su, so;

	(void)state;
	FSP_NEEDS_POSIX();
	put_str(L("f"), "linked");
	OK(link(U("f"), U("g")));
	OK(stat(L("g"), &sl));
	OK(stat(U("g"), &su));
	OK(stat(U("f"), &so));
	assert_int_equal(sl.st_nlink, 2);
	assert_int_equal(su.st_nlink, 2);
	assert_int_equal(so.st_nlink, 2);
	assert_int_equal(su.st_ino, sl.st_ino);
	assert_int_equal(so.st_ino, sl.st_ino);
	assert_content(L("g"), "linked");
	/* write via one name, read via the other */
	put_str(U("g"), "changed");
	assert_content(U("f"), "changed");
	/* link made in the lower shows up in the mount's count */
	OK(link(L("f"), L("h")));
	OK(stat(U("f"), &su));
	assert_int_equal(su.st_nlink, 3);
	OK(unlink(U("f")));
	OK(stat(U("g"), &su));
	assert_int_equal(su.st_nlink, 2);
	assert_errno(link(U("g"), U("h")), EEXIST);
	OK(mkdir(L("d"), 0755));
	assert_errno(link(U("d"), U("dlink")), EPERM);
}

void test_symlink_readlink(void **state)
{
	char a[256], b[256];
	struct stat st;
	ssize_t na, nb;

	(void)state;
	FSP_NEEDS_POSIX();
	OK(symlink("some/target/../x", U("s")));
	na = OK(readlink(L("s"), a, sizeof(a)));
	nb = OK(readlink(U("s"), b, sizeof(b)));
	assert_int_equal(na, 16);
	assert_int_equal(nb, na);
	assert_memory_equal(a, "some/target/../x", 16);
	assert_memory_equal(b, a, na);
	OK(lstat(U("s"), &st));
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(st.st_size, 16);
	/* made in the lower, followed through the mount */
	OK(mkdir(L("d"), 0755));
	put_str(L("target"), "through the link");
	OK(symlink("../target", L("d/rel")));
	assert_content(U("d/rel"), "through the link");
	nb = OK(readlink(U("d/rel"), b, sizeof(b)));
	assert_int_equal(nb, 9);
	/* truncated readlink */
	assert_int_equal(readlink(U("d/rel"), b, 3), 3);
	assert_memory_equal(b, "../", 3);
	assert_errno(readlink(U("target"), b, sizeof(b)), EINVAL);
	assert_errno(symlink("x", U("target")), EEXIST);
	/* a long target */
	memset(a, 'y', 255);
	a[255] = 0;
	OK(symlink(a, U("long")));
	assert_int_equal(readlink(L("long"), b, sizeof(b)), 255);
	assert_memory_equal(a, b, 255);
}

void test_mknod_fifo(void **state)
{
	struct stat st;
	int r, w;
	char buf[8];

	(void)state;
	FSP_NEEDS_POSIX();
	OK(mknod(U("fifo"), S_IFIFO | 0640, 0));
	OK(stat(L("fifo"), &st));
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0640);
	OK(mkfifo(U("fifo2"), 0600));
	OK(stat(L("fifo2"), &st));
	assert_true(S_ISFIFO(st.st_mode));
	r = OK(open(U("fifo"), O_RDONLY | O_NONBLOCK));
	w = OK(open(U("fifo"), O_WRONLY | O_NONBLOCK));
	assert_int_equal(write(w, "pipe", 4), 4);
	assert_int_equal(read(r, buf, 8), 4);
	assert_memory_equal(buf, "pipe", 4);
	close(w);
	close(r);
	assert_errno(open(U("fifo2"), O_WRONLY | O_NONBLOCK), ENXIO);
	/* a fifo made in the lower opens through the mount */
	OK(mkfifo(L("lfifo"), 0644));
	r = OK(open(U("lfifo"), O_RDONLY | O_NONBLOCK));
	close(r);
}

void test_mknod_chardev(void **state)
{
	struct stat st;
	char buf[4];
	int fd;

	(void)state;
	FSP_NEEDS_POSIX();
	if (!fsp_is_root)
		skip();
	OK(mknod(U("null"), S_IFCHR | 0666, makedev(1, 3)));
	OK(stat(L("null"), &st));
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(major(st.st_rdev), 1);
	assert_int_equal(minor(st.st_rdev), 3);
	OK(stat(U("null"), &st));
	assert_int_equal(st.st_rdev, makedev(1, 3));
	{
		struct res rl = RES(fd = open(L("null"), O_RDWR));
		int fu;
		struct res ru = RES(fu = open(U("null"), O_RDWR));

		if (fu >= 0)
			close(fu);
		assert_same_err(rl, ru);
	}
	if (fd < 0) {
		print_message("device nodes not openable here (nodev?)\n");
		return;
	}
	close(fd);
	fd = OK(open(U("null"), O_RDWR));
	assert_int_equal(write(fd, "discard", 7), 7);
	assert_int_equal(read(fd, buf, 4), 0);
	close(fd);
}

void test_chmod_(void **state)
{
	struct stat st;
	int fd;

	(void)state;
	FSP_NEEDS_POSIX();
	put_str(L("f"), "x");
	OK(chmod(U("f"), 0604));
	OK(stat(L("f"), &st));
	assert_int_equal(st.st_mode & 07777, 0604);
	OK(chmod(L("f"), 0711));
	OK(stat(U("f"), &st));
	assert_int_equal(st.st_mode & 07777, 0711);
	fd = OK(open(U("f"), O_RDONLY));
	OK(fchmod(fd, 04755));
	OK(fstat(fd, &st));
	assert_int_equal(st.st_mode & 07777, 04755);
	close(fd);
	OK(stat(L("f"), &st));
	assert_int_equal(st.st_mode & 07777, 04755);
	OK(mkdir(L("d"), 0755));
	OK(chmod(U("d"), 01777));
	OK(stat(L("d"), &st));
	assert_int_equal(st.st_mode & 07777, 01777);
	assert_true(S_ISDIR(st.st_mode));
}

void test_chown_(void **state)
{
	struct stat st;
	int fd;

	(void)state;
	FSP_NEEDS_POSIX();
	if (!fsp_is_root)
		skip();
	put_str(L("f"), "x");
	OK(chown(U("f"), 65534, 65534));
	OK(stat(L("f"), &st));
	assert_int_equal(st.st_uid, 65534);
	assert_int_equal(st.st_gid, 65534);
	OK(chown(U("f"), -1, 0));
	OK(stat(L("f"), &st));
	assert_int_equal(st.st_uid, 65534);
	assert_int_equal(st.st_gid, 0);
	OK(symlink("f", L("s")));
	OK(lchown(U("s"), 1234, 5678));
	OK(lstat(L("s"), &st));
	assert_int_equal(st.st_uid, 1234);
	assert_int_equal(st.st_gid, 5678);
	OK(stat(L("f"), &st));
	assert_int_equal(st.st_uid, 65534);
	fd = OK(open(U("f"), O_RDONLY));
	OK(fchown(fd, 0, 0));
	close(fd);
	OK(stat(L("f"), &st));
	assert_int_equal(st.st_uid, 0);
	/* chown in the lower, seen in the mount */
	OK(chown(L("f"), 42, 43));
	OK(stat(U("f"), &st));
	assert_int_equal(st.st_uid, 42);
	assert_int_equal(st.st_gid, 43);
	/* setuid bit: same clearing as the lower's */
	put_str(L("g"), "x");
	OK(chmod(L("f"), 06755));
	OK(chmod(L("g"), 06755));
	OK(chown(L("f"), 7, 7));
	OK(chown(U("g"), 7, 7));
	{
		struct stat a, b;

		OK(stat(L("f"), &a));
		OK(stat(L("g"), &b));
		assert_int_equal(a.st_mode, b.st_mode);
	}
}

void test_utimensat_(void **state)
{
	struct timespec ts[2] = {
		{ 1000000000, 123456789 }, { 1500000000, 987654321 }
	};
	struct timespec now;
	struct stat st, before;
	int fd;

	(void)state;
	FSP_NEEDS_POSIX();
	put_str(L("f"), "x");
	OK(utimensat(AT_FDCWD, U("f"), ts, 0));
	OK(stat(L("f"), &st));
	assert_int_equal(st.st_atim.tv_sec, 1000000000);
	assert_int_equal(st.st_atim.tv_nsec, 123456789);
	assert_int_equal(st.st_mtim.tv_sec, 1500000000);
	assert_int_equal(st.st_mtim.tv_nsec, 987654321);
	OK(stat(U("f"), &st));
	assert_int_equal(st.st_mtim.tv_nsec, 987654321);
	/* UTIME_OMIT atime, new mtime */
	ts[0].tv_nsec = UTIME_OMIT;
	ts[1] = (struct timespec){ 1600000000, 5 };
	OK(utimensat(AT_FDCWD, U("f"), ts, 0));
	OK(stat(L("f"), &st));
	assert_int_equal(st.st_atim.tv_sec, 1000000000);
	assert_int_equal(st.st_atim.tv_nsec, 123456789);
	assert_int_equal(st.st_mtim.tv_sec, 1600000000);
	assert_int_equal(st.st_mtim.tv_nsec, 5);
	/* UTIME_NOW for mtime, omit atime; ctime moves too */
	OK(stat(L("f"), &before));
	clock_gettime(CLOCK_REALTIME, &now);
	ts[1].tv_nsec = UTIME_NOW;
	OK(utimensat(AT_FDCWD, U("f"), ts, 0));
	OK(stat(L("f"), &st));
	assert_int_equal(st.st_atim.tv_sec, 1000000000);
	assert_true(st.st_mtim.tv_sec >= now.tv_sec - 2 &&
		    st.st_mtim.tv_sec <= now.tv_sec + 2);
	assert_true(st.st_ctim.tv_sec > before.st_ctim.tv_sec ||
		    st.st_ctim.tv_nsec >= before.st_ctim.tv_nsec);
	/* NULL: both now */
	OK(utimensat(AT_FDCWD, U("f"), NULL, 0));
	OK(stat(L("f"), &st));
	assert_true(st.st_atim.tv_sec >= now.tv_sec - 2);
	/* symlink itself */
	OK(symlink("f", L("s")));
	ts[0] = (struct timespec){ 2000, 1 };
	ts[1] = (struct timespec){ 3000, 2 };
	OK(utimensat(AT_FDCWD, U("s"), ts, AT_SYMLINK_NOFOLLOW));
	OK(lstat(L("s"), &st));
	assert_int_equal(st.st_mtim.tv_sec, 3000);
	assert_int_equal(st.st_mtim.tv_nsec, 2);
	OK(stat(L("f"), &st));
	assert_true(st.st_mtim.tv_sec != 3000);
	/* futimens on a mount fd */
	fd = OK(open(U("f"), O_RDONLY));
	ts[1] = (struct timespec){ 4000, 999999999 };
	OK(futimens(fd, ts));
	close(fd);
	OK(stat(L("f"), &st));
	assert_int_equal(st.st_mtim.tv_sec, 4000);
	assert_int_equal(st.st_mtim.tv_nsec, 999999999);
}

static void assert_statx_same(const struct statx *a, const struct statx *b)
{
	assert_int_equal(a->stx_mask, b->stx_mask);
	assert_int_equal(a->stx_blksize, b->stx_blksize);
	/* the mount-root flag describes the path, not the file */
	assert_int_equal(a->stx_attributes & ~(uint64_t)STATX_ATTR_MOUNT_ROOT,
			 b->stx_attributes & ~(uint64_t)STATX_ATTR_MOUNT_ROOT);
	assert_int_equal(a->stx_nlink, b->stx_nlink);
	assert_int_equal(a->stx_uid, b->stx_uid);
	assert_int_equal(a->stx_gid, b->stx_gid);
	assert_int_equal(a->stx_mode, b->stx_mode);
	assert_int_equal(a->stx_ino, b->stx_ino);
	assert_int_equal(a->stx_size, b->stx_size);
	assert_int_equal(a->stx_blocks, b->stx_blocks);
	assert_int_equal(a->stx_attributes_mask, b->stx_attributes_mask);
	assert_int_equal(a->stx_btime.tv_sec, b->stx_btime.tv_sec);
	assert_int_equal(a->stx_btime.tv_nsec, b->stx_btime.tv_nsec);
	assert_int_equal(a->stx_ctime.tv_sec, b->stx_ctime.tv_sec);
	assert_int_equal(a->stx_ctime.tv_nsec, b->stx_ctime.tv_nsec);
	assert_int_equal(a->stx_mtime.tv_sec, b->stx_mtime.tv_sec);
	assert_int_equal(a->stx_mtime.tv_nsec, b->stx_mtime.tv_nsec);
	assert_int_equal(a->stx_rdev_major, b->stx_rdev_major);
	assert_int_equal(a->stx_rdev_minor, b->stx_rdev_minor);
}

void test_stat_lstat_statx(void **state)
{
	static const char *names[] = {
		"file", "dir", "link", "fifo", "sparse", "",
	};
	struct stat a, b;
	struct statx xa, xb;
	int fd;

	(void)state;
	FSP_NEEDS_POSIX();
	put_str(L("file"), "some bytes");
	OK(mkdir(L("dir"), 0700));
	OK(symlink("file", L("link")));
	OK(mkfifo(L("fifo"), 0600));
	fd = OK(open(L("sparse"), O_CREAT | O_WRONLY, 0640));
	assert_int_equal(pwrite(fd, "x", 1, 1 << 20), 1);
	close(fd);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		OK(lstat(L("%s", names[i]), &a));
		OK(lstat(U("%s", names[i]), &b));
		assert_stat_same(&a, &b);
		if (fsp_expect_dazukofs && fsp_mount_keeps_dev())
			assert_int_equal(a.st_dev, b.st_dev);
		else if (fsp_expect_dazukofs)
			assert_int_not_equal(a.st_dev, b.st_dev);
		OK(stat(L("%s", names[i]), &a));
		OK(stat(U("%s", names[i]), &b));
		assert_stat_same(&a, &b);
		OK(statx(AT_FDCWD, L("%s", names[i]), AT_SYMLINK_NOFOLLOW,
			 STATX_BASIC_STATS | STATX_BTIME, &xa));
		OK(statx(AT_FDCWD, U("%s", names[i]), AT_SYMLINK_NOFOLLOW,
			 STATX_BASIC_STATS | STATX_BTIME, &xb));
		assert_statx_same(&xa, &xb);
	}
	/* fstat on an fd opened through the mount */
	fd = OK(open(U("file"), O_RDONLY));
	OK(fstat(fd, &b));
	OK(stat(L("file"), &a));
	assert_stat_same(&a, &b);
	OK(statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS | STATX_BTIME, &xb));
	OK(statx(AT_FDCWD, L("file"), 0, STATX_BASIC_STATS | STATX_BTIME, &xa));
	assert_statx_same(&xa, &xb);
	close(fd);
	/* the mount's root */
	OK(stat(fsp_lower, &a));
	OK(stat(fsp_upper, &b));
	assert_stat_same(&a, &b);
	OK(statx(AT_FDCWD, fsp_lower, 0, STATX_BASIC_STATS | STATX_BTIME, &xa));
	OK(statx(AT_FDCWD, fsp_upper, 0, STATX_BASIC_STATS | STATX_BTIME, &xb));
	assert_statx_same(&xa, &xb);
	assert_errno(stat(U("missing"), &b), ENOENT);
}

void test_statfs_statvfs(void **state)
{
	struct statfs a, b;
	struct statvfs va, vb;

	(void)state;
	sync();
	OK(statfs(fsp_lower, &a));
	OK(statfs(U("."), &b));
	if (fsp_expect_dazukofs)
		assert_int_equal(b.f_type, DAZUKOFS_MAGIC);
	else
		assert_int_equal(b.f_type, a.f_type);
	assert_int_equal(a.f_bsize, b.f_bsize);
	assert_int_equal(a.f_frsize, b.f_frsize);
	assert_int_equal(a.f_blocks, b.f_blocks);
	assert_int_equal(a.f_files, b.f_files);
	assert_int_equal(a.f_namelen, b.f_namelen);
	/* free counts may move a little in between */
	assert_true(labs((long)a.f_bfree - (long)b.f_bfree) <= (long)(a.f_blocks / 100 + 16));
	assert_true(labs((long)a.f_bavail - (long)b.f_bavail) <= (long)(a.f_blocks / 100 + 16));
	assert_true(labs((long)a.f_ffree - (long)b.f_ffree) <= (long)(a.f_files / 100 + 16));
	OK(statvfs(L("."), &va));
	OK(statvfs(U("."), &vb));
	assert_int_equal(va.f_bsize, vb.f_bsize);
	assert_int_equal(va.f_frsize, vb.f_frsize);
	assert_int_equal(va.f_blocks, vb.f_blocks);
	assert_int_equal(va.f_files, vb.f_files);
	assert_int_equal(va.f_namemax, vb.f_namemax);
	/* statfs through a file fd of the mount */
	put_str(L("f"), "x");
	{
		int fd = OK(open(U("f"), O_RDONLY));

		OK(fstatfs(fd, &b));
		close(fd);
		assert_int_equal(b.f_blocks, a.f_blocks);
		if (fsp_expect_dazukofs)
			assert_int_equal(b.f_type, DAZUKOFS_MAGIC);
	}
}

/*
 * Every namespace and attribute change that a lower may refuse or bend
 * (vfat, exfat: no symlinks, hard links, devices or owners, fixed modes,
 * coarse times) gives through the mount the lower's own answer: the same
 * result or errno, and afterwards the same mode, owner and times as the
 * same change made on the lower.  On a Unix lower everything succeeds.
 */
void test_nonposix_agrees(void **state)
{
	struct timespec ts[2] = {
		{ 1000000000, 123456789 }, { 1500000000, 987654321 }
	};
	struct stat sl, su;

	(void)state;
	put_str(L("fl"), "lower");
	put_str(L("fu"), "upper");

	assert_same_res(RES(symlink("fl", L("sl"))), RES(symlink("fu", U("su"))));
	assert_same_res(RES(link(L("fl"), L("hl"))), RES(link(U("fu"), U("hu"))));
	assert_same_res(RES(mknod(L("pl"), S_IFIFO | 0640, 0)),
			RES(mknod(U("pu"), S_IFIFO | 0640, 0)));
	if (fsp_is_root) {
		assert_same_res(RES(mknod(L("cl"), S_IFCHR | 0666, makedev(1, 3))),
				RES(mknod(U("cu"), S_IFCHR | 0666, makedev(1, 3))));
		assert_same_res(RES(chown(L("fl"), 65534, 65534)),
				RES(chown(U("fu"), 65534, 65534)));
	}
	assert_same_res(RES(chmod(L("fl"), 0640)), RES(chmod(U("fu"), 0640)));
	assert_same_res(RES(utimensat(AT_FDCWD, L("fl"), ts, 0)),
			RES(utimensat(AT_FDCWD, U("fu"), ts, 0)));
	OK(stat(L("fl"), &sl));
	OK(stat(L("fu"), &su));
	assert_int_equal(sl.st_mode, su.st_mode);
	assert_int_equal(sl.st_uid, su.st_uid);
	assert_int_equal(sl.st_gid, su.st_gid);
	assert_int_equal(sl.st_mtim.tv_sec, su.st_mtim.tv_sec);
	assert_int_equal(sl.st_mtim.tv_nsec, su.st_mtim.tv_nsec);
	assert_int_equal(sl.st_atim.tv_sec, su.st_atim.tv_sec);
	/* and the mount shows what the lower keeps */
	OK(stat(U("fu"), &sl));
	assert_int_equal(sl.st_mode, su.st_mode);
	assert_int_equal(sl.st_mtim.tv_nsec, su.st_mtim.tv_nsec);

	assert_same_res(RES(mkdir(L("dl"), 0700)), RES(mkdir(U("du"), 0700)));
	OK(stat(L("dl"), &sl));
	OK(stat(L("du"), &su));
	assert_int_equal(sl.st_mode, su.st_mode);
	assert_same_res(RES(chmod(L("dl"), 01777)), RES(chmod(U("du"), 01777)));
	OK(stat(L("dl"), &sl));
	OK(stat(U("du"), &su));
	assert_int_equal(sl.st_mode, su.st_mode);
}
