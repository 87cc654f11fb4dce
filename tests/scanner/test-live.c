// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the live state behind `dazuko-clamscan status`: a worker
 * shown scanning (its file, opener, time) while it decides and idle after,
 * the hot sources (space-saving per worker, summed over workers, bounded),
 * the detections ring (newest first, wrapping), and status_json's fields.
 */
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "control/status.h"
#include "core/worker.h"
#include "log/counters.h"
#include "log/live_status.h"

static void test_slot_scanning_then_idle(void **state)
{
	char path[] = "/tmp/test-live.XXXXXX", real[PATH_MAX];
	struct worker_slot s;
	struct slot_view v;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_non_null(realpath(path, real));
	slot_init(&s);
	slot_read(&s, &v);
	assert_int_equal(v.busy, 0);
	slot_begin(&s, fd, 4242, 1000);
	slot_read(&s, &v);
	assert_int_equal(v.busy, 1);
	assert_int_equal(v.pid, 4242);
	assert_int_equal(v.since_us, 1000);
	assert_string_equal(v.path, real);
	slot_end(&s);
	slot_read(&s, &v);
	assert_int_equal(v.busy, 0);
	assert_string_equal(v.path, "");
	/* counted once, as pid 4242's */
	assert_int_equal(v.hot[0].pid, 4242);
	assert_int_equal(v.hot[0].events, 1);
	slot_destroy(&s);
	close(fd);
	unlink(path);
}

static void test_hot_sources(void **state)
{
	struct worker_slot s[2];
	struct slot_view v[2];
	struct hot_entry top[LIVE_HOT_SHOWN];
	size_t n;

	(void)state;
	slot_init(&s[0]);
	slot_init(&s[1]);
	/* pid 7: 30 events over two workers; pid 8: 20 on one */
	for (int i = 0; i < 15; i++) {
		slot_begin(&s[0], -1, 7, 1);
		slot_begin(&s[1], -1, 7, 1);
	}
	for (int i = 0; i < 20; i++)
		slot_begin(&s[1], -1, 8, 1);
	/* a crowd of one-event pids: the table stays bounded, the heavy stay */
	for (int p = 1000; p < 1000 + 10 * LIVE_HOT_PER_WORKER; p++)
		slot_begin(&s[0], -1, p, 1);
	slot_read(&s[0], &v[0]);
	slot_read(&s[1], &v[1]);
	n = hot_merge(v, 2, top, LIVE_HOT_SHOWN);
	assert_int_equal(n, LIVE_HOT_SHOWN);
	assert_int_equal(top[0].pid, 7);
	assert_true(top[0].events >= 30);
	assert_int_equal(top[1].pid, 8);
	assert_int_equal(top[1].events, 20);
	for (size_t i = 1; i < n; i++)
		assert_true(top[i - 1].events >= top[i].events);
	slot_destroy(&s[0]);
	slot_destroy(&s[1]);
}

static void test_detections_ring(void **state)
{
	struct live l;
	struct detection d[LIVE_DETECTIONS];
	uint64_t total;
	char p[32];

	(void)state;
	live_init(&l, 0);
	assert_int_equal(live_detections(&l, d, &total), 0);
	assert_int_equal(total, 0);
	for (int i = 0; i < LIVE_DETECTIONS + 3; i++) {
		snprintf(p, sizeof(p), "/f%d", i);
		live_detection(&l, p, 100 + i, "cat", "Eicar", "denied");
	}
	assert_int_equal(live_detections(&l, d, &total), LIVE_DETECTIONS);
	assert_int_equal(total, LIVE_DETECTIONS + 3);
	snprintf(p, sizeof(p), "/f%d", LIVE_DETECTIONS + 2);
	assert_string_equal(d[0].path, p);
	assert_int_equal(d[0].pid, 100 + LIVE_DETECTIONS + 2);
	assert_string_equal(d[LIVE_DETECTIONS - 1].path, "/f3");
	assert_string_equal(d[0].sig, "Eicar");
	assert_string_equal(d[0].action, "denied");
	live_destroy(&l);
}

/* status_json of a scanner with one worker busy on a file of ours. */
static void test_status_json(void **state)
{
	struct config cfg;
	struct scanner sc;
	struct worker w[2];
	struct counter_values c;
	struct status_input in = {
		.sc = &sc, .workers = w, .nworkers = 2, .counters = &c,
	};
	json_object *o, *a, *x, *y;
	int fd = open("/dev/null", O_RDONLY);

	(void)state;
	counters_clear(&c);
	counters_set(&c, COUNTER_EVENTS, 5);
	counters_set(&c, COUNTER_INFECTED, 1);
	counters_set(&c, COUNTER_SKIPPED_FILTER, 7);
	config_init(&cfg);
	cfg.backend = BACKEND_CLAMD;	/* no engine needed */
	memset(&sc, 0, sizeof(sc));
	memset(w, 0, sizeof(w));
	sc.cfg = &cfg;
	live_init(&sc.live, scanner_now_us());
	live_detection(&sc.live, "/srv/e", 99, "sh", "Eicar", "denied");
	slot_init(&w[0].slot);
	slot_init(&w[1].slot);
	slot_begin(&w[1].slot, fd, getpid(), scanner_now_us());
	o = status_json(&in);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "counters", &x));
	assert_true(json_object_object_get_ex(x, "infected", &y));
	assert_int_equal(json_object_get_uint64(y), 1);
	/* the name, and its alias of before 1.0.0; only what was counted */
	assert_true(json_object_object_get_ex(x, "skipped_filter", &y));
	assert_int_equal(json_object_get_uint64(y), 7);
	assert_true(json_object_object_get_ex(x, "filtered", &y));
	assert_int_equal(json_object_get_uint64(y), 7);
	assert_false(json_object_object_get_ex(x, "quarantined", &y));
	assert_true(json_object_object_get_ex(o, "workers", &a));
	assert_int_equal(json_object_array_length(a), 2);
	x = json_object_array_get_idx(a, 0);
	assert_string_equal(json_object_get_string(json_object_object_get(x, "state")), "idle");
	x = json_object_array_get_idx(a, 1);
	assert_string_equal(json_object_get_string(json_object_object_get(x, "state")), "scanning");
	assert_string_equal(json_object_get_string(json_object_object_get(x, "path")), "/dev/null");
	assert_int_equal(json_object_get_int(json_object_object_get(x, "pid")), getpid());
	assert_string_equal(json_object_get_string(json_object_object_get(x, "comm")),
			    "scanner-test-li");	/* the kernel's 15 bytes */
	assert_true(json_object_object_get_ex(o, "detections", &a));
	x = json_object_array_get_idx(a, 0);
	assert_string_equal(json_object_get_string(json_object_object_get(x, "path")), "/srv/e");
	assert_true(json_object_object_get_ex(o, "hot_sources", &a));
	x = json_object_array_get_idx(a, 0);
	assert_int_equal(json_object_get_int(json_object_object_get(x, "pid")), getpid());
	slot_end(&w[1].slot);
	json_object_put(o);
	o = status_json(&in);
	json_object_object_get_ex(o, "workers", &a);
	x = json_object_array_get_idx(a, 1);
	assert_string_equal(json_object_get_string(json_object_object_get(x, "state")), "idle");
	json_object_put(o);
	slot_destroy(&w[0].slot);
	slot_destroy(&w[1].slot);
	live_destroy(&sc.live);
	config_free(&cfg);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slot_scanning_then_idle),
		cmocka_unit_test(test_hot_sources),
		cmocka_unit_test(test_detections_ring),
		cmocka_unit_test(test_status_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
