/* SPDX-License-Identifier: GPL-2.0 */
/* The scanner's counters: lock-free, updated by the workers. */
#ifndef SCANNER_STATS_H
#define SCANNER_STATS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Both structs list the same counters in the same order (stats_init and
 * stats_snapshot walk them as arrays).  scanning: scans in progress now;
 * scanning_peak: the most that were in progress at once since the start
 * (how many workers really scanned in parallel).  reported: opens that
 * would have been denied, allowed because prevention = no (report only).
 * skipped_excluded: opens not scanned for who opened (exclude_uid...).
 * exceeds_max, encrypted:
 * files not fully scanned (a limit; encryption), whatever the verdict.
 */
/*
 * The scan latency histogram's upper bounds in microseconds (Prometheus'
 * le, inclusive), then one bucket for longer scans (+Inf).  Fixed, so that
 * a scan counts with one atomic add and no lock.
 */
#define STATS_LATENCY_BOUNDS_US \
	500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, \
	500000, 1000000, 2500000, 5000000, 10000000, 30000000, 60000000
/* the bounds' number plus +Inf (stats.c checks it) */
#define STATS_LATENCY_BUCKETS 17

extern const uint64_t stats_latency_bounds_us[STATS_LATENCY_BUCKETS - 1];

/*
 * latency_bucket[i]: scans in bucket i alone (not cumulative); the last
 * is +Inf's.
 */
struct stats {
	atomic_uint_fast64_t events, scanned, infected, errors, exceeds_max,
		encrypted, skipped_filter, skipped_excluded, cache_hits, bytes,
		latency_us_sum, latency_us_max, denied, reported, reloads, reload_failures, scanning,
		scanning_peak;
	atomic_uint_fast64_t latency_bucket[STATS_LATENCY_BUCKETS];
};

struct stats_snapshot {
	uint64_t events, scanned, infected, errors, exceeds_max, encrypted,
		skipped_filter, skipped_excluded, cache_hits, bytes, latency_us_sum,
		latency_us_max,
		denied, reported, reloads, reload_failures, scanning, scanning_peak;
	uint64_t latency_bucket[STATS_LATENCY_BUCKETS];
};

void stats_init(struct stats *s);
/* A scan's duration: into the sum, the maximum and its bucket. */
void stats_add_latency(struct stats *s, uint64_t us);
/* The bucket of a scan of us microseconds (for the tests). */
size_t stats_latency_bucket(uint64_t us);
/* Around each scan: count it in progress, and raise the peak (lock-free). */
void stats_scan_begin(struct stats *s);
void stats_scan_end(struct stats *s);
void stats_snapshot(struct stats *s, struct stats_snapshot *out);

#endif
