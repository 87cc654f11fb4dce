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
struct stats {
	atomic_uint_fast64_t events, scanned, infected, errors, exceeds_max,
		encrypted, skipped_filter, skipped_excluded, cache_hits, bytes,
		latency_us_sum, latency_us_max, denied, reported, reloads, reload_failures, scanning,
		scanning_peak;
};

struct stats_snapshot {
	uint64_t events, scanned, infected, errors, exceeds_max, encrypted,
		skipped_filter, skipped_excluded, cache_hits, bytes, latency_us_sum,
		latency_us_max,
		denied, reported, reloads, reload_failures, scanning, scanning_peak;
};

void stats_init(struct stats *s);
void stats_add_latency(struct stats *s, uint64_t us);
/* Around each scan: count it in progress, and raise the peak (lock-free). */
void stats_scan_begin(struct stats *s);
void stats_scan_end(struct stats *s);
void stats_snapshot(struct stats *s, struct stats_snapshot *out);
/* One line: "scanned=... infected=... ...". */
void stats_format(const struct stats_snapshot *s, char *buf, size_t len);

#endif
