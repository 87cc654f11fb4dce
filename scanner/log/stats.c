// SPDX-License-Identifier: GPL-2.0
/* The scanner's counters (see stats.h). */
#include <inttypes.h>
#include <stdio.h>

#include "log/stats.h"

const uint64_t stats_latency_bounds_us[STATS_LATENCY_BUCKETS - 1] = {
	STATS_LATENCY_BOUNDS_US
};

_Static_assert(sizeof((uint64_t[]){ STATS_LATENCY_BOUNDS_US }) ==
	       sizeof(stats_latency_bounds_us), "STATS_LATENCY_BUCKETS is the bounds' number + 1");
_Static_assert(sizeof(atomic_uint_fast64_t) == sizeof(uint64_t),
	       "stats_init and stats_snapshot walk both structs as arrays");

void stats_init(struct stats *s)
{
	atomic_uint_fast64_t *c = &s->events;

	for (size_t i = 0; i < sizeof(*s) / sizeof(*c); i++)
		atomic_init(&c[i], 0);
}

void stats_add_latency(struct stats *s, uint64_t us)
{
	uint_fast64_t max = atomic_load(&s->latency_us_max);

	/* The maximum first: a snapshot's sum never holds more than its max allows. */
	while (us > max && !atomic_compare_exchange_weak(&s->latency_us_max, &max, us))
		;
	atomic_fetch_add(&s->latency_us_sum, us);
	atomic_fetch_add(&s->latency_bucket[stats_latency_bucket(us)], 1);
}

size_t stats_latency_bucket(uint64_t us)
{
	size_t i = 0;

	/* 16 bounds: a binary search would not be faster */
	while (i < STATS_LATENCY_BUCKETS - 1 && us > stats_latency_bounds_us[i])
		i++;
	return i;
}

void stats_scan_begin(struct stats *s)
{
	uint_fast64_t now = atomic_fetch_add(&s->scanning, 1) + 1;
	uint_fast64_t peak = atomic_load(&s->scanning_peak);

	while (now > peak && !atomic_compare_exchange_weak(&s->scanning_peak, &peak, now))
		;
}

void stats_scan_end(struct stats *s)
{
	atomic_fetch_sub(&s->scanning, 1);
}

void stats_snapshot(struct stats *s, struct stats_snapshot *out)
{
	atomic_uint_fast64_t *c = &s->events;
	uint64_t *o = &out->events;

	for (size_t i = 0; i < sizeof(*out) / sizeof(*o); i++)
		o[i] = atomic_load(&c[i]);
}
