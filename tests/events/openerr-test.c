// SPDX-License-Identifier: GPL-2.0
/*
 * An event whose file the worker cannot open never stalls the group
 * (cmocka; run as root in the VM by guest-events-openerr.sh).
 *
 * usage: openerr-test SOURCE MNT [FILTER]
 *   MNT is a dazukofs mount stacked on refusefs, which passes SOURCE
 *   through but refuses root's open() of names containing "refused"
 *   (EACCES) or "nomem" (ENOMEM).  Openers run as nobody (65534), whose
 *   open succeeds; the worker is this process (root), whose open of the
 *   event's file fails.  Expects no group to exist.
 */
#include <grp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ev.h"

#define GROUP "openerr"
#define NOBODY 65534
/* Generous for TCG: "promptly" means long before any test time limit. */
#define PROMPT_MS 10000

static const char *source, *mnt;
static pid_t kids[16];
static int nkids;
static int devfd = -1;

/* Write @val to the group's configfs attribute; 0 or -errno. */
static int cfg_write(const char *attr, const char *val)
{
	return ev_group_write(GROUP, attr, val);
}

static void cfg_expect(const char *attr, const char *want)
{
	char buf[64];
	int n = ev_group_read(GROUP, attr, buf, sizeof(buf));

	if (n < 0)
		fail_msg("read %s: %s", attr, strerror(-n));
	buf[strcspn(buf, "\n")] = '\0';
	assert_string_equal(buf, want);
}

/* Make SOURCE/name (not through any mount: no event). */
static void source_file(const char *name)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", source, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		fail_msg("create %s: %s", path, strerror(errno));
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
}

/* Fork a process that opens MNT/name as nobody: exits 0 or the errno. */
static pid_t opener(const char *name)
{
	char path[4096];
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", mnt, name);
	pid = fork();
	if (pid == 0) {
		int fd;

		if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(254);
		fd = open(path, O_RDONLY);
		_exit(fd < 0 ? (errno ? errno : 255) : 0);
	}
	if (pid < 0)
		fail_msg("fork: %s", strerror(errno));
	assert_true(nkids < (int)(sizeof(kids) / sizeof(kids[0])));
	kids[nkids++] = pid;
	return pid;
}

static long long G(const char *name)
{
	return ev_ctr(GROUP, name);
}

/* The group's counters add up, and nothing is left waiting or in hand. */
static void assert_group_settled(void)
{
	assert_int_equal(G("waiting"), 0);
	assert_int_equal(G("in_hand"), 0);
	assert_int_equal(G("events"),
			 G("allowed") + G("denied") + G("cancelled") +
			 G("timeouts") + G("open_errors"));
}

/* A tracked group (like the scanner's) with one worker: this process. */
static int setup(void **state)
{
	int id = ev_group_mkdir(GROUP);

	(void)state;
	if (id < 0) {
		fprintf(stderr, "mkdir group %s: %s\n", GROUP, strerror(-id));
		return -1;
	}
	if (cfg_write("track", "1")) {
		fprintf(stderr, "track=1: %s\n", strerror(errno));
		return -1;
	}
	devfd = ev_dev_open(id, O_NONBLOCK);
	if (devfd < 0) {
		fprintf(stderr, "open /dev/dazukofs.%d: %s\n", id, strerror(-devfd));
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	int i;

	(void)state;
	if (devfd >= 0)
		close(devfd);
	devfd = -1;
	ev_group_rmdir(GROUP);
	for (i = 0; i < nkids; i++) {
		if (kill(kids[i], SIGKILL) == 0)
			waitpid(kids[i], NULL, 0);
		else
			waitpid(kids[i], NULL, WNOHANG);
	}
	nkids = 0;
	return 0;
}

/* One non-blocking read: 0 and the event, or -errno. */
static int read_now(struct dazukofs_proto_event *ev)
{
	return ev_read(devfd, ev, -1);
}

/* ---------------------------------------------------------------- */

/* open_error_action: deny by default, allow or deny, nothing else. */
static void action_attribute(void **state)
{
	(void)state;
	cfg_expect("open_error_action", "deny");
	assert_int_equal(G("open_errors"), 0);
	assert_true(ev_ctr(NULL, "open_errors") >= 0);
	assert_int_equal(cfg_write("open_error_action", "allow\n"), 0);
	cfg_expect("open_error_action", "allow");
	assert_int_equal(cfg_write("open_error_action", "maybe"), -EINVAL);
	assert_int_equal(cfg_write("open_error_action", "1"), -EINVAL);
	assert_int_equal(cfg_write("open_error_action", "denyy"), -EINVAL);
	cfg_expect("open_error_action", "allow");
	assert_int_equal(cfg_write("open_error_action", "deny"), 0);
	cfg_expect("open_error_action", "deny");
}

/*
 * The worker cannot open the first event's file (EACCES): that event is
 * denied by the default policy and counted, and the worker's read returns
 * the event queued behind it.  On the old code the read failed with
 * EACCES and the event went back to the head of the queue, for ever.
 */
static void refused_file_denied_next_goes_on(void **state)
{
	long long global0 = ev_ctr(NULL, "open_errors");
	struct dazukofs_proto_event ev;
	pid_t refused, ok;
	int err;

	(void)state;
	source_file("refused-1");
	source_file("ok-1");
	refused = opener("refused-1");
	assert_true(ev_wait_ctr(GROUP, "waiting", 1, PROMPT_MS));
	ok = opener("ok-1");
	assert_true(ev_wait_ctr(GROUP, "waiting", 2, PROMPT_MS));

	err = read_now(&ev);
	if (err)
		fail_msg("read with a refused event first: %s (the queue stalls)",
			 strerror(-err));
	assert_int_equal(ev_opener_wait(refused, PROMPT_MS), EPERM);
	assert_int_equal(G("open_errors"), 1);
	assert_true(ev_ctr(NULL, "open_errors") >= global0 + 1);
	assert_int_equal(G("denied"), 0);

	/* the event read is the one behind: its opener still waits */
	assert_true(ev_opener_running(ok));
	assert_int_equal(G("in_hand"), 1);
	assert_int_equal(ev_answer(devfd, ev.id, DAZUKOFS_ALLOW), 0);
	close(ev.fd);
	assert_int_equal(ev_opener_wait(ok, PROMPT_MS), 0);

	assert_int_equal(read_now(&ev), -EAGAIN);
	assert_int_equal(ev_ctr(GROUP, "active"), 1);
	assert_int_equal(G("allowed"), 1);
	assert_group_settled();
}

/* With open_error_action allow, the refused file's opener goes on. */
static void refused_file_allow_policy(void **state)
{
	struct dazukofs_proto_event ev;
	pid_t refused;

	(void)state;
	assert_int_equal(cfg_write("open_error_action", "allow"), 0);
	source_file("refused-2");
	refused = opener("refused-2");
	assert_true(ev_wait_ctr(GROUP, "waiting", 1, PROMPT_MS));
	/* nothing else waits: the read settles it and finds no event */
	assert_int_equal(read_now(&ev), -EAGAIN);
	assert_int_equal(ev_opener_wait(refused, PROMPT_MS), 0);
	assert_int_equal(G("open_errors"), 1);
	assert_int_equal(G("allowed"), 0);
	assert_group_settled();
}

/* A blocked reader is not woken for nothing: it waits for a real event. */
static void blocking_reader_skips_refused(void **state)
{
	struct dazukofs_proto_event ev;
	pid_t refused, ok;
	int fl = fcntl(devfd, F_GETFL);

	(void)state;
	assert_int_equal(fcntl(devfd, F_SETFL, fl & ~O_NONBLOCK), 0);
	source_file("refused-3");
	source_file("ok-3");
	refused = opener("refused-3");
	assert_true(ev_wait_ctr(GROUP, "waiting", 1, PROMPT_MS));
	ok = opener("ok-3");
	assert_true(ev_wait_ctr(GROUP, "waiting", 2, PROMPT_MS));
	/* poll reports the refused event; the blocking read returns ok-3's */
	assert_int_equal(ev_read(devfd, &ev, PROMPT_MS), 0);
	assert_int_equal(ev_opener_wait(refused, PROMPT_MS), EPERM);
	assert_true(ev_opener_running(ok));
	assert_int_equal(ev_answer(devfd, ev.id, DAZUKOFS_DENY), 0);
	close(ev.fd);
	assert_int_equal(ev_opener_wait(ok, PROMPT_MS), EPERM);
	assert_int_equal(G("open_errors"), 1);
	assert_int_equal(G("denied"), 1);
	assert_group_settled();
}

/*
 * A transient error (ENOMEM): the read fails with it once, the event goes
 * to the tail of the queue, so the next read returns the event behind it;
 * after DAZUKOFS_OPEN_TRIES (5) failures the policy settles it.
 */
static void transient_error_goes_to_tail(void **state)
{
	struct dazukofs_proto_event ev;
	pid_t nomem, ok;
	int i;

	(void)state;
	source_file("nomem-1");
	source_file("ok-4");
	nomem = opener("nomem-1");
	assert_true(ev_wait_ctr(GROUP, "waiting", 1, PROMPT_MS));
	ok = opener("ok-4");
	assert_true(ev_wait_ctr(GROUP, "waiting", 2, PROMPT_MS));

	assert_int_equal(read_now(&ev), -ENOMEM);
	assert_int_equal(G("waiting"), 2);
	assert_int_equal(G("open_errors"), 0);
	assert_int_equal(read_now(&ev), 0);	/* ok-4, from behind */
	assert_true(ev_opener_running(nomem));
	assert_int_equal(ev_answer(devfd, ev.id, DAZUKOFS_ALLOW), 0);
	close(ev.fd);
	assert_int_equal(ev_opener_wait(ok, PROMPT_MS), 0);

	for (i = 2; i < 5; i++)
		assert_int_equal(read_now(&ev), -ENOMEM);
	assert_true(ev_opener_running(nomem));
	/* the fifth failure is final: denied, and no event left */
	assert_int_equal(read_now(&ev), -EAGAIN);
	assert_int_equal(ev_opener_wait(nomem, PROMPT_MS), EPERM);
	assert_int_equal(G("open_errors"), 1);
	assert_group_settled();
}

/*
 * Record format 2 reports the error, as fanotify's FAN_REPORT_FD_ERROR
 * does: a record with fd -EACCES, already settled by the policy (an
 * answer finds no event), and in the same read the event behind it.  A
 * transient error is not reported: the event waits at the tail.
 */
static void record_v2_reports_fd_error(void **state)
{
	struct dazukofs_proto_record rec[2];
	char buf[4 * DAZUKOFS_RECORD_MAX];
	size_t len, off;
	pid_t refused, ok;
	ssize_t n;

	(void)state;
	assert_int_equal(cfg_write("record", "2"), 0);
	source_file("refused-5");
	source_file("ok-5");
	refused = opener("refused-5");
	assert_true(ev_wait_ctr(GROUP, "waiting", 1, PROMPT_MS));
	ok = opener("ok-5");
	assert_true(ev_wait_ctr(GROUP, "waiting", 2, PROMPT_MS));

	n = read(devfd, buf, sizeof(buf));
	if (n < 0)
		fail_msg("read: %s", strerror(errno));
	len = dazukofs_proto_line_len(buf, (size_t)n);
	assert_int_equal(dazukofs_proto_parse_record(buf, len, &rec[0]), 0);
	off = len;
	len = dazukofs_proto_line_len(buf + off, (size_t)n - off);
	assert_int_equal(dazukofs_proto_parse_record(buf + off, len, &rec[1]), 0);
	assert_int_equal(off + len, (size_t)n);

	assert_int_equal(rec[0].fd, -EACCES);
	assert_int_equal(rec[0].pid, refused);
	assert_int_equal(rec[0].uid, NOBODY);
	assert_true(rec[0].ino != 0);
	assert_int_equal(ev_opener_wait(refused, PROMPT_MS), EPERM);
	assert_int_equal(ev_answer(devfd, rec[0].id, DAZUKOFS_ALLOW), -ENOENT);
	assert_int_equal(G("open_errors"), 1);

	assert_true(rec[1].fd >= 0);
	assert_int_equal(rec[1].pid, ok);
	assert_true(ev_opener_running(ok));
	assert_int_equal(ev_answer(devfd, rec[1].id, DAZUKOFS_ALLOW), 0);
	close(rec[1].fd);
	assert_int_equal(ev_opener_wait(ok, PROMPT_MS), 0);

	/* ENOMEM: the read fails with it, no record, the event stays. */
	source_file("nomem-5");
	ok = opener("nomem-5");
	assert_true(ev_wait_ctr(GROUP, "waiting", 1, PROMPT_MS));
	assert_int_equal(read(devfd, buf, sizeof(buf)), -1);
	assert_int_equal(errno, ENOMEM);
	assert_int_equal(G("waiting"), 1);
	assert_int_equal(G("open_errors"), 1);
	assert_true(ev_opener_running(ok));
	assert_int_equal(cfg_write("record", "1"), 0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		T(action_attribute),
		T(refused_file_denied_next_goes_on),
		T(refused_file_allow_policy),
		T(blocking_reader_skips_refused),
		T(transient_error_goes_to_tail),
		T(record_v2_reports_fd_error),
	};

	if (argc < 3) {
		fprintf(stderr, "usage: %s SOURCE MNT [FILTER]\n", argv[0]);
		return 2;
	}
	source = argv[1];
	mnt = argv[2];
	if (argc > 3)
		cmocka_set_test_filter(argv[3]);
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
