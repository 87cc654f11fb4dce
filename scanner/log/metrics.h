/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scanner's counters as a Prometheus text file, for node_exporter's
 * textfile collector: written every metrics_interval seconds by a thread
 * of its own (never by a worker), atomically (a temporary file in the
 * same directory, renamed over it), and once more at a clean stop.
 */
#ifndef SCANNER_METRICS_H
#define SCANNER_METRICS_H

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#include "log/stats.h"
#include "log/workload_tally.h"

/* Debian's prometheus-node-exporter reads *.prom files there. */
#define METRICS_TEXTFILE_DIR DAZUKOFS_TEXTFILE_DIR
#define METRICS_SUFFIX ".prom"
/* seconds; no U: --help spells it out (config.c) */
#define METRICS_INTERVAL_DEFAULT 15
#define METRICS_INTERVAL_MAX 3600U

struct metrics {
	const char *path;
	unsigned int interval_s;
	struct stats *stats;
	struct workload_tally *tally;	/* NULL: no detections by workload */
	double start_time;	/* seconds since the epoch */
	pthread_t thread;
	int stop_fd;		/* eventfd: the thread stops */
	int running;
	int failing;		/* the last write failed (logged once) */
};

/*
 * The metrics of snapshot s (and wt, the detections by workload, unless
 * NULL) in the text format; up is 1 while the scanner runs, 0 in the file
 * written as it stops.
 */
void metrics_format(FILE *out, const struct stats_snapshot *s,
		    const struct workload_tally_snapshot *wt, double start_time, int up);

/* Write path atomically, mode 0644; -1 with the reason in err. */
int metrics_write(const char *path, const struct stats_snapshot *s,
		  const struct workload_tally_snapshot *wt, double start_time, int up,
		  char *err, size_t errlen);

/* Write the file now, then every interval_s seconds from a thread. */
int metrics_start(struct metrics *m, const char *path, unsigned int interval_s,
		  struct stats *stats, struct workload_tally *tally, double start_time,
		  char *err, size_t errlen);

/* Stop the thread, then write the file a last time with up 0. */
void metrics_stop(struct metrics *m);

/* Now, in seconds since the epoch (start_time). */
double metrics_now(void);

#endif
