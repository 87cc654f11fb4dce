/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every counter the scanner reports, in one table (counters.c) that makes
 * the statistics line (SIGUSR1, sd_notify's STATUS=), the "counters" of
 * `dazuko-clamscan status --json` and the Prometheus text: one name each,
 * everywhere (a Prometheus counter adds _total, and a duration is in
 * seconds there, in microseconds elsewhere).  A name renamed keeps its
 * old one as an alias in the line and the JSON for one release (NEWS).
 */
#ifndef SCANNER_COUNTERS_H
#define SCANNER_COUNTERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "log/stats.h"

enum counter_id {
	/* struct stats_snapshot's (counters_from_stats) */
	COUNTER_EVENTS,
	COUNTER_SCANNED,
	COUNTER_INFECTED,
	COUNTER_DENIED,
	COUNTER_REPORTED,
	COUNTER_ERRORS,
	COUNTER_CACHE_HITS,
	COUNTER_EXCEEDS_MAX,
	COUNTER_ENCRYPTED,
	COUNTER_SKIPPED_FILTER,
	COUNTER_SKIPPED_EXCLUDED,
	COUNTER_SCANNED_BYTES,
	COUNTER_SCAN_DURATION_AVG,
	COUNTER_SCAN_DURATION_MAX,
	COUNTER_RELOADS,
	COUNTER_RELOAD_FAILURES,
	COUNTER_SCANS_IN_PROGRESS,
	COUNTER_SCANS_IN_PROGRESS_PEAK,
	/* the verdict cache's (core/cache.h) */
	COUNTER_CACHE_ENTRIES,
	COUNTER_CACHE_LOOKUPS_HIT,
	COUNTER_CACHE_LOOKUPS_MISSED,
	COUNTER_CACHE_EVICTIONS,
	/* the verdict store's, when it is on */
	COUNTER_STORE_ENTRIES,
	COUNTER_STORE_HITS,
	COUNTER_STORE_MISSES,
	COUNTER_STORE_STORES,
	COUNTER_STORE_EVICTIONS,
	COUNTER_STORE_DROPPED,
	COUNTER_STORE_HASHED_BYTES,
	/* what was done on detections (actions/detection.h) */
	COUNTER_VIRUS_EVENT_RUN,
	COUNTER_VIRUS_EVENT_DROPPED,
	COUNTER_VIRUS_EVENT_TIMEOUTS,
	COUNTER_QUARANTINED,
	COUNTER_QUARANTINE_FAILED,
	COUNTER_QUARANTINE_SKIPPED,
	COUNTER_NR
};

struct counter_def {
	const char *name;	/* the line's and the JSON's key */
	const char *alias;	/* its name before 1.0.0, kept for one release; NULL */
	const char *metric;	/* the Prometheus name, without the prefix; NULL: none */
	const char *type;	/* "counter" or "gauge" */
	double scale;		/* the metric's value: value * scale; 0: as is */
	const char *help;
	/* where struct stats_snapshot holds it (counters_from_stats); -1: elsewhere */
	ptrdiff_t snap;
};

extern const struct counter_def counter_defs[COUNTER_NR];

/* Values of some counters: only those set are reported. */
struct counter_values {
	uint64_t v[COUNTER_NR];
	unsigned char set[COUNTER_NR];
};

void counters_clear(struct counter_values *c);
void counters_set(struct counter_values *c, enum counter_id id, uint64_t v);
/* The snapshot's counters, and the average scan duration from them. */
void counters_from_stats(struct counter_values *c, const struct stats_snapshot *s);

/* "name=value ..." in the table's order, each alias after its name. */
void counters_line(const struct counter_values *c, char *buf, size_t len);
/* The same as an object's members; -1 if out of memory. */
int counters_json(const struct counter_values *c, json_object *o);
/* Each counter with a metric: its family, one sample (prefix: "dazuko_clamscan_"). */
void counters_prometheus(const struct counter_values *c, FILE *out, const char *prefix);

#endif
