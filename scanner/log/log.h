/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Logging: to the journal (structured) when run by systemd, else to
 * stderr; or, chosen by log_target, to syslog with a facility or to a
 * file, as text or JSON lines (log_format).
 */
#ifndef SCANNER_LOG_H
#define SCANNER_LOG_H

#include <stddef.h>
#include <sys/types.h>

#include <dzcommon/escape.h>

#include "util/workload.h"

enum log_level {
	LOG_LVL_ERROR,
	LOG_LVL_WARNING,
	LOG_LVL_NOTICE,
	LOG_LVL_INFO,
	LOG_LVL_DEBUG,
};

/*
 * auto: log_file if one is set, else the journal when stderr is
 * connected to it (run by systemd), else stderr.
 */
enum log_target {
	LOG_TARGET_AUTO,
	LOG_TARGET_JOURNAL,
	LOG_TARGET_SYSLOG,
	LOG_TARGET_FILE,
	LOG_TARGET_STDERR,
};
/* The targets' and formats' names, indexed by the enums, NULL-terminated. */
extern const char *const log_target_names[];

enum log_format { LOG_FORMAT_TEXT, LOG_FORMAT_JSON };
extern const char *const log_format_names[];

/*
 * The version of the JSON records' field set (Documentation/userspace.md):
 * fields may be added without a change; one renamed, removed or given
 * another meaning makes it 2.
 */
#define LOG_JSON_SCHEMA 1

/* "error", "warning", "notice", "info", "debug" -> level; -1 if unknown. */
int log_level_parse(const char *name);
const char *log_level_name(enum log_level level);

/*
 * A syslog facility by name: "daemon", "local0" to "local7", ... (see
 * LOG_FACILITY_NAMES), in any case, with or without clamd's "LOG_"
 * prefix (LOG_LOCAL6); its LOG_* value, or -1 if unknown.
 */
int log_facility_parse(const char *name);
/* The name of a LOG_* facility value; NULL if it is none. */
const char *log_facility_name(int facility);
#define LOG_FACILITY_NAMES "auth, authpriv, cron, daemon, ftp, lpr, mail, news, " \
	"syslog, user, uucp or local0 to local7"

/*
 * The shipped unit's LogsDirectory= (ProtectSystem=strict makes the rest
 * of /var/log read-only): where --import-clamd-conf puts a LogFile.
 */
#define LOG_UNIT_DIR DAZUKOFS_LOGS_DIR

/* Where and how to log (log_open). */
struct log_setup {
	enum log_level level;
	enum log_target target;
	int facility;			/* LOG_DAEMON...: target syslog */
	enum log_format format;		/* JSON: targets file and stderr */
	const char *file;		/* target file (or auto) */
	int clean;			/* log each clean scan (log_clean) */
};

/*
 * Start logging as s says, before any other thread runs: opens the file
 * (O_APPEND, mode 0640 less the umask; refused unless a regular file of
 * our euid with one link and no group/other write bit, never through a
 * symbolic link) or syslog; a target opened before is closed.  -1 with a
 * message in err; the log is then unchanged.
 */
int log_open(const struct log_setup *s, char *err, size_t errlen);
/*
 * Target file: open the file's path again and write there from now on
 * (logrotate's postrotate, SIGHUP); other targets: nothing.  The old fd
 * is replaced in one dup3(), so a worker's line goes to one file or the
 * other, whole.  -1 with a message in err: the old file stays in use.
 */
int log_reopen(char *err, size_t errlen);
void log_close(void);
/* The target in use (never auto). */
enum log_target log_target_in_use(void);

/* Level and target; journal: 1 journal, 0 stderr, -1 auto (JOURNAL_STREAM). */
void log_init(enum log_level level, int journal);
int log_to_journal(void);

void log_msg(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * A message about the scanner's own life: event (JSON "event", journal
 * DAZUKOFS_EVENT) is "start", "stop" or "reload"; logged at its level.
 */
void log_event(enum log_level level, const char *event, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * A message about one file, as log_event(); beside it, the journal gets
 * the path's bytes in DAZUKOFS_PATH and JSON its escaped form in "path",
 * as a detection's, so that tools need not take it out of the message.
 */
void log_file_event(enum log_level level, const char *event, const char *path,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Would a message at this level be logged? */
int log_enabled(enum log_level level);

/*
 * Paths and command names come from users: every message is escaped by
 * dazukofs' one rule (<dzcommon/escape.h>), so that one call is one line
 * and no bytes reach a terminal as controls.
 */
size_t log_escape(char *dst, size_t size, const char *src);
/*
 * One field's value for a key=value line, as logfmt writes it: escaped,
 * and in double quotes (a quote inside as \") if it is empty or holds a
 * space, '=' or '"', so that a file named "x action=allowed" makes no
 * field of its own.  Cut as log_escape() cuts, the quotes kept.
 */
size_t log_escape_value(char *dst, size_t size, const char *src);
/* Room for log_escape_value() of a string of up to n bytes, and its NUL. */
#define LOG_VALUE_MAX(n) ((n) * LOG_ESCAPE_MAX_GROWTH + 3)
/*
 * A JSON string of log_escape(raw): what the JSON log writes, valid UTF-8
 * with no control character whatever the bytes; NULL without memory.
 */
struct json_object;
struct json_object *log_json_escaped(const char *raw);
/* The most log_escape() makes of one byte. */
#define LOG_ESCAPE_MAX_GROWTH DZ_ESCAPE_MAX_GROWTH

/*
 * Who made the access a scan result is about: the opener, or for a close
 * after a write (dazukofs close_write events) the writer.
 */
struct log_opener {
	pid_t pid;
	long long uid;		/* the real uid, -1 if unknown */
	const char *comm;
	int written;		/* a close after a write, not an open */
	/* its cgroup's path and what that names; NULL if unknown */
	const char *cgroup;
	const struct workload *workload;
};

/*
 * A detection, always logged (level warning), with structured fields in
 * the journal: the message is escaped, DAZUKOFS_PATH and DAZUKOFS_COMM
 * hold the raw bytes.  The uid goes to JSON and the journal only (the
 * text line keeps its fields); a write is "written by" in the journal's
 * message, written=yes on the text line, "written": true in JSON and
 * DAZUKOFS_WRITTEN=1 in the journal.  server: the clamd server that found
 * it (DAZUKOFS_SERVER), NULL for libclamav.  The workload, when known:
 * unit=, user_unit=, container=, runtime=, pod= on the text line; "unit",
 * "user_unit", "container", "container_runtime", "pod" and "cgroup" in
 * JSON; DAZUKOFS_UNIT, _USER_UNIT, _CONTAINER, _CONTAINER_RUNTIME, _POD
 * and _CGROUP in the journal, whose message says "in UNIT (container
 * ID)".
 */
void log_detection(const char *path, const struct log_opener *who,
		   const char *signature, const char *action, const char *server);

/* log_clean = yes: is each clean scan to be logged? */
int log_clean_enabled(void);
/* A clean scan result (level info), whatever log_level, if log_clean. */
void log_clean(const char *path, const struct log_opener *who, const char *server);

/* The arguments are evaluated only if the level is logged (see worker.c). */
#define log_at(level, ...)					\
	do {							\
		if (log_enabled(level))				\
			log_msg(level, __VA_ARGS__);		\
	} while (0)
#define log_error(...) log_at(LOG_LVL_ERROR, __VA_ARGS__)
#define log_warning(...) log_at(LOG_LVL_WARNING, __VA_ARGS__)
#define log_notice(...) log_at(LOG_LVL_NOTICE, __VA_ARGS__)
#define log_info(...) log_at(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...) log_at(LOG_LVL_DEBUG, __VA_ARGS__)
/* The same about one file (log_file_event); path is evaluated once more. */
#define log_file_at(level, path, ...)						\
	do {									\
		if (log_enabled(level))						\
			log_file_event(level, "message", path, __VA_ARGS__);	\
	} while (0)
#define log_file_error(path, ...) log_file_at(LOG_LVL_ERROR, path, __VA_ARGS__)
#define log_file_warning(path, ...) log_file_at(LOG_LVL_WARNING, path, __VA_ARGS__)
#define log_file_notice(path, ...) log_file_at(LOG_LVL_NOTICE, path, __VA_ARGS__)
#define log_file_info(path, ...) log_file_at(LOG_LVL_INFO, path, __VA_ARGS__)
#define log_file_debug(path, ...) log_file_at(LOG_LVL_DEBUG, path, __VA_ARGS__)

#endif
