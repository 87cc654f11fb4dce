// SPDX-License-Identifier: GPL-2.0
/*
 * One event's verdict: decide() finds what the file is (skipped, cached,
 * clean, a detection, not fully scanned, an error) and returns it as a
 * struct decision; decision_report() then hands it to every observer at
 * once: the counters, the log, the live status and the actions of a
 * detection.  Deciding never logs a result, and reporting decides nothing.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/filter.h"
#include "core/opener.h"
#include "core/worker.h"
#include "log/log.h"
#include "store/content_key.h"
#include "store/verdict_store.h"
#include "util/cacheable.h"

/* What a decision found: what its observers are told. */
enum finding {
	FOUND_SKIPPED,		/* allowed unscanned: filter, exclusion, not a file */
	FOUND_CACHED,		/* clean by the verdict cache */
	FOUND_STORED,		/* clean by the verdict store */
	FOUND_CLEAN,		/* clean by a scan */
	FOUND_INFECTED,		/* a signature matched */
	FOUND_PARTIAL,		/* not fully scanned: a limit, or encrypted */
	FOUND_ERROR,		/* fstat or the scan failed: on_error decides */
};

struct decision {
	enum finding found;
	enum scan_result partial;	/* FOUND_PARTIAL: EXCEEDS_MAX or ENCRYPTED */
	const char *error_what;		/* FOUND_ERROR: "fstat" or "scan error" */
	struct scan_answer ans;		/* sig: signature, heuristic or why */
};

/* For messages: the path, resolved now if need be. */
static const char *event_path_name(struct event_path *p)
{
	const char *name = event_path_get(p);

	return name ? name : "(unknown path)";
}

/*
 * Whether path, as this process resolves it, is the event's file.  The
 * opener may live in another mount namespace, where the fd's path names
 * something else here (or an excluded directory was bind-mounted over):
 * a path filter may only let a file go unscanned by a path that is its.
 */
static int path_names_file(const char *p, const struct stat *st)
{
	struct stat pst;

	return !stat(p, &pst) && pst.st_dev == st->st_dev && pst.st_ino == st->st_ino;
}

/* on_error's verdict as applied: report only turns a deny into an allow. */
static const char *error_verdict_name(const struct config *cfg)
{
	if (cfg->on_error == VERDICT_DENY && !cfg->prevention)
		return "allow (report only)";
	return verdict_name(cfg->on_error);
}

/*
 * For the log: the opener's real uid (the event's, else from /proc), -1
 * if it cannot be told.
 */
static long long opener_uid_or_unknown(const struct opener_ids *who)
{
	uid_t uid;

	return opener_ids_uid(who, &uid) ? -1 : (long long)uid;
}

/*
 * A source that remembers verdicts in the kernel gets no event for a
 * re-open of an unchanged file: our own cache would only be a second,
 * weaker copy (it serves the fanotify source).
 */
static bool kernel_remembers(const struct scanner *sc)
{
	return sc->source && sc->source->ops->flush;
}

void scanner_forget_verdicts(struct scanner *sc)
{
	cache_clear(&sc->cache);
	if (kernel_remembers(sc))
		sc->source->ops->flush(sc->source);
}

void scanner_file_written(void *core, dev_t dev, ino_t ino)
{
	struct scanner *sc = core;

	cache_forget(&sc->cache, (uint64_t)dev, (uint64_t)ino);
}

int scanner_waits_on(void *core, pid_t pid)
{
	struct scanner *sc = core;

	return backend_waits_on(&sc->backend, pid);
}

/* The backend's scan, counted and timed; its answer and finding in d. */
static void scan(struct scanner *sc, int fd, const struct stat *st,
		 struct event_path *path, struct decision *d)
{
	uint64_t t0;
	enum scan_result res;

	stats_scan_begin(&sc->stats);
	t0 = scanner_now_us();
	res = sc->backend.ops->scan(&sc->backend, fd, st, event_path_name(path), &d->ans);
	stats_scan_end(&sc->stats);
	/*
	 * scanned last: a reader that takes the counters in struct order
	 * (stats_snapshot) and sees this scan counted sees its bytes and
	 * latency too.
	 */
	stats_add_latency(&sc->stats, scanner_now_us() - t0);
	atomic_fetch_add(&sc->stats.bytes, (uint64_t)st->st_size);
	atomic_fetch_add(&sc->stats.scanned, 1);
	switch (res) {
	case SCAN_CLEAN:
		d->found = FOUND_CLEAN;
		break;
	case SCAN_INFECTED:
		d->found = FOUND_INFECTED;
		break;
	case SCAN_EXCEEDS_MAX:
	case SCAN_ENCRYPTED:
		d->found = FOUND_PARTIAL;
		d->partial = res;
		break;
	case SCAN_ERROR:
	default:
		d->found = FOUND_ERROR;
		d->error_what = "scan error";
		break;
	}
}

/* A file's key in the verdict store, if it may be stored or served. */
struct store_probe {
	bool keyed;
	struct store_key key;
	struct store_context ctx;
};

/*
 * The verdict store, asked before a scan, for a file that cannot change
 * unseen (the verdict cache's rules, util/cacheable.h: the caller
 * checked them before the digest).  It gets a key only if it is still
 * the file st describes, with no writer, once it is digested: the key is
 * then of the bytes a scan would read.  True if the store answered (d
 * says what).
 */
static bool store_ask(struct scanner *sc, int fd, const struct stat *st,
		      struct event_path *path, struct store_probe *p, struct decision *d)
{
	const struct backend_ops *ops = sc->backend.ops;
	struct store_verdict v;
	uint64_t hashed = 0;
	bool verity;
	char msg[256];
	int rc;

	if (!ops->fingerprint || ops->fingerprint(&sc->backend, p->ctx.signatures))
		return false;
	memcpy(p->ctx.settings, sc->store_settings, sizeof(p->ctx.settings));
	rc = content_key(fd, st, &p->key, &hashed, &verity);
	atomic_fetch_add(&verdict_store_counters(sc->store)->bytes_hashed, hashed);
	if (rc || !cacheable_after_scan(fd, st))
		return false;
	p->keyed = true;
	rc = verdict_store_lookup(sc->store, &p->key, &p->ctx, &v, msg, sizeof(msg));
	if (rc < 0)
		log_warning("verdict store: %s", msg);
	if (rc != 1)
		return false;
	if (v.result == STORED_CLEAN) {
		d->found = FOUND_STORED;
		log_file_debug(event_path_name(path), "%s: clean (verdict store%s)",
			       event_path_name(path), verity ? ", fs-verity" : "");
		return true;
	}
	d->found = FOUND_INFECTED;
	snprintf(d->ans.sig, sizeof(d->ans.sig), "%s", v.signature);
	return true;
}

/*
 * A scan's complete verdict into the store: of the key's bytes if the
 * file did not change since it was digested, with the signatures that
 * scanned (a reload between the digest and the scan is no harm: the
 * answer names its own).  Not with prevention = no: a trial run in report
 * mode leaves nothing behind that outlives it.
 */
static void store_keep(struct scanner *sc, bool unchanged, struct store_probe *p,
		       const struct decision *d)
{
	struct store_verdict v = { .result = STORED_CLEAN };

	if (!p->keyed || !unchanged || !sc->cfg->prevention || d->ans.unremembered ||
	    !d->ans.signatures_fingerprinted ||
	    (d->found != FOUND_CLEAN && d->found != FOUND_INFECTED))
		return;
	memcpy(p->ctx.signatures, d->ans.signatures, sizeof(p->ctx.signatures));
	if (d->found == FOUND_INFECTED) {
		v.result = STORED_INFECTED;
		snprintf(v.signature, sizeof(v.signature), "%s", d->ans.sig);
	}
	verdict_store_add(sc->store, &p->key, &p->ctx, &v);
}

/*
 * What the file is.  Remembering a clean verdict (our cache, the
 * kernel's through *remember) is part of deciding; telling anyone is not.
 */
static void decide(struct scanner *sc, int fd, struct event_path *path,
		   const struct opener_ids *who, int *remember, struct decision *d)
{
	const struct config *cfg = sc->cfg;
	struct store_probe probe = { .keyed = false };
	bool use_cache, stable = false, cacheable, unchanged = false;
	struct timespec clock_before;
	struct cache_key key;
	struct stat st;
	uint64_t gen;

	cacheable_clock(&clock_before);
	if (fstat(fd, &st)) {
		/* before the path is resolved, which may set errno */
		snprintf(d->ans.sig, sizeof(d->ans.sig), "%s", strerror(errno));
		d->found = FOUND_ERROR;
		d->error_what = "fstat";
		return;
	}
	d->found = FOUND_SKIPPED;
	if (cfg->include.n || cfg->exclude.n) {
		const char *p = event_path_get(path);

		/* a file whose path cannot be known is scanned */
		if (p && !filter_should_scan(&cfg->include, &cfg->exclude, p)) {
			if (path_names_file(p, &st)) {
				atomic_fetch_add(&sc->stats.skipped_filter, 1);
				log_file_debug(p, "%s: not scanned (path filter)", p);
				return;
			}
			log_file_debug(p, "%s: path filter ignored: the path names another file here",
				       p);
		}
	}
	if (!S_ISREG(st.st_mode))
		return;
	/*
	 * Before the cache and the scan, and never into the cache: the
	 * exclusion is this process's, the file is no cleaner for it.
	 */
	if (opener_exclusions(cfg)) {
		char why[PATH_MAX + 16];

		if (opener_excluded_ids(cfg, who, why, sizeof(why))) {
			atomic_fetch_add(&sc->stats.skipped_excluded, 1);
			if (log_enabled(LOG_LVL_DEBUG))
				log_file_debug(event_path_name(path),
					       "%s: not scanned (opened by pid %d, excluded by %s)",
					       event_path_name(path), (int)who->pid, why);
			return;
		}
	}
	/* what libclamav would report, without handing it the whole file */
	if (cfg->limits.max_file_size &&
	    (uint64_t)st.st_size > cfg->limits.max_file_size) {
		log_file_debug(event_path_name(path),
			       "%s: not scanned (%jd bytes > max_file_size %" PRIu64 ")",
			       event_path_name(path), (intmax_t)st.st_size,
			       cfg->limits.max_file_size);
		d->found = FOUND_PARTIAL;
		d->partial = SCAN_EXCEEDS_MAX;
		snprintf(d->ans.sig, sizeof(d->ans.sig), "%s", SIG_MAX_FILE_SIZE);
		return;
	}
	use_cache = cfg->cache_size && !kernel_remembers(sc);
	if (use_cache) {
		cache_key_from_stat(&key, &st);
		if (cache_lookup(&sc->cache, &key)) {
			if (cacheable_no_writer(fd)) {
				d->found = FOUND_CACHED;
				return;
			}
			log_file_debug(event_path_name(path),
				       "%s: cached, but open for writing: scanning",
				       event_path_name(path));
		}
	}
	/* once for the cache and the store alike: a lease taken and dropped */
	if (use_cache || sc->store)
		stable = cacheable_before_scan(fd, &st, &clock_before);
	cacheable = use_cache && stable;

	gen = cache_generation(&sc->cache);
	if (stable && sc->store && store_ask(sc, fd, &st, path, &probe, d)) {
		/* as a scan's clean answer, remembered and cached alike */
		if (d->found != FOUND_STORED)
			return;
		/* store_ask() checked it after the digest, the last read */
		unchanged = true;
	} else {
		scan(sc, fd, &st, path, d);
		/* one check after the scan, for the store and the cache */
		if (probe.keyed || (cacheable && d->found == FOUND_CLEAN))
			unchanged = cacheable_after_scan(fd, &st);
		if (sc->store)
			store_keep(sc, unchanged, &probe, d);
		if (d->found != FOUND_CLEAN)
			return;
	}
	/* only a complete clean answer is remembered */
	if (d->ans.unremembered)
		return;
	if (cacheable && unchanged)
		cache_insert(&sc->cache, &key, gen);
	/*
	 * Not if new signatures came during the scan; the kernel checks
	 * that the file did not change.
	 */
	if (remember && cfg->cache_size && gen == cache_generation(&sc->cache))
		*remember = 1;
}

/*
 * A deny, counted; or, with prevention = no (report only), an allow
 * counted as reported.  *action is for the log: a detection's line says
 * what happened to the open.
 */
static enum verdict deny(struct scanner *sc, const char **action)
{
	if (sc->cfg->prevention) {
		atomic_fetch_add(&sc->stats.denied, 1);
		*action = "denied";
		return VERDICT_DENY;
	}
	atomic_fetch_add(&sc->stats.reported, 1);
	*action = "allowed-report-only";
	return VERDICT_ALLOW;
}

/*
 * A detection to its observers: the log, the live status, and the
 * actions (quarantine, virus_event).  fd -1: nothing to quarantine (a
 * file only refused by a limit or for being encrypted is no proven
 * malware, and could be any size).
 */
/* Who made an access, as the log names them: comm, cgroup, workload. */
struct opener_view {
	char comm[64];
	char cgroup[4096];
	struct workload workload;
	struct log_opener lo;
};

static void view_opener(struct scanner *sc, const struct opener_ids *who,
			struct opener_view *v)
{
	scanner_read_comm(who->pid, v->comm, sizeof(v->comm));
	v->lo = (struct log_opener){
		.pid = who->pid, .uid = opener_uid_or_unknown(who), .comm = v->comm,
		.written = who->written,
	};
	if (!cgroup_names_lookup(sc->cgroups, who->cgroup, who->pid, v->cgroup,
				 sizeof(v->cgroup), &v->workload)) {
		v->lo.cgroup = v->cgroup;
		v->lo.workload = &v->workload;
	}
}

static void detected(struct scanner *sc, int fd, struct event_path *path,
		     const struct opener_ids *who, const char *sig,
		     const char *action, const char *server)
{
	pid_t pid = who->pid;
	struct opener_view v;

	view_opener(sc, who, &v);
	workload_tally_add(&sc->tally, v.lo.workload);
	log_detection(event_path_name(path), &v.lo, sig, action, server);
	live_detection(&sc->live, event_path_name(path), pid, v.comm, sig, action);
	if (sc->detection)
		detection_actions_queue(sc->detection, fd, event_path_name(path), sig, pid, action);
}

/*
 * The one dispatch of a decision: counters, log, live status, actions.
 * Returns the verdict: on_error's for an error, alert_exceeds_max's and
 * alert_encrypted's for a partial scan, prevention's for a detection.
 */
static enum verdict decision_report(struct scanner *sc, const struct decision *d, int fd,
				    struct event_path *path, const struct opener_ids *who)
{
	const struct config *cfg = sc->cfg;
	const struct scan_answer *a = &d->ans;
	const char *action;
	enum verdict v;

	switch (d->found) {
	case FOUND_SKIPPED:
		return VERDICT_ALLOW;
	case FOUND_CACHED:
		atomic_fetch_add(&sc->stats.cache_hits, 1);
		log_file_debug(event_path_name(path), "%s: clean (cached)",
			       event_path_name(path));
		return VERDICT_ALLOW;
	case FOUND_STORED:
		return VERDICT_ALLOW;
	case FOUND_CLEAN:
		if (a->unremembered)
			log_file_debug(event_path_name(path), "%s: clean, not remembered: %s",
				       event_path_name(path), a->unremembered);
		if (log_clean_enabled()) {
			struct opener_view v;

			/* clamd's LogClean: a scan's result, not a cache hit */
			view_opener(sc, who, &v);
			log_clean(event_path_name(path), &v.lo, a->server);
		} else {
			log_file_debug(event_path_name(path), "%s: clean%s%s",
				       event_path_name(path), a->server ? " by clamd " : "",
				       a->server ? a->server : "");
		}
		return VERDICT_ALLOW;
	case FOUND_INFECTED:
		atomic_fetch_add(&sc->stats.infected, 1);
		v = deny(sc, &action);
		detected(sc, fd, path, who, a->sig, action, a->server);
		return v;
	case FOUND_PARTIAL: {
		/* never clean, so never cached: the alert settings decide */
		int encrypted = d->partial == SCAN_ENCRYPTED;
		int alert = encrypted ? cfg->alert_encrypted : cfg->alert_exceeds_max;

		atomic_fetch_add(encrypted ? &sc->stats.encrypted : &sc->stats.exceeds_max, 1);
		if (alert) {
			v = deny(sc, &action);
			detected(sc, -1, path, who, a->sig, action, a->server);
			return v;
		}
		log_file_notice(event_path_name(path),
				"%s: not fully scanned (%s%s%s); allowed by %s = no",
				event_path_name(path), a->sig, a->server ? " by clamd " : "",
				a->server ? a->server : "",
				encrypted ? "alert_encrypted" : "alert_exceeds_max");
		return VERDICT_ALLOW;
	}
	case FOUND_ERROR:
	default:
		if (log_enabled(LOG_LVL_WARNING))
			log_file_event(LOG_LVL_WARNING, "error", event_path_name(path),
				       "%s: %s: %s; verdict %s", event_path_name(path),
				       d->error_what, a->sig, error_verdict_name(cfg));
		atomic_fetch_add(&sc->stats.errors, 1);
		if (cfg->on_error == VERDICT_DENY)
			return deny(sc, &action);
		return VERDICT_ALLOW;
	}
}

enum verdict scanner_decide(struct scanner *sc, int fd, struct event_path *path,
			    pid_t pid, int *remember)
{
	const struct opener_ids who = { .pid = pid };

	return scanner_decide_ids(sc, fd, path, &who, remember);
}

enum verdict scanner_decide_ids(struct scanner *sc, int fd,
				struct event_path *path,
				const struct opener_ids *who, int *remember)
{
	struct decision d = {
		.ans = { .sig = "", .server = NULL, .unremembered = NULL },
	};

	if (remember)
		*remember = 0;
	atomic_fetch_add(&sc->stats.events, 1);
	decide(sc, fd, path, who, remember, &d);
	return decision_report(sc, &d, fd, path, who);
}
