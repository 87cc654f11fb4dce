// SPDX-License-Identifier: GPL-2.0
/*
 * Workers: each takes an event from its source, decides (filters, size,
 * cache, scan with a referenced engine), answers and closes the fd.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "filter.h"
#include "log.h"
#include "worker.h"

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static void read_comm(pid_t pid, char *buf, size_t size)
{
	char p[64];
	ssize_t n;
	int fd;

	snprintf(buf, size, "?");
	snprintf(p, sizeof(p), "/proc/%d/comm", (int)pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0) {
		snprintf(buf, size, "?");
		return;
	}
	buf[n] = 0;
	if (buf[n - 1] == '\n')
		buf[n - 1] = 0;
}

enum verdict scanner_decide(struct scanner *sc, int fd, const char *path,
			    pid_t pid)
{
	const struct config *cfg = sc->cfg;
	const char *name = path ? path : "(unknown path)";
	char sig[256], comm[64];
	struct cache_key key;
	unsigned long scanned;
	enum scan_result res;
	struct engine *e;
	uint64_t gen, t0;
	struct stat st;

	atomic_fetch_add(&sc->stats.events, 1);
	if (path && !filter_should_scan(&cfg->include, &cfg->exclude, path)) {
		atomic_fetch_add(&sc->stats.skipped_filter, 1);
		log_debug("%s: not scanned (path filter)", path);
		return VERDICT_ALLOW;
	}
	if (fstat(fd, &st)) {
		atomic_fetch_add(&sc->stats.errors, 1);
		log_warning("%s: fstat: %s; verdict %s", name, strerror(errno),
			    cfg->on_error == VERDICT_DENY ? "deny" : "allow");
		return cfg->on_error;
	}
	if (!S_ISREG(st.st_mode))
		return VERDICT_ALLOW;
	if ((uint64_t)st.st_size > cfg->max_file_size) {
		atomic_fetch_add(&sc->stats.skipped_size, 1);
		log_debug("%s: not scanned (%jd bytes > max_file_size)", name,
			  (intmax_t)st.st_size);
		return VERDICT_ALLOW;
	}
	cache_key_from_stat(&key, &st);
	if (cache_lookup(&sc->cache, &key)) {
		atomic_fetch_add(&sc->stats.cache_hits, 1);
		log_debug("%s: clean (cached)", name);
		return VERDICT_ALLOW;
	}

	gen = cache_generation(&sc->cache);
	e = engine_holder_get(&sc->engines);
	if (!e) {
		atomic_fetch_add(&sc->stats.errors, 1);
		return cfg->on_error;
	}
	stats_scan_begin(&sc->stats);
	t0 = now_us();
	res = engine_scan(e, fd, name, sig, sizeof(sig), &scanned);
	stats_scan_end(&sc->stats);
	engine_put(e);
	stats_add_latency(&sc->stats, now_us() - t0);
	atomic_fetch_add(&sc->stats.scanned, 1);
	atomic_fetch_add(&sc->stats.bytes, (uint64_t)st.st_size);

	switch (res) {
	case SCAN_CLEAN:
		cache_insert(&sc->cache, &key, gen);
		log_debug("%s: clean", name);
		return VERDICT_ALLOW;
	case SCAN_INFECTED:
		atomic_fetch_add(&sc->stats.infected, 1);
		atomic_fetch_add(&sc->stats.denied, 1);
		read_comm(pid, comm, sizeof(comm));
		log_detection(name, pid, comm, sig, "denied");
		return VERDICT_DENY;
	case SCAN_ERROR:
	default:
		atomic_fetch_add(&sc->stats.errors, 1);
		log_warning("%s: scan error: %s; verdict %s", name, sig,
			    cfg->on_error == VERDICT_DENY ? "deny" : "allow");
		if (cfg->on_error == VERDICT_DENY)
			atomic_fetch_add(&sc->stats.denied, 1);
		return cfg->on_error;
	}
}

int worker_open(struct worker *w, char *err, size_t errlen)
{
	w->sw = w->sc->source->ops->worker_open(w->sc->source, err, errlen);
	return w->sw ? 0 : -1;
}

void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct scanner *sc = w->sc;
	const struct source_ops *ops = sc->source->ops;
	char err[512], path[PATH_MAX + 1];
	struct source_event ev;
	int rc;

	for (;;) {
		memset(&ev, 0, sizeof(ev));
		rc = ops->next(w->sw, sc->stop_fd, &ev, err, sizeof(err));
		if (rc == 0)
			break;
		if (rc < 0) {
			log_error("worker %u: %s; stopping", w->index, err);
			eventfd_write(sc->failed_fd, 1);
			break;
		}
		if (ops->path(w->sw, &ev, path, sizeof(path)) < 0)
			ev.verdict = scanner_decide(sc, ev.fd, NULL, ev.pid);
		else
			ev.verdict = scanner_decide(sc, ev.fd, path, ev.pid);
		if (ops->answer(w->sw, &ev, err, sizeof(err)))
			log_warning("worker %u: %s", w->index, err);
	}
	return NULL;
}
