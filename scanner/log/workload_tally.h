/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Detections by workload, for the metrics: one counter per (unit,
 * container) seen, for the first WORKLOAD_TALLY_MAX of them; the rest
 * count together under unit "other", so that no workload, however many
 * containers come and go, grows the metrics without bound.
 */
#ifndef SCANNER_LOG_WORKLOAD_TALLY_H
#define SCANNER_LOG_WORKLOAD_TALLY_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "util/workload.h"

#define WORKLOAD_TALLY_MAX 32

struct workload_count {
	char unit[WORKLOAD_UNIT_MAX];		/* "" if unknown */
	char container[WORKLOAD_ID_MAX];	/* "" if none */
	uint64_t detections;
};

struct workload_tally_snapshot {
	struct workload_count c[WORKLOAD_TALLY_MAX];
	size_t n;
	uint64_t other;		/* detections of the workloads past the first */
};

struct workload_tally {
	pthread_mutex_t lock;
	struct workload_tally_snapshot s;
};

void workload_tally_init(struct workload_tally *t);
void workload_tally_destroy(struct workload_tally *t);
/* One detection by w (NULL: unknown workload). */
void workload_tally_add(struct workload_tally *t, const struct workload *w);
void workload_tally_snapshot(struct workload_tally *t, struct workload_tally_snapshot *out);
/* The family name_total{unit="...",container="..."} of s. */
void workload_tally_prometheus(const struct workload_tally_snapshot *s, FILE *out,
			       const char *name);

#endif
