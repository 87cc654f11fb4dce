// SPDX-License-Identifier: GPL-2.0
/*
 * The dazukofs event source against libdazukofs's fakes (a FIFO for the
 * group device): one bad record does not stop a worker.  It is counted as
 * an error and the next event is served.
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
#include <unistd.h>

#include <cmocka.h>

#include "../lib/fake.h"
#include "config.h"
#include "log.h"
#include "source.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_record_does_not_stop),
	};

	log_init(LOG_LVL_ERROR, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
