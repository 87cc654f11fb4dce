/* SPDX-License-Identifier: GPL-2.0 */
/* Logging: to the journal (structured) when run by systemd, else to stderr. */
#ifndef SCANNER_LOG_H
#define SCANNER_LOG_H

#include <sys/types.h>

enum log_level {
	LOG_LVL_ERROR,
	LOG_LVL_WARNING,
	LOG_LVL_NOTICE,
	LOG_LVL_INFO,
	LOG_LVL_DEBUG,
};

/* "error", "warning", "notice", "info", "debug" -> level; -1 if unknown. */
int log_level_parse(const char *name);
const char *log_level_name(enum log_level level);

/* Level and target; journal: 1 journal, 0 stderr, -1 auto (JOURNAL_STREAM). */
void log_init(enum log_level level, int journal);
int log_to_journal(void);

void log_msg(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Would a message at this level be logged? */
int log_enabled(enum log_level level);

/*
 * Paths and command names come from users: every message is escaped so
 * that one call is one line and no bytes reach a terminal as controls.
 * Backslash becomes \\, newline, tab and CR \n \t \r, other control
 * bytes, DEL, C1 controls and bytes that are not UTF-8 \xNN.  dst is
 * always NUL-terminated (unless size is 0) and never ends inside an
 * escape; returns the length written.
 */
size_t log_escape(char *dst, size_t size, const char *src);
/* The most log_escape() makes of one byte: \xNN. */
#define LOG_ESCAPE_MAX_GROWTH 4

/*
 * A detection, with structured fields in the journal: the message is
 * escaped, DAZUKOFS_PATH and DAZUKOFS_COMM hold the raw bytes.  server:
 * the clamd server that found it (DAZUKOFS_SERVER), NULL for libclamav.
 */
void log_detection(const char *path, pid_t pid, const char *comm,
		   const char *signature, const char *action, const char *server);

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

#endif
