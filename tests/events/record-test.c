// SPDX-License-Identifier: GPL-2.0
/*
 * Record format 2 tests (cmocka; run as root in the VM by guest-events.sh):
 * the group attribute "record", what a format-2 record says of the opener
 * and of the file, batched reads and writes, and bad input.
 *
 * usage: record-test LOWER MNT [FILTER]
 *   LOWER: the directory below the dazukofs mount MNT.  Expects no group.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/fsuid.h>
#include <sys/sysmacros.h>

#include <cmocka.h>

#include "ev.h"

static const char *lower, *mnt;

#define GROUP "rec"
#define NOBODY_UID 65534

/* The test's one group and device; the teardown removes what is left. */
static int devfd = -1;
static pid_t kids[16];
static int nkids;

static int cleanup(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < nkids; i++) {
		if (kill(kids[i], SIGKILL) == 0)
			waitpid(kids[i], NULL, 0);
	}
	nkids = 0;
	if (devfd >= 0)
		close(devfd);
	devfd = -1;
	ev_group_rmdir(GROUP);
	return 0;
}

static void group_attr(const char *attr, const char *value, int want_errno)
{
	int err = ev_group_write(GROUP, attr, value);

	if (want_errno)
		assert_int_equal(err, -want_errno);
	else if (err)
		fail_msg("write '%s' to %s: %s", value, attr, strerror(-err));
}

static void expect_attr(const char *attr, const char *want)
{
	char buf[64];
	int n = ev_group_read(GROUP, attr, buf, sizeof(buf));

	if (n < 0)
		fail_msg("read %s: %s", attr, strerror(-n));
	assert_string_equal(buf, want);
}

/* A group of format @record with its device open. */
static void group_with_record(const char *record)
{
	int id = ev_group_mkdir(GROUP);

	if (id < 0)
		fail_msg("mkdir group: %s", strerror(-id));
	if (record)
		group_attr("record", record, 0);
	devfd = ev_dev_open(id, 0);
	if (devfd < 0)
		fail_msg("open the group device: %s", strerror(-devfd));
}

static void lower_file(const char *name, const char *content, mode_t mode)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", lower, name);
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		fail_msg("create %s: %s", path, strerror(errno));
	assert_int_equal(write(fd, content, strlen(content)),
			 (ssize_t)strlen(content));
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

static void track(pid_t pid)
{
	if (pid < 0)
		fail_msg("fork: %s", strerror(errno));
	assert_true(nkids < (int)(sizeof(kids) / sizeof(kids[0])));
	kids[nkids++] = pid;
}

/* An opener of MNT/@name with @flags, as the given uids (-1: unchanged). */
static pid_t opener_as(const char *name, int flags, int ruid, int euid,
		       int fsuid)
{
	char path[4096];
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", mnt, name);
	pid = fork();
	if (pid == 0) {
		int fd;

		/* The saved uid lets the fsuid differ from the others. */
		if (ruid >= 0 && setresuid(ruid, euid, fsuid))
			_exit(100);
		if (fsuid >= 0) {
			setfsuid(fsuid);
			if (setfsuid(-1) != fsuid)
				_exit(101);
		}
		fd = open(path, flags, 0666);
		_exit(fd < 0 ? (errno ? errno : 255) : 0);
	}
	track(pid);
	return pid;
}

static pid_t opener(const char *name)
{
	return opener_as(name, O_RDONLY, -1, -1, -1);
}

/* Wait for @n events to wait in the group's queue. */
static void wait_queued(long long n)
{
	if (!ev_wait_ctr(GROUP, "waiting", n, 20000))
		fail_msg("%lld events never waited (waiting=%lld)", n,
			 ev_ctr(GROUP, "waiting"));
}

/*
 * One read of @size bytes; the records it returned, parsed, at most @max.
 * Each line must be a record.
 */
static int read_records(size_t size, struct dazukofs_proto_record *recs,
			int max)
{
	char *buf = malloc(size);
	size_t off = 0;
	ssize_t n;
	int nrec = 0;

	assert_non_null(buf);
	n = read(devfd, buf, size);
	if (n < 0)
		fail_msg("read of %zu bytes: %s", size, strerror(errno));
	while (off < (size_t)n) {
		size_t len = dazukofs_proto_line_len(buf + off, (size_t)n - off);

		assert_true(len < DAZUKOFS_RECORD_MAX);
		assert_true(nrec < max);
		if (dazukofs_proto_parse_record(buf + off, len, &recs[nrec]))
			fail_msg("not a record: '%.*s'", (int)len, buf + off);
		nrec++;
		off += len;
	}
	free(buf);
	return nrec;
}

static void read_one(struct dazukofs_proto_record *rec)
{
	struct pollfd pfd = { .fd = devfd, .events = POLLIN };

	assert_int_equal(poll(&pfd, 1, 20000), 1);
	assert_int_equal(read_records(DAZUKOFS_RECORD_MAX, rec, 1), 1);
}

static void answer(unsigned long id, int verdict)
{
	char buf[DAZUKOFS_RESPONSE_MAX];
	int n = dazukofs_proto_format_response(buf, sizeof(buf), id, verdict, 0);

	assert_true(n > 0);
	if (write(devfd, buf, (size_t)n) != n)
		fail_msg("answer %lu: %s", id, strerror(errno));
}

/* ---------------------------------------------------------------- */

/* Format 1 stays the default; only 1, 2 and 3 may be written. */
static void record_attribute(void **state)
{
	static const char *const bad[] = { "0", "4", "x", "2x", "-1",
					   "4294967298", "2 2" };
	struct dazukofs_proto_event ev;
	size_t i;
	pid_t pid;

	(void)state;
	group_with_record(NULL);
	expect_attr("record", "1\n");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		group_attr("record", bad[i], EINVAL);
	expect_attr("record", "1\n");
	lower_file("v1", "one", 0644);
	pid = opener("v1");
	assert_int_equal(ev_read(devfd, &ev, 20000), 0);
	answer(ev.id, DAZUKOFS_ALLOW);
	close(ev.fd);
	assert_int_equal(ev_opener_wait(pid, 20000), 0);
	group_attr("record", "2\n", 0);
	expect_attr("record", "2\n");
	group_attr("record", "3", 0);
	expect_attr("record", "3\n");
	group_attr("record", "1", 0);
	expect_attr("record", "1\n");
}

/* Who opened the file how, and which file it is, as the fd finds it. */
static void record_says_who_and_what(void **state)
{
	struct dazukofs_proto_record rec, again;
	struct stat st, lst;
	char path[4096];
	pid_t pid;

	(void)state;
	group_with_record("2");
	lower_file("who", "twelve bytes", 0666);
	pid = opener_as("who", O_RDWR | O_TRUNC, 1001, 1002, 1003);
	read_one(&rec);
	assert_true(rec.fd >= 0);
	assert_int_equal(rec.pid, pid);
	assert_int_equal(rec.uid, 1001);
	assert_int_equal(rec.euid, 1002);
	assert_int_equal(rec.fsuid, 1003);
	assert_int_equal(rec.type, DAZUKOFS_EVENT_OPEN);
	assert_int_equal(rec.access, DAZUKOFS_ACCESS_READ |
			 DAZUKOFS_ACCESS_WRITE | DAZUKOFS_ACCESS_TRUNC);
	assert_int_equal(fstat(rec.fd, &st), 0);
	snprintf(path, sizeof(path), "%s/who", lower);
	assert_int_equal(stat(path, &lst), 0);
	assert_int_equal(makedev(rec.dev_major, rec.dev_minor), st.st_dev);
	assert_int_equal(st.st_dev, lst.st_dev);
	assert_int_equal(rec.ino, st.st_ino);
	assert_int_equal(rec.size, 12);
	/* tmpfs keeps a change counter */
	assert_true(rec.change != 0);
	answer(rec.id, DAZUKOFS_ALLOW);
	close(rec.fd);
	assert_int_equal(ev_opener_wait(pid, 20000), 0);

	/* The O_TRUNC open changed the file: so did its counter. */
	pid = opener("who");
	read_one(&again);
	assert_int_equal(again.uid, 0);
	assert_int_equal(again.access, DAZUKOFS_ACCESS_READ);
	assert_int_equal(again.size, 0);
	assert_int_equal(again.ino, rec.ino);
	assert_true(again.change != rec.change);
	answer(again.id, DAZUKOFS_ALLOW);
	close(again.fd);
	assert_int_equal(ev_opener_wait(pid, 20000), 0);

	/* Unchanged: the same counter. */
	pid = opener("who");
	read_one(&rec);
	assert_int_equal(rec.change, again.change);
	answer(rec.id, DAZUKOFS_DENY);
	close(rec.fd);
	assert_int_equal(ev_opener_wait(pid, 20000), EPERM);
}

/* An open that creates the file says so; an execve is of type exec. */
static void record_create_and_exec(void **state)
{
	struct dazukofs_proto_record rec;
	char path[4096];
	pid_t pid;
	int status;

	(void)state;
	group_with_record("2");
	snprintf(path, sizeof(path), "%s/made", lower);
	unlink(path);
	pid = opener_as("made", O_WRONLY | O_CREAT | O_EXCL, -1, -1, -1);
	read_one(&rec);
	assert_int_equal(rec.type, DAZUKOFS_EVENT_OPEN);
	assert_int_equal(rec.access, DAZUKOFS_ACCESS_WRITE | DAZUKOFS_ACCESS_CREATE);
	assert_int_equal(rec.size, 0);
	answer(rec.id, DAZUKOFS_ALLOW);
	close(rec.fd);
	assert_int_equal(ev_opener_wait(pid, 20000), 0);

	/* A copy of true(1) run through the mount, as nobody. */
	snprintf(path, sizeof(path), "%s/true", lower);
	unlink(path);
	{
		int in = open("/bin/true", O_RDONLY | O_CLOEXEC);
		int out = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0755);
		char buf[65536];
		ssize_t n;

		assert_true(in >= 0 && out >= 0);
		while ((n = read(in, buf, sizeof(buf))) > 0)
			assert_int_equal(write(out, buf, (size_t)n), n);
		close(in);
		close(out);
	}
	snprintf(path, sizeof(path), "%s/true", mnt);
	pid = fork();
	if (pid == 0) {
		if (setresuid(NOBODY_UID, NOBODY_UID, NOBODY_UID))
			_exit(100);
		execl(path, "true", (char *)NULL);
		_exit(errno);
	}
	track(pid);
	read_one(&rec);
	assert_int_equal(rec.type, DAZUKOFS_EVENT_EXEC);
	assert_int_equal(rec.access, DAZUKOFS_ACCESS_READ);
	assert_int_equal(rec.uid, NOBODY_UID);
	assert_int_equal(rec.pid, pid);
	answer(rec.id, DAZUKOFS_ALLOW);
	close(rec.fd);
	/* the dynamic loader's opens through the mount, if any, are allowed */
	for (;;) {
		struct pollfd pfd = { .fd = devfd, .events = POLLIN };
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			break;
		if (poll(&pfd, 1, 10) == 1) {
			read_one(&rec);
			answer(rec.id, DAZUKOFS_ALLOW);
			close(rec.fd);
		}
	}
	nkids--;
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* A close after writing is of type close_write, access w. */
static void record_close_write(void **state)
{
	struct dazukofs_proto_record rec;
	char path[4096];
	int fd;

	(void)state;
	group_with_record("2");
	group_attr("events", "close_write", 0);
	lower_file("written", "", 0644);
	snprintf(path, sizeof(path), "%s/written", mnt);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "abc", 3), 3);
	close(fd);
	read_one(&rec);
	assert_int_equal(rec.type, DAZUKOFS_EVENT_CLOSE_WRITE);
	assert_int_equal(rec.access, DAZUKOFS_ACCESS_WRITE);
	assert_int_equal(rec.pid, getpid());
	assert_int_equal(rec.size, 3);
	answer(rec.id, DAZUKOFS_ALLOW);
	close(rec.fd);
}

/*
 * A read returns as many records as it has room for, each with its own
 * fd; one write answers them all.
 */
static void record_batches(void **state)
{
	struct dazukofs_proto_record rec[8];
	char names[4][8], text[4 * DAZUKOFS_RESPONSE_MAX];
	pid_t pid[4];
	int i, j, n, len = 0;

	(void)state;
	group_with_record("2");
	for (i = 0; i < 4; i++) {
		snprintf(names[i], sizeof(names[i]), "b%d", i);
		lower_file(names[i], names[i], 0644);
		pid[i] = opener(names[i]);
	}
	wait_queued(4);
	/* Room for one record: one, however short. */
	assert_int_equal(read_records(DAZUKOFS_RECORD_MAX + 100, rec, 8), 1);
	/* Room for eight: the three left, without waiting for more. */
	assert_int_equal(read_records(8 * DAZUKOFS_RECORD_MAX, rec + 1, 7), 3);
	for (i = 0; i < 4; i++) {
		struct stat st;

		assert_true(rec[i].fd >= 0);
		assert_int_equal(fstat(rec[i].fd, &st), 0);
		assert_int_equal(rec[i].ino, st.st_ino);
		for (j = 0; j < i; j++) {
			assert_true(rec[i].id != rec[j].id);
			assert_true(rec[i].fd != rec[j].fd);
		}
		len += dazukofs_proto_format_response(text + len, sizeof(text) - len,
						      rec[i].id, i == 2, 0);
	}
	assert_int_equal(write(devfd, text, (size_t)len), len);
	for (i = 0; i < 4; i++) {
		int want = 0;

		for (j = 0; j < 4; j++) {
			if (rec[j].pid == pid[i] && j == 2)
				want = EPERM;
		}
		assert_int_equal(ev_opener_wait(pid[i], 20000), want);
		close(rec[i].fd);
	}
	/* Nothing left: a non-blocking batch read says so. */
	n = fcntl(devfd, F_GETFL);
	assert_int_equal(fcntl(devfd, F_SETFL, n | O_NONBLOCK), 0);
	assert_int_equal(read(devfd, text, DAZUKOFS_RECORD_MAX), -1);
	assert_int_equal(errno, EAGAIN);
	assert_int_equal(ev_ctr(GROUP, "in_hand"), 0);
}

/*
 * A write of several answers takes them up to the first that fails; bad
 * input is refused with EINVAL and leaves the events answerable.
 */
static void record_bad_writes_and_reads(void **state)
{
	struct dazukofs_proto_record rec[2];
	char text[512], small[DAZUKOFS_RECORD_MAX - 1];
	int len1, len2, n;
	pid_t pid[2];

	(void)state;
	group_with_record("2");
	lower_file("w0", "0", 0644);
	lower_file("w1", "1", 0644);
	pid[0] = opener("w0");
	pid[1] = opener("w1");
	wait_queued(2);
	/* A buffer shorter than the longest record: EINVAL, nothing taken. */
	assert_int_equal(read(devfd, small, sizeof(small)), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(ev_ctr(GROUP, "waiting"), 2);
	assert_int_equal(read_records(2 * DAZUKOFS_RECORD_MAX, rec, 2), 2);
	/* The openers raced each other into the queue: pid[i] is rec[i]'s. */
	assert_true((rec[0].pid == pid[0] && rec[1].pid == pid[1]) ||
		    (rec[0].pid == pid[1] && rec[1].pid == pid[0]));
	pid[0] = rec[0].pid;
	pid[1] = rec[1].pid;

	/* Malformed first answer, and a line longer than any answer. */
	assert_int_equal(write(devfd, "id=x r=0\n", 9), -1);
	assert_int_equal(errno, EINVAL);
	memset(text, ' ', 100);
	n = snprintf(text + 100, sizeof(text) - 100, "id=%lu r=0\n", rec[0].id);
	assert_int_equal(write(devfd, text, 100 + (size_t)n), -1);
	assert_int_equal(errno, EINVAL);
	/* An unknown id in the middle: the first answer only is taken. */
	len1 = snprintf(text, sizeof(text), "id=%lu r=0\n", rec[0].id);
	len2 = snprintf(text + len1, sizeof(text) - len1, "id=%lu r=0\n",
			rec[0].id + 1000000);
	n = snprintf(text + len1 + len2, sizeof(text) - len1 - len2,
		     "id=%lu r=1\n", rec[1].id);
	assert_int_equal(write(devfd, text, (size_t)(len1 + len2 + n)), len1);
	assert_int_equal(write(devfd, text + len1, (size_t)(len2 + n)), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(ev_opener_wait(pid[0], 20000), 0);
	assert_true(ev_opener_running(pid[1]));
	/* The last answer without its newline is still an answer. */
	assert_int_equal(write(devfd, text + len1 + len2, (size_t)n - 1), n - 1);
	assert_int_equal(ev_opener_wait(pid[1], 20000), EPERM);
	/* An empty write takes nothing. */
	assert_int_equal(write(devfd, text, 0), 0);
	close(rec[0].fd);
	close(rec[1].fd);
	assert_int_equal(ev_ctr(GROUP, "in_hand"), 0);
	assert_int_equal(ev_ctr(GROUP, "waiting"), 0);
}

/* A format-1 group keeps the seeds' rules: one answer per write. */
static void record_v1_one_answer_per_write(void **state)
{
	struct dazukofs_proto_event ev;
	char text[128];
	int n;
	pid_t pid;

	(void)state;
	group_with_record("1");
	lower_file("one", "1", 0644);
	pid = opener("one");
	assert_int_equal(ev_read(devfd, &ev, 20000), 0);
	n = snprintf(text, sizeof(text), "id=%lu r=0\nid=%lu r=0\n", ev.id,
		     ev.id);
	assert_int_equal(write(devfd, text, (size_t)n), -1);
	assert_int_equal(errno, EINVAL);
	assert_true(ev_opener_running(pid));
	answer(ev.id, DAZUKOFS_ALLOW);
	close(ev.fd);
	assert_int_equal(ev_opener_wait(pid, 20000), 0);
}

#define T(f) cmocka_unit_test_teardown(f, cleanup)

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		T(record_attribute),
		T(record_says_who_and_what),
		T(record_create_and_exec),
		T(record_close_write),
		T(record_batches),
		T(record_bad_writes_and_reads),
		T(record_v1_one_answer_per_write),
	};

	if (argc < 3) {
		fprintf(stderr, "usage: %s LOWER MNT [FILTER]\n", argv[0]);
		return 2;
	}
	lower = argv[1];
	mnt = argv[2];
	if (argc > 3)
		cmocka_set_test_filter(argv[3]);
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
