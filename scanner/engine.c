// SPDX-License-Identifier: GPL-2.0
/* ClamAV engines (see engine.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clamav.h>

#include "engine.h"

int engine_global_init(char *err, size_t errlen)
{
	cl_error_t rc = cl_init(CL_INIT_DEFAULT);

	if (rc != CL_SUCCESS) {
		snprintf(err, errlen, "cl_init: %s", cl_strerror(rc));
		return -1;
	}
	return 0;
}

struct engine *engine_load(const char *dbdir, int clamav_cache, char *err,
			   size_t errlen)
{
	struct engine *e = calloc(1, sizeof(*e));
	cl_error_t rc;

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
	rc = cl_load(dbdir, e->cl, &e->signatures, CL_DB_STDOPT);
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
	opts.parse = ~0U;	/* every file format ClamAV knows */
	opts.general = CL_SCAN_GENERAL_HEURISTICS;
	*scanned = 0;
	rc = cl_scandesc(fd, name, &virname, scanned, e->cl, &opts);
	switch (rc) {
	case CL_CLEAN:
		return SCAN_CLEAN;
	case CL_VIRUS:
		snprintf(sig, siglen, "%s", virname ? virname : "(unnamed)");
		return SCAN_INFECTED;
	default:
		snprintf(sig, siglen, "%s", cl_strerror(rc));
		return SCAN_ERROR;
	}
}
