// SPDX-License-Identifier: GPL-2.0
/*
 * Crash-tracked registration, arming a new group, the ignore device and
 * verdict timeouts
 * (run as root inside the VM by guest-tracking.sh).
 *
 * Usage: tracking LOWER MOUNT [cmocka filter]
 *        tracking --open PATH    (exits 0 or with the open's errno; used
 *                                 after execve by the ignore tests)
 *
 * Every test makes its own group and removes it in its teardown, with every
 * child it started, so one failing test does not block the next.  Waits
 * are on real conditions (sysfs counters, child exit) with deadlines.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../include/uapi/linux/dazukofs.h"
#include "become-nobody.h"
#include "trk-util.h"

static const char *lower_dir, *mnt_dir;
static char good_path[512], bad_path[512];
static char cur_group[64];
static int cur_id = -1;
static int open_fds[32];

/* Deadlines: generous, the VM is emulated (TCG). */
#define SHORT_MS	10000	/* for something that must happen soon */
#define SETTLE_MS	300	/* "is still blocked" checks look this long */

static void keep_fd(int fd)
{
	for (int i = 0; i < 32; i++) {
		if (open_fds[i] <= 0) {
			open_fds[i] = fd;
			return;
		}
	}
}

static void close_kept(int fd)
{
	for (int i = 0; i < 32; i++)
		if (open_fds[i] == fd)
			open_fds[i] = 0;
	close(fd);
}

static int group_setup(const char *name)
{
	snprintf(cur_group, sizeof(cur_group), "%s", name);
	trk_group_remove(name);
	cur_id = trk_group_create(name);
	if (cur_id < 0) {
		fprintf(stderr, "mkdir group %s: %s\n", name, strerror(-cur_id));
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	trk_reap_all();
	for (int i = 0; i < 32; i++) {
		if (open_fds[i] > 0)
			close(open_fds[i]);
		open_fds[i] = 0;
	}
	if (cur_group[0])
		trk_group_remove(cur_group);
	cur_group[0] = 0;
	cur_id = -1;
	return 0;
}

static int dev_open(void)
{
	int fd = trk_dev_open(cur_id, 0);

	if (fd < 0)
		fail_msg("open /dev/dazukofs.%d: %s", cur_id, strerror(-fd));
	keep_fd(fd);
	return fd;
}

#define G(ctr) trk_stat(cur_group, ctr)
#define WAIT(ctr, v) assert_true(trk_wait_stat(cur_group, ctr, v, SHORT_MS))

/* The opener PID is still blocked (looked at for SETTLE_MS). */
static void assert_blocked(pid_t pid)
{
	assert_int_equal(trk_child_wait(pid, SETTLE_MS), -1);
}

/*
 * A worker as a child process: opens the group device, reads N events,
 * reports their ids on a pipe and then waits to be killed.
 */
static pid_t spawn_worker(int n, unsigned long *ids)
{
	int p[2];
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int dev;

		close(p[0]);
		trk_close_fds_except(p[1]);
		dev = trk_dev_open(cur_id, 0);
		if (dev < 0)
			_exit(1);
		for (int i = 0; i < n; i++) {
			unsigned long id;
			int fd, epid;

			if (trk_read_event(dev, &id, &fd, &epid))
				_exit(2);
			if (write(p[1], &id, sizeof(id)) != sizeof(id))
				_exit(3);
		}
		for (;;)
			pause();
	}
	trk_track_child(pid);
	close(p[1]);
	for (int i = 0; i < n; i++) {
		struct pollfd pf = { .fd = p[0], .events = POLLIN };

		/* Bounded: a worker that gets no event never writes. */
		assert_int_equal(poll(&pf, 1, SHORT_MS), 1);
		assert_int_equal(read(p[0], &ids[i], sizeof(ids[i])),
				 sizeof(ids[i]));
	}
	close(p[0]);
	return pid;
}

/* ---- configfs attributes ---- */

static void expect_attr(const char *attr, const char *want)
{
	char buf[64];

	assert_int_equal(trk_cfg_read(cur_group, attr, buf, sizeof(buf)), 0);
	assert_string_equal(buf, want);
}

static void test_config_attrs(void **state)
{
	static const char *const bad_track[] = { "2", "yes", "-1", "01x", "on", "1 1" };
	static const char *const bad_ms[] = { "-1", "abc", "86400001", "1.5", "4294967296", "12ms" };
	static const char *const bad_action[] = { "maybe", "1", "denyx", "allow deny" };

	(void)state;
	assert_int_equal(group_setup("cfg"), 0);
	expect_attr("track", "1");
	expect_attr("timeout_ms", "0");
	expect_attr("timeout_action", "allow");

	assert_int_equal(trk_cfg_write(cur_group, "track", "0"), 0);
	expect_attr("track", "0");
	assert_int_equal(trk_cfg_write(cur_group, "track", "1\n"), 0);
	expect_attr("track", "1");
	assert_int_equal(trk_cfg_write(cur_group, "track", "0\n"), 0);
	expect_attr("track", "0");
	assert_int_equal(trk_cfg_write(cur_group, "timeout_ms", "86400000"), 0);
	expect_attr("timeout_ms", "86400000");
	assert_int_equal(trk_cfg_write(cur_group, "timeout_ms", "1500\n"), 0);
	expect_attr("timeout_ms", "1500");
	assert_int_equal(trk_cfg_write(cur_group, "timeout_action", "deny\n"), 0);
	expect_attr("timeout_action", "deny");

	for (size_t i = 0; i < sizeof(bad_track) / sizeof(*bad_track); i++) {
		int err = trk_cfg_write(cur_group, "track", bad_track[i]);

		if (err != -EINVAL)
			fail_msg("track=\"%s\": %d, want -EINVAL", bad_track[i], err);
		expect_attr("track", "0");
	}
	for (size_t i = 0; i < sizeof(bad_ms) / sizeof(*bad_ms); i++) {
		int err = trk_cfg_write(cur_group, "timeout_ms", bad_ms[i]);

		if (err != -EINVAL)
			fail_msg("timeout_ms=\"%s\": %d, want -EINVAL", bad_ms[i], err);
		expect_attr("timeout_ms", "1500");
	}
	for (size_t i = 0; i < sizeof(bad_action) / sizeof(*bad_action); i++) {
		int err = trk_cfg_write(cur_group, "timeout_action", bad_action[i]);

		if (err != -EINVAL)
			fail_msg("timeout_action=\"%s\": %d, want -EINVAL",
				 bad_action[i], err);
		expect_attr("timeout_action", "deny");
	}
	/* The same with track=1 as the value to keep. */
	assert_int_equal(trk_cfg_write(cur_group, "track", "1"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "track", "2"), -EINVAL);
	expect_attr("track", "1");
	assert_int_equal(trk_cfg_write(cur_group, "timeout_action", "allow"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "timeout_action", "maybe"), -EINVAL);
	expect_attr("timeout_action", "allow");
	assert_int_equal(trk_cfg_write(cur_group, "timeout_ms", "0"), 0);
	expect_attr("timeout_ms", "0");
}

static void test_config_grace_ms(void **state)
{
	static const char *const bad[] = { "-1", "abc", "600001", "1.5",
					   "4294967296", "3s" };

	(void)state;
	assert_int_equal(group_setup("cfg-grace"), 0);
	expect_attr("grace_ms", "0");
	assert_int_equal(trk_cfg_write(cur_group, "grace_ms", "600000"), 0);
	expect_attr("grace_ms", "600000");
	assert_int_equal(trk_cfg_write(cur_group, "grace_ms", "3000\n"), 0);
	expect_attr("grace_ms", "3000");
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		int err = trk_cfg_write(cur_group, "grace_ms", bad[i]);

		if (err != -EINVAL)
			fail_msg("grace_ms=\"%s\": %d, want -EINVAL", bad[i], err);
		expect_attr("grace_ms", "3000");
	}
	assert_int_equal(trk_cfg_write(cur_group, "grace_ms", "0"), 0);
	expect_attr("grace_ms", "0");
}

/* ---- tracking ---- */

/*
 * A group with the defaults whose only worker is killed holding an event
 * (fanotify's rule, and the documented bound: grace_ms, 0 by default): the
 * held open ends at once, allowed, and a new open does not wait either.
 */
static void test_default_worker_killed(void **state)
{
	unsigned long ids[1];
	pid_t o1, o2, w;
	int a;

	(void)state;
	assert_int_equal(group_setup("dflt-kill"), 0);
	a = dev_open();		/* arms the group, leaves before the kill */
	o1 = trk_opener(bad_path);
	WAIT("waiting", 1);
	w = spawn_worker(1, ids);
	WAIT("in_hand", 1);
	close_kept(a);
	assert_blocked(o1);

	assert_int_equal(kill(w, SIGKILL), 0);
	assert_int_equal(trk_child_wait(w, SHORT_MS), -2);
	assert_int_equal(trk_child_wait(o1, SHORT_MS), 0);
	o2 = trk_opener(bad_path);
	assert_int_equal(trk_child_wait(o2, SHORT_MS), 0);
	WAIT("in_hand", 0);
	WAIT("waiting", 0);
	assert_int_equal(G("active"), 0);
	assert_int_equal(G("events"), 1);
	assert_int_equal(G("allowed"), 1);
	assert_int_equal(G("denied"), 0);
}

/*
 * A tracked group: a worker killed with events in hand gives them back to
 * the front of the queue, in order, ahead of an event queued meanwhile;
 * another worker gets the same ids, and its verdicts reach the openers.
 */
static void test_track_kill_requeues(void **state)
{
	unsigned long ids[2], id;
	pid_t o1, o2, o3, w;
	int dev;

	(void)state;
	assert_int_equal(group_setup("trk-kill"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "track", "1"), 0);
	dev = dev_open();	/* the surviving worker */
	WAIT("active", 1);

	o1 = trk_opener(good_path);
	WAIT("waiting", 1);
	o2 = trk_opener(bad_path);
	WAIT("waiting", 2);
	w = spawn_worker(2, ids);
	WAIT("in_hand", 2);
	WAIT("waiting", 0);
	o3 = trk_opener(good_path);
	WAIT("waiting", 1);

	assert_int_equal(kill(w, SIGKILL), 0);
	assert_int_equal(trk_child_wait(w, SHORT_MS), -2);
	WAIT("in_hand", 0);
	WAIT("waiting", 3);
	WAIT("active", 1);
	assert_blocked(o1);
	assert_blocked(o2);

	/* The dead worker's events come first, in the order it took them. */
	assert_int_equal(trk_read_event_wait(dev, &id, SHORT_MS), 0);
	assert_int_equal(id, ids[0]);
	assert_int_equal(trk_answer(dev, id, DAZUKOFS_ALLOW), 0);
	assert_int_equal(trk_answer(dev, id, DAZUKOFS_ALLOW), -ENOENT);
	assert_int_equal(trk_child_wait(o1, SHORT_MS), 0);

	assert_int_equal(trk_read_event_wait(dev, &id, SHORT_MS), 0);
	assert_int_equal(id, ids[1]);
	assert_int_equal(trk_answer(dev, id, DAZUKOFS_DENY), 0);
	assert_int_equal(trk_child_wait(o2, SHORT_MS), EPERM);

	assert_int_equal(trk_read_event_wait(dev, &id, SHORT_MS), 0);
	assert_true(id > ids[1]);
	assert_int_equal(trk_answer(dev, id, DAZUKOFS_ALLOW), 0);
	assert_int_equal(trk_child_wait(o3, SHORT_MS), 0);

	/* Nothing handed out twice, nothing left. */
	{
		int nb = trk_dev_open(cur_id, O_NONBLOCK);
		unsigned long x;
		int fd, pid;

		assert_true(nb >= 0);
		assert_int_equal(trk_read_event(nb, &x, &fd, &pid), -EAGAIN);
		close(nb);
	}
	assert_int_equal(trk_answer(dev, ids[0], DAZUKOFS_DENY), -ENOENT);
	assert_int_equal(trk_answer(dev, ids[1], DAZUKOFS_ALLOW), -ENOENT);
	WAIT("waiting", 0);
	WAIT("in_hand", 0);
	assert_int_equal(G("events"), 3);
	assert_int_equal(G("allowed"), 2);
	assert_int_equal(G("denied"), 1);
}

/* The same with a plain close() of the worker's device file. */
static void test_track_close_requeues(void **state)
{
	unsigned long id, id2;
	int a, b, fd, pid;
	pid_t o;

	(void)state;
	assert_int_equal(group_setup("trk-close"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "track", "1"), 0);
	a = dev_open();
	b = dev_open();
	o = trk_opener(bad_path);
	WAIT("waiting", 1);
	assert_int_equal(trk_read_event(a, &id, &fd, &pid), 0);
	assert_int_equal(pid, o);
	close(fd);
	WAIT("in_hand", 1);
	close_kept(a);
	WAIT("waiting", 1);
	WAIT("in_hand", 0);
	assert_blocked(o);
	assert_int_equal(trk_read_event_wait(b, &id2, SHORT_MS), 0);
	assert_int_equal(id2, id);
	assert_int_equal(trk_answer(b, id2, DAZUKOFS_DENY), 0);
	assert_int_equal(trk_child_wait(o, SHORT_MS), EPERM);
	assert_int_equal(trk_answer(b, id2, DAZUKOFS_DENY), -ENOENT);
}

/* In a tracked group any open file of the device may answer. */
static void test_track_answer_from_other_file(void **state)
{
	unsigned long id;
	int a, b;
	pid_t o;

	(void)state;
	assert_int_equal(group_setup("trk-other"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "track", "1"), 0);
	a = dev_open();
	b = dev_open();
	o = trk_opener(bad_path);
	assert_int_equal(trk_read_event_wait(a, &id, SHORT_MS), 0);
	assert_int_equal(trk_answer(b, id, DAZUKOFS_DENY), 0);
	assert_int_equal(trk_child_wait(o, SHORT_MS), EPERM);
	assert_int_equal(trk_answer(a, id, DAZUKOFS_ALLOW), -ENOENT);
	WAIT("in_hand", 0);
}

/*
 * A tracked group without workers is inactive: new events skip it; when
 * the last worker goes, waiting and held events settle as allowed; a new
 * worker makes it active again.
 */
static void test_track_last_worker(void **state)
{
	unsigned long id;
	long long allowed;
	int a;
	pid_t o1, o2, o3;

	(void)state;
	assert_int_equal(group_setup("trk-last"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "track", "1"), 0);
	WAIT("active", 0);
	/* No worker from creation: the open does not wait, makes no event. */
	o1 = trk_opener(bad_path);
	assert_int_equal(trk_child_wait(o1, SHORT_MS), 0);
	assert_int_equal(G("events"), 0);

	a = dev_open();
	WAIT("active", 1);
	o1 = trk_opener(bad_path);
	WAIT("waiting", 1);
	assert_int_equal(trk_read_event_wait(a, &id, SHORT_MS), 0);
	WAIT("in_hand", 1);
	o2 = trk_opener(bad_path);
	WAIT("waiting", 1);
	assert_blocked(o1);
	assert_blocked(o2);
	allowed = G("allowed");

	close_kept(a);	/* the last worker */
	WAIT("active", 0);
	assert_int_equal(trk_child_wait(o1, SHORT_MS), 0);
	assert_int_equal(trk_child_wait(o2, SHORT_MS), 0);
	WAIT("waiting", 0);
	WAIT("in_hand", 0);
	assert_int_equal(G("allowed"), allowed + 2);
	assert_int_equal(G("denied"), 0);

	/* Inactive: skipped. */
	o3 = trk_opener(bad_path);
	assert_int_equal(trk_child_wait(o3, SHORT_MS), 0);
	assert_int_equal(G("events"), 2);

	/* A worker again: events block again. */
	a = dev_open();
	WAIT("active", 1);
	o3 = trk_opener(bad_path);
	WAIT("waiting", 1);
	assert_blocked(o3);
	assert_int_equal(trk_read_event_wait(a, &id, SHORT_MS), 0);
	assert_int_equal(trk_answer(a, id, DAZUKOFS_DENY), 0);
	assert_int_equal(trk_child_wait(o3, SHORT_MS), EPERM);
	assert_int_equal(G("events"), 3);
}

/* ---- grace_ms ---- */

/*
 * A tracked group with a grace_ms whose last worker is killed stays active:
 * the held event goes back to the queue, the waiting one stays, a new one
 * queues, switching track off and on again orphans none, and a worker
 * that comes back within the window gets them all, the held one first
 * with its id; its verdicts reach the openers.
 */
static void test_track_grace_return(void **state)
{
	unsigned long ids[1], id, id2, id3;
	pid_t o1, o2, o3, w;
	int a;

	(void)state;
	assert_int_equal(group_setup("grace-ret"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "track", "1"), 0);
	/* Long: the worker comes back well before, closing the window. */
	assert_int_equal(trk_cfg_write(cur_group, "grace_ms", "60000"), 0);

	a = dev_open();		/* a first worker: the group is active */
	o1 = trk_opener(bad_path);
	WAIT("waiting", 1);
	w = spawn_worker(1, ids);	/* takes o1's event */
	WAIT("in_hand", 1);
	close_kept(a);		/* not the last worker: no window */
	o2 = trk_opener(bad_path);
	WAIT("waiting", 1);

	assert_int_equal(kill(w, SIGKILL), 0);
	assert_int_equal(trk_child_wait(w, SHORT_MS), -2);
	WAIT("in_hand", 0);
	WAIT("waiting", 2);
	assert_int_equal(G("active"), 1);
	assert_blocked(o1);
	assert_blocked(o2);

	/* New events queue during the window. */
	o3 = trk_opener(bad_path);
	WAIT("waiting", 3);
	assert_blocked(o3);

	/* Tracking off and on again during the window: nothing settles. */
	assert_int_equal(trk_cfg_write(cur_group, "track", "0"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "track", "1"), 0);
	assert_int_equal(G("active"), 1);
	assert_int_equal(G("waiting"), 3);
	assert_blocked(o1);

	a = dev_open();
	assert_int_equal(trk_read_event_wait(a, &id, SHORT_MS), 0);
	assert_int_equal(id, ids[0]);
	assert_int_equal(trk_read_event_wait(a, &id2, SHORT_MS), 0);
	assert_int_equal(trk_read_event_wait(a, &id3, SHORT_MS), 0);
	assert_true(id2 > ids[0]);
	assert_true(id3 > id2);
	assert_int_equal(trk_answer(a, id, DAZUKOFS_DENY), 0);
	assert_int_equal(trk_answer(a, id2, DAZUKOFS_DENY), 0);
	assert_int_equal(trk_answer(a, id3, DAZUKOFS_DENY), 0);
	assert_int_equal(trk_child_wait(o1, SHORT_MS), EPERM);
	assert_int_equal(trk_child_wait(o2, SHORT_MS), EPERM);
	assert_int_equal(trk_child_wait(o3, SHORT_MS), EPERM);
	WAIT("waiting", 0);
	WAIT("in_hand", 0);
	assert_int_equal(G("events"), 3);
	assert_int_equal(G("denied"), 3);
	assert_int_equal(G("allowed"), 0);
	assert_int_equal(G("active"), 1);
}

/*
 * The same with a plain close(), and no worker comes back: the openers
 * wait out the window, then are allowed (counted as allowed, as without a
 * grace_ms), the group goes inactive and new events skip it.
 */
static void test_track_grace_expires(void **state)
{
	unsigned long id;
	long long t0, waited;
	pid_t o1, o2, o3;
	int a;

	(void)state;
	assert_int_equal(group_setup("grace-exp"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "track", "1"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "grace_ms", "3000"), 0);
	a = dev_open();
	o1 = trk_opener(bad_path);
	assert_int_equal(trk_read_event_wait(a, &id, SHORT_MS), 0);
	WAIT("in_hand", 1);
	o2 = trk_opener(bad_path);
	WAIT("waiting", 1);

	t0 = trk_now_ms();
	close_kept(a);	/* the last worker */
	WAIT("in_hand", 0);
	WAIT("waiting", 2);
	assert_blocked(o1);
	assert_blocked(o2);
	assert_int_equal(trk_child_wait(o1, SHORT_MS + 3000), 0);
	waited = trk_now_ms() - t0;
	assert_int_equal(trk_child_wait(o2, SHORT_MS), 0);
	if (waited < 2900)
		fail_msg("openers released after %lld ms, grace_ms is 3000",
			 waited);
	WAIT("active", 0);
	WAIT("waiting", 0);
	assert_int_equal(G("allowed"), 2);
	assert_int_equal(G("denied"), 0);

	/* Inactive now: skipped. */
	o3 = trk_opener(bad_path);
	assert_int_equal(trk_child_wait(o3, SHORT_MS), 0);
	assert_int_equal(G("events"), 2);
}

/*
 * rmdir during a grace window settles the waiting events at once (the
 * window's work is cancelled with the group); a device file that outlives
 * the rmdir opens no window when closed.
 */
static void test_track_grace_rmdir(void **state)
{
	pid_t o;
	int a, b;

	(void)state;
	assert_int_equal(group_setup("grace-rm"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "track", "1"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "grace_ms", "600000"), 0);
	a = dev_open();
	close_kept(a);
	WAIT("active", 1);
	o = trk_opener(bad_path);
	WAIT("waiting", 1);
	assert_blocked(o);
	assert_int_equal(trk_group_remove(cur_group), 0);
	assert_int_equal(trk_child_wait(o, SHORT_MS), 0);

	/* A device file open over the rmdir, closed after it. */
	assert_int_equal(group_setup("grace-rm"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "track", "1"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "grace_ms", "600000"), 0);
	b = dev_open();
	o = trk_opener(bad_path);
	WAIT("waiting", 1);
	assert_int_equal(trk_group_remove(cur_group), 0);
	assert_int_equal(trk_child_wait(o, SHORT_MS), 0);
	close_kept(b);
	cur_group[0] = 0;
}

/*
 * A new group takes part in events only once armed: even an untracked
 * group without a timeout that nobody serves yet holds no open (its daemon
 * may have died between mkdir and open).  Its first worker arms it, for
 * good: afterwards, untracked and with no worker, an open waits as in 2009.
 */
static void test_armed_by_first_worker(void **state)
{
	unsigned long id;
	pid_t o;
	int a;

	(void)state;
	assert_int_equal(group_setup("arm-worker"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "track", "0"), 0);
	expect_attr("timeout_ms", "0");
	expect_attr("armed", "0");
	WAIT("active", 0);
	o = trk_opener(bad_path);
	assert_int_equal(trk_child_wait(o, SHORT_MS), 0);
	assert_int_equal(G("events"), 0);
	/* only "1" may be written */
	assert_int_equal(trk_cfg_write(cur_group, "armed", "0"), -EINVAL);
	assert_int_equal(trk_cfg_write(cur_group, "armed", "yes"), -EINVAL);
	expect_attr("armed", "0");

	a = dev_open();
	expect_attr("armed", "1");
	WAIT("active", 1);
	close_kept(a);
	expect_attr("armed", "1");
	o = trk_opener(bad_path);
	WAIT("waiting", 1);
	assert_blocked(o);
	a = dev_open();
	assert_int_equal(trk_read_event_wait(a, &id, SHORT_MS), 0);
	assert_int_equal(trk_answer(a, id, DAZUKOFS_DENY), 0);
	assert_int_equal(trk_child_wait(o, SHORT_MS), EPERM);
	assert_int_equal(G("events"), 1);
}

/*
 * Writing 1 to armed: an untracked group's events queue before any worker
 * (the 2009 semantics); a tracked one, the default, stays inactive.
 */
static void test_armed_by_hand(void **state)
{
	unsigned long id;
	pid_t o;
	int a;

	(void)state;
	assert_int_equal(group_setup("arm-hand"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "armed", "1"), 0);
	expect_attr("armed", "1");
	/* Tracked (the default), a group with no worker stays inactive. */
	WAIT("active", 0);
	o = trk_opener(bad_path);
	assert_int_equal(trk_child_wait(o, SHORT_MS), 0);
	assert_int_equal(G("events"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "track", "0"), 0);
	expect_attr("armed", "1");
	WAIT("active", 1);
	o = trk_opener(bad_path);
	WAIT("waiting", 1);
	assert_blocked(o);
	a = dev_open();
	assert_int_equal(trk_read_event_wait(a, &id, SHORT_MS), 0);
	assert_int_equal(trk_answer(a, id, DAZUKOFS_ALLOW), 0);
	assert_int_equal(trk_child_wait(o, SHORT_MS), 0);
}

/*
 * Untracked: a closed worker's held events stay in hand, and any worker of
 * the group, even one opened after, answers them.
 */
static void test_untracked_close_keeps(void **state)
{
	unsigned long id, x;
	int a, b, c, fd, pid;
	pid_t o;

	(void)state;
	assert_int_equal(group_setup("untrk"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "track", "0"), 0);
	a = dev_open();
	b = trk_dev_open(cur_id, O_NONBLOCK);
	assert_true(b >= 0);
	keep_fd(b);
	o = trk_opener(bad_path);
	assert_int_equal(trk_read_event_wait(a, &id, SHORT_MS), 0);
	close_kept(a);
	WAIT("in_hand", 1);
	WAIT("waiting", 0);
	assert_blocked(o);
	assert_int_equal(trk_read_event(b, &x, &fd, &pid), -EAGAIN);
	close_kept(b);
	/* No worker at all: an untracked group stays active. */
	WAIT("active", 1);
	WAIT("in_hand", 1);
	assert_blocked(o);

	c = dev_open();
	assert_int_equal(trk_answer(c, id, DAZUKOFS_DENY), 0);
	assert_int_equal(trk_child_wait(o, SHORT_MS), EPERM);
	assert_int_equal(trk_answer(c, id, DAZUKOFS_DENY), -ENOENT);
	WAIT("in_hand", 0);

	/* Untracked with no worker: a new open waits (2009 semantics). */
	close_kept(c);
	o = trk_opener(good_path);
	WAIT("waiting", 1);
	assert_blocked(o);
	c = dev_open();
	assert_int_equal(trk_read_event_wait(c, &id, SHORT_MS), 0);
	assert_int_equal(trk_answer(c, id, DAZUKOFS_ALLOW), 0);
	assert_int_equal(trk_child_wait(o, SHORT_MS), 0);
}

/*
 * Switching track on orphans no event: one left in hand by a worker that
 * closed while the group was untracked goes back to the queue, for the
 * next worker, under its id; when the group is then inactive (no worker
 * left), it is settled as allowed like any waiting event.
 */
static void test_track_on_requeues_orphans(void **state)
{
	unsigned long id, id2;
	long long allowed;
	int a, b;
	pid_t o;

	(void)state;
	assert_int_equal(group_setup("trk-orphan"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "track", "0"), 0);
	a = dev_open();
	b = dev_open();
	o = trk_opener(bad_path);
	assert_int_equal(trk_read_event_wait(a, &id, SHORT_MS), 0);
	close_kept(a);
	WAIT("in_hand", 1);
	assert_blocked(o);

	/* A worker is left: the orphan is queued again, for it. */
	assert_int_equal(trk_cfg_write(cur_group, "track", "1"), 0);
	WAIT("waiting", 1);
	WAIT("in_hand", 0);
	assert_int_equal(trk_read_event_wait(b, &id2, SHORT_MS), 0);
	assert_int_equal(id2, id);
	assert_int_equal(trk_answer(b, id, DAZUKOFS_DENY), 0);
	assert_int_equal(trk_child_wait(o, SHORT_MS), EPERM);

	/* No worker is left: the orphan is settled as allowed. */
	assert_int_equal(trk_cfg_write(cur_group, "track", "0"), 0);
	o = trk_opener(bad_path);
	assert_int_equal(trk_read_event_wait(b, &id, SHORT_MS), 0);
	close_kept(b);
	WAIT("in_hand", 1);
	WAIT("active", 1);
	assert_blocked(o);
	allowed = G("allowed");
	assert_int_equal(trk_cfg_write(cur_group, "track", "1"), 0);
	WAIT("active", 0);
	assert_int_equal(trk_child_wait(o, SHORT_MS), 0);
	WAIT("in_hand", 0);
	WAIT("waiting", 0);
	assert_int_equal(G("allowed"), allowed + 1);
	assert_int_equal(G("events"), 2);
}

/* ---- fairness between uids ---- */

#define FLOOD_UID	65534	/* nobody */
#define OTHER_UID	65533

/*
 * One uid alone may fill the whole queue; its next open overflows (it
 * holds the most).  Another uid's open then finds the queue full and
 * makes room at the flooder's expense: the flooder's newest waiting event
 * is settled by overflow_action (deny), and the other's is queued and
 * served.
 */
static void test_fair_full_queue(void **state)
{
	enum { MAXQ = 8 };
	pid_t flood[MAXQ + 1], other;
	unsigned long id;
	int dev;

	(void)state;
	assert_int_equal(group_setup("fair"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "max_queue", "8"), 0);
	dev = dev_open();	/* a worker that reads only at the end */
	for (int i = 0; i < MAXQ; i++) {
		flood[i] = trk_opener_as(good_path, FLOOD_UID, O_RDONLY);
		WAIT("waiting", i + 1);
	}
	assert_int_equal(G("overflows"), 0);
	flood[MAXQ] = trk_opener_as(good_path, FLOOD_UID, O_RDONLY);
	assert_int_equal(trk_child_wait(flood[MAXQ], SHORT_MS), EPERM);
	assert_int_equal(G("overflows"), 1);

	other = trk_opener_as(good_path, OTHER_UID, O_RDONLY);
	WAIT("overflows", 2);
	assert_int_equal(trk_child_wait(flood[MAXQ - 1], SHORT_MS), EPERM);
	assert_blocked(other);
	assert_int_equal(G("waiting"), MAXQ);

	for (int i = 0; i < MAXQ; i++) {
		assert_int_equal(trk_read_event_wait(dev, &id, SHORT_MS), 0);
		assert_int_equal(trk_answer(dev, id, DAZUKOFS_ALLOW), 0);
	}
	assert_int_equal(trk_child_wait(other, SHORT_MS), 0);
	for (int i = 0; i < MAXQ - 1; i++)
		assert_int_equal(trk_child_wait(flood[i], SHORT_MS), 0);
	WAIT("waiting", 0);
	assert_int_equal(G("events"), MAXQ + 2);
	assert_int_equal(G("allowed"), MAXQ);
	assert_int_equal(G("overflows"), 2);
}

/*
 * Close-after-write events may fill half the queue per uid: one uid's
 * closes beyond its half are dropped, another uid's are still posted.
 */
static void test_fair_close_writes(void **state)
{
	enum { MAXQ = 8 };
	char dir[600], path[700];
	unsigned long id;
	pid_t w;
	int dev;

	(void)state;
	assert_int_equal(group_setup("fair-cw"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "max_queue", "8"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "events", "close_write"), 0);
	snprintf(dir, sizeof(dir), "%s/fair-cw", mnt_dir);
	assert_true(mkdir(dir, 0777) == 0 || errno == EEXIST);
	assert_int_equal(chmod(dir, 0777), 0);
	dev = dev_open();	/* a worker that reads only at the end */

	for (int i = 0; i <= MAXQ / 2; i++) {
		snprintf(path, sizeof(path), "%s/flood.%d", dir, i);
		w = trk_opener_as(path, FLOOD_UID, O_WRONLY | O_CREAT | O_TRUNC);
		assert_int_equal(trk_child_wait(w, SHORT_MS), 0);
	}
	assert_int_equal(G("waiting"), MAXQ / 2);
	assert_int_equal(G("close_writes_dropped"), 1);

	snprintf(path, sizeof(path), "%s/other", dir);
	w = trk_opener_as(path, OTHER_UID, O_WRONLY | O_CREAT | O_TRUNC);
	assert_int_equal(trk_child_wait(w, SHORT_MS), 0);
	WAIT("waiting", MAXQ / 2 + 1);
	assert_int_equal(G("close_writes_dropped"), 1);

	for (int i = 0; i <= MAXQ / 2; i++) {
		assert_int_equal(trk_read_event_wait(dev, &id, SHORT_MS), 0);
		assert_int_equal(trk_answer(dev, id, DAZUKOFS_ALLOW), 0);
	}
	WAIT("waiting", 0);
	WAIT("in_hand", 0);
}

/* ---- timeouts ---- */

/* A worker stopped after reading cannot hold the opener past the timeout. */
static void test_timeout_stopped_worker(void **state)
{
	long long g0, t0, start;
	unsigned long ids[1];
	int dev, r;
	pid_t w, o;

	(void)state;
	assert_int_equal(group_setup("to-stop"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "track", "1"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "timeout_ms", "1500"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "timeout_action", "deny"), 0);
	dev = dev_open();	/* for the late answer */
	g0 = trk_stat(NULL, "timeouts");
	t0 = G("timeouts");

	start = trk_now_ms();
	o = trk_opener(good_path);
	w = spawn_worker(1, ids);
	assert_int_equal(kill(w, SIGSTOP), 0);
	r = trk_child_wait(o, 1500 + 10000);
	assert_int_equal(r, EPERM);	/* the timeout's action: deny */
	fprintf(stderr, "  stopped worker: open returned after %lld ms\n",
		trk_now_ms() - start);
	assert_int_equal(G("timeouts"), t0 + 1);
	assert_true(trk_stat(NULL, "timeouts") >= g0 + 1);
	WAIT("in_hand", 0);
	/* A late answer, from any file of the group, finds nothing. */
	assert_int_equal(trk_answer(dev, ids[0], DAZUKOFS_ALLOW), -ENOENT);
	kill(w, SIGCONT);
	kill(w, SIGKILL);
	assert_int_equal(trk_child_wait(w, SHORT_MS), -2);
	assert_int_equal(G("denied"), 0);
}

/* Time spent waiting for a worker counts too: all workers busy -> allow. */
static void test_timeout_busy_workers(void **state)
{
	long long t0, g0, start;
	unsigned long x;
	int dev, fd, pid;
	pid_t o;

	(void)state;
	assert_int_equal(group_setup("to-busy"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "track", "1"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "timeout_ms", "1000"), 0);
	expect_attr("timeout_action", "allow");
	dev = trk_dev_open(cur_id, O_NONBLOCK);	/* a worker that never reads */
	assert_true(dev >= 0);
	keep_fd(dev);
	WAIT("active", 1);
	t0 = G("timeouts");
	g0 = trk_stat(NULL, "timeouts");
	start = trk_now_ms();
	o = trk_opener(bad_path);
	assert_int_equal(trk_child_wait(o, 1000 + 10000), 0);
	fprintf(stderr, "  busy workers: open returned after %lld ms\n",
		trk_now_ms() - start);
	assert_int_equal(G("timeouts"), t0 + 1);
	assert_true(trk_stat(NULL, "timeouts") >= g0 + 1);
	WAIT("waiting", 0);
	/* The timed-out event is gone from the queue. */
	assert_int_equal(trk_read_event(dev, &x, &fd, &pid), -EAGAIN);
	assert_int_equal(G("events"), 1);
	assert_int_equal(G("allowed") + G("denied") + G("timeouts"), 1);
}

/* ---- the ignore device ---- */

#define IGN_DEV DAZUKOFS_DEV_PREFIX "ign"

/* Open PATH and close it: 0 or errno. */
static int open_errno(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static void *thread_open(void *arg)
{
	return (void *)(intptr_t)open_errno(arg);
}

static void test_ignore_basic(void **state)
{
	struct stat st;
	unsigned long id;
	pthread_t th;
	void *ret;
	int dev, ign;
	pid_t o;

	(void)state;
	assert_int_equal(stat(IGN_DEV, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_uid, 0);

	assert_int_equal(group_setup("ign"), 0);
	/* The safety net: nothing waits for ever if exemption fails. */
	assert_int_equal(trk_cfg_write(cur_group, "timeout_ms", "5000"), 0);
	dev = dev_open();
	ign = open(IGN_DEV, O_RDONLY | O_CLOEXEC);
	assert_true(ign >= 0);
	keep_fd(ign);

	assert_int_equal(open_errno(bad_path), 0);
	assert_int_equal(pthread_create(&th, NULL, thread_open, bad_path), 0);
	assert_int_equal(pthread_join(th, &ret), 0);
	assert_int_equal((intptr_t)ret, 0);
	assert_int_equal(G("events"), 0);
	assert_int_equal(G("timeouts"), 0);

	/* Another process is not exempt. */
	o = trk_opener(bad_path);
	assert_int_equal(trk_read_event_wait(dev, &id, SHORT_MS), 0);
	assert_int_equal(trk_answer(dev, id, DAZUKOFS_DENY), 0);
	assert_int_equal(trk_child_wait(o, SHORT_MS), EPERM);

	/* Closing it ends the exemption: a thread of ours now makes an event. */
	close_kept(ign);
	assert_int_equal(pthread_create(&th, NULL, thread_open, bad_path), 0);
	assert_int_equal(trk_read_event_wait(dev, &id, SHORT_MS), 0);
	assert_int_equal(trk_answer(dev, id, DAZUKOFS_DENY), 0);
	assert_int_equal(pthread_join(th, &ret), 0);
	assert_int_equal((intptr_t)ret, EPERM);
	assert_int_equal(G("events"), 2);
	assert_int_equal(G("timeouts"), 0);
}

/* A child that inherits the ignore fd across fork() is not exempt. */
static void test_ignore_fork(void **state)
{
	unsigned long id;
	int dev, ign, p[2];
	pid_t c;
	char go;

	(void)state;
	assert_int_equal(group_setup("ign-fork"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "timeout_ms", "5000"), 0);
	dev = dev_open();
	ign = open(IGN_DEV, O_RDONLY);
	assert_true(ign >= 0);
	keep_fd(ign);
	assert_int_equal(pipe(p), 0);
	c = fork();
	assert_true(c >= 0);
	if (c == 0) {
		/* Still holds the inherited ignore fd. */
		if (fcntl(ign, F_GETFD) < 0)
			_exit(100);
		if (read(p[0], &go, 1) != 1)
			_exit(101);
		_exit(open_errno(bad_path));
	}
	trk_track_child(c);
	close(p[0]);
	assert_int_equal(write(p[1], "g", 1), 1);
	close(p[1]);
	assert_int_equal(trk_read_event_wait(dev, &id, SHORT_MS), 0);
	assert_int_equal(trk_answer(dev, id, DAZUKOFS_DENY), 0);
	assert_int_equal(trk_child_wait(c, SHORT_MS), EPERM);
	/* The parent still is. */
	assert_int_equal(open_errno(bad_path), 0);
	assert_int_equal(G("events"), 1);
	assert_int_equal(G("timeouts"), 0);
}

/*
 * The exemption ends when its owner closes its last fd for the device,
 * even while a child still holds an inherited copy; a second fd of the
 * owner's (dup) keeps it.
 */
static void test_ignore_close_owner(void **state)
{
	int ign, ign2, p[2];
	pid_t c;
	char go;

	(void)state;
	assert_int_equal(group_setup("ign-close"), 0);
	/* Nobody reads: an event is settled by the timeout, as deny. */
	assert_int_equal(trk_cfg_write(cur_group, "timeout_ms", "1000"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "timeout_action", "deny"), 0);
	(void)dev_open();
	ign = open(IGN_DEV, O_RDONLY);
	assert_true(ign >= 0);
	ign2 = dup(ign);
	assert_true(ign2 >= 0);
	assert_int_equal(pipe(p), 0);
	c = fork();
	assert_true(c >= 0);
	if (c == 0) {
		/* Hold the inherited copies until told to go. */
		close(p[1]);
		_exit(read(p[0], &go, 1) == 1 ? 0 : 1);
	}
	trk_track_child(c);
	close(p[0]);

	close(ign);
	assert_int_equal(open_errno(bad_path), 0);
	assert_int_equal(G("events"), 0);

	close(ign2);
	assert_int_equal(open_errno(bad_path), EPERM);
	assert_int_equal(G("events"), 1);
	assert_int_equal(G("timeouts"), 1);

	assert_int_equal(write(p[1], "g", 1), 1);
	close(p[1]);
	assert_int_equal(trk_child_wait(c, SHORT_MS), 0);
}

static char self_exe[512];

/* Across execve the exemption stays while the fd stays open. */
static void test_ignore_exec(void **state)
{
	unsigned long id, x;
	int dev, fd, pid;
	pid_t c;

	(void)state;
	assert_int_equal(group_setup("ign-exec"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "timeout_ms", "5000"), 0);
	dev = dev_open();

	for (int cloexec = 0; cloexec <= 1; cloexec++) {
		c = fork();
		assert_true(c >= 0);
		if (c == 0) {
			int ign;

			trk_close_fds_except(-1);
			ign = open(IGN_DEV, O_RDONLY | (cloexec ? O_CLOEXEC : 0));
			if (ign < 0)
				_exit(100);
			execl(self_exe, self_exe, "--open", bad_path, (char *)NULL);
			_exit(101);
		}
		trk_track_child(c);
		if (!cloexec) {
			/* Exempt after exec: no event, the open succeeds. */
			assert_int_equal(trk_child_wait(c, SHORT_MS), 0);
			assert_int_equal(G("events"), 0);
		} else {
			/* The fd closed on exec: no longer exempt. */
			assert_int_equal(trk_read_event_wait(dev, &id, SHORT_MS), 0);
			assert_int_equal(trk_answer(dev, id, DAZUKOFS_DENY), 0);
			assert_int_equal(trk_child_wait(c, SHORT_MS), EPERM);
			assert_int_equal(G("events"), 1);
		}
	}
	{
		int nb = trk_dev_open(cur_id, O_NONBLOCK);

		assert_true(nb >= 0);
		assert_int_equal(trk_read_event(nb, &x, &fd, &pid), -EAGAIN);
		close(nb);
	}
	assert_int_equal(G("timeouts"), 0);
}

/*
 * Self-access: a worker of a tracked group with a timeout opens a file on
 * the mount.  Holding the ignore device it makes no event; without it it
 * does not hang for ever: the timeout settles it.
 */
static void test_self_access(void **state)
{
	long long start, took;
	int dev, ign;

	(void)state;
	assert_int_equal(group_setup("self"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "track", "1"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "timeout_ms", "1500"), 0);
	dev = dev_open();
	(void)dev;
	WAIT("active", 1);

	ign = open(IGN_DEV, O_RDONLY | O_CLOEXEC);
	assert_true(ign >= 0);
	keep_fd(ign);
	assert_int_equal(open_errno(good_path), 0);
	assert_int_equal(G("events"), 0);
	close_kept(ign);

	start = trk_now_ms();
	assert_int_equal(open_errno(good_path), 0);	/* timeout_action allow */
	took = trk_now_ms() - start;
	fprintf(stderr, "  self-access without the ignore device: %lld ms\n", took);
	assert_true(took < 1500 + 10000);
	assert_int_equal(G("events"), 1);
	assert_int_equal(G("timeouts"), 1);
	WAIT("waiting", 0);
}

/* ---- permissions ---- */

/*
 * In a child that became nobody (become_nobody(), with CAP_SYS_ADMIN alone
 * if @sys_admin): open PATH with FLAGS; 0 or errno.
 */
static int open_as_nobody(const char *path, int flags, bool sys_admin,
			  const char *then_open)
{
	pid_t c = fork();

	assert_true(c >= 0);
	if (c == 0) {
		int fd;

		trk_close_fds_except(-1);
		if (become_nobody(sys_admin))
			_exit(100);
		fd = open(path, flags);
		if (fd < 0)
			_exit(errno);
		/* Optionally: holding it, open a file on the mount. */
		if (then_open)
			_exit(open_errno(then_open) ? 102 : 0);
		_exit(0);
	}
	trk_track_child(c);
	return trk_child_wait(c, SHORT_MS);
}

/*
 * Both devices are root's, mode 0600: an unprivileged user may not open
 * them.  Nor may a user who owns the nodes (a udev rule's OWNER=): the
 * module asks for CAP_SYS_ADMIN at open, whatever the node's mode.  A
 * scanner running as a user needs both, the node (udev) and the
 * capability (systemd's AmbientCapabilities=).
 */
static void test_permissions(void **state)
{
	char devpath[64];
	unsigned long id;
	int dev;
	pid_t o;

	(void)state;
	assert_int_equal(group_setup("perm"), 0);
	assert_int_equal(trk_cfg_write(cur_group, "timeout_ms", "5000"), 0);
	snprintf(devpath, sizeof(devpath), DAZUKOFS_DEV_PREFIX "%d", cur_id);
	dev = dev_open();

	assert_int_equal(open_as_nobody(IGN_DEV, O_RDONLY, false, NULL), EACCES);
	assert_int_equal(open_as_nobody(devpath, O_RDWR, false, NULL), EACCES);

	assert_int_equal(chown(IGN_DEV, 65534, 65534), 0);
	assert_int_equal(chown(devpath, 65534, 65534), 0);
	assert_int_equal(open_as_nobody(devpath, O_RDWR, false, NULL), EPERM);
	assert_int_equal(open_as_nobody(IGN_DEV, O_RDONLY, false, NULL), EPERM);
	assert_int_equal(open_as_nobody(devpath, O_RDWR, true, NULL), 0);
	/* nobody holding the ignore device opens a file: no event. */
	assert_int_equal(open_as_nobody(IGN_DEV, O_RDONLY, true, bad_path), 0);
	assert_int_equal(G("events"), 0);
	assert_int_equal(chown(IGN_DEV, 0, 0), 0);
	assert_int_equal(chmod(IGN_DEV, 0600), 0);
	assert_int_equal(open_as_nobody(IGN_DEV, O_RDONLY, true, NULL), EACCES);

	/* And events still work for root's worker. */
	o = trk_opener(bad_path);
	assert_int_equal(trk_read_event_wait(dev, &id, SHORT_MS), 0);
	assert_int_equal(trk_answer(dev, id, DAZUKOFS_DENY), 0);
	assert_int_equal(trk_child_wait(o, SHORT_MS), EPERM);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_config_attrs, teardown),
		cmocka_unit_test_teardown(test_default_worker_killed, teardown),
		cmocka_unit_test_teardown(test_track_kill_requeues, teardown),
		cmocka_unit_test_teardown(test_track_close_requeues, teardown),
		cmocka_unit_test_teardown(test_track_answer_from_other_file, teardown),
		cmocka_unit_test_teardown(test_track_last_worker, teardown),
		cmocka_unit_test_teardown(test_config_grace_ms, teardown),
		cmocka_unit_test_teardown(test_track_grace_return, teardown),
		cmocka_unit_test_teardown(test_track_grace_expires, teardown),
		cmocka_unit_test_teardown(test_track_grace_rmdir, teardown),
		cmocka_unit_test_teardown(test_armed_by_first_worker, teardown),
		cmocka_unit_test_teardown(test_armed_by_hand, teardown),
		cmocka_unit_test_teardown(test_untracked_close_keeps, teardown),
		cmocka_unit_test_teardown(test_track_on_requeues_orphans, teardown),
		cmocka_unit_test_teardown(test_fair_full_queue, teardown),
		cmocka_unit_test_teardown(test_fair_close_writes, teardown),
		cmocka_unit_test_teardown(test_timeout_stopped_worker, teardown),
		cmocka_unit_test_teardown(test_timeout_busy_workers, teardown),
		cmocka_unit_test_teardown(test_ignore_basic, teardown),
		cmocka_unit_test_teardown(test_ignore_fork, teardown),
		cmocka_unit_test_teardown(test_ignore_close_owner, teardown),
		cmocka_unit_test_teardown(test_ignore_exec, teardown),
		cmocka_unit_test_teardown(test_self_access, teardown),
		cmocka_unit_test_teardown(test_permissions, teardown),
	};
	ssize_t n;

	if (argc == 3 && !strcmp(argv[1], "--open"))
		return open_errno(argv[2]);
	if (argc < 3) {
		fprintf(stderr, "usage: %s LOWER MOUNT [filter]\n", argv[0]);
		return 2;
	}
	lower_dir = argv[1];
	mnt_dir = argv[2];
	if (argc > 3)
		cmocka_set_test_filter(argv[3]);
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	if (n <= 0)
		return 2;
	self_exe[n] = 0;
	/* Files are made in the lower directory: that makes no events. */
	{
		char path[512];
		FILE *f;

		snprintf(path, sizeof(path), "%s/good", lower_dir);
		f = fopen(path, "w");
		if (!f)
			return 2;
		fputs("hello\n", f);
		fclose(f);
		chmod(path, 0644);
		snprintf(path, sizeof(path), "%s/bad", lower_dir);
		f = fopen(path, "w");
		if (!f)
			return 2;
		fputs("BAD\n", f);
		fclose(f);
		chmod(path, 0644);
	}
	snprintf(good_path, sizeof(good_path), "%s/good", mnt_dir);
	snprintf(bad_path, sizeof(bad_path), "%s/bad", mnt_dir);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
