/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scanner's live state, for `dazuko-clamscan status`: what each worker
 * is deciding now, who causes the most events (hot sources), the last
 * detections.  The scan path only writes its own worker's slot, under
 * that slot's mutex, which nothing but a status request ever contends on.
 */
#ifndef SCANNER_LIVE_STATUS_H
#define SCANNER_LIVE_STATUS_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The last detections kept (a ring). */
#define LIVE_DETECTIONS 16
/* Hot sources tracked per worker (space-saving top-K: bounded memory). */
#define LIVE_HOT_PER_WORKER 16
/* Hot sources shown by status. */
#define LIVE_HOT_SHOWN 10

struct hot_entry {
	pid_t pid;		/* 0: free */
	uint64_t events;
};

struct worker_slot {
	pthread_mutex_t lock;
	int fd;			/* the event being decided; -1: idle */
	pid_t pid;
	uint64_t since_us;	/* scanner_now_us() when it began */
	struct hot_entry hot[LIVE_HOT_PER_WORKER];
};

/* What a status request saw of one worker. */
struct slot_view {
	int busy;
	pid_t pid;
	uint64_t since_us;
	char path[PATH_MAX];	/* "" if it could not be read */
	struct hot_entry hot[LIVE_HOT_PER_WORKER];
};

void slot_init(struct worker_slot *s);
void slot_destroy(struct worker_slot *s);
/* The worker begins deciding fd, opened by pid: counted as pid's event. */
void slot_begin(struct worker_slot *s, int fd, pid_t pid, uint64_t now_us);
/* Decided; before the fd is closed (a status request reads its path). */
void slot_end(struct worker_slot *s);
void slot_read(struct worker_slot *s, struct slot_view *v);

/*
 * The hot sources of n workers' views summed by pid, most events first,
 * at most max into out; how many.
 */
size_t hot_merge(const struct slot_view *views, size_t n, struct hot_entry *out,
		 size_t max);

struct detection {
	int64_t time;		/* wall clock, seconds */
	pid_t pid;
	char comm[64];
	char sig[256];
	char action[32];
	char path[PATH_MAX];
};

struct live {
	int64_t started;	/* wall clock, seconds */
	uint64_t started_us;	/* scanner_now_us() */
	atomic_int_fast64_t loaded_at;	/* signatures last loaded; 0: unknown */
	pthread_mutex_t lock;	/* the ring; taken per detection only */
	struct detection ring[LIVE_DETECTIONS];
	uint64_t total;		/* detections ever; ring[total % N] is next */
};

void live_init(struct live *l, uint64_t now_us);
void live_destroy(struct live *l);
void live_detection(struct live *l, const char *path, pid_t pid, const char *comm,
		    const char *sig, const char *action);
/* The kept detections, newest first, into out[LIVE_DETECTIONS]; how many. */
size_t live_detections(struct live *l, struct detection *out, uint64_t *total);

#endif
