// SPDX-License-Identifier: GPL-2.0
/*
 * The dazukofs event source against libdazukofs's fakes (a FIFO for the
 * group device): one bad record does not stop a worker.  It is counted as
 * an error and the next event is served.  Record format 2: the group is
 * switched to it when the module has it; the opener's uids come with the
 * event; a record of a file the module could not open is counted, logged
 * and never answered.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../lib/fake.h"
#include "config/config.h"
#include "log/log.h"
#include "sources/source.h"

struct feeder {
	int dev;
	const char *records[2];
};

/* Each record only once the worker has read the one before (one per read). */
static void *feed(void *arg)
{
	struct feeder *fd = arg;

	for (int i = 0; i < 2; i++) {
		int left = 1;

		for (int t = 0; t < 10000 && left; t++) {	/* 10 s at most */
			if (ioctl(fd->dev, FIONREAD, &left))
				return NULL;
			if (left)
				usleep(1000);
		}
		if (write(fd->dev, fd->records[i], strlen(fd->records[i])) < 0)
			return NULL;
	}
	return NULL;
}

static void test_bad_record_does_not_stop(void **state)
{
	struct fake f;
	struct config cfg;
	struct stats stats;
	struct source src = { 0 };
	struct source_worker *w;
	struct source_event ev = { 0 };
	struct feeder feeder;
	char err[512], good[64];
	pthread_t t;
	int efd, stop_fd;

	(void)state;
	fake_setup(&f);
	fake_group(&f, "g", 4, 1, 0, "allow", 0);
	fake_write(f.root, "dev/dazukofs.ign", "");
	feeder.dev = fake_device(&f, 4);
	config_init(&cfg);
	free(cfg.group);
	cfg.group = strdup("g");
	assert_non_null(cfg.group);
	stats_init(&stats);
	stop_fd = eventfd(0, EFD_CLOEXEC);
	src.stats = &stats;
	src.stop_fd = stop_fd;
	assert_int_equal(source_dazukofs_open(&src, &cfg, err, sizeof(err)), 0);
	w = src.ops->worker_open(&src, err, sizeof(err));
	assert_non_null(w);

	efd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(efd >= 0);
	snprintf(good, sizeof(good), "id=9\nfd=%d\npid=77\n", efd);
	feeder.records[0] = "id=1\nfd=-3\npid=1\n";	/* malformed */
	feeder.records[1] = good;
	assert_int_equal(pthread_create(&t, NULL, feed, &feeder), 0);
	assert_int_equal(src.ops->next(w, stop_fd, &ev, err, sizeof(err)), 1);
	pthread_join(t, NULL);
	assert_int_equal(ev.id, 9);
	assert_int_equal(ev.pid, 77);
	assert_int_equal(atomic_load(&stats.errors), 1);

	close(ev.fd);
	src.ops->worker_close(w);
	src.ops->close(&src);
	close(feeder.dev);
	close(stop_fd);
	config_free(&cfg);
	fake_teardown(&f);
}

struct src_fixture {
	struct fake f;
	struct config cfg;
	struct stats stats;
	struct source src;
	struct source_worker *w;
	int dev, stop_fd;
};

static void src_setup(struct src_fixture *x, int with_record)
{
	char err[512];

	memset(x, 0, sizeof(*x));
	fake_setup(&x->f);
	config_init(&x->cfg);
	free(x->cfg.group);
	x->cfg.group = strdup("g");
	assert_non_null(x->cfg.group);
	fake_group(&x->f, "g", 4, x->cfg.track, x->cfg.timeout_ms,
		   x->cfg.timeout_action == VERDICT_DENY ? "deny" : "allow", 0);
	if (with_record)
		fake_write(x->f.configfs, "g/record", "1\n");
	fake_write(x->f.root, "dev/dazukofs.ign", "");
	x->dev = fake_device(&x->f, 4);
	stats_init(&x->stats);
	x->stop_fd = eventfd(0, EFD_CLOEXEC);
	x->src.stats = &x->stats;
	x->src.stop_fd = x->stop_fd;
	assert_int_equal(source_dazukofs_open(&x->src, &x->cfg, err, sizeof(err)), 0);
	/* takes over the group fake_group made */
	assert_int_equal(x->src.ops->start(&x->src, err, sizeof(err)), 0);
	x->w = x->src.ops->worker_open(&x->src, err, sizeof(err));
	assert_non_null(x->w);
}

static void src_teardown(struct src_fixture *x)
{
	x->src.ops->worker_close(x->w);
	x->src.ops->close(&x->src);
	close(x->dev);
	close(x->stop_fd);
	config_free(&x->cfg);
	fake_teardown(&x->f);
}

/*
 * A module with record formats: the group is switched to format 3, and
 * records of format 3 (the opener's cgroup) and 2 (none) are read.
 */
static void test_record_v2(void **state)
{
	struct src_fixture x;
	struct source_event ev = { 0 };
	struct feeder feeder;
	char err[512], good[256];
	pthread_t t;
	int efd, left = -1;

	(void)state;
	src_setup(&x, 1);
	assert_string_equal(fake_read(x.f.configfs, "g/record"), "3");

	efd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(efd >= 0);
	snprintf(good, sizeof(good),
		 "id=9 fd=%d pid=77 uid=1000 euid=0 fsuid=1001 type=open "
		 "access=r dev=8:1 ino=5 size=0 change=0 cgroup=4242\n", efd);
	/* the module could not open the file: settled, no answer */
	feeder.dev = x.dev;
	feeder.records[0] = "id=8 fd=-13 pid=76 uid=1000 euid=1000 "
		"fsuid=1000 type=open access=r dev=8:1 ino=4 size=0 change=0\n";
	feeder.records[1] = good;
	assert_int_equal(pthread_create(&t, NULL, feed, &feeder), 0);
	assert_int_equal(x.src.ops->next(x.w, x.stop_fd, &ev, err, sizeof(err)), 1);
	pthread_join(t, NULL);
	assert_int_equal(ev.id, 9);
	assert_int_equal(ev.pid, 77);
	assert_int_equal(ev.fd, efd);
	assert_int_equal(ev.have_uids, 1);
	assert_int_equal(ev.uid, 1000);
	assert_int_equal(ev.euid, 0);
	assert_int_equal(ev.fsuid, 1001);
	assert_true(ev.cgroup == 4242);
	assert_int_equal(atomic_load(&x.stats.errors), 1);
	/* nothing was written back for event 8 */
	assert_int_equal(ioctl(x.dev, FIONREAD, &left), 0);
	assert_int_equal(left, 0);

	close(ev.fd);
	src_teardown(&x);
}

/* A module without it: format 1 goes on, without uids. */
static void test_record_v1_fallback(void **state)
{
	struct src_fixture x;
	struct source_event ev = { 0 };
	struct feeder feeder;
	char err[512], good[64], path[512];
	struct stat st;
	pthread_t t;
	int efd;

	(void)state;
	src_setup(&x, 0);
	snprintf(path, sizeof(path), "%s/g/record", x.f.configfs);
	assert_int_equal(stat(path, &st), -1);	/* not made up */

	efd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(efd >= 0);
	snprintf(good, sizeof(good), "id=9\nfd=%d\npid=77\n", efd);
	feeder.dev = x.dev;
	feeder.records[0] = good;
	feeder.records[1] = "";
	assert_int_equal(pthread_create(&t, NULL, feed, &feeder), 0);
	assert_int_equal(x.src.ops->next(x.w, x.stop_fd, &ev, err, sizeof(err)), 1);
	pthread_join(t, NULL);
	assert_int_equal(ev.id, 9);
	assert_int_equal(ev.have_uids, 0);
	assert_int_equal(atomic_load(&x.stats.errors), 0);

	close(ev.fd);
	src_teardown(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_record_does_not_stop),
		cmocka_unit_test(test_record_v2),
		cmocka_unit_test(test_record_v1_fallback),
	};

	log_init(LOG_LVL_ERROR, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
