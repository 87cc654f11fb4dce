// SPDX-License-Identifier: GPL-2.0
/* The control socket's server (the client: app/control_client.c). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "control/control.h"
#include "control/status.h"
#include "log/log.h"
#include "util/clock.h"
#include "util/jsonb.h"

struct control {
	struct sockaddr_un addr;
	int fd;			/* listening, non-blocking */
	int stop_fd;		/* eventfd: the thread ends */
	dev_t dev;		/* the socket we made: removed only if still it */
	ino_t ino;
	pthread_t thread;
	int started;
	const struct control_ops *ops;
	void *ctx;
};

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); goto fail; } while (0)

static uint64_t now_ms(void)
{
	return scanner_now_us() / 1000;
}

/*
 * Only root (or this user) may enter the directory: the socket's mode
 * alone would leave a window between bind() and chmod(), and a directory
 * others can write lets them put their own socket in its place.
 */
static int check_dir(const char *path, int is_default, char *err, size_t errlen)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *slash;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = 0;
	else
		*slash = 0;
	if (stat(dir, &st)) {
		if (errno == ENOENT && is_default) {
			log_notice("control socket %s: directory %s does not exist (the unit's RuntimeDirectory= makes it): no control socket",
				   path, dir);
			return 1;
		}
		snprintf(err, errlen, "control_socket %s: directory %s: %s", path, dir,
			 strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode) || (st.st_uid != 0 && st.st_uid != geteuid()) ||
	    (st.st_mode & 022)) {
		snprintf(err, errlen,
			 "control_socket %s: directory %s is owned by uid %u with mode %04o; it must be root's or this user's (uid %u) and writable by nobody else (0700 or 0755)",
			 path, dir, (unsigned int)st.st_uid, (unsigned int)(st.st_mode & 07777),
			 (unsigned int)geteuid());
		return -1;
	}
	return 0;
}

/*
 * A socket left at path: a live one is another scanner's (an error), a
 * stale one (nobody listens: a crashed instance) is removed.
 */
static int clear_stale(const struct sockaddr_un *addr, char *err, size_t errlen)
{
	struct stat st;
	int fd, rc;

	if (lstat(addr->sun_path, &st)) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "control_socket %s: %s", addr->sun_path, strerror(errno));
		return -1;
	}
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "control_socket %s: exists and is not a socket; not replaced",
			 addr->sun_path);
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "control_socket: socket: %s", strerror(errno));
		return -1;
	}
	rc = connect(fd, (const struct sockaddr *)addr, sizeof(*addr));
	close(fd);
	if (!rc) {
		snprintf(err, errlen,
			 "control_socket %s: another scanner is running and answers on it; stop it first, or give this one another control_socket",
			 addr->sun_path);
		return -1;
	}
	if (errno != ECONNREFUSED) {
		snprintf(err, errlen, "control_socket %s: connect: %s", addr->sun_path,
			 strerror(errno));
		return -1;
	}
	if (unlink(addr->sun_path) && errno != ENOENT) {
		snprintf(err, errlen, "control_socket %s: removing the stale socket: %s",
			 addr->sun_path, strerror(errno));
		return -1;
	}
	log_notice("control socket %s: replaced a stale socket (an earlier instance's)",
		   addr->sun_path);
	return 0;
}

struct control *control_open(const char *path, int is_default,
			     const struct control_ops *ops, void *ctx,
			     char *err, size_t errlen)
{
	struct control *c;
	struct stat st;
	int rc;

	err[0] = 0;
	if (!path)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "control socket: out of memory");
		return NULL;
	}
	c->fd = c->stop_fd = -1;
	c->ops = ops;
	c->ctx = ctx;
	c->addr.sun_family = AF_UNIX;
	/* config.c checked the length */
	snprintf(c->addr.sun_path, sizeof(c->addr.sun_path), "%s", path);
	rc = check_dir(path, is_default, err, errlen);
	if (rc > 0) {
		free(c);
		return NULL;
	}
	if (rc < 0 || clear_stale(&c->addr, err, errlen))
		goto fail;
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (c->fd < 0)
		FAIL("control_socket: socket: %s", strerror(errno));
	if (bind(c->fd, (struct sockaddr *)&c->addr, sizeof(c->addr)))
		FAIL("control_socket %s: bind: %s", path, strerror(errno));
	if (chmod(path, 0600) || stat(path, &st)) {
		snprintf(err, errlen, "control_socket %s: chmod 0600: %s", path, strerror(errno));
		unlink(path);
		goto fail;
	}
	c->dev = st.st_dev;
	c->ino = st.st_ino;
	if (listen(c->fd, 16)) {
		snprintf(err, errlen, "control_socket %s: listen: %s", path, strerror(errno));
		unlink(path);
		goto fail;
	}
	c->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (c->stop_fd < 0) {
		snprintf(err, errlen, "control_socket: eventfd: %s", strerror(errno));
		unlink(path);
		goto fail;
	}
	return c;
fail:
	if (c->fd >= 0)
		close(c->fd);
	free(c);
	return NULL;
}

static void send_all(int fd, const char *buf, size_t len, int nonblock)
{
	int flags = MSG_NOSIGNAL | (nonblock ? MSG_DONTWAIT : 0);

	while (len) {
		ssize_t n = send(fd, buf, len, flags);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			log_warning("control socket: sending the answer: %s",
				    n < 0 ? strerror(errno) : "nothing sent");
			return;
		}
		buf += n;
		len -= (size_t)n;
	}
}

/*
 * What the client sent past its request, read and dropped: a close with
 * unread data resets the connection, and the client would lose the answer
 * (the error that says its request was too long).
 */
static void drop_input(int fd)
{
	char buf[4096];

	for (size_t total = 0; total < 16 * sizeof(buf); ) {
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n <= 0)
			break;
		total += (size_t)n;
	}
}

void control_answer(int fd, json_object *o, int nonblock)
{
	size_t len;
	const char *s = jsonb_text(o, JSON_C_TO_STRING_PLAIN, &len);

	if (!s) {
		json_object_put(o);
		control_answer_error(fd, "out of memory", nonblock);
		return;
	}
	send_all(fd, s, len, nonblock);
	send_all(fd, "\n", 1, nonblock);
	json_object_put(o);
	drop_input(fd);
	close(fd);
}

void control_answer_error(int fd, const char *msg, int nonblock)
{
	json_object *o = json_object_new_object();
	const char *s;
	size_t len;

	/* not control_answer(): out of memory, it would come back here */
	if (!jsonb_add_bool(o, "ok", 0) && !jsonb_add_string(o, "error", msg) &&
	    (s = jsonb_text(o, JSON_C_TO_STRING_PLAIN, &len))) {
		send_all(fd, s, len, nonblock);
		send_all(fd, "\n", 1, nonblock);
	}
	json_object_put(o);
	drop_input(fd);
	close(fd);
}

/*
 * The request line, within CONTROL_IO_TIMEOUT_MS however the client
 * trickles it: a silent or slow client costs the others that long at most.
 * 0 with the line in buf, -1 with why.
 */
static int read_request(int fd, char buf[CONTROL_REQUEST_MAX + 1], char *why,
			size_t whylen)
{
	uint64_t deadline = now_ms() + CONTROL_IO_TIMEOUT_MS;
	size_t len = 0;
	char *nl;

	for (;;) {
		uint64_t now = now_ms();
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int rc;

		if (now >= deadline || !(rc = poll(&p, 1, (int)(deadline - now)))) {
			snprintf(why, whylen, "no complete request within %u ms",
				 CONTROL_IO_TIMEOUT_MS);
			return -1;
		}
		if (rc < 0) {
			if (errno == EINTR)
				continue;
			snprintf(why, whylen, "poll: %s", strerror(errno));
			return -1;
		}
		n = recv(fd, buf + len, CONTROL_REQUEST_MAX - len, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			snprintf(why, whylen, "reading the request: %s", strerror(errno));
			return -1;
		}
		if (!n) {
			snprintf(why, whylen, "the request ended without a newline");
			return -1;
		}
		len += (size_t)n;
		buf[len] = 0;
		nl = memchr(buf, '\n', len);
		if (nl) {
			if ((size_t)(nl - buf) != len - 1) {
				snprintf(why, whylen, "one request per connection");
				return -1;
			}
			*nl = 0;
			break;
		}
		if (len == CONTROL_REQUEST_MAX) {
			snprintf(why, whylen, "request longer than %d bytes",
				 CONTROL_REQUEST_MAX);
			return -1;
		}
	}
	for (char *p = buf; *p; p++)
		if (!isascii((unsigned char)*p) || !isprint((unsigned char)*p)) {
			snprintf(why, whylen, "malformed request (not a line of printable ASCII)");
			return -1;
		}
	return 0;
}

static void serve(struct control *c, int fd)
{
	struct timeval tv = { CONTROL_IO_TIMEOUT_MS / 1000, (CONTROL_IO_TIMEOUT_MS % 1000) * 1000 };
	char req[CONTROL_REQUEST_MAX + 1], why[160];
	struct ucred cr;
	socklen_t crlen = sizeof(cr);

	/* a client that does not read its answer holds us that long at most */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen)) {
		log_warning("control socket: SO_PEERCRED: %s; connection refused",
			    strerror(errno));
		control_answer_error(fd, "cannot tell who you are (SO_PEERCRED)", 0);
		return;
	}
	if (cr.uid != 0 && cr.uid != geteuid()) {
		log_warning("control socket: uid %u (pid %d) refused: root only",
			    (unsigned int)cr.uid, (int)cr.pid);
		snprintf(why, sizeof(why),
			 "permission denied: uid %u may not use the control socket (root only)",
			 (unsigned int)cr.uid);
		control_answer_error(fd, why, 0);
		return;
	}
	if (read_request(fd, req, why, sizeof(why))) {
		log_warning("control socket: pid %d: %s", (int)cr.pid, why);
		control_answer_error(fd, why, 0);
		return;
	}
	if (!strcmp(req, "status")) {
		control_answer(fd, c->ops->status(c->ctx), 0);
	} else if (!strcmp(req, "reload")) {
		log_notice("control socket: reload asked by pid %d", (int)cr.pid);
		c->ops->reload(c->ctx, fd);
	} else {
		snprintf(why, sizeof(why), "unknown command '%.*s' (known: status, reload)",
			 CONTROL_REQUEST_MAX, req);
		log_warning("control socket: pid %d: %s", (int)cr.pid, why);
		control_answer_error(fd, why, 0);
	}
}

static void *control_main(void *arg)
{
	struct control *c = arg;
	struct pollfd p[2] = {
		{ .fd = c->stop_fd, .events = POLLIN },
		{ .fd = c->fd, .events = POLLIN },
	};

	for (;;) {
		int fd;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			log_error("control socket: poll: %s; no more requests served",
				  strerror(errno));
			return NULL;
		}
		if (p[0].revents)
			return NULL;
		if (!(p[1].revents & POLLIN))
			continue;
		fd = accept4(c->fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
				log_warning("control socket: accept: %s", strerror(errno));
			/* out of fds, say: not a busy loop */
			if (errno == EMFILE || errno == ENFILE)
				poll(NULL, 0, 100);
			continue;
		}
		serve(c, fd);
	}
}

int control_start(struct control *c, char *err, size_t errlen)
{
	int rc;

	if (!c)
		return 0;
	rc = pthread_create(&c->thread, NULL, control_main, c);
	if (rc) {
		snprintf(err, errlen, "control socket: pthread_create: %s", strerror(rc));
		return -1;
	}
	c->started = 1;
	return 0;
}

void control_close(struct control *c)
{
	struct stat st;

	if (!c)
		return;
	if (c->started) {
		eventfd_write(c->stop_fd, 1);
		pthread_join(c->thread, NULL);
	}
	/* not another instance's, started on the same path since */
	if (!lstat(c->addr.sun_path, &st) && st.st_dev == c->dev && st.st_ino == c->ino)
		unlink(c->addr.sun_path);
	close(c->fd);
	close(c->stop_fd);
	free(c);
}
