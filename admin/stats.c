// SPDX-License-Identifier: GPL-2.0
/* dazukofsctl stats: the counters as a table, JSON or Prometheus text, or live. */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dzcommon/prom.h>
#include <json-c/json.h>

#include "ctl.h"


/* --watch's and --count's limits, in --help from here */
#define WATCH_MAX_S	3600
#define COUNT_MAX	1000000

static void usage_stats(FILE *out)
{
	fprintf(out,
		"Usage: dazukofsctl stats [GROUP] [--format table|json|prometheus] [--json]\n"
		"                         [--watch SECONDS [--count N]]\n"
		"\n"
		"Print the DazukoFS counters: the totals and every group, or only GROUP.\n"
		"  --format FORMAT    table (default), json, or prometheus: the text\n"
		"                     exposition format, for a textfile collector\n"
		"  --json             --format json: one JSON object (with --watch: one\n"
		"                     per line)\n"
		"  --watch SECONDS    print again every SECONDS (1 to %d) until\n"
		"                     interrupted, or --count times\n"
		"  --count N          with --watch: stop after N samples\n",
		WATCH_MAX_S);
}

typedef unsigned long long ull;

/*
 * The module's own counters, first in the table: not the groups' sum
 * (an access that goes to two groups is two events, one access), so the
 * row says what it counts and a note under the table says why they differ.
 */
#define TOTAL_ROW "(accesses)"
static const char total_note[] =
	TOTAL_ROW ": the module's count, each access that waited for verdicts once,\n"
	"however many groups it went to.  A group's EVENTS count what was posted to\n"
	"it, closes after a write (nobody waits for them) and events settled at\n"
	"max_queue included: the groups need not add up to " TOTAL_ROW ".\n";

struct row {
	char name[DAZUKOFS_GROUP_NAME_MAX + 1];
	struct dazukofs_stats s;
	struct dazukofs_cache_stats c;
	int have_cache;		/* 0: a module without the verdict cache */
};

static json_object *json_u64(uint64_t v)
{
	return json_object_new_uint64(v);
}

/*
 * The module's counters, one name each: the JSON's key, and with _total
 * for a counter the Prometheus name.
 */
struct prom_metric {
	const char *key;
	const char *name;
	const char *type;
	const char *help;
	size_t offset;		/* in struct dazukofs_stats */
};

static const struct prom_metric prom_metrics[] = {
	{ "events", "events_total", "counter", "Access events posted (totals: opens that made an event).",
	  offsetof(struct dazukofs_stats, events) },
	{ "allowed", "allowed_total", "counter", "Events answered allow, or settled as allowed.",
	  offsetof(struct dazukofs_stats, allowed) },
	{ "denied", "denied_total", "counter", "Events answered deny.",
	  offsetof(struct dazukofs_stats, denied) },
	{ "cancelled", "cancelled_total", "counter", "Events withdrawn because the opener was killed.",
	  offsetof(struct dazukofs_stats, cancelled) },
	{ "timeouts", "timeouts_total", "counter", "Events settled by the timeout action.",
	  offsetof(struct dazukofs_stats, timeouts) },
	{ "waiting", "waiting", "gauge", "Events queued that no worker has taken.",
	  offsetof(struct dazukofs_stats, waiting) },
	{ "in_hand", "in_hand", "gauge", "Events read by a worker and not answered.",
	  offsetof(struct dazukofs_stats, in_hand) },
	{ "readers", "readers", "gauge", "Open files of the group devices.",
	  offsetof(struct dazukofs_stats, readers) },
};

/*
 * One object of counters.  An allocation json-c fails is not checked
 * object by object: json_object_object_add() aborts on a NULL object,
 * which for a command-line tool out of memory is as good an end.
 */
static json_object *json_counters(const struct row *r, int group)
{
	const struct dazukofs_stats *s = &r->s;
	json_object *o = json_object_new_object(), *lat, *cache;

	for (size_t m = 0; m < sizeof(prom_metrics) / sizeof(prom_metrics[0]); m++)
		json_object_object_add(o, prom_metrics[m].key,
				       json_u64(*(const uint64_t *)((const char *)s +
								     prom_metrics[m].offset)));
	if (group)
		json_object_object_add(o, "active", json_object_new_boolean(s->active));
	lat = json_object_new_object();
	json_object_object_add(o, "latency", lat);
	json_object_object_add(lat, "max_us", json_u64(s->latency_max_us));
	json_object_object_add(lat, "le_100us", json_u64(s->latency_le_100us));
	json_object_object_add(lat, "le_1ms", json_u64(s->latency_le_1ms));
	json_object_object_add(lat, "le_10ms", json_u64(s->latency_le_10ms));
	json_object_object_add(lat, "le_100ms", json_u64(s->latency_le_100ms));
	json_object_object_add(lat, "le_1s", json_u64(s->latency_le_1s));
	json_object_object_add(lat, "gt_1s", json_u64(s->latency_gt_1s));
	if (r->have_cache) {
		cache = json_object_new_object();
		json_object_object_add(o, "cache", cache);
		json_object_object_add(cache, "hits", json_u64(r->c.hits));
		json_object_object_add(cache, "misses", json_u64(r->c.misses));
		json_object_object_add(cache, "invalidations", json_u64(r->c.invalidations));
	}
	return o;
}

/*
 * rows[0] is the totals unless group is set.  One line (--watch prints
 * one object per line): json-c's plain form, '/' unescaped.
 */
static int print_json(const struct row *rows, int n, const char *group)
{
	json_object *top = json_object_new_object(), *groups;
	const char *text;
	int i;

	if (group) {
		json_object_object_add(top, "group", json_object_new_string(group));
		json_object_object_add(top, "counters", json_counters(&rows[0], 1));
	} else {
		json_object_object_add(top, "total", json_counters(&rows[0], 0));
		groups = json_object_new_object();
		json_object_object_add(top, "groups", groups);
		for (i = 1; i < n; i++)
			json_object_object_add(groups, rows[i].name, json_counters(&rows[i], 1));
	}
	text = json_object_to_json_string_ext(top, JSON_C_TO_STRING_PLAIN |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text) {
		ctl_err("stats: out of memory making the JSON");
		json_object_put(top);
		return -1;
	}
	puts(text);
	json_object_put(top);
	return 0;
}

enum stats_format { FORMAT_TABLE, FORMAT_JSON, FORMAT_PROMETHEUS };

/* The latency buckets' upper bounds in seconds; the last is +Inf. */
static const char *const prom_le[] = { "0.0001", "0.001", "0.01", "0.1", "1", "+Inf" };

/*
 * The Prometheus names: the totals are dazukofs_NAME, a group's
 * dazukofs_group_NAME{group="..."} (never the same name with and without
 * the label, which sum() would count twice).  Group names are
 * [A-Za-z0-9_-]: nothing to escape in a label.
 */
static const char *prom_name(char *buf, size_t size, const char *prefix,
			     const char *name)
{
	snprintf(buf, size, "dazukofs_%s%s", prefix, name);
	return buf;
}

static void prom_header(const char *prefix, const char *name, const char *type,
			const char *help)
{
	char full[96];

	prom_family(stdout, prom_name(full, sizeof(full), prefix, name), type, help);
}

/* label: "" for the totals, else the group's ,-less label set */
static void prom_count(const char *prefix, const char *name, const char *label,
		       ull value)
{
	char full[96];

	prom_sample(stdout, prom_name(full, sizeof(full), prefix, name), label,
		    "%llu", value);
}

static void prom_latency(const char *prefix, const struct row *r, const char *label)
{
	const struct dazukofs_stats *s = &r->s;
	const ull buckets[] = {
		s->latency_le_100us, s->latency_le_1ms, s->latency_le_10ms,
		s->latency_le_100ms, s->latency_le_1s, s->latency_gt_1s,
	};
	char le[128];	/* the label set, and le="..." */
	ull cum = 0;

	for (size_t i = 0; i < sizeof(buckets) / sizeof(buckets[0]); i++) {
		cum += buckets[i];
		snprintf(le, sizeof(le), "%s%sle=\"%s\"", label, *label ? "," : "", prom_le[i]);
		prom_count(prefix, "verdict_latency_seconds_bucket", le, cum);
	}
	prom_count(prefix, "verdict_latency_seconds_count", label, cum);
}

/*
 * One family at a time, each with its HELP and TYPE once: the totals
 * (unless group), then every group's sample.
 */
static void print_prometheus(const struct row *rows, int n, const char *group)
{
	const int first = group ? 0 : 1;
	const char *prefixes[] = { "", "group_" };
	char label[96];
	int i;

	for (int g = group ? 1 : 0; g < 2; g++) {
		const char *prefix = prefixes[g];
		const int from = g ? first : 0, to = g ? n : 1;

		if (g && from >= to)
			break;
		for (size_t m = 0; m < sizeof(prom_metrics) / sizeof(prom_metrics[0]); m++) {
			const struct prom_metric *pm = &prom_metrics[m];

			prom_header(prefix, pm->name, pm->type, pm->help);
			for (i = from; i < to; i++) {
				const uint64_t *v = (const uint64_t *)
					((const char *)&rows[i].s + pm->offset);

				snprintf(label, sizeof(label), g ? "group=\"%s\"" : "", rows[i].name);
				prom_count(prefix, pm->name, label, *v);
			}
		}
		if (g) {
			prom_header(prefix, "active", "gauge",
				    "1 while the group takes part in events.");
			for (i = from; i < to; i++) {
				snprintf(label, sizeof(label), "group=\"%s\"", rows[i].name);
				prom_count(prefix, "active", label, (ull)rows[i].s.active);
			}
		}
		prom_header(prefix, "verdict_latency_seconds", "histogram",
			    "Time from the open to the verdict (no _sum: the module keeps none).");
		for (i = from; i < to; i++) {
			snprintf(label, sizeof(label), g ? "group=\"%s\"" : "", rows[i].name);
			prom_latency(prefix, &rows[i], label);
		}
		prom_header(prefix, "verdict_latency_max_seconds", "gauge",
			    "The longest time from an open to its verdict.");
		for (i = from; i < to; i++) {
			char full[96];

			snprintf(label, sizeof(label), g ? "group=\"%s\"" : "", rows[i].name);
			prom_sample(stdout, prom_name(full, sizeof(full), prefix,
						      "verdict_latency_max_seconds"),
				    label, "%.6f", (double)rows[i].s.latency_max_us / 1e6);
		}
		if (!rows[from].have_cache)
			continue;
		for (int c = 0; c < 3; c++) {
			static const char *const names[] = {
				"cache_hits_total", "cache_misses_total",
				"cache_invalidations_total",
			};
			static const char *const helps[] = {
				"Opens answered from a remembered verdict, without an event.",
				"Events posted once a verdict was remembered.",
				"Remembered verdicts forgotten because the file changed.",
			};

			prom_header(prefix, names[c], "counter", helps[c]);
			for (i = from; i < to; i++) {
				const ull v[] = { rows[i].c.hits, rows[i].c.misses,
						  rows[i].c.invalidations };

				snprintf(label, sizeof(label), g ? "group=\"%s\"" : "", rows[i].name);
				prom_count(prefix, names[c], label, v[c]);
			}
		}
	}
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
	if (rows[0].have_cache) {
		printf("\n%-20s %10s %10s %13s\n", "VERDICT CACHE", "HITS", "MISSES",
		       "INVALIDATIONS");
		for (i = 0; i < n; i++) {
			if (rows[i].have_cache)
				printf("%-20s %10llu %10llu %13llu\n", rows[i].name,
				       (ull)rows[i].c.hits, (ull)rows[i].c.misses,
				       (ull)rows[i].c.invalidations);
		}
	}
	if (!group)
		printf("\n%s", total_note);
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
	static struct dazukofs_group_info infos[DAZUKOFS_MAX_GROUPS];
	int i, n, r = 0;

	if (group) {
		snprintf(rows[0].name, sizeof(rows[0].name), "%s", group);
		if (dazukofs_get_stats(group, &rows[0].s) ||
		    sample_cache(group, &rows[0]))
			return -ctl_lib_fail(ctl, group);
		return 1;
	}
	snprintf(rows[0].name, sizeof(rows[0].name), "%s", TOTAL_ROW);
	if (dazukofs_get_stats(NULL, &rows[0].s) || sample_cache(NULL, &rows[0]))
		return -ctl_lib_fail(ctl, NULL);
	n = dazukofs_group_list(infos, DAZUKOFS_MAX_GROUPS);
	if (n < 0)
		return -ctl_lib_fail(ctl, NULL);
	if (n > DAZUKOFS_MAX_GROUPS)
		n = DAZUKOFS_MAX_GROUPS;
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
	static struct row rows[DAZUKOFS_MAX_GROUPS + 1];
	unsigned long watch = 0, count = 0, done;
	const char *group = NULL, *format_opt = NULL;
	enum stats_format format = FORMAT_TABLE;
	enum { OPT_JSON = CTL_OPT_BASE, OPT_FORMAT, OPT_WATCH, OPT_COUNT };
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "watch", required_argument, NULL, OPT_WATCH },
		{ "count", required_argument, NULL, OPT_COUNT },
		{ 0 },
	};
	int have_count = 0, c, n;

	while ((c = ctl_getopt("stats", argc, argv, opts)) != -1) {
		if (c == 'h') {
			usage_stats(stdout);
			return EXIT_OK;
		} else if (c == OPT_JSON || c == OPT_FORMAT) {
			const char *f = c == OPT_JSON ? "json" : optarg;

			if (format_opt && f && strcmp(format_opt, f)) {
				ctl_err("stats: two formats, %s and %s", format_opt, f);
				return EXIT_USAGE;
			}
			format_opt = f;
			if (f && !strcmp(f, "table")) {
				format = FORMAT_TABLE;
			} else if (f && !strcmp(f, "json")) {
				format = FORMAT_JSON;
			} else if (f && !strcmp(f, "prometheus")) {
				format = FORMAT_PROMETHEUS;
			} else {
				ctl_err("stats: --format takes table, json or prometheus%s%s%s",
					f ? ", not '" : "", f ? f : "", f ? "'" : "");
				return EXIT_USAGE;
			}
		} else if (c == OPT_WATCH) {
			if (ctl_number("--watch", optarg, 1, WATCH_MAX_S, &watch))
				return EXIT_USAGE;
		} else if (c == OPT_COUNT) {
			if (ctl_number("--count", optarg, 1, COUNT_MAX, &count))
				return EXIT_USAGE;
			have_count = 1;
		} else {
			return EXIT_USAGE;
		}
	}
	for (int i = optind; i < argc; i++) {
		if (group) {
			ctl_err("stats: one group only ('%s' and '%s')", group, argv[i]);
			return EXIT_USAGE;
		}
		group = argv[i];
	}
	if (have_count && !watch) {
		ctl_err("stats: --count goes with --watch");
		return EXIT_USAGE;
	}
	/* a textfile collector reads one exposition: families only once */
	if (watch && format == FORMAT_PROMETHEUS) {
		ctl_err("stats: --format prometheus prints one sample; run it again instead of --watch");
		return EXIT_USAGE;
	}
	for (done = 0;; done++) {
		n = sample(ctl, group, rows);
		if (n < 0)
			return -n;
		if (watch && format == FORMAT_TABLE) {
			char when[64];
			time_t now = time(NULL);

			if (isatty(STDOUT_FILENO))
				fputs("\033[H\033[2J", stdout);
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S",
				 localtime(&now));
			printf("dazukofs counters at %s (every %lu s)\n\n", when,
			       watch);
		}
		if (format == FORMAT_JSON) {
			if (print_json(rows, n, group))
				return EXIT_PROBLEM;
		} else if (format == FORMAT_PROMETHEUS) {
			print_prometheus(rows, n, group);
		} else {
			print_table(rows, n, group);
		}
		fflush(stdout);
		if (!watch || (count && done + 1 >= count))
			break;
		if (format != FORMAT_JSON)
			putchar('\n');
		sleep((unsigned int)watch);
	}
	return EXIT_OK;
}
