// SPDX-License-Identifier: GPL-2.0
/*
 * Events from fanotify: FAN_OPEN_PERM on the whole filesystem that holds
 * fanotify_mount (FAN_MARK_FILESYSTEM), so that an open through any mount
 * of it, in any mount namespace, is seen; a mount mark would miss every
 * copy of the mount that unshare(CLONE_NEWNS) makes.
 *
 * One reader thread reads the fanotify fd and hands events to the workers
 * through a queue.  It answers this process's own opens at once (libclamav
 * reading signatures or writing its temporary files on the watched
 * filesystem), so that the scanner never waits on itself however many
 * workers are busy, and likewise those of the processes the backend waits
 * for (a local clamd writing its temporary files there: a scan of those
 * would wait for the clamd that waits for it).  It also drops cached
 * verdicts of files that were written (FAN_MODIFY, FAN_CLOSE_WRITE).
 * fanotify's queue is unlimited (FAN_UNLIMITED_QUEUE): a permission event
 * that overflowed it would be allowed by the kernel unseen.  Events the
 * reader has read hold an fd each, until a worker answers; the reader
 * reads no more than src->max_events of them at once (fdlimit.h), so that
 * the kernel can always make the next one's fd: one it could not make
 * (EMFILE) it would answer with a deny.  The others wait in the kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <dazukofs.h>

#include "log/log.h"
#include "sources/source.h"

#define FAN_WRITE_EVENTS (FAN_MODIFY | FAN_CLOSE_WRITE)

struct fan_pending {
	struct fan_pending *next;
	int fd;
	pid_t pid;
};

struct fan_source {
	int fd;
	pid_t self;
	pthread_t reader;
	int reader_running;
	/* The queue from the reader to the workers. */
	pthread_mutex_t lock;
	pthread_cond_t ready;
	struct fan_pending *head, **tail;	/* under lock */
	unsigned int held;			/* under lock: read, not answered */
	pthread_cond_t room;			/* held fell below max_events */
	int stopping;				/* under lock: the reader returns */
	int closing;				/* under lock: no more events */
	char failure[256];			/* under lock: why the reader stopped */
};

struct source_worker {
	struct source *src;
	struct fan_source *fs;
};

static int fan_answer_fd(int fan_fd, int fd, enum verdict v)
{
	struct fanotify_response r = {
		.fd = fd,
		.response = v == VERDICT_DENY ? FAN_DENY : FAN_ALLOW,
	};

	return write(fan_fd, &r, sizeof(r)) == sizeof(r) ? 0 : -1;
}

/* The reader gives up: the workers learn why and stop. */
static void reader_fail(struct fan_source *fs, const char *why)
{
	pthread_mutex_lock(&fs->lock);
	snprintf(fs->failure, sizeof(fs->failure), "%s", why);
	fs->closing = 1;
	pthread_cond_broadcast(&fs->ready);
	pthread_mutex_unlock(&fs->lock);
}

static void forget_written(struct source *src, int fd)
{
	struct stat st;

	if (src->file_written && !fstat(fd, &st))
		src->file_written(src->core, st.st_dev, st.st_ino);
}

/*
 * A permission event no worker can take (no memory for the queue entry):
 * answered by on_error now rather than left waiting.
 */
static void answer_unqueued(struct source *src, struct fan_source *fs,
			    const struct fanotify_event_metadata *m)
{
	atomic_fetch_add(&src->stats->errors, 1);
	log_warning("fanotify: no memory to queue the event of pid %d; verdict %s",
		    (int)m->pid, verdict_name(src->cfg->on_error));
	fan_answer_fd(fs->fd, m->fd, src->cfg->on_error);
	close(m->fd);
}

/*
 * An open that must not wait for a scan: this process's own, or one of a
 * process the backend waits for.  pid is the event's, the opener's tgid
 * (the group has no FAN_REPORT_TID), as getpid() and SO_PEERCRED give it.
 */
static int is_own(struct source *src, const struct fan_source *fs, pid_t pid)
{
	return pid == fs->self || (src->waits_on && src->waits_on(src->core, pid));
}

/* One buffer of events: own and write events handled, the rest queued. */
static void reader_dispatch(struct source *src, struct fan_source *fs,
			    const char *buf, ssize_t len)
{
	const struct fanotify_event_metadata *m = (const void *)buf;
	struct fan_pending *first = NULL, **last = &first;
	unsigned int queued = 0;

	for (; FAN_EVENT_OK(m, len); m = FAN_EVENT_NEXT(m, len)) {
		struct fan_pending *p;

		if (m->vers != FANOTIFY_METADATA_VERSION) {
			log_error("fanotify: event of version %u, expected %u",
				  m->vers, FANOTIFY_METADATA_VERSION);
			continue;
		}
		if (m->mask & FAN_Q_OVERFLOW) {
			atomic_fetch_add(&src->stats->errors, 1);
			log_warning("fanotify: queue overflow: events were lost");
			continue;
		}
		if (m->fd < 0)
			continue;
		if (!(m->mask & FAN_OPEN_PERM)) {
			/*
			 * A clamd's writes still drop verdicts: forgetting is
			 * never unsafe, and asking the backend costs more.
			 */
			if (m->mask & FAN_WRITE_EVENTS && m->pid != fs->self)
				forget_written(src, m->fd);
			close(m->fd);
			continue;
		}
		if (is_own(src, fs, m->pid)) {
			fan_answer_fd(fs->fd, m->fd, VERDICT_ALLOW);
			close(m->fd);
			continue;
		}
		p = malloc(sizeof(*p));
		if (!p) {
			answer_unqueued(src, fs, m);
			continue;
		}
		p->fd = m->fd;
		p->pid = m->pid;
		p->next = NULL;
		*last = p;
		last = &p->next;
		queued++;
	}
	if (!queued)
		return;
	pthread_mutex_lock(&fs->lock);
	fs->held += queued;
	*fs->tail = first;
	fs->tail = last;
	if (queued == 1)
		pthread_cond_signal(&fs->ready);
	else
		pthread_cond_broadcast(&fs->ready);
	pthread_mutex_unlock(&fs->lock);
}

/*
 * Until fewer than max_events events are held (a worker answers one; the
 * kernel keeps the rest waiting), or the stop: how many more may be read,
 * 0 to stop.  The stop is an eventfd, which a condition cannot wait on:
 * looked at every 100 ms while waiting, which only happens under a flood.
 */
static size_t wait_for_room(struct source *src, struct fan_source *fs)
{
	struct pollfd stop = { .fd = src->stop_fd, .events = POLLIN };
	size_t room = 0;

	pthread_mutex_lock(&fs->lock);
	while (fs->held >= src->max_events && !fs->stopping &&
	       poll(&stop, 1, 0) == 0) {
		struct timespec until;

		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += 100 * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&fs->room, &fs->lock, &until);
	}
	if (!fs->stopping && fs->held < src->max_events)
		room = src->max_events - fs->held;
	pthread_mutex_unlock(&fs->lock);
	return room;
}

static void *reader_main(void *arg)
{
	struct source *src = arg;
	struct fan_source *fs = src->priv;
	struct pollfd pfd[2] = {
		{ .fd = fs->fd, .events = POLLIN },
		{ .fd = src->stop_fd, .events = POLLIN },
	};
	union {
		struct fanotify_event_metadata first;	/* for the alignment */
		char bytes[8192];
	} buf;
	char why[200];
	size_t room;
	ssize_t n;

	for (;;) {
		room = wait_for_room(src, fs);
		if (!room)
			break;
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			snprintf(why, sizeof(why), "poll fanotify: %s", strerror(errno));
			reader_fail(fs, why);
			return NULL;
		}
		if (pfd[1].revents)
			break;
		if (!(pfd[0].revents & POLLIN))
			continue;
		/* No more events than there is room for: one fd each. */
		n = read(fs->fd, buf.bytes,
			 room < sizeof(buf.bytes) / FAN_EVENT_METADATA_LEN ?
			 room * FAN_EVENT_METADATA_LEN : sizeof(buf.bytes));
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			/*
			 * Only a broken fanotify fd stops the reader.  Any other
			 * error is one event's: the kernel could not make its fd
			 * (EMFILE, ENFILE, ENOMEM, an LSM's EACCES...), denied
			 * that open itself and goes on with the next.
			 */
			if (errno != EBADF && errno != EINVAL && errno != EFAULT) {
				atomic_fetch_add(&src->stats->errors, 1);
				log_warning("fanotify: an event failed (its open was denied): %s",
					    strerror(errno));
				continue;
			}
			snprintf(why, sizeof(why), "read fanotify: %s", strerror(errno));
			reader_fail(fs, why);
			return NULL;
		}
		reader_dispatch(src, fs, buf.bytes, n);
	}
	pthread_mutex_lock(&fs->lock);
	fs->closing = 1;
	pthread_cond_broadcast(&fs->ready);
	pthread_mutex_unlock(&fs->lock);
	return NULL;
}

static struct source_worker *fan_worker_open(struct source *src, char *err,
					     size_t errlen)
{
	struct source_worker *w = calloc(1, sizeof(*w));

	if (!w) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	w->src = src;
	w->fs = src->priv;
	return w;
}

static int fan_next(struct source_worker *w, int stop_fd, struct source_event *ev,
		    char *err, size_t errlen)
{
	struct fan_source *fs = w->fs;
	struct fan_pending *p;

	(void)stop_fd;	/* the reader sees it and closes the queue */
	pthread_mutex_lock(&fs->lock);
	while (!fs->head && !fs->closing)
		pthread_cond_wait(&fs->ready, &fs->lock);
	p = fs->head;
	if (p) {
		fs->head = p->next;
		if (!fs->head)
			fs->tail = &fs->head;
	}
	if (!p && fs->failure[0]) {
		snprintf(err, errlen, "%s", fs->failure);
		pthread_mutex_unlock(&fs->lock);
		return -1;
	}
	pthread_mutex_unlock(&fs->lock);
	if (!p)
		return 0;
	ev->fd = p->fd;
	ev->pid = p->pid;
	ev->verdict = VERDICT_ALLOW;
	free(p);
	return 1;
}

static int fan_path(struct source_worker *w, const struct source_event *ev,
		    char *buf, size_t size)
{
	(void)w;
	return dazukofs_fd_path(ev->fd, buf, size) < 0 ? -1 : 0;
}

static int fan_answer(struct source_worker *w, struct source_event *ev, char *err,
		      size_t errlen)
{
	struct fan_source *fs = w->fs;
	int rc = fan_answer_fd(fs->fd, ev->fd, ev->verdict);

	if (rc)
		snprintf(err, errlen, "fanotify response for fd %d: %s", ev->fd,
			 strerror(errno));
	close(ev->fd);
	ev->fd = -1;
	pthread_mutex_lock(&fs->lock);
	if (fs->held-- == w->src->max_events)
		pthread_cond_signal(&fs->room);
	pthread_mutex_unlock(&fs->lock);
	return rc;
}

static void fan_worker_close(struct source_worker *w)
{
	free(w);
}

static int fan_start(struct source *src, char *err, size_t errlen)
{
	struct fan_source *fs = src->priv;
	const char *path = src->cfg->fanotify_mount;
	uint64_t mask = FAN_OPEN_PERM;
	int rc;

	/* Written files need forgetting only where verdicts are cached. */
	if (src->cfg->cache_size)
		mask |= FAN_WRITE_EVENTS;
	/* The reader first: our own opens are answered from the mark on. */
	rc = pthread_create(&fs->reader, NULL, reader_main, src);
	if (rc) {
		snprintf(err, errlen, "fanotify reader thread: %s", strerror(rc));
		return -1;
	}
	fs->reader_running = 1;
	if (fanotify_mark(fs->fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, mask,
			  AT_FDCWD, path)) {
		snprintf(err, errlen, "fanotify_mark %s (FAN_OPEN_PERM, filesystem): %s",
			 path, strerror(errno));
		return -1;
	}
	log_info("fanotify: watching opens on the whole filesystem of %s", path);
	return 0;
}

static void fan_close(struct source *src)
{
	struct fan_source *fs = src->priv;
	struct fan_pending *p;

	if (fs->reader_running) {
		/* The caller wrote stop_fd; wake the reader also if it did not. */
		eventfd_write(src->stop_fd, 1);
		pthread_mutex_lock(&fs->lock);
		fs->stopping = 1;
		pthread_cond_signal(&fs->room);
		pthread_mutex_unlock(&fs->lock);
		pthread_join(fs->reader, NULL);
	}
	/* Closing the group allows whatever is still pending. */
	close(fs->fd);
	while ((p = fs->head)) {
		fs->head = p->next;
		close(p->fd);
		free(p);
	}
	pthread_cond_destroy(&fs->ready);
	pthread_cond_destroy(&fs->room);
	pthread_mutex_destroy(&fs->lock);
	free(fs);
	src->priv = NULL;
}

static const struct source_ops fanotify_ops = {
	.name = "fanotify",
	.start = fan_start,
	.worker_open = fan_worker_open,
	.next = fan_next,
	.path = fan_path,
	.answer = fan_answer,
	.worker_close = fan_worker_close,
	.close = fan_close,
};

int source_fanotify_open(struct source *src, const struct config *cfg,
			 char *err, size_t errlen)
{
	struct fan_source *fs = calloc(1, sizeof(*fs));

	if (!fs) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	src->ops = &fanotify_ops;
	src->cfg = cfg;
	fs->self = getpid();
	fs->tail = &fs->head;
	pthread_mutex_init(&fs->lock, NULL);
	pthread_cond_init(&fs->ready, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&fs->room, &ca);
		pthread_condattr_destroy(&ca);
	}
	fs->fd = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_NONBLOCK |
			       FAN_UNLIMITED_QUEUE,
			       O_RDONLY | O_LARGEFILE | O_CLOEXEC);
	if (fs->fd < 0) {
		snprintf(err, errlen, "fanotify_init: %s", strerror(errno));
		pthread_cond_destroy(&fs->ready);
		pthread_cond_destroy(&fs->room);
		pthread_mutex_destroy(&fs->lock);
		free(fs);
		return -1;
	}
	src->priv = fs;
	return 0;
}
