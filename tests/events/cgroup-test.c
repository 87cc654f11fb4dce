// SPDX-License-Identifier: GPL-2.0
/*
 * Cgroup tests (cmocka; run as root in the VM by guest-events.sh): record
 * format 3's cgroup of the opener and of the closer, and a group's
 * exclude_cgroups: excluded cgroups and their children make no event and
 * are counted, the attribute's bad input, removed cgroups dropping out,
 * and removal racing opens.
 *
 * usage: cgroup-test LOWER MNT [FILTER]
 *   LOWER: the directory below the dazukofs mount MNT.  Expects no group.
 *   Mounts the cgroup2 filesystem at /sys/fs/cgroup if nothing is there.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/vfs.h>

#include <cmocka.h>

#include <linux/magic.h>

#include "ev.h"

#define GROUP "cg"
#define CGROOT "/sys/fs/cgroup"
/* The test's cgroups, below CGROOT; removed by the teardown. */
#define CGTEST "dzcgtest"

static const char *lower, *mnt;
static int devfd = -1;

/* rmdir a cgroup tree, children first; its processes are gone by now. */
static void cg_remove(const char *rel)
{
	char path[512];
	int i;

	for (i = 0; i < 80; i++) {
		snprintf(path, sizeof(path), CGROOT "/" CGTEST "/%s/c%d", rel, i);
		rmdir(path);
	}
	snprintf(path, sizeof(path), CGROOT "/" CGTEST "/%s/sub", rel);
	rmdir(path);
	snprintf(path, sizeof(path), CGROOT "/" CGTEST "/%s", rel);
	rmdir(path);
}

static int cleanup(void **state)
{
	(void)state;
	if (devfd >= 0)
		close(devfd);
	devfd = -1;
	ev_group_rmdir(GROUP);
	cg_remove("a");
	cg_remove("race");
	cg_remove("many");
	rmdir(CGROOT "/" CGTEST);
	return 0;
}

/* The cgroup CGTEST/@rel, made; its id (its directory's inode number). */
static uint64_t cg_make(const char *rel)
{
	char path[512];
	struct stat st;

	if (mkdir(CGROOT "/" CGTEST, 0755) && errno != EEXIST)
		fail_msg("mkdir " CGROOT "/" CGTEST ": %s", strerror(errno));
	snprintf(path, sizeof(path), CGROOT "/" CGTEST "/%s", rel);
	if (mkdir(path, 0755) && errno != EEXIST)
		fail_msg("mkdir %s: %s", path, strerror(errno));
	assert_int_equal(stat(path, &st), 0);
	return (uint64_t)st.st_ino;
}

/* Move the calling process into CGTEST/@rel ("" for the root); 0 or errno. */
static int cg_enter(const char *rel)
{
	char path[512], pid[32];
	int fd, n, err = 0;

	if (*rel)
		snprintf(path, sizeof(path), CGROOT "/" CGTEST "/%s/cgroup.procs", rel);
	else
		snprintf(path, sizeof(path), CGROOT "/cgroup.procs");
	n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (write(fd, pid, (size_t)n) != n)
		err = errno;
	close(fd);
	return err;
}

/* A child in CGTEST/@rel that opens MNT/@name; its exit: 0 or errno. */
static pid_t opener_in(const char *rel, const char *name, int flags)
{
	char path[4096];
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", mnt, name);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd;

		if (cg_enter(rel))
			_exit(120);
		fd = open(path, flags);
		if (fd < 0)
			_exit(errno ? errno : 121);
		if ((flags & O_ACCMODE) != O_RDONLY && write(fd, "x", 1) != 1)
			_exit(122);
		close(fd);
		_exit(0);
	}
	return pid;
}

static void lower_file(const char *name)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", lower, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		fail_msg("create %s: %s", path, strerror(errno));
	assert_int_equal(write(fd, "data", 4), 4);
	close(fd);
}

static void group_attr(const char *attr, const char *value, int want_errno)
{
	int err = ev_group_write(GROUP, attr, value);

	if (want_errno && err != -want_errno)
		fail_msg("write '%s' to %s: %s, not %s", value, attr,
			 err ? strerror(-err) : "done", strerror(want_errno));
	if (!want_errno && err)
		fail_msg("write '%s' to %s: %s", value, attr, strerror(-err));
}

/* The attribute reads @want: an empty list is an empty file. */
static void expect_excluded(const char *want)
{
	char buf[4096];
	ssize_t n;
	int fd;

	fd = open(DAZUKOFS_CONFIGFS_ROOT "/" GROUP "/exclude_cgroups",
		  O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fail_msg("open exclude_cgroups: %s", strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		fail_msg("read exclude_cgroups: %s", strerror(errno));
	buf[n] = '\0';
	assert_string_equal(buf, want);
}

static void group_with_record(const char *record)
{
	int id = ev_group_mkdir(GROUP);

	if (id < 0)
		fail_msg("mkdir group: %s", strerror(-id));
	group_attr("record", record, 0);
	devfd = ev_dev_open(id, 0);
	if (devfd < 0)
		fail_msg("open the group device: %s", strerror(-devfd));
}

/* One format-3 record; a read of @size bytes. */
static void read_record3(struct dazukofs_proto_record *rec)
{
	struct pollfd pfd = { .fd = devfd, .events = POLLIN };
	char buf[DAZUKOFS_RECORD3_MAX];
	ssize_t n;

	assert_int_equal(poll(&pfd, 1, 20000), 1);
	n = read(devfd, buf, sizeof(buf));
	if (n <= 0)
		fail_msg("read: %s", n ? strerror(errno) : "nothing");
	if (dazukofs_proto_parse_record(buf, (size_t)n, rec))
		fail_msg("not a record: '%.*s'", (int)n, buf);
	assert_int_equal(rec->format, DAZUKOFS_RECORD_V3);
}

static void answer(unsigned long id)
{
	assert_int_equal(ev_answer(devfd, id, DAZUKOFS_ALLOW), 0);
}

static char id_line[64];

static const char *ids_text(uint64_t id)
{
	snprintf(id_line, sizeof(id_line), "%llu\n", (unsigned long long)id);
	return id_line;
}

/* ---------------------------------------------------------------- */

/* Format 3 names the opener's cgroup, and the closer's; format 2 does not. */
static void record3_names_the_cgroup(void **state)
{
	struct dazukofs_proto_record rec;
	uint64_t a = cg_make("a"), sub = cg_make("a/sub");
	char buf[DAZUKOFS_RECORD3_MAX];
	pid_t pid;

	(void)state;
	group_with_record("3");
	lower_file("f3");
	pid = opener_in("a/sub", "f3", O_RDONLY);
	read_record3(&rec);
	assert_true(rec.cgroup == sub);
	assert_int_equal(rec.pid, pid);
	answer(rec.id);
	close(rec.fd);
	assert_int_equal(ev_opener_wait(pid, 20000), 0);

	/* a read too small for one format-3 record */
	pid = opener_in("a", "f3", O_RDONLY);
	assert_true(ev_wait_ctr(GROUP, "waiting", 1, 20000));
	errno = 0;
	assert_int_equal(read(devfd, buf, DAZUKOFS_RECORD_MAX), -1);
	assert_int_equal(errno, EINVAL);
	read_record3(&rec);
	assert_true(rec.cgroup == a);
	answer(rec.id);
	close(rec.fd);
	assert_int_equal(ev_opener_wait(pid, 20000), 0);

	/* close_write: the closer's cgroup; nobody waits for it */
	group_attr("events", "close_write", 0);
	pid = opener_in("a/sub", "f3", O_WRONLY);
	assert_int_equal(ev_opener_wait(pid, 20000), 0);
	read_record3(&rec);
	assert_int_equal(rec.type, DAZUKOFS_EVENT_CLOSE_WRITE);
	assert_true(rec.cgroup == sub);
	answer(rec.id);
	close(rec.fd);
}

/* An excluded cgroup and its children make no event; the others do. */
static void exclude_skips_cgroup_and_children(void **state)
{
	struct dazukofs_proto_record rec;
	uint64_t a = cg_make("a");
	long long events;
	pid_t pid;

	(void)state;
	cg_make("a/sub");
	group_with_record("3");
	expect_excluded("");
	lower_file("fx");
	group_attr("exclude_cgroups", "/" CGTEST "/a\n", 0);
	expect_excluded(ids_text(a));
	events = ev_ctr(GROUP, "events");
	/* no worker answers: an event would hang the opener */
	assert_int_equal(ev_opener_wait(opener_in("a", "fx", O_RDONLY), 20000), 0);
	assert_int_equal(ev_opener_wait(opener_in("a/sub", "fx", O_RDONLY), 20000), 0);
	assert_int_equal(ev_ctr(GROUP, "excluded"), 2);
	assert_int_equal(ev_ctr(GROUP, "events"), events);
	assert_int_equal(ev_ctr(GROUP, "waiting"), 0);

	/* the root cgroup is not excluded */
	pid = opener_in("", "fx", O_RDONLY);
	read_record3(&rec);
	assert_int_equal(rec.pid, pid);
	answer(rec.id);
	close(rec.fd);
	assert_int_equal(ev_opener_wait(pid, 20000), 0);
	assert_int_equal(ev_ctr(GROUP, "excluded"), 2);

	/* by id; an empty write ends it */
	group_attr("exclude_cgroups", ids_text(a), 0);
	expect_excluded(ids_text(a));
	group_attr("exclude_cgroups", "\n", 0);
	expect_excluded("");
	pid = opener_in("a", "fx", O_RDONLY);
	read_record3(&rec);
	assert_true(rec.cgroup == a);
	answer(rec.id);
	close(rec.fd);
	assert_int_equal(ev_opener_wait(pid, 20000), 0);
}

/* Bad input: a clear errno, and the list stays as it was. */
static void exclude_bad_writes(void **state)
{
	static const char *const malformed[] = {
		"x", "-1", "+5", "5x", "0x10", "relative/path",
		"99999999999999999999999", "5 x",
	};
	uint64_t a = cg_make("a");
	char text[80 * 24], name[32];
	struct stat st;
	size_t i, len = 0;

	(void)state;
	group_with_record("2");
	group_attr("exclude_cgroups", ids_text(a), 0);
	for (i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++)
		group_attr("exclude_cgroups", malformed[i], EINVAL);
	group_attr("exclude_cgroups", "/" CGTEST "/none", ENOENT);
	group_attr("exclude_cgroups", "/" CGTEST "/a/cgroup.procs", ENOENT);
	group_attr("exclude_cgroups", "/" CGTEST "/a 18446744073709551615", ENOENT);
	/* a file's inode number is no cgroup id */
	assert_int_equal(stat(CGROOT "/" CGTEST "/a/cgroup.procs", &st), 0);
	snprintf(name, sizeof(name), "%llu", (unsigned long long)st.st_ino);
	group_attr("exclude_cgroups", name, ENOENT);
	expect_excluded(ids_text(a));

	/* DAZUKOFS_EXCLUDE_CGROUPS_MAX, and one more */
	cg_make("many");
	for (i = 0; i <= DAZUKOFS_EXCLUDE_CGROUPS_MAX; i++) {
		snprintf(name, sizeof(name), "many/c%zu", i);
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%llu\n",
					(unsigned long long)cg_make(name));
		if (i == DAZUKOFS_EXCLUDE_CGROUPS_MAX - 1) {
			group_attr("exclude_cgroups", text, 0);
			expect_excluded(text);
		}
	}
	group_attr("exclude_cgroups", text, E2BIG);
	/* one named twice counts once */
	snprintf(text, sizeof(text), "%llu /" CGTEST "/a %llu",
		 (unsigned long long)a, (unsigned long long)a);
	group_attr("exclude_cgroups", text, 0);
	expect_excluded(ids_text(a));
}

/* A removed cgroup drops out of the list; the others stay. */
static void exclude_removed_cgroup_drops_out(void **state)
{
	uint64_t a = cg_make("a"), sub = cg_make("a/sub");
	char both[64];

	(void)state;
	group_with_record("2");
	snprintf(both, sizeof(both), "%llu\n%llu\n", (unsigned long long)sub,
		 (unsigned long long)a);
	group_attr("exclude_cgroups", both, 0);
	expect_excluded(both);
	assert_int_equal(rmdir(CGROOT "/" CGTEST "/a/sub"), 0);
	/* the kernel frees a removed cgroup's id at once: no waiting */
	expect_excluded(ids_text(a));
	expect_excluded(ids_text(a));
}

/*
 * Cgroups excluded, entered, left and removed while their processes
 * open: for 2 s, nothing may hang, fail or leak (the guest's kernel log
 * is checked for KASAN and lockdep reports).
 */
static void exclude_races_removal(void **state)
{
	long long end = ev_now_ms() + 2000;
	int round = 0;

	(void)state;
	group_with_record("3");
	lower_file("fr");
	cg_make("race");
	while (ev_now_ms() < end) {
		char rel[32], path[64];
		pid_t kids[3];
		int k;

		snprintf(rel, sizeof(rel), "race/c%d", round % 4);
		cg_make(rel);
		snprintf(path, sizeof(path), "/" CGTEST "/%s", rel);
		group_attr("exclude_cgroups", path, 0);
		for (k = 0; k < 3; k++) {
			kids[k] = fork();
			assert_true(kids[k] >= 0);
			if (kids[k] == 0) {
				char file[4096];
				int i;

				if (cg_enter(rel))
					_exit(120);
				snprintf(file, sizeof(file), "%s/fr", mnt);
				for (i = 0; i < 50; i++) {
					int fd = open(file, O_RDONLY);

					if (fd < 0)
						_exit(errno);
					close(fd);
				}
				_exit(0);
			}
		}
		for (k = 0; k < 3; k++)
			assert_int_equal(ev_opener_wait(kids[k], 20000), 0);
		/* the read prunes while the next round's writes replace */
		snprintf(path, sizeof(path), CGROOT "/" CGTEST "/%s", rel);
		assert_int_equal(rmdir(path), 0);
		expect_excluded("");
		round++;
	}
	assert_true(round > 0);
	assert_int_equal(ev_ctr(GROUP, "waiting"), 0);
	assert_int_equal(ev_ctr(GROUP, "events"), 0);
	assert_int_equal(ev_ctr(GROUP, "excluded"), round * 3LL * 50);
	print_message("%d rounds\n", round);
}

#define T(f) cmocka_unit_test_teardown(f, cleanup)

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		T(record3_names_the_cgroup),
		T(exclude_skips_cgroup_and_children),
		T(exclude_bad_writes),
		T(exclude_removed_cgroup_drops_out),
		T(exclude_races_removal),
	};
	struct statfs fs;

	if (argc < 3) {
		fprintf(stderr, "usage: %s LOWER MNT [FILTER]\n", argv[0]);
		return 2;
	}
	lower = argv[1];
	mnt = argv[2];
	if (argc > 3)
		cmocka_set_test_filter(argv[3]);
	if ((statfs(CGROOT, &fs) || fs.f_type != CGROUP2_SUPER_MAGIC) &&
	    mount("cgroup2", CGROOT, "cgroup2", 0, NULL)) {
		fprintf(stderr, "cgroup-test: mount cgroup2 on " CGROOT ": %s\n",
			strerror(errno));
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
