/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ClamAV engines, refcounted.  The holder keeps the current engine; a
 * worker takes a reference for one scan, so a reload can compile a new
 * engine while the old one scans, then swap, and the old one is freed by
 * whoever drops its last reference.
 */
#ifndef SCANNER_ENGINE_H
#define SCANNER_ENGINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "backends/backend.h"
#include "util/hash.h"

struct cl_engine;
struct scan_limits;

struct engine {
	struct cl_engine *cl;
	atomic_uint refs;
	unsigned int signatures;
	unsigned long generation;
	/* the databases' version and build time (daily.cvd's); 0: unknown */
	unsigned long long db_version;
	long long db_time;
	/*
	 * The signatures loaded, by content (db_content_digest()), for the
	 * verdict store; fingerprinted 0: unknown (the store is not used).
	 */
	unsigned char fingerprint[SHA256_LEN];
	int fingerprinted;
};

struct engine_holder {
	pthread_mutex_t lock;
	struct engine *current;
	unsigned long generations;
};

/*
 * libclamav's version and the options every engine loads and scans with:
 * a verdict found by another library or other options is no answer for
 * this engine (the verdict store's fingerprint includes it).
 */
const char *engine_identity(void);

/* Once per process, before any engine. -1 with a message on failure. */
int engine_global_init(char *err, size_t errlen);

/*
 * Load and compile the signatures of dbdir into a new engine (1 ref), with
 * the scan limits.  clamav_cache: keep libclamav's cache of clean files'
 * hashes (a file whose content was found clean is then hashed, not
 * scanned, again).
 */
struct engine *engine_load(const char *dbdir, int clamav_cache,
			   const struct scan_limits *limits, char *err,
			   size_t errlen);
void engine_put(struct engine *e);

void engine_holder_init(struct engine_holder *h);
/* Install e as current (taking over its reference); drops the old one. */
void engine_holder_swap(struct engine_holder *h, struct engine *e);
/* The current engine, referenced (engine_put() when done); NULL if none. */
struct engine *engine_holder_get(struct engine_holder *h);
void engine_holder_destroy(struct engine_holder *h);
/* The engines of a backend made by backend_libclamav_init() (its tests'). */
struct engine_holder *backend_libclamav_engines(struct backend *b);

/*
 * Scan an open file.  SCAN_INFECTED: the signature name in sig;
 * SCAN_EXCEEDS_MAX, SCAN_ENCRYPTED: libclamav's heuristic name (which
 * limit, which format) in sig; SCAN_ERROR: the reason in sig.
 */
enum scan_result engine_scan(struct engine *e, int fd, const char *name,
			     char *sig, size_t siglen, unsigned long *scanned);

#endif
