// SPDX-License-Identifier: GPL-2.0
/*
 * The scanning core with the test signature database: verdicts, the
 * cache, size limits, scan errors and engine swaps; the counter of scans
 * in progress and its peak; libclamav's own cache on or off.
 * Usage: test-core DBDIR
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
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <clamav.h>

#include "config.h"
#include "engine.h"
#include "log.h"
#include "worker.h"

#define EICAR "X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*"
#define MARKER "DAZUKOFS-SCANNER-TEST-MARKER-41c7"

static const char *dbdir;
static char tmpdir[] = "/tmp/scanner-core-XXXXXX";

struct fixture {
	struct config cfg;
	struct scanner sc;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char err[512];
	struct engine *e;

	config_init(&f->cfg);
	f->cfg.cache_size = 16;
	f->sc.cfg = &f->cfg;
	engine_holder_init(&f->sc.engines);
	stats_init(&f->sc.stats);
	if (cache_init(&f->sc.cache, f->cfg.cache_size))
		return -1;
	e = engine_load(dbdir, 1, &f->cfg.limits, err, sizeof(err));
	if (!e) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	engine_holder_swap(&f->sc.engines, e);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	engine_holder_destroy(&f->sc.engines);
	cache_destroy(&f->sc.cache);
	config_free(&f->cfg);
	free(f);
	return 0;
}

static char *make_file(const char *name, const char *content)
{
	static char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	close(fd);
	return path;
}

/* scanner_decide() with the path known already */
static enum verdict decide_fd(struct fixture *f, int fd, const char *path, pid_t pid)
{
	struct event_path p;

	event_path_known(&p, path);
	return scanner_decide(&f->sc, fd, &p, pid);
}

static enum verdict decide(struct fixture *f, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	enum verdict v;

	assert_true(fd >= 0);
	v = decide_fd(f, fd, path, getpid());
	close(fd);
	return v;
}

static void test_verdicts(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(decide(f, make_file("clean", "just text\n")), VERDICT_ALLOW);
	assert_int_equal(decide(f, make_file("eicar", EICAR)), VERDICT_DENY);
	assert_int_equal(decide(f, make_file("marker", "x " MARKER " y\n")), VERDICT_DENY);
	assert_int_equal(atomic_load(&f->sc.stats.infected), 2);
	assert_int_equal(atomic_load(&f->sc.stats.scanned), 3);
	/* one scan at a time */
	assert_int_equal(atomic_load(&f->sc.stats.scanning), 0);
	assert_int_equal(atomic_load(&f->sc.stats.scanning_peak), 1);
}

#define PEAK_THREADS 4
#define PEAK_LOOPS 20000

struct peak_arg {
	struct stats *st;
	pthread_barrier_t *inside;
};

/* All threads are inside a scan at once (the barrier), then hammer it. */
static void *peak_thread(void *p)
{
	struct peak_arg *a = p;

	stats_scan_begin(a->st);
	pthread_barrier_wait(a->inside);
	stats_scan_end(a->st);
	for (int i = 0; i < PEAK_LOOPS; i++) {
		stats_scan_begin(a->st);
		stats_scan_end(a->st);
	}
	return NULL;
}

static void test_scanning_peak(void **state)
{
	struct stats_snapshot snap;
	pthread_t t[PEAK_THREADS];
	pthread_barrier_t inside;
	struct peak_arg a;
	struct stats st;
	char line[768];

	(void)state;
	stats_init(&st);
	stats_scan_begin(&st);
	stats_scan_begin(&st);
	stats_scan_end(&st);
	stats_scan_begin(&st);
	assert_int_equal(atomic_load(&st.scanning), 2);
	assert_int_equal(atomic_load(&st.scanning_peak), 2);
	stats_scan_end(&st);
	stats_scan_end(&st);
	assert_int_equal(atomic_load(&st.scanning), 0);
	assert_int_equal(atomic_load(&st.scanning_peak), 2);

	stats_init(&st);
	assert_int_equal(pthread_barrier_init(&inside, NULL, PEAK_THREADS), 0);
	a.st = &st;
	a.inside = &inside;
	for (int i = 0; i < PEAK_THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, peak_thread, &a), 0);
	for (int i = 0; i < PEAK_THREADS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&inside);
	assert_int_equal(atomic_load(&st.scanning), 0);
	assert_int_equal(atomic_load(&st.scanning_peak), PEAK_THREADS);

	stats_snapshot(&st, &snap);
	assert_int_equal(snap.scanning_peak, PEAK_THREADS);
	stats_format(&snap, line, sizeof(line));
	assert_non_null(strstr(line, " scanning=0 scanning_peak=4"));
}

static void test_cache_and_change(void **state)
{
	struct fixture *f = *state;
	char *p = make_file("later", "clean for now, and long enough........\n");
	char path[512];
	struct timespec ts[2] = { { 1000, 0 }, { 1000, 0 } };

	snprintf(path, sizeof(path), "%s", p);
	assert_int_equal(decide(f, path), VERDICT_ALLOW);
	assert_int_equal(decide(f, path), VERDICT_ALLOW);
	assert_int_equal(atomic_load(&f->sc.stats.cache_hits), 1);
	assert_int_equal(atomic_load(&f->sc.stats.scanned), 1);
	/* rewritten infected, same size, mtime set back: ctime still moves */
	make_file("later", "infected " MARKER "!!!!!\n");
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
	assert_int_equal(decide(f, path), VERDICT_DENY);
}

/* A file of size bytes starting with content, the rest zeros. */
static char *make_big_file(const char *name, const char *content, off_t size)
{
	char *path = make_file(name, content);

	assert_int_equal(truncate(path, size), 0);
	return path;
}

/*
 * A file over max_file_size is not scanned, and not clean either: denied
 * by alert_exceeds_max, counted, never cached (each open decides again);
 * with alert_exceeds_max = no allowed, but still counted and not cached.
 */
static void test_too_big(void **state)
{
	struct fixture *f = *state;
	char path[512];

	snprintf(path, sizeof(path), "%s", make_file("big", EICAR));
	f->cfg.limits.max_file_size = 10;
	assert_int_equal(decide(f, path), VERDICT_DENY);
	assert_int_equal(decide(f, path), VERDICT_DENY);
	assert_int_equal(atomic_load(&f->sc.stats.exceeds_max), 2);
	assert_int_equal(atomic_load(&f->sc.stats.denied), 2);
	assert_int_equal(atomic_load(&f->sc.stats.infected), 0);
	assert_int_equal(atomic_load(&f->sc.stats.scanned), 0);
	f->cfg.alert_exceeds_max = 0;
	assert_int_equal(decide(f, path), VERDICT_ALLOW);
	assert_int_equal(decide(f, path), VERDICT_ALLOW);
	assert_int_equal(atomic_load(&f->sc.stats.exceeds_max), 4);
	assert_int_equal(atomic_load(&f->sc.stats.denied), 2);
	assert_int_equal(atomic_load(&f->sc.stats.cache_hits), 0);
	assert_int_equal(atomic_load(&f->sc.stats.scanned), 0);
	/* at the limit, and with no limit: scanned */
	f->cfg.limits.max_file_size = 68;
	assert_int_equal(decide(f, path), VERDICT_DENY);
	f->cfg.limits.max_file_size = 0;
	assert_int_equal(decide(f, path), VERDICT_DENY);
	assert_int_equal(atomic_load(&f->sc.stats.infected), 2);
	assert_int_equal(atomic_load(&f->sc.stats.exceeds_max), 4);
}

/* The fixture's engine replaced by one loaded with the config's limits. */
static void reload_engine(struct fixture *f)
{
	char err[512];
	struct engine *e = engine_load(dbdir, 1, &f->cfg.limits, err, sizeof(err));

	assert_non_null(e);
	engine_holder_swap(&f->sc.engines, e);
}

/* Every limit reaches libclamav, at each load. */
static void test_limits_applied(void **state)
{
	struct fixture *f = *state;
	struct engine *e;

	e = engine_holder_get(&f->sc.engines);
	assert_int_equal(cl_engine_get_num(e->cl, CL_ENGINE_MAX_FILESIZE, NULL), 100 << 20);
	assert_int_equal(cl_engine_get_num(e->cl, CL_ENGINE_MAX_SCANSIZE, NULL), 400 << 20);
	assert_int_equal(cl_engine_get_num(e->cl, CL_ENGINE_MAX_RECURSION, NULL), 17);
	assert_int_equal(cl_engine_get_num(e->cl, CL_ENGINE_MAX_FILES, NULL), 10000);
	assert_int_equal(cl_engine_get_num(e->cl, CL_ENGINE_MAX_SCANTIME, NULL), 120000);
	engine_put(e);
	f->cfg.limits = (struct scan_limits){ 1 << 20, 2 << 20, 3, 4, 5 };
	reload_engine(f);
	e = engine_holder_get(&f->sc.engines);
	assert_int_equal(cl_engine_get_num(e->cl, CL_ENGINE_MAX_FILESIZE, NULL), 1 << 20);
	assert_int_equal(cl_engine_get_num(e->cl, CL_ENGINE_MAX_SCANSIZE, NULL), 2 << 20);
	assert_int_equal(cl_engine_get_num(e->cl, CL_ENGINE_MAX_RECURSION, NULL), 3);
	assert_int_equal(cl_engine_get_num(e->cl, CL_ENGINE_MAX_FILES, NULL), 4);
	assert_int_equal(cl_engine_get_num(e->cl, CL_ENGINE_MAX_SCANTIME, NULL), 5);
	engine_put(e);
}

/*
 * A file over max_scan_size (libclamav does not scan it at all, and would
 * say clean): denied as not fully scanned, counted, not cached.
 */
static void test_scan_size(void **state)
{
	struct fixture *f = *state;
	char path[512];

	f->cfg.limits.max_file_size = 0;
	f->cfg.limits.max_scan_size = 64 << 10;
	reload_engine(f);
	snprintf(path, sizeof(path), "%s",
		 make_big_file("scansize", "nothing to see\n", 1 << 20));
	assert_int_equal(decide(f, path), VERDICT_DENY);
	assert_int_equal(decide(f, path), VERDICT_DENY);
	assert_int_equal(atomic_load(&f->sc.stats.exceeds_max), 2);
	assert_int_equal(atomic_load(&f->sc.stats.scanned), 2);
	assert_int_equal(atomic_load(&f->sc.stats.cache_hits), 0);
	assert_int_equal(atomic_load(&f->sc.stats.infected), 0);
	assert_int_equal(atomic_load(&f->sc.stats.denied), 2);
	/* alert_exceeds_max = no: allowed, counted, still not cached */
	f->cfg.alert_exceeds_max = 0;
	assert_int_equal(decide(f, path), VERDICT_ALLOW);
	assert_int_equal(decide(f, path), VERDICT_ALLOW);
	assert_int_equal(atomic_load(&f->sc.stats.exceeds_max), 4);
	assert_int_equal(atomic_load(&f->sc.stats.cache_hits), 0);
}

static void test_filters(void **state)
{
	struct fixture *f = *state;
	char prefix[600];
	char err[256];

	snprintf(prefix, sizeof(prefix), "%s/skip", tmpdir);
	assert_int_equal(config_set(&f->cfg, "exclude", prefix, err, sizeof(err)), 0);
	mkdir(prefix, 0755);
	assert_int_equal(decide(f, make_file("skip/eicar", EICAR)), VERDICT_ALLOW);
	assert_int_equal(atomic_load(&f->sc.stats.skipped_filter), 1);
	assert_int_equal(decide(f, make_file("eicar2", EICAR)), VERDICT_DENY);
}

static void test_errors(void **state)
{
	struct fixture *f = *state;

	/* an fd that is not open: fstat fails */
	assert_int_equal(decide_fd(f, 9999, "/gone", 1), VERDICT_ALLOW);
	f->cfg.on_error = VERDICT_DENY;
	assert_int_equal(decide_fd(f, 9999, "/gone", 1), VERDICT_DENY);
	assert_int_equal(atomic_load(&f->sc.stats.errors), 2);
	assert_int_equal(atomic_load(&f->sc.stats.denied), 1);
	/* no engine (none loaded yet): on_error, counted as denied too */
	{
		struct engine *held = f->sc.engines.current;

		f->sc.engines.current = NULL;
		assert_int_equal(decide(f, make_file("noengine", "text\n")), VERDICT_DENY);
		f->sc.engines.current = held;
		assert_int_equal(atomic_load(&f->sc.stats.errors), 3);
		assert_int_equal(atomic_load(&f->sc.stats.denied), 2);
	}
	/* a directory is not scanned */
	{
		int fd = open(tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		assert_int_equal(decide_fd(f, fd, tmpdir, 1), VERDICT_ALLOW);
		close(fd);
	}
}

/* A held engine stays usable after a swap; the cache is emptied by the caller. */
static void test_swap(void **state)
{
	struct fixture *f = *state;
	char err[512];
	struct engine *held, *e2;
	char sig[128];
	unsigned long scanned;
	int fd;

	held = engine_holder_get(&f->sc.engines);
	assert_non_null(held);
	e2 = engine_load(dbdir, 1, &f->cfg.limits, err, sizeof(err));
	assert_non_null(e2);
	engine_holder_swap(&f->sc.engines, e2);
	assert_int_equal(atomic_load(&held->refs), 1);
	fd = open(make_file("e3", EICAR), O_RDONLY | O_CLOEXEC);
	assert_int_equal(engine_scan(held, fd, "e3", sig, sizeof(sig), &scanned),
			 SCAN_INFECTED);
	assert_non_null(strstr(sig, "Dazukofs.Test.EICAR"));
	close(fd);
	engine_put(held);
	assert_true(engine_holder_get(&f->sc.engines) == e2);
	engine_put(e2);
	/* a bad database fails with a reason and no engine */
	assert_null(engine_load("/nonexistent-db", 1, &f->cfg.limits, err, sizeof(err)));
	assert_non_null(strstr(err, "/nonexistent-db"));
}

/* A resolver that counts its calls and knows the path of its context. */
struct counting_resolver {
	const char *path;
	int calls;
};

static int count_resolve(void *ctx, char *buf, size_t size)
{
	struct counting_resolver *r = ctx;

	r->calls++;
	return snprintf(buf, size, "%s", r->path) < (int)size ? 0 : -1;
}

/*
 * The path is resolved only when needed: not for a cached clean file
 * without filters, once for a scan, once with filters (then reused).
 */
static void test_path_resolved_lazily(void **state)
{
	struct fixture *f = *state;
	struct counting_resolver r = { .path = make_file("lazy", "just text\n") };
	struct event_path p;
	int fd = open(r.path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	event_path_init(&p, count_resolve, &r);
	assert_int_equal(scanner_decide(&f->sc, fd, &p, getpid()), VERDICT_ALLOW);
	assert_int_equal(r.calls, 1);		/* scanned: libclamav gets the name */
	event_path_init(&p, count_resolve, &r);
	assert_int_equal(scanner_decide(&f->sc, fd, &p, getpid()), VERDICT_ALLOW);
	assert_int_equal(r.calls, 1);		/* cached: never asked */
	assert_int_equal(atomic_load(&f->sc.stats.cache_hits), 1);
	{
		char err[256];

		assert_int_equal(config_set(&f->cfg, "exclude", "/nowhere", err,
					    sizeof(err)), 0);
	}
	event_path_init(&p, count_resolve, &r);
	assert_int_equal(scanner_decide(&f->sc, fd, &p, getpid()), VERDICT_ALLOW);
	assert_int_equal(r.calls, 2);		/* the filter needs it */
	assert_string_equal(event_path_get(&p), r.path);
	assert_int_equal(r.calls, 2);		/* and keeps it */
	close(fd);
}

/* clamav_cache = no turns libclamav's clean-file cache off; scans still work */
static void test_clamav_cache_option(void **state)
{
	char err[512], sig[128];
	unsigned long scanned;
	struct engine *e;
	struct config cfg;
	int fd, on;

	(void)state;
	config_init(&cfg);
	for (on = 0; on <= 1; on++) {
		e = engine_load(dbdir, on, &cfg.limits, err, sizeof(err));
		assert_non_null(e);
		assert_int_equal(cl_engine_get_num(e->cl, CL_ENGINE_DISABLE_CACHE, NULL),
				 !on);
		fd = open(make_file("cc", EICAR), O_RDONLY | O_CLOEXEC);
		assert_true(fd >= 0);
		assert_int_equal(engine_scan(e, fd, "cc", sig, sizeof(sig), &scanned),
				 SCAN_INFECTED);
		close(fd);
		engine_put(e);
	}
	config_free(&cfg);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_verdicts, setup, teardown),
		cmocka_unit_test(test_clamav_cache_option),
		cmocka_unit_test_setup_teardown(test_path_resolved_lazily, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache_and_change, setup, teardown),
		cmocka_unit_test_setup_teardown(test_too_big, setup, teardown),
		cmocka_unit_test_setup_teardown(test_limits_applied, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scan_size, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_swap, setup, teardown),
		cmocka_unit_test(test_scanning_peak),
	};
	char err[256];
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DBDIR\n", argv[0]);
		return 2;
	}
	dbdir = argv[1];
	log_init(LOG_LVL_WARNING, 0);
	if (engine_global_init(err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd))
			fprintf(stderr, "could not remove %s\n", tmpdir);
	}
	return rc;
}
