// SPDX-License-Identifier: GPL-2.0
/*
 * fs-passthrough main: argument handling, per-test directories, helpers.
 *
 * usage: fs-passthrough [LOWER UPPER [FILTER]]
 *   LOWER / UPPER default to $DAZUKOFS_LOWER / $DAZUKOFS_UPPER.
 *   FILTER (or $DAZUKOFS_TEST_FILTER) is a cmocka test name pattern.
 *   $DAZUKOFS_SELFTEST=1: UPPER is not dazukofs (e.g. a bind mount), so
 *   st_dev/f_type identity checks are skipped.
 */
#include "fsp.h"

#include <ftw.h>
#include <grp.h>
#include <sys/ioctl.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <linux/fs.h>

const char *fsp_lower;
const char *fsp_upper;
bool fsp_expect_dazukofs = true;
bool fsp_is_root;
bool fsp_lower_posix = true;
long fsp_lower_fstype;

static char work_name[64];
static char cur_lower[4096], cur_upper[4096];
static unsigned test_no;
/* when the current test began: each test's seconds go to the log (budget) */
static struct timespec test_start;

static const char *vpath(const char *base, const char *fmt, va_list ap)
{
	static char bufs[32][4096];
	static unsigned n;
	char *b = bufs[n++ % 32];
	char rel[2048];

	vsnprintf(rel, sizeof(rel), fmt, ap);
	if (rel[0])
		snprintf(b, 4096, "%s/%s", base, rel);
	else
		snprintf(b, 4096, "%s", base);
	return b;
}

const char *L(const char *fmt, ...)
{
	va_list ap;
	const char *r;

	va_start(ap, fmt);
	r = vpath(cur_lower, fmt, ap);
	va_end(ap);
	return r;
}

const char *U(const char *fmt, ...)
{
	va_list ap;
	const char *r;

	va_start(ap, fmt);
	r = vpath(cur_upper, fmt, ap);
	va_end(ap);
	return r;
}

void put_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		fail_msg("open %s: %s", path, strerror(errno));
	if (write(fd, data, len) != (ssize_t)len)
		fail_msg("write %s: %s", path, strerror(errno));
	OK(close(fd));
}

void put_str(const char *path, const char *s)
{
	put_file(path, s, strlen(s));
}

size_t get_file(const char *path, void *buf, size_t cap)
{
	int fd = open(path, O_RDONLY);
	size_t got = 0;
	ssize_t r = 0;

	if (fd < 0)
		fail_msg("open %s: %s", path, strerror(errno));
	while (got < cap && (r = read(fd, (char *)buf + got, cap - got)) > 0)
		got += r;
	if (r < 0)
		fail_msg("read %s: %s", path, strerror(errno));
	close(fd);
	return got;
}

void assert_content_mem(const char *path, const void *data, size_t len)
{
	char *buf = malloc(len + 16);
	size_t got;

	assert_non_null(buf);
	got = get_file(path, buf, len + 16);
	if (got != len || memcmp(buf, data, len) != 0) {
		free(buf);
		fail_msg("%s: content differs (got %zu bytes, want %zu)",
			 path, got, len);
	}
	free(buf);
}

void assert_content(const char *path, const char *s)
{
	char buf[4096];
	size_t got = get_file(path, buf, sizeof(buf) - 1);

	buf[got] = 0;
	if (got != strlen(s) || memcmp(buf, s, got) != 0)
		fail_msg("%s: content \"%s\", want \"%s\"", path, buf, s);
}

bool path_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

void fill_pattern(void *buf, size_t len, unsigned seed)
{
	unsigned char *p = buf;
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13; x ^= x >> 17; x ^= x << 5;
		p[i] = x;
	}
}

void run_as_nobody(int (*fn)(void *), void *arg)
{
	pid_t pid;
	int status;

	if (!fsp_is_root)
		skip();
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(2);
		_exit(fn(arg) ? 1 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("unprivileged child failed (status 0x%x)", status);
}

void assert_stat_same(const struct stat *a, const struct stat *b)
{
	assert_int_equal(a->st_ino, b->st_ino);
	assert_int_equal(a->st_mode, b->st_mode);
	assert_int_equal(a->st_nlink, b->st_nlink);
	assert_int_equal(a->st_uid, b->st_uid);
	assert_int_equal(a->st_gid, b->st_gid);
	assert_int_equal(a->st_rdev, b->st_rdev);
	assert_int_equal(a->st_size, b->st_size);
	assert_int_equal(a->st_blksize, b->st_blksize);
	assert_int_equal(a->st_blocks, b->st_blocks);
	assert_int_equal(a->st_mtim.tv_sec, b->st_mtim.tv_sec);
	assert_int_equal(a->st_mtim.tv_nsec, b->st_mtim.tv_nsec);
	assert_int_equal(a->st_ctim.tv_sec, b->st_ctim.tv_sec);
	assert_int_equal(a->st_ctim.tv_nsec, b->st_ctim.tv_nsec);
}

/* ---- per-test directory ---- */

static int rm_cb(const char *path, const struct stat *sb, int flag,
		 struct FTW *ftw)
{
	(void)sb; (void)ftw;
	if (flag != FTW_SL && flag != FTW_SLN && flag != FTW_NS) {
		/* clear append-only/immutable a test may have left behind */
		int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW);

		if (fd >= 0) {
			int flags;

			if (ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 &&
			    (flags & (FS_APPEND_FL | FS_IMMUTABLE_FL))) {
				flags &= ~(FS_APPEND_FL | FS_IMMUTABLE_FL);
				ioctl(fd, FS_IOC_SETFLAGS, &flags);
			}
			close(fd);
		}
	}
	if (flag == FTW_DP)
		return rmdir(path) ? (perror(path), 0) : 0;
	return unlink(path) ? (perror(path), 0) : 0;
}

static void rm_rf(const char *path)
{
	nftw(path, rm_cb, 32, FTW_DEPTH | FTW_PHYS);
}

static int test_setup(void **state)
{
	(void)state;
	test_no++;
	clock_gettime(CLOCK_MONOTONIC, &test_start);
	snprintf(cur_lower, sizeof(cur_lower), "%s/%s/t%03u", fsp_lower,
		 work_name, test_no);
	snprintf(cur_upper, sizeof(cur_upper), "%s/%s/t%03u", fsp_upper,
		 work_name, test_no);
	if (mkdir(cur_lower, 0755)) {
		fprintf(stderr, "mkdir %s: %s\n", cur_lower, strerror(errno));
		return -1;
	}
	chmod(cur_lower, 0755);
	return 0;
}

static int test_teardown(void **state)
{
	struct timespec now;

	(void)state;
	rm_rf(cur_lower);
	clock_gettime(CLOCK_MONOTONIC, &now);
	printf("fsp-time t%03u %.2f s\n", test_no,
	       (double)(now.tv_sec - test_start.tv_sec) +
	       (now.tv_nsec - test_start.tv_nsec) / 1e9);
	return 0;
}

static int group_setup(void **state)
{
	char p[4096];

	(void)state;
	snprintf(work_name, sizeof(work_name), "fsp.%d", getpid());
	snprintf(p, sizeof(p), "%s/%s", fsp_lower, work_name);
	if (mkdir(p, 0755)) {
		fprintf(stderr, "mkdir %s: %s\n", p, strerror(errno));
		return -1;
	}
	chmod(p, 0755);
	return 0;
}

static int group_teardown(void **state)
{
	char p[4096];

	(void)state;
	snprintf(p, sizeof(p), "%s/%s", fsp_lower, work_name);
	rm_rf(p);
	return 0;
}

/*
 * Does the lower map root to another user (NFS root_squash)?  Then root has
 * no more rights in it than any user: the tests that need root's rights
 * are skipped, and the rest hold the mount to the lower's answers, which
 * is how a mount is shown to grant root nothing the lower refuses.
 */
static bool lower_squashes_root(int probe_fd)
{
	struct stat st;

	return geteuid() == 0 && !fstat(probe_fd, &st) && st.st_uid != 0;
}

/*
 * A mode set is kept and a symlink can be made, in the lower's root.
 * Also sets fsp_is_root to false where the lower squashes root.
 */
static bool lower_is_posix(void)
{
	char file[4096], link[4096];
	struct stat st;
	bool posix;
	int fd;

	snprintf(file, sizeof(file), "%s/.fsp-probe.%d", fsp_lower, getpid());
	snprintf(link, sizeof(link), "%s/.fsp-probe-link.%d", fsp_lower,
		 getpid());
	fd = open(file, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		return true;	/* the tests will say what is wrong */
	if (lower_squashes_root(fd)) {
		printf("fs-passthrough: the lower squashes root: running as an unprivileged user\n");
		fsp_is_root = false;
	}
	close(fd);
	posix = !chmod(file, 0640) && !stat(file, &st) &&
		(st.st_mode & 07777) == 0640 && !symlink(file, link);
	unlink(link);
	unlink(file);
	if (!posix)
		printf("fs-passthrough: the lower has no Unix modes or symlinks\n");
	return posix;
}

#define FSP_ENTRY(name) cmocka_unit_test_setup_teardown(test_##name, \
	test_setup, test_teardown),

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = { FSP_TESTS(FSP_ENTRY) };
	const char *filter = getenv("DAZUKOFS_TEST_FILTER");
	struct statfs sfs;

	fsp_lower = argc > 1 ? argv[1] : getenv("DAZUKOFS_LOWER");
	fsp_upper = argc > 2 ? argv[2] : getenv("DAZUKOFS_UPPER");
	if (argc > 3)
		filter = argv[3];
	if (!fsp_lower || !fsp_upper) {
		fprintf(stderr, "usage: %s LOWER UPPER [FILTER]\n"
			"   or set DAZUKOFS_LOWER and DAZUKOFS_UPPER\n", argv[0]);
		return 2;
	}
	if (getenv("DAZUKOFS_SELFTEST") && *getenv("DAZUKOFS_SELFTEST") &&
	    strcmp(getenv("DAZUKOFS_SELFTEST"), "0"))
		fsp_expect_dazukofs = false;
	fsp_is_root = geteuid() == 0;
	if (statfs(fsp_lower, &sfs)) {
		perror(fsp_lower);
		return 2;
	}
	fsp_lower_fstype = sfs.f_type;
	fsp_lower_posix = lower_is_posix();
	umask(022);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("fs-passthrough: lower %s (f_type 0x%lx), upper %s%s\n",
	       fsp_lower, fsp_lower_fstype, fsp_upper,
	       fsp_expect_dazukofs ? "" : " (self-test, no dazukofs)");
	if (filter && *filter)
		cmocka_set_test_filter(filter);
	return cmocka_run_group_tests_name("fs-passthrough", tests,
					   group_setup, group_teardown);
}
