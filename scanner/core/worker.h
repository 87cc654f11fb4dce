/* SPDX-License-Identifier: GPL-2.0 */
/* The scanning core: what workers share, and one event's verdict. */
#ifndef SCANNER_WORKER_H
#define SCANNER_WORKER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "actions/detection.h"
#include "backends/backend.h"
#include "config/config.h"
#include "core/cache.h"
#include "core/cgroup_names.h"
#include "core/opener.h"
#include "log/live_status.h"
#include "log/stats.h"
#include "log/workload_tally.h"
#include "sources/source.h"
#include "util/clock.h"

struct scanner {
	const struct config *cfg;
	struct source *source;
	struct backend backend;		/* who scans */
	struct cache cache;
	struct stats stats;
	struct detection_actions *detection;	/* NULL: neither quarantine nor virus_event */
	struct live live;		/* for status: detections, start time */
	struct cgroup_names *cgroups;	/* the log's workloads; NULL: uncached */
	struct workload_tally tally;	/* detections by workload, for metrics */
	/* the verdict store, NULL: off; with the settings' fingerprint */
	struct verdict_store *store;
	unsigned char store_settings[SHA256_LEN];
	int stop_fd;			/* eventfd: readable once stopping */
	int failed_fd;			/* eventfd: a worker gave up */
};

struct worker {
	struct scanner *sc;
	unsigned int index;
	pthread_t thread;
	struct source_worker *sw;
	/* scanner_now_us() when its current decision began; 0: idle */
	atomic_uint_fast64_t busy_since_us;
	struct worker_slot slot;	/* for status: its event, hot sources */
};

/* pid's command name, or "?" if it is gone. */
void scanner_read_comm(pid_t pid, char *buf, size_t size);

/*
 * How many of the n workers have been deciding one event for longer than
 * limit_us; the first such one's index and time in *first and *for_us.
 * The watchdog is pinged only while this is 0: a worker stuck in one scan
 * means a restart by systemd, not a scanner that looks alive.
 */
int workers_stuck(struct worker *workers, unsigned int n, uint64_t now_us,
		  uint64_t limit_us, unsigned int *first, uint64_t *for_us);

/*
 * The path of an event's file, resolved on first use: resolving costs a
 * system call per event, and an event answered from the verdict cache with
 * no include/exclude filters and nothing to log never needs it.
 */
struct event_path {
	/* fills buf; < 0 if the path cannot be known */
	int (*resolve)(void *ctx, char *buf, size_t size);
	void *ctx;
	int state;			/* 0: not yet, 1: in buf, -1: unknown */
	char buf[PATH_MAX + 1];
};

void event_path_init(struct event_path *p,
		     int (*resolve)(void *ctx, char *buf, size_t size), void *ctx);
/* A path known already (NULL: unknown). */
void event_path_known(struct event_path *p, const char *path);
/* The path, or NULL if it cannot be known. */
const char *event_path_get(struct event_path *p);

/*
 * The verdict for an opened file fd at path, opened by pid; logs a
 * detection.  The heart of the scanner, source-independent.  *remember
 * (if not NULL) is set to 1 when the verdict is a complete clean scan by
 * the signatures still loaded, which holds for every opener of the file
 * as it is: a source with a kernel cache may ask the kernel to keep it.
 */
enum verdict scanner_decide(struct scanner *sc, int fd, struct event_path *path,
			    pid_t pid, int *remember);
/* The same, with the opener's uids if the event had them (no /proc then). */
enum verdict scanner_decide_ids(struct scanner *sc, int fd,
				struct event_path *path,
				const struct opener_ids *who, int *remember);

/* New signatures: forget every clean verdict, ours and the kernel's. */
void scanner_forget_verdicts(struct scanner *sc);
/*
 * What a source tells the core (struct source's callbacks, core a struct
 * scanner): a written file's remembered verdict goes; pid is one the
 * backend waits for.
 */
void scanner_file_written(void *core, dev_t dev, ino_t ino);
int scanner_waits_on(void *core, pid_t pid);

/* Open the worker's source handle; -1 with a message. */
int worker_open(struct worker *w, char *err, size_t errlen);
void *worker_main(void *arg);

#endif
