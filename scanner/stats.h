/* SPDX-License-Identifier: GPL-2.0 */
/* The scanner's counters: lock-free, updated by the workers. */
#ifndef SCANNER_STATS_H
#define SCANNER_STATS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct stats {
	atomic_uint_fast64_t events, scanned, infected, errors, skipped_size,
		skipped_filter, cache_hits, bytes, latency_us_sum, latency_us_max,
		denied, reloads, reload_failures;
};

struct stats_snapshot {
	uint64_t events, scanned, infected, errors, skipped_size, skipped_filter,
		cache_hits, bytes, latency_us_sum, latency_us_max, denied, reloads,
		reload_failures;
};

void stats_init(struct stats *s);
void stats_add_latency(struct stats *s, uint64_t us);
void stats_snapshot(struct stats *s, struct stats_snapshot *out);
/* One line: "scanned=... infected=... ...". */
void stats_format(const struct stats_snapshot *s, char *buf, size_t len);

#endif
