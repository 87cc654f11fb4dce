// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the latency histogram's buckets and of the metrics file:
 * its mode, its atomic replacement, its histogram lines.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "log/metrics.h"
#include "log/stats.h"

/* a bound is inclusive (Prometheus' le), one past it is the next bucket */
static void test_buckets(void **state)
{
	(void)state;
	assert_int_equal(stats_latency_bucket(0), 0);
	assert_int_equal(stats_latency_bucket(500), 0);
	assert_int_equal(stats_latency_bucket(501), 1);
	assert_int_equal(stats_latency_bucket(1000), 1);
	assert_int_equal(stats_latency_bucket(60000000), STATS_LATENCY_BUCKETS - 2);
	assert_int_equal(stats_latency_bucket(60000001), STATS_LATENCY_BUCKETS - 1);
	assert_int_equal(stats_latency_bucket(UINT64_MAX), STATS_LATENCY_BUCKETS - 1);
	for (size_t i = 1; i < STATS_LATENCY_BUCKETS - 1; i++)
		assert_true(stats_latency_bounds_us[i] > stats_latency_bounds_us[i - 1]);
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void test_write(void **state)
{
	char dir[] = "/tmp/scanner-metrics-XXXXXX", path[64], err[512], buf[8192];
	struct stats st;
	struct stats_snapshot s;
	struct stat sb;
	mode_t old = umask(077);
	FILE *f;
	size_t n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/m.prom", dir);
	stats_init(&st);
	stats_add_latency(&st, 400);
	stats_add_latency(&st, 2000);
	stats_add_latency(&st, 99000000);
	atomic_fetch_add(&st.scanned, 3);
	stats_snapshot(&st, &s);
	assert_int_equal(metrics_write(path, &s, NULL, 1700000000.5, 1, err, sizeof(err)), 0);
	/* node_exporter runs as another user: 0644 whatever the umask */
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0644);
	/* written again over itself, no temporary file left */
	assert_int_equal(metrics_write(path, &s, NULL, 1700000000.5, 0, err, sizeof(err)), 0);
	assert_int_equal(count_entries(dir), 1);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	assert_non_null(strstr(buf, "# TYPE dazuko_clamscan_scanned_total counter\n"
				    "dazuko_clamscan_scanned_total 3\n"));
	assert_non_null(strstr(buf, "dazuko_clamscan_up 0\n"));
	assert_non_null(strstr(buf, "dazuko_clamscan_start_time_seconds 1700000000.500\n"));
	assert_non_null(strstr(buf, "dazuko_clamscan_scan_duration_seconds_bucket{le=\"0.0005\"} 1\n"));
	assert_non_null(strstr(buf, "dazuko_clamscan_scan_duration_seconds_bucket{le=\"0.0025\"} 2\n"));
	assert_non_null(strstr(buf, "dazuko_clamscan_scan_duration_seconds_bucket{le=\"60\"} 2\n"));
	assert_non_null(strstr(buf, "dazuko_clamscan_scan_duration_seconds_bucket{le=\"+Inf\"} 3\n"));
	assert_non_null(strstr(buf, "dazuko_clamscan_scan_duration_seconds_count 3\n"));
	assert_non_null(strstr(buf, "dazuko_clamscan_scan_duration_seconds_sum 99.002400\n"));
	assert_non_null(strstr(buf, "dazuko_clamscan_scan_duration_max_seconds 99.000000\n"));

	/* a directory that is not there: an error naming it */
	snprintf(path, sizeof(path), "%s/no/m.prom", dir);
	assert_int_equal(metrics_write(path, &s, NULL, 0, 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "No such file"));

	snprintf(path, sizeof(path), "%s/m.prom", dir);
	unlink(path);
	rmdir(dir);
	umask(old);
}

/* Detections by workload: bounded, escaped labels, the rest as "other". */
static void test_workload_tally(void **state)
{
	struct workload_tally t;
	struct workload_tally_snapshot wt;
	struct stats_snapshot s = { 0 };
	struct workload w = { .unit = "web\\x2d1.service" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	workload_tally_init(&t);
	workload_tally_add(&t, &w);
	workload_tally_add(&t, &w);
	workload_tally_add(&t, NULL);
	for (int i = 0; i < WORKLOAD_TALLY_MAX + 3; i++) {
		snprintf(w.container, sizeof(w.container), "%064x", i);
		snprintf(w.unit, sizeof(w.unit), "docker-%064x.scope", i);
		workload_tally_add(&t, &w);
	}
	workload_tally_snapshot(&t, &wt);
	assert_int_equal(wt.n, WORKLOAD_TALLY_MAX);
	/* two kept before the containers: 30 of them fit, 5 do not */
	assert_int_equal(wt.other, 5);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	metrics_format(f, &s, &wt, 0, 1);
	fclose(f);
	assert_non_null(strstr(buf, "# TYPE dazuko_clamscan_detections_by_workload_total counter\n"));
	assert_non_null(strstr(buf, "dazuko_clamscan_detections_by_workload_total"
				    "{unit=\"web\\\\x2d1.service\",container=\"\"} 2\n"));
	assert_non_null(strstr(buf, "dazuko_clamscan_detections_by_workload_total"
				    "{unit=\"\",container=\"\"} 1\n"));
	assert_non_null(strstr(buf, "dazuko_clamscan_detections_by_workload_total"
				    "{unit=\"other\",container=\"\"} 5\n"));
	free(buf);
	workload_tally_destroy(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_write),
		cmocka_unit_test(test_workload_tally),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
