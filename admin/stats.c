// SPDX-License-Identifier: GPL-2.0
/* dazukofsctl stats: the counters as a table, as JSON, or live. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"

#define MAX_GROUPS 256

static const char usage_stats[] =
	"Usage: dazukofsctl stats [GROUP] [--json] [--watch SECONDS [--count N]]\n"
	"\n"
	"Print the DazukoFS counters: the totals and every group, or only GROUP.\n"
	"  --json             one JSON object (with --watch: one per line)\n"
	"  --watch SECONDS    print again every SECONDS (1 to 3600) until\n"
	"                     interrupted, or --count times\n"
	"  --count N          with --watch: stop after N samples\n";

typedef unsigned long long ull;

struct row {
	char name[65];
	struct dazukofs_stats s;
	struct dazukofs_cache_stats c;
	int have_cache;		/* 0: a module without the verdict cache */
};

static void json_counters(const struct row *r, int group)
{
	const struct dazukofs_stats *s = &r->s;

	printf("{\"events\":%llu,\"allowed\":%llu,\"denied\":%llu,"
	       "\"cancelled\":%llu,\"timeouts\":%llu,\"waiting\":%llu,"
	       "\"in_hand\":%llu,\"readers\":%llu,",
	       (ull)s->events, (ull)s->allowed, (ull)s->denied,
	       (ull)s->cancelled, (ull)s->timeouts, (ull)s->waiting,
	       (ull)s->in_hand, (ull)s->readers);
	if (group)
		printf("\"active\":%s,", s->active ? "true" : "false");
	printf("\"latency\":{\"max_us\":%llu,\"le_100us\":%llu,\"le_1ms\":%llu,"
	       "\"le_10ms\":%llu,\"le_100ms\":%llu,\"le_1s\":%llu,\"gt_1s\":%llu}",
	       (ull)s->latency_max_us, (ull)s->latency_le_100us,
	       (ull)s->latency_le_1ms, (ull)s->latency_le_10ms,
	       (ull)s->latency_le_100ms, (ull)s->latency_le_1s,
	       (ull)s->latency_gt_1s);
	if (r->have_cache)
		printf(",\"cache\":{\"hits\":%llu,\"misses\":%llu,"
		       "\"invalidations\":%llu}", (ull)r->c.hits,
		       (ull)r->c.misses, (ull)r->c.invalidations);
	putchar('}');
}

/* rows[0] is the totals unless group is set. */
static void print_json(const struct row *rows, int n, const char *group)
{
	int i;

	if (group) {
		printf("{\"group\":\"%s\",\"counters\":", group);
		json_counters(&rows[0], 1);
		puts("}");
		return;
	}
	printf("{\"total\":");
	json_counters(&rows[0], 0);
	printf(",\"groups\":{");
	for (i = 1; i < n; i++) {
		printf("%s\"%s\":", i > 1 ? "," : "", rows[i].name);
		json_counters(&rows[i], 1);
	}
	puts("}}");
}

static void print_table(const struct row *rows, int n, const char *group)
{
	int i;

	printf("%-20s %10s %10s %10s %9s %9s %7s %7s %7s %6s\n", "GROUP",
	       "EVENTS", "ALLOWED", "DENIED", "CANCELLED", "TIMEOUTS",
	       "WAITING", "IN_HAND", "READERS", "ACTIVE");
	for (i = 0; i < n; i++) {
		const struct dazukofs_stats *s = &rows[i].s;

		printf("%-20s %10llu %10llu %10llu %9llu %9llu %7llu %7llu %7llu %6s\n",
		       rows[i].name, (ull)s->events, (ull)s->allowed,
		       (ull)s->denied, (ull)s->cancelled, (ull)s->timeouts,
		       (ull)s->waiting, (ull)s->in_hand, (ull)s->readers,
		       (i == 0 && !group) ? "-" : (s->active ? "yes" : "no"));
	}
	printf("\n%-20s %10s %9s %9s %9s %9s %9s %9s\n", "LATENCY", "MAX_US",
	       "<=100us", "<=1ms", "<=10ms", "<=100ms", "<=1s", ">1s");
	for (i = 0; i < n; i++) {
		const struct dazukofs_stats *s = &rows[i].s;

		printf("%-20s %10llu %9llu %9llu %9llu %9llu %9llu %9llu\n",
		       rows[i].name, (ull)s->latency_max_us,
		       (ull)s->latency_le_100us, (ull)s->latency_le_1ms,
		       (ull)s->latency_le_10ms, (ull)s->latency_le_100ms,
		       (ull)s->latency_le_1s, (ull)s->latency_gt_1s);
	}
	if (!rows[0].have_cache)
		return;
	printf("\n%-20s %10s %10s %13s\n", "VERDICT CACHE", "HITS", "MISSES",
	       "INVALIDATIONS");
	for (i = 0; i < n; i++) {
		if (rows[i].have_cache)
			printf("%-20s %10llu %10llu %13llu\n", rows[i].name,
			       (ull)rows[i].c.hits, (ull)rows[i].c.misses,
			       (ull)rows[i].c.invalidations);
	}
}

/*
 * The verdict cache's counters of one row; a module without the cache is
 * no error.  0, or -1 (errno from the library).
 */
static int sample_cache(const char *group, struct row *row)
{
	row->have_cache = 0;
	if (dazukofs_get_cache_stats(group, &row->c))
		return errno == EOPNOTSUPP ? 0 : -1;
	row->have_cache = 1;
	return 0;
}

/* Collect the rows; returns how many, or -(exit status). */
static int sample(const struct ctl *ctl, const char *group, struct row *rows)
{
	static struct dazukofs_group_info infos[MAX_GROUPS];
	int i, n, r = 0;

	if (group) {
		snprintf(rows[0].name, sizeof(rows[0].name), "%s", group);
		if (dazukofs_get_stats(group, &rows[0].s) ||
		    sample_cache(group, &rows[0]))
			return -ctl_lib_fail(ctl, group);
		return 1;
	}
	snprintf(rows[0].name, sizeof(rows[0].name), "(total)");
	if (dazukofs_get_stats(NULL, &rows[0].s) || sample_cache(NULL, &rows[0]))
		return -ctl_lib_fail(ctl, NULL);
	n = dazukofs_group_list(infos, MAX_GROUPS);
	if (n < 0)
		return -ctl_lib_fail(ctl, NULL);
	if (n > MAX_GROUPS)
		n = MAX_GROUPS;
	for (i = 0; i < n; i++) {
		if (dazukofs_get_stats(infos[i].name, &rows[r + 1].s) ||
		    sample_cache(infos[i].name, &rows[r + 1])) {
			if (errno == ENOENT)
				continue;	/* deleted meanwhile */
			return -ctl_lib_fail(ctl, infos[i].name);
		}
		memcpy(rows[r + 1].name, infos[i].name, sizeof(rows[0].name));
		r++;
	}
	return r + 1;
}

int ctl_cmd_stats(const struct ctl *ctl, int argc, char **argv)
{
	static struct row rows[MAX_GROUPS + 1];
	unsigned long watch = 0, count = 0, done;
	const char *group = NULL;
	int json = 0, have_count = 0, i, n;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage_stats, stdout);
			return EXIT_OK;
		} else if (!strcmp(a, "--json")) {
			json = 1;
		} else if (!strcmp(a, "--watch")) {
			if (ctl_number("--watch", ++i < argc ? argv[i] : NULL, 1,
				       3600, &watch))
				return EXIT_USAGE;
		} else if (!strcmp(a, "--count")) {
			if (ctl_number("--count", ++i < argc ? argv[i] : NULL, 1,
				       1000000, &count))
				return EXIT_USAGE;
			have_count = 1;
		} else if (a[0] == '-' && a[1]) {
			ctl_err("stats: unknown option '%s' (see --help)", a);
			return EXIT_USAGE;
		} else if (group) {
			ctl_err("stats: one group only ('%s' and '%s')", group, a);
			return EXIT_USAGE;
		} else {
			group = a;
		}
	}
	if (have_count && !watch) {
		ctl_err("stats: --count goes with --watch");
		return EXIT_USAGE;
	}
	for (done = 0;; done++) {
		n = sample(ctl, group, rows);
		if (n < 0)
			return -n;
		if (watch && !json) {
			char when[64];
			time_t now = time(NULL);

			if (isatty(STDOUT_FILENO))
				fputs("\033[H\033[2J", stdout);
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S",
				 localtime(&now));
			printf("dazukofs counters at %s (every %lu s)\n\n", when,
			       watch);
		}
		if (json)
			print_json(rows, n, group);
		else
			print_table(rows, n, group);
		fflush(stdout);
		if (!watch || (count && done + 1 >= count))
			break;
		if (!json)
			putchar('\n');
		sleep((unsigned int)watch);
	}
	return EXIT_OK;
}
