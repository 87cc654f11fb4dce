/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who scans a file: libclamav in this process (backend_libclamav.c, the
 * default) or clamd servers (backend_clamd.c).  The scanning core
 * (worker.c) asks the backend for one file's scan_result and keeps
 * everything around it the same for both: filters, size limit, verdict
 * cache, the limits policy, on_error, counters and logs.
 */
#ifndef SCANNER_BACKEND_H
#define SCANNER_BACKEND_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "backends/engine.h"

struct config;

struct scan_answer {
	/* SCAN_INFECTED: the signature; EXCEEDS_MAX, ENCRYPTED: the heuristic; ERROR: why */
	char sig[256];
	/* who scanned, for the logs: a clamd server's name; NULL for libclamav */
	const char *server;
	/*
	 * SCAN_CLEAN that proves too little to be remembered, and why: the
	 * file is past what the server scans whole, or its signatures are
	 * changing.  NULL: remember as usual.
	 */
	const char *unremembered;
};

struct backend;

struct backend_ops {
	const char *name;
	/*
	 * Scan fd (st: its fstat, name: for messages); thread-safe.  Only
	 * SCAN_CLEAN is clean: whatever goes wrong is SCAN_ERROR with why in
	 * a->sig.
	 */
	enum scan_result (*scan)(struct backend *b, int fd, const struct stat *st,
				 const char *name, struct scan_answer *a);
	/* Log the backend's own statistics (per server); may be NULL. */
	void (*log_stats)(struct backend *b);
	/* A few words for the status line ("" if none). */
	void (*status)(struct backend *b, char *buf, size_t len);
	/*
	 * 1 if pid (a tgid) is a live local process that this backend's
	 * scans wait for (a local clamd), else 0; may be NULL (none).  Such
	 * a process's own opens on a watched filesystem must be answered
	 * without a scan: a scan would wait for it while it waits for the
	 * scan.  Thread-safe and cheap for any other pid: the fanotify
	 * reader asks for every event.
	 */
	int (*waits_on)(struct backend *b, pid_t pid);
	/*
	 * A reload (SIGHUP, which logrotate sends too): 1 if the scanning
	 * side surely has the signatures it had at the last check, so the
	 * verdict cache may stay; 0 if they changed or it cannot tell.  May
	 * be NULL (cannot tell).  Blocks (asks servers); not for workers.
	 */
	int (*signatures_unchanged)(struct backend *b);
	void (*destroy)(struct backend *b);
};

struct backend {
	const struct backend_ops *ops;
	void *priv;
};

/* libclamav in this process, with the engines of h (owned by the caller). */
void backend_libclamav_init(struct backend *b, struct engine_holder *h);

/*
 * clamd servers from cfg (kept by reference); -1 with a message.  A
 * thread asks the servers for their VERSION every few seconds and calls
 * signatures_changed(ctx) when one has loaded other signatures.  The
 * local clamd's pid is learnt at each connection (waits_on).
 */
int backend_clamd_init(struct backend *b, const struct config *cfg,
		       void (*signatures_changed)(void *ctx), void *ctx,
		       char *err, size_t errlen);

/* See backend_ops.waits_on; 0 for no backend (yet) or none to wait on. */
static inline int backend_waits_on(struct backend *b, pid_t pid)
{
	return b && b->ops && b->ops->waits_on && b->ops->waits_on(b, pid);
}

static inline void backend_destroy(struct backend *b)
{
	if (b->ops && b->ops->destroy)
		b->ops->destroy(b);
	b->ops = NULL;
	b->priv = NULL;
}

#endif
