// SPDX-License-Identifier: GPL-2.0
/* fs-passthrough: the lower changes directly while the mount is in use. */
#include "fsp.h"

#include <time.h>
#include <sys/stat.h>

void test_lower_create_after_negative(void **state)
{
	struct stat st;

	(void)state;
	assert_errno(stat(U("later"), &st), ENOENT);
	assert_errno(open(U("later"), O_RDONLY), ENOENT);
	put_str(L("later"), "now here");
	OK(stat(U("later"), &st));
	assert_int_equal(st.st_size, 8);
	assert_content(U("later"), "now here");
	/* negative dir entry, then the lower creates a dir */
	assert_errno(stat(U("ldir/x"), &st), ENOENT);
	OK(mkdir(L("ldir"), 0755));
	put_str(L("ldir/x"), "x");
	OK(stat(U("ldir/x"), &st));
	assert_content(U("ldir/x"), "x");
}

void test_lower_unlink(void **state)
{
	struct stat st;

	(void)state;
	put_str(L("f"), "doomed");
	assert_content(U("f"), "doomed");
	OK(stat(U("f"), &st));
	OK(unlink(L("f")));
	assert_errno(stat(U("f"), &st), ENOENT);
	assert_errno(open(U("f"), O_RDONLY), ENOENT);
	assert_errno(unlink(U("f")), ENOENT);
	/* and re-created in the lower: a new file */
	put_str(L("f"), "reborn");
	assert_content(U("f"), "reborn");
	/* name re-created through the mount */
	OK(unlink(L("f")));
	put_str(U("f"), "third");
	assert_content(L("f"), "third");
}

void test_lower_rename(void **state)
{
	struct stat st, sl;

	(void)state;
	put_str(L("a"), "content A");
	assert_content(U("a"), "content A");
	OK(rename(L("a"), L("b")));
	assert_errno(stat(U("a"), &st), ENOENT);
	OK(stat(U("b"), &st));
	OK(stat(L("b"), &sl));
	assert_int_equal(st.st_ino, sl.st_ino);
	assert_content(U("b"), "content A");
	/* across directories */
	OK(mkdir(L("d1"), 0755));
	OK(mkdir(L("d2"), 0755));
	put_str(L("d1/x"), "cross");
	assert_content(U("d1/x"), "cross");
	assert_errno(stat(U("d2/y"), &st), ENOENT);
	OK(rename(L("d1/x"), L("d2/y")));
	assert_errno(stat(U("d1/x"), &st), ENOENT);
	assert_content(U("d2/y"), "cross");
	/* a directory renamed in the lower: children via the new name */
	put_str(L("d1/child"), "kid");
	assert_content(U("d1/child"), "kid");
	OK(rename(L("d1"), L("d3")));
	assert_errno(stat(U("d1/child"), &st), ENOENT);
	assert_errno(stat(U("d1"), &st), ENOENT);
	assert_content(U("d3/child"), "kid");
	put_str(U("d3/new"), "via mount");
	assert_content(L("d3/new"), "via mount");
}

void test_lower_rmdir_mkdir(void **state)
{
	struct stat st, sl;

	(void)state;
	FSP_NEEDS_POSIX();
	OK(mkdir(L("d"), 0755));
	OK(stat(U("d"), &st));
	assert_true(S_ISDIR(st.st_mode));
	OK(rmdir(L("d")));
	assert_errno(stat(U("d"), &st), ENOENT);
	assert_errno(open(U("d/f"), O_CREAT | O_WRONLY, 0644), ENOENT);
	OK(mkdir(L("d"), 0700));
	OK(stat(U("d"), &st));
	OK(stat(L("d"), &sl));
	assert_int_equal(st.st_ino, sl.st_ino);
	assert_int_equal(st.st_mode & 0777, 0700);
	put_str(U("d/f"), "in the new dir");
	assert_content(L("d/f"), "in the new dir");
	/* a file replaced by a directory of the same name */
	put_str(L("x"), "file");
	OK(stat(U("x"), &st));
	assert_true(S_ISREG(st.st_mode));
	OK(unlink(L("x")));
	OK(mkdir(L("x"), 0755));
	OK(stat(U("x"), &st));
	assert_true(S_ISDIR(st.st_mode));
	put_str(U("x/inside"), "i");
	assert_content(L("x/inside"), "i");
}

void test_lower_replace(void **state)
{
	char buf[16] = { 0 };
	int fd;

	(void)state;
	FSP_NEEDS_POSIX();
	put_str(L("f"), "old");
	assert_content(U("f"), "old");
	fd = OK(open(U("f"), O_RDONLY));
	put_str(L("f.tmp"), "new version");
	OK(rename(L("f.tmp"), L("f")));
	assert_content(U("f"), "new version");
	/* the fd opened before keeps the old inode */
	assert_int_equal(read(fd, buf, sizeof(buf) - 1), 3);
	assert_string_equal(buf, "old");
	close(fd);
	/* replaced by a symlink */
	put_str(L("target"), "via symlink");
	OK(symlink("target", L("f.tmp")));
	OK(rename(L("f.tmp"), L("f")));
	assert_content(U("f"), "via symlink");
}

void test_lower_truncate_extend(void **state)
{
	char buf[128];
	struct stat st;
	int fd;

	(void)state;
	put_str(L("f"), "0123456789abcdefghij");
	fd = OK(open(U("f"), O_RDONLY));
	OK(stat(U("f"), &st));
	assert_int_equal(st.st_size, 20);
	OK(truncate(L("f"), 10));
	OK(stat(U("f"), &st));
	assert_int_equal(st.st_size, 10);
	OK(fstat(fd, &st));
	assert_int_equal(st.st_size, 10);
	assert_int_equal(pread(fd, buf, sizeof(buf), 0), 10);
	assert_memory_equal(buf, "0123456789", 10);
	OK(truncate(L("f"), 100000));
	OK(stat(U("f"), &st));
	assert_int_equal(st.st_size, 100000);
	OK(fstat(fd, &st));
	assert_int_equal(st.st_size, 100000);
	assert_int_equal(pread(fd, buf, 16, 99990), 10);
	for (int i = 0; i < 10; i++)
		assert_int_equal(buf[i], 0);
	assert_int_equal(lseek(fd, 0, SEEK_END), 100000);
	close(fd);
}

void test_lower_write_while_open(void **state)
{
	char buf[64];
	struct stat st;
	int fu, fl;

	(void)state;
	put_str(L("f"), "aaaaaaaaaa");
	fu = OK(open(U("f"), O_RDWR));
	assert_int_equal(read(fu, buf, 10), 10);
	fl = OK(open(L("f"), O_WRONLY));
	assert_int_equal(pwrite(fl, "BBB", 3, 2), 3);
	assert_int_equal(pread(fu, buf, 10, 0), 10);
	assert_memory_equal(buf, "aaBBBaaaaa", 10);
	/* append in the lower: read through the mount continues into it */
	assert_int_equal(pwrite(fl, "tail", 4, 10), 4);
	assert_int_equal(read(fu, buf, sizeof(buf)), 4);
	assert_memory_equal(buf, "tail", 4);
	OK(fstat(fu, &st));
	assert_int_equal(st.st_size, 14);
	/* and the other way round */
	assert_int_equal(pwrite(fu, "UP", 2, 0), 2);
	{
		int r = OK(open(L("f"), O_RDONLY));

		assert_int_equal(pread(r, buf, 14, 0), 14);
		assert_memory_equal(buf, "UPBBBaaaaatail", 14);
		close(r);
	}
	close(fl);
	close(fu);
}

/* ---- random interleaving ---- */

#define NNAMES 10
static const char *rnd_names[NNAMES] = {
	"a", "b", "c", "d1/a", "d1/b", "d1/c", "d2/a", "d2/b", "d2/x", "d2/y",
};

static uint32_t rnd_state;
static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

/* One view's answer about a name. */
struct view { int err; mode_t type; ino_t ino; off_t size; char data[64]; size_t len; };

static void look(const char *p, struct view *v)
{
	struct stat st;

	memset(v, 0, sizeof(*v));
	if (lstat(p, &st)) {
		v->err = errno;
		return;
	}
	v->type = st.st_mode & S_IFMT;
	v->ino = st.st_ino;
	v->size = st.st_size;
	if (S_ISREG(st.st_mode)) {
		int fd = open(p, O_RDONLY);
		ssize_t n;

		if (fd < 0) {
			v->err = errno;
			return;
		}
		n = read(fd, v->data, sizeof(v->data));
		v->len = n < 0 ? 0 : n;
		close(fd);
	}
}

static void check_name(const char *name, unsigned step)
{
	struct view a, b;

	look(L("%s", name), &a);
	look(U("%s", name), &b);
	if (a.err != b.err || a.type != b.type || a.ino != b.ino ||
	    a.size != b.size || a.len != b.len ||
	    memcmp(a.data, b.data, a.len))
		fail_msg("step %u: %s: lower says %s type %o ino %lu size %ld "
			 "\"%.*s\", mount says %s type %o ino %lu size %ld "
			 "\"%.*s\"", step, name,
			 a.err ? strerrorname_np(a.err) : "ok", a.type,
			 (unsigned long)a.ino, (long)a.size, (int)a.len, a.data,
			 b.err ? strerrorname_np(b.err) : "ok", b.type,
			 (unsigned long)b.ino, (long)b.size, (int)b.len, b.data);
}

void test_lower_random_interleaved(void **state)
{
	double secs = getenv("DAZUKOFS_RANDOM_SECS") ?
		atof(getenv("DAZUKOFS_RANDOM_SECS")) : 2.0;
	struct timespec t0, t;
	unsigned step = 0;

	(void)state;
	rnd_state = getenv("DAZUKOFS_SEED") ? (uint32_t)atoi(getenv("DAZUKOFS_SEED"))
					    : (uint32_t)time(NULL) | 1;
	print_message("seed %u\n", rnd_state);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		const char *(*V)(const char *, ...) = (rnd() & 1) ? L : U;
		const char *n1 = rnd_names[rnd() % NNAMES];
		const char *n2 = rnd_names[rnd() % NNAMES];
		char content[48];
		int fd;

		snprintf(content, sizeof(content), "%s@%u", n1, step);
		switch (rnd() % 9) {
		case 0:
		case 1: /* create / overwrite */
			fd = open(V("%s", n1), O_CREAT | O_WRONLY | O_TRUNC, 0644);
			if (fd >= 0) {
				if (write(fd, content, strlen(content)) < 0)
					fail_msg("write: %s", strerror(errno));
				close(fd);
			}
			break;
		case 2:
			unlink(V("%s", n1));
			break;
		case 3:
			rename(V("%s", n1), V("%s", n2));
			break;
		case 4:
			mkdir(V("%s", rnd() & 1 ? "d1" : "d2"), 0755);
			break;
		case 5:
			rmdir(V("%s", rnd() & 1 ? "d1" : "d2"));
			break;
		case 6:
			truncate(V("%s", n1), rnd() % 40);
			break;
		case 7: /* append */
			fd = open(V("%s", n1), O_WRONLY | O_APPEND);
			if (fd >= 0) {
				if (write(fd, "+", 1) < 0)
					fail_msg("append: %s", strerror(errno));
				close(fd);
			}
			break;
		case 8:
			link(V("%s", n1), V("%s", n2));
			break;
		}
		check_name(n1, step);
		check_name(n2, step);
		check_name(rnd_names[rnd() % NNAMES], step);
		step++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	for (int i = 0; i < NNAMES; i++)
		check_name(rnd_names[i], step);
	print_message("%u random steps consistent\n", step);
}
