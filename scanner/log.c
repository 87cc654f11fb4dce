// SPDX-License-Identifier: GPL-2.0
/*
 * Logging.  The level and target are set once at start (log_init) before
 * any worker runs and only read afterwards; the process has one log, so
 * this is the one piece of process-wide state.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

#include "log.h"

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

static struct {
	enum log_level level;
	int journal;
} log_state = { LOG_LVL_INFO, 0 };

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

void log_init(enum log_level level, int journal)
{
	log_state.level = level;
	log_state.journal = journal < 0 ? stderr_is_journal() : journal;
}

int log_to_journal(void)
{
	return log_state.journal;
}

#define LOG_MSG_MAX 2048
/* A command name or signature name longer than this is cut in the message. */
#define LOG_FIELD_MAX 256

/* The length of the valid UTF-8 sequence at s that is no C1 control, or 0. */
static size_t utf8_printable(const unsigned char *s)
{
	uint32_t cp, min;
	size_t n;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2; cp = s[0] & 0x1f; min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3; cp = s[0] & 0x0f; min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4; cp = s[0] & 0x07; min = 0x10000;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
	    cp <= 0x9f)
		return 0;
	return n;
}

size_t log_escape(char *dst, size_t size, const char *src)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t len = 0;

	if (!size)
		return 0;
	while (*s) {
		char esc[LOG_ESCAPE_MAX_GROWTH + 1];
		const char *out = esc;
		size_t in = 1, n;

		switch (*s) {
		case '\\': strcpy(esc, "\\\\"); break;
		case '\n': strcpy(esc, "\\n"); break;
		case '\t': strcpy(esc, "\\t"); break;
		case '\r': strcpy(esc, "\\r"); break;
		default:
			if (*s >= 0x20 && *s < 0x7f)
				out = (const char *)s;
			else if (*s >= 0x80 && (in = utf8_printable(s)))
				out = (const char *)s;
			else
				snprintf(esc, sizeof(esc), "\\x%02x", *s), in = 1;
		}
		n = out == esc ? strlen(esc) : in;
		if (len + n >= size)
			break;
		memcpy(dst + len, out, n);
		len += n;
		s += in;
	}
	dst[len] = 0;
	return len;
}

static void vlog(enum log_level level, const char *fmt, va_list ap)
{
	char raw[LOG_MSG_MAX], msg[LOG_MSG_MAX * LOG_ESCAPE_MAX_GROWTH];

	vsnprintf(raw, sizeof(raw), fmt, ap);
	log_escape(msg, sizeof(msg), raw);
	if (log_state.journal) {
		sd_journal_send("MESSAGE=%s", msg, "PRIORITY=%d", level_prio[level],
				"SYSLOG_IDENTIFIER=dazuko-clamscan", NULL);
		return;
	}
	fprintf(stderr, "dazuko-clamscan: %s: %s\n", level_names[level], msg);
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
	vlog(level, fmt, ap);
	va_end(ap);
}

void log_detection(const char *path, pid_t pid, const char *comm,
		   const char *signature, const char *action, const char *server)
{
	char epath[PATH_MAX * LOG_ESCAPE_MAX_GROWTH + 1];
	char ecomm[LOG_FIELD_MAX * LOG_ESCAPE_MAX_GROWTH + 1];
	char esig[LOG_FIELD_MAX * LOG_ESCAPE_MAX_GROWTH + 1];
	char eserver[LOG_FIELD_MAX * LOG_ESCAPE_MAX_GROWTH + 1] = "";

	log_escape(epath, sizeof(epath), path);
	log_escape(ecomm, sizeof(ecomm), comm);
	log_escape(esig, sizeof(esig), signature);
	if (server)
		log_escape(eserver, sizeof(eserver), server);
	if (log_state.journal) {
		/* DAZUKOFS_SERVER only when a clamd server found it */
		sd_journal_send("MESSAGE=FOUND %s in %s (opened by pid %d %s): %s%s%s%s",
				esig, epath, (int)pid, ecomm, action,
				server ? " (clamd " : "", eserver, server ? ")" : "",
				"PRIORITY=%d", LOG_WARNING,
				"SYSLOG_IDENTIFIER=dazuko-clamscan",
				"MESSAGE_ID=5d2b6e0b9f6a4c8e8a1f3c7d9e2b4a61",
				"DAZUKOFS_PATH=%s", path, "DAZUKOFS_PID=%d", (int)pid,
				"DAZUKOFS_COMM=%s", comm,
				"DAZUKOFS_SIGNATURE=%s", signature,
				"DAZUKOFS_ACTION=%s", action,
				server ? "DAZUKOFS_SERVER=%s" : NULL, server, NULL);
		return;
	}
	/* Detections are always logged, whatever the level. */
	fprintf(stderr,
		"dazuko-clamscan: warning: FOUND signature=%s path=%s pid=%d comm=%s action=%s%s%s\n",
		esig, epath, (int)pid, ecomm, action, server ? " server=" : "", eserver);
}
