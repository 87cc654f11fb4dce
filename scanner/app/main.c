// SPDX-License-Identifier: GPL-2.0
/*
 * dazuko-clamscan: an on-access virus scanner for DazukoFS (or fanotify)
 * built on libclamav.  main() sets up the scanner (config, engine, cache,
 * event source, workers), then runs the control loop: signals through a
 * signalfd (SIGTERM/SIGINT stop, SIGHUP/SIGUSR2 reload, SIGUSR1 logs statistics),
 * a timerfd for the status line and the systemd watchdog, eventfds
 * from the reload thread and from failing workers, and the reload
 * requests of the control socket (control.c; it answers status itself).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "actions/detection.h"
#include "actions/quarantine.h"
#include "app/clamdconf.h"
#include "app/control_client.h"
#include "app/store_command.h"
#include "backends/backend.h"
#include "config/config.h"
#include "control/control.h"
#include "control/status.h"
#include "core/worker.h"
#include "log/counters.h"
#include "log/log.h"
#include "log/metrics.h"
#include "sources/source.h"
#include "store/fingerprint.h"
#include "store/verdict_store.h"
#include "util/fdlimit.h"
#include "util/jsonb.h"

struct reloader {
	struct scanner *sc;
	pthread_t thread;
	int running, pending;
	int done_fd;		/* eventfd: the reload thread finished */
	/*
	 * The reload's outcome (written by its thread before done_fd), for
	 * the control socket's reload requests: those that came before this
	 * reload started are answered when it ends (waiting), those that
	 * came during it by the next one (queued).
	 */
	int failed;
	char msg[640];
	int waiting[CONTROL_RELOAD_WAITERS], queued[CONTROL_RELOAD_WAITERS];
	unsigned int nwaiting, nqueued;
	atomic_int busy;		/* running, for status */
	/*
	 * SIGUSR2: the next reload loads the signatures (backend libclamav)
	 * or empties the verdict cache (clamd) even if nothing seems to have
	 * changed.  Set by the control loop, taken by the reload thread.
	 */
	atomic_int force_flush;
};

struct app {
	struct config cfg;
	struct scanner sc;
	struct source source;
	struct worker *workers;
	unsigned int nworkers, started;
	struct reloader reload;
	int sig_fd, timer_fd;
	int self_check_fd;	/* timerfd of self_check, -1: none */
	uint64_t watchdog_usec;
	struct metrics metrics;	/* metrics_file's writer */
	struct control *control;	/* NULL: no control socket */
	int reload_pipe[2];	/* control thread -> loop: fds asking for a reload */
};

/*
 * Every counter as of now: the workers', the verdict cache's, and what was
 * done on detections (the last two only where there is something to
 * count).  log/counters.h names them.
 */
static void current_counters(struct app *app, struct counter_values *c)
{
	struct stats_snapshot s;
	struct cache_stats cs;

	counters_clear(c);
	stats_snapshot(&app->sc.stats, &s);
	counters_from_stats(c, &s);
	cache_get_stats(&app->sc.cache, &cs);
	counters_set(c, COUNTER_CACHE_ENTRIES, cs.entries);
	counters_set(c, COUNTER_CACHE_LOOKUPS_HIT, cs.hits);
	counters_set(c, COUNTER_CACHE_LOOKUPS_MISSED, cs.misses);
	counters_set(c, COUNTER_CACHE_EVICTIONS, cs.evictions);
	if (app->sc.store) {
		struct store_counters *sc = verdict_store_counters(app->sc.store);
		long long entries = verdict_store_entries(app->sc.store);

		counters_set(c, COUNTER_STORE_ENTRIES, entries < 0 ? 0 : (uint64_t)entries);
		counters_set(c, COUNTER_STORE_HITS, atomic_load(&sc->hits));
		counters_set(c, COUNTER_STORE_MISSES, atomic_load(&sc->misses));
		counters_set(c, COUNTER_STORE_STORES, atomic_load(&sc->stores));
		counters_set(c, COUNTER_STORE_EVICTIONS, atomic_load(&sc->evictions));
		counters_set(c, COUNTER_STORE_DROPPED, atomic_load(&sc->dropped));
		counters_set(c, COUNTER_STORE_HASHED_BYTES, atomic_load(&sc->bytes_hashed));
	}
	if (app->sc.detection) {
		uint64_t run, dropped, timeouts, quarantined, quarantine_failed, skipped;

		detection_actions_counts(app->sc.detection, &run, &dropped, &timeouts,
					 &quarantined, &quarantine_failed, &skipped);
		counters_set(c, COUNTER_VIRUS_EVENT_RUN, run);
		counters_set(c, COUNTER_VIRUS_EVENT_DROPPED, dropped);
		counters_set(c, COUNTER_VIRUS_EVENT_TIMEOUTS, timeouts);
		counters_set(c, COUNTER_QUARANTINED, quarantined);
		counters_set(c, COUNTER_QUARANTINE_FAILED, quarantine_failed);
		counters_set(c, COUNTER_QUARANTINE_SKIPPED, skipped);
	}
}

/*
 * The verdict store, if it is on and can be used: with a backend that
 * knows its signatures by content (libclamav; a clamd's are its own).
 * A store that cannot be opened leaves the scanner scanning, without it.
 */
static void open_store(struct app *app)
{
	const struct config *cfg = &app->cfg;
	char msg[1024];

	if (!cfg->store)
		return;
	if (!app->sc.backend.ops->fingerprint) {
		log_notice("verdict store: off with backend %s (its signatures cannot be fingerprinted)",
			   app->sc.backend.ops->name);
		return;
	}
	if (settings_fingerprint(cfg, app->sc.store_settings)) {
		log_warning("verdict store: off: cannot fingerprint the settings");
		return;
	}
	if (verdict_store_open(&app->sc.store, cfg->store_path, cfg->store_size, msg,
			       sizeof(msg))) {
		log_warning("verdict store: off: %s", msg);
		app->sc.store = NULL;
		return;
	}
	if (msg[0])
		log_warning("verdict store: %s", msg);
	log_info("verdict store: %s, %lld entries, store_size=%" PRIu64, cfg->store_path,
		 verdict_store_entries(app->sc.store), cfg->store_size);
}

/* The verdicts the workers found since the last tick, in one write. */
static void flush_store(struct app *app)
{
	char msg[512];

	if (app->sc.store && verdict_store_flush(app->sc.store, msg, sizeof(msg)))
		log_warning("verdict store: %s", msg);
}

/* The statistics line: every counter, on one line (scripts read its last occurrence). */
#define STATS_LINE_MAX 1536

static void notify_status(struct app *app, const char *state)
{
	struct counter_values c;
	char line[STATS_LINE_MAX], backend[128];

	current_counters(app, &c);
	counters_line(&c, line, sizeof(line));
	app->sc.backend.ops->status(&app->sc.backend, backend, sizeof(backend));
	sd_notifyf(0, "STATUS=%s: %s%s%s", state, line, *backend ? " " : "", backend);
}

static void log_stats(struct app *app)
{
	struct counter_values c;
	char line[STATS_LINE_MAX];

	current_counters(app, &c);
	counters_line(&c, line, sizeof(line));
	log_notice("statistics: %s", line);
	if (app->sc.backend.ops->log_stats)
		app->sc.backend.ops->log_stats(&app->sc.backend);
}

/*
 * A clamd server loaded other signatures: what was clean by the old ones
 * is scanned again, as after a reload of the in-process engine.
 */
static void clamd_signatures_changed(void *ctx)
{
	struct scanner *sc = ctx;

	scanner_forget_verdicts(sc);
	atomic_fetch_add(&sc->stats.reloads, 1);
	log_notice("clamd loaded new signatures: verdict cache cleared");
}

/* The reload thread: the backend decides, the core flushes what it must. */
static void *reload_main(void *arg)
{
	struct reloader *r = arg;
	struct scanner *sc = r->sc;
	int forced = atomic_exchange(&r->force_flush, 0);
	enum backend_reload done;

	done = sc->backend.ops->reload(&sc->backend, forced, r->msg, sizeof(r->msg));
	r->failed = done == RELOAD_FAILED;
	switch (done) {
	case RELOAD_KEPT:
		break;
	case RELOAD_LOADED:
		atomic_store(&sc->live.loaded_at, (int_fast64_t)time(NULL));
		/* fall through: what was clean by the old signatures goes */
	case RELOAD_FLUSH:
		scanner_forget_verdicts(sc);
		atomic_fetch_add(&sc->stats.reloads, 1);
		break;
	case RELOAD_FAILED:
		atomic_fetch_add(&sc->stats.reload_failures, 1);
		break;
	}
	log_event(r->failed ? LOG_LVL_ERROR : LOG_LVL_NOTICE, "reload", "%s", r->msg);
	eventfd_write(r->done_fd, 1);
	return NULL;
}

/* The reload's outcome to the control socket's requests that waited for it. */
static void reload_answer(struct reloader *r, int failed, const char *msg)
{
	for (unsigned int i = 0; i < r->nwaiting; i++) {
		json_object *o;

		if (failed) {
			control_answer_error(r->waiting[i], msg, 1);
			continue;
		}
		o = json_object_new_object();
		if (jsonb_add_bool(o, "ok", 1) || jsonb_add_string(o, "message", msg)) {
			json_object_put(o);
			o = NULL;	/* answered "out of memory" */
		}
		control_answer(r->waiting[i], o, 1);
	}
	r->nwaiting = 0;
}

static void reload_start(struct app *app)
{
	struct reloader *r = &app->reload;
	char msg[128];
	int rc;

	if (r->running) {
		r->pending = 1;
		return;
	}
	/* this reload reads the database as it is now: it answers them */
	memcpy(r->waiting, r->queued, r->nqueued * sizeof(r->queued[0]));
	r->nwaiting = r->nqueued;
	r->nqueued = 0;
	sd_notify(0, "RELOADING=1");
	rc = pthread_create(&r->thread, NULL, reload_main, r);
	if (rc) {
		snprintf(msg, sizeof(msg), "reload: pthread_create: %s", strerror(rc));
		log_error("%s", msg);
		reload_answer(r, 1, msg);
		sd_notify(0, "READY=1");
		return;
	}
	r->running = 1;
	atomic_store(&r->busy, 1);
}

static void reopen_log(void);

/*
 * A reload request from the control socket, on fd (answered when done):
 * systemctl reload, so it does what SIGHUP does, the log file included.
 */
static void reload_request(struct app *app, int fd)
{
	struct reloader *r = &app->reload;

	reopen_log();

	if (r->nqueued == CONTROL_RELOAD_WAITERS) {
		control_answer_error(fd, "too many reload requests waiting; try again", 1);
		return;
	}
	r->queued[r->nqueued++] = fd;
	reload_start(app);
}

static void reload_finished(struct app *app)
{
	struct reloader *r = &app->reload;
	eventfd_t v;

	eventfd_read(r->done_fd, &v);
	if (!r->running)
		return;
	pthread_join(r->thread, NULL);
	r->running = 0;
	atomic_store(&r->busy, 0);
	reload_answer(r, r->failed, r->msg);
	sd_notify(0, "READY=1");
	notify_status(app, "running");
	if (r->pending) {
		r->pending = 0;
		reload_start(app);
	}
}

static int setup_signals(struct app *app)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGPIPE);
	/* Blocked in every thread (they inherit it); read through the signalfd. */
	if (pthread_sigmask(SIG_BLOCK, &set, NULL))
		return -1;
	sigdelset(&set, SIGPIPE);
	app->sig_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return app->sig_fd < 0 ? -1 : 0;
}

static int setup_timer(struct app *app)
{
	uint64_t period_us = (uint64_t)app->cfg.status_interval_ms * 1000;
	struct itimerspec its;

	if (sd_watchdog_enabled(0, &app->watchdog_usec) > 0 &&
	    app->watchdog_usec / 2 < period_us)
		period_us = app->watchdog_usec / 2;
	if (period_us < 1000)
		period_us = 1000;
	app->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (app->timer_fd < 0)
		return -1;
	its.it_interval.tv_sec = (time_t)(period_us / 1000000);
	its.it_interval.tv_nsec = (long)(period_us % 1000000) * 1000;
	its.it_value = its.it_interval;
	return timerfd_settime(app->timer_fd, 0, &its, NULL);
}

/*
 * clamd's SelfCheck: every self_check seconds, a changed signature
 * directory is reloaded without anyone sending a signal (freshclam's
 * updates).  Backend clamd: clamd checks its own.
 */
static int setup_self_check(struct app *app)
{
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };

	app->self_check_fd = -1;
	if (!app->cfg.self_check || app->cfg.backend != BACKEND_LIBCLAMAV)
		return 0;
	app->self_check_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (app->self_check_fd < 0)
		return -1;
	its.it_interval.tv_sec = (time_t)app->cfg.self_check;
	its.it_value = its.it_interval;
	return timerfd_settime(app->self_check_fd, 0, &its, NULL);
}

static void self_check(struct app *app)
{
	struct reloader *r = &app->reload;
	uint64_t ticks;

	if (read(app->self_check_fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		log_warning("self_check timerfd: %s", strerror(errno));
	/* a reload running now will be compared again next time */
	if (r->running || !app->sc.backend.ops->signatures_changed ||
	    !app->sc.backend.ops->signatures_changed(&app->sc.backend)) {
		log_debug("self_check: the signatures in %s did not change", app->cfg.database);
		return;
	}
	log_notice("self_check: the signatures in %s changed; reloading", app->cfg.database);
	reload_start(app);
}

/*
 * Tell systemd we are alive only while every worker makes progress: one
 * stuck in a single scan for a whole watchdog interval gets the scanner
 * restarted (its events go to the new instance or to the timeout).
 */
static void watchdog_ping(struct app *app)
{
	unsigned int first;
	uint64_t for_us;
	int stuck = workers_stuck(app->workers, app->started, scanner_now_us(),
				  app->watchdog_usec, &first, &for_us);

	if (!stuck) {
		sd_notify(0, "WATCHDOG=1");
		return;
	}
	log_error("%d worker(s) stuck, worker %u in one scan for %" PRIu64
		  " s: not pinging the watchdog", stuck, first, for_us / 1000000);
}

/* log_file: a new file after logrotate moved the old one away. */
static void reopen_log(void)
{
	char err[PATH_MAX + 64];

	if (log_target_in_use() != LOG_TARGET_FILE)
		return;
	if (log_reopen(err, sizeof(err)))
		log_error("%s; still writing to the old file", err);
	else
		log_notice("log file reopened");
}

/* 0: stop asked, 1: a worker failed. */
static int control_loop(struct app *app)
{
	struct pollfd pfd[6] = {
		{ .fd = app->sig_fd, .events = POLLIN },
		{ .fd = app->timer_fd, .events = POLLIN },
		{ .fd = app->reload.done_fd, .events = POLLIN },
		{ .fd = app->sc.failed_fd, .events = POLLIN },
		/* -1 (no self_check): poll ignores it */
		{ .fd = app->self_check_fd, .events = POLLIN },
		{ .fd = app->reload_pipe[0], .events = POLLIN },
	};

	for (;;) {
		if (poll(pfd, 6, -1) < 0) {
			if (errno == EINTR)
				continue;
			log_error("poll: %s", strerror(errno));
			return 1;
		}
		if (pfd[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(app->sig_fd, &si, sizeof(si)) == sizeof(si)) {
				switch (si.ssi_signo) {
				case SIGTERM:
				case SIGINT:
					log_event(LOG_LVL_NOTICE, "stop", "signal %d: stopping",
						  (int)si.ssi_signo);
					return 0;
				case SIGHUP:
					/*
					 * logrotate's postrotate; the reload that
					 * comes with it loads nothing if the
					 * signatures did not change.
					 */
					reopen_log();
					reload_start(app);
					break;
				case SIGUSR2:	/* clamd's reload signal */
					atomic_store(&app->reload.force_flush, 1);
					reload_start(app);
					break;
				case SIGUSR1:
					log_stats(app);
					break;
				}
			}
		}
		if (pfd[1].revents & POLLIN) {
			uint64_t ticks;

			if (read(app->timer_fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
				log_warning("timerfd: %s", strerror(errno));
			if (app->watchdog_usec)
				watchdog_ping(app);
			if (app->source.ops->tick)
				app->source.ops->tick(&app->source);
			flush_store(app);
			notify_status(app, app->reload.running ? "reloading" : "running");
		}
		if (pfd[2].revents & POLLIN)
			reload_finished(app);
		if (pfd[3].revents & POLLIN) {
			log_error("a worker failed; exiting");
			return 1;
		}
		if (pfd[4].revents & POLLIN)
			self_check(app);
		if (pfd[5].revents & POLLIN) {
			int fd;

			while (read(app->reload_pipe[0], &fd, sizeof(fd)) == sizeof(fd))
				reload_request(app, fd);
		}
	}
}

/* The control socket's requests (control thread). */
static json_object *control_status(void *ctx)
{
	struct app *app = ctx;
	struct counter_values c;
	struct status_input in = {
		.sc = &app->sc, .workers = app->workers, .nworkers = app->started,
		.counters = &c, .reloading = atomic_load(&app->reload.busy),
	};

	current_counters(app, &c);
	return status_json(&in);
}

/* The reload itself is the control loop's, as for SIGHUP. */
static void control_reload(void *ctx, int fd)
{
	struct app *app = ctx;

	if (write(app->reload_pipe[1], &fd, sizeof(fd)) != sizeof(fd))
		control_answer_error(fd, "the scanner cannot take the request now; try again", 0);
}

static const struct control_ops control_ops = {
	.status = control_status,
	.reload = control_reload,
};

/* workers, or one per CPU for 0 */
static unsigned int worker_count(const struct config *cfg)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	return cfg->workers ? cfg->workers : (unsigned int)(ncpu > 0 ? ncpu : 1);
}

/*
 * Raise the open-file limit, and tell the source how many events it may
 * hold: never so many that the kernel cannot make the next one's fd
 * (EMFILE), which it would answer with a deny.  -1 if the limit is too low
 * even for one event per worker.
 */
static int set_fd_limit(struct app *app, char *err, size_t errlen)
{
	unsigned int workers = worker_count(&app->cfg);
	long soft = fdlimit_raise(err, errlen);

	if (soft < 0)
		return -1;
	app->source.max_events = fdlimit_events(soft, workers);
	if (!app->source.max_events) {
		snprintf(err, errlen,
			 "the open-file limit %ld is too low for %u workers (at least %ld): raise LimitNOFILE or ulimit -n",
			 soft, workers, fdlimit_needed(workers));
		return -1;
	}
	log_info("open files: limit %ld, at most %u events held at once", soft,
		 app->source.max_events);
	return 0;
}

static int start_workers(struct app *app, char *err, size_t errlen)
{
	int rc;

	app->nworkers = worker_count(&app->cfg);
	app->workers = calloc(app->nworkers, sizeof(*app->workers));
	if (!app->workers) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* Every worker holds its handle before the first thread runs. */
	for (unsigned int i = 0; i < app->nworkers; i++) {
		app->workers[i].sc = &app->sc;
		app->workers[i].index = i;
		slot_init(&app->workers[i].slot);
		if (worker_open(&app->workers[i], err, errlen))
			return -1;
	}
	for (unsigned int i = 0; i < app->nworkers; i++) {
		rc = pthread_create(&app->workers[i].thread, NULL, worker_main,
				    &app->workers[i]);
		if (rc) {
			snprintf(err, errlen, "pthread_create: %s", strerror(rc));
			return -1;
		}
		app->started++;
	}
	return 0;
}

static void stop_workers(struct app *app)
{
	eventfd_write(app->sc.stop_fd, 1);
	for (unsigned int i = 0; i < app->started; i++)
		pthread_join(app->workers[i].thread, NULL);
	for (unsigned int i = 0; i < app->nworkers && app->workers; i++)
		if (app->workers[i].sw)
			app->source.ops->worker_close(app->workers[i].sw);
	for (unsigned int i = 0; i < app->nworkers && app->workers; i++)
		slot_destroy(&app->workers[i].slot);
	free(app->workers);
	app->workers = NULL;
}

int main(int argc, char **argv)
{
	struct app app = {
		.sig_fd = -1, .timer_fd = -1, .self_check_fd = -1, .reload.done_fd = -1,
		.sc.stop_fd = -1, .sc.failed_fd = -1, .reload_pipe = { -1, -1 },
	};
	int rc, status = 1, source_open = 0;

	/* the control socket's client: no scanner started */
	if (argc > 1 && (!strcmp(argv[1], "status") || !strcmp(argv[1], "reload")))
		return control_client_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "store"))
		return store_command_main(argc - 1, argv + 1);
	char err[CONFIG_ERR_MAX + 256];
	double start_time = metrics_now();

	config_init(&app.cfg);
	rc = config_from_args(&app.cfg, argc, argv, err, sizeof(err));
	if (rc > 0 && app.cfg.import_clamd_conf) {
		rc = clamdconf_import(app.cfg.import_clamd_conf, stdout, stderr);
		if (rc)
			fprintf(stderr, "dazuko-clamscan: --import-clamd-conf %s: nothing imported\n",
				app.cfg.import_clamd_conf);
		config_free(&app.cfg);
		return rc ? 1 : 0;
	}
	if (rc) {
		if (rc < 0)
			fprintf(stderr, "dazuko-clamscan: %s\n", err);
		config_free(&app.cfg);
		return rc < 0 ? 1 : 0;
	}
	if (app.cfg.check_only) {
		/* nothing loaded, nothing started: the settings only */
		printf("%s: OK\n", app.cfg.config_path);
		config_free(&app.cfg);
		return 0;
	}
	{
		const struct log_setup ls = {
			.level = app.cfg.log_level, .target = app.cfg.log_target,
			.facility = app.cfg.log_facility, .format = app.cfg.log_format,
			.file = app.cfg.log_file, .clean = app.cfg.log_clean,
		};

		if (log_open(&ls, err, sizeof(err))) {
			fprintf(stderr, "dazuko-clamscan: %s\n", err);
			config_free(&app.cfg);
			return 1;
		}
	}
	if (app.cfg.log_format == LOG_FORMAT_JSON && log_to_journal())
		log_notice("log_format json: logging to the journal, which keeps its own fields (log_target, log_file)");
	if (!app.cfg.foreground && !getenv("NOTIFY_SOCKET") && daemon(0, 1)) {
		log_error("daemon: %s", strerror(errno));
		return 1;
	}
	if (setup_signals(&app)) {
		log_error("signals: %s", strerror(errno));
		goto out;
	}

	app.sc.cfg = &app.cfg;
	app.sc.source = &app.source;
	stats_init(&app.sc.stats);
	live_init(&app.sc.live, scanner_now_us());
	workload_tally_init(&app.sc.tally);
	/* without memory, detections name their workloads uncached */
	app.sc.cgroups = cgroup_names_new();
	app.sc.stop_fd = eventfd(0, EFD_CLOEXEC);
	app.sc.failed_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	app.reload.sc = &app.sc;
	app.reload.done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (app.sc.stop_fd < 0 || app.sc.failed_fd < 0 || app.reload.done_fd < 0) {
		log_error("eventfd: %s", strerror(errno));
		goto out;
	}
	if (pipe2(app.reload_pipe, O_CLOEXEC | O_NONBLOCK)) {
		log_error("pipe: %s", strerror(errno));
		goto out;
	}
	/* before the source: a second scanner must not take over the first's group */
	app.control = control_open(app.cfg.control_socket,
				   app.cfg.control_socket &&
				   !strcmp(app.cfg.control_socket, CONTROL_DEFAULT_SOCKET),
				   &control_ops, &app, err, sizeof(err));
	if (!app.control && err[0]) {
		log_error("%s", err);
		goto out;
	}
	if (cache_init(&app.sc.cache, app.cfg.cache_size)) {
		log_error("cache of %zu entries: %s", app.cfg.cache_size, strerror(errno));
		goto out_cache;
	}

	app.source.core = &app.sc;
	app.source.file_written = scanner_file_written;
	/* the backend is set up below, before the source starts */
	app.source.waits_on = scanner_waits_on;
	app.source.stats = &app.sc.stats;
	app.source.stop_fd = app.sc.stop_fd;
	if (set_fd_limit(&app, err, sizeof(err))) {
		log_error("%s", err);
		goto out_cache;
	}
	if (app.cfg.source == SOURCE_DAZUKOFS)
		rc = source_dazukofs_open(&app.source, &app.cfg, err, sizeof(err));
	else
		rc = source_fanotify_open(&app.source, &app.cfg, err, sizeof(err));
	if (rc) {
		log_error("%s", err);
		goto out_cache;
	}
	source_open = 1;

	/*
	 * The engine before the events: a group or a mark set up earlier
	 * would hold every open (or, tracked, let every open through) for
	 * the seconds the signatures take to load.
	 */
	if (app.cfg.backend == BACKEND_CLAMD) {
		if (backend_clamd_init(&app.sc.backend, &app.cfg,
				       clamd_signatures_changed, &app.sc, err,
				       sizeof(err))) {
			log_error("%s", err);
			goto out_source;
		}
		log_info("backend clamd: %zu server(s), clamd_timeout_ms=%u clamd_retry_ms=%u stream_max_length=%" PRIu64,
			 (size_t)(app.cfg.local_socket ? 1 : 0) + app.cfg.tcp_servers.n,
			 app.cfg.clamd_timeout_ms, app.cfg.clamd_retry_ms,
			 app.cfg.stream_max_length);
	} else {
		if (backend_libclamav_init(&app.sc.backend, &app.cfg, err, sizeof(err))) {
			log_error("%s", err);
			goto out_source;
		}
		atomic_store(&app.sc.live.loaded_at, (int_fast64_t)time(NULL));
	}
	open_store(&app);
	log_info("limits (0: none): max_file_size=%" PRIu64 " max_scan_size=%" PRIu64
		 " max_recursion=%u max_files=%u max_scan_time=%u ms; alert_exceeds_max=%s alert_encrypted=%s",
		 app.cfg.limits.max_file_size, app.cfg.limits.max_scan_size,
		 app.cfg.limits.max_recursion, app.cfg.limits.max_files,
		 app.cfg.limits.max_scan_time_ms, app.cfg.alert_exceeds_max ? "yes" : "no",
		 app.cfg.alert_encrypted ? "yes" : "no");

	if (app.cfg.virus_event.n || app.cfg.quarantine != QUARANTINE_NO) {
		app.sc.detection = detection_actions_start(&app.cfg, err, sizeof(err));
		if (!app.sc.detection) {
			log_error("%s", err);
			goto out_source;
		}
		if (app.cfg.virus_event.n)
			log_info("virus_event: %s, at most %u at once",
				 app.cfg.virus_event.items[0], app.cfg.virus_event_max);
		if (app.cfg.quarantine != QUARANTINE_NO)
			log_info("quarantine: %s into %s",
				 app.cfg.quarantine == QUARANTINE_MOVE ?
				 (app.cfg.prevention ? "move" : "copy (move, but report only)") :
				 "copy", app.cfg.quarantine_dir);
	}

	if (app.source.ops->start(&app.source, err, sizeof(err))) {
		log_error("%s", err);
		goto out_source;
	}
	/*
	 * A group taken over from an earlier instance keeps the verdicts
	 * it asked the kernel to remember: they were found with the
	 * signatures of then, which may not be ours.
	 */
	if (app.source.ops->flush)
		app.source.ops->flush(&app.source);

	if (start_workers(&app, err, sizeof(err))) {
		log_error("workers: %s", err);
		goto out_workers;
	}
	if (setup_timer(&app)) {
		log_error("timerfd: %s", strerror(errno));
		goto out_workers;
	}
	if (setup_self_check(&app)) {
		log_error("self_check timerfd: %s", strerror(errno));
		goto out_workers;
	}
	if (app.cfg.metrics_file &&
	    metrics_start(&app.metrics, app.cfg.metrics_file, app.cfg.metrics_interval,
			  &app.sc.stats, &app.sc.tally, start_time, err, sizeof(err))) {
		log_error("%s", err);
		goto out_workers;
	}
	if (control_start(app.control, err, sizeof(err))) {
		log_error("%s", err);
		goto out_workers;
	}
	log_event(LOG_LVL_NOTICE, "start", "ready: source %s%s%s, %u workers, backend %s%s%s",
		  app.source.ops->name, app.cfg.source == SOURCE_DAZUKOFS ? " group " : " mount ",
		  app.cfg.source == SOURCE_DAZUKOFS ? app.cfg.group : app.cfg.fanotify_mount,
		  app.nworkers, app.sc.backend.ops->name,
		  app.cfg.backend == BACKEND_LIBCLAMAV ? ", database " : "",
		  app.cfg.backend == BACKEND_LIBCLAMAV ? app.cfg.database : "");
	sd_notify(0, "READY=1");
	notify_status(&app, "running");

	status = control_loop(&app);
	sd_notify(0, "STOPPING=1");

out_workers:
	/* first: it reads the workers' state */
	control_close(app.control);
	app.control = NULL;
	stop_workers(&app);
	if (app.reload.running) {
		/* it ended: its requests get its outcome */
		pthread_join(app.reload.thread, NULL);
		app.reload.running = 0;
		reload_answer(&app.reload, app.reload.failed, app.reload.msg);
	}
	/* requests the loop had not taken yet (the control thread has stopped) */
	for (int fd; read(app.reload_pipe[0], &fd, sizeof(fd)) == sizeof(fd);)
		control_answer_error(fd, "the scanner stopped before the reload began", 1);
	app.reload.nwaiting = app.reload.nqueued;
	memcpy(app.reload.waiting, app.reload.queued,
	       app.reload.nqueued * sizeof(app.reload.queued[0]));
	reload_answer(&app.reload, 1, "the scanner stopped before the reload began");
	log_stats(&app);
	/* after the workers: the last counts, with up 0 */
	metrics_stop(&app.metrics);
out_source:
	if (source_open)
		app.source.ops->close(&app.source);
	/* after the workers: nothing queues any more */
	detection_actions_stop(app.sc.detection);
out_cache:
	cache_destroy(&app.sc.cache);
out:
	/* after the workers: the verdicts of their last scans are written */
	verdict_store_close(app.sc.store);
	control_close(app.control);
	backend_destroy(&app.sc.backend);
	cgroup_names_free(app.sc.cgroups);
	workload_tally_destroy(&app.sc.tally);
	if (app.sc.stop_fd >= 0)
		close(app.sc.stop_fd);
	if (app.sc.failed_fd >= 0)
		close(app.sc.failed_fd);
	if (app.reload.done_fd >= 0)
		close(app.reload.done_fd);
	if (app.sig_fd >= 0)
		close(app.sig_fd);
	if (app.timer_fd >= 0)
		close(app.timer_fd);
	if (app.self_check_fd >= 0)
		close(app.self_check_fd);
	for (int i = 0; i < 2; i++)
		if (app.reload_pipe[i] >= 0)
			close(app.reload_pipe[i]);
	config_free(&app.cfg);
	log_close();
	return status;
}
