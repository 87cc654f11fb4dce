// SPDX-License-Identifier: GPL-2.0
/*
 * Events from fanotify: FAN_OPEN_PERM on one mount (FAN_MARK_MOUNT), in
 * the content class.  One fanotify fd, shared by the workers; each reads
 * one event at a time.  Opens by this process itself (a reload reading
 * signatures under the mount) are allowed without a scan.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <unistd.h>

#include "log.h"
#include "source.h"

struct fan_source {
	int fd;
};

struct source_worker {
	struct source *src;
	int fd;
};

static struct source_worker *fan_worker_open(struct source *src, char *err,
					     size_t errlen)
{
	struct source_worker *w = calloc(1, sizeof(*w));

	if (!w) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	w->src = src;
	w->fd = ((struct fan_source *)src->priv)->fd;
	return w;
}

static int fan_answer_fd(int fan_fd, int fd, enum verdict v)
{
	struct fanotify_response r = {
		.fd = fd,
		.response = v == VERDICT_DENY ? FAN_DENY : FAN_ALLOW,
	};

	return write(fan_fd, &r, sizeof(r)) == sizeof(r) ? 0 : -1;
}

static int fan_next(struct source_worker *w, int stop_fd, struct source_event *ev,
		    char *err, size_t errlen)
{
	struct pollfd pfd[2] = {
		{ .fd = w->fd, .events = POLLIN },
		{ .fd = stop_fd, .events = POLLIN },
	};
	struct fanotify_event_metadata m;
	ssize_t n;

	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			snprintf(err, errlen, "poll: %s", strerror(errno));
			return -1;
		}
		if (pfd[1].revents)
			return 0;
		if (!(pfd[0].revents & POLLIN))
			continue;
		/* A buffer of one event: each read takes exactly one. */
		n = read(w->fd, &m, sizeof(m));
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			snprintf(err, errlen, "read fanotify: %s", strerror(errno));
			return -1;
		}
		if (n < (ssize_t)FAN_EVENT_METADATA_LEN ||
		    m.vers != FANOTIFY_METADATA_VERSION) {
			snprintf(err, errlen, "fanotify: unexpected event (%zd bytes, version %u)",
				 n, m.vers);
			return -1;
		}
		if (m.mask & FAN_Q_OVERFLOW) {
			log_warning("fanotify: queue overflow");
			continue;
		}
		if (m.fd < 0)
			continue;
		if (m.pid == getpid()) {
			fan_answer_fd(w->fd, m.fd, VERDICT_ALLOW);
			close(m.fd);
			continue;
		}
		ev->fd = m.fd;
		ev->pid = m.pid;
		ev->verdict = VERDICT_ALLOW;
		return 1;
	}
}

static int fan_path(struct source_worker *w, const struct source_event *ev,
		    char *buf, size_t size)
{
	char link[64];
	ssize_t n;

	(void)w;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", ev->fd);
	n = readlink(link, buf, size - 1);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return 0;
}

static int fan_answer(struct source_worker *w, struct source_event *ev, char *err,
		      size_t errlen)
{
	int rc = fan_answer_fd(w->fd, ev->fd, ev->verdict);

	if (rc)
		snprintf(err, errlen, "fanotify response for fd %d: %s", ev->fd,
			 strerror(errno));
	close(ev->fd);
	ev->fd = -1;
	return rc;
}

static void fan_worker_close(struct source_worker *w)
{
	free(w);
}

static void fan_close(struct source *src)
{
	struct fan_source *fs = src->priv;

	/* Closing the group allows whatever is still pending. */
	close(fs->fd);
	free(fs);
	src->priv = NULL;
}

static const struct source_ops fanotify_ops = {
	.name = "fanotify",
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
	fs->fd = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_NONBLOCK,
			       O_RDONLY | O_LARGEFILE | O_CLOEXEC);
	if (fs->fd < 0) {
		snprintf(err, errlen, "fanotify_init: %s", strerror(errno));
		free(fs);
		return -1;
	}
	if (fanotify_mark(fs->fd, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN_PERM,
			  AT_FDCWD, cfg->fanotify_mount)) {
		snprintf(err, errlen, "fanotify_mark %s (FAN_OPEN_PERM, mount): %s",
			 cfg->fanotify_mount, strerror(errno));
		close(fs->fd);
		free(fs);
		return -1;
	}
	src->priv = fs;
	log_info("fanotify: watching opens on the mount of %s", cfg->fanotify_mount);
	return 0;
}
