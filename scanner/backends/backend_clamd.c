// SPDX-License-Identifier: GPL-2.0
/*
 * The clamd backend: an ordered list of clamd servers, a local one over
 * its UNIX socket (the event's fd is passed, FILDES: clamd never opens
 * the path) and remote ones over TCP (the file is sent, INSTREAM).
 *
 * Each server keeps a pool of idle IDSESSION connections, so a scan costs
 * no handshake; a worker takes one for a request and gives it back after
 * a clean or infected answer (anything else closes it: the session's
 * state is unknown).  A server that cannot be reached, breaks the
 * connection or does not answer within clamd_timeout_ms is taken out
 * ("down") for clamd_retry_ms, and the request goes to the next server;
 * after that time one request tries it again.  Only an answer (OK, FOUND)
 * is a verdict; everything else is SCAN_ERROR, for on_error.
 *
 * The local clamd's process is learnt at each connection (SO_PEERCRED),
 * so that the fanotify source answers its own opens at once (waits_on):
 * its temporary files and signatures may be on the watched filesystem,
 * and a scan of those would wait for the clamd that waits for the scan.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "backends/backend.h"
#include "backends/clamd_proto.h"
#include "config/config.h"
#include "log/log.h"
#include "util/clock.h"
#include "util/db_fingerprint.h"

/*
 * Messages may be cut to their buffers; the socket path fits (config.c
 * refuses longer ones).
 */
#pragma GCC diagnostic ignored "-Wformat-truncation"

/* What libclamav would call a file over a limit; StreamMaxLength is clamd's. */
#define SIG_STREAM_MAX_LENGTH "Heuristics.Limits.Exceeded.StreamMaxLength"
#define CHUNK (64 * 1024)
/* Idle sessions kept per server; more are closed. */
#define POOL_MAX 64
/*
 * An idle session older than this is closed rather than reused: clamd
 * ends a session idle for its ReadTimeout (120 s by default) and says so
 * with a line that would be read as the next request's answer.
 */
#define IDLE_MAX_US (20ULL * 1000000)

struct clamd_conn {
	int fd;
	unsigned int next_id;		/* IDSESSION number of the next request */
	uint64_t idle_since_us;
	struct clamd_conn *next;
};

/* Addresses of a TCP server tried in turn, of those its name resolves to. */
#define CLAMD_ADDRS_MAX 8

struct clamd_server {
	char name[300];			/* the socket's path, or host:port */
	int local;			/* UNIX socket: FILDES; else TCP: INSTREAM */
	char host[256], port[8];
	pthread_mutex_t lock;		/* everything below */
	struct clamd_conn *idle;
	unsigned int nidle;
	int down;
	uint64_t retry_at_us;		/* down: when a request may try it again */
	int probing;			/* down: a request is trying it now */
	char why[256];			/* down: the failure that took it out */
	uint64_t scans, errors, failovers, latency_us_sum, latency_us_max;
	char version[256];		/* VERSION's last answer, "" until one */
	/*
	 * A TCP server's addresses, resolved at start and by the watcher,
	 * never in a scan: a slow resolver would hold the scan past its
	 * deadline.  naddrs 0: not resolved (resolve_why says why).
	 */
	struct sockaddr_storage addrs[CLAMD_ADDRS_MAX];
	socklen_t addrlens[CLAMD_ADDRS_MAX];
	unsigned int naddrs;
	int resolve_failing;
	char resolve_why[256];
	/*
	 * A local server's process, from the last connection's SO_PEERCRED:
	 * pid is read without the lock (the fanotify reader asks for every
	 * event); pidfd, under the lock, tells whether that process still
	 * lives, so that a number reused after clamd died is not taken for
	 * clamd.  0 and -1: unknown.
	 */
	atomic_int pid;
	int pidfd;
	int pid_warned;			/* an unknown pid was logged */
	/*
	 * The last process learnt, never forgotten: another one answering
	 * is a restarted clamd, with a new engine and maybe a new clamd.conf.
	 */
	pid_t last_pid;
};

_Static_assert(sizeof(pid_t) == sizeof(int), "pid_t kept in an atomic_int");

/*
 * How often each server is asked for its VERSION: clamd reloads its
 * signatures on its own (SelfCheck, or a RELOAD from freshclam), and the
 * verdict cache must not keep what was clean by the old ones for longer.
 */
#define SIGNATURE_CHECK_MS 5000
/*
 * After a change in the local clamd's DatabaseDirectory, how long no
 * clean answer is remembered.  clamd's protocol tells nobody when a
 * reload ends (VERSION names the daily database only, and a reload runs
 * beside the scans), so this is a bound on how long clamd takes to load
 * its signatures, generous for the full official set on a slow machine.
 */
#define RELOAD_HOLD_MS 120000

struct clamd_backend {
	const struct config *cfg;
	struct clamd_server *servers;
	size_t n;
	/* the signature watcher: a thread, stopped by destroy */
	void (*signatures_changed)(void *ctx);
	void *ctx;
	pthread_t watcher;
	int watching;
	pthread_mutex_t watch_lock;	/* stop */
	pthread_cond_t watch_cond;
	int stop;
	/*
	 * The local clamd's DatabaseDirectory (the database setting), if it
	 * could be read at start: its fingerprint, taken by the watcher only.
	 * Local .ndb, .hdb, .fp, .ign2 files and main or bytecode updates
	 * change no VERSION.
	 */
	int db_watched;
	struct db_fingerprint db;
	/* scanner_now_us() until which clean answers are not remembered */
	atomic_uint_fast64_t hold_until_us;
	/*
	 * A clean answer for a larger file is not remembered: clamd calls a
	 * file past MaxFileSize or MaxScanSize clean without reading all of
	 * it (unless AlertExceedsMax).  0: no limit.
	 */
	uint64_t remember_max;
};

/* How one request to one server went. */
enum attempt {
	ATTEMPT_ANSWER,		/* a reply, parsed */
	ATTEMPT_SERVER,		/* the server failed: connect, I/O, timeout */
	ATTEMPT_FILE,		/* the file could not be read (INSTREAM) */
	ATTEMPT_TOO_LARGE,	/* past stream_max_length, not sent */
};

static int remaining_ms(uint64_t deadline_us)
{
	uint64_t now = scanner_now_us();

	if (now >= deadline_us)
		return 0;
	return (int)((deadline_us - now + 999) / 1000);
}

/* Wait for events on fd until the deadline; -1 with errno ETIMEDOUT. */
static int wait_fd(int fd, short events, uint64_t deadline_us)
{
	struct pollfd p = { .fd = fd, .events = events };
	int ms, rc;

	for (;;) {
		ms = remaining_ms(deadline_us);
		if (!ms) {
			errno = ETIMEDOUT;
			return -1;
		}
		rc = poll(&p, 1, ms);
		if (rc > 0)
			return 0;
		if (rc < 0 && errno != EINTR)
			return -1;
	}
}

static int send_all(int fd, const void *buf, size_t len, uint64_t deadline_us)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN || wait_fd(fd, POLLOUT, deadline_us))
				return -1;
			continue;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Read one NUL-terminated reply into buf (without the NUL).  *extra is
 * set when more bytes followed it: the session is out of step.
 */
static int read_reply(int fd, char *buf, size_t size, size_t *len, int *extra,
		      uint64_t deadline_us, char *why, size_t whylen)
{
	size_t got = 0;
	char *nul;

	*extra = 0;
	for (;;) {
		ssize_t n = recv(fd, buf + got, size - got, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN && !wait_fd(fd, POLLIN, deadline_us))
				continue;
			snprintf(why, whylen, "reading the reply: %s", strerror(errno));
			return -1;
		}
		if (!n) {
			snprintf(why, whylen, "connection closed %s",
				 got ? "inside a reply" : "before a reply");
			return -1;
		}
		nul = memchr(buf + got, 0, (size_t)n);
		got += (size_t)n;
		if (nul) {
			*len = (size_t)(nul - buf);
			*extra = got > *len + 1;
			return 0;
		}
		if (got == size) {
			snprintf(why, whylen, "a reply longer than %zu bytes", size);
			return -1;
		}
	}
}

static int connect_one(int family, const struct sockaddr *sa, socklen_t salen,
		       uint64_t deadline_us)
{
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int e = 0, one = 1;
	socklen_t el = sizeof(e);

	if (fd < 0)
		return -1;
	if (connect(fd, sa, salen)) {
		/* a UNIX socket with a full backlog says EAGAIN: a busy server */
		if (errno != EINPROGRESS) {
			e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		if (wait_fd(fd, POLLOUT, deadline_us) ||
		    getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) || e) {
			e = e ? e : errno;
			close(fd);
			errno = e;
			return -1;
		}
	}
	/* small commands and replies, each waited for */
	if (family != AF_UNIX)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* 1 if the process of pidfd has not exited. */
static int pidfd_alive(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return pidfd >= 0 && poll(&p, 1, 0) == 0;
}

/* s's process is unknown from now on (under s->lock). */
static void server_forget_pid(struct clamd_server *s)
{
	atomic_store(&s->pid, 0);
	if (s->pidfd >= 0)
		close(s->pidfd);
	s->pidfd = -1;
}

/*
 * Why the process at the other end of fd cannot be told apart: "" if it
 * can, then *pid and *pidfd are set (a new pidfd, or -1 when pid is the
 * one known already and alive).
 */
static void peer_process(struct clamd_server *s, int fd, pid_t *pid, int *pidfd,
			 char *why, size_t whylen)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	*why = 0;
	*pidfd = -1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len)) {
		snprintf(why, whylen, "SO_PEERCRED: %s", strerror(errno));
		return;
	}
	*pid = cr.pid;
	if (cr.pid <= 0) {
		snprintf(why, whylen, "clamd is in another pid namespace");
		return;
	}
	/*
	 * The credentials are those of whoever called listen(): with socket
	 * activation, systemd's.  Never take pid 1 (or this one) for clamd.
	 */
	if (cr.pid == 1 || cr.pid == getpid()) {
		snprintf(why, whylen, "the socket was made by pid %d, not by clamd (systemd's socket activation?)",
			 (int)cr.pid);
		return;
	}
	pthread_mutex_lock(&s->lock);
	if (atomic_load(&s->pid) == cr.pid && pidfd_alive(s->pidfd)) {
		pthread_mutex_unlock(&s->lock);
		return;		/* the same clamd as before */
	}
	pthread_mutex_unlock(&s->lock);
	*pidfd = pidfd_open(cr.pid, 0);
	if (*pidfd < 0) {
		int e = errno;

		snprintf(why, whylen, "pidfd_open(%d): %s%s", (int)cr.pid, strerror(e),
			 e == ESRCH ? " (the process that made the socket has exited)" : "");
	}
}

/*
 * After each connection to the local server s: learn which process it is,
 * for waits_on.  Asking every time keeps up with a restarted clamd (a new
 * pid) before its first request; a known pid costs a getsockopt and a poll.
 */
static void server_learn_pid(struct clamd_backend *cb, struct clamd_server *s, int fd)
{
	char why[200];
	int pidfd, warn = 0, learnt = 0, restarted = 0;
	pid_t pid = 0, was = 0;

	peer_process(s, fd, &pid, &pidfd, why, sizeof(why));
	if (!why[0] && pidfd < 0)
		return;
	pthread_mutex_lock(&s->lock);
	if (why[0]) {
		/* whatever was known, the socket is someone else's now */
		server_forget_pid(s);
		warn = !s->pid_warned;
		s->pid_warned = 1;
	} else if (atomic_load(&s->pid) == pid && pidfd_alive(s->pidfd)) {
		close(pidfd);	/* another worker learnt it first */
	} else {
		server_forget_pid(s);
		s->pidfd = pidfd;
		atomic_store(&s->pid, pid);
		s->pid_warned = 0;
		learnt = 1;
		restarted = s->last_pid && s->last_pid != pid;
		was = s->last_pid;
		s->last_pid = pid;
	}
	pthread_mutex_unlock(&s->lock);
	if (learnt)
		log_info("clamd %s: pid %d%s", s->name, (int)pid,
			 cb->cfg->source == SOURCE_FANOTIFY ?
			 " (its opens are answered at once, unscanned)" : "");
	/* before this connection's first request: its answers are the new engine's */
	if (restarted && cb->signatures_changed) {
		log_notice("clamd %s: a new process (pid %d, was %d): its signatures and clamd.conf may differ",
			   s->name, (int)pid, (int)was);
		cb->signatures_changed(cb->ctx);
	}
	else if (warn && cb->cfg->source == SOURCE_FANOTIFY)
		log_warning("clamd %s: its pid is unknown (%s): its opens on the watched filesystem wait for a scan; keep its TemporaryDirectory and DatabaseDirectory off it",
			    s->name, why);
	else if (warn)
		log_debug("clamd %s: its pid is unknown: %s", s->name, why);
}

/*
 * Resolve a TCP server's name, outside any lock (the resolver may take its
 * time), then keep the addresses: at start and from the watcher only.  A
 * failure keeps the addresses resolved before, if any.
 */
static void resolve_server(struct clamd_server *s)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL, *ai;
	struct sockaddr_storage addrs[CLAMD_ADDRS_MAX];
	socklen_t lens[CLAMD_ADDRS_MAX];
	unsigned int n = 0, kept;
	int rc, warn;

	if (s->local)
		return;
	rc = getaddrinfo(s->host, s->port, &hints, &res);
	for (ai = rc ? NULL : res; ai && n < CLAMD_ADDRS_MAX; ai = ai->ai_next) {
		if (ai->ai_addrlen > sizeof(addrs[n]))
			continue;
		memcpy(&addrs[n], ai->ai_addr, ai->ai_addrlen);
		lens[n++] = ai->ai_addrlen;
	}
	if (!rc)
		freeaddrinfo(res);
	pthread_mutex_lock(&s->lock);
	/* Logged when it starts failing, not every round. */
	warn = !n && !s->resolve_failing;
	kept = s->naddrs;
	s->resolve_failing = !n;
	if (n) {
		memcpy(s->addrs, addrs, sizeof(addrs));
		memcpy(s->addrlens, lens, sizeof(lens));
		s->naddrs = n;
	} else {
		snprintf(s->resolve_why, sizeof(s->resolve_why), "resolving %s: %s",
			 s->host, rc ? gai_strerror(rc) : "no address");
	}
	pthread_mutex_unlock(&s->lock);
	if (warn)
		log_warning("clamd %s: resolving %s: %s%s", s->name, s->host,
			    rc ? gai_strerror(rc) : "no address",
			    kept ? "; the last addresses are kept" : "");
}

/* A new session with s; NULL with why. */
static struct clamd_conn *conn_open(struct clamd_backend *cb, struct clamd_server *s,
				    uint64_t deadline_us, char *why, size_t whylen)
{
	static const char idsession[] = "zIDSESSION";
	struct clamd_conn *c;
	int fd = -1;

	if (s->local) {
		struct sockaddr_un sun = { .sun_family = AF_UNIX };

		snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", s->name);
		fd = connect_one(AF_UNIX, (struct sockaddr *)&sun, sizeof(sun),
				 deadline_us);
		if (fd < 0) {
			snprintf(why, whylen, "connect: %s", strerror(errno));
			return NULL;
		}
		/* before the request: clamd's opens for it must not wait */
		server_learn_pid(cb, s, fd);
	} else {
		struct sockaddr_storage addrs[CLAMD_ADDRS_MAX];
		socklen_t lens[CLAMD_ADDRS_MAX];
		unsigned int n;

		pthread_mutex_lock(&s->lock);
		n = s->naddrs;
		memcpy(addrs, s->addrs, sizeof(addrs));
		memcpy(lens, s->addrlens, sizeof(lens));
		if (!n)
			snprintf(why, whylen, "%s", s->resolve_why);
		pthread_mutex_unlock(&s->lock);
		if (!n)
			return NULL;
		errno = EADDRNOTAVAIL;
		for (unsigned int i = 0; i < n && fd < 0; i++)
			fd = connect_one(addrs[i].ss_family, (struct sockaddr *)&addrs[i],
					 lens[i], deadline_us);
		if (fd < 0) {
			snprintf(why, whylen, "connect: %s", strerror(errno));
			return NULL;
		}
	}
	/* IDSESSION has no reply; its requests are numbered from 1 */
	if (send_all(fd, idsession, sizeof(idsession), deadline_us)) {
		snprintf(why, whylen, "sending IDSESSION: %s", strerror(errno));
		close(fd);
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(why, whylen, "out of memory");
		close(fd);
		return NULL;
	}
	c->fd = fd;
	c->next_id = 1;
	return c;
}

static void conn_close(struct clamd_conn *c, int polite)
{
	static const char end[] = "zEND";

	if (!c)
		return;
	if (polite)
		(void)!send(c->fd, end, sizeof(end), MSG_NOSIGNAL | MSG_DONTWAIT);
	close(c->fd);
	free(c);
}

/* An idle session still usable: not too old, nothing (EOF, a stale line) to read. */
static int conn_fresh(struct clamd_conn *c, uint64_t now_us)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN };

	if (now_us - c->idle_since_us > IDLE_MAX_US)
		return 0;
	return poll(&p, 1, 0) == 0;
}

/* A pooled session of s, or NULL (then a new one is opened). */
static struct clamd_conn *pool_get(struct clamd_server *s)
{
	uint64_t now = scanner_now_us();
	struct clamd_conn *c;

	pthread_mutex_lock(&s->lock);
	while ((c = s->idle)) {
		s->idle = c->next;
		s->nidle--;
		if (conn_fresh(c, now))
			break;
		pthread_mutex_unlock(&s->lock);
		conn_close(c, 0);
		pthread_mutex_lock(&s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	return c;
}

static void pool_put(struct clamd_server *s, struct clamd_conn *c)
{
	c->idle_since_us = scanner_now_us();
	pthread_mutex_lock(&s->lock);
	if (s->nidle < POOL_MAX) {
		c->next = s->idle;
		s->idle = c;
		s->nidle++;
		c = NULL;
	}
	pthread_mutex_unlock(&s->lock);
	conn_close(c, 1);
}

/* zFILDES, then the fd in SCM_RIGHTS with one byte, as clamdscan sends it. */
static int send_fildes(struct clamd_conn *c, int fd, uint64_t deadline_us)
{
	static const char cmd[] = "zFILDES";
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	char dummy = 0;
	struct iovec iov = { .iov_base = &dummy, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *cm;

	if (send_all(c->fd, cmd, sizeof(cmd), deadline_us))
		return -1;
	memset(&u, 0, sizeof(u));
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	for (;;) {
		if (sendmsg(c->fd, &msg, MSG_NOSIGNAL) == 1)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN || wait_fd(c->fd, POLLOUT, deadline_us))
			return -1;
	}
}

/*
 * zINSTREAM and the file in chunks, from offset 0 through its own fd
 * (pread: the opener's offset is not moved).  A file that grew past
 * max (0: no limit) since its size was checked is not sent whole:
 * ATTEMPT_TOO_LARGE, the connection is then unusable.
 */
static enum attempt send_stream(struct clamd_conn *c, int fd, uint64_t max,
				uint64_t deadline_us, char *why, size_t whylen)
{
	static const char cmd[] = "zINSTREAM";
	static __thread unsigned char buf[4 + CHUNK];
	uint64_t off = 0;
	ssize_t n;

	if (send_all(c->fd, cmd, sizeof(cmd), deadline_us)) {
		snprintf(why, whylen, "sending INSTREAM: %s", strerror(errno));
		return ATTEMPT_SERVER;
	}
	for (;;) {
		n = pread(fd, buf + 4, CHUNK, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(why, whylen, "reading the file at offset %" PRIu64 ": %s",
				 off, strerror(errno));
			return ATTEMPT_FILE;
		}
		if (max && off + (uint64_t)n > max) {
			snprintf(why, whylen, "%s", SIG_STREAM_MAX_LENGTH);
			return ATTEMPT_TOO_LARGE;
		}
		clamd_chunk_header((uint32_t)n, buf);
		if (send_all(c->fd, buf, 4 + (size_t)n, deadline_us)) {
			snprintf(why, whylen, "sending the file: %s", strerror(errno));
			return ATTEMPT_SERVER;
		}
		if (!n)
			return ATTEMPT_ANSWER;	/* the empty chunk ends the stream */
		off += (uint64_t)n;
	}
}

/*
 * One request on session c; ATTEMPT_ANSWER with the reply in r.  *reuse
 * is set when c may go back to the pool.
 */
static enum attempt request(struct clamd_backend *cb, struct clamd_conn *c, int fd, enum clamd_request req,
			    uint64_t deadline_us, struct clamd_reply *r, int *reuse,
			    char *why, size_t whylen)
{
	char reply[CLAMD_REPLY_MAX], scratch[128];
	unsigned int id = c->next_id++;
	enum attempt at = ATTEMPT_ANSWER;
	size_t len;
	int extra;

	*reuse = 0;
	if (req == CLAMD_REQ_FD) {
		if (send_fildes(c, fd, deadline_us)) {
			snprintf(why, whylen, "sending FILDES: %s", strerror(errno));
			return ATTEMPT_SERVER;
		}
	} else if (req == CLAMD_REQ_STREAM) {
		at = send_stream(c, fd, cb->cfg->stream_max_length, deadline_us, why,
				 whylen);
		/*
		 * clamd may have answered and closed before the whole file was
		 * sent ("INSTREAM size limit exceeded"): its reply says more
		 * than a broken pipe.
		 */
		if (at == ATTEMPT_FILE || at == ATTEMPT_TOO_LARGE)
			return at;
	} else {
		const char *cmd = req == CLAMD_REQ_PING ? "zPING" : "zVERSION";

		if (send_all(c->fd, cmd, strlen(cmd) + 1, deadline_us)) {
			snprintf(why, whylen, "sending %s: %s", cmd + 1, strerror(errno));
			return ATTEMPT_SERVER;
		}
	}
	/* after a failed send, why keeps the send's failure */
	if (read_reply(c->fd, reply, sizeof(reply), &len, &extra, deadline_us,
		       at == ATTEMPT_SERVER ? scratch : why,
		       at == ATTEMPT_SERVER ? sizeof(scratch) : whylen))
		return ATTEMPT_SERVER;
	clamd_parse_reply(reply, len, id, req, r);
	*reuse = !extra && at == ATTEMPT_ANSWER &&
		 (r->kind == CLAMD_REPLY_OK || r->kind == CLAMD_REPLY_FOUND ||
		  r->kind == CLAMD_REPLY_PONG || r->kind == CLAMD_REPLY_VERSION);
	return ATTEMPT_ANSWER;
}

/* One request to s, on a pooled session or a new one; see request(). */
static enum attempt ask(struct clamd_backend *cb, struct clamd_server *s, int fd,
			enum clamd_request req, uint64_t deadline_us,
			struct clamd_reply *r, char *why, size_t whylen)
{
	struct clamd_conn *c = pool_get(s);
	int pooled = c != NULL, reuse;
	enum attempt at;

	for (;;) {
		if (!c) {
			c = conn_open(cb, s, deadline_us, why, whylen);
			if (!c)
				return ATTEMPT_SERVER;
		}
		at = request(cb, c, fd, req, deadline_us, r, &reuse, why, whylen);
		if (reuse) {
			pool_put(s, c);
			return at;
		}
		conn_close(c, 0);
		c = NULL;
		/*
		 * A pooled session may have been closed by clamd just before
		 * it was used: one more try on a new connection before the
		 * server is blamed.  (A file sent with FILDES or INSTREAM is
		 * read again from offset 0, so retrying is safe.)
		 */
		if (at != ATTEMPT_SERVER || !pooled || !remaining_ms(deadline_us))
			return at;
		pooled = 0;
		log_debug("clamd %s: pooled session failed (%s); retrying on a new one",
			  s->name, why);
	}
}

/* May a request use s now?  A down server: one request once retry_at is past. */
static int server_take(struct clamd_server *s, uint64_t now_us)
{
	int ok = 1;

	pthread_mutex_lock(&s->lock);
	if (s->down) {
		ok = !s->probing && now_us >= s->retry_at_us;
		if (ok)
			s->probing = 1;
	}
	pthread_mutex_unlock(&s->lock);
	return ok;
}

static void server_failed(struct clamd_backend *cb, struct clamd_server *s,
			  const char *why)
{
	int was_down;

	pthread_mutex_lock(&s->lock);
	was_down = s->down;
	s->down = 1;
	s->probing = 0;
	s->errors++;
	s->retry_at_us = scanner_now_us() + (uint64_t)cb->cfg->clamd_retry_ms * 1000;
	snprintf(s->why, sizeof(s->why), "%s", why);
	pthread_mutex_unlock(&s->lock);
	if (!was_down)
		log_warning("clamd %s: %s; taken out for %u ms", s->name, why,
			    cb->cfg->clamd_retry_ms);
	else
		log_debug("clamd %s: still failing: %s", s->name, why);
}

static void server_answered(struct clamd_server *s, uint64_t us, int error)
{
	int was_down;

	pthread_mutex_lock(&s->lock);
	was_down = s->down;
	s->down = 0;
	s->probing = 0;
	s->scans++;
	s->errors += (uint64_t)error;
	s->latency_us_sum += us;
	if (us > s->latency_us_max)
		s->latency_us_max = us;
	pthread_mutex_unlock(&s->lock);
	if (was_down)
		log_notice("clamd %s: answering again; back in use", s->name);
}

/* Release a probe that ended without blaming the server (file errors). */
static void server_release(struct clamd_server *s)
{
	pthread_mutex_lock(&s->lock);
	s->probing = 0;
	pthread_mutex_unlock(&s->lock);
}

static enum scan_result cd_scan(struct backend *b, int fd, const struct stat *st,
				const char *name, struct scan_answer *a)
{
	struct clamd_backend *cb = b->priv;
	const struct config *cfg = cb->cfg;
	uint64_t start = scanner_now_us(), end_us, t0;
	char why[256], tried[512] = "";
	size_t tlen = 0;
	int too_large = 0;
	struct clamd_reply r;

	(void)name;
	a->server = NULL;
	/* the kernel settles the event at timeout_ms: no use asking after that */
	end_us = cfg->source == SOURCE_DAZUKOFS && cfg->timeout_ms ?
		 start + (uint64_t)cfg->timeout_ms * 1000 : UINT64_MAX;
	for (size_t i = 0; i < cb->n; i++) {
		struct clamd_server *s = &cb->servers[i];
		uint64_t deadline;
		enum attempt at;

		if (!s->local && cfg->stream_max_length &&
		    (uint64_t)st->st_size > cfg->stream_max_length) {
			too_large = 1;	/* too large to send; a local one may take it */
			continue;
		}
		if (!server_take(s, scanner_now_us()))
			continue;
		t0 = scanner_now_us();
		deadline = t0 + (uint64_t)cfg->clamd_timeout_ms * 1000;
		if (deadline > end_us)
			deadline = end_us;
		if (t0 >= deadline) {
			server_release(s);
			break;
		}
		at = ask(cb, s, fd, s->local ? CLAMD_REQ_FD : CLAMD_REQ_STREAM,
			 deadline, &r, why, sizeof(why));
		switch (at) {
		case ATTEMPT_SERVER:
			server_failed(cb, s, why);
			pthread_mutex_lock(&s->lock);
			s->failovers += i + 1 < cb->n;
			pthread_mutex_unlock(&s->lock);
			tlen += (size_t)snprintf(tried + tlen, tlen < sizeof(tried) ?
						 sizeof(tried) - tlen : 0, "%s%s: %s",
						 tlen ? "; " : "", s->name, why);
			if (tlen >= sizeof(tried))
				tlen = sizeof(tried) - 1;
			continue;
		case ATTEMPT_FILE:
			server_release(s);
			snprintf(a->sig, sizeof(a->sig), "%s", why);
			return SCAN_ERROR;
		case ATTEMPT_TOO_LARGE:
			/* grew past the limit while being sent */
			server_release(s);
			too_large = 1;
			continue;
		case ATTEMPT_ANSWER:
			break;
		}
		a->server = s->name;
		server_answered(s, scanner_now_us() - t0,
				r.kind != CLAMD_REPLY_OK && r.kind != CLAMD_REPLY_FOUND);
		switch (r.kind) {
		case CLAMD_REPLY_OK:
			if (cb->remember_max && (uint64_t)st->st_size > cb->remember_max)
				a->unremembered = "larger than max_scan_size or max_file_size, the servers' limits";
			else if (scanner_now_us() < atomic_load(&cb->hold_until_us))
				a->unremembered = "the local clamd is reloading its changed DatabaseDirectory";
			return SCAN_CLEAN;
		case CLAMD_REPLY_FOUND:
			snprintf(a->sig, sizeof(a->sig), "%s", r.text);
			return backend_classify_detection(r.text);
		case CLAMD_REPLY_SIZE_LIMIT:
			/* our stream_max_length is larger than the server's */
			snprintf(a->sig, sizeof(a->sig),
				 "clamd %s: %s (its StreamMaxLength is below stream_max_length)",
				 s->name, r.text);
			return SCAN_ERROR;
		case CLAMD_REPLY_ERROR:
			snprintf(a->sig, sizeof(a->sig), "clamd %s: %s", s->name, r.text);
			return SCAN_ERROR;
		default:
			snprintf(a->sig, sizeof(a->sig), "clamd %s: unexpected reply '%s'",
				 s->name, r.text);
			return SCAN_ERROR;
		}
	}
	if (too_large && !tlen) {
		snprintf(a->sig, sizeof(a->sig), "%s", SIG_STREAM_MAX_LENGTH);
		return SCAN_EXCEEDS_MAX;
	}
	snprintf(a->sig, sizeof(a->sig), "no clamd server answered%s%s%s",
		 tlen ? " (" : " (all taken out after failures)", tried, tlen ? ")" : "");
	return SCAN_ERROR;
}

static void cd_log_stats(struct backend *b)
{
	struct clamd_backend *cb = b->priv;

	for (size_t i = 0; i < cb->n; i++) {
		struct clamd_server *s = &cb->servers[i];
		uint64_t scans, errors, failovers, sum, max;
		unsigned int nidle;
		int down;

		pthread_mutex_lock(&s->lock);
		scans = s->scans;
		errors = s->errors;
		failovers = s->failovers;
		sum = s->latency_us_sum;
		max = s->latency_us_max;
		down = s->down;
		nidle = s->nidle;
		pthread_mutex_unlock(&s->lock);
		log_notice("statistics: clamd %s: state=%s scans=%" PRIu64 " errors=%" PRIu64
			   " failovers=%" PRIu64 " latency_avg_us=%" PRIu64
			   " latency_max_us=%" PRIu64 " idle_sessions=%u",
			   s->name, down ? "down" : "up", scans, errors, failovers,
			   scans ? sum / scans : 0, max, nidle);
	}
}

static void cd_status(struct backend *b, char *buf, size_t len)
{
	struct clamd_backend *cb = b->priv;
	size_t up = 0;

	for (size_t i = 0; i < cb->n; i++) {
		pthread_mutex_lock(&cb->servers[i].lock);
		up += !cb->servers[i].down;
		pthread_mutex_unlock(&cb->servers[i].lock);
	}
	snprintf(buf, len, "clamd_up=%zu/%zu", up, cb->n);
}

/*
 * Ask s for its VERSION and remember it.  Return: 1 if s answered with
 * another version than the last time (new signatures), 0 if with the
 * same, -1 if it cannot tell (s down, no answer, or no earlier answer).
 */
static int check_version(struct clamd_backend *cb, struct clamd_server *s)
{
	uint64_t deadline = scanner_now_us() + (uint64_t)cb->cfg->clamd_timeout_ms * 1000;
	char why[256] = "", old[sizeof(s->version)];
	struct clamd_reply r = { 0 };
	int down, changed;

	pthread_mutex_lock(&s->lock);
	down = s->down;
	pthread_mutex_unlock(&s->lock);
	if (down)
		return -1;
	/* No answer: r was never filled in, only why. */
	if (ask(cb, s, -1, CLAMD_REQ_VERSION, deadline, &r, why, sizeof(why)) !=
	    ATTEMPT_ANSWER) {
		log_debug("clamd %s: VERSION: %s", s->name, why);
		return -1;
	}
	if (r.kind != CLAMD_REPLY_VERSION) {
		log_debug("clamd %s: VERSION: unexpected reply '%s'", s->name, r.text);
		return -1;
	}
	pthread_mutex_lock(&s->lock);
	changed = s->version[0] && strcmp(s->version, r.text);
	memcpy(old, s->version, sizeof(old));
	snprintf(s->version, sizeof(s->version), "%s", r.text);
	pthread_mutex_unlock(&s->lock);
	if (changed)
		log_notice("clamd %s: new signatures ('%s', was '%s')", s->name,
			   r.text, old);
	else if (!old[0])
		log_info("clamd %s: %s", s->name, r.text);
	return changed ? 1 : old[0] ? 0 : -1;
}

/*
 * backend_ops.reload: clamd loads its own signatures.  Each log rotation
 * sends SIGHUP too: a flush then would rescan everything for nothing, so
 * the verdicts stay while every server still answers VERSION as before
 * (a change the watcher saw was flushed by it; one seen here is not seen
 * again by the watcher: the caller flushes for it).  Anything unknown:
 * flushed.  Forced (SIGUSR2): flushed, for signatures without a version
 * (a .ndb of your own) that VERSION cannot show.
 */
static enum backend_reload cd_reload(struct backend *b, int force, char *msg, size_t msglen)
{
	struct clamd_backend *cb = b->priv;
	int same = 1;

	if (force) {
		snprintf(msg, msglen,
			 "reload (SIGUSR2): verdict cache cleared; clamd loads its own signatures");
		return RELOAD_FLUSH;
	}
	/* all of them: each remembers its new version */
	for (size_t i = 0; i < cb->n; i++)
		if (check_version(cb, &cb->servers[i]) != 0)
			same = 0;
	if (same) {
		snprintf(msg, msglen,
			 "reload: every clamd server has the same signatures (VERSION); verdicts kept");
		return RELOAD_KEPT;
	}
	snprintf(msg, msglen,
		 "reload: a clamd server has other signatures, or cannot tell (VERSION); verdict cache cleared");
	return RELOAD_FLUSH;
}

/*
 * RELOAD to the local clamd, on a connection of its own: clamd refuses it
 * inside a session.  0 if clamd said RELOADING.
 */
static int send_reload(struct clamd_backend *cb, struct clamd_server *s,
		       char *why, size_t whylen)
{
	static const char cmd[] = "zRELOAD";
	uint64_t deadline = scanner_now_us() + (uint64_t)cb->cfg->clamd_timeout_ms * 1000;
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char reply[CLAMD_REPLY_MAX];
	struct clamd_reply r;
	size_t len;
	int fd, extra, rc = -1;

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", s->name);
	fd = connect_one(AF_UNIX, (struct sockaddr *)&sun, sizeof(sun), deadline);
	if (fd < 0) {
		snprintf(why, whylen, "connect: %s", strerror(errno));
		return -1;
	}
	if (send_all(fd, cmd, sizeof(cmd), deadline)) {
		snprintf(why, whylen, "sending RELOAD: %s", strerror(errno));
	} else if (!read_reply(fd, reply, sizeof(reply), &len, &extra, deadline, why,
			       whylen)) {
		clamd_parse_reply(reply, len, 0, CLAMD_REQ_RELOAD, &r);
		rc = r.kind == CLAMD_REPLY_RELOADING ? 0 : -1;
		if (rc)
			snprintf(why, whylen, "RELOAD answered '%s'", r.text);
	}
	close(fd);
	return rc;
}

/*
 * The watcher's look at the local clamd's DatabaseDirectory: 1 if it
 * changed (the caller flushes).  clamd is asked to reload it now rather
 * than at its next SelfCheck, and for RELOAD_HOLD_MS no clean answer is
 * remembered: until clamd has loaded them, its answers are the old
 * signatures'.
 */
static int database_changed(struct clamd_backend *cb)
{
	const char *dir = cb->cfg->database;
	char why[256];

	if (!cb->db_watched || !db_changed(dir, &cb->db))
		return 0;
	if (db_fingerprint_take(dir, &cb->db))
		cb->db.racy = 1;	/* unreadable now: changed again next time */
	atomic_store(&cb->hold_until_us, scanner_now_us() + RELOAD_HOLD_MS * 1000ULL);
	for (size_t i = 0; i < cb->n; i++) {
		struct clamd_server *s = &cb->servers[i];

		if (!s->local)
			continue;
		if (send_reload(cb, s, why, sizeof(why)))
			log_warning("clamd %s: RELOAD: %s; clamd loads the change at its SelfCheck",
				    s->name, why);
	}
	log_notice("the local clamd's DatabaseDirectory %s changed: RELOAD sent, verdicts flushed, none remembered for %d s",
		   dir, RELOAD_HOLD_MS / 1000);
	return 1;
}

/* The signature watcher: every SIGNATURE_CHECK_MS, each server's VERSION. */
static void *watch_signatures(void *arg)
{
	struct clamd_backend *cb = arg;
	struct timespec until;

	pthread_mutex_lock(&cb->watch_lock);
	while (!cb->stop) {
		int changed = 0;

		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += SIGNATURE_CHECK_MS / 1000;
		until.tv_nsec += (long)(SIGNATURE_CHECK_MS % 1000) * 1000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		while (!cb->stop &&
		       pthread_cond_timedwait(&cb->watch_cond, &cb->watch_lock, &until) != ETIMEDOUT)
			;
		if (cb->stop)
			break;
		pthread_mutex_unlock(&cb->watch_lock);
		changed = database_changed(cb);
		for (size_t i = 0; i < cb->n; i++) {
			resolve_server(&cb->servers[i]);
			changed |= check_version(cb, &cb->servers[i]) == 1;
		}
		if (changed && cb->signatures_changed)
			cb->signatures_changed(cb->ctx);
		pthread_mutex_lock(&cb->watch_lock);
	}
	pthread_mutex_unlock(&cb->watch_lock);
	return NULL;
}

/*
 * backend_ops.waits_on: is pid a local clamd's?  Lock-free unless it is;
 * a clamd that has exited is forgotten, its number may be anyone's now.
 */
static int cd_waits_on(struct backend *b, pid_t pid)
{
	struct clamd_backend *cb = b->priv;
	int yes = 0;

	for (size_t i = 0; pid > 0 && i < cb->n && !yes; i++) {
		struct clamd_server *s = &cb->servers[i];
		int gone;

		if (atomic_load_explicit(&s->pid, memory_order_relaxed) != pid)
			continue;
		pthread_mutex_lock(&s->lock);
		yes = atomic_load(&s->pid) == pid && pidfd_alive(s->pidfd);
		gone = !yes && atomic_load(&s->pid) == pid;
		if (gone)
			server_forget_pid(s);
		pthread_mutex_unlock(&s->lock);
		if (gone)
			log_info("clamd %s: pid %d has exited", s->name, (int)pid);
	}
	return yes;
}

static void cd_destroy(struct backend *b)
{
	struct clamd_backend *cb = b->priv;

	if (cb->watching) {
		pthread_mutex_lock(&cb->watch_lock);
		cb->stop = 1;
		pthread_cond_signal(&cb->watch_cond);
		pthread_mutex_unlock(&cb->watch_lock);
		pthread_join(cb->watcher, NULL);
	}
	pthread_mutex_destroy(&cb->watch_lock);
	pthread_cond_destroy(&cb->watch_cond);

	for (size_t i = 0; i < cb->n; i++) {
		struct clamd_server *s = &cb->servers[i];
		struct clamd_conn *c;

		while ((c = s->idle)) {
			s->idle = c->next;
			conn_close(c, 1);
		}
		server_forget_pid(s);
		pthread_mutex_destroy(&s->lock);
	}
	free(cb->servers);
	free(cb);
}

static const struct backend_ops clamd_ops = {
	.name = "clamd",
	.scan = cd_scan,
	.log_stats = cd_log_stats,
	.status = cd_status,
	.waits_on = cd_waits_on,
	.reload = cd_reload,
	.destroy = cd_destroy,
};

/* The smaller of two limits, 0 meaning none. */
static uint64_t min_limit(uint64_t a, uint64_t b)
{
	if (!a || (b && b < a))
		return b;
	return a;
}

/* At start: PING each server, so that the log says at once which answer. */
static void ping_all(struct clamd_backend *cb)
{
	for (size_t i = 0; i < cb->n; i++) {
		struct clamd_server *s = &cb->servers[i];
		uint64_t t0 = scanner_now_us();
		struct clamd_reply r;
		char why[256];
		enum attempt at;

		at = ask(cb, s, -1, CLAMD_REQ_PING,
			 t0 + (uint64_t)cb->cfg->clamd_timeout_ms * 1000, &r, why,
			 sizeof(why));
		if (at != ATTEMPT_ANSWER) {
			server_failed(cb, s, why);
		} else if (r.kind != CLAMD_REPLY_PONG) {
			snprintf(why, sizeof(why), "PING answered '%s'", r.text);
			server_failed(cb, s, why);
		} else {
			log_info("clamd %s: answers (%s), %" PRIu64 " us", s->name,
				 s->local ? "FILDES" : "INSTREAM", scanner_now_us() - t0);
			check_version(cb, s);
		}
	}
}

int backend_clamd_init(struct backend *b, const struct config *cfg,
		       void (*signatures_changed)(void *ctx), void *ctx,
		       char *err, size_t errlen)
{
	struct clamd_backend *cb = calloc(1, sizeof(*cb));
	size_t n = (cfg->local_socket ? 1 : 0) + cfg->tcp_servers.n;

	if (!cb || !n || !(cb->servers = calloc(n, sizeof(*cb->servers)))) {
		free(cb);
		snprintf(err, errlen, n ? "out of memory" : "backend clamd: no server");
		return -1;
	}
	cb->cfg = cfg;
	/* the local clamd first: no copy of the file, no network */
	if (cfg->local_socket) {
		cb->servers[cb->n].local = 1;
		snprintf(cb->servers[cb->n].name, sizeof(cb->servers[cb->n].name), "%s",
			 cfg->local_socket);
		cb->n++;
	}
	for (size_t i = 0; i < cfg->tcp_servers.n; i++) {
		struct clamd_server *s = &cb->servers[cb->n];

		if (config_parse_hostport(cfg->tcp_servers.items[i], s->host,
					  sizeof(s->host), s->port, sizeof(s->port))) {
			snprintf(err, errlen, "tcp_server: '%s' is not HOST:PORT",
				 cfg->tcp_servers.items[i]);
			free(cb->servers);
			free(cb);
			return -1;
		}
		snprintf(s->name, sizeof(s->name), "%s", cfg->tcp_servers.items[i]);
		cb->n++;
	}
	for (size_t i = 0; i < cb->n; i++) {
		pthread_mutex_init(&cb->servers[i].lock, NULL);
		cb->servers[i].pidfd = -1;
		resolve_server(&cb->servers[i]);
	}
	b->ops = &clamd_ops;
	b->priv = cb;
	cb->remember_max = min_limit(cfg->limits.max_file_size, cfg->limits.max_scan_size);
	atomic_init(&cb->hold_until_us, 0);
	if (cfg->local_socket) {
		cb->db_watched = !db_fingerprint_take(cfg->database, &cb->db);
		if (cb->db_watched)
			log_info("clamd %s: its DatabaseDirectory %s is watched", cfg->local_socket,
				 cfg->database);
		else
			log_info("clamd %s: database %s: %s; its signature files are not watched (only VERSION)",
				 cfg->local_socket, cfg->database, strerror(errno));
	}
	ping_all(cb);

	cb->signatures_changed = signatures_changed;
	cb->ctx = ctx;
	pthread_mutex_init(&cb->watch_lock, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&cb->watch_cond, &ca);
		pthread_condattr_destroy(&ca);
	}
	int rc = pthread_create(&cb->watcher, NULL, watch_signatures, cb);
	if (rc) {
		snprintf(err, errlen, "backend clamd: starting the signature watcher: %s",
			 strerror(rc));
		backend_destroy(b);
		return -1;
	}
	cb->watching = 1;
	return 0;
}
