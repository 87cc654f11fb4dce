// SPDX-License-Identifier: GPL-2.0
/* The Prometheus text file (see metrics.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <dzcommon/prom.h>

#include "log/counters.h"
#include "log/log.h"
#include "log/metrics.h"

#define PREFIX "dazuko_clamscan_"

double metrics_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void metrics_format(FILE *out, const struct stats_snapshot *s,
		    const struct workload_tally_snapshot *wt, double start_time, int up)
{
	struct counter_values c;
	uint64_t cum = 0;
	char le[32];

	prom_family(out, PREFIX "up", "gauge", "1 while the scanner runs, 0 once it stopped.");
	prom_sample(out, PREFIX "up", NULL, "%d", up);
	prom_family(out, PREFIX "start_time_seconds", "gauge",
		    "When the scanner started, in seconds since the epoch.");
	prom_sample(out, PREFIX "start_time_seconds", NULL, "%.3f", start_time);
	counters_clear(&c);
	counters_from_stats(&c, s);
	counters_prometheus(&c, out, PREFIX);
	/*
	 * _count is the buckets' total, not scanned: the snapshot reads the
	 * counters one by one while workers add, and +Inf must equal _count.
	 */
	prom_family(out, PREFIX "scan_duration_seconds", "histogram", "How long scans took.");
	for (size_t i = 0; i < STATS_LATENCY_BUCKETS; i++) {
		cum += s->latency_bucket[i];
		if (i < STATS_LATENCY_BUCKETS - 1)
			snprintf(le, sizeof(le), "le=\"%g\"",
				 (double)stats_latency_bounds_us[i] / 1e6);
		else
			snprintf(le, sizeof(le), "le=\"+Inf\"");
		prom_sample(out, PREFIX "scan_duration_seconds_bucket", le, "%" PRIu64, cum);
	}
	prom_sample(out, PREFIX "scan_duration_seconds_sum", NULL, "%.6f",
		    (double)s->latency_us_sum / 1e6);
	prom_sample(out, PREFIX "scan_duration_seconds_count", NULL, "%" PRIu64, cum);
	if (wt)
		workload_tally_prometheus(wt, out, PREFIX "detections_by_workload_total");
}

int metrics_write(const char *path, const struct stats_snapshot *s,
		  const struct workload_tally_snapshot *wt, double start_time, int up,
		  char *err, size_t errlen)
{
	char tmp[PATH_MAX];
	FILE *f;
	int fd;

	/*
	 * A name that does not end in .prom: the textfile collector reads
	 * every *.prom file, and would scrape this one half-written.
	 */
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path) >= sizeof(tmp)) {
		snprintf(err, errlen, "metrics_file %s: path too long", path);
		return -1;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "metrics_file: creating %s: %s", tmp, strerror(errno));
		return -1;
	}
	/* mkostemp makes it 0600; node_exporter runs as another user */
	if (fchmod(fd, 0644) || !(f = fdopen(fd, "w"))) {
		snprintf(err, errlen, "metrics_file: %s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		return -1;
	}
	metrics_format(f, s, wt, start_time, up);
	/*
	 * No fsync: the file is written again within an interval, and a
	 * crash's empty or old file costs one scrape, not a disk flush each
	 * interval.
	 */
	if (ferror(f) | fclose(f)) {
		snprintf(err, errlen, "metrics_file: writing %s: %s", tmp, strerror(errno));
		unlink(tmp);
		return -1;
	}
	if (rename(tmp, path)) {
		snprintf(err, errlen, "metrics_file: renaming %s to %s: %s", tmp, path,
			 strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* A failure is logged once, not every interval; so is the recovery. */
static void write_now(struct metrics *m, int up)
{
	struct workload_tally_snapshot wt;
	struct stats_snapshot s;
	char err[PATH_MAX + 256];

	stats_snapshot(m->stats, &s);
	if (m->tally)
		workload_tally_snapshot(m->tally, &wt);
	if (metrics_write(m->path, &s, m->tally ? &wt : NULL, m->start_time, up, err,
			  sizeof(err))) {
		if (!m->failing)
			log_warning("%s (retried every %u s, logged once)", err, m->interval_s);
		m->failing = 1;
		return;
	}
	if (m->failing)
		log_notice("metrics_file %s: written again", m->path);
	m->failing = 0;
}

static void *metrics_main(void *arg)
{
	struct metrics *m = arg;
	struct pollfd pfd = { .fd = m->stop_fd, .events = POLLIN };
	int timeout_ms = (int)(m->interval_s * 1000);

	for (;;) {
		int rc = poll(&pfd, 1, timeout_ms);

		if (rc < 0 && errno != EINTR) {
			log_error("metrics: poll: %s; no more metrics until the stop", strerror(errno));
			return NULL;
		}
		if (rc > 0)
			return NULL;
		if (!rc)
			write_now(m, 1);
	}
}

int metrics_start(struct metrics *m, const char *path, unsigned int interval_s,
		  struct stats *stats, struct workload_tally *tally, double start_time,
		  char *err, size_t errlen)
{
	int rc;

	memset(m, 0, sizeof(*m));
	m->path = path;
	m->interval_s = interval_s;
	m->stats = stats;
	m->tally = tally;
	m->start_time = start_time;
	m->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (m->stop_fd < 0) {
		snprintf(err, errlen, "metrics: eventfd: %s", strerror(errno));
		return -1;
	}
	/* at once: a scrape right after the start sees the scanner up */
	write_now(m, 1);
	rc = pthread_create(&m->thread, NULL, metrics_main, m);
	if (rc) {
		snprintf(err, errlen, "metrics: pthread_create: %s", strerror(rc));
		close(m->stop_fd);
		m->stop_fd = -1;
		return -1;
	}
	m->running = 1;
	return 0;
}

void metrics_stop(struct metrics *m)
{
	if (!m->running)
		return;
	eventfd_write(m->stop_fd, 1);
	pthread_join(m->thread, NULL);
	m->running = 0;
	close(m->stop_fd);
	m->stop_fd = -1;
	write_now(m, 0);
}
