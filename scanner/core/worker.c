// SPDX-License-Identifier: GPL-2.0
/*
 * Workers: each takes an event from its source, decides (filters, size,
 * cache, scan with a referenced engine), answers and closes the fd.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/filter.h"
#include "core/opener.h"
#include "core/worker.h"
#include "log/log.h"
#include "util/stable.h"

void scanner_read_comm(pid_t pid, char *buf, size_t size)
{
	char p[64];
	ssize_t n;
	int fd;

	snprintf(buf, size, "?");
	snprintf(p, sizeof(p), "/proc/%d/comm", (int)pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0) {
		snprintf(buf, size, "?");
		return;
	}
	buf[n] = 0;
	if (buf[n - 1] == '\n')
		buf[n - 1] = 0;
}

void event_path_init(struct event_path *p,
		     int (*resolve)(void *ctx, char *buf, size_t size), void *ctx)
{
	p->resolve = resolve;
	p->ctx = ctx;
	p->state = 0;
}

void event_path_known(struct event_path *p, const char *path)
{
	p->resolve = NULL;
	p->ctx = NULL;
	p->state = path && snprintf(p->buf, sizeof(p->buf), "%s", path) <
		   (int)sizeof(p->buf) ? 1 : -1;
}

const char *event_path_get(struct event_path *p)
{
	if (!p->state)
		p->state = p->resolve && p->resolve(p->ctx, p->buf, sizeof(p->buf)) >= 0 ?
			   1 : -1;
	return p->state > 0 ? p->buf : NULL;
}

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
 * A detection: logged, and its quarantine and virus_event queued.  fd -1:
 * nothing to quarantine (a file only refused by a limit or for being
 * encrypted is no proven malware, and could be any size).
 */
static void detected(struct scanner *sc, int fd, struct event_path *path,
		     const struct opener_ids *who, const char *sig,
		     const char *action, const char *server)
{
	pid_t pid = who->pid;
	char comm[64];
	struct log_opener lo = {
		.pid = pid, .uid = opener_uid_or_unknown(who), .comm = comm,
		.written = who->written,
	};

	scanner_read_comm(pid, comm, sizeof(comm));
	log_detection(event_path_name(path), &lo, sig, action, server);
	live_detection(&sc->live, event_path_name(path), pid, comm, sig, action);
	if (sc->virusevent)
		virusevent_queue(sc->virusevent, fd, event_path_name(path), sig, pid, action);
}

/*
 * A deny, counted; or, with prevention = no (report only), an allow
 * counted as reported.  *action is for the log: a detection's line says
 * what happened to the open.  Nothing here touches the verdict cache: a
 * reported file is no more clean than a denied one.
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

/* on_error's verdict, counted. */
static enum verdict error_verdict(struct scanner *sc)
{
	const char *action;

	atomic_fetch_add(&sc->stats.errors, 1);
	if (sc->cfg->on_error == VERDICT_DENY)
		return deny(sc, &action);
	return VERDICT_ALLOW;
}

/*
 * A file not fully scanned (res SCAN_EXCEEDS_MAX or SCAN_ENCRYPTED, what:
 * libclamav's name of the limit or format): never clean, so never cached;
 * alert_exceeds_max or alert_encrypted decides.
 */
static enum verdict partial_verdict(struct scanner *sc, enum scan_result res,
				    const char *what, const char *server,
				    struct event_path *path,
				    const struct opener_ids *who)
{
	int encrypted = res == SCAN_ENCRYPTED;
	int alert = encrypted ? sc->cfg->alert_encrypted : sc->cfg->alert_exceeds_max;
	const char *action;
	enum verdict v;

	atomic_fetch_add(encrypted ? &sc->stats.encrypted : &sc->stats.exceeds_max, 1);
	if (alert) {
		v = deny(sc, &action);
		detected(sc, -1, path, who, what, action, server);
		return v;
	}
	log_file_notice(event_path_name(path), "%s: not fully scanned (%s%s%s); allowed by %s = no",
		   event_path_name(path), what, server ? " by clamd " : "",
		   server ? server : "",
		   encrypted ? "alert_encrypted" : "alert_exceeds_max");
	return VERDICT_ALLOW;
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
	pid_t pid = who->pid;
	const struct config *cfg = sc->cfg;
	struct scan_answer ans = { .sig = "", .server = NULL, .unremembered = NULL };
	struct timespec clock_before;
	struct cache_key key;
	enum scan_result res;
	int cacheable = 0;
	uint64_t gen, t0;
	struct stat st;

	if (remember)
		*remember = 0;
	atomic_fetch_add(&sc->stats.events, 1);
	stable_clock(&clock_before);
	if (fstat(fd, &st)) {
		/* before the path is resolved, which may set errno */
		const char *why = strerror(errno);

		if (log_enabled(LOG_LVL_WARNING))
			log_file_event(LOG_LVL_WARNING, "error", event_path_name(path),
				       "%s: fstat: %s; verdict %s",
				  event_path_name(path), why, error_verdict_name(cfg));
		return error_verdict(sc);
	}
	if (cfg->include.n || cfg->exclude.n) {
		const char *p = event_path_get(path);

		/* a file whose path cannot be known is scanned */
		if (p && !filter_should_scan(&cfg->include, &cfg->exclude, p)) {
			if (path_names_file(p, &st)) {
				atomic_fetch_add(&sc->stats.skipped_filter, 1);
				log_file_debug(p, "%s: not scanned (path filter)", p);
				return VERDICT_ALLOW;
			}
			log_file_debug(p, "%s: path filter ignored: the path names another file here",
				  p);
		}
	}
	if (!S_ISREG(st.st_mode))
		return VERDICT_ALLOW;
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
					  event_path_name(path), (int)pid, why);
			return VERDICT_ALLOW;
		}
	}
	/* what libclamav would report, without handing it the whole file */
	if (cfg->limits.max_file_size &&
	    (uint64_t)st.st_size > cfg->limits.max_file_size) {
		log_file_debug(event_path_name(path),
			       "%s: not scanned (%jd bytes > max_file_size %" PRIu64 ")",
			  event_path_name(path), (intmax_t)st.st_size,
			  cfg->limits.max_file_size);
		return partial_verdict(sc, SCAN_EXCEEDS_MAX, SIG_MAX_FILE_SIZE,
				       NULL, path, who);
	}
	if (cfg->cache_size && !kernel_remembers(sc)) {
		cache_key_from_stat(&key, &st);
		if (cache_lookup(&sc->cache, &key)) {
			if (stable_no_writer(fd)) {
				atomic_fetch_add(&sc->stats.cache_hits, 1);
				log_file_debug(event_path_name(path), "%s: clean (cached)",
					       event_path_name(path));
				return VERDICT_ALLOW;
			}
			log_file_debug(event_path_name(path), "%s: cached, but open for writing: scanning",
				  event_path_name(path));
		}
		cacheable = stable_before_scan(fd, &st, &clock_before);
	}

	gen = cache_generation(&sc->cache);
	stats_scan_begin(&sc->stats);
	t0 = scanner_now_us();
	res = sc->backend.ops->scan(&sc->backend, fd, &st, event_path_name(path), &ans);
	stats_scan_end(&sc->stats);
	/*
	 * scanned last: a reader that takes the counters in struct order
	 * (stats_snapshot) and sees this scan counted sees its bytes and
	 * latency too.
	 */
	stats_add_latency(&sc->stats, scanner_now_us() - t0);
	atomic_fetch_add(&sc->stats.bytes, (uint64_t)st.st_size);
	atomic_fetch_add(&sc->stats.scanned, 1);

	switch (res) {
	case SCAN_CLEAN:
		if (ans.unremembered) {
			cacheable = 0;
			remember = NULL;
			log_file_debug(event_path_name(path), "%s: clean, not remembered: %s",
				       event_path_name(path),
				  ans.unremembered);
		}
		/* only a complete clean answer is remembered */
		if (cacheable && stable_after_scan(fd, &st))
			cache_insert(&sc->cache, &key, gen);
		/*
		 * Not if new signatures came during the scan; the kernel
		 * checks that the file did not change.
		 */
		if (remember && cfg->cache_size &&
		    gen == cache_generation(&sc->cache))
			*remember = 1;
		if (log_clean_enabled()) {
			char comm[64];
			struct log_opener lo = {
				.pid = pid, .uid = opener_uid_or_unknown(who),
				.comm = comm, .written = who->written,
			};

			/* clamd's LogClean: a scan's result, not a cache hit */
			scanner_read_comm(pid, comm, sizeof(comm));
			log_clean(event_path_name(path), &lo, ans.server);
		} else {
			log_file_debug(event_path_name(path), "%s: clean%s%s", event_path_name(path),
				  ans.server ? " by clamd " : "", ans.server ? ans.server : "");
		}
		return VERDICT_ALLOW;
	case SCAN_INFECTED: {
		const char *action;
		enum verdict v;

		atomic_fetch_add(&sc->stats.infected, 1);
		v = deny(sc, &action);
		detected(sc, fd, path, who, ans.sig, action, ans.server);
		return v;
	}
	case SCAN_EXCEEDS_MAX:
	case SCAN_ENCRYPTED:
		return partial_verdict(sc, res, ans.sig, ans.server, path, who);
	case SCAN_ERROR:
	default:
		if (log_enabled(LOG_LVL_WARNING))
			log_file_event(LOG_LVL_WARNING, "error", event_path_name(path),
				       "%s: scan error: %s; verdict %s",
				  event_path_name(path), ans.sig, error_verdict_name(cfg));
		return error_verdict(sc);
	}
}

int workers_stuck(struct worker *workers, unsigned int n, uint64_t now_us,
		  uint64_t limit_us, unsigned int *first, uint64_t *for_us)
{
	int stuck = 0;

	for (unsigned int i = 0; i < n; i++) {
		uint64_t since = atomic_load(&workers[i].busy_since_us);

		if (!since || now_us < since || now_us - since <= limit_us)
			continue;
		if (!stuck++) {
			*first = i;
			*for_us = now_us - since;
		}
	}
	return stuck;
}

int worker_open(struct worker *w, char *err, size_t errlen)
{
	w->sw = w->sc->source->ops->worker_open(w->sc->source, err, errlen);
	return w->sw ? 0 : -1;
}

/* An event's path, from its source (readlink of the fd, for both). */
struct path_source {
	const struct source_ops *ops;
	struct source_worker *sw;
	const struct source_event *ev;
};

static int resolve_from_source(void *ctx, char *buf, size_t size)
{
	struct path_source *ps = ctx;

	return ps->ops->path(ps->sw, ps->ev, buf, size);
}

void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct scanner *sc = w->sc;
	const struct source_ops *ops = sc->source->ops;
	char err[512];
	struct source_event ev;
	struct event_path path;
	struct path_source ps = { .ops = ops, .sw = w->sw, .ev = &ev };
	struct opener_ids who;
	uint64_t t0;
	int rc;

	for (;;) {
		memset(&ev, 0, sizeof(ev));
		rc = ops->next(w->sw, sc->stop_fd, &ev, err, sizeof(err));
		if (rc == 0)
			break;
		if (rc < 0) {
			log_error("worker %u: %s; stopping", w->index, err);
			eventfd_write(sc->failed_fd, 1);
			break;
		}
		event_path_init(&path, resolve_from_source, &ps);
		t0 = scanner_now_us();
		slot_begin(&w->slot, ev.fd, ev.pid, t0);
		atomic_store(&w->busy_since_us, t0);
		who.pid = ev.pid;
		who.have_uids = ev.have_uids;
		who.uid = ev.uid;
		who.euid = ev.euid;
		who.fsuid = ev.fsuid;
		who.written = ev.written;
		ev.verdict = scanner_decide_ids(sc, ev.fd, &path, &who,
						&ev.remember);
		atomic_store(&w->busy_since_us, 0);
		slot_end(&w->slot);
		/* the path only if known: the fd is gone after the answer */
		if (ops->answer(w->sw, &ev, err, sizeof(err)))
			log_warning("worker %u: %s (answered %" PRIu64 " ms after reading the event): %s",
				    w->index, path.state > 0 ? path.buf : "(path not resolved)",
				    (scanner_now_us() - t0) / 1000, err);
	}
	return NULL;
}
