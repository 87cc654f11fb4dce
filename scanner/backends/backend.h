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

#include <stdint.h>

#include "util/hash.h"

struct config;

/*
 * SCAN_EXCEEDS_MAX: not scanned to the end, a limit was reached;
 * SCAN_ENCRYPTED: an encrypted archive or document, its content unseen.
 * libclamav and clamd call both clean; they must not be taken for clean.
 */
enum scan_result {
	SCAN_CLEAN, SCAN_INFECTED, SCAN_ERROR, SCAN_EXCEEDS_MAX, SCAN_ENCRYPTED
};

/* What libclamav reports for a file over max_file_size (see worker.c). */
#define SIG_MAX_FILE_SIZE "Heuristics.Limits.Exceeded.MaxFileSize"

/*
 * What a detection named name means: SCAN_EXCEEDS_MAX or SCAN_ENCRYPTED
 * for libclamav's heuristics of a file not fully scanned (which clamd
 * reports as FOUND too), else SCAN_INFECTED.
 */
enum scan_result backend_classify_detection(const char *name);

/* What a reload did (backend_ops.reload). */
enum backend_reload {
	RELOAD_KEPT,		/* the same signatures: verdicts stay */
	RELOAD_LOADED,		/* new signatures loaded here: flush */
	RELOAD_FLUSH,		/* the servers' may have changed: flush */
	RELOAD_FAILED,		/* the old signatures stay in use */
};

/* The signatures in use, for status; known 0: none to tell of. */
struct backend_signatures {
	int known;
	unsigned int count;
	uint64_t version;	/* the databases' version; 0: unknown */
	int64_t built;		/* their build time; 0: unknown */
};

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
	/*
	 * The signatures that scanned, by content, if the backend knows
	 * them (signatures_fingerprinted): a verdict may go into the
	 * verdict store only under these.
	 */
	unsigned char signatures[SHA256_LEN];
	int signatures_fingerprinted;
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
	 * A reload (SIGHUP, which logrotate sends too, SIGUSR2, self_check,
	 * the control socket): keep, load or give up on the signatures, as
	 * the backend can tell; force (SIGUSR2): never RELOAD_KEPT.  msg says
	 * what happened, for the log and the control socket.  Blocks (loads,
	 * asks servers): the reload thread's, never a worker's.
	 */
	enum backend_reload (*reload)(struct backend *b, int force, char *msg,
				      size_t msglen);
	/*
	 * self_check: 1 if the signatures this backend loads itself changed
	 * since they were loaded; NULL: it loads none (a server checks its
	 * own).
	 */
	int (*signatures_changed)(struct backend *b);
	/* For status; may be NULL (nothing known). */
	void (*signatures)(struct backend *b, struct backend_signatures *out);
	/*
	 * The signatures in use, by content (a scan started now would
	 * report them in its answer): 0 and out, or -1 if unknown (the
	 * verdict store is not used); NULL: never known.
	 */
	int (*fingerprint)(struct backend *b, unsigned char out[SHA256_LEN]);
	void (*destroy)(struct backend *b);
};

struct backend {
	const struct backend_ops *ops;
	void *priv;
};

/*
 * libclamav in this process: the signatures of cfg->database loaded now.
 * -1 with a message.
 */
int backend_libclamav_init(struct backend *b, const struct config *cfg, char *err,
			   size_t errlen);

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
