// SPDX-License-Identifier: GPL-2.0
/* ClamAV engines (see engine.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clamav.h>

#include "backends/engine.h"
#include "config/config.h"

/* libclamav's names for the heuristics that engine_scan() turns on. */

int engine_global_init(char *err, size_t errlen)
{
	cl_error_t rc = cl_init(CL_INIT_DEFAULT);

	if (rc != CL_SUCCESS) {
		snprintf(err, errlen, "cl_init: %s", cl_strerror(rc));
		return -1;
	}
	return 0;
}

/*
 * What libclamav loads and how it scans, fixed here: every file format
 * ClamAV knows.  Without the heuristics libclamav calls a file clean when
 * it stopped at a limit or could not decrypt it; heuristic precedence
 * stays off: a signature found in the same file still wins.
 */
#define ENGINE_DB_OPTIONS CL_DB_STDOPT
#define ENGINE_PARSE (~0U)
#define ENGINE_GENERAL CL_SCAN_GENERAL_HEURISTICS
#define ENGINE_HEURISTIC (CL_SCAN_HEURISTIC_EXCEEDS_MAX | CL_SCAN_HEURISTIC_ENCRYPTED_ARCHIVE | \
			  CL_SCAN_HEURISTIC_ENCRYPTED_DOC)

static char identity[192];

static void make_identity(void)
{
	snprintf(identity, sizeof(identity),
		 "libclamav %s, load 0x%x, parse 0x%x, general 0x%x, heuristic 0x%x",
		 cl_retver(), (unsigned int)ENGINE_DB_OPTIONS, (unsigned int)ENGINE_PARSE,
		 (unsigned int)ENGINE_GENERAL, (unsigned int)ENGINE_HEURISTIC);
}

const char *engine_identity(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, make_identity);
	return identity;
}

static int set_limits(struct cl_engine *cl, const struct scan_limits *l,
		      char *err, size_t errlen)
{
	const struct {
		enum cl_engine_field field;
		long long value;
		const char *key;
	} set[] = {
		{ CL_ENGINE_MAX_FILESIZE, (long long)l->max_file_size, "max_file_size" },
		{ CL_ENGINE_MAX_SCANSIZE, (long long)l->max_scan_size, "max_scan_size" },
		{ CL_ENGINE_MAX_RECURSION, l->max_recursion, "max_recursion" },
		{ CL_ENGINE_MAX_FILES, l->max_files, "max_files" },
		{ CL_ENGINE_MAX_SCANTIME, l->max_scan_time_ms, "max_scan_time" },
	};
	cl_error_t rc;

	for (size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++) {
		rc = cl_engine_set_num(cl, set[i].field, set[i].value);
		if (rc != CL_SUCCESS) {
			snprintf(err, errlen, "cannot set libclamav's limit %s to %lld: %s",
				 set[i].key, set[i].value, cl_strerror(rc));
			return -1;
		}
	}
	return 0;
}

struct engine *engine_load(const char *dbdir, int clamav_cache,
			   const struct scan_limits *limits, char *err,
			   size_t errlen)
{
	struct engine *e = calloc(1, sizeof(*e));
	cl_error_t rc;
	long long v;

	if (!e) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	e->cl = cl_engine_new();
	if (!e->cl) {
		snprintf(err, errlen, "cl_engine_new failed");
		free(e);
		return NULL;
	}
	if (!clamav_cache) {
		rc = cl_engine_set_num(e->cl, CL_ENGINE_DISABLE_CACHE, 1);
		if (rc != CL_SUCCESS) {
			snprintf(err, errlen, "cannot disable libclamav's cache: %s",
				 cl_strerror(rc));
			goto fail;
		}
	}
	if (set_limits(e->cl, limits, err, errlen))
		goto fail;
	rc = cl_load(dbdir, e->cl, &e->signatures, ENGINE_DB_OPTIONS);
	if (rc != CL_SUCCESS) {
		snprintf(err, errlen, "cl_load %s: %s", dbdir, cl_strerror(rc));
		goto fail;
	}
	if (!e->signatures) {
		snprintf(err, errlen, "cl_load %s: no signatures found", dbdir);
		goto fail;
	}
	rc = cl_engine_compile(e->cl);
	if (rc != CL_SUCCESS) {
		snprintf(err, errlen, "cl_engine_compile (%s): %s", dbdir,
			 cl_strerror(rc));
		goto fail;
	}
	/* only for status: a database without a header has none */
	v = cl_engine_get_num(e->cl, CL_ENGINE_DB_VERSION, NULL);
	e->db_version = v > 0 ? (unsigned long long)v : 0;
	v = cl_engine_get_num(e->cl, CL_ENGINE_DB_TIME, NULL);
	e->db_time = v > 0 ? v : 0;
	atomic_init(&e->refs, 1);
	return e;
fail:
	cl_engine_free(e->cl);
	free(e);
	return NULL;
}

void engine_put(struct engine *e)
{
	if (e && atomic_fetch_sub(&e->refs, 1) == 1) {
		cl_engine_free(e->cl);
		free(e);
	}
}

void engine_holder_init(struct engine_holder *h)
{
	pthread_mutex_init(&h->lock, NULL);
	h->current = NULL;
	h->generations = 0;
}

void engine_holder_swap(struct engine_holder *h, struct engine *e)
{
	struct engine *old;

	pthread_mutex_lock(&h->lock);
	old = h->current;
	e->generation = ++h->generations;
	h->current = e;
	pthread_mutex_unlock(&h->lock);
	engine_put(old);
}

struct engine *engine_holder_get(struct engine_holder *h)
{
	struct engine *e;

	pthread_mutex_lock(&h->lock);
	e = h->current;
	if (e)
		atomic_fetch_add(&e->refs, 1);
	pthread_mutex_unlock(&h->lock);
	return e;
}

void engine_holder_destroy(struct engine_holder *h)
{
	engine_put(h->current);
	h->current = NULL;
	pthread_mutex_destroy(&h->lock);
}

enum scan_result engine_scan(struct engine *e, int fd, const char *name,
			     char *sig, size_t siglen, unsigned long *scanned)
{
	struct cl_scan_options opts;
	const char *virname = NULL;
	cl_error_t rc;

	memset(&opts, 0, sizeof(opts));
	opts.parse = ENGINE_PARSE;
	opts.general = ENGINE_GENERAL;
	opts.heuristic = ENGINE_HEURISTIC;
	*scanned = 0;
	rc = cl_scandesc(fd, name, &virname, scanned, e->cl, &opts);
	switch (rc) {
	case CL_CLEAN:
		return SCAN_CLEAN;
	case CL_VIRUS:
		/* a detection without a name is still a detection */
		snprintf(sig, siglen, "%s", virname ? virname : "(unnamed)");
		return virname ? backend_classify_detection(virname) : SCAN_INFECTED;
	/* the limit errors, should libclamav return them instead of alerting */
	case CL_ETIMEOUT:
	case CL_EMAXREC:
	case CL_EMAXSIZE:
	case CL_EMAXFILES:
		snprintf(sig, siglen, "%s", cl_strerror(rc));
		return SCAN_EXCEEDS_MAX;
	default:
		snprintf(sig, siglen, "%s", cl_strerror(rc));
		return SCAN_ERROR;
	}
}
