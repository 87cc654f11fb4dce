// SPDX-License-Identifier: GPL-2.0
/*
 * clamd.conf to clamscan.conf (clamdconf.h).  A table maps each option
 * clamd shares with the scanner onto its key; a value is checked with
 * config_set() on a scratch config, so what is printed is what the
 * scanner accepts.  Options without an equivalent are listed with why.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <dazukofs.h>

#include "app/clamdconf.h"
#include "config/config.h"
#include "log/log.h"

enum conv {
	C_SAME,		/* the value as it is */
	C_BOOL,		/* yes/no/true/false/1/0 -> yes or no */
	C_NOT,		/* a boolean, inverted */
	C_DENY,		/* a boolean: yes -> deny, no -> allow */
	C_LOGV,		/* LogVerbose yes -> info, no -> notice */
	C_DEBUG,	/* Debug yes -> debug, else nothing */
	C_SOURCE,	/* OnAccessMountPath: also source = fanotify */
	C_SCANTIME,	/* MaxScanTime: decided at the end (see below) */
	C_LOGFILE,	/* LogFile, LogSyslog: one target, decided at the end */
	C_SYSLOG,
};

static const struct {
	const char *clamd, *key;
	enum conv conv;
} map[] = {
	{ "DatabaseDirectory", "database", C_SAME },
	{ "MaxFileSize", "max_file_size", C_SAME },
	{ "MaxScanSize", "max_scan_size", C_SAME },
	{ "MaxRecursion", "max_recursion", C_SAME },
	{ "MaxFiles", "max_files", C_SAME },
	{ "MaxScanTime", "max_scan_time", C_SCANTIME },
	{ "AlertExceedsMax", "alert_exceeds_max", C_BOOL },
	{ "AlertEncrypted", "alert_encrypted", C_BOOL },
	{ "ArchiveBlockEncrypted", "alert_encrypted", C_BOOL },	/* its old name */
	{ "DisableCache", "clamav_cache", C_NOT },
	{ "StreamMaxLength", "stream_max_length", C_SAME },
	{ "SelfCheck", "self_check", C_SAME },
	{ "LogVerbose", "log_level", C_LOGV },
	{ "Debug", "log_level", C_DEBUG },
	{ "LogFile", "log_file", C_LOGFILE },
	{ "LogSyslog", "log_target", C_SYSLOG },
	{ "LogFacility", "log_facility", C_SAME },
	{ "LogClean", "log_clean", C_BOOL },
	{ "OnAccessIncludePath", "include", C_SAME },
	{ "OnAccessExcludePath", "exclude", C_SAME },
	{ "OnAccessExcludeUID", "exclude_uid", C_SAME },
	{ "OnAccessExcludeUname", "exclude_user", C_SAME },
	{ "OnAccessExcludeRootUID", "exclude_root", C_BOOL },
	{ "OnAccessPrevention", "prevention", C_BOOL },
	{ "OnAccessDenyOnError", "on_error", C_DENY },
	{ "OnAccessMaxFileSize", "max_file_size", C_SAME },
	{ "OnAccessMaxThreads", "workers", C_SAME },
	{ "OnAccessMountPath", "fanotify_mount", C_SOURCE },
};

/* Known options without an equivalent, and why. */
static const struct {
	const char *clamd, *why;
} unmapped[] = {
	{ "OnAccessDisableDDD", "dazuko-clamscan watches whole filesystems (fanotify) or dazukofs mounts, never directory trees one by one" },
	{ "OnAccessExtraScanning", "no extra scanning on create and move: every open is scanned" },
	{ "OnAccessCurlTimeout", "no clamd connection to time out with the libclamav backend; see clamd_timeout_ms for backend = clamd" },
	{ "OnAccessRetryAttempts", "see clamd_retry_ms for backend = clamd" },
	{ "VirusEvent", "a shell command line with %v and %f; virus_event takes a program and fixed arguments, the detection in its environment (CLAM_VIRUSEVENT_FILENAME, CLAM_VIRUSEVENT_VIRUSNAME): write a script" },
	{ "LocalSocket", "clamd's own socket; to scan through this clamd: backend = clamd, local_socket = PATH" },
	{ "TCPSocket", "clamd's own port; to scan through this clamd: backend = clamd, tcp_server = HOST:PORT" },
	{ "LogTime", "a log file's lines always begin with the time (RFC 3339); the journal and syslog add their own" },
	{ "LogFileMaxSize", "the scanner does not rotate its file itself: logrotate does, and SIGHUP reopens it (/etc/logrotate.d/dazuko-clamscan)" },
	{ "LogRotate", "the scanner does not rotate its file itself: logrotate does, and SIGHUP reopens it (/etc/logrotate.d/dazuko-clamscan)" },
	{ "LogFileUnlock", "the log file is never locked: O_APPEND, one write per line" },
	{ "MaxThreads", "clamd's connection threads; on-access scanning threads are workers (OnAccessMaxThreads)" },
};

/* One mapped option: the key and value, checked; 0 printed, -1 noted. */
static int emit(FILE *out, FILE *notes, const char *where, const char *opt,
		const char *key, const char *value)
{
	struct config scratch;
	char why[CONFIG_ERR_MAX];
	int rc;

	config_init(&scratch);
	rc = config_set(&scratch, key, value, why, sizeof(why));
	config_free(&scratch);
	if (rc) {
		fprintf(notes, "%s: %s: not mapped: %s\n", where, opt, why);
		return -1;
	}
	fprintf(out, "%s = %s\t# %s\n", key, value, opt);
	return 0;
}

/* What is decided once the whole file is read. */
struct import_state {
	int mounts;		/* OnAccessMountPath lines */
	char scan_time[32], scan_time_where[PATH_MAX + 32];
	char log_file[PATH_MAX], log_file_where[PATH_MAX + 32];
	int syslog;		/* LogSyslog yes */
	char syslog_where[PATH_MAX + 32];
};

static void import_line(FILE *out, FILE *notes, const char *where, const char *opt,
			const char *value, struct import_state *st)
{
	int b;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (strcasecmp(opt, map[i].clamd))
			continue;
		if (map[i].conv != C_SAME && map[i].conv != C_SOURCE &&
		    map[i].conv != C_SCANTIME && map[i].conv != C_LOGFILE &&
		    config_parse_bool(value, &b)) {
			fprintf(notes, "%s: %s: not mapped: '%s' is not yes or no\n",
				where, opt, value);
			return;
		}
		switch (map[i].conv) {
		case C_SAME:
			emit(out, notes, where, opt, map[i].key, value);
			return;
		case C_BOOL:
			emit(out, notes, where, opt, map[i].key, b ? "yes" : "no");
			return;
		case C_NOT:
			emit(out, notes, where, opt, map[i].key, b ? "no" : "yes");
			return;
		case C_DENY:
			emit(out, notes, where, opt, map[i].key, verdict_name(b ? VERDICT_DENY : VERDICT_ALLOW));
			return;
		case C_LOGV:
			emit(out, notes, where, opt, map[i].key, b ? "info" : "notice");
			return;
		case C_DEBUG:
			if (b)
				emit(out, notes, where, opt, map[i].key, "debug");
			else
				fprintf(notes, "%s: %s: not mapped: no is log_level's default (or LogVerbose's)\n",
					where, opt);
			return;
		case C_SOURCE:
			/* fanotify marks one filesystem per scanner */
			if (st->mounts++) {
				fprintf(notes, "%s: %s: not mapped: one fanotify_mount per scanner; run another instance for %s\n",
					where, opt, value);
				return;
			}
			if (!emit(out, notes, where, opt, map[i].key, value))
				fprintf(out, "source = fanotify\t# %s\n", opt);
			return;
		case C_SCANTIME:
			snprintf(st->scan_time, sizeof(st->scan_time), "%s", value);
			snprintf(st->scan_time_where, sizeof(st->scan_time_where), "%s", where);
			return;
		case C_LOGFILE:
			/* cut or mangled, it would name another file than clamd's */
			if (strlen(value) >= sizeof(st->log_file)) {
				fprintf(notes, "%s: %s: not mapped: the path is longer than PATH_MAX (%zu bytes)\n",
					where, opt, strlen(value));
				return;
			}
			if (!*value || value[strlen(value) - 1] == '/') {
				fprintf(notes, "%s: %s: not mapped: '%s' names a directory, not a file\n",
					where, opt, value);
				return;
			}
			snprintf(st->log_file, sizeof(st->log_file), "%s", value);
			snprintf(st->log_file_where, sizeof(st->log_file_where), "%s", where);
			return;
		case C_SYSLOG:
			if (!b) {
				fprintf(notes, "%s: %s: not mapped: no is the default (the journal under systemd)\n",
					where, opt);
				return;
			}
			st->syslog = 1;
			snprintf(st->syslog_where, sizeof(st->syslog_where), "%s", where);
			return;
		}
	}
	for (size_t i = 0; i < sizeof(unmapped) / sizeof(unmapped[0]); i++)
		if (!strcasecmp(opt, unmapped[i].clamd)) {
			fprintf(notes, "%s: %s: not mapped: %s\n", where, opt, unmapped[i].why);
			return;
		}
	fprintf(notes, "%s: %s: not mapped: clamd only, no equivalent\n", where, opt);
}

/*
 * clamd writes to both a LogFile and syslog; this scanner to one target:
 * the file wins.  clamd's file is clamd's (rotated for clamd, which the
 * scanner is not told of, and read-only under the shipped unit): the
 * scanner's goes to the unit's LogsDirectory under the same name.
 */
static void import_log(FILE *out, FILE *notes, struct import_state *st)
{
	char file[PATH_MAX + 32];
	const char *base;
	size_t dirlen = strlen(LOG_UNIT_DIR);

	if (*st->log_file) {
		base = strrchr(st->log_file, '/');
		base = base && base[1] ? base + 1 : st->log_file;
		if (!strncmp(st->log_file, LOG_UNIT_DIR "/", dirlen + 1)) {
			snprintf(file, sizeof(file), "%s", st->log_file);
		} else {
			if ((size_t)snprintf(file, sizeof(file), "%s/%s", LOG_UNIT_DIR, base) >=
			    PATH_MAX) {
				fprintf(notes, "%s: LogFile: not mapped: %s/%s would be longer than PATH_MAX\n",
					st->log_file_where, LOG_UNIT_DIR, base);
				/* LogSyslog, if set, is the target then */
				*st->log_file = 0;
				import_log(out, notes, st);
				return;
			}
			fprintf(out, "# clamd's LogFile %s is clamd's own (rotated for clamd); the\n"
				"# shipped unit lets the scanner write below %s only\n",
				st->log_file, LOG_UNIT_DIR);
		}
		emit(out, notes, st->log_file_where, "LogFile", "log_file", file);
		if (st->syslog)
			fprintf(notes, "%s: LogSyslog: not mapped: one log target per scanner; log_file (LogFile) kept\n",
				st->syslog_where);
	} else if (st->syslog) {
		emit(out, notes, st->syslog_where, "LogSyslog", "log_target", "syslog");
	}
}

int clamdconf_import(const char *path, FILE *out, FILE *notes)
{
	FILE *f = fopen(path, "re");

	if (!f) {
		fprintf(notes, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	clamdconf_import_stream(f, path, out, notes);
	fclose(f);
	return 0;
}

void clamdconf_import_stream(FILE *f, const char *path, FILE *out, FILE *notes)
{
	char *line = NULL, where[PATH_MAX + 32];
	struct import_state st = { 0 };
	unsigned int lineno = 0;
	size_t cap = 0;
	uint64_t t;

	fprintf(out, "# dazuko-clamscan settings from %s (clamscan.conf(5));\n"
		"# each line names the clamd option it comes from.\n", path);
	while (getline(&line, &cap, f) >= 0) {
		char *s = config_trim(line), *opt, *value;

		lineno++;
		/* clamd.conf: "Option value", '#' starts a comment line */
		if (!*s || *s == '#')
			continue;
		opt = s;
		value = s + strcspn(s, " \t");
		if (*value)
			*value++ = 0;
		value = config_trim(value);
		/* clamd's values may be quoted */
		if (strlen(value) >= 2 && value[0] == '"' && value[strlen(value) - 1] == '"') {
			value[strlen(value) - 1] = 0;
			value++;
		}
		snprintf(where, sizeof(where), "%s:%u", path, lineno);
		if (!strcmp(opt, "Example")) {
			fprintf(notes, "%s: Example: clamd refuses to start with this line; removed\n",
				where);
			continue;
		}
		if (!*value) {
			fprintf(notes, "%s: %s: not mapped: no value\n", where, opt);
			continue;
		}
		import_line(out, notes, where, opt, value, &st);
	}
	/*
	 * With source dazukofs (no OnAccessMountPath), max_scan_time must
	 * not exceed timeout_ms (30000 by default): a longer MaxScanTime
	 * would make a config the scanner refuses; the default, lowered to
	 * timeout_ms, is kept instead.
	 */
	if (*st.scan_time) {
		if (st.mounts || (!dazukofs_parse_uint(st.scan_time, UINT32_MAX, &t) &&
				  t && t <= CONFIG_DEFAULT_TIMEOUT_MS))
			emit(out, notes, st.scan_time_where, "MaxScanTime", "max_scan_time",
			     st.scan_time);
		else
			fprintf(notes, "%s: MaxScanTime: not mapped: %s ms is more than timeout_ms (%u) allows with source dazukofs; the default (timeout_ms) is kept\n",
				st.scan_time_where, st.scan_time, CONFIG_DEFAULT_TIMEOUT_MS);
	}
	import_log(out, notes, &st);
	free(line);
}
