// SPDX-License-Identifier: GPL-2.0
/*
 * Workers: each takes an event from its source, has it decided
 * (decide.c), answers and closes the fd.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/worker.h"
#include "log/log.h"

void scanner_read_comm(pid_t pid, char *buf, size_t size)
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

void event_path_init(struct event_path *p,
		     int (*resolve)(void *ctx, char *buf, size_t size), void *ctx)
{
	p->resolve = resolve;
	p->ctx = ctx;
	p->state = 0;
}

void event_path_known(struct event_path *p, const char *path)
{
	p->resolve = NULL;
	p->ctx = NULL;
	p->state = path && snprintf(p->buf, sizeof(p->buf), "%s", path) <
		   (int)sizeof(p->buf) ? 1 : -1;
}

const char *event_path_get(struct event_path *p)
{
	if (!p->state)
		p->state = p->resolve && p->resolve(p->ctx, p->buf, sizeof(p->buf)) >= 0 ?
			   1 : -1;
	return p->state > 0 ? p->buf : NULL;
}

int workers_stuck(struct worker *workers, unsigned int n, uint64_t now_us,
		  uint64_t limit_us, unsigned int *first, uint64_t *for_us)
{
	int stuck = 0;

	for (unsigned int i = 0; i < n; i++) {
		uint64_t since = atomic_load(&workers[i].busy_since_us);

		if (!since || now_us < since || now_us - since <= limit_us)
			continue;
		if (!stuck++) {
			*first = i;
			*for_us = now_us - since;
		}
	}
	return stuck;
}

int worker_open(struct worker *w, char *err, size_t errlen)
{
	w->sw = w->sc->source->ops->worker_open(w->sc->source, err, errlen);
	return w->sw ? 0 : -1;
}

/* An event's path, from its source (readlink of the fd, for both). */
struct path_source {
	const struct source_ops *ops;
	struct source_worker *sw;
	const struct source_event *ev;
};

static int resolve_from_source(void *ctx, char *buf, size_t size)
{
	struct path_source *ps = ctx;

	return ps->ops->path(ps->sw, ps->ev, buf, size);
}

void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct scanner *sc = w->sc;
	const struct source_ops *ops = sc->source->ops;
	char err[512];
	struct source_event ev;
	struct event_path path;
	struct path_source ps = { .ops = ops, .sw = w->sw, .ev = &ev };
	struct opener_ids who;
	uint64_t t0;
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
		event_path_init(&path, resolve_from_source, &ps);
		t0 = scanner_now_us();
		slot_begin(&w->slot, ev.fd, ev.pid, t0);
		atomic_store(&w->busy_since_us, t0);
		who.pid = ev.pid;
		who.have_uids = ev.have_uids;
		who.uid = ev.uid;
		who.euid = ev.euid;
		who.fsuid = ev.fsuid;
		who.written = ev.written;
		who.cgroup = ev.cgroup;
		ev.verdict = scanner_decide_ids(sc, ev.fd, &path, &who,
						&ev.remember);
		atomic_store(&w->busy_since_us, 0);
		slot_end(&w->slot);
		/* the path only if known: the fd is gone after the answer */
		if (ops->answer(w->sw, &ev, err, sizeof(err)))
			log_warning("worker %u: %s (answered %" PRIu64 " ms after reading the event): %s",
				    w->index, path.state > 0 ? path.buf : "(path not resolved)",
				    (scanner_now_us() - t0) / 1000, err);
	}
	return NULL;
}
