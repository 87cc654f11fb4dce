// SPDX-License-Identifier: GPL-2.0
/*
 * Logging.  The level and target are set once at start (log_open) before
 * any worker runs and only read afterwards (a reopened file keeps its fd
 * number); the process has one log, so this is the one piece of
 * process-wide state.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <systemd/sd-journal.h>

#include "log/log.h"
#include "util/clock.h"
#include "util/jsonw.h"

static const char *const level_names[] = {
	[LOG_LVL_ERROR] = "error",	[LOG_LVL_WARNING] = "warning",
	[LOG_LVL_NOTICE] = "notice",	[LOG_LVL_INFO] = "info",
	[LOG_LVL_DEBUG] = "debug",
};

static const int level_prio[] = {
	[LOG_LVL_ERROR] = LOG_ERR,	[LOG_LVL_WARNING] = LOG_WARNING,
	[LOG_LVL_NOTICE] = LOG_NOTICE,	[LOG_LVL_INFO] = LOG_INFO,
	[LOG_LVL_DEBUG] = LOG_DEBUG,
};

const char *const log_target_names[] = {
	[LOG_TARGET_AUTO] = "auto",	[LOG_TARGET_JOURNAL] = "journal",
	[LOG_TARGET_SYSLOG] = "syslog",	[LOG_TARGET_FILE] = "file",
	[LOG_TARGET_STDERR] = "stderr",	NULL
};

const char *const log_format_names[] = {
	[LOG_FORMAT_TEXT] = "text", [LOG_FORMAT_JSON] = "json", NULL
};

static const struct {
	const char *name;
	int facility;
} facilities[] = {
	{ "auth", LOG_AUTH }, { "authpriv", LOG_AUTHPRIV }, { "cron", LOG_CRON },
	{ "daemon", LOG_DAEMON }, { "ftp", LOG_FTP }, { "lpr", LOG_LPR },
	{ "mail", LOG_MAIL }, { "news", LOG_NEWS }, { "syslog", LOG_SYSLOG },
	{ "user", LOG_USER }, { "uucp", LOG_UUCP },
	{ "local0", LOG_LOCAL0 }, { "local1", LOG_LOCAL1 }, { "local2", LOG_LOCAL2 },
	{ "local3", LOG_LOCAL3 }, { "local4", LOG_LOCAL4 }, { "local5", LOG_LOCAL5 },
	{ "local6", LOG_LOCAL6 }, { "local7", LOG_LOCAL7 },
};

static struct {
	enum log_level level;
	enum log_target target;		/* never auto */
	enum log_format format;
	int clean;
	int fd;				/* targets file and stderr */
	/*
	 * fd is no regular file (a pipe, a socket, a terminal): a write
	 * longer than PIPE_BUF may be split and mixed with another
	 * thread's, so the writes take write_lock.  An O_APPEND regular
	 * file takes each write() whole: no lock.
	 */
	int lock_writes;
	char path[PATH_MAX];		/* target file */
} log_state = { LOG_LVL_INFO, LOG_TARGET_STDERR, LOG_FORMAT_TEXT, 0, STDERR_FILENO, 0, "" };

static pthread_mutex_t write_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * Failed writes are told on stderr (the journal under systemd), never
 * through the log itself, at most once a minute with the count of lines
 * lost meanwhile: a full disk must not flood the journal.
 */
static atomic_llong write_failed_report_s = LLONG_MIN / 2;	/* CLOCK_MONOTONIC s */
static atomic_ullong write_lost;		/* lines lost since the last report */

int log_level_parse(const char *name)
{
	for (size_t i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++)
		if (!strcmp(name, level_names[i]))
			return (int)i;
	return -1;
}

const char *log_level_name(enum log_level level)
{
	return level_names[level];
}

/* systemd sets JOURNAL_STREAM=DEV:INO when stderr is connected to the journal. */
static int stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!js || sscanf(js, "%llu:%llu", &dev, &ino) != 2)
		return 0;
	if (fstat(STDERR_FILENO, &st))
		return 0;
	return (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}

int log_facility_parse(const char *name)
{
	if (!strncasecmp(name, "LOG_", 4))
		name += 4;
	for (size_t i = 0; i < sizeof(facilities) / sizeof(facilities[0]); i++)
		if (!strcasecmp(name, facilities[i].name))
			return facilities[i].facility;
	return -1;
}

const char *log_facility_name(int facility)
{
	for (size_t i = 0; i < sizeof(facilities) / sizeof(facilities[0]); i++)
		if (facilities[i].facility == facility)
			return facilities[i].name;
	return NULL;
}

/* Decided once per fd, when no other thread writes yet. */
static int needs_write_lock(int fd)
{
	struct stat st;

	return fstat(fd, &st) || !S_ISREG(st.st_mode);
}

void log_init(enum log_level level, int journal)
{
	log_state.level = level;
	if (journal < 0)
		journal = stderr_is_journal();
	log_state.target = journal ? LOG_TARGET_JOURNAL : LOG_TARGET_STDERR;
	log_state.format = LOG_FORMAT_TEXT;
	log_state.clean = 0;
	log_state.fd = STDERR_FILENO;
	log_state.lock_writes = needs_write_lock(STDERR_FILENO);
}

int log_to_journal(void)
{
	return log_state.target == LOG_TARGET_JOURNAL;
}

enum log_target log_target_in_use(void)
{
	return log_state.target;
}

/*
 * O_APPEND: each line goes to the end, also with logrotate's copytruncate
 * and several writers; 0640 less the umask (the unit's makes it 0600).
 * O_NONBLOCK: a FIFO at the path would hang the scanner in open() (it is
 * refused below); a regular file ignores it.
 *
 * The scanner runs as root and the log directory may be writable by
 * others (a log_file outside the unit's LogsDirectory=): a symbolic link
 * or a hard link planted at the path would make root append to any file,
 * and a file others may write to would let them forge records.  So only
 * a regular file of our own, with one name, that only we may write to.
 */
static int open_log_file(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
			    O_NOFOLLOW, 0640);
	const char *why = NULL;
	struct stat st;

	if (fd < 0) {
		if (errno == ELOOP)
			snprintf(err, errlen, "log_file %s: is a symbolic link (refused)", path);
		else
			snprintf(err, errlen, "log_file %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st)) {
		snprintf(err, errlen, "log_file %s: fstat: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode))
		why = "not a regular file";
	else if (st.st_uid != geteuid())
		why = "not owned by the scanner's user";
	else if (st.st_nlink != 1)
		why = "has other hard links";
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		why = "writable by group or others";
	if (why) {
		if (S_ISREG(st.st_mode) && st.st_uid != geteuid())
			snprintf(err, errlen, "log_file %s: %s (owner uid %lu, scanner uid %lu); refused",
				 path, why, (unsigned long)st.st_uid,
				 (unsigned long)geteuid());
		else
			snprintf(err, errlen, "log_file %s: %s; refused", path, why);
		close(fd);
		return -1;
	}
	return fd;
}

/* The target in use closed: the log is then stderr. */
static void close_target(void)
{
	if (log_state.target == LOG_TARGET_FILE && log_state.fd != STDERR_FILENO)
		close(log_state.fd);
	if (log_state.target == LOG_TARGET_SYSLOG)
		closelog();
	log_state.target = LOG_TARGET_STDERR;
	log_state.fd = STDERR_FILENO;
	log_state.lock_writes = needs_write_lock(STDERR_FILENO);
}

int log_open(const struct log_setup *s, char *err, size_t errlen)
{
	enum log_target t = s->target;
	int fd = STDERR_FILENO;

	if (t == LOG_TARGET_AUTO)
		t = s->file ? LOG_TARGET_FILE :
		    stderr_is_journal() ? LOG_TARGET_JOURNAL : LOG_TARGET_STDERR;
	if (t == LOG_TARGET_FILE) {
		if (!s->file || strlen(s->file) >= sizeof(log_state.path)) {
			snprintf(err, errlen, "log_target file needs log_file, an absolute path");
			return -1;
		}
		fd = open_log_file(s->file, err, errlen);
		if (fd < 0)
			return -1;
	}
	/* a second log_open: the new file is open, the old target goes */
	close_target();
	if (t == LOG_TARGET_FILE)
		snprintf(log_state.path, sizeof(log_state.path), "%s", s->file);
	if (t == LOG_TARGET_SYSLOG)
		/* LOG_PID: glibc takes getpid() at each message, after daemon() too */
		openlog("dazuko-clamscan", LOG_PID, s->facility);
	log_state.level = s->level;
	log_state.target = t;
	log_state.format = s->format;
	log_state.clean = s->clean;
	log_state.fd = fd;
	log_state.lock_writes = needs_write_lock(fd);
	return 0;
}

int log_reopen(char *err, size_t errlen)
{
	int fd;

	if (log_state.target != LOG_TARGET_FILE)
		return 0;
	fd = open_log_file(log_state.path, err, errlen);
	if (fd < 0)
		return -1;
	/* the same fd number, now the new file: no lock for the writers */
	if (fd != log_state.fd && dup3(fd, log_state.fd, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "log_file %s: dup3: %s", log_state.path, strerror(errno));
		close(fd);
		return -1;
	}
	if (fd != log_state.fd)
		close(fd);
	return 0;
}

void log_close(void)
{
	close_target();
	log_init(log_state.level, 0);
}

int log_clean_enabled(void)
{
	return log_state.clean;
}

#define LOG_MSG_MAX 2048
/* A command name or signature name longer than this is cut in the message. */
#define LOG_FIELD_MAX 256

size_t log_escape(char *dst, size_t size, const char *src)
{
	return dz_escape(dst, size, src, 0);
}

size_t log_escape_value(char *dst, size_t size, const char *src)
{
	size_t len;

	if (src[0] && !strpbrk(src, " =\""))
		return log_escape(dst, size, src);
	if (size < 3)
		return log_escape(dst, size, "");
	dst[0] = '"';
	len = dz_escape(dst + 1, size - 2, src, 1);
	dst[len + 1] = '"';
	dst[len + 2] = 0;
	return len + 2;
}

/*
 * One record: what every target gets.  message is escaped already; the
 * other strings are raw (NULL: not part of this record).
 */
struct record {
	enum log_level level;
	const char *event;		/* "message", "detection", "clean", ... */
	const char *message;
	const char *path, *comm, *signature, *action, *server;
	pid_t pid;			/* with path */
	long long uid;			/* with path; -1: unknown */
	int written;			/* with path: a close after a write */
	const char *cgroup;		/* with path: the accessor's, or NULL */
	const struct workload *workload;	/* what cgroup names, or NULL */
};

/* "2026-12-05T09:14:03.123456+01:00": RFC 3339, local time, microseconds */
#define TIME_MAX 64

static void rfc3339_now(char buf[TIME_MAX])
{
	char date[32] = "", tz[8] = "";
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	/* %z is +hhmm; RFC 3339 wants +hh:mm */
	if (strftime(tz, sizeof(tz), "%z", &tm) != 5)
		snprintf(tz, sizeof(tz), "+0000");
	snprintf(buf, TIME_MAX, "%s.%06ld%.3s:%.2s", date, ts.tv_nsec / 1000, tz, tz + 3);
}

static long long monotonic_s(void)
{
	return (long long)(scanner_now_us() / 1000000);
}

static void write_failed(int errnum, size_t written, size_t len)
{
	long long now = monotonic_s(), last = atomic_load(&write_failed_report_s);
	unsigned long long lost = atomic_fetch_add(&write_lost, 1) + 1;
	char msg[PATH_MAX + 256];
	int n;

	/* one thread reports, at most once a minute */
	if (now - last < 60 ||
	    !atomic_compare_exchange_strong(&write_failed_report_s, &last, now))
		return;
	atomic_fetch_sub(&write_lost, lost);
	n = snprintf(msg, sizeof(msg),
		     "dazuko-clamscan: error: cannot write the log (%s%s): %s; %llu line(s) lost or cut since the last report (the last: %zu of %zu bytes written); told at most once a minute\n",
		     log_state.target == LOG_TARGET_FILE ? "log_file " : "stderr",
		     log_state.target == LOG_TARGET_FILE ? log_state.path : "",
		     errnum ? strerror(errnum) : "no progress", lost, written, len);
	if (n >= (int)sizeof(msg))
		n = (int)sizeof(msg) - 1;
	/* stderr directly, not through the log, which is what fails */
	if (n > 0 && write(STDERR_FILENO, msg, (size_t)n) < 0)
		return;
}

/*
 * Every byte, or an error told on stderr.  A regular file (O_APPEND)
 * takes a line in one write(), so lines of several threads never mix;
 * other fds take write_lock.  A short write is continued: a line is
 * never left without its newline.
 */
static void write_line(const char *line, size_t len)
{
	size_t done = 0;
	int errnum = 0;

	if (log_state.lock_writes)
		pthread_mutex_lock(&write_lock);
	while (done < len) {
		ssize_t n = write(log_state.fd, line + done, len - done);

		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			/* a non-blocking stderr we inherited: wait a little for room */
			struct pollfd p = { .fd = log_state.fd, .events = POLLOUT };

			if (poll(&p, 1, 1000) > 0)
				continue;
		}
		errnum = n < 0 ? errno : 0;
		break;
	}
	if (log_state.lock_writes)
		pthread_mutex_unlock(&write_lock);
	if (done < len)
		write_failed(errnum, done, len);
}

json_object *log_json_escaped(const char *raw)
{
	size_t size = strlen(raw) * LOG_ESCAPE_MAX_GROWTH + 1;
	char *esc = malloc(size);
	json_object *v;

	if (!esc)
		return NULL;
	log_escape(esc, size, raw);
	v = json_object_new_string(esc);
	free(esc);
	return v;
}

/* A string field, escaped (valid UTF-8 whatever the bytes). */
static void json_escaped(struct jsonw *w, const char *key, const char *raw)
{
	size_t size = strlen(raw) * LOG_ESCAPE_MAX_GROWTH + 1;
	char *esc = malloc(size);

	if (!esc) {
		jsonw_fail(w);
		return;
	}
	log_escape(esc, size, raw);
	jsonw_string(w, key, esc);
	free(esc);
}

/* The fields of a workload that it has, escaped as any name users chose. */
static void json_workload(struct jsonw *w, const struct workload *wl)
{
	if (wl->unit[0])
		json_escaped(w, "unit", wl->unit);
	if (wl->user_unit[0])
		json_escaped(w, "user_unit", wl->user_unit);
	if (wl->container[0])
		json_escaped(w, "container", wl->container);
	if (wl->runtime)
		jsonw_string(w, "container_runtime", wl->runtime);
	if (wl->pod[0])
		json_escaped(w, "pod", wl->pod);
}

/* The record as one JSON object and a newline; NULL if out of memory. */
static char *json_line(const struct record *r, size_t *len)
{
	char when[TIME_MAX];
	struct jsonw w;

	if (jsonw_begin(&w, 0))
		return NULL;
	rfc3339_now(when);
	jsonw_int(&w, "schema", LOG_JSON_SCHEMA);
	jsonw_string(&w, "time", when);
	jsonw_string(&w, "level", level_names[r->level]);
	jsonw_string(&w, "event", r->event);
	jsonw_string(&w, "message", r->message);
	jsonw_int(&w, "scanner_pid", getpid());
	if (r->path)
		json_escaped(&w, "path", r->path);
	if (r->path && r->pid > 0)
		jsonw_int(&w, "pid", r->pid);
	if (r->path && r->comm)
		json_escaped(&w, "comm", r->comm);
	if (r->path && r->uid >= 0)
		jsonw_int(&w, "uid", r->uid);
	if (r->signature)
		json_escaped(&w, "signature", r->signature);
	if (r->action)
		jsonw_string(&w, "action", r->action);
	if (r->server)
		json_escaped(&w, "server", r->server);
	if (r->path && r->written)
		jsonw_bool(&w, "written", 1);
	if (r->path && r->cgroup)
		json_escaped(&w, "cgroup", r->cgroup);
	if (r->path && r->workload)
		json_workload(&w, r->workload);
	return jsonw_end(&w, 1, len);
}

static void emit(const struct record *r)
{
	char when[TIME_MAX], *line;
	const char *ev;
	size_t len;
	int n;

	switch (log_state.target) {
	case LOG_TARGET_JOURNAL:
		/*
		 * The path raw, as a detection's: its bytes need no escape
		 * there.  Optional fields, and a NULL that ends the list after
		 * the last one given.
		 */
		ev = strcmp(r->event, "message") ? r->event : NULL;
		sd_journal_send("MESSAGE=%s", r->message, "PRIORITY=%d", level_prio[r->level],
				"SYSLOG_IDENTIFIER=dazuko-clamscan",
				r->path ? "DAZUKOFS_PATH=%s" : ev ? "DAZUKOFS_EVENT=%s" : NULL,
				r->path ? r->path : ev,
				r->path && ev ? "DAZUKOFS_EVENT=%s" : NULL, ev, NULL);
		return;
	case LOG_TARGET_SYSLOG:
		syslog(level_prio[r->level], "%s: %s", level_names[r->level], r->message);
		return;
	default:
		break;
	}
	if (log_state.format == LOG_FORMAT_JSON) {
		/* out of memory: a line that says a record was lost, not silence */
		static const char lost[] = "{\"schema\":1,\"level\":\"error\",\"event\":\"lost\","
					   "\"message\":\"out of memory: a log record was lost\"}\n";

		line = json_line(r, &len);
		if (line)
			write_line(line, len);
		else
			write_line(lost, sizeof(lost) - 1);
		free(line);
		return;
	}
	/* the file has no journal to add the time and pid */
	if (log_state.target == LOG_TARGET_FILE) {
		rfc3339_now(when);
		n = asprintf(&line, "%s dazuko-clamscan[%d]: %s: %s\n", when, (int)getpid(),
			     level_names[r->level], r->message);
	} else {
		n = asprintf(&line, "dazuko-clamscan: %s: %s\n", level_names[r->level],
			     r->message);
	}
	if (n < 0) {
		static const char lost[] = "dazuko-clamscan: error: out of memory: a log record was lost\n";

		write_line(lost, sizeof(lost) - 1);
		return;
	}
	write_line(line, (size_t)n);
	free(line);
}

static void vlog(enum log_level level, const char *event, const char *path,
		 const char *fmt, va_list ap)
{
	char raw[LOG_MSG_MAX], msg[LOG_MSG_MAX * LOG_ESCAPE_MAX_GROWTH];
	struct record r = { .level = level, .event = event, .message = msg, .path = path };

	vsnprintf(raw, sizeof(raw), fmt, ap);
	log_escape(msg, sizeof(msg), raw);
	emit(&r);
}

int log_enabled(enum log_level level)
{
	return level <= log_state.level;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	if (level > log_state.level)
		return;
	va_start(ap, fmt);
	vlog(level, "message", NULL, fmt, ap);
	va_end(ap);
}

void log_event(enum log_level level, const char *event, const char *fmt, ...)
{
	va_list ap;

	if (level > log_state.level)
		return;
	va_start(ap, fmt);
	vlog(level, event, NULL, fmt, ap);
	va_end(ap);
}

void log_file_event(enum log_level level, const char *event, const char *path,
		    const char *fmt, ...)
{
	va_list ap;

	if (level > log_state.level)
		return;
	va_start(ap, fmt);
	vlog(level, event, path, fmt, ap);
	va_end(ap);
}

/* " unit=... user_unit=... container=... runtime=... pod=...": room for all */
#define WORKLOAD_TEXT_MAX (2 * LOG_VALUE_MAX(WORKLOAD_UNIT_MAX) + \
			   2 * LOG_VALUE_MAX(WORKLOAD_ID_MAX) + LOG_VALUE_MAX(LOG_FIELD_MAX) + 64)

/* The escaped, quoted forms of a scan result's fields, for the text message. */
struct escaped {
	char path[LOG_VALUE_MAX(PATH_MAX)];
	char comm[LOG_VALUE_MAX(LOG_FIELD_MAX)];
	char sig[LOG_VALUE_MAX(LOG_FIELD_MAX)];
	char server[LOG_VALUE_MAX(LOG_FIELD_MAX)];
	char workload[WORKLOAD_TEXT_MAX];	/* or "" */
	char msg[LOG_VALUE_MAX(PATH_MAX) + 4 * LOG_VALUE_MAX(LOG_FIELD_MAX) +
		 WORKLOAD_TEXT_MAX + 128];
};

/* key=value, escaped, appended to buf (of size) if value is not empty. */
static void append_field(char *buf, size_t size, const char *key, const char *value)
{
	char esc[LOG_VALUE_MAX(WORKLOAD_UNIT_MAX)];
	size_t len = strlen(buf);

	if (!value || !value[0] || len >= size)
		return;
	log_escape_value(esc, sizeof(esc), value);
	snprintf(buf + len, size - len, " %s=%s", key, esc);
}

static void escape_fields(struct escaped *e, const char *path, const struct log_opener *who,
			  const char *signature, const char *server)
{
	const struct workload *w = who->workload;

	log_escape_value(e->path, sizeof(e->path), path);
	log_escape_value(e->comm, sizeof(e->comm), who->comm);
	/* Left out of the line when NULL, so not "". */
	e->sig[0] = e->server[0] = e->workload[0] = 0;
	if (signature)
		log_escape_value(e->sig, sizeof(e->sig), signature);
	if (server)
		log_escape_value(e->server, sizeof(e->server), server);
	if (w) {
		append_field(e->workload, sizeof(e->workload), "unit", w->unit);
		append_field(e->workload, sizeof(e->workload), "user_unit", w->user_unit);
		append_field(e->workload, sizeof(e->workload), "container", w->container);
		append_field(e->workload, sizeof(e->workload), "runtime", w->runtime);
		append_field(e->workload, sizeof(e->workload), "pod", w->pod);
	}
}

/*
 * A journal entry's fields, each "NAME=value" of its own (values may hold
 * any byte but NUL, as DAZUKOFS_PATH does): sd_journal_sendv()'s, built
 * up one by one, since which are there depends on the access.
 */
#define JOURNAL_FIELDS_MAX 24

struct journal_fields {
	struct iovec iov[JOURNAL_FIELDS_MAX];
	int n;
};

static void jf_add(struct journal_fields *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void jf_add(struct journal_fields *f, const char *fmt, ...)
{
	va_list ap;
	char *field;
	int len;

	if (f->n == JOURNAL_FIELDS_MAX)
		return;
	va_start(ap, fmt);
	len = vasprintf(&field, fmt, ap);
	va_end(ap);
	if (len < 0)
		return;		/* without memory the entry has fewer fields */
	f->iov[f->n].iov_base = field;
	f->iov[f->n++].iov_len = (size_t)len;
}

/* The fields that say who made the access. */
static void jf_add_opener(struct journal_fields *f, const struct log_opener *who)
{
	const struct workload *w = who->workload;

	jf_add(f, "DAZUKOFS_PID=%d", (int)who->pid);
	jf_add(f, "DAZUKOFS_COMM=%s", who->comm);
	jf_add(f, "DAZUKOFS_WRITTEN=%d", who->written ? 1 : 0);
	if (who->uid >= 0)
		jf_add(f, "DAZUKOFS_UID=%lld", who->uid);
	if (who->cgroup)
		jf_add(f, "DAZUKOFS_CGROUP=%s", who->cgroup);
	if (!w)
		return;
	if (w->unit[0])
		jf_add(f, "DAZUKOFS_UNIT=%s", w->unit);
	if (w->user_unit[0])
		jf_add(f, "DAZUKOFS_USER_UNIT=%s", w->user_unit);
	if (w->container[0])
		jf_add(f, "DAZUKOFS_CONTAINER=%s", w->container);
	if (w->runtime)
		jf_add(f, "DAZUKOFS_CONTAINER_RUNTIME=%s", w->runtime);
	if (w->pod[0])
		jf_add(f, "DAZUKOFS_POD=%s", w->pod);
}

static void jf_send(struct journal_fields *f)
{
	sd_journal_sendv(f->iov, f->n);
	for (int i = 0; i < f->n; i++)
		free(f->iov[i].iov_base);
}

/* The workload in the journal's message: " in UNIT (container C)" or "". */
static void workload_words(const struct log_opener *who, char *buf, size_t size)
{
	const struct workload *w = who->workload;

	buf[0] = '\0';
	if (!w)
		return;
	if (w->unit[0])
		snprintf(buf, size, " in %s%s%s", w->unit, w->user_unit[0] ? "/" : "",
			 w->user_unit);
	if (w->container[0]) {
		size_t len = strlen(buf);

		snprintf(buf + len, size - len, " (container %.12s%s%s)", w->container,
			 w->pod[0] ? ", pod " : "", w->pod);
	}
}

void log_detection(const char *path, const struct log_opener *who,
		   const char *signature, const char *action, const char *server)
{
	const char *by = who->written ? "written" : "opened";
	struct escaped es, *e = &es;
	struct record r = {
		.level = LOG_LVL_WARNING, .event = "detection", .path = path,
		.comm = who->comm, .signature = signature, .action = action,
		.server = server, .pid = who->pid, .uid = who->uid,
		.written = who->written, .cgroup = who->cgroup, .workload = who->workload,
	};

	escape_fields(e, path, who, signature, server);
	if (log_state.target == LOG_TARGET_JOURNAL) {
		struct journal_fields f = { .n = 0 };
		char words[2 * WORKLOAD_UNIT_MAX + 2 * WORKLOAD_ID_MAX + 64];

		workload_words(who, words, sizeof(words));
		jf_add(&f, "MESSAGE=FOUND %s in %s (%s by pid %d %s%s): %s%s%s%s",
		       e->sig, e->path, by, (int)who->pid, e->comm, words, action,
		       server ? " (clamd " : "", e->server, server ? ")" : "");
		jf_add(&f, "PRIORITY=%d", LOG_WARNING);
		jf_add(&f, "SYSLOG_IDENTIFIER=dazuko-clamscan");
		jf_add(&f, "MESSAGE_ID=5d2b6e0b9f6a4c8e8a1f3c7d9e2b4a61");
		jf_add(&f, "DAZUKOFS_EVENT=detection");
		jf_add(&f, "DAZUKOFS_PATH=%s", path);
		jf_add(&f, "DAZUKOFS_SIGNATURE=%s", signature);
		jf_add(&f, "DAZUKOFS_ACTION=%s", action);
		if (server)
			jf_add(&f, "DAZUKOFS_SERVER=%s", server);
		jf_add_opener(&f, who);
		jf_send(&f);
		return;
	}
	/*
	 * Detections are always logged, whatever the level.  msg holds the
	 * escaped fields at their bounds; the return value is looked at so
	 * that -O2's -Wformat-truncation (the .deb's flags) does not guess
	 * at the fields' sizes.
	 */
	if (snprintf(e->msg, sizeof(e->msg),
		     "FOUND signature=%s path=%s pid=%d comm=%s action=%s%s%s%s%s",
		     e->sig, e->path, (int)who->pid, e->comm, action,
		     server ? " server=" : "", e->server,
		     who->written ? " written=yes" : "", e->workload) < 0)
		return;
	r.message = e->msg;
	emit(&r);
}

void log_clean(const char *path, const struct log_opener *who, const char *server)
{
	struct escaped es, *e = &es;
	struct record r = {
		.level = LOG_LVL_INFO, .event = "clean", .path = path,
		.comm = who->comm, .server = server, .pid = who->pid,
		.uid = who->uid, .written = who->written, .cgroup = who->cgroup,
		.workload = who->workload,
	};

	if (!log_state.clean)
		return;
	escape_fields(e, path, who, NULL, server);
	if (log_state.target == LOG_TARGET_JOURNAL) {
		struct journal_fields f = { .n = 0 };
		char words[2 * WORKLOAD_UNIT_MAX + 2 * WORKLOAD_ID_MAX + 64];

		workload_words(who, words, sizeof(words));
		jf_add(&f, "MESSAGE=clean: %s (%s by pid %d %s%s)%s%s%s",
		       e->path, who->written ? "written" : "opened", (int)who->pid,
		       e->comm, words, server ? " (clamd " : "", e->server,
		       server ? ")" : "");
		jf_add(&f, "PRIORITY=%d", LOG_INFO);
		jf_add(&f, "SYSLOG_IDENTIFIER=dazuko-clamscan");
		jf_add(&f, "MESSAGE_ID=8c1e2f4a6b3d4e5f9a7b0c2d4e6f8a13");
		jf_add(&f, "DAZUKOFS_EVENT=clean");
		jf_add(&f, "DAZUKOFS_PATH=%s", path);
		if (server)
			jf_add(&f, "DAZUKOFS_SERVER=%s", server);
		jf_add_opener(&f, who);
		jf_send(&f);
		return;
	}
	/* the return value looked at: see log_detection */
	if (snprintf(e->msg, sizeof(e->msg), "clean path=%s pid=%d comm=%s%s%s%s%s",
		     e->path, (int)who->pid, e->comm, server ? " server=" : "", e->server,
		     who->written ? " written=yes" : "", e->workload) < 0)
		return;
	r.message = e->msg;
	emit(&r);
}
