// SPDX-License-Identifier: GPL-2.0
/*
 * Events from a DazukoFS group, through libdazukofs.  Opening the source
 * turns the ignore exemption on (our own reads make no events), before the
 * engine loads; starting it, once the engine is ready, creates the group
 * (or takes over one a crashed run left behind); closing it removes the
 * group.  Each worker holds its own handle on the group device.
 *
 * The group is switched to record format 2 when the module has it: its
 * records carry the opener's uids (no /proc lookup for exclude_uid and the
 * logs) and report the files the module could not open for us, which are
 * settled by the group's open_error_action and take no answer.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <time.h>

#include <dazukofs.h>

#include "log/log.h"
#include "sources/source.h"

struct dz_source {
	int started;		/* the group is ours to remove at close */
	int record_v1_said;	/* the fallback to record format 1 was logged */
	/*
	 * The cgroups the kernel was last told to skip (exclude_cgroups);
	 * excluded_known 0 until written once (a group taken over may have
	 * another list), -1 if the module has no such attribute.
	 */
	uint64_t excluded[DAZUKOFS_EXCLUDE_CGROUPS_MAX];
	size_t nexcluded;
	int excluded_known;
};

struct source_worker {
	struct source *src;
	int backoff_ms;		/* after consecutive failed reads */
	time_t fd_error_said;	/* when the last fd error was logged */
	unsigned long fd_errors_unsaid;	/* since then */
	dazukofs_handle_t h;
	struct dazukofs_access acc;
	struct dazukofs_access_info info;
};

static void group_config(const struct config *cfg,
			 struct dazukofs_group_config *gc)
{
	gc->track = cfg->track;
	gc->timeout_ms = cfg->timeout_ms;
	gc->timeout_action = cfg->timeout_action == VERDICT_DENY ? DAZUKOFS_DENY :
								    DAZUKOFS_ALLOW;
}

static struct source_worker *dz_worker_open(struct source *src, char *err,
					    size_t errlen)
{
	struct source_worker *w = calloc(1, sizeof(*w));

	if (!w) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	w->src = src;
	w->h = dazukofs_open(src->cfg->group, DAZUKOFS_NONBLOCK);
	if (!w->h) {
		snprintf(err, errlen, "%s", dazukofs_strerror());
		free(w);
		return NULL;
	}
	return w;
}

#define BACKOFF_FIRST_MS 10
#define BACKOFF_MAX_MS 1000

/* Wait *ms (then grown) unless stopping: 1 if stop_fd became readable. */
static int backoff_wait(int stop_fd, int *ms)
{
	struct pollfd pfd = { .fd = stop_fd, .events = POLLIN };

	*ms = *ms ? *ms * 2 : BACKOFF_FIRST_MS;
	if (*ms > BACKOFF_MAX_MS)
		*ms = BACKOFF_MAX_MS;
	return poll(&pfd, 1, *ms) > 0;
}

/*
 * A format-2 record of a file the module could not open for us: the
 * group's open_error_action settled it, and it must not be answered.
 * There is no fd, so no path: the opener and the file's dev and inode.
 */
static void fd_error(struct source_worker *w)
{
	const struct dazukofs_access_info *info = &w->info;
	const char *name = strerrorname_np(info->fd_error);
	time_t now = time(NULL);

	atomic_fetch_add(&w->src->stats->errors, 1);
	/* A filesystem the scanner cannot read fails every file: a line a second. */
	if (now == w->fd_error_said) {
		w->fd_errors_unsaid++;
		return;
	}
	if (w->fd_errors_unsaid)
		log_notice("group '%s': %lu more files the module could not open for scanning",
			   w->src->cfg->group, w->fd_errors_unsaid);
	w->fd_error_said = now;
	w->fd_errors_unsaid = 0;
	log_notice("group '%s': event %lu: the module could not open the file for scanning (%s%s%s), opened by pid %d uid %u, dev %u:%u inode %ju; settled by the group's open_error_action",
		   w->src->cfg->group, w->acc.id, name ? name : "",
		   name ? ": " : "", strerror(info->fd_error), (int)w->acc.pid,
		   (unsigned int)info->uid, major(info->dev), minor(info->dev),
		   (uintmax_t)info->ino);
}

static int dz_next(struct source_worker *w, int stop_fd, struct source_event *ev,
		   char *err, size_t errlen)
{
	struct pollfd pfd[2] = {
		{ .fd = dazukofs_get_fd(w->h), .events = POLLIN },
		{ .fd = stop_fd, .events = POLLIN },
	};

	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			snprintf(err, errlen, "poll: %s", strerror(errno));
			return -1;
		}
		if (pfd[1].revents)
			return 0;
		if (pfd[0].revents & (POLLERR | POLLNVAL)) {
			snprintf(err, errlen, "group device of '%s': poll error",
				 w->src->cfg->group);
			return -1;
		}
		if (!(pfd[0].revents & POLLIN))
			continue;
		if (dazukofs_get_access_info(w->h, &w->acc, &w->info)) {
			if (errno == EAGAIN || errno == EINTR)
				continue;	/* another worker took it */
			if (errno == ENODEV || errno == EBADF || errno == ENXIO) {
				snprintf(err, errlen, "%s", dazukofs_strerror());
				return -1;	/* the group or its device is gone */
			}
			/*
			 * One event's trouble (its file could not be opened for
			 * us, no fd or memory left, a bad record): counted and
			 * logged, and the worker goes on, after a pause that
			 * grows while the trouble lasts, so that a kernel that
			 * hands the same event back is not spun on.
			 */
			atomic_fetch_add(&w->src->stats->errors, 1);
			log_warning("group '%s': %s; going on", w->src->cfg->group,
				    dazukofs_strerror());
			if (backoff_wait(stop_fd, &w->backoff_ms))
				return 0;
			continue;
		}
		w->backoff_ms = 0;
		if (w->info.fd_error) {
			fd_error(w);
			continue;	/* settled: no answer */
		}
		ev->fd = w->acc.fd;
		ev->pid = w->acc.pid;
		ev->id = w->acc.id;
		ev->verdict = VERDICT_ALLOW;
		ev->have_uids = w->info.format >= DAZUKOFS_RECORD_V2;
		ev->written = w->info.type == DAZUKOFS_EVENT_CLOSE_WRITE;
		ev->cgroup = w->info.cgroup;
		if (ev->have_uids) {
			ev->uid = w->info.uid;
			ev->euid = w->info.euid;
			ev->fsuid = w->info.fsuid;
		}
		return 1;
	}
}

static int dz_path(struct source_worker *w, const struct source_event *ev,
		   char *buf, size_t size)
{
	(void)ev;
	return dazukofs_get_filename(&w->acc, buf, size) < 0 ? -1 : 0;
}

static int dz_answer(struct source_worker *w, struct source_event *ev, char *err,
		     size_t errlen)
{
	const struct config *cfg = w->src->cfg;
	int rc;

	w->acc.deny = ev->verdict == VERDICT_DENY ? DAZUKOFS_DENY : DAZUKOFS_ALLOW;
	rc = dazukofs_return_access_flags(w->h, &w->acc,
					  ev->remember ? DAZUKOFS_REMEMBER : 0);
	ev->fd = -1;		/* closed in any case */
	if (!rc)
		return 0;
	/*
	 * The event we read is no longer held: with a timeout, it was settled
	 * by it, and our verdict was not the one that counted.
	 */
	if (errno == ENOENT && cfg->timeout_ms)
		snprintf(err, errlen,
			 "verdict %s answered after the group timeout (timeout_ms=%u); the kernel had applied timeout_action=%s to event %lu",
			 verdict_name(ev->verdict), cfg->timeout_ms,
			 verdict_name(cfg->timeout_action), ev->id);
	else
		snprintf(err, errlen, "%s", dazukofs_strerror());
	return -1;
}

/*
 * Signatures changed: the kernel forgets the clean verdicts we asked it to
 * remember.  A module too old to remember any needs nothing.
 */
static void dz_flush(struct source *src)
{
	if (dazukofs_group_flush(src->cfg->group) && errno != EOPNOTSUPP) {
		atomic_fetch_add(&src->stats->errors, 1);
		log_error("%s", dazukofs_strerror());
	}
}

static void dz_worker_close(struct source_worker *w)
{
	if (w->h && dazukofs_close(w->h))
		log_warning("%s", dazukofs_strerror());
	free(w);
}

static void dz_close(struct source *src)
{
	struct dz_source *ds = src->priv;

	/* A group we never started serving is another run's: it stays. */
	if (ds->started) {
		if (dazukofs_group_delete(src->cfg->group))
			log_warning("%s", dazukofs_strerror());
		else
			log_info("group '%s' removed", src->cfg->group);
	}
	dazukofs_ignore_off();
	free(ds);
	src->priv = NULL;
}

/*
 * The group's grace_ms: how long, after we die, files opened meanwhile
 * wait for the next run instead of passing unscanned.  Set on every start,
 * also of a group taken over: the next crash gets this run's setting.  A
 * module too old to know it leaves the group without a grace window; that
 * is worth a warning, not a refusal to scan.
 */
static void dz_set_grace(const struct config *cfg)
{
	if (dazukofs_group_set_grace(cfg->group, cfg->grace_ms)) {
		if (errno == EOPNOTSUPP && !cfg->grace_ms)
			return;
		log_warning("%s; a restart lets files opened meanwhile through unscanned",
			    dazukofs_strerror());
		return;
	}
	if (cfg->grace_ms && !cfg->track)
		log_notice("group '%s': grace_ms=%u has no effect with track=no",
			   cfg->group, cfg->grace_ms);
	else
		log_info("group '%s': grace_ms=%u", cfg->group, cfg->grace_ms);
}

/*
 * The group's events, set on every start: a group taken over may have
 * another run's.  A module too old to know them scans opens only, which
 * is fine only if that is all the configuration asks for.
 */
static int dz_set_events(const struct config *cfg, char *err, size_t errlen)
{
	if (dazukofs_group_set_events(cfg->group, cfg->events)) {
		if (errno == EOPNOTSUPP && cfg->events == DAZUKOFS_EVENT_OPEN)
			return 0;
		snprintf(err, errlen, "%s", dazukofs_strerror());
		return -1;
	}
	log_info("group '%s': events%s%s%s", cfg->group,
		 cfg->events & DAZUKOFS_EVENT_OPEN ? " open" : "",
		 cfg->events & DAZUKOFS_EVENT_EXEC ? " exec" : "",
		 cfg->events & DAZUKOFS_EVENT_CLOSE_WRITE ? " close_write" : "");
	return 0;
}

/*
 * Record format 3, set on every start (a group taken over may have
 * another): the opener's uids and cgroup come with the event, and files
 * the module cannot open for us are reported.  A module without format 3
 * (EINVAL) gives format 2, without formats at all format 1, which the
 * library reads as well: said once, at info level.
 */
static void dz_set_record(struct dz_source *ds, const struct config *cfg)
{
	if (!dazukofs_group_set_record(cfg->group, DAZUKOFS_RECORD_V3)) {
		log_info("group '%s': record format 3", cfg->group);
		return;
	}
	if (errno == EINVAL &&
	    !dazukofs_group_set_record(cfg->group, DAZUKOFS_RECORD_V2)) {
		log_info("group '%s': record format 2 (the dazukofs module has no format 3: the opener's cgroup from /proc)",
			 cfg->group);
		return;
	}
	if (errno == EOPNOTSUPP) {
		if (!ds->record_v1_said)
			log_info("group '%s': the dazukofs module has no record format 2; using format 1 (the opener's uids from /proc)",
				 cfg->group);
		ds->record_v1_said = 1;
		return;
	}
	log_warning("%s; going on with the group's record format",
		    dazukofs_strerror());
}

/*
 * Where systemd puts a unit's cgroup unless its Slice= says otherwise:
 * system.slice, a template's instances in system-PREFIX.slice, and the
 * root (init.scope).  A unit in another slice is skipped by the scanner's
 * own check of /proc/PID/cgroup instead of by the kernel.
 */
static size_t unit_cgroups(const char *unit, char paths[3][300])
{
	const char *at = strchr(unit, '@');
	size_t n = 0;

	snprintf(paths[n++], 300, "/system.slice/%s", unit);
	if (at)
		snprintf(paths[n++], 300, "/system.slice/system-%.*s.slice/%s",
			 (int)(at - unit), unit, unit);
	snprintf(paths[n++], 300, "/%s", unit);
	return n;
}

static void add_id(uint64_t *ids, size_t *n, uint64_t id)
{
	for (size_t i = 0; i < *n; i++)
		if (ids[i] == id)
			return;
	if (*n < DAZUKOFS_EXCLUDE_CGROUPS_MAX)
		ids[(*n)++] = id;
}

/* The ids of the configured exclusions that exist now. */
static size_t exclusion_ids(const struct config *cfg, uint64_t *ids)
{
	size_t n = 0;
	uint64_t id;

	for (size_t i = 0; i < cfg->exclude_cgroups.n; i++)
		if (!dazukofs_cgroup_id(cfg->exclude_cgroups.items[i], &id))
			add_id(ids, &n, id);
	for (size_t i = 0; i < cfg->exclude_units.n; i++) {
		char paths[3][300];
		size_t np = unit_cgroups(cfg->exclude_units.items[i], paths);

		for (size_t k = 0; k < np; k++)
			if (!dazukofs_cgroup_id(paths[k], &id))
				add_id(ids, &n, id);
	}
	return n;
}

/*
 * Tell the kernel which cgroups make no event, if that changed: at start
 * and on every status tick, since an excluded unit gets a new cgroup each
 * time it starts.  Until the kernel knows, the scanner's own check of
 * the opener's cgroup skips its events (opener.c).
 */
static void dz_sync_exclusions(struct dz_source *ds, const struct config *cfg)
{
	uint64_t ids[DAZUKOFS_EXCLUDE_CGROUPS_MAX];
	size_t n;

	if (ds->excluded_known < 0)
		return;
	n = exclusion_ids(cfg, ids);
	if (ds->excluded_known && n == ds->nexcluded &&
	    !memcmp(ids, ds->excluded, n * sizeof(ids[0])))
		return;
	if (dazukofs_group_set_exclude_cgroups(cfg->group, ids, n)) {
		if (errno == EOPNOTSUPP) {
			ds->excluded_known = -1;
			if (cfg->exclude_units.n || cfg->exclude_cgroups.n)
				log_notice("group '%s': the dazukofs module cannot skip cgroups; exclude_unit and exclude_cgroup are checked by the scanner",
					   cfg->group);
			return;
		}
		/* one went away meanwhile: the next tick tries again */
		log_debug("%s", dazukofs_strerror());
		return;
	}
	if (n || ds->nexcluded)
		log_info("group '%s': the kernel skips %zu excluded cgroup(s)", cfg->group, n);
	memcpy(ds->excluded, ids, n * sizeof(ids[0]));
	ds->nexcluded = n;
	ds->excluded_known = 1;
}

static void dz_tick(struct source *src)
{
	struct dz_source *ds = src->priv;

	if (ds->started)
		dz_sync_exclusions(ds, src->cfg);
}

/* Create the group, or take over one a crashed run left behind. */
static int dz_start(struct source *src, char *err, size_t errlen)
{
	const struct config *cfg = src->cfg;
	struct dazukofs_group_config gc;
	struct dazukofs_group_info info;

	group_config(cfg, &gc);
	if (!dazukofs_group_create(cfg->group, &gc)) {
		log_info("group '%s' created (track=%d timeout_ms=%u timeout_action=%s)",
			 cfg->group, gc.track, gc.timeout_ms,
			 verdict_name(cfg->timeout_action));
		goto started;
	}
	if (errno != EEXIST)
		goto fail;
	if (dazukofs_group_info(cfg->group, &info))
		goto fail;
	if (info.config.track == gc.track && info.config.timeout_ms == gc.timeout_ms &&
	    info.config.timeout_action == gc.timeout_action) {
		log_notice("group '%s' exists already; serving it", cfg->group);
		goto started;
	}
	log_notice("group '%s' exists with other settings; recreating it", cfg->group);
	if (dazukofs_group_delete(cfg->group) || dazukofs_group_create(cfg->group, &gc))
		goto fail;
started:
	((struct dz_source *)src->priv)->started = 1;
	dz_set_grace(cfg);
	dz_set_record(src->priv, cfg);
	dz_sync_exclusions(src->priv, cfg);
	return dz_set_events(cfg, err, errlen);
fail:
	snprintf(err, errlen, "%s", dazukofs_strerror());
	return -1;
}

static const struct source_ops dazukofs_ops = {
	.name = "dazukofs",
	.start = dz_start,
	.worker_open = dz_worker_open,
	.next = dz_next,
	.path = dz_path,
	.answer = dz_answer,
	.worker_close = dz_worker_close,
	.flush = dz_flush,
	.tick = dz_tick,
	.close = dz_close,
};

int source_dazukofs_open(struct source *src, const struct config *cfg,
			 char *err, size_t errlen)
{
	struct dz_source *ds = calloc(1, sizeof(*ds));

	if (!ds) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	src->ops = &dazukofs_ops;
	src->cfg = cfg;
	/* Before the engine loads: a database under a dazukofs mount makes no events. */
	if (dazukofs_ignore_on()) {
		snprintf(err, errlen, "%s", dazukofs_strerror());
		free(ds);
		return -1;
	}
	src->priv = ds;
	return 0;
}
