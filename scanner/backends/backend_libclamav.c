// SPDX-License-Identifier: GPL-2.0
/*
 * The in-process backend: libclamav engines (engine.h), the current one
 * scanning while a reload compiles the next.  It owns the signatures'
 * reload and the database directory's fingerprint: a reload of a
 * directory that did not change since the engine in use began to load
 * loads nothing (db_fingerprint.h), unless forced.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/engine.h"
#include "config/config.h"
#include "log/log.h"
#include "util/db_fingerprint.h"

struct lc_backend {
	const struct config *cfg;
	struct engine_holder engines;
	/*
	 * The directory as it was when the engine in use began to load;
	 * written by the reload thread, read by self_check only while no
	 * reload runs.
	 */
	struct db_fingerprint loaded;
	int have_loaded;
};

static enum scan_result lc_scan(struct backend *b, int fd, const struct stat *st,
				const char *name, struct scan_answer *a)
{
	struct lc_backend *lc = b->priv;
	struct engine *e = engine_holder_get(&lc->engines);
	unsigned long scanned;
	enum scan_result res;

	(void)st;
	a->server = NULL;
	if (!e) {
		snprintf(a->sig, sizeof(a->sig), "no signatures loaded");
		return SCAN_ERROR;
	}
	res = engine_scan(e, fd, name, a->sig, sizeof(a->sig), &scanned);
	a->signatures_fingerprinted = e->fingerprinted;
	if (e->fingerprinted)
		memcpy(a->signatures, e->fingerprint, sizeof(a->signatures));
	engine_put(e);
	return res;
}

static void lc_status(struct backend *b, char *buf, size_t len)
{
	(void)b;
	if (len)
		buf[0] = 0;
}

/*
 * The verdict store's name for the signatures of db, by content: 0 and
 * out, or -1 (logged: the store is then not used with this engine).
 */
static int fingerprint_signatures(const char *db, unsigned char out[SHA256_LEN])
{
	char err[512];

	if (!db_content_digest(db, engine_identity(), out, err, sizeof(err)))
		return 0;
	log_warning("verdict store: cannot fingerprint the signatures: %s", err);
	return -1;
}

/* Load the database into a new engine and put it in use; -1 with a message. */
static int lc_load(struct lc_backend *lc, unsigned int *count, char *err, size_t errlen)
{
	const struct config *cfg = lc->cfg;
	unsigned char before[SHA256_LEN];
	struct db_fingerprint fp;
	int have_fp = 1, have_before;
	struct engine *e;

	/* before the load: a change made during it shows next time */
	if (db_fingerprint_take(cfg->database, &fp))
		have_fp = 0;
	have_before = cfg->store && !fingerprint_signatures(cfg->database, before);
	e = engine_load(cfg->database, cfg->clamav_cache, &cfg->limits, err, errlen);
	if (!e)
		return -1;
	/*
	 * The same content before and after the load is what the engine
	 * loaded; a file replaced meanwhile leaves it unfingerprinted.
	 */
	if (have_before && !fingerprint_signatures(cfg->database, e->fingerprint)) {
		e->fingerprinted = !memcmp(before, e->fingerprint, sizeof(before));
		if (!e->fingerprinted)
			log_warning("verdict store: the signatures in %s changed while they loaded; not used until the next reload",
				    cfg->database);
	}
	*count = e->signatures;
	/* The swap first: what is scanned after the caller's flush is new. */
	engine_holder_swap(&lc->engines, e);
	lc->loaded = fp;
	lc->have_loaded = have_fp;
	return 0;
}

static int lc_signatures_changed(struct backend *b)
{
	struct lc_backend *lc = b->priv;

	return !lc->have_loaded || db_changed(lc->cfg->database, &lc->loaded);
}

static enum backend_reload lc_reload(struct backend *b, int force, char *msg, size_t msglen)
{
	struct lc_backend *lc = b->priv;
	const char *db = lc->cfg->database;
	char err[512];
	unsigned int n;

	/*
	 * Nothing changed since the engine in use was loaded: it stays, and
	 * so do the verdicts found with it (a reload would only flush them).
	 * SIGUSR2 reloads all the same: the admin knows of a change that the
	 * fingerprint may not show.
	 */
	if (!force && !lc_signatures_changed(b)) {
		snprintf(msg, msglen,
			 "reload: the signatures in %s did not change; engine and verdicts kept",
			 db);
		return RELOAD_KEPT;
	}
	log_notice("reloading signatures from %s%s", db, force ? " (SIGUSR2)" : "");
	if (lc_load(lc, &n, err, sizeof(err))) {
		snprintf(msg, msglen, "reload failed, keeping the old signatures: %s", err);
		return RELOAD_FAILED;
	}
	snprintf(msg, msglen, "reloaded: %u signatures from %s", n, db);
	return RELOAD_LOADED;
}

static void lc_signatures(struct backend *b, struct backend_signatures *out)
{
	struct lc_backend *lc = b->priv;
	struct engine *e = engine_holder_get(&lc->engines);

	memset(out, 0, sizeof(*out));
	if (!e)
		return;
	out->known = 1;
	out->count = e->signatures;
	out->version = e->db_version;
	out->built = e->db_time;
	engine_put(e);
}

static int lc_fingerprint(struct backend *b, unsigned char out[SHA256_LEN])
{
	struct lc_backend *lc = b->priv;
	struct engine *e = engine_holder_get(&lc->engines);
	int known = e && e->fingerprinted;

	if (known)
		memcpy(out, e->fingerprint, SHA256_LEN);
	if (e)
		engine_put(e);
	return known ? 0 : -1;
}

static void lc_destroy(struct backend *b)
{
	struct lc_backend *lc = b->priv;

	engine_holder_destroy(&lc->engines);
	free(lc);
}

static const struct backend_ops libclamav_ops;

struct engine_holder *backend_libclamav_engines(struct backend *b)
{
	return b->ops == &libclamav_ops ? &((struct lc_backend *)b->priv)->engines : NULL;
}

static const struct backend_ops libclamav_ops = {
	.name = "libclamav",
	.scan = lc_scan,
	.status = lc_status,
	.reload = lc_reload,
	.signatures_changed = lc_signatures_changed,
	.signatures = lc_signatures,
	.fingerprint = lc_fingerprint,
	.destroy = lc_destroy,
};

int backend_libclamav_init(struct backend *b, const struct config *cfg, char *err,
			   size_t errlen)
{
	struct lc_backend *lc = calloc(1, sizeof(*lc));
	unsigned int n;

	if (!lc) {
		snprintf(err, errlen, "backend libclamav: out of memory");
		return -1;
	}
	lc->cfg = cfg;
	engine_holder_init(&lc->engines);
	if (engine_global_init(err, errlen) || lc_load(lc, &n, err, errlen)) {
		engine_holder_destroy(&lc->engines);
		free(lc);
		return -1;
	}
	log_info("%u signatures loaded from %s", n, cfg->database);
	b->ops = &libclamav_ops;
	b->priv = lc;
	return 0;
}
