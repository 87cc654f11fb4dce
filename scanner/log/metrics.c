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

#include "log/log.h"
#include "log/metrics.h"

#define PREFIX "dazuko_clamscan_"

/*
 * One metric from one field of the snapshot.  Names follow Prometheus'
 * conventions: counters end in _total, units are base units (bytes,
 * seconds).
 */
struct metric {
	const char *name;
	const char *type;
	const char *help;
	size_t off;
	double scale;		/* 0: the integer as is */
};

#define F(f) offsetof(struct stats_snapshot, f)

static const struct metric metrics[] = {
	{ "events_total", "counter", "Events received (opens, execs, closes).", F(events), 0 },
	{ "scanned_total", "counter", "Files scanned.", F(scanned), 0 },
	{ "scanned_bytes_total", "counter", "Bytes of the files scanned.", F(bytes), 0 },
	{ "infected_total", "counter", "Files found infected.", F(infected), 0 },
	{ "denied_total", "counter", "Accesses denied.", F(denied), 0 },
	{ "reported_total", "counter",
	  "Accesses that would have been denied, allowed by prevention = no.", F(reported), 0 },
	{ "errors_total", "counter", "Scans that failed.", F(errors), 0 },
	{ "exceeds_max_total", "counter", "Files not fully scanned: a limit.", F(exceeds_max), 0 },
	{ "encrypted_total", "counter", "Files not fully scanned: encrypted.", F(encrypted), 0 },
	{ "skipped_filter_total", "counter", "Events not scanned: include/exclude.",
	  F(skipped_filter), 0 },
	{ "skipped_excluded_total", "counter",
	  "Events not scanned: the opener is excluded (uid, user, root, executable).",
	  F(skipped_excluded), 0 },
	{ "cache_hits_total", "counter", "Events answered from the verdict cache.",
	  F(cache_hits), 0 },
	{ "reloads_total", "counter", "Signature reloads.", F(reloads), 0 },
	{ "reload_failures_total", "counter", "Signature reloads that failed.",
	  F(reload_failures), 0 },
	{ "scans_in_progress", "gauge", "Scans in progress now.", F(scanning), 0 },
	{ "scans_in_progress_peak", "gauge", "The most scans in progress at once since the start.",
	  F(scanning_peak), 0 },
	{ "scan_duration_max_seconds", "gauge", "The longest scan since the start.",
	  F(latency_us_max), 1e-6 },
};

double metrics_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void header(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP " PREFIX "%s %s\n# TYPE " PREFIX "%s %s\n", name, help, name, type);
}

void metrics_format(FILE *out, const struct stats_snapshot *s, double start_time, int up)
{
	uint64_t cum = 0;

	header(out, "up", "gauge", "1 while the scanner runs, 0 once it stopped.");
	fprintf(out, PREFIX "up %d\n", up);
	header(out, "start_time_seconds", "gauge", "When the scanner started, in seconds since the epoch.");
	fprintf(out, PREFIX "start_time_seconds %.3f\n", start_time);
	for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++) {
		const struct metric *m = &metrics[i];
		uint64_t v = *(const uint64_t *)((const char *)s + m->off);

		header(out, m->name, m->type, m->help);
		if (m->scale)
			fprintf(out, PREFIX "%s %.6f\n", m->name, (double)v * m->scale);
		else
			fprintf(out, PREFIX "%s %" PRIu64 "\n", m->name, v);
	}
	/*
	 * _count is the buckets' total, not scanned: the snapshot reads the
	 * counters one by one while workers add, and +Inf must equal _count.
	 */
	header(out, "scan_duration_seconds", "histogram", "How long scans took.");
	for (size_t i = 0; i < STATS_LATENCY_BUCKETS; i++) {
		cum += s->latency_bucket[i];
		if (i < STATS_LATENCY_BUCKETS - 1)
			fprintf(out, PREFIX "scan_duration_seconds_bucket{le=\"%g\"} %" PRIu64 "\n",
				(double)stats_latency_bounds_us[i] / 1e6, cum);
		else
			fprintf(out, PREFIX "scan_duration_seconds_bucket{le=\"+Inf\"} %" PRIu64 "\n",
				cum);
	}
	fprintf(out, PREFIX "scan_duration_seconds_sum %.6f\n", (double)s->latency_us_sum / 1e6);
	fprintf(out, PREFIX "scan_duration_seconds_count %" PRIu64 "\n", cum);
}

int metrics_write(const char *path, const struct stats_snapshot *s,
		  double start_time, int up, char *err, size_t errlen)
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
	metrics_format(f, s, start_time, up);
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
	struct stats_snapshot s;
	char err[PATH_MAX + 256];

	stats_snapshot(m->stats, &s);
	if (metrics_write(m->path, &s, m->start_time, up, err, sizeof(err))) {
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
		  struct stats *stats, double start_time, char *err, size_t errlen)
{
	int rc;

	memset(m, 0, sizeof(*m));
	m->path = path;
	m->interval_s = interval_s;
	m->stats = stats;
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
