// SPDX-License-Identifier: GPL-2.0
/* The scanner's live state (see live_status.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dazukofs.h>

#include "log/live_status.h"

void slot_init(struct worker_slot *s)
{
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
	s->fd = -1;
}

void slot_destroy(struct worker_slot *s)
{
	pthread_mutex_destroy(&s->lock);
}

/*
 * Space-saving (Metwally et al.): a pid not in the table takes the entry
 * with the fewest events, and its count on top, so that a newcomer that
 * stays busy can rise to the top; a count is at most that much too high.
 */
static void hot_count(struct hot_entry *hot, pid_t pid)
{
	struct hot_entry *min = &hot[0];

	for (size_t i = 0; i < LIVE_HOT_PER_WORKER; i++) {
		if (hot[i].pid == pid) {
			hot[i].events++;
			return;
		}
		if (hot[i].events < min->events)
			min = &hot[i];
	}
	min->pid = pid;
	min->events++;
}

void slot_begin(struct worker_slot *s, int fd, pid_t pid, uint64_t now_us)
{
	pthread_mutex_lock(&s->lock);
	s->fd = fd;
	s->pid = pid;
	s->since_us = now_us;
	hot_count(s->hot, pid);
	pthread_mutex_unlock(&s->lock);
}

void slot_end(struct worker_slot *s)
{
	pthread_mutex_lock(&s->lock);
	s->fd = -1;
	pthread_mutex_unlock(&s->lock);
}

void slot_read(struct worker_slot *s, struct slot_view *v)
{
	memset(v, 0, sizeof(*v));
	pthread_mutex_lock(&s->lock);
	/* under the lock: the worker closes the fd only after slot_end() */
	if (s->fd >= 0) {
		v->busy = 1;
		v->pid = s->pid;
		v->since_us = s->since_us;
		dazukofs_fd_path(s->fd, v->path, sizeof(v->path));
	}
	memcpy(v->hot, s->hot, sizeof(v->hot));
	pthread_mutex_unlock(&s->lock);
}

static int by_pid(const void *a, const void *b)
{
	const struct hot_entry *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int by_events_desc(const void *a, const void *b)
{
	const struct hot_entry *x = a, *y = b;

	if (x->events != y->events)
		return x->events < y->events ? 1 : -1;
	return by_pid(a, b);
}

size_t hot_merge(const struct slot_view *views, size_t n, struct hot_entry *out,
		 size_t max)
{
	struct hot_entry *all = calloc(n ? n * LIVE_HOT_PER_WORKER : 1, sizeof(*all));
	size_t k = 0, m = 0;

	if (!all)
		return 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < LIVE_HOT_PER_WORKER; j++)
			if (views[i].hot[j].events)
				all[k++] = views[i].hot[j];
	qsort(all, k, sizeof(*all), by_pid);
	for (size_t i = 0; i < k; i++) {
		if (m && all[m - 1].pid == all[i].pid)
			all[m - 1].events += all[i].events;
		else
			all[m++] = all[i];
	}
	qsort(all, m, sizeof(*all), by_events_desc);
	if (m > max)
		m = max;
	memcpy(out, all, m * sizeof(*out));
	free(all);
	return m;
}

void live_init(struct live *l, uint64_t now_us)
{
	memset(l, 0, sizeof(*l));
	pthread_mutex_init(&l->lock, NULL);
	l->started = (int64_t)time(NULL);
	l->started_us = now_us;
	atomic_init(&l->loaded_at, 0);
}

void live_destroy(struct live *l)
{
	pthread_mutex_destroy(&l->lock);
}

void live_detection(struct live *l, const char *path, pid_t pid, const char *comm,
		    const char *sig, const char *action)
{
	struct detection *d;

	pthread_mutex_lock(&l->lock);
	d = &l->ring[l->total % LIVE_DETECTIONS];
	d->time = (int64_t)time(NULL);
	d->pid = pid;
	snprintf(d->comm, sizeof(d->comm), "%s", comm);
	snprintf(d->sig, sizeof(d->sig), "%s", sig);
	snprintf(d->action, sizeof(d->action), "%s", action);
	snprintf(d->path, sizeof(d->path), "%s", path);
	l->total++;
	pthread_mutex_unlock(&l->lock);
}

size_t live_detections(struct live *l, struct detection *out, uint64_t *total)
{
	size_t n;

	pthread_mutex_lock(&l->lock);
	n = l->total < LIVE_DETECTIONS ? (size_t)l->total : LIVE_DETECTIONS;
	for (size_t i = 0; i < n; i++)
		out[i] = l->ring[(l->total - 1 - i) % LIVE_DETECTIONS];
	*total = l->total;
	pthread_mutex_unlock(&l->lock);
	return n;
}
