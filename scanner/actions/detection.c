// SPDX-License-Identifier: GPL-2.0
/*
 * Actions on a detection (detection.h): a bounded queue filled by the
 * workers and virus_event_max runner threads, each quarantining one file
 * and running one command at a time with posix_spawn() and waiting for
 * it, so that the number of commands at once is bounded by the threads,
 * and a worker only copies strings (and dups an fd) under a mutex.  A
 * command runs in a process group of its own, killed whole when it
 * outlasts virus_event_timeout, and at stop after a short grace: neither
 * a runner nor the stop waits on it for longer.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "actions/detection.h"
#include "actions/quarantine.h"
#include "log/log.h"
#include "util/clock.h"
#include "util/file_version.h"

#define VE_QUEUE_MAX 256
/* Files quarantined lately, not copied again for every open. */
#define VE_RECENT_MAX 64
#define VE_SIG_MAX 256
/* How long a command has to end after the stop's SIGTERM. */
#define VE_STOP_GRACE_MS 2000

struct ve_item {
	char path[PATH_MAX + 1];
	char sig[VE_SIG_MAX];
	char action[32];
	pid_t pid;
	int fd;			/* the file, for the quarantine; -1: none */
};

struct ve_runner {
	struct detection_actions *ve;
	pthread_t thread;
	pid_t child;		/* running command, 0: none (under children) */
};

struct detection_actions {
	const struct config *cfg;
	int quarantine_fd;	/* quarantine_dir, -1: no quarantine */
	/* the queue: held by a worker only to copy a detection in */
	pthread_mutex_t lock;
	pthread_cond_t more;
	struct ve_item *queue;	/* ring of VE_QUEUE_MAX */
	unsigned int head, count;
	int stopping;		/* under lock and children both */
	int stop_fd;		/* eventfd, readable once stopping */
	/* the runners' children: held around a spawn, never by a worker */
	pthread_mutex_t children;
	unsigned int nrunners;
	struct ve_runner *runners;
	atomic_uint_fast64_t run, dropped, timeouts, quarantined, quarantine_failed,
			     quarantine_skipped;
	/* held by a runner around one copy: the limits count what is there */
	pthread_mutex_t quarantining;
	struct quarantine_limits limits;
	/* under lock: the file as it was quarantined, and its id */
	struct {
		struct stat st;
		char id[QUARANTINE_ID_MAX];
	} recent[VE_RECENT_MAX];
	unsigned int nrecent, next_recent;
};

extern char **environ;

/* "NAME=value" into buf; the value is passed as bytes, never interpreted. */
static char *env_entry(char *buf, size_t size, const char *name, const char *value)
{
	snprintf(buf, size, "%s=%s", name, value);
	return buf;
}

static int same_version(const struct detection_actions *ve, unsigned int i, const struct stat *st)
{
	return stat_same_version(&ve->recent[i].st, st);
}

/*
 * A file opened again and again (the verdict of a deny is not always
 * remembered) is copied once: a copy of this very version was made
 * lately.  1 with its id (empty while that copy is in progress), or 0
 * with the file now recorded as being copied.  A move is never skipped:
 * the file is still there to remove.
 */
static int copy_mode_seen(struct detection_actions *ve, const struct ve_item *it,
			  enum quarantine_mode mode, char id[QUARANTINE_ID_MAX])
{
	struct stat st;
	unsigned int slot;

	if (mode != QUARANTINE_COPY || fstat(it->fd, &st))
		return 0;
	pthread_mutex_lock(&ve->lock);
	for (unsigned int i = 0; i < ve->nrecent; i++) {
		if (same_version(ve, i, &st)) {
			memcpy(id, ve->recent[i].id, QUARANTINE_ID_MAX);
			pthread_mutex_unlock(&ve->lock);
			log_file_info(it->path, "%s: quarantined already%s%s", it->path, id[0] ? " as " : "", id);
			return 1;
		}
	}
	slot = ve->next_recent;
	ve->next_recent = (ve->next_recent + 1) % VE_RECENT_MAX;
	if (ve->nrecent < VE_RECENT_MAX)
		ve->nrecent++;
	ve->recent[slot].st = st;
	ve->recent[slot].id[0] = '\0';
	pthread_mutex_unlock(&ve->lock);
	return 0;
}

/*
 * The copy's id, for the next open of the same version; id NULL: the
 * copy failed, and the next open tries again.
 */
static void copy_mode_done(struct detection_actions *ve, const struct ve_item *it,
			   const char *id)
{
	struct stat st;

	if (fstat(it->fd, &st))
		return;
	pthread_mutex_lock(&ve->lock);
	for (unsigned int i = 0; i < ve->nrecent; i++) {
		if (!same_version(ve, i, &st) || ve->recent[i].id[0])
			continue;
		if (id)
			memcpy(ve->recent[i].id, id, QUARANTINE_ID_MAX);
		else
			memset(&ve->recent[i], 0, sizeof(ve->recent[i]));
	}
	pthread_mutex_unlock(&ve->lock);
}

/*
 * Into the quarantine; id "" if not.  With move in report-only mode the
 * file stays where it was: report only promises that nobody's files
 * change.
 */
static void quarantine_one(struct detection_actions *ve, const struct ve_item *it,
			   char id[QUARANTINE_ID_MAX])
{
	enum quarantine_mode mode = ve->cfg->quarantine;
	char err[PATH_MAX + 128];
	enum quarantine_outcome done;
	int removed;

	id[0] = '\0';
	if (mode == QUARANTINE_MOVE && !ve->cfg->prevention)
		mode = QUARANTINE_COPY;
	if (copy_mode_seen(ve, it, mode, id))
		return;
	pthread_mutex_lock(&ve->quarantining);
	done = quarantine_file(ve->quarantine_fd, &ve->limits, mode, it->fd, it->path,
			       it->sig, it->pid, id, &removed, err, sizeof(err));
	pthread_mutex_unlock(&ve->quarantining);
	if (done != QUARANTINE_DONE) {
		/* no room is the limits doing their job: a warning, not an error */
		if (done == QUARANTINE_NO_ROOM) {
			atomic_fetch_add(&ve->quarantine_skipped, 1);
			log_file_warning(it->path, "%s (%s) not quarantined: %s", it->path,
					 it->sig, err);
		} else {
			atomic_fetch_add(&ve->quarantine_failed, 1);
			log_file_error(it->path, "quarantine of %s (%s) failed: %s", it->path,
				       it->sig, err);
		}
		id[0] = '\0';
		if (mode == QUARANTINE_COPY)
			copy_mode_done(ve, it, NULL);
		return;
	}
	atomic_fetch_add(&ve->quarantined, 1);
	if (mode == QUARANTINE_COPY)
		copy_mode_done(ve, it, id);
	if (mode == QUARANTINE_MOVE && !removed)
		log_file_warning(it->path, "%s: quarantined as %s, but still there: %s",
				 it->path, id, err);
	else
		log_file_notice(it->path, "%s: quarantined as %s%s", it->path, id,
			   removed ? " and removed" : "");
}

static long long now_ms(void)
{
	return (long long)(scanner_now_us() / 1000);
}

/*
 * Wait for @child, the leader of its own process group, for at most
 * @timeout_ms, or until the stop, then the stop's grace: the group is
 * killed then.  Returns waitpid()'s result; *timed_out says whether the
 * command was killed for its time.
 */
static pid_t wait_bounded(struct detection_actions *ve, pid_t child, int *status,
			  int *timed_out)
{
	long long deadline = now_ms() + ve->cfg->virus_event_timeout_ms;
	int pidfd = (int)syscall(SYS_pidfd_open, child, 0);
	int stopped = 0;
	pid_t rc;

	*timed_out = 0;
	while (pidfd >= 0) {
		struct pollfd p[2] = {
			{ .fd = pidfd, .events = POLLIN },
			{ .fd = ve->stop_fd, .events = stopped ? 0 : POLLIN },
		};
		long long left = deadline - now_ms();
		int n;

		if (left <= 0) {
			/* Too long, or not ended after the stop's SIGTERM. */
			*timed_out = !stopped;
			kill(-child, SIGKILL);
			break;
		}
		n = poll(p, 2, left > INT32_MAX ? INT32_MAX : (int)left);
		if (n < 0 && errno != EINTR)
			break;
		if (n > 0 && (p[0].revents & POLLIN))
			break;
		if (n > 0 && (p[1].revents & POLLIN)) {
			stopped = 1;
			kill(-child, SIGTERM);
			if (deadline > now_ms() + VE_STOP_GRACE_MS)
				deadline = now_ms() + VE_STOP_GRACE_MS;
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	/* No pidfd (a kernel before 5.3): as before, an unbounded wait. */
	while ((rc = waitpid(child, status, 0)) < 0 && errno == EINTR)
		;
	return rc;
}

static void run_one(struct ve_runner *r, const struct ve_item *it)
{
	struct detection_actions *ve = r->ve;
	const struct str_list *argv_cfg = &ve->cfg->virus_event;
	char e_file[PATH_MAX + 64], e_sig[VE_SIG_MAX + 64], e_pid[64], e_act[64];
	char id[QUARANTINE_ID_MAX], e_qid[QUARANTINE_ID_MAX + 64];
	char *envp[] = {
		env_entry(e_file, sizeof(e_file), "CLAM_VIRUSEVENT_FILENAME", it->path),
		env_entry(e_sig, sizeof(e_sig), "CLAM_VIRUSEVENT_VIRUSNAME", it->sig),
		e_pid, e_act, e_qid,
		/* a fixed, short environment: nothing of the scanner's own */
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		NULL,
	};
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, deflt;
	int rc, status, timed_out;
	pid_t child;

	id[0] = '\0';
	if (it->fd >= 0)
		quarantine_one(ve, it, id);
	if (!argv_cfg->n)
		return;
	env_entry(e_qid, sizeof(e_qid), "DAZUKOFS_QUARANTINE_ID", id);
	snprintf(e_pid, sizeof(e_pid), "DAZUKOFS_VIRUSEVENT_PID=%d", (int)it->pid);
	env_entry(e_act, sizeof(e_act), "DAZUKOFS_VIRUSEVENT_ACTION", it->action);
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	/*
	 * The scanner blocks its signals in every thread (signalfd); the
	 * command must get a normal mask and default dispositions.  Its
	 * stdin is /dev/null, stdout and stderr the scanner's (the journal);
	 * no other fd of the scanner (an event's file, a socket) goes along.
	 */
	sigemptyset(&none);
	sigfillset(&deflt);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &deflt);
	/* A group of its own, to kill whatever it started too. */
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
				 POSIX_SPAWN_SETPGROUP);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);

	/* a stop either sees this child (and kills it) or prevents it */
	pthread_mutex_lock(&ve->children);
	if (ve->stopping) {
		pthread_mutex_unlock(&ve->children);
		goto out;
	}
	rc = posix_spawn(&child, argv_cfg->items[0], &fa, &attr, argv_cfg->items, envp);
	if (!rc)
		r->child = child;
	pthread_mutex_unlock(&ve->children);
	if (rc) {
		log_file_error(it->path, "virus_event %s for %s: %s", argv_cfg->items[0], it->path,
			  strerror(rc));
		goto out;
	}
	atomic_fetch_add(&ve->run, 1);
	rc = wait_bounded(ve, child, &status, &timed_out);
	pthread_mutex_lock(&ve->children);
	r->child = 0;		/* reaped only now: until then the pid stays ours */
	pthread_mutex_unlock(&ve->children);
	if (rc < 0) {
		log_file_error(it->path, "virus_event %s for %s (pid %d): waitpid: %s",
			  argv_cfg->items[0], it->path, (int)child, strerror(errno));
	} else if (timed_out) {
		atomic_fetch_add(&ve->timeouts, 1);
		log_file_warning(it->path,
				 "virus_event %s for %s (pid %d): still running after %u ms; killed",
			    argv_cfg->items[0], it->path, (int)child,
			    ve->cfg->virus_event_timeout_ms);
	} else if (WIFEXITED(status) && !WEXITSTATUS(status))
		log_file_info(it->path, "virus_event %s for %s (pid %d): exited with status 0",
			 argv_cfg->items[0], it->path, (int)child);
	else if (WIFEXITED(status))
		log_file_warning(it->path, "virus_event %s for %s (pid %d): exited with status %d",
			    argv_cfg->items[0], it->path, (int)child, WEXITSTATUS(status));
	else
		log_file_warning(it->path, "virus_event %s for %s (pid %d): killed by signal %d",
			    argv_cfg->items[0], it->path, (int)child,
			    WIFSIGNALED(status) ? WTERMSIG(status) : 0);
out:
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
}

static void *runner_main(void *arg)
{
	struct ve_runner *r = arg;
	struct detection_actions *ve = r->ve;
	struct ve_item *it = malloc(sizeof(*it));

	if (!it) {
		log_error("virus_event: out of memory; this runner stops");
		return NULL;
	}
	for (;;) {
		pthread_mutex_lock(&ve->lock);
		while (!ve->count && !ve->stopping)
			pthread_cond_wait(&ve->more, &ve->lock);
		if (ve->stopping) {
			pthread_mutex_unlock(&ve->lock);
			break;
		}
		*it = ve->queue[ve->head];
		ve->head = (ve->head + 1) % VE_QUEUE_MAX;
		ve->count--;
		pthread_mutex_unlock(&ve->lock);
		run_one(r, it);
		if (it->fd >= 0)
			close(it->fd);
	}
	free(it);
	return NULL;
}

struct detection_actions *detection_actions_start(const struct config *cfg, char *err,
				    size_t errlen)
{
	struct detection_actions *ve = calloc(1, sizeof(*ve));
	int rc;

	if (!ve || !(ve->queue = calloc(VE_QUEUE_MAX, sizeof(*ve->queue))) ||
	    !(ve->runners = calloc(cfg->virus_event_max, sizeof(*ve->runners)))) {
		snprintf(err, errlen, "virus_event: out of memory");
		if (ve)
			free(ve->queue);
		free(ve);
		return NULL;
	}
	ve->cfg = cfg;
	ve->quarantine_fd = -1;
	ve->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ve->stop_fd < 0) {
		snprintf(err, errlen, "virus_event: eventfd: %s", strerror(errno));
		free(ve->runners);
		free(ve->queue);
		free(ve);
		return NULL;
	}
	if (cfg->quarantine != QUARANTINE_NO) {
		ve->quarantine_fd = quarantine_open_dir(cfg->quarantine_dir, 1, err, errlen);
		if (ve->quarantine_fd < 0) {
			close(ve->stop_fd);
			free(ve->runners);
			free(ve->queue);
			free(ve);
			return NULL;
		}
	}
	pthread_mutex_init(&ve->lock, NULL);
	pthread_mutex_init(&ve->children, NULL);
	pthread_mutex_init(&ve->quarantining, NULL);
	ve->limits.max_size = cfg->quarantine_max_size;
	ve->limits.max_files = cfg->quarantine_max_files;
	ve->limits.min_free = cfg->quarantine_min_free;
	pthread_cond_init(&ve->more, NULL);
	atomic_init(&ve->run, 0);
	atomic_init(&ve->dropped, 0);
	atomic_init(&ve->timeouts, 0);
	atomic_init(&ve->quarantined, 0);
	atomic_init(&ve->quarantine_failed, 0);
	atomic_init(&ve->quarantine_skipped, 0);
	for (unsigned int i = 0; i < cfg->virus_event_max; i++) {
		ve->runners[i].ve = ve;
		rc = pthread_create(&ve->runners[i].thread, NULL, runner_main,
				    &ve->runners[i]);
		if (rc) {
			snprintf(err, errlen, "virus_event: pthread_create: %s", strerror(rc));
			detection_actions_stop(ve);
			return NULL;
		}
		ve->nrunners++;
	}
	return ve;
}

void detection_actions_queue(struct detection_actions *ve, int fd, const char *path,
		      const char *signature, pid_t pid, const char *action)
{
	struct ve_item *it;
	int qfd = -1;

	/*
	 * The worker's fd is closed once the verdict is written: the
	 * quarantine gets its own, to copy after the open was denied.
	 */
	if (ve->quarantine_fd >= 0 && fd >= 0) {
		qfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (qfd < 0) {
			atomic_fetch_add(&ve->quarantine_failed, 1);
			log_error("quarantine of %s (%s) failed: dup: %s", path, signature,
				  strerror(errno));
		}
	}

	pthread_mutex_lock(&ve->lock);
	if (ve->count == VE_QUEUE_MAX || ve->stopping) {
		pthread_mutex_unlock(&ve->lock);
		atomic_fetch_add(&ve->dropped, 1);
		log_file_warning(path,
				 "%u detections waiting already; no quarantine or virus_event for %s",
				 VE_QUEUE_MAX, path);
		if (qfd >= 0) {
			close(qfd);
			atomic_fetch_add(&ve->quarantine_failed, 1);
		}
		return;
	}
	it = &ve->queue[(ve->head + ve->count) % VE_QUEUE_MAX];
	snprintf(it->path, sizeof(it->path), "%s", path);
	snprintf(it->sig, sizeof(it->sig), "%s", signature);
	snprintf(it->action, sizeof(it->action), "%s", action);
	it->pid = pid;
	it->fd = qfd;
	ve->count++;
	pthread_cond_signal(&ve->more);
	pthread_mutex_unlock(&ve->lock);
}

void detection_actions_counts(struct detection_actions *ve, uint64_t *run, uint64_t *dropped,
		       uint64_t *timeouts, uint64_t *quarantined,
		       uint64_t *quarantine_failed, uint64_t *quarantine_skipped)
{
	*quarantine_skipped = ve ? atomic_load(&ve->quarantine_skipped) : 0;
	*run = ve ? atomic_load(&ve->run) : 0;
	*dropped = ve ? atomic_load(&ve->dropped) : 0;
	*timeouts = ve ? atomic_load(&ve->timeouts) : 0;
	*quarantined = ve ? atomic_load(&ve->quarantined) : 0;
	*quarantine_failed = ve ? atomic_load(&ve->quarantine_failed) : 0;
}

void detection_actions_stop(struct detection_actions *ve)
{
	if (!ve)
		return;
	pthread_mutex_lock(&ve->children);
	pthread_mutex_lock(&ve->lock);
	ve->stopping = 1;
	if (ve->count)
		log_warning("virus_event: stopping; %u queued detection(s) not run",
			    ve->count);
	for (unsigned int i = 0; i < ve->count; i++) {
		struct ve_item *it = &ve->queue[(ve->head + i) % VE_QUEUE_MAX];

		if (it->fd >= 0) {
			log_file_warning(it->path, "%s: not quarantined: the scanner stops",
					 it->path);
			close(it->fd);
		}
	}
	pthread_cond_broadcast(&ve->more);
	pthread_mutex_unlock(&ve->lock);
	/* Each runner kills its command, waiting at most VE_STOP_GRACE_MS. */
	if (eventfd_write(ve->stop_fd, 1))
		log_error("virus_event: eventfd_write: %s", strerror(errno));
	pthread_mutex_unlock(&ve->children);
	for (unsigned int i = 0; i < ve->nrunners; i++)
		pthread_join(ve->runners[i].thread, NULL);
	pthread_cond_destroy(&ve->more);
	pthread_mutex_destroy(&ve->lock);
	pthread_mutex_destroy(&ve->children);
	pthread_mutex_destroy(&ve->quarantining);
	if (ve->quarantine_fd >= 0)
		close(ve->quarantine_fd);
	close(ve->stop_fd);
	free(ve->runners);
	free(ve->queue);
	free(ve);
}
