// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libdazukofs against the real module (run in the VM by guest-lib.sh):
 *   lib-vm LOWER MOUNT
 * with dazukofs mounted on MOUNT over LOWER.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "dazukofs.h"
#include <linux/dazukofs.h>

static const char *lower, *mnt;

static void mkfile(const char *name)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", lower, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "data\n", 5), 5);
	close(fd);
}

/* A child that opens MOUNT/name; exits 0 on success, 10 on EPERM, else 1. */
static pid_t opener(const char *name)
{
	char path[512];
	pid_t pid;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", mnt, name);
	pid = fork();
	assert_true(pid >= 0);
	if (pid)
		return pid;
	fd = open(path, O_RDONLY);
	if (fd >= 0)
		_exit(0);
	_exit(errno == EPERM ? 10 : 1);
}

static int reap(pid_t pid)
{
	int st;

	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void test_groups(void **state)
{
	struct dazukofs_group_config cfg = { 1, 1500, DAZUKOFS_DENY };
	struct dazukofs_group_info info, infos[8];
	int n, i, found = 0;

	(void)state;
	assert_int_equal(dazukofs_group_create("lib_g", &cfg), 0);
	assert_int_equal(dazukofs_group_info("lib_g", &info), 0);
	assert_string_equal(info.name, "lib_g");
	assert_true(info.id >= 0);
	assert_int_equal(info.config.track, 1);
	assert_int_equal(info.config.timeout_ms, 1500);
	assert_int_equal(info.config.timeout_action, DAZUKOFS_DENY);
	assert_int_equal(dazukofs_group_create("lib_h", NULL), 0);
	n = dazukofs_group_list(infos, 8);
	assert_int_equal(n, 2);
	for (i = 0; i < n; i++)
		found += !strcmp(infos[i].name, "lib_g") + !strcmp(infos[i].name, "lib_h");
	assert_int_equal(found, 2);

	assert_int_equal(dazukofs_group_create("lib_g", NULL), -1);
	assert_int_equal(errno, EEXIST);
	assert_string_equal(dazukofs_strerror(),
		"cannot create group 'lib_g': mkdir /sys/kernel/config/dazukofs/lib_g: File exists");
	assert_int_equal(dazukofs_group_delete("lib_g"), 0);
	assert_int_equal(dazukofs_group_delete("lib_h"), 0);
	assert_int_equal(dazukofs_group_info("lib_g", &info), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(dazukofs_group_delete("lib_g"), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(dazukofs_group_list(NULL, 0), 0);
}

static void test_deny(void **state)
{
	struct dazukofs_stats s, g0, g1;
	struct dazukofs_access acc;
	char name[512], want[512];
	dazukofs_handle_t h;
	pid_t child;

	(void)state;
	mkfile("deny-me");
	assert_int_equal(dazukofs_get_stats(NULL, &g0), 0);
	assert_int_equal(dazukofs_group_create("lib_w", NULL), 0);
	h = dazukofs_open("lib_w", 0);
	assert_non_null(h);
	assert_int_equal(dazukofs_get_stats("lib_w", &s), 0);
	assert_int_equal(s.readers, 1);
	assert_int_equal(s.active, 1);

	child = opener("deny-me");
	assert_int_equal(dazukofs_get_access(h, &acc), 0);
	assert_int_equal(acc.pid, child);
	assert_true(acc.fd >= 0);
	snprintf(want, sizeof(want), "%s/deny-me", lower);
	assert_int_equal(dazukofs_get_filename(&acc, name, sizeof(name)),
			 (int)strlen(want));
	assert_string_equal(name, want);
	assert_int_equal(dazukofs_get_stats("lib_w", &s), 0);
	assert_int_equal(s.in_hand, 1);
	acc.deny = DAZUKOFS_DENY;
	assert_int_equal(dazukofs_return_access(h, &acc), 0);
	assert_int_equal(acc.fd, -1);
	assert_int_equal(reap(child), 10);	/* EPERM */

	assert_int_equal(dazukofs_get_stats("lib_w", &s), 0);
	assert_int_equal(s.events, 1);
	assert_int_equal(s.denied, 1);
	assert_int_equal(s.allowed, 0);
	assert_int_equal(s.waiting, 0);
	assert_int_equal(s.in_hand, 0);
	assert_int_equal(s.readers, 1);
	assert_int_equal(dazukofs_get_stats(NULL, &g1), 0);
	assert_true(g1.events == g0.events + 1);
	assert_true(g1.denied == g0.denied + 1);

	/* answering again: the event is gone */
	acc.fd = -1;
	assert_int_equal(dazukofs_return_access(h, &acc), -1);
	assert_true(strstr(dazukofs_strerror(), "cannot answer event") != NULL);

	assert_int_equal(dazukofs_close(h), 0);
	assert_int_equal(dazukofs_get_stats("lib_w", &s), 0);
	assert_int_equal(s.readers, 0);
	assert_int_equal(dazukofs_group_delete("lib_w"), 0);
	assert_int_equal(dazukofs_get_stats("lib_w", &s), -1);
	assert_int_equal(errno, ENOENT);
}

/* Wait until @n events of the group wait for a worker. */
static void wait_waiting(const char *group, uint64_t n)
{
	struct dazukofs_stats s;
	int tries;

	for (tries = 0; tries < 2000; tries++) {
		assert_int_equal(dazukofs_get_stats(group, &s), 0);
		if (s.waiting == n)
			return;
		usleep(10000);
	}
	fail_msg("%ju events never waited in %s", (uintmax_t)n, group);
}

/*
 * Record format 2 from the module through the library: the opener's
 * uids, type, access and the file's identity; a batch of events in one
 * read and their answers in one write.
 */
static void test_record_v2(void **state)
{
	struct dazukofs_access acc[4];
	struct dazukofs_access_info info[4];
	dazukofs_handle_t h;
	pid_t child[3];
	struct stat st;
	int i, n, want;

	(void)state;
	mkfile("rec-0");
	mkfile("rec-1");
	mkfile("rec-2");
	assert_int_equal(dazukofs_group_create("lib_rec", NULL), 0);
	assert_int_equal(dazukofs_group_set_record("lib_rec", DAZUKOFS_RECORD_V3), 0);
	assert_int_equal(dazukofs_group_get_record("lib_rec", &want), 0);
	assert_int_equal(want, DAZUKOFS_RECORD_V3);
	assert_int_equal(dazukofs_group_set_record("lib_rec", DAZUKOFS_RECORD_V2), 0);
	assert_int_equal(dazukofs_group_set_record("lib_rec", 4), -1);
	assert_int_equal(errno, EINVAL);
	/* a worker that answers at once: the round trips below busy-poll */
	assert_int_equal(dazukofs_group_set_busy_poll("lib_rec", 100), 0);
	h = dazukofs_open("lib_rec", 0);
	assert_non_null(h);

	child[0] = opener("rec-0");
	assert_int_equal(dazukofs_get_access_info(h, &acc[0], &info[0]), 0);
	assert_int_equal(acc[0].pid, child[0]);
	assert_int_equal(info[0].format, DAZUKOFS_RECORD_V2);
	assert_int_equal(info[0].type, DAZUKOFS_EVENT_OPEN);
	assert_int_equal(info[0].access, DAZUKOFS_ACCESS_READ);
	assert_int_equal(info[0].fd_error, 0);
	assert_int_equal(info[0].uid, getuid());
	assert_int_equal(fstat(acc[0].fd, &st), 0);
	assert_true(info[0].dev == st.st_dev && info[0].ino == st.st_ino);
	assert_int_equal(info[0].size, 5);
	assert_int_equal(dazukofs_return_access(h, &acc[0]), 0);
	assert_int_equal(reap(child[0]), 0);

	for (i = 0; i < 3; i++) {
		char name[16];

		snprintf(name, sizeof(name), "rec-%d", i);
		child[i] = opener(name);
	}
	wait_waiting("lib_rec", 3);
	n = dazukofs_get_accesses(h, acc, info, 4);
	assert_int_equal(n, 3);
	for (i = 0; i < n; i++) {
		assert_true(acc[i].fd >= 0);
		assert_int_equal(info[i].format, DAZUKOFS_RECORD_V2);
		acc[i].deny = acc[i].pid == child[1];
	}
	assert_int_equal(dazukofs_return_accesses(h, acc, (size_t)n, 0), 0);
	for (i = 0; i < 3; i++) {
		want = i == 1 ? 10 : 0;
		assert_int_equal(reap(child[i]), want);
	}
	assert_int_equal(dazukofs_close(h), 0);
	assert_int_equal(dazukofs_group_delete("lib_rec"), 0);
}

static void *open_in_thread(void *arg)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", mnt, (const char *)arg);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return (void *)1;
	close(fd);
	return NULL;
}

static void test_ignore_nonblock(void **state)
{
	struct dazukofs_access acc;
	struct dazukofs_stats s;
	struct pollfd pfd;
	dazukofs_handle_t h;
	pthread_t t;
	void *ret;
	pid_t child;

	(void)state;
	mkfile("ign");
	assert_int_equal(dazukofs_group_create("lib_n", NULL), 0);
	h = dazukofs_open("lib_n", DAZUKOFS_NONBLOCK);
	assert_non_null(h);
	assert_int_equal(dazukofs_get_access(h, &acc), -1);
	assert_int_equal(errno, EAGAIN);
	pfd.fd = dazukofs_get_fd(h);
	pfd.events = POLLIN;
	assert_int_equal(poll(&pfd, 1, 0), 0);

	/* ignore on: this process's opens make no event */
	assert_int_equal(dazukofs_ignore_on(), 0);
	assert_int_equal(pthread_create(&t, NULL, open_in_thread, "ign"), 0);
	assert_int_equal(pthread_join(t, &ret), 0);
	assert_null(ret);
	assert_int_equal(dazukofs_get_stats("lib_n", &s), 0);
	assert_int_equal(s.events, 0);
	/* but a child's do: poll wakes up */
	child = opener("ign");
	assert_int_equal(poll(&pfd, 1, 20000), 1);
	assert_true(pfd.revents & POLLIN);
	assert_int_equal(dazukofs_get_access(h, &acc), 0);
	assert_int_equal(acc.pid, child);
	assert_int_equal(dazukofs_return_access(h, &acc), 0);
	assert_int_equal(reap(child), 0);

	/* ignore off: an open by another thread of ours makes an event */
	assert_int_equal(dazukofs_ignore_off(), 0);
	assert_int_equal(pthread_create(&t, NULL, open_in_thread, "ign"), 0);
	assert_int_equal(poll(&pfd, 1, 20000), 1);
	assert_int_equal(dazukofs_get_access(h, &acc), 0);
	assert_int_equal(acc.pid, getpid());
	assert_int_equal(dazukofs_return_access(h, &acc), 0);
	assert_int_equal(pthread_join(t, &ret), 0);
	assert_null(ret);
	assert_int_equal(dazukofs_get_access(h, &acc), -1);
	assert_int_equal(errno, EAGAIN);

	assert_int_equal(dazukofs_get_stats("lib_n", &s), 0);
	assert_int_equal(s.events, 2);
	assert_int_equal(s.allowed, 2);
	assert_int_equal(dazukofs_close(h), 0);
	assert_int_equal(dazukofs_group_delete("lib_n"), 0);
}

static void ident(int fd, struct dazukofs_group_ident *id)
{
	memset(id, 0xff, sizeof(*id));
	assert_int_equal(ioctl(fd, DAZUKOFS_IOC_GROUP_IDENT, id), 0);
}

static unsigned long long configfs_instance(const char *group)
{
	char path[256];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/config/dazukofs/%s/instance", group);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%llu", &v), 1);
	fclose(f);
	return v;
}

/*
 * Group numbers are reused after rmdir: an open device file stays bound
 * to its group and says which (ioctl), and libdazukofs never hands out a
 * handle to a group other than the one named.
 */
static void test_group_identity(void **state)
{
	struct dazukofs_paths stale = { .configfs = "/tmp/lib-vm-stale-configfs" };
	struct dazukofs_group_ident a, a_after, b;
	struct dazukofs_group_info info;
	unsigned long long inst_a;
	dazukofs_handle_t h;
	char dev[64];
	int fd, id_a, bad;

	(void)state;
	assert_int_equal(dazukofs_group_create("lib_a", NULL), 0);
	assert_int_equal(dazukofs_group_info("lib_a", &info), 0);
	id_a = info.id;
	inst_a = configfs_instance("lib_a");
	h = dazukofs_open("lib_a", 0);
	assert_non_null(h);
	ident(dazukofs_get_fd(h), &a);
	assert_string_equal(a.name, "lib_a");
	assert_int_equal(a.id, id_a);
	assert_int_equal(a.removed, 0);
	assert_true(a.instance == inst_a);

	/* removed: the open file still names its group, and says so */
	assert_int_equal(dazukofs_group_delete("lib_a"), 0);
	ident(dazukofs_get_fd(h), &a_after);
	assert_string_equal(a_after.name, "lib_a");
	assert_int_equal(a_after.removed, 1);
	assert_true(a_after.instance == inst_a);

	/* the number goes to the next group; a new instance */
	assert_int_equal(dazukofs_group_create("lib_b", NULL), 0);
	assert_int_equal(dazukofs_group_info("lib_b", &info), 0);
	assert_int_equal(info.id, id_a);
	snprintf(dev, sizeof(dev), "/dev/dazukofs.%d", id_a);
	fd = open(dev, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	ident(fd, &b);
	assert_string_equal(b.name, "lib_b");
	assert_int_equal(b.removed, 0);
	assert_true(b.instance > inst_a);
	assert_true(b.instance == configfs_instance("lib_b"));
	ident(dazukofs_get_fd(h), &a_after);
	assert_string_equal(a_after.name, "lib_a");
	close(fd);
	dazukofs_close(h);

	/*
	 * The race, frozen: "lib_a" resolved to the number lib_b has now
	 * (a configfs view from before the rmdir and mkdir).  The open
	 * must not serve lib_b under lib_a's name.
	 */
	bad = system("rm -rf /tmp/lib-vm-stale-configfs && mkdir -p /tmp/lib-vm-stale-configfs/lib_a");
	assert_int_equal(bad, 0);
	snprintf(dev, sizeof(dev), "/tmp/lib-vm-stale-configfs/lib_a/id");
	fd = open(dev, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_true(dprintf(fd, "%d\n", id_a) > 0);
	close(fd);
	dazukofs_set_paths(&stale);
	h = dazukofs_open("lib_a", 0);
	dazukofs_set_paths(NULL);
	assert_null(h);
	assert_int_equal(errno, ESTALE);
	assert_non_null(strstr(dazukofs_strerror(), "serves group 'lib_b'"));
	assert_int_equal(system("rm -rf /tmp/lib-vm-stale-configfs"), 0);

	/* the real name still opens */
	h = dazukofs_open("lib_b", 0);
	assert_non_null(h);
	dazukofs_close(h);
	assert_int_equal(dazukofs_group_delete("lib_b"), 0);

	/* an unknown ioctl is ENOTTY, a bad pointer EFAULT */
	assert_int_equal(dazukofs_group_create("lib_c", NULL), 0);
	h = dazukofs_open("lib_c", 0);
	assert_non_null(h);
	assert_int_equal(ioctl(dazukofs_get_fd(h), _IO(DAZUKOFS_IOC_MAGIC, 99)), -1);
	assert_int_equal(errno, ENOTTY);
	assert_int_equal(ioctl(dazukofs_get_fd(h), DAZUKOFS_IOC_GROUP_IDENT, (void *)8), -1);
	assert_int_equal(errno, EFAULT);
	dazukofs_close(h);
	assert_int_equal(dazukofs_group_delete("lib_c"), 0);
}

static void test_errors(void **state)
{
	(void)state;
	assert_null(dazukofs_open("lib_none", 0));
	assert_int_equal(errno, ENOENT);
	assert_string_equal(dazukofs_strerror(),
		"cannot open group 'lib_none': no such group (/sys/kernel/config/dazukofs/lib_none does not exist)");
	assert_int_equal(dazukofs_group_create("bad.name", NULL), -1);
	assert_int_equal(errno, EINVAL);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_deny),
		cmocka_unit_test(test_ignore_nonblock),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_group_identity),
		cmocka_unit_test(test_record_v2),
	};

	if (argc < 3) {
		fprintf(stderr, "usage: lib-vm LOWER MOUNT [FILTER]\n");
		return 2;
	}
	lower = argv[1];
	mnt = argv[2];
	if (argc > 3)
		cmocka_set_test_filter(argv[3]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
