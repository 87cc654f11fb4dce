// SPDX-License-Identifier: GPL-2.0
/*
 * json-c's allocation failures, one at a time: every allocation the code
 * under test makes (json-c's and libc's inside it too) is failed in turn,
 * the first, then the second, ..., until a run needs no more.  Whatever
 * fails, nothing crashes, nothing asserts, and the result is either whole
 * or a clear failure: a quarantine entry with its metadata or none, a
 * status object or NULL, a JSON log line or the line that says one was
 * lost, a control answer that parses.
 *
 * malloc, calloc and realloc are this program's own (glibc lets a program
 * replace them for the libraries too), so it is built without ASan.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "actions/quarantine.h"
#include "control/control.h"
#include "control/status.h"
#include "core/worker.h"
#include "log/counters.h"
#include "log/live_status.h"
#include "log/log.h"

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);

/* Allocations left before the one that fails; -1: none fails. */
static long countdown = -1;
static int hit;		/* the armed allocation was failed */

static int fail_this_one(void)
{
	if (countdown < 0 || countdown-- > 0)
		return 0;
	hit = 1;
	return 1;
}

void *malloc(size_t n)
{
	return fail_this_one() ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return fail_this_one() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	return fail_this_one() ? NULL : __libc_realloc(p, n);
}

static void arm(long n)
{
	hit = 0;
	countdown = n;
}

/* 1 if the armed allocation was reached (a run that failed it). */
static int disarm(void)
{
	countdown = -1;
	return hit;
}

/* More allocations than any of these makes: the sweep's bound. */
#define SWEEP_MAX 4000

static void test_quarantine_entry(void **state)
{
	char top[] = "/tmp/test-alloc.XXXXXX", qdir[64], path[96], err[256];
	char id[QUARANTINE_ID_MAX];
	const struct quarantine_limits none = { 0 };
	struct quarantine_entry e;
	long n;

	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(qdir, sizeof(qdir), "%s/q", top);
	snprintf(path, sizeof(path), "%s/detected", top);
	int qfd = quarantine_open_dir(qdir, 1, err, sizeof(err));
	FILE *f = fopen(path, "w");

	assert_true(qfd >= 0);
	assert_non_null(f);
	fputs("X5O!P%@AP", f);
	fclose(f);
	for (n = 0; n < SWEEP_MAX; n++) {
		int fd = open(path, O_RDONLY), removed;
		enum quarantine_outcome o;

		assert_true(fd >= 0);
		arm(n);
		o = quarantine_file(qfd, &none, QUARANTINE_COPY, fd, path, "Sig", 1, id,
				    &removed, err, sizeof(err));
		if (!disarm()) {
			assert_int_equal(o, QUARANTINE_DONE);
			close(fd);
			break;
		}
		close(fd);
		if (o == QUARANTINE_DONE) {
			/* the failure hit something that did not matter: whole */
			assert_int_equal(quarantine_load(qfd, id, &e, err, sizeof(err)), 0);
			if (strcmp(e.path, path)) {
				char cmd[256];

				snprintf(cmd, sizeof(cmd), "cat %s/%s.json >&2", qdir, id);
				fprintf(stderr, "allocation %ld:\n", n);
				(void)!system(cmd);
			}
			assert_string_equal(e.path, path);
			quarantine_entry_free(&e);
			assert_int_equal(quarantine_delete(qfd, id, err, sizeof(err)), 0);
		} else {
			assert_int_equal(o, QUARANTINE_FAILED);
			assert_true(err[0] != '\0');
		}
		/* nothing half-written left behind */
		char **ids;
		size_t k;
		DIR *d = fdopendir(dup(qfd));
		struct dirent *de;

		assert_non_null(d);
		rewinddir(d);
		while ((de = readdir(d)))
			assert_true(de->d_name[0] == '.');
		closedir(d);
		assert_int_equal(quarantine_list(qfd, &ids, &k, err, sizeof(err)), 0);
		assert_int_equal(k, 0);
		free(ids);
	}
	assert_true(n < SWEEP_MAX);
	close(qfd);
	snprintf(qdir, sizeof(qdir), "rm -rf '%s'", top);
	assert_int_equal(system(qdir), 0);
}

static void test_status(void **state)
{
	struct config cfg;
	struct scanner sc;
	struct worker w[2];
	struct counter_values c;
	struct status_input in = {
		.sc = &sc, .workers = w, .nworkers = 2, .counters = &c,
	};
	FILE *out = fopen("/dev/null", "w");
	int fd = open("/dev/null", O_RDONLY);
	json_object *o, *whole;
	long n;

	(void)state;
	assert_non_null(out);
	counters_clear(&c);
	counters_set(&c, COUNTER_EVENTS, 5);
	counters_set(&c, COUNTER_SCANNED, 3);
	counters_set(&c, COUNTER_SKIPPED_FILTER, 1);
	counters_set(&c, COUNTER_CACHE_ENTRIES, 2);
	config_init(&cfg);
	cfg.backend = BACKEND_CLAMD;
	memset(&sc, 0, sizeof(sc));
	memset(w, 0, sizeof(w));
	sc.cfg = &cfg;
	live_init(&sc.live, scanner_now_us());
	live_detection(&sc.live, "/srv/a b\n", 99, "sh", "Eicar", "denied");
	slot_init(&w[0].slot);
	slot_init(&w[1].slot);
	slot_begin(&w[1].slot, fd, getpid(), scanner_now_us());
	for (n = 0; n < SWEEP_MAX; n++) {
		arm(n);
		o = status_json(&in);
		if (!disarm()) {
			assert_non_null(o);
			json_object_put(o);
			break;
		}
		/* whole or nothing: never a null standing in for a value */
		if (o) {
			json_object *x;

			assert_true(json_object_object_get_ex(o, "detections", &x));
			assert_non_null(x);
			assert_int_equal(json_object_array_length(x), 1);
			json_object_put(o);
		}
	}
	assert_true(n < SWEEP_MAX);
	/* printing (the client's side) a whole object, allocations failing */
	whole = status_json(&in);
	assert_non_null(whole);
	for (n = 0; n < SWEEP_MAX; n++) {
		arm(n);
		status_print(out, whole);
		if (!disarm())
			break;
	}
	assert_true(n < SWEEP_MAX);
	json_object_put(whole);
	slot_end(&w[1].slot);
	live_destroy(&sc.live);
	config_free(&cfg);
	close(fd);
	fclose(out);
}

static void test_json_log(void **state)
{
	char path[] = "/tmp/test-alloc-log.XXXXXX";
	struct log_setup s = {
		.level = LOG_LVL_INFO, .target = LOG_TARGET_FILE,
		.format = LOG_FORMAT_JSON, .file = path,
	};
	const struct log_opener who = { .pid = 1, .uid = 0, .comm = "sh x" };
	char err[256], line[8192];
	long n, lines = 0;
	FILE *f;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(log_open(&s, err, sizeof(err)), 0);
	for (n = 0; n < SWEEP_MAX; n++) {
		arm(n);
		log_detection("/srv/x action=allowed", &who, "Eicar", "denied", NULL);
		lines++;
		if (!disarm())
			break;
	}
	assert_true(n < SWEEP_MAX);
	log_close();
	/* one line per record, each a JSON object: the record or "lost" */
	f = fopen(path, "r");
	assert_non_null(f);
	for (n = 0; fgets(line, sizeof(line), f); n++) {
		json_object *o = json_tokener_parse(line), *ev;

		if (!o)
			fprintf(stderr, "not JSON: %s", line);
		assert_non_null(o);
		assert_true(json_object_object_get_ex(o, "event", &ev));
		assert_true(!strcmp(json_object_get_string(ev), "detection") ||
			    !strcmp(json_object_get_string(ev), "lost"));
		json_object_put(o);
	}
	fclose(f);
	assert_int_equal(n, lines);
	unlink(path);
}

static void test_control_answer(void **state)
{
	char buf[4096];
	long n;

	(void)state;
	for (n = 0; n < SWEEP_MAX; n++) {
		json_object *o = json_object_new_object();
		int sv[2], reached;
		ssize_t len;

		json_object_object_add(o, "ok", json_object_new_boolean(1));
		json_object_object_add(o, "message", json_object_new_string("done"));
		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
		arm(n);
		control_answer(sv[0], o, 0);	/* closes sv[0], puts o */
		reached = disarm();
		len = read(sv[1], buf, sizeof(buf) - 1);
		close(sv[1]);
		/* an answer that parses, or none at all */
		if (len > 0) {
			json_object *a;

			buf[len] = '\0';
			a = json_tokener_parse(buf);
			assert_non_null(a);
			json_object_put(a);
		}
		if (!reached)
			break;
	}
	assert_true(n < SWEEP_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quarantine_entry),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_json_log),
		cmocka_unit_test(test_control_answer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
