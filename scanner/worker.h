/* SPDX-License-Identifier: GPL-2.0 */
/* The scanning core: what workers share, and one event's verdict. */
#ifndef SCANNER_WORKER_H
#define SCANNER_WORKER_H

#include <pthread.h>
#include <sys/types.h>

#include "cache.h"
#include "config.h"
#include "engine.h"
#include "source.h"
#include "stats.h"

struct scanner {
	const struct config *cfg;
	struct source *source;
	struct engine_holder engines;
	struct cache cache;
	struct stats stats;
	int stop_fd;			/* eventfd: readable once stopping */
	int failed_fd;			/* eventfd: a worker gave up */
};

struct worker {
	struct scanner *sc;
	unsigned int index;
	pthread_t thread;
	struct source_worker *sw;
};

/*
 * The verdict for an opened file fd at path (NULL if unknown), opened by
 * pid; logs a detection.  The heart of the scanner, source-independent.
 */
enum verdict scanner_decide(struct scanner *sc, int fd, const char *path,
			    pid_t pid);

/* Open the worker's source handle; -1 with a message. */
int worker_open(struct worker *w, char *err, size_t errlen);
void *worker_main(void *arg);

#endif
