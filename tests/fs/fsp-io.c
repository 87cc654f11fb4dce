// SPDX-License-Identifier: GPL-2.0
/* fs-passthrough: open flags, data I/O, mmap, page cache. */
#include <limits.h>
#include <signal.h>
#include <sys/utsname.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <time.h>

#include "fsp.h"

#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <linux/falloc.h>

void test_mount_identity(void **state)
{
	struct stat sl, su;
	struct statfs fl, fu;

	(void)state;
	OK(stat(fsp_lower, &sl));
	OK(stat(fsp_upper, &su));
	assert_int_equal(sl.st_ino, su.st_ino);
	assert_int_equal(sl.st_mode, su.st_mode);
	OK(statfs(fsp_lower, &fl));
	OK(statfs(fsp_upper, &fu));
	if (fsp_expect_dazukofs) {
		if (fsp_mount_keeps_dev())
			assert_int_equal(sl.st_dev, su.st_dev);
		else
			assert_int_not_equal(sl.st_dev, su.st_dev);
		assert_int_equal(fu.f_type, DAZUKOFS_MAGIC);
	}
	/* the test directory is visible through both views */
	OK(stat(L("."), &sl));
	OK(stat(U("."), &su));
	assert_int_equal(sl.st_ino, su.st_ino);
}

void test_lookup(void **state)
{
	struct stat sl, su;

	(void)state;
	OK(mkdir(L("d"), 0755));
	put_str(L("d/f"), "hello");
	OK(stat(U("d/f"), &su));
	OK(stat(L("d/f"), &sl));
	assert_int_equal(su.st_ino, sl.st_ino);
	assert_int_equal(su.st_size, 5);
	assert_true(S_ISREG(su.st_mode));
	OK(stat(U("d/../d/./f"), &su));
	assert_int_equal(su.st_ino, sl.st_ino);
	OK(stat(U("d/.."), &su));
	OK(stat(L("."), &sl));
	assert_int_equal(su.st_ino, sl.st_ino);
	assert_errno(stat(U("d/nope"), &su), ENOENT);
	assert_errno(stat(U("nope/f"), &su), ENOENT);
	assert_errno(stat(U("d/f/x"), &su), ENOTDIR);
	assert_content(U("d/f"), "hello");
}

void test_create(void **state)
{
	struct stat st, made_on_lower;
	int fd;

	(void)state;
	FSP_NEEDS_POSIX();
	fd = OK(open(U("new"), O_CREAT | O_WRONLY, 0640));
	assert_true(write(fd, "data", 4) == 4);
	OK(close(fd));
	OK(stat(L("new"), &st));
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0640);
	/* our uid, or whom the lower maps us to (NFS root_squash) */
	OK(close(OK(open(L("ref"), O_CREAT | O_WRONLY, 0600))));
	OK(stat(L("ref"), &made_on_lower));
	assert_int_equal(st.st_uid, made_on_lower.st_uid);
	assert_int_equal(st.st_gid, made_on_lower.st_gid);
	assert_content(L("new"), "data");
	fd = OK(creat(U("new2"), 0600));
	OK(close(fd));
	OK(stat(L("new2"), &st));
	assert_int_equal(st.st_size, 0);
	assert_int_equal(st.st_mode & 07777, 0600);
}

void test_open_trunc(void **state)
{
	struct stat st;
	int fd;

	(void)state;
	put_str(L("f"), "some content here");
	fd = OK(open(U("f"), O_WRONLY | O_TRUNC));
	OK(fstat(fd, &st));
	assert_int_equal(st.st_size, 0);
	OK(stat(L("f"), &st));
	assert_int_equal(st.st_size, 0);
	assert_true(write(fd, "xy", 2) == 2);
	OK(close(fd));
	assert_content(L("f"), "xy");
}

void test_open_append(void **state)
{
	int fd;

	(void)state;
	put_str(L("f"), "abc");
	fd = OK(open(U("f"), O_WRONLY | O_APPEND));
	OK(lseek(fd, 0, SEEK_SET));
	assert_true(write(fd, "def", 3) == 3);
	/* lower grows behind our back: the next append must go after it */
	{
		int lfd = OK(open(L("f"), O_WRONLY | O_APPEND));

		assert_true(write(lfd, "123", 3) == 3);
		OK(close(lfd));
	}
	assert_true(write(fd, "ghi", 3) == 3);
	assert_int_equal(lseek(fd, 0, SEEK_CUR), 12);
	OK(close(fd));
	assert_content(L("f"), "abcdef123ghi");
}

void test_open_excl(void **state)
{
	int fd;

	(void)state;
	FSP_NEEDS_POSIX();
	fd = OK(open(U("f"), O_CREAT | O_EXCL | O_WRONLY, 0644));
	assert_true(write(fd, "x", 1) == 1);
	OK(close(fd));
	assert_content(L("f"), "x");
	/* O_CREAT|O_EXCL on a dangling symlink must not create the target */
	OK(symlink("target", L("dangling")));
	assert_errno(open(U("dangling"), O_CREAT | O_EXCL | O_WRONLY, 0644),
		     EEXIST);
	assert_false(path_exists(L("target")));
}

void test_open_excl_existing(void **state)
{
	(void)state;
	put_str(L("f"), "keep");
	assert_same_err(RES(open(L("f"), O_CREAT | O_EXCL | O_WRONLY, 0644)),
			RES(open(U("f"), O_CREAT | O_EXCL | O_WRONLY, 0644)));
	assert_errno(open(U("f"), O_CREAT | O_EXCL | O_WRONLY | O_TRUNC, 0644),
		     EEXIST);
	OK(mkdir(L("d"), 0755));
	assert_errno(open(U("d"), O_CREAT | O_EXCL | O_RDONLY, 0644), EEXIST);
	assert_content(L("f"), "keep");
}

void test_o_tmpfile(void **state)
{
	char proc[64];
	struct stat st;
	int fd;

	(void)state;
	fd = open(L("."), O_TMPFILE | O_RDWR, 0600);
	if (fd < 0) {
		print_message("lower has no O_TMPFILE (%s): skipping\n",
			      strerror(errno));
		skip();
	}
	close(fd);
	fd = OK(open(U("."), O_TMPFILE | O_RDWR, 0600));
	assert_true(write(fd, "tmpdata", 7) == 7);
	OK(fstat(fd, &st));
	assert_int_equal(st.st_nlink, 0);
	assert_int_equal(st.st_size, 7);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	OK(linkat(AT_FDCWD, proc, AT_FDCWD, U("linked"), AT_SYMLINK_FOLLOW));
	OK(fstat(fd, &st));
	assert_int_equal(st.st_nlink, 1);
	OK(close(fd));
	assert_content(L("linked"), "tmpdata");
	OK(stat(L("linked"), &st));
	assert_int_equal(st.st_mode & 07777, 0600);
	/* O_TMPFILE|O_EXCL: can never be linked */
	fd = OK(open(U("."), O_TMPFILE | O_RDWR | O_EXCL, 0600));
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	assert_int_equal(linkat(AT_FDCWD, proc, AT_FDCWD, U("linked2"),
				AT_SYMLINK_FOLLOW), -1);
	OK(close(fd));
	assert_false(path_exists(L("linked2")));
}

void test_o_direct(void **state)
{
	const size_t sz = 65536;
	char *data, *buf;
	struct res rl, ru;
	int fl, fu;

	(void)state;
	data = malloc(sz);
	assert_non_null(data);
	fill_pattern(data, sz, 7);
	put_file(L("f"), data, sz);
	assert_int_equal(posix_memalign((void **)&buf, 4096, sz), 0);
	rl = RES(fl = open(L("f"), O_RDWR | O_DIRECT));
	ru = RES(fu = open(U("f"), O_RDWR | O_DIRECT));
	if (rl.err || ru.err) {
		/* e.g. tmpfs on 6.1: EINVAL; the mount must agree */
		assert_int_equal(rl.err, ru.err);
		if (fl >= 0)
			close(fl);
		free(buf);
		free(data);
		print_message("lower rejects O_DIRECT (%s), mount agrees\n",
			      strerrorname_np(rl.err));
		return;
	}
	assert_int_equal(pread(fu, buf, 8192, 4096), 8192);
	assert_memory_equal(buf, data + 4096, 8192);
	/* direct write through the mount, buffered read through the lower */
	fill_pattern(buf, 4096, 99);
	assert_int_equal(pwrite(fu, buf, 4096, 8192), 4096);
	memcpy(data + 8192, buf, 4096);
	assert_content_mem(L("f"), data, sz);
	/* misalignment: same answer as the lower */
	assert_same_res(RES(pread(fl, buf + 1, 4096, 0)),
			RES(pread(fu, buf + 1, 4096, 0)));
	close(fl);
	close(fu);
	free(buf);
	free(data);
}

void test_o_nofollow_o_directory(void **state)
{
	int fd;

	(void)state;
	FSP_NEEDS_POSIX();
	put_str(L("f"), "x");
	OK(mkdir(L("d"), 0755));
	OK(symlink("f", L("lnk")));
	assert_errno(open(U("lnk"), O_RDONLY | O_NOFOLLOW), ELOOP);
	assert_errno(open(U("f"), O_RDONLY | O_DIRECTORY), ENOTDIR);
	assert_errno(open(U("lnk"), O_RDONLY | O_DIRECTORY), ENOTDIR);
	assert_errno(open(U("d"), O_WRONLY), EISDIR);
	assert_same_err(RES(open(L("lnk"), O_RDONLY | O_NOFOLLOW)),
			RES(open(U("lnk"), O_RDONLY | O_NOFOLLOW)));
	fd = OK(open(U("lnk"), O_PATH | O_NOFOLLOW));
	close(fd);
	fd = OK(open(U("d"), O_RDONLY | O_DIRECTORY));
	close(fd);
	fd = OK(open(U("f"), O_RDONLY | O_NOFOLLOW));
	close(fd);
}

void test_read_write(void **state)
{
	const size_t sz = 300000;
	char *a = malloc(sz), *b = malloc(sz);
	size_t got = 0;
	ssize_t r;
	int fd;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	fill_pattern(a, sz, 1);
	fd = OK(open(U("f"), O_CREAT | O_WRONLY, 0644));
	for (size_t off = 0; off < sz; off += 7001) {
		size_t n = sz - off < 7001 ? sz - off : 7001;

		assert_int_equal(write(fd, a + off, n), n);
	}
	OK(close(fd));
	assert_content_mem(L("f"), a, sz);
	fill_pattern(a, sz, 2);
	put_file(L("g"), a, sz);
	fd = OK(open(U("g"), O_RDONLY));
	while ((r = read(fd, b + got, 4099)) > 0)
		got += r;
	assert_int_equal(r, 0);
	assert_int_equal(got, sz);
	assert_memory_equal(a, b, sz);
	assert_int_equal(read(fd, b, 10), 0);
	OK(close(fd));
	free(a);
	free(b);
}

void test_pread_pwrite(void **state)
{
	char buf[16];
	char zero[4996] = { 0 };
	char *c;
	int fd;

	(void)state;
	fd = OK(open(U("f"), O_CREAT | O_RDWR, 0644));
	assert_int_equal(pwrite(fd, "tail", 4, 5000), 4);
	assert_int_equal(pwrite(fd, "head", 4, 0), 4);
	assert_int_equal(lseek(fd, 0, SEEK_CUR), 0);
	c = malloc(5004);
	assert_non_null(c);
	assert_int_equal(get_file(L("f"), c, 5004), 5004);
	assert_memory_equal(c, "head", 4);
	assert_memory_equal(c + 4, zero, 4996);
	assert_memory_equal(c + 5000, "tail", 4);
	free(c);
	{
		int lfd = OK(open(L("f"), O_WRONLY));

		assert_int_equal(pwrite(lfd, "LOWER", 5, 100), 5);
		close(lfd);
	}
	assert_int_equal(pread(fd, buf, 5, 100), 5);
	assert_memory_equal(buf, "LOWER", 5);
	assert_int_equal(pread(fd, buf, 16, 5000), 4);
	assert_int_equal(pread(fd, buf, 16, 9000), 0);
	OK(close(fd));
}

void test_readv_writev(void **state)
{
	char a[10], b[20], c[5];
	struct iovec wv[3] = {
		{ "first-", 6 }, { "second-", 7 }, { "third", 5 }
	};
	struct iovec rv[3] = { { a, 3 }, { b, 10 }, { c, 5 } };
	int fd;

	(void)state;
	fd = OK(open(U("f"), O_CREAT | O_RDWR, 0644));
	assert_int_equal(writev(fd, wv, 3), 18);
	assert_content(L("f"), "first-second-third");
	OK(lseek(fd, 0, SEEK_SET));
	assert_int_equal(readv(fd, rv, 3), 18);
	assert_memory_equal(a, "fir", 3);
	assert_memory_equal(b, "st-second-", 10);
	assert_memory_equal(c, "third", 5);
	OK(close(fd));
}

void test_preadv2_pwritev2(void **state)
{
	char a[8] = { 0 }, b[8] = { 0 };
	struct iovec wv[2] = { { "AAAA", 4 }, { "BBBB", 4 } };
	struct iovec rv[2] = { { a, 4 }, { b, 4 } };
	int fd;

	(void)state;
	put_str(L("f"), "0123456789");
	fd = OK(open(U("f"), O_RDWR));
	assert_int_equal(pwritev2(fd, wv, 2, 2, RWF_DSYNC), 8);
	assert_int_equal(lseek(fd, 0, SEEK_CUR), 0);
	assert_content(L("f"), "01AAAABBBB");
	/* offset -1: use and advance the file position */
	OK(lseek(fd, 1, SEEK_SET));
	assert_int_equal(pwritev2(fd, wv, 1, -1, 0), 4);
	assert_int_equal(lseek(fd, 0, SEEK_CUR), 5);
	assert_content(L("f"), "0AAAAABBBB");
	assert_int_equal(pwritev2(fd, wv + 1, 1, 0, RWF_APPEND), 4);
	assert_content(L("f"), "0AAAAABBBBBBBB");
	assert_int_equal(preadv2(fd, rv, 2, 4, 0), 8);
	assert_memory_equal(a, "AABB", 4);
	assert_memory_equal(b, "BBBB", 4);
	OK(close(fd));
}

void test_lseek(void **state)
{
	int fd, lfd;

	(void)state;
	put_str(L("f"), "0123456789");
	fd = OK(open(U("f"), O_RDWR));
	assert_int_equal(lseek(fd, 0, SEEK_END), 10);
	assert_int_equal(lseek(fd, -3, SEEK_END), 7);
	assert_int_equal(lseek(fd, 2, SEEK_CUR), 9);
	assert_int_equal(lseek(fd, 4, SEEK_SET), 4);
	{
		char c;

		assert_int_equal(read(fd, &c, 1), 1);
		assert_int_equal(c, '4');
	}
	assert_errno(lseek(fd, -1, SEEK_SET), EINVAL);
	assert_int_equal(lseek(fd, 100, SEEK_SET), 100);
	/* the lower file grows: SEEK_END follows it */
	lfd = OK(open(L("f"), O_WRONLY | O_APPEND));
	assert_int_equal(write(lfd, "abcde", 5), 5);
	close(lfd);
	assert_int_equal(lseek(fd, 0, SEEK_END), 15);
	OK(close(fd));
}

void test_seek_data_hole(void **state)
{
	static const off_t offs[] = {
		0, 1, 4095, 4096, 65536, 1 << 20, (1 << 20) + 100,
		(1 << 20) + 8192, 3 << 20, (3 << 20) + 4095, 4 << 20,
		(4 << 20) - 1, (4 << 20) + 1,
	};
	char blk[4096];
	int fl, fu, lw;

	(void)state;
	memset(blk, 'x', sizeof(blk));
	lw = OK(open(L("f"), O_CREAT | O_WRONLY, 0644));
	assert_int_equal(pwrite(lw, blk, 4096, 0), 4096);
	assert_int_equal(pwrite(lw, blk, 4096, 1 << 20), 4096);
	assert_int_equal(pwrite(lw, blk, 4096, 3 << 20), 4096);
	OK(ftruncate(lw, 4 << 20));
	OK(fsync(lw));
	close(lw);
	fl = OK(open(L("f"), O_RDONLY));
	fu = OK(open(U("f"), O_RDONLY));
	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		assert_same_res(RES(lseek(fl, offs[i], SEEK_DATA)),
				RES(lseek(fu, offs[i], SEEK_DATA)));
		assert_same_res(RES(lseek(fl, offs[i], SEEK_HOLE)),
				RES(lseek(fu, offs[i], SEEK_HOLE)));
	}
	assert_int_equal(lseek(fu, 4096, SEEK_DATA) >= 4096, 1);
	assert_errno(lseek(fu, 4 << 20, SEEK_DATA), ENXIO);
	close(fl);
	close(fu);
}

void test_fsync_fdatasync(void **state)
{
	int fd, dfd;

	(void)state;
	fd = OK(open(U("f"), O_CREAT | O_RDWR, 0644));
	assert_int_equal(write(fd, "sync me", 7), 7);
	OK(fsync(fd));
	OK(fdatasync(fd));
	OK(sync_file_range(fd, 0, 7, SYNC_FILE_RANGE_WRITE |
			   SYNC_FILE_RANGE_WAIT_AFTER));
	OK(syncfs(fd));
	OK(close(fd));
	assert_content(L("f"), "sync me");
	dfd = OK(open(U("."), O_RDONLY | O_DIRECTORY));
	OK(fsync(dfd));
	close(dfd);
}

static void fstat_blocks(const char *p, struct stat *st)
{
	OK(stat(p, st));
}

void test_fallocate_modes(void **state)
{
	static const int modes[] = {
		0, FALLOC_FL_KEEP_SIZE,
		FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		FALLOC_FL_ZERO_RANGE,
	};
	char *data = malloc(65536), *want = malloc(1 << 20);
	struct stat sa, sb;
	int fa, fb;

	(void)state;
	assert_non_null(data);
	assert_non_null(want);
	fill_pattern(data, 65536, 3);
	/* twin files: "a" manipulated via the lower, "b" via the mount */
	put_file(L("a"), data, 65536);
	put_file(L("b"), data, 65536);
	fa = OK(open(L("a"), O_RDWR));
	fb = OK(open(U("b"), O_RDWR));
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		off_t off = i == 1 ? 131072 : 8192, len = i == 1 ? 262144 : 16384;

		assert_same_res(RES(fallocate(fa, modes[i], off, len)),
				RES(fallocate(fb, modes[i], off, len)));
		fstat_blocks(L("a"), &sa);
		fstat_blocks(L("b"), &sb);
		assert_int_equal(sa.st_size, sb.st_size);
		assert_int_equal(sa.st_blocks, sb.st_blocks);
		{
			size_t n = get_file(L("a"), want, 1 << 20);

			assert_content_mem(L("b"), want, n);
		}
	}
	/* mode 0 extending the file must have taken effect in the lower */
	OK(fstat(fb, &sb));
	assert_int_equal(sb.st_size, 65536);
	if (fallocate(fb, 0, 0, 200000) == 0) {
		OK(stat(L("b"), &sb));
		assert_int_equal(sb.st_size, 200000);
	}
	close(fa);
	close(fb);
	free(data);
	free(want);
}

void test_truncate_ftruncate(void **state)
{
	char buf[10000], zero[9990] = { 0 };
	struct stat st;
	int fd;

	(void)state;
	put_str(L("f"), "0123456789abcdef");
	OK(truncate(U("f"), 10));
	assert_content(L("f"), "0123456789");
	OK(truncate(U("f"), 10000));
	assert_int_equal(get_file(L("f"), buf, sizeof(buf)), 10000);
	assert_memory_equal(buf, "0123456789", 10);
	assert_memory_equal(buf + 10, zero, 9990);
	fd = OK(open(U("f"), O_RDWR));
	OK(ftruncate(fd, 3));
	OK(fstat(fd, &st));
	assert_int_equal(st.st_size, 3);
	OK(close(fd));
	assert_content(L("f"), "012");
	OK(mkdir(L("d"), 0755));
	assert_same_res(RES(truncate(L("d"), 0)), RES(truncate(U("d"), 0)));
	assert_errno(truncate(U("nope"), 0), ENOENT);
}

void test_splice_file_pipe_file(void **state)
{
	const size_t sz = 200000;
	char *data = malloc(sz);
	int p[2], in, out;
	size_t done = 0;

	(void)state;
	assert_non_null(data);
	fill_pattern(data, sz, 5);
	put_file(L("src"), data, sz);
	in = OK(open(U("src"), O_RDONLY));
	out = OK(open(U("dst"), O_CREAT | O_WRONLY, 0644));
	OK(pipe(p));
	while (done < sz) {
		ssize_t n = splice(in, NULL, p[1], NULL, 32768, 0);

		assert_true(n > 0);
		while (n > 0) {
			ssize_t m = splice(p[0], NULL, out, NULL, n, 0);

			assert_true(m > 0);
			n -= m;
			done += m;
		}
	}
	assert_int_equal(splice(in, NULL, p[1], NULL, 100, 0), 0);
	close(in);
	close(out);
	close(p[0]);
	close(p[1]);
	assert_content_mem(L("dst"), data, sz);
	free(data);
}

void test_sendfile_copy(void **state)
{
	const size_t sz = 100000;
	char *data = malloc(sz);
	off_t off = 1000;
	int in, out;

	(void)state;
	assert_non_null(data);
	fill_pattern(data, sz, 6);
	put_file(L("src"), data, sz);
	in = OK(open(U("src"), O_RDONLY));
	out = OK(open(U("dst"), O_CREAT | O_WRONLY, 0644));
	assert_int_equal(sendfile(out, in, &off, sz - 1000), sz - 1000);
	assert_int_equal(off, sz);
	assert_int_equal(lseek(in, 0, SEEK_CUR), 0);
	close(in);
	close(out);
	assert_content_mem(L("dst"), data + 1000, sz - 1000);
	free(data);
}

void test_copy_file_range_within(void **state)
{
	const size_t sz = 150000;
	char *data = malloc(sz);
	loff_t oi = 0, oo = 0;
	size_t done = 0;
	int in, out;

	(void)state;
	assert_non_null(data);
	fill_pattern(data, sz, 8);
	put_file(L("src"), data, sz);
	in = OK(open(U("src"), O_RDONLY));
	out = OK(open(U("dst"), O_CREAT | O_WRONLY, 0644));
	while (done < sz) {
		ssize_t n = copy_file_range(in, &oi, out, &oo, sz - done, 0);

		if (n < 0)
			fail_msg("copy_file_range: %s", strerror(errno));
		assert_true(n > 0);
		done += n;
	}
	close(in);
	close(out);
	assert_content_mem(L("dst"), data, sz);
	free(data);
}

void test_copy_file_range_to_lower(void **state)
{
	const size_t sz = 150000;
	char *data = malloc(sz);
	size_t done = 0;
	int in, out;

	(void)state;
	assert_non_null(data);
	fill_pattern(data, sz, 9);
	put_file(L("src"), data, sz);
	in = OK(open(U("src"), O_RDONLY));
	out = OK(open(L("dst"), O_CREAT | O_WRONLY, 0644));
	while (done < sz) {
		ssize_t n = copy_file_range(in, NULL, out, NULL, sz - done, 0);

		if (n < 0 && errno == EXDEV && done == 0) {
			/* cross-superblock copy is refused by the VFS on
			 * 6.x: fine, as long as nothing was written */
			struct stat st;

			OK(fstat(out, &st));
			assert_int_equal(st.st_size, 0);
			print_message("copy_file_range mount->lower: EXDEV\n");
			goto out;
		}
		if (n < 0)
			fail_msg("copy_file_range: %s", strerror(errno));
		assert_true(n > 0);
		done += n;
	}
	assert_content_mem(U("dst"), data, sz);
out:
	close(in);
	close(out);
	free(data);
}

void test_mmap_private_read(void **state)
{
	const size_t sz = 3 * 4096 + 100;
	char *data = malloc(sz), *m;
	int fd;

	(void)state;
	assert_non_null(data);
	fill_pattern(data, sz, 10);
	put_file(L("f"), data, sz);
	fd = OK(open(U("f"), O_RDONLY));
	m = mmap(NULL, sz, PROT_READ, MAP_PRIVATE, fd, 0);
	assert_true(m != MAP_FAILED);
	assert_memory_equal(m, data, sz);
	/* the tail of the last page is zero */
	for (size_t i = sz; i < 4 * 4096; i++)
		assert_int_equal(m[i], 0);
	munmap(m, sz);
	close(fd);
	free(data);
}

/*
 * Kernels with backing files (6.6 on; Debian's 6.12) give the lower file a
 * user path; 6.1 has none, and there /proc/PID/maps shows the lower path.
 */
static bool kernel_has_backing_files(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	assert_int_equal(uname(&u), 0);
	assert_int_equal(sscanf(u.release, "%d.%d", &major, &minor), 2);
	return major > 6 || (major == 6 && minor >= 6);
}

/* The pathname field of the /proc/self/maps line of the mapping at @addr. */
static void maps_path(const void *addr, char *path, size_t cap)
{
	char line[4096];
	FILE *maps = fopen("/proc/self/maps", "re");
	unsigned long start;
	bool found = false;

	assert_non_null(maps);
	while (!found && fgets(line, sizeof(line), maps)) {
		int pos = -1;

		if (sscanf(line, "%lx-%*x %*s %*s %*s %*s %n", &start, &pos) < 1 ||
		    pos < 0 || start != (unsigned long)addr)
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(path, cap, "%s", line + pos);
		found = true;
	}
	fclose(maps);
	assert_true(found);
}

/* /proc/PID/maps names a mapping by the path it was mapped through. */
void test_mmap_maps_user_path(void **state)
{
	char path[PATH_MAX], want[PATH_MAX];
	void *m;
	int fd;

	(void)state;
	if (!kernel_has_backing_files()) {
		print_message("no backing files in this kernel: skipping\n");
		skip();
	}
	put_str(L("mapped"), "mapped through the mount\n");
	assert_non_null(realpath(U("mapped"), want));
	fd = OK(open(U("mapped"), O_RDONLY));
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	assert_true(m != MAP_FAILED);
	close(fd);
	maps_path(m, path, sizeof(path));
	munmap(m, 4096);
	assert_string_equal(path, want);
}

/*
 * The lower file of an open dazukofs file is a backing file, not counted
 * in /proc/sys/fs/file-nr (nor against file-max): opening N files through
 * the mount adds about N, not 2N.  The count is per-CPU and approximate,
 * hence the margin.
 */
void test_lower_file_not_counted(void **state)
{
	enum { N = 400 };
	static int fds[N];
	long before, after;
	FILE *nr;

	(void)state;
	if (!kernel_has_backing_files()) {
		print_message("no backing files in this kernel: skipping\n");
		skip();
	}
	put_str(L("counted"), "x");
	nr = fopen("/proc/sys/fs/file-nr", "re");
	assert_non_null(nr);
	assert_int_equal(fscanf(nr, "%ld", &before), 1);
	for (int i = 0; i < N; i++)
		fds[i] = OK(open(U("counted"), O_RDONLY));
	fclose(nr);
	nr = fopen("/proc/sys/fs/file-nr", "re");
	assert_non_null(nr);
	assert_int_equal(fscanf(nr, "%ld", &after), 1);
	fclose(nr);
	for (int i = 0; i < N; i++)
		close(fds[i]);
	print_message("file-nr grew by %ld for %d opens\n", after - before, N);
	assert_true(after - before < N + N / 2);
}

void test_mmap_shared_write(void **state)
{
	const size_t sz = 2 * 4096;
	char data[2 * 4096], *m;
	int fd;

	(void)state;
	fill_pattern(data, sz, 11);
	fd = OK(open(U("f"), O_CREAT | O_RDWR, 0644));
	OK(ftruncate(fd, sz));
	m = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(m != MAP_FAILED);
	memcpy(m, data, sz);
	OK(msync(m, sz, MS_SYNC));
	/* still mapped: the lower already has it */
	assert_content_mem(L("f"), data, sz);
	m[5] = 'Q';
	data[5] = 'Q';
	OK(munmap(m, sz));
	OK(close(fd));
	assert_content_mem(L("f"), data, sz);
}

void test_mmap_sees_lower_write(void **state)
{
	char data[8192], *m;
	int fd, lfd;

	(void)state;
	memset(data, 'a', sizeof(data));
	put_file(L("f"), data, sizeof(data));
	fd = OK(open(U("f"), O_RDWR));
	m = mmap(NULL, sizeof(data), PROT_READ, MAP_SHARED, fd, 0);
	assert_true(m != MAP_FAILED);
	assert_int_equal(m[100], 'a'); /* fault the page in */
	assert_int_equal(m[5000], 'a');
	lfd = OK(open(L("f"), O_WRONLY));
	assert_int_equal(pwrite(lfd, "LOWERWRITE", 10, 100), 10);
	assert_int_equal(pwrite(lfd, "SECONDPAGE", 10, 5000), 10);
	close(lfd);
	assert_memory_equal(m + 100, "LOWERWRITE", 10);
	assert_memory_equal(m + 5000, "SECONDPAGE", 10);
	munmap(m, sizeof(data));
	close(fd);
}

void test_mmap_private_write_stays(void **state)
{
	char data[4096], *m;
	int fd;

	(void)state;
	memset(data, 'p', sizeof(data));
	put_file(L("f"), data, sizeof(data));
	fd = OK(open(U("f"), O_RDWR));
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	assert_true(m != MAP_FAILED);
	memcpy(m, "PRIVATE", 7);
	assert_memory_equal(m, "PRIVATE", 7);
	OK(msync(m, 4096, MS_SYNC));
	OK(munmap(m, 4096));
	OK(fsync(fd));
	close(fd);
	assert_content_mem(L("f"), data, sizeof(data));
	assert_content_mem(U("f"), data, sizeof(data));
}

void test_mmap_after_ftruncate(void **state)
{
	char *m, buf[3 * 4096];
	int fd;

	(void)state;
	put_str(L("f"), "short");
	fd = OK(open(U("f"), O_RDWR));
	OK(ftruncate(fd, 3 * 4096));
	m = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(m != MAP_FAILED);
	assert_memory_equal(m, "short", 5);
	for (int i = 5; i < 3 * 4096; i += 511)
		assert_int_equal(m[i], 0);
	memcpy(m + 2 * 4096 + 10, "page3", 5);
	OK(msync(m, 3 * 4096, MS_SYNC));
	OK(munmap(m, 3 * 4096));
	close(fd);
	assert_int_equal(get_file(L("f"), buf, sizeof(buf)), sizeof(buf));
	assert_memory_equal(buf, "short", 5);
	assert_memory_equal(buf + 2 * 4096 + 10, "page3", 5);
}

static long meminfo_cached_kb(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	long v = -1;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Cached: %ld kB", &v) == 1)
			break;
	fclose(f);
	return v;
}

static void drop_caches(void)
{
	int fd;

	sync();
	fd = OK(open("/proc/sys/vm/drop_caches", O_WRONLY));
	assert_int_equal(write(fd, "3\n", 2), 2);
	close(fd);
}

static long cached_growth_reading(const char *path, size_t sz, char *buf)
{
	size_t got = 0;
	ssize_t r;
	long c0;
	int fd;

	drop_caches();
	c0 = meminfo_cached_kb();
	fd = OK(open(path, O_RDONLY));
	while ((r = read(fd, buf, 1 << 20)) > 0)
		got += r;
	assert_int_equal(r, 0);
	assert_int_equal(got, sz);
	close(fd);
	return meminfo_cached_kb() - c0;
}

void test_page_cache_single_copy(void **state)
{
	long mb = getenv("DAZUKOFS_CACHE_MB") ? atol(getenv("DAZUKOFS_CACHE_MB"))
					       : 16;
	size_t sz = (size_t)mb << 20;
	long kb = (long)(sz >> 10), gl, gu;
	char *buf = malloc(1 << 20);
	int fd;

	(void)state;
	if (!fsp_is_root)
		skip();
	assert_non_null(buf);
	fd = OK(open(L("big"), O_CREAT | O_WRONLY, 0644));
	for (size_t off = 0; off < sz; off += 1 << 20) {
		fill_pattern(buf, 1 << 20, off >> 20);
		assert_int_equal(write(fd, buf, 1 << 20), 1 << 20);
	}
	OK(fsync(fd));
	close(fd);
	/*
	 * Control: what reading the file through the lower itself costs.
	 * A disk filesystem caches one copy; tmpfs none (its pages are the
	 * file); ext4 on a loop device over a file on a disk filesystem two
	 * (the backing file's cache too).  Reading through the mount must
	 * cost the same: a stacked page cache would add one copy.
	 */
	gl = cached_growth_reading(L("big"), sz, buf);
	gu = cached_growth_reading(U("big"), sz, buf);
	print_message("Cached grew by %ld kB via lower, %ld kB via mount, for a "
		      "%ld kB file\n", gl, gu, kb);
	drop_caches();
	OK(unlink(L("big")));
	free(buf);
	if (gu < gl - kb / 5 || gu >= gl + kb / 2)
		fail_msg("reading via the mount grew Cached by %ld kB, via the "
			 "lower by %ld kB: data cached twice?", gu, gl);
	if (fsp_lower_fstype == 0x01021994 /* tmpfs */) {
		if (gu >= kb / 2)
			fail_msg("tmpfs lower: reading via the mount cached %ld kB",
				 gu);
	} else if (gl >= kb * 8 / 10 && gl < kb * 3 / 2) {
		if (gu < kb * 8 / 10 || gu >= kb * 3 / 2)
			fail_msg("Cached grew by %ld kB, want about %ld kB "
				 "(one copy)", gu, kb);
	}
}

/* A copy of /bin/sleep at @path, executable. */
static void put_sleep(const char *path)
{
	static char buf[1 << 20];
	int in = OK(open("/bin/sleep", O_RDONLY));
	ssize_t n = read(in, buf, sizeof(buf));

	assert_true(n > 0 && n < (ssize_t)sizeof(buf));
	close(in);
	put_file(path, buf, n);
	OK(chmod(path, 0755));
}

/* Starts @path as "sleep 30"; returns once the child runs it. */
static pid_t start_sleep(const char *path)
{
	char exe[64], target[PATH_MAX];
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		execl(path, "sleep", "30", (char *)NULL);
		_exit(errno == ETXTBSY ? 42 : 43);
	}
	snprintf(exe, sizeof(exe), "/proc/%d/exe", pid);
	for (int i = 0; i < 1000; i++) {
		ssize_t n = readlink(exe, target, sizeof(target) - 1);

		if (n > 0) {
			target[n] = '\0';
			if (strcmp(strrchr(target, '/'), "/sleep") == 0)
				return pid;
		}
		nanosleep(&pause, NULL);
	}
	kill(pid, SIGKILL);
	fail_msg("%s never started", path);
	return -1;
}

/*
 * A file that runs through the mount cannot be opened for writing through
 * either path, and one open for writing on the lower cannot be run
 * through the mount: ETXTBSY both ways, as on the lower itself.
 */
void test_etxtbsy_both_ways(void **state)
{
	int status, fd;
	pid_t pid;

	(void)state;
	put_sleep(L("sleep"));

	pid = start_sleep(U("sleep"));
	assert_errno(open(U("sleep"), O_WRONLY), ETXTBSY);
	assert_errno(open(L("sleep"), O_WRONLY), ETXTBSY);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);

	fd = OK(open(L("sleep"), O_WRONLY));
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl(U("sleep"), "sleep", "0", (char *)NULL);
		_exit(errno == ETXTBSY ? 42 : 43);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(fd);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 42);

	/* Nothing left denied: the file can be written again. */
	close(OK(open(L("sleep"), O_WRONLY)));
	close(OK(open(U("sleep"), O_WRONLY)));
}

/*
 * A splice into a file of the mount is a write to the lower file: inotify
 * watchers of the lower see IN_MODIFY, as for write(2).
 */
void test_splice_notifies_lower(void **state)
{
	union {
		struct inotify_event ev;
		char buf[sizeof(struct inotify_event) + NAME_MAX + 1];
	} u;
	int in, out, p[2];
	ssize_t n;

	(void)state;
	put_str(L("src"), "spliced");
	put_str(L("dst"), "");
	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	assert_true(in >= 0);
	OK(inotify_add_watch(in, L("dst"), IN_MODIFY));
	out = OK(open(U("dst"), O_WRONLY));
	OK(pipe(p));
	assert_int_equal(write(p[1], "spliced", 7), 7);
	assert_int_equal(splice(p[0], NULL, out, NULL, 7, 0), 7);
	/* The event is queued by the time splice() returns. */
	n = read(in, u.buf, sizeof(u.buf));
	assert_true(n >= (ssize_t)sizeof(u.ev));
	assert_true(u.ev.mask & IN_MODIFY);
	close(p[0]);
	close(p[1]);
	close(out);
	close(in);
	assert_content(L("dst"), "spliced");
}
