/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scanner's settings: defaults, the config file (key = value lines,
 * # comments) and the command line.  Every key is also an option:
 * key max_file_size is --max-file-size.  Each is defined once, in the
 * table of settings in config.c, from which the keys, the options and
 * --help all come.
 */
#ifndef SCANNER_CONFIG_H
#define SCANNER_CONFIG_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/*
 * The install paths come from the build, which gives the unit the same
 * (cmake/DazukofsPaths.cmake): DAZUKOFS_SYSCONFDIR is /etc for prefix
 * /usr, PREFIX/etc else.
 */
#if !defined(DAZUKOFS_SYSCONFDIR) || !defined(DAZUKOFS_QUARANTINE_DIR) || \
	!defined(DAZUKOFS_RUNTIME_DIR) || !defined(DAZUKOFS_LOGS_DIR) || \
	!defined(DAZUKOFS_CLAMAV_DB_DIR) || !defined(DAZUKOFS_TEXTFILE_DIR)
#error "compile with DAZUKOFS_SCANNER_PATH_DEFINES (cmake/DazukofsPaths.cmake)"
#endif
#define CONFIG_DEFAULT_PATH DAZUKOFS_SYSCONFDIR "/dazukofs/clamscan.conf"
#define CONFIG_DEFAULT_DATABASE DAZUKOFS_CLAMAV_DB_DIR
#define CONFIG_DEFAULT_GROUP "clamscan"
#define CONFIG_DEFAULT_TIMEOUT_MS 30000U
#define CONFIG_ERR_MAX 512
/* The project's VERSION file (CMake) */
#ifndef DAZUKOFS_VERSION
#define DAZUKOFS_VERSION "unknown"
#endif

enum source_kind { SOURCE_DAZUKOFS, SOURCE_FANOTIFY };
/* Who scans: libclamav in this process, or clamd servers (backend.h). */
enum backend_kind { BACKEND_LIBCLAMAV, BACKEND_CLAMD };
enum verdict { VERDICT_ALLOW = 0, VERDICT_DENY = 1 };

/*
 * Settings whose values the actions and the control socket use: defined
 * here, where they are read, so that config depends on nothing above it.
 */
#define QUARANTINE_DEFAULT_DIR DAZUKOFS_QUARANTINE_DIR
#define STORE_DEFAULT_DIR DAZUKOFS_STORE_DIR
/* store_size: ~128k entries by default; LMDB needs a few pages at least */
#define STORE_DEFAULT_SIZE (256ULL << 20)
#define STORE_MIN_SIZE (1ULL << 20)
#define STORE_MAX_SIZE (64ULL << 30)
enum quarantine_mode {
	QUARANTINE_NO,
	QUARANTINE_COPY,	/* the file stays where it was */
	QUARANTINE_MOVE,	/* and is then removed from there */
};
/* "no", "copy", "move" -> mode; -1 if unknown. */
int quarantine_mode_parse(const char *s);
/* The mode's name; "no" for anything unknown. */
const char *quarantine_mode_name(enum quarantine_mode m);
#define CONTROL_DEFAULT_SOCKET DAZUKOFS_RUNTIME_DIR "/clamscan.sock"
/* "allow" or "deny": the kernel's action names, which the config file takes too */
const char *verdict_name(enum verdict v);

struct str_list {
	char **items;
	size_t n;
};

struct uid_list {
	uid_t *v;
	size_t n;
};

/*
 * libclamav's scan limits, with clamd's meaning and defaults (MaxFileSize,
 * MaxScanSize, MaxRecursion, MaxFiles, MaxScanTime); 0 is unlimited.  The
 * scanner applies max_file_size to the opened file itself too, so that
 * there is one limit, not two.
 */
struct scan_limits {
	uint64_t max_file_size;		/* bytes */
	uint64_t max_scan_size;		/* bytes read from one file, archives included */
	unsigned int max_recursion;	/* archive nesting */
	unsigned int max_files;		/* files in one archive */
	unsigned int max_scan_time_ms;
};

struct config {
	char *config_path;
	char *group;
	unsigned int workers;		/* 0: number of CPUs */
	char *database;
	struct scan_limits limits;
	int max_scan_time_set;		/* given, not derived from timeout_ms */
	/* deny files not fully scanned (clamd's AlertExceedsMax, AlertEncrypted) */
	int alert_exceeds_max;
	int alert_encrypted;
	enum verdict on_error;
	/*
	 * 0: report only (clamd's OnAccessPrevention = no, fapolicyd's
	 * permissive mode): what would be denied is logged, counted as
	 * reported, and allowed.
	 */
	int prevention;
	struct str_list include, exclude;
	/*
	 * Processes whose opens are not scanned (opener.h): by uid (clamd's
	 * OnAccessExcludeUID, and OnAccessExcludeUname resolved when read),
	 * root (OnAccessExcludeRootUID), by executable's canonical path.
	 */
	struct uid_list exclude_uids;
	int exclude_root;
	struct str_list exclude_exes;
	/*
	 * Workloads whose opens are not scanned: systemd units (their
	 * cgroups below slices only) and cgroup paths below the cgroup2
	 * root, each with the cgroups below it.  The dazukofs source has
	 * the kernel skip them (exclude_cgroups); both sources also check
	 * the opener's /proc/PID/cgroup.
	 */
	struct str_list exclude_units;
	struct str_list exclude_cgroups;
	/*
	 * Run on a detection (detection.h): the program's absolute path
	 * and fixed arguments, split on blanks, never given to a shell; the
	 * detection is in the environment.  n 0: none.
	 */
	struct str_list virus_event;
	unsigned int virus_event_max;	/* commands running at once */
	unsigned int virus_event_timeout_ms;	/* then the command is killed */
	int quarantine;			/* enum quarantine_mode */
	char *quarantine_dir;
	/* quarantine.h's struct quarantine_limits */
	uint64_t quarantine_max_size;
	unsigned int quarantine_max_files;
	uint64_t quarantine_min_free;
	int log_level;			/* enum log_level */
	/* where and how (log.h's struct log_setup) */
	int log_target;			/* enum log_target */
	int log_facility;		/* LOG_DAEMON...: log_target syslog */
	int log_format;			/* enum log_format */
	char *log_file;
	int log_clean;			/* clamd's LogClean */
	unsigned int timeout_ms;
	enum verdict timeout_action;
	int track;
	unsigned int grace_ms;		/* the group's grace_ms (tracked) */
	unsigned int events;		/* the group's DAZUKOFS_EVENT_* bits */
	enum source_kind source;
	char *fanotify_mount;
	int foreground;
	/* --check-config: report every problem, load nothing */
	int check_only;
	unsigned int problems;		/* found so far (check_only) */
	size_t cache_size;		/* entries; 0: no cache */
	/* the verdict store (store/verdict_store.h): on, where, how large */
	int store;
	char *store_path;
	uint64_t store_size;
	int clamav_cache;		/* libclamav's own clean-file cache */
	unsigned int status_interval_ms;
	unsigned int self_check;	/* seconds, 0: never (clamd's SelfCheck) */
	enum backend_kind backend;
	/*
	 * backend clamd: a local clamd's socket (clamd's LocalSocket; the
	 * event's fd is passed, FILDES), then TCP servers "host:port" in order
	 * of preference (INSTREAM).  StreamMaxLength must be the servers'
	 * (a larger file is not sent: the limits policy decides it).
	 */
	char *local_socket;
	struct str_list tcp_servers;
	uint64_t stream_max_length;	/* bytes; 0: unlimited */
	unsigned int clamd_timeout_ms;	/* one request to one server */
	int clamd_timeout_set;		/* given, not derived from timeout_ms */
	unsigned int clamd_retry_ms;	/* a failed server is out this long */
	char *metrics_file;		/* Prometheus text file (metrics.h); NULL: none */
	unsigned int metrics_interval;	/* seconds between its writes */
	/* status and reload requests (control.h); NULL: none */
	char *control_socket;
	/* --import-clamd-conf FILE: the app imports it and exits; NULL: not asked */
	char *import_clamd_conf;
};

void config_init(struct config *cfg);
void config_free(struct config *cfg);

/* Set KEY (underscores or dashes) to VALUE; -1 with a message in err. */
int config_set(struct config *cfg, const char *key, const char *value,
	       char *err, size_t errlen);

/*
 * Read a config file, which must pass trust_path(); a bad line gives -1
 * and "FILE:LINE: why" in err.
 */
int config_load_file(struct config *cfg, const char *path, int must_exist,
		     char *err, size_t errlen);
/* The same from an open stream, path naming it in messages (the fuzzer's). */
int config_load_stream(struct config *cfg, FILE *f, const char *path,
		       char *err, size_t errlen);

/*
 * The whole: defaults, the file (--config or the default; the default may
 * be missing), then the command line on top.  Returns 0, 1 for --help,
 * --version (done, printed) or --import-clamd-conf (cfg->import_clamd_conf set: the caller imports), -1 with a message in err.  With --check-config
 * (cfg->check_only), every problem is printed on stderr as it is found
 * and reading goes on; -1 at the end if there was any.
 */
int config_from_args(struct config *cfg, int argc, char **argv, char *err,
		     size_t errlen);

void config_usage(FILE *out, const char *prog);

/* Parsers, for the tests. */
int config_parse_size(const char *s, uint64_t *out);
int config_parse_bool(const char *s, int *out);
/*
 * "host:port" or "[v6addr]:port": host (brackets stripped) into host,
 * the port into port.  -1 if malformed.
 */
int config_parse_hostport(const char *s, char *host, size_t hostlen,
			  char *port, size_t portlen);

/* s without leading and trailing white space (cut in place) */
char *config_trim(char *s);

#endif
