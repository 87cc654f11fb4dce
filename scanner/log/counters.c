// SPDX-License-Identifier: GPL-2.0
/* The scanner's counters, one table for every way they are shown (see counters.h). */
#include <inttypes.h>
#include <string.h>

#include <dzcommon/prom.h>

#include "log/counters.h"
#include "util/jsonb.h"

#define C(id, n, a, m, t, s, h, snap) [id] = { n, a, m, t, s, h, snap }
#define SNAP(f) offsetof(struct stats_snapshot, f)
#define NO_SNAP -1

const struct counter_def counter_defs[COUNTER_NR] = {
	C(COUNTER_EVENTS, "events", NULL, "events_total", "counter", 0,
	  "Events received (opens, execs, closes).",
	  SNAP(events)),
	C(COUNTER_SCANNED, "scanned", NULL, "scanned_total", "counter", 0,
	  "Files scanned.",
	  SNAP(scanned)),
	C(COUNTER_INFECTED, "infected", NULL, "infected_total", "counter", 0,
	  "Files found infected.",
	  SNAP(infected)),
	C(COUNTER_DENIED, "denied", NULL, "denied_total", "counter", 0,
	  "Accesses denied.",
	  SNAP(denied)),
	C(COUNTER_REPORTED, "reported", NULL, "reported_total", "counter", 0,
	  "Accesses that would have been denied, allowed by prevention = no.",
	  SNAP(reported)),
	C(COUNTER_ERRORS, "errors", NULL, "errors_total", "counter", 0,
	  "Scans that failed.",
	  SNAP(errors)),
	C(COUNTER_CACHE_HITS, "cache_hits", NULL, "cache_hits_total", "counter", 0,
	  "Events answered from the verdict cache.",
	  SNAP(cache_hits)),
	C(COUNTER_EXCEEDS_MAX, "exceeds_max", NULL, "exceeds_max_total", "counter", 0,
	  "Files not fully scanned: a limit.",
	  SNAP(exceeds_max)),
	C(COUNTER_ENCRYPTED, "encrypted", NULL, "encrypted_total", "counter", 0,
	  "Files not fully scanned: encrypted.",
	  SNAP(encrypted)),
	C(COUNTER_SKIPPED_FILTER, "skipped_filter", "filtered", "skipped_filter_total",
	  "counter", 0, "Events not scanned: include/exclude.",
	  SNAP(skipped_filter)),
	C(COUNTER_SKIPPED_EXCLUDED, "skipped_excluded", "excluded", "skipped_excluded_total",
	  "counter", 0,
	  "Events not scanned: the opener is excluded (uid, user, root, executable).",
	  SNAP(skipped_excluded)),
	C(COUNTER_SCANNED_BYTES, "scanned_bytes", "bytes", "scanned_bytes_total", "counter", 0,
	  "Bytes of the files scanned.",
	  SNAP(bytes)),
	/* Prometheus divides scan_duration_seconds' _sum by its _count */
	C(COUNTER_SCAN_DURATION_AVG, "scan_duration_avg_us", "latency_avg_us", NULL, NULL, 0,
	  NULL,
	  NO_SNAP),
	C(COUNTER_SCAN_DURATION_MAX, "scan_duration_max_us", "latency_max_us",
	  "scan_duration_max_seconds", "gauge", 1e-6, "The longest scan since the start.",
	  SNAP(latency_us_max)),
	C(COUNTER_RELOADS, "reloads", NULL, "reloads_total", "counter", 0,
	  "Signature reloads.",
	  SNAP(reloads)),
	C(COUNTER_RELOAD_FAILURES, "reload_failures", NULL, "reload_failures_total", "counter",
	  0, "Signature reloads that failed.",
	  SNAP(reload_failures)),
	C(COUNTER_SCANS_IN_PROGRESS, "scans_in_progress", "scanning", "scans_in_progress",
	  "gauge", 0, "Scans in progress now.",
	  SNAP(scanning)),
	C(COUNTER_SCANS_IN_PROGRESS_PEAK, "scans_in_progress_peak", "scanning_peak",
	  "scans_in_progress_peak", "gauge", 0,
	  "The most scans in progress at once since the start.",
	  SNAP(scanning_peak)),
	C(COUNTER_CACHE_ENTRIES, "cache_entries", NULL, "cache_entries", "gauge", 0,
	  "Verdicts in the verdict cache.",
	  NO_SNAP),
	C(COUNTER_CACHE_LOOKUPS_HIT, "cache_lookups_hit", NULL, "cache_lookups_hit_total",
	  "counter", 0, "Verdict cache lookups that found a verdict.",
	  NO_SNAP),
	C(COUNTER_CACHE_LOOKUPS_MISSED, "cache_lookups_missed", NULL,
	  "cache_lookups_missed_total", "counter", 0,
	  "Verdict cache lookups that found none.",
	  NO_SNAP),
	C(COUNTER_CACHE_EVICTIONS, "cache_evictions", NULL, "cache_evictions_total", "counter",
	  0, "Verdicts evicted from the full verdict cache.",
	  NO_SNAP),
	C(COUNTER_STORE_ENTRIES, "store_entries", NULL, "store_entries", "gauge", 0,
	  "Verdicts in the verdict store.",
	  NO_SNAP),
	C(COUNTER_STORE_HITS, "store_hits", NULL, "store_hits_total", "counter", 0,
	  "Files answered from the verdict store, unscanned.",
	  NO_SNAP),
	C(COUNTER_STORE_MISSES, "store_misses", NULL, "store_misses_total", "counter", 0,
	  "Verdict store lookups that found no verdict of these signatures and settings.",
	  NO_SNAP),
	C(COUNTER_STORE_STORES, "store_stores", NULL, "store_stores_total", "counter", 0,
	  "Verdicts written to the verdict store.",
	  NO_SNAP),
	C(COUNTER_STORE_EVICTIONS, "store_evictions", NULL, "store_evictions_total", "counter",
	  0, "Verdicts evicted from the full verdict store, oldest first.",
	  NO_SNAP),
	C(COUNTER_STORE_DROPPED, "store_dropped", NULL, "store_dropped_total", "counter", 0,
	  "Verdicts not written to the verdict store: its queue was full, or a write failed.",
	  NO_SNAP),
	C(COUNTER_STORE_HASHED_BYTES, "store_hashed_bytes", NULL, "store_hashed_bytes_total",
	  "counter", 0, "Bytes read to digest files for the verdict store.",
	  NO_SNAP),
	C(COUNTER_VIRUS_EVENT_RUN, "virus_event_run", NULL, "virus_event_run_total", "counter",
	  0, "virus_event commands run.",
	  NO_SNAP),
	C(COUNTER_VIRUS_EVENT_DROPPED, "virus_event_dropped", NULL,
	  "virus_event_dropped_total", "counter", 0,
	  "Detections whose virus_event found its queue full.",
	  NO_SNAP),
	C(COUNTER_VIRUS_EVENT_TIMEOUTS, "virus_event_timeouts", NULL,
	  "virus_event_timeouts_total", "counter", 0,
	  "virus_event commands killed at their timeout.",
	  NO_SNAP),
	C(COUNTER_QUARANTINED, "quarantined", NULL, "quarantined_total", "counter", 0,
	  "Files copied into the quarantine.",
	  NO_SNAP),
	C(COUNTER_QUARANTINE_FAILED, "quarantine_failed", NULL, "quarantine_failed_total",
	  "counter", 0, "Quarantine copies that failed.",
	  NO_SNAP),
	C(COUNTER_QUARANTINE_SKIPPED, "quarantine_skipped", NULL, "quarantine_skipped_total",
	  "counter", 0, "Files not quarantined: a quarantine limit.",
	  NO_SNAP),
};

void counters_clear(struct counter_values *c)
{
	memset(c, 0, sizeof(*c));
}

void counters_set(struct counter_values *c, enum counter_id id, uint64_t v)
{
	c->v[id] = v;
	c->set[id] = 1;
}

void counters_from_stats(struct counter_values *c, const struct stats_snapshot *s)
{
	for (size_t i = 0; i < COUNTER_NR; i++)
		if (counter_defs[i].snap >= 0)
			counters_set(c, (enum counter_id)i,
				     *(const uint64_t *)((const char *)s + counter_defs[i].snap));
	counters_set(c, COUNTER_SCAN_DURATION_AVG,
		     s->scanned ? s->latency_us_sum / s->scanned : 0);
}

void counters_line(const struct counter_values *c, char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < COUNTER_NR; i++) {
		const struct counter_def *d = &counter_defs[i];

		for (int a = 0; c->set[i] && a < 2; a++) {
			const char *key = a ? d->alias : d->name;
			int n;

			if (!key)
				continue;
			n = snprintf(buf + used, len - used, "%s%s=%" PRIu64, used ? " " : "",
				     key, c->v[i]);
			if (n < 0 || (size_t)n >= len - used) {
				buf[used] = '\0';	/* whole pairs only */
				return;
			}
			used += (size_t)n;
		}
	}
}

int counters_json(const struct counter_values *c, json_object *o)
{
	for (size_t i = 0; i < COUNTER_NR; i++) {
		const struct counter_def *d = &counter_defs[i];

		if (!c->set[i])
			continue;
		if (jsonb_add_uint(o, d->name, c->v[i]) ||
		    (d->alias && jsonb_add_uint(o, d->alias, c->v[i])))
			return -1;
	}
	return 0;
}

void counters_prometheus(const struct counter_values *c, FILE *out, const char *prefix)
{
	for (size_t i = 0; i < COUNTER_NR; i++) {
		const struct counter_def *d = &counter_defs[i];
		char name[128];

		if (!c->set[i] || !d->metric)
			continue;
		snprintf(name, sizeof(name), "%s%s", prefix, d->metric);
		prom_family(out, name, d->type, d->help);
		if (d->scale)
			prom_sample(out, name, NULL, "%.6f", (double)c->v[i] * d->scale);
		else
			prom_sample(out, name, NULL, "%" PRIu64, c->v[i]);
	}
}
