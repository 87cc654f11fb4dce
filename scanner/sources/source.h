/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event sources: where open events come from and where verdicts go.  Two
 * implementations: DazukoFS groups (source_dazukofs.c) and fanotify
 * permission events (source_fanotify.c).  The scanning core (worker.c)
 * only sees this interface.
 */
#ifndef SCANNER_SOURCE_H
#define SCANNER_SOURCE_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "config/config.h"
#include "log/stats.h"

struct source;
struct source_worker;

struct source_event {
	int fd;			/* read-only fd of the opened file */
	pid_t pid;		/* the opener */
	enum verdict verdict;	/* set before source_answer() */
	int remember;		/* the verdict holds for every later open of
				 * the unchanged file (kernel-cached sources) */
	/*
	 * have_uids: the source says who opened the file (a dazukofs record
	 * of format 2), as uid, euid and fsuid when it opened; else 0 and
	 * the scanner reads them from /proc/PID/status.
	 */
	int have_uids;
	uid_t uid, euid, fsuid;
	int written;		/* a close after a write (dazukofs), not an open */
	/* the opener's cgroup v2 id (a dazukofs record of format 3), 0: unknown */
	uint64_t cgroup;
	unsigned long id;	/* the source's own */
	void *priv;		/* the source's own */
};

struct source_ops {
	const char *name;
	/*
	 * After the engine is loaded: start taking events (create or take
	 * over the group, set the marks).  Until then nothing waits on a
	 * scanner that cannot answer yet.  -1 with a message in err.
	 */
	int (*start)(struct source *src, char *err, size_t errlen);
	/* Per worker thread: its handle (a device open, say). */
	struct source_worker *(*worker_open)(struct source *src, char *err,
					     size_t errlen);
	/*
	 * Wait for the next event or for stop_fd to be readable.
	 * 1: an event, 0: stop, -1: error (message in err).
	 */
	int (*next)(struct source_worker *w, int stop_fd, struct source_event *ev,
		    char *err, size_t errlen);
	/* The file's path, for filters and logs; -1 if unknown. */
	int (*path)(struct source_worker *w, const struct source_event *ev,
		    char *buf, size_t size);
	/* Give ev->verdict and close ev->fd. -1 with a message on failure. */
	int (*answer)(struct source_worker *w, struct source_event *ev, char *err,
		      size_t errlen);
	void (*worker_close)(struct source_worker *w);
	/*
	 * NULL, or the source remembers verdicts in the kernel (answers with
	 * remember set): forget them all, signatures changed.
	 */
	void (*flush)(struct source *src);
	/* NULL, or on every status tick, from the main thread, once started. */
	void (*tick)(struct source *src);
	/* Remove what source_*_open() set up (the group, the marks). */
	void (*close)(struct source *src);
};

struct source {
	const struct source_ops *ops;
	const struct config *cfg;
	/*
	 * Set by the caller before opening: what the source tells the core
	 * (with core as their first argument).  file_written: a file was
	 * written, its remembered verdict is stale.  waits_on: 1 if pid's
	 * opens must be answered at once, like this process's (a local
	 * clamd the scans wait for); called for every event, from the
	 * reader, once started.  Either may be NULL.
	 */
	void *core;
	void (*file_written)(void *core, dev_t dev, ino_t ino);
	int (*waits_on)(void *core, pid_t pid);
	struct stats *stats;		/* errors outside a worker */
	int stop_fd;			/* eventfd: readable once stopping */
	/* Events holding an fd at once, at most (fdlimit_events()). */
	unsigned int max_events;
	void *priv;
};

/*
 * Prepare the source cfg names, before the engine loads: nothing may wait
 * on this process yet (for dazukofs, its own reads become exempt).
 * ops->start() then starts the events.  -1 with a message in err.
 */
int source_dazukofs_open(struct source *src, const struct config *cfg,
			 char *err, size_t errlen);
int source_fanotify_open(struct source *src, const struct config *cfg,
			 char *err, size_t errlen);

#endif
