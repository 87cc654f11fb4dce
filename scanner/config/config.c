// SPDX-License-Identifier: GPL-2.0
/* Settings from defaults, the config file and the command line. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>
#include <unistd.h>

#include <dazukofs.h>
#include <linux/dazukofs.h>

#include "config/config.h"
#include "log/log.h"
#include "log/metrics.h"
#include "util/trust.h"
#include "util/workload.h"

#define MAX_SCAN_TIME_DEFAULT_MS 120000U
#define CLAMD_TIMEOUT_DEFAULT_MS 10000U
#define CLAMD_RETRY_DEFAULT_MS 10000U

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		perror("dazuko-clamscan: strdup");
		exit(1);
	}
	return d;
}

static void set_str(char **dst, const char *s)
{
	free(*dst);
	*dst = xstrdup(s);
}

void config_init(struct config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->group = xstrdup(CONFIG_DEFAULT_GROUP);
	cfg->database = xstrdup(CONFIG_DEFAULT_DATABASE);
	cfg->limits.max_file_size = 100ULL << 20;
	cfg->limits.max_scan_size = 400ULL << 20;
	cfg->limits.max_recursion = 17;
	cfg->limits.max_files = 10000;
	cfg->limits.max_scan_time_ms = MAX_SCAN_TIME_DEFAULT_MS;
	cfg->alert_exceeds_max = 1;
	cfg->alert_encrypted = 1;
	cfg->on_error = VERDICT_ALLOW;
	cfg->prevention = 1;
	cfg->virus_event_max = 4;
	cfg->virus_event_timeout_ms = 60000;
	cfg->quarantine_dir = xstrdup(QUARANTINE_DEFAULT_DIR);
	cfg->store_path = xstrdup(STORE_DEFAULT_DIR);
	cfg->quarantine_max_size = 1ULL << 30;
	cfg->quarantine_max_files = 1000;
	cfg->quarantine_min_free = 256ULL << 20;
	cfg->log_level = LOG_LVL_INFO;
	cfg->log_target = LOG_TARGET_AUTO;
	cfg->log_facility = LOG_DAEMON;
	cfg->log_format = LOG_FORMAT_TEXT;
	cfg->timeout_ms = CONFIG_DEFAULT_TIMEOUT_MS;
	cfg->timeout_action = VERDICT_ALLOW;
	cfg->track = 1;
	/* A restart (RestartSec=2s) plus loading the signatures, and margin. */
	cfg->grace_ms = 30000;
	cfg->events = DAZUKOFS_EVENT_OPEN;
	cfg->source = SOURCE_DAZUKOFS;
	cfg->cache_size = 65536;
	cfg->store = 1;
	cfg->store_size = STORE_DEFAULT_SIZE;
	cfg->clamav_cache = 1;
	cfg->status_interval_ms = 5000;
	cfg->self_check = 600;		/* clamd's default */
	cfg->backend = BACKEND_LIBCLAMAV;
	cfg->stream_max_length = 100ULL << 20;	/* clamd's default */
	cfg->clamd_timeout_ms = CLAMD_TIMEOUT_DEFAULT_MS;
	cfg->clamd_retry_ms = CLAMD_RETRY_DEFAULT_MS;
	cfg->metrics_interval = METRICS_INTERVAL_DEFAULT;
	cfg->control_socket = xstrdup(CONTROL_DEFAULT_SOCKET);
}

static void list_free(struct str_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->items[i]);
	free(l->items);
	l->items = NULL;
	l->n = 0;
}

void config_free(struct config *cfg)
{
	free(cfg->config_path);
	free(cfg->group);
	free(cfg->database);
	free(cfg->fanotify_mount);
	free(cfg->local_socket);
	free(cfg->control_socket);
	free(cfg->import_clamd_conf);
	list_free(&cfg->tcp_servers);
	list_free(&cfg->include);
	list_free(&cfg->exclude);
	list_free(&cfg->exclude_exes);
	list_free(&cfg->exclude_units);
	list_free(&cfg->exclude_cgroups);
	list_free(&cfg->virus_event);
	free(cfg->quarantine_dir);
	free(cfg->store_path);
	free(cfg->metrics_file);
	free(cfg->log_file);
	free(cfg->exclude_uids.v);
	memset(cfg, 0, sizeof(*cfg));
}

/* "123", "64K", "100M", "2G" (powers of 1024). */
int config_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (!*s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (*end) {
		switch (toupper((unsigned char)*end)) {
		case 'K': shift = 10; break;
		case 'M': shift = 20; break;
		case 'G': shift = 30; break;
		case 'T': shift = 40; break;
		default: return -1;
		}
		end++;
		/* K, KB or KiB: all powers of 1024 */
		if (!strcmp(end, "iB") || !strcmp(end, "B") || !strcmp(end, "b"))
			end += strlen(end);
		if (*end)
			return -1;
	}
	if (shift && v > (UINT64_MAX >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

int config_parse_bool(const char *s, int *out)
{
	static const char *const yes[] = { "1", "yes", "true", "on" };
	static const char *const no[] = { "0", "no", "false", "off" };

	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = 1;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = 0;
			return 0;
		}
	}
	return -1;
}

int config_parse_hostport(const char *s, char *host, size_t hostlen,
			  char *port, size_t portlen)
{
	const char *colon, *h = s;
	size_t hn;
	uint64_t p;

	if (*s == '[') {
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':')
			return -1;
		h = s + 1;
		hn = (size_t)(close - h);
		colon = close + 1;
	} else {
		colon = strrchr(s, ':');
		/* an IPv6 address needs brackets, or its port is ambiguous */
		if (!colon || memchr(s, ':', (size_t)(colon - s)))
			return -1;
		hn = (size_t)(colon - s);
	}
	if (!hn || hn >= hostlen || dazukofs_parse_uint(colon + 1, 65535, &p) || !p ||
	    strlen(colon + 1) >= portlen)
		return -1;
	for (size_t i = 0; i < hn; i++)
		if (isspace((unsigned char)h[i]) || h[i] == '/')
			return -1;
	memcpy(host, h, hn);
	host[hn] = 0;
	snprintf(port, portlen, "%s", colon + 1);
	return 0;
}

static void list_add(struct str_list *l, const char *s)
{
	char **items = realloc(l->items, (l->n + 1) * sizeof(*items));

	if (!items) {
		perror("dazuko-clamscan: realloc");
		exit(1);
	}
	l->items = items;
	l->items[l->n++] = xstrdup(s);
}

static void uid_add(struct uid_list *l, uid_t uid)
{
	uid_t *v = realloc(l->v, (l->n + 1) * sizeof(*v));

	if (!v) {
		perror("dazuko-clamscan: realloc");
		exit(1);
	}
	l->v = v;
	l->v[l->n++] = uid;
}

/* A user name's uid, from the passwd database (NSS) when the config is read. */
static int lookup_user(const char *name, uid_t *uid, char *why, size_t whylen)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	int rc = getpwnam_r(name, &pw, buf, sizeof(buf), &res);

	if (res) {
		*uid = pw.pw_uid;
		return 0;
	}
	snprintf(why, whylen, "%s", rc ? strerror(rc) : "no such user");
	return -1;
}

/* A '.' or '..' component, or an empty one ("//"), in absolute path s. */
static int has_odd_component(const char *s)
{
	for (const char *c = s + 1; *c; ) {
		size_t n = strcspn(c, "/");

		if ((!n && c[n]) || (n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.'))
			return 1;
		c += n + (c[n] == '/');
	}
	return 0;
}

/*
 * An absolute, canonical path without a trailing slash (except "/").
 * The filter compares event paths, which never hold '.', '..', '//' or
 * symlinks, byte by byte: a prefix spelt otherwise would never match, so
 * such spellings are refused and symlinks are resolved here.  where
 * ("FILE:LINE" or "command line") is for the notices and warnings.
 */
static int add_prefix(struct str_list *l, const char *key, const char *s,
		      const char *where, char *err, size_t errlen)
{
	char resolved[PATH_MAX];
	size_t n = strlen(s);
	char **items;
	char *p;

	if (s[0] != '/' || n >= PATH_MAX) {
		snprintf(err, errlen, "%s: '%s' is not an absolute path", key, s);
		return -1;
	}
	p = xstrdup(s);
	while (n > 1 && p[n - 1] == '/')
		p[--n] = 0;
	if (has_odd_component(p)) {
		snprintf(err, errlen,
			 "%s: '%s' is not a canonical absolute path (no '.', '..' or '//')",
			 key, s);
		free(p);
		return -1;
	}
	if (realpath(p, resolved)) {
		if (strcmp(resolved, p)) {
			log_notice("%s: %s: '%s' leads through a symlink to '%s'; using '%s'",
				   where, key, p, resolved, resolved);
			free(p);
			p = xstrdup(resolved);
		}
	} else if (errno == ENOENT && strcmp(key, "exclude")) {
		log_warning("%s: %s: '%s' does not exist here, so it matches nothing",
			    where, key, p);
	} else if (errno != ENOENT) {
		log_warning("%s: %s: '%s' cannot be resolved (%s); used as written",
			    where, key, p, strerror(errno));
	}
	items = realloc(l->items, (l->n + 1) * sizeof(*items));
	if (!items) {
		perror("dazuko-clamscan: realloc");
		exit(1);
	}
	l->items = items;
	l->items[l->n++] = p;
	return 0;
}

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

/*
 * The settings whose values need more than a kind's parser and one field
 * (table below).  Each parses VALUE and stores it, or fails with the
 * message in err.
 */
static int set_group(struct config *cfg, const char *value, char *err, size_t errlen)
{
	if (!dazukofs_group_name_valid(value))
		FAIL("group: '%s' is not 1 to %d of [A-Za-z0-9_-]", value,
		     DAZUKOFS_GROUP_NAME_MAX);
	set_str(&cfg->group, value);
	return 0;
}

static int set_exclude_uid(struct config *cfg, const char *value, char *err,
			   size_t errlen)
{
	uint64_t u;

	if (dazukofs_parse_uint(value, (uid_t)-2, &u))
		FAIL("exclude_uid: '%s' is not a uid (a number from 0 to %u)", value,
		     (unsigned int)(uid_t)-2);
	uid_add(&cfg->exclude_uids, (uid_t)u);
	return 0;
}

static int set_exclude_user(struct config *cfg, const char *value, char *err,
			    size_t errlen)
{
	char why[256];
	uid_t uid;

	if (lookup_user(value, &uid, why, sizeof(why)))
		FAIL("exclude_user: '%s': %s", value, why);
	uid_add(&cfg->exclude_uids, uid);
	return 0;
}

static int set_exclude_unit(struct config *cfg, const char *value, char *err,
			    size_t errlen)
{
	if (!workload_unit_name_valid(value, strlen(value)))
		FAIL("exclude_unit: '%s' is not the name of a service or scope unit (NAME.service, NAME.scope)",
		     value);
	list_add(&cfg->exclude_units, value);
	return 0;
}

static int set_exclude_cgroup(struct config *cfg, const char *value, char *err,
			      size_t errlen)
{
	size_t n = strlen(value);
	char *p;

	if (value[0] != '/' || n >= 4096 || has_odd_component(value))
		FAIL("exclude_cgroup: '%s' is not a cgroup path from the cgroup2 root (/system.slice/x.service; no '.', '..' or '//')",
		     value);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)value[i] < 0x20 || value[i] == 0x7f)
			FAIL("exclude_cgroup: '%s' holds a control character", value);
	p = xstrdup(value);
	while (n > 1 && p[n - 1] == '/')
		p[--n] = 0;
	list_add(&cfg->exclude_cgroups, p);
	free(p);
	return 0;
}

static int set_virus_event(struct config *cfg, const char *value, char *err,
			   size_t errlen)
{
	char *copy = xstrdup(value), *save = NULL;

	/* fixed words: no quoting, no expansion, nothing for a shell */
	list_free(&cfg->virus_event);
	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		list_add(&cfg->virus_event, w);
	free(copy);
	if (!cfg->virus_event.n)
		FAIL("virus_event: a program's absolute path is missing");
	if (cfg->virus_event.items[0][0] != '/' ||
	    access(cfg->virus_event.items[0], X_OK)) {
		snprintf(err, errlen, "virus_event: '%s' is not an absolute path to an executable%s%s",
			 cfg->virus_event.items[0],
			 cfg->virus_event.items[0][0] == '/' ? ": " : "",
			 cfg->virus_event.items[0][0] == '/' ? strerror(errno) : "");
		list_free(&cfg->virus_event);
		return -1;
	}
	if (trust_path("virus_event", cfg->virus_event.items[0], err, errlen)) {
		list_free(&cfg->virus_event);
		return -1;
	}
	/* execve's argv ends with a NULL after the n words */
	list_add(&cfg->virus_event, "");
	cfg->virus_event.n--;
	free(cfg->virus_event.items[cfg->virus_event.n]);
	cfg->virus_event.items[cfg->virus_event.n] = NULL;
	return 0;
}

static const char *const quarantine_mode_names[] = {
	[QUARANTINE_NO] = "no",
	[QUARANTINE_COPY] = "copy",
	[QUARANTINE_MOVE] = "move",
};

int quarantine_mode_parse(const char *s)
{
	for (size_t i = 0; i < sizeof(quarantine_mode_names) / sizeof(quarantine_mode_names[0]); i++)
		if (!strcmp(s, quarantine_mode_names[i]))
			return (int)i;
	return -1;
}

const char *quarantine_mode_name(enum quarantine_mode m)
{
	return (unsigned int)m < sizeof(quarantine_mode_names) / sizeof(quarantine_mode_names[0]) ?
	       quarantine_mode_names[m] : quarantine_mode_names[QUARANTINE_NO];
}

static int set_quarantine(struct config *cfg, const char *value, char *err,
			  size_t errlen)
{
	int m = quarantine_mode_parse(value);

	if (m < 0)
		FAIL("quarantine: '%s' is not no, copy or move", value);
	cfg->quarantine = m;
	return 0;
}

/* The names are log.c's; an enum table here would be a second list. */
static int set_log_level(struct config *cfg, const char *value, char *err,
			 size_t errlen)
{
	int l = log_level_parse(value);

	if (l < 0)
		FAIL("log_level: '%s' is not error, warning, notice, info or debug", value);
	cfg->log_level = l;
	return 0;
}

static int set_log_facility(struct config *cfg, const char *value, char *err,
			    size_t errlen)
{
	int f = log_facility_parse(value);

	if (f < 0)
		FAIL("log_facility: '%s' is not %s", value, LOG_FACILITY_NAMES);
	cfg->log_facility = f;
	return 0;
}

static int set_local_socket(struct config *cfg, const char *value, char *err,
			    size_t errlen)
{
	struct sockaddr_un sun;

	if (value[0] != '/' || strlen(value) >= sizeof(sun.sun_path))
		FAIL("local_socket: '%s' is not an absolute path of at most %zu bytes",
		     value, sizeof(sun.sun_path) - 1);
	set_str(&cfg->local_socket, value);
	return 0;
}

static int set_control_socket(struct config *cfg, const char *value, char *err,
			      size_t errlen)
{
	struct sockaddr_un sun;
	int on;

	if (!*value || (!config_parse_bool(value, &on) && !on)) {
		free(cfg->control_socket);
		cfg->control_socket = NULL;
		return 0;
	}
	if (value[0] != '/' || strlen(value) >= sizeof(sun.sun_path) ||
	    value[strlen(value) - 1] == '/')
		FAIL("control_socket: '%s' is not no or an absolute path of at most %zu bytes",
		     value, sizeof(sun.sun_path) - 1);
	set_str(&cfg->control_socket, value);
	return 0;
}

static int set_tcp_server(struct config *cfg, const char *value, char *err,
			  size_t errlen)
{
	char host[256], port[8];

	if (config_parse_hostport(value, host, sizeof(host), port, sizeof(port)))
		FAIL("tcp_server: '%s' is not HOST:PORT (an IPv6 address in brackets: [::1]:3310)",
		     value);
	list_add(&cfg->tcp_servers, value);
	return 0;
}

static int set_events(struct config *cfg, const char *value, char *err, size_t errlen)
{
	unsigned int events = dazukofs_events_parse(value);

	if (!events)
		FAIL("events: '%s' is not a list of open, exec and close_write", value);
	cfg->events = events;
	return 0;
}

/*
 * node_exporter's textfile collector reads *.prom files only: another
 * name would be written and never scraped, silently.  Empty: none (to
 * turn off a config file's on the command line).
 */
static int set_metrics_file(struct config *cfg, const char *value, char *err,
			    size_t errlen)
{
	size_t n = strlen(value), sn = strlen(METRICS_SUFFIX);

	if (!n) {
		free(cfg->metrics_file);
		cfg->metrics_file = NULL;
		return 0;
	}
	/* a name before the suffix: "/dir/.prom" is a hidden file */
	/* room for metrics.c's temporary name, PATH.tmp.XXXXXX */
	if (n + 16 >= PATH_MAX)
		FAIL("metrics_file: '%.64s...' is longer than %d bytes", value, PATH_MAX - 17);
	if (value[0] != '/' || n <= sn + 1 || strcmp(value + n - sn, METRICS_SUFFIX) ||
	    value[n - sn - 1] == '/')
		FAIL("metrics_file: '%s' is not an absolute path of a file named *%s (node_exporter's textfile collector reads only those), e.g. %s/dazuko-clamscan%s",
		     value, METRICS_SUFFIX, METRICS_TEXTFILE_DIR, METRICS_SUFFIX);
	set_str(&cfg->metrics_file, value);
	return 0;
}

/* How a setting's value is read and where it goes. */
enum kind {
	KIND_BOOL,	/* int: yes|no, 1|0, true|false, on|off */
	KIND_UINT,	/* unsigned int from min to max */
	KIND_COUNT,	/* size_t from min to max */
	KIND_BYTES,	/* uint64_t: a size (100M), at least min, at most max unless 0 */
	KIND_ENUM,	/* an enum: the index of the value in names */
	KIND_PATH,	/* char *: an absolute path */
	KIND_PREFIXES,	/* struct str_list: add_prefix(), repeatable */
	KIND_FUNC,	/* set() reads and stores it */
	KIND_OPTION,	/* no setting: an option of config_from_args() only */
};

/* What the options that are no setting do (KIND_OPTION). */
enum action { ACT_NONE, ACT_CONFIG, ACT_CHECK, ACT_IMPORT, ACT_HELP, ACT_VERSION };

/*
 * One setting: its key in the file, which is also its option (with dashes
 * for underscores: max_file_size is --max-file-size), its --help, and how
 * its value is read.  A setting without arg is an option without an
 * argument that sets it to yes.
 */
struct setting {
	const char *key;
	char letter;		/* short option; 0: none */
	const char *arg;	/* the option's argument in --help */
	const char *help;	/* its lines in --help, '\n' between */
	enum kind kind;
	size_t off;		/* the field: offsetof(struct config, ...) */
	size_t given;		/* an int field set to 1 with it; 0: none */
	unsigned long long min, max;
	const char *zero;	/* KIND_UINT, KIND_COUNT: what 0 means */
	const char *what;	/* a good value, in "KEY: 'VALUE' is not WHAT" */
	const char *const *names;	/* KIND_ENUM, NULL-terminated */
	int (*set)(struct config *cfg, const char *value, char *err, size_t errlen);
	enum action act;	/* KIND_OPTION */
};

/*
 * The field's offset.  A field of another type than its kind stores fails
 * the build: the comparison of distinct pointer types is diagnosed.
 */
#define FIELD(type, f) \
	(offsetof(struct config, f) + 0 * sizeof(&((struct config *)0)->f == (type *)0))
/*
 * An enum is stored as an int (the signed form of the unsigned int GCC
 * and clang give an enum without negative values); the build fails if
 * it has another size.
 */
#define ENUM_FIELD(f) \
	(offsetof(struct config, f) + \
	 0 * sizeof(char[sizeof(((struct config *)0)->f) == sizeof(int) ? 1 : -1]))

#define BOOL(f)			.kind = KIND_BOOL, .off = FIELD(int, f)
#define UINT(f, lo, hi)		.kind = KIND_UINT, .off = FIELD(unsigned int, f), \
				.min = (lo), .max = (hi)
#define COUNT(f, lo, hi)	.kind = KIND_COUNT, .off = FIELD(size_t, f), \
				.min = (lo), .max = (hi)
#define BYTES(f, hi)		.kind = KIND_BYTES, .off = FIELD(uint64_t, f), .max = (hi)
#define ENUM(f, n)		.kind = KIND_ENUM, .off = ENUM_FIELD(f), .names = (n)
#define PATH(f)			.kind = KIND_PATH, .off = FIELD(char *, f)
#define PREFIXES(f)		.kind = KIND_PREFIXES, .off = FIELD(struct str_list, f)
#define FUNC(fn)		.kind = KIND_FUNC, .set = (fn)
#define OPTION(a)		.kind = KIND_OPTION, .act = (a)
/* an int field set to 1 when the setting is given (not derived) */
#define GIVEN(f)		.given = FIELD(int, f)

/* given 0 is no field: offset 0 is config_path's */
_Static_assert(offsetof(struct config, config_path) == 0, "config_path first");

/* KIND_ENUM: a value's index is the enum's value */
static const char *const verdict_names[] = {
	[VERDICT_ALLOW] = DAZUKOFS_ACTION_NAME_ALLOW, [VERDICT_DENY] = DAZUKOFS_ACTION_NAME_DENY,
	NULL
};

_Static_assert(VERDICT_ALLOW == DAZUKOFS_ALLOW && VERDICT_DENY == DAZUKOFS_DENY,
	       "the scanner's verdicts are the kernel's actions");

const char *verdict_name(enum verdict v)
{
	return dazukofs_action_name(v);
}

static const char *const source_names[] = {
	[SOURCE_DAZUKOFS] = "dazukofs", [SOURCE_FANOTIFY] = "fanotify", NULL
};
static const char *const backend_names[] = {
	[BACKEND_LIBCLAMAV] = "libclamav", [BACKEND_CLAMD] = "clamd", NULL
};

/* In --help's order. */
static const struct setting settings[] = {
	{ .key = "config", .letter = 'c', .arg = "FILE", OPTION(ACT_CONFIG),
	  .help = "config file (default " CONFIG_DEFAULT_PATH ")" },
	{ .key = "group", .letter = 'g', .arg = "NAME", FUNC(set_group),
	  .help = "DazukoFS group to create and serve (default " CONFIG_DEFAULT_GROUP ")" },
	{ .key = "workers", .letter = 'w', .arg = "N", UINT(workers, 0, 1024),
	  .zero = "one per CPU",
	  .help = "scanning threads (default {default}: one per CPU)" },
	{ .key = "database", .letter = 'd', .arg = "DIR", PATH(database),
	  .help = "ClamAV signature directory (default " CONFIG_DEFAULT_DATABASE ")" },
	{ .key = "max_file_size", .arg = "SIZE", BYTES(limits.max_file_size, 0),
	  .what = "a size (e.g. 4096, 64K, 100M, 2G; 0: unlimited)",
	  .help = "larger files are not scanned (default {default}, 0: no limit)" },
	{ .key = "max_scan_size", .arg = "SIZE", BYTES(limits.max_scan_size, 0),
	  .what = "a size (e.g. 4096, 64K, 400M, 2G; 0: unlimited)",
	  .help = "data scanned per file, archives included (default {default})" },
	{ .key = "max_recursion", .arg = "N", UINT(limits.max_recursion, 0, UINT32_MAX),
	  .zero = "unlimited",
	  .help = "archive nesting scanned (default {default}, 0: no limit)" },
	{ .key = "max_files", .arg = "N", UINT(limits.max_files, 0, UINT32_MAX),
	  .zero = "unlimited",
	  .help = "files scanned per archive (default {default}, 0: no limit)" },
	{ .key = "max_scan_time", .arg = "MS", UINT(limits.max_scan_time_ms, 0, UINT32_MAX),
	  GIVEN(max_scan_time_set), .what = "a number of milliseconds", .zero = "unlimited",
	  .help = "time per file (default {default}, at most timeout-ms)" },
	{ .key = "alert_exceeds_max", .arg = "yes|no", BOOL(alert_exceeds_max),
	  .help = "deny files past a limit (default {default})" },
	{ .key = "alert_encrypted", .arg = "yes|no", BOOL(alert_encrypted),
	  .help = "deny encrypted archives, documents (default {default})" },
	{ .key = "on_error", .arg = "allow|deny", ENUM(on_error, verdict_names),
	  .help = "verdict when a scan fails (default {default})" },
	{ .key = "prevention", .arg = "yes|no", BOOL(prevention),
	  .what = "yes (deny) or no (report only)",
	  .help = "no: report only, log and count detections but\n"
		  "allow the open (default {default})" },
	{ .key = "include", .arg = "PREFIX", PREFIXES(include),
	  .help = "scan only under these path prefixes (repeatable)" },
	{ .key = "exclude", .arg = "PREFIX", PREFIXES(exclude),
	  .help = "never scan under these path prefixes (repeatable)" },
	{ .key = "exclude_uid", .arg = "UID", FUNC(set_exclude_uid),
	  .help = "opens by processes of this uid are not scanned\n"
		  "(repeatable)" },
	{ .key = "exclude_user", .arg = "NAME", FUNC(set_exclude_user),
	  .help = "the same, by user name (repeatable)" },
	{ .key = "exclude_root", .arg = "yes|no", BOOL(exclude_root),
	  .help = "opens by root's processes are not scanned\n"
		  "(default {default})" },
	{ .key = "exclude_exe", .arg = "PATH", PREFIXES(exclude_exes),
	  .help = "opens by processes running this executable\n"
		  "are not scanned (repeatable)" },
	{ .key = "exclude_unit", .arg = "NAME", FUNC(set_exclude_unit),
	  .help = "opens by the processes of this systemd service or\n"
		  "scope unit are not scanned (repeatable)" },
	{ .key = "exclude_cgroup", .arg = "PATH", FUNC(set_exclude_cgroup),
	  .help = "opens by the processes of this cgroup, as\n"
		  "/proc/PID/cgroup shows it, and of the cgroups\n"
		  "below it, are not scanned (repeatable)" },
	{ .key = "virus_event", .arg = "'PROG [ARG]...'", FUNC(set_virus_event),
	  .help = "run on each detection (no shell), with\n"
		  "CLAM_VIRUSEVENT_FILENAME, _VIRUSNAME set" },
	{ .key = "virus_event_max", .arg = "N", UINT(virus_event_max, 1, 64),
	  .help = "virus_event commands at once (default {default})" },
	{ .key = "virus_event_timeout", .arg = "MS",
	  UINT(virus_event_timeout_ms, 1, 86400000),
	  .what = "a number of milliseconds",
	  .help = "a virus_event command still running then is\n"
		  "killed (default {default})" },
	{ .key = "quarantine", .arg = "no|copy|move", FUNC(set_quarantine),
	  .help = "put detected files into quarantine_dir;\n"
		  "move also removes them (default no)" },
	{ .key = "quarantine_dir", .arg = "DIR", PATH(quarantine_dir),
	  .help = "root-only quarantine directory\n"
		  "(default " QUARANTINE_DEFAULT_DIR ")" },
	{ .key = "quarantine_max_size", .arg = "SIZE", BYTES(quarantine_max_size, 0),
	  .what = "a size (e.g. 64M, 1G; 0: unlimited)",
	  .help = "no copy past this many bytes in quarantine_dir\n"
		  "(default {default}, 0: no limit)" },
	{ .key = "quarantine_max_files", .arg = "N", UINT(quarantine_max_files, 0, UINT32_MAX),
	  .zero = "unlimited",
	  .help = "no copy past this many entries (default {default},\n"
		  "0: no limit)" },
	{ .key = "quarantine_min_free", .arg = "SIZE", BYTES(quarantine_min_free, 0),
	  .what = "a size (e.g. 256M, 1G; 0: none)",
	  .help = "no copy that leaves less free space on its\n"
		  "filesystem (default {default}, 0: none)" },
	{ .key = "log_level", .arg = "LEVEL", FUNC(set_log_level),
	  .help = "error, warning, notice, info (default), debug" },
	{ .key = "log_target", .arg = "TARGET", ENUM(log_target, log_target_names),
	  .help = "auto (default: log_file if set, else the journal\n"
		  "under systemd, else stderr), journal, syslog,\n"
		  "file or stderr" },
	{ .key = "log_facility", .arg = "NAME", FUNC(set_log_facility),
	  .help = "syslog facility: daemon (default), local0..7,\n"
		  "user, auth, ... (log_target syslog)" },
	{ .key = "log_file", .arg = "PATH", PATH(log_file),
	  .help = "log to this file, reopened on SIGHUP\n"
		  "(log_target file)" },
	{ .key = "log_format", .arg = "FORMAT", ENUM(log_format, log_format_names),
	  .help = "text (default) or json: one JSON object per\n"
		  "line (log_target file or stderr)" },
	{ .key = "log_clean", .arg = "yes|no", BOOL(log_clean),
	  .help = "log each clean scan, at info level (default {default})" },
	{ .key = "timeout_ms", .arg = "MS", UINT(timeout_ms, 0, DAZUKOFS_TIMEOUT_MS_MAX),
	  .zero = "wait for ever",
	  .help = "group verdict timeout, 0 waits for ever (default {default})" },
	{ .key = "timeout_action", .arg = "allow|deny", ENUM(timeout_action, verdict_names),
	  .help = "verdict of a timed-out event (default {default})" },
	{ .key = "track", .arg = "yes|no", BOOL(track),
	  .help = "crash-tracked group (default {default})" },
	{ .key = "grace_ms", .arg = "MS", UINT(grace_ms, 0, DAZUKOFS_GRACE_MS_MAX),
	  .help = "tracked group: how long its events wait for a\n"
		  "restarted scanner, {min} to {max} (default {default})" },
	{ .key = "events", .arg = "'open exec close_write'", FUNC(set_events),
	  .help = "what is scanned (source dazukofs):\n"
		  "opens, execs, files as their writer closes\n"
		  "them (default open)" },
	{ .key = "cache_size", .arg = "N", COUNT(cache_size, 0, 1U << 24),
	  .zero = "no cache",
	  .help = "verdict cache entries, 0 disables (default {default})" },
	{ .key = "store", .arg = "yes|no", BOOL(store),
	  .help = "keep verdicts across restarts, by content, in\n"
		  "store_path (default {default}; backend clamd: a local\n"
		  "clamd's only)" },
	{ .key = "store_path", .arg = "DIR", PATH(store_path),
	  .help = "the verdict store's directory, 0700\n"
		  "(default " STORE_DEFAULT_DIR ")" },
	{ .key = "store_size", .arg = "SIZE", BYTES(store_size, STORE_MAX_SIZE),
	  .min = STORE_MIN_SIZE,
	  .what = "a size from 1M to 64G (e.g. 64M, 1G)",
	  .help = "the verdict store's size on disk, oldest entries\n"
		  "evicted (default {default})" },
	{ .key = "clamav_cache", .arg = "yes|no", BOOL(clamav_cache),
	  .help = "libclamav's cache of clean file hashes (default {default})" },
	{ .key = "status_interval_ms", .arg = "MS", UINT(status_interval_ms, 100, 3600000),
	  .help = "how often the status line is updated (default {default})" },
	{ .key = "self_check", .arg = "SECONDS", UINT(self_check, 0, 86400),
	  .zero = "never",
	  .help = "reload changed signatures every SECONDS, as clamd's\n"
		  "SelfCheck (default {default}, 0: never)" },
	{ .key = "source", .arg = "dazukofs|fanotify", ENUM(source, source_names),
	  .help = "where events come from (default {default})" },
	{ .key = "fanotify_mount", .arg = "PATH", PATH(fanotify_mount),
	  .help = "the mount to watch with source fanotify" },
	{ .key = "backend", .arg = "libclamav|clamd", ENUM(backend, backend_names),
	  .help = "who scans: libclamav in this process\n"
		  "(default) or clamd servers" },
	{ .key = "local_socket", .arg = "PATH", FUNC(set_local_socket),
	  .help = "backend clamd: a local clamd's socket (fd passing)" },
	{ .key = "tcp_server", .arg = "HOST:PORT", FUNC(set_tcp_server),
	  .help = "backend clamd: a clamd over TCP (repeatable,\n"
		  "in order of preference)" },
	{ .key = "stream_max_length", .arg = "SIZE", BYTES(stream_max_length, UINT32_MAX),
	  .what = "a size up to 4G (e.g. 25M, 100M; 0: unlimited)",
	  .help = "the TCP servers' StreamMaxLength (default {default})" },
	{ .key = "clamd_timeout_ms", .arg = "MS", UINT(clamd_timeout_ms, 1, DAZUKOFS_TIMEOUT_MS_MAX),
	  GIVEN(clamd_timeout_set), .what = "a number of milliseconds",
	  .help = "one request to one clamd (default {default}, below\n"
		  "timeout-ms)" },
	{ .key = "clamd_retry_ms", .arg = "MS", UINT(clamd_retry_ms, 1, DAZUKOFS_TIMEOUT_MS_MAX),
	  .what = "a number of milliseconds",
	  .help = "a failed clamd is retried after (default {default})" },
	{ .key = "metrics_file", .arg = "PATH", FUNC(set_metrics_file),
	  .help = "write Prometheus metrics to PATH (*.prom, e.g. in\n"
		  METRICS_TEXTFILE_DIR "/;\n"
		  "default none)" },
	{ .key = "metrics_interval", .arg = "SECONDS",
	  UINT(metrics_interval, 1, METRICS_INTERVAL_MAX), .what = "a number of seconds",
	  .help = "how often metrics_file is written (default {default})" },
	{ .key = "control_socket", .arg = "PATH|no", FUNC(set_control_socket),
	  .help = "socket of the status and reload commands, root\n"
		  "only (default " CONTROL_DEFAULT_SOCKET ")" },
	{ .key = "foreground", .letter = 'f', BOOL(foreground),
	  .help = "do not detach (always so under systemd)" },
	{ .key = "check_config", OPTION(ACT_CHECK),
	  .help = "read the config file and the options, load\n"
		  "nothing, print every problem; exit 0 if none" },
	{ .key = "import_clamd_conf", .arg = "FILE", OPTION(ACT_IMPORT),
	  .help = "print a clamd.conf's on-access, engine and\n"
		  "logging options as settings of this scanner;\n"
		  "what cannot be mapped, line by line, on stderr" },
	{ .key = "help", .letter = 'h', OPTION(ACT_HELP),
	  .help = "this text" },
	{ .key = "version", .letter = 'V', OPTION(ACT_VERSION),
	  .help = "print the version and exit" },
};

#define N_SETTINGS (sizeof(settings) / sizeof(settings[0]))
/* the longest key and option name, with its NUL */
#define KEY_MAX 64

static void *field(struct config *cfg, const struct setting *s)
{
	return (char *)cfg + s->off;
}

/* "a or b", "a, b or c": an enum's values, for its error message */
static void join_names(const char *const *names, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; names[i] && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 !i ? "" : names[i + 1] ? ", " : " or ", names[i]);
}

/*
 * Set s to value.  where (a file's "FILE:LINE" or "command line") is
 * for the notices and warnings of a value that is taken.
 */
static int apply(struct config *cfg, const struct setting *s, const char *value,
		 const char *where, char *err, size_t errlen)
{
	uint64_t u;
	uint64_t size;
	char names[128];
	size_t i;

	switch (s->kind) {
	case KIND_BOOL:
		if (config_parse_bool(value, field(cfg, s)))
			FAIL("%s: '%s' is not %s", s->key, value,
			     s->what ? s->what : "yes or no");
		break;
	case KIND_UINT:
	case KIND_COUNT:
		if (dazukofs_parse_uint(value, s->max, &u) || u < s->min)
			FAIL("%s: '%s' is not %s from %llu%s%s%s to %llu", s->key, value,
			     s->what ? s->what : "a number", s->min,
			     s->zero ? " (" : "", s->zero ? s->zero : "",
			     s->zero ? ")" : "", s->max);
		if (s->kind == KIND_UINT)
			*(unsigned int *)field(cfg, s) = (unsigned int)u;
		else
			*(size_t *)field(cfg, s) = (size_t)u;
		break;
	case KIND_BYTES:
		if (config_parse_size(value, &size) || (s->max && size > s->max) ||
		    size < s->min)
			FAIL("%s: '%s' is not %s", s->key, value, s->what);
		*(uint64_t *)field(cfg, s) = size;
		break;
	case KIND_ENUM:
		for (i = 0; s->names[i]; i++)
			if (!strcmp(value, s->names[i]))
				break;
		if (!s->names[i]) {
			join_names(s->names, names, sizeof(names));
			FAIL("%s: '%s' is not %s", s->key, value, names);
		}
		*(int *)field(cfg, s) = (int)i;
		break;
	case KIND_PATH:
		if (value[0] != '/')
			FAIL("%s: '%s' is not an absolute path", s->key, value);
		set_str(field(cfg, s), value);
		break;
	case KIND_PREFIXES:
		if (add_prefix(field(cfg, s), s->key, value, where, err, errlen))
			return -1;
		break;
	case KIND_FUNC:
		if (s->set(cfg, value, err, errlen))
			return -1;
		break;
	case KIND_OPTION:
		/* config_set() does not find them: not reached */
		FAIL("unknown key '%s'", s->key);
	}
	if (s->given)
		*(int *)((char *)cfg + s->given) = 1;
	return 0;
}

/* The setting of KEY (underscores or dashes); NULL if there is none. */
static const struct setting *find_setting(const char *key_in)
{
	char key[KEY_MAX];
	size_t i;

	for (i = 0; key_in[i] && i < sizeof(key) - 1; i++)
		key[i] = key_in[i] == '-' ? '_' : key_in[i];
	key[i] = 0;
	if (key_in[i])
		return NULL;
	for (i = 0; i < N_SETTINGS; i++)
		if (settings[i].kind != KIND_OPTION && !strcmp(settings[i].key, key))
			return &settings[i];
	return NULL;
}

static int set_key(struct config *cfg, const char *key, const char *value,
		   const char *where, char *err, size_t errlen)
{
	const struct setting *s = find_setting(key);

	if (!s)
		FAIL("unknown key '%s'", key);
	return apply(cfg, s, value, where, err, errlen);
}

int config_set(struct config *cfg, const char *key, const char *value,
	       char *err, size_t errlen)
{
	return set_key(cfg, key, value, "command line", err, errlen);
}

char *config_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/*
 * --check-config: a problem is printed and counted, and reading goes on,
 * so that one run lists them all.  1 if so (go on), 0 to stop at this one.
 */
static int check_problem(struct config *cfg, const char *msg)
{
	if (!cfg->check_only)
		return 0;
	fprintf(stderr, "dazuko-clamscan: %s\n", msg);
	cfg->problems++;
	return 1;
}

int config_load_stream(struct config *cfg, FILE *f, const char *path,
		       char *err, size_t errlen)
{
	char why[CONFIG_ERR_MAX];
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned int lineno = 0;
	int rc = 0;

	while ((len = getline(&line, &cap, f)) >= 0) {
		char where[CONFIG_ERR_MAX], *s, *eq, *key, *value, *hash;

		lineno++;
		if ((size_t)len != strlen(line)) {
			snprintf(err, errlen, "%s:%u: a NUL byte in the line", path, lineno);
			rc = -1;
			if (check_problem(cfg, err)) {
				rc = 0;
				continue;
			}
			break;
		}
		/*
		 * A '#' at the start or after a blank starts a comment, also
		 * after a value: "workers = 2  # two" is 2, not "2  # two".  One
		 * inside a word (/srv/a#b) is part of it.
		 */
		for (hash = strchr(line, '#'); hash; hash = strchr(hash + 1, '#'))
			if (hash == line || isspace((unsigned char)hash[-1])) {
				*hash = 0;
				break;
			}
		s = config_trim(line);
		if (!*s)
			continue;
		eq = strchr(s, '=');
		if (!eq) {
			snprintf(err, errlen, "%s:%u: expected 'key = value', got '%s'",
				 path, lineno, s);
			rc = -1;
			if (check_problem(cfg, err)) {
				rc = 0;
				continue;
			}
			break;
		}
		*eq = 0;
		key = config_trim(s);
		value = config_trim(eq + 1);
		if (!*key || !*value) {
			snprintf(err, errlen, "%s:%u: %s", path, lineno,
				 !*key ? "a key is missing before '='" : "a value is missing after '='");
			rc = -1;
			if (check_problem(cfg, err)) {
				rc = 0;
				continue;
			}
			break;
		}
		snprintf(where, sizeof(where), "%s:%u", path, lineno);
		rc = set_key(cfg, key, value, where, why, sizeof(why));
		if (rc) {
			snprintf(err, errlen, "%s:%u: %s", path, lineno, why);
			if (check_problem(cfg, err))
				continue;
			break;
		}
	}
	if (cfg->check_only)
		rc = 0;
	if (!rc && ferror(f)) {
		snprintf(err, errlen, "%s:%u: read error", path, lineno + 1);
		rc = -1;
	}
	free(line);
	return rc;
}

int config_load_file(struct config *cfg, const char *path, int must_exist,
		     char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	int rc;

	if (!f) {
		if (errno == ENOENT && !must_exist)
			return 0;
		FAIL("%s: %s", path, strerror(errno));
	}
	rc = trust_path("config file", path, err, errlen) ? -1 :
	     config_load_stream(cfg, f, path, err, errlen);
	fclose(f);
	return rc;
}

/* --help's column of the options' text */
#define HELP_COL 29

/* A size as config_parse_size() reads it: 100M, not 104857600. */
static void usage_size(FILE *out, uint64_t v)
{
	static const char units[] = "TGMK";
	unsigned int shift = 40;

	for (const char *u = units; *u; u++, shift -= 10) {
		if (v && !(v & ((1ULL << shift) - 1))) {
			fprintf(out, "%llu%c", (unsigned long long)(v >> shift), *u);
			return;
		}
	}
	fprintf(out, "%llu", (unsigned long long)v);
}

/* {default}: the setting's value in cfg (config_init()'s) */
static void usage_default(FILE *out, const struct setting *s, struct config *def)
{
	void *f = field(def, s);

	switch (s->kind) {
	case KIND_BOOL:
		fputs(*(int *)f ? "yes" : "no", out);
		break;
	case KIND_UINT:
		fprintf(out, "%u", *(unsigned int *)f);
		break;
	case KIND_COUNT:
		fprintf(out, "%zu", *(size_t *)f);
		break;
	case KIND_BYTES:
		usage_size(out, *(uint64_t *)f);
		break;
	case KIND_ENUM:
		fputs(s->names[*(int *)f], out);
		break;
	default:
		/* no value to print: a wrong table fails the help test */
		fputs("{default}", out);
		break;
	}
}

/*
 * One line of a setting's --help.  {min}, {max} and {default} stand for
 * its limits and its default, so that the text is made from the values
 * the parser and config_init() use and cannot drift from them.
 */
static void usage_line(FILE *out, const struct setting *s, struct config *def,
		       const char *line, size_t n)
{
	const char *end = line + n;

	while (line < end) {
		const char *brace = memchr(line, '{', (size_t)(end - line));
		size_t len = brace ? (size_t)(brace - line) : (size_t)(end - line);

		fwrite(line, 1, len, out);
		line += len;
		if (!brace)
			break;
		if (!strncmp(line, "{min}", 5)) {
			fprintf(out, "%llu", s->min);
			line += 5;
		} else if (!strncmp(line, "{max}", 5)) {
			fprintf(out, "%llu", s->max);
			line += 5;
		} else if (!strncmp(line, "{default}", 9)) {
			usage_default(out, s, def);
			line += 9;
		} else {
			fputc(*line++, out);
		}
	}
	fputc('\n', out);
}

/* "  -c, --config FILE          config file ...", and its further lines */
static void usage_setting(FILE *out, const struct setting *s, struct config *def)
{
	const char *line = s->help;
	int col;

	if (s->letter)
		col = fprintf(out, "  -%c, --", s->letter);
	else
		col = fprintf(out, "      --");
	for (const char *k = s->key; *k; k++, col++)
		fputc(*k == '_' ? '-' : *k, out);
	if (s->arg)
		col += fprintf(out, " %s", s->arg);
	/* a long option and argument: its text two blanks on */
	fprintf(out, "%*s", col < HELP_COL ? HELP_COL - col : 2, "");
	for (;;) {
		size_t n = strcspn(line, "\n");

		usage_line(out, s, def, line, n);
		if (!line[n])
			break;
		line += n + 1;
		fprintf(out, "%*s", HELP_COL, "");
	}
}

void config_usage(FILE *out, const char *prog)
{
	struct config def;

	fprintf(out,
"Usage: %s [OPTION]...\n"
"       %s status [--json] [--socket PATH]\n"
"       %s reload [--socket PATH]\n"
"       %s store stats|clear [-c FILE]\n"
"On-access virus scanner for DazukoFS (or fanotify) with libclamav.\n"
"status and reload ask the running scanner (see %s status --help);\n"
"store shows or empties the verdict store (%s store --help).\n"
"\n", prog, prog, prog, prog, prog, prog);
	config_init(&def);
	for (size_t i = 0; i < N_SETTINGS; i++)
		usage_setting(out, &settings[i], &def);
	config_free(&def);
	fprintf(out,
"\n"
"Options override the config file.  Signals: SIGHUP or SIGUSR2 reloads the\n"
"signatures (SIGHUP also reopens log_file), SIGUSR1 logs the statistics,\n"
"SIGTERM/SIGINT stop.\n"
"See dazuko-clamscan(8) and clamscan.conf(5).\n");
}

/*
 * getopt_long's options, made from the settings: every setting is also
 * an option.  getopt_long returns an option's letter if it has one, else
 * 0 with its index, and OPT_BASE + its index for the options that are no
 * setting.  Those values are not arbitrary: getopt_long takes an
 * abbreviation that fits several options with the same argument and value
 * for the first of them (--time is --timeout-ms), and one that fits
 * options of different values as an error (--i: --include or
 * --import-clamd-conf), as it always has.
 */
#define OPT_BASE 256

struct options {
	struct option longs[N_SETTINGS + 1];
	char names[N_SETTINGS][KEY_MAX];
	char shorts[1 + 2 * N_SETTINGS + 1];	/* '+', then "c:" or "f" each */
};

static void options_make(struct options *o)
{
	char *sp = o->shorts;

	memset(o, 0, sizeof(*o));
	/* stop at the first argument that is no option */
	*sp++ = '+';
	for (size_t i = 0; i < N_SETTINGS; i++) {
		const struct setting *s = &settings[i];

		for (size_t j = 0; s->key[j] && j < KEY_MAX - 1; j++)
			o->names[i][j] = s->key[j] == '_' ? '-' : s->key[j];
		o->longs[i].name = o->names[i];
		o->longs[i].has_arg = s->arg ? required_argument : no_argument;
		if (s->letter)
			o->longs[i].val = s->letter;
		else if (s->kind == KIND_OPTION)
			o->longs[i].val = OPT_BASE + (int)i;
		if (s->letter) {
			*sp++ = s->letter;
			if (s->arg)
				*sp++ = ':';
		}
	}
}

/* The setting of getopt_long's c and idx; NULL for '?'. */
static const struct setting *option_setting(int c, int idx)
{
	if (!c)
		return &settings[idx];
	if (c >= OPT_BASE && c < OPT_BASE + (int)N_SETTINGS)
		return &settings[c - OPT_BASE];
	for (size_t i = 0; i < N_SETTINGS; i++)
		if (settings[i].letter && settings[i].letter == c)
			return &settings[i];
	return NULL;
}

/*
 * A scan that runs into max_scan_time must still answer before the kernel
 * settles the event by timeout_action, or the limit's verdict is lost: a
 * longer max_scan_time is refused, and the default is lowered to fit.
 * fanotify has no timeout.
 */
static int check_scan_time(struct config *cfg, char *err, size_t errlen)
{
	unsigned int t = cfg->limits.max_scan_time_ms;

	if (cfg->source != SOURCE_DAZUKOFS || !cfg->timeout_ms ||
	    (t && t <= cfg->timeout_ms))
		return 0;
	if (!cfg->max_scan_time_set) {
		cfg->limits.max_scan_time_ms = cfg->timeout_ms;
		return 0;
	}
	if (t)
		FAIL("max_scan_time %u ms is longer than timeout_ms %u: the kernel would apply timeout_action=%s before a scan stopped at the limit answers; lower max_scan_time or raise timeout_ms",
		     t, cfg->timeout_ms, verdict_name(cfg->timeout_action));
	FAIL("max_scan_time 0 (unlimited) with timeout_ms %u: the kernel would apply timeout_action=%s before a long scan answers; set max_scan_time to at most timeout_ms, or timeout_ms to 0",
	     cfg->timeout_ms, verdict_name(cfg->timeout_action));
}

/*
 * backend clamd: a request that times out must leave time to ask the next
 * server before the kernel settles the event by timeout_action: a longer
 * clamd_timeout_ms is refused, and the default is lowered to a third of
 * timeout_ms (a slow server, then another, within the group's timeout).
 */
static int check_backend(struct config *cfg, char *err, size_t errlen)
{
	if (cfg->backend != BACKEND_CLAMD)
		return 0;
	if (!cfg->local_socket && !cfg->tcp_servers.n)
		FAIL("backend clamd needs a server: local_socket PATH or tcp_server HOST:PORT");
	if (cfg->source != SOURCE_DAZUKOFS || !cfg->timeout_ms)
		return 0;
	if (!cfg->clamd_timeout_set) {
		unsigned int third = cfg->timeout_ms / 3 ? cfg->timeout_ms / 3 : 1;

		if (cfg->clamd_timeout_ms > third)
			cfg->clamd_timeout_ms = third;
		return 0;
	}
	if (cfg->clamd_timeout_ms < cfg->timeout_ms)
		return 0;
	FAIL("clamd_timeout_ms %u is not below timeout_ms %u: the kernel would apply timeout_action=%s before a slow clamd's request times out; lower clamd_timeout_ms",
	     cfg->clamd_timeout_ms, cfg->timeout_ms,
	     verdict_name(cfg->timeout_action));
}

/*
 * A file target needs its file; JSON lines are written where there are
 * lines (the journal has its own fields, syslog its own format).
 */
static int check_log(struct config *cfg, char *err, size_t errlen)
{
	if (cfg->log_target == LOG_TARGET_FILE && !cfg->log_file)
		FAIL("log_target file needs log_file PATH");
	/* a log_file that would be ignored: the admin looks for logs in vain */
	if (cfg->log_file && cfg->log_target != LOG_TARGET_FILE &&
	    cfg->log_target != LOG_TARGET_AUTO)
		FAIL("log_file %s is set but log_target is %s: set log_target file (or auto), or remove log_file",
		     cfg->log_file, log_target_names[cfg->log_target]);
	if (cfg->log_format == LOG_FORMAT_JSON &&
	    (cfg->log_target == LOG_TARGET_JOURNAL || cfg->log_target == LOG_TARGET_SYSLOG))
		FAIL("log_format json applies to log_target file or stderr, not %s (the journal keeps structured fields)",
		     log_target_names[cfg->log_target]);
	return 0;
}

int config_from_args(struct config *cfg, int argc, char **argv, char *err,
		     size_t errlen)
{
	const char *path = CONFIG_DEFAULT_PATH;
	const struct setting *s;
	char why[CONFIG_ERR_MAX];
	struct options opts;
	int explicit = 0, c, idx;

	options_make(&opts);
	/* First pass: the options that are no setting, and catch bad options. */
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, opts.shorts, opts.longs, &idx)) != -1) {
		s = option_setting(c, idx);
		if (!s) {
			if (optopt && optopt < OPT_BASE)
				FAIL("bad option '-%c' or its argument is missing (see --help)", optopt);
			FAIL("bad option '%s' or its argument is missing (see --help)",
			     argv[optind - 1]);
		}
		switch (s->act) {
		case ACT_NONE:
			break;
		case ACT_CONFIG:
			path = optarg;
			explicit = 1;
			break;
		case ACT_CHECK:
			cfg->check_only = 1;
			break;
		case ACT_IMPORT:
			/* the app runs the import: config knows no clamd.conf */
			set_str(&cfg->import_clamd_conf, optarg);
			return 1;
		case ACT_HELP:
			config_usage(stdout, argv[0]);
			return 1;
		case ACT_VERSION:
			printf("dazuko-clamscan %s\n", DAZUKOFS_VERSION);
			return 1;
		}
	}
	if (optind < argc)
		FAIL("unexpected argument '%s' (see --help)", argv[optind]);
	set_str(&cfg->config_path, path);
	if (config_load_file(cfg, path, explicit, err, errlen) &&
	    !check_problem(cfg, err))
		return -1;

	/* Then the settings, over the file's. */
	optind = 1;
	while ((c = getopt_long(argc, argv, opts.shorts, opts.longs, &idx)) != -1) {
		s = option_setting(c, idx);
		if (!s)
			FAIL("bad option (see --help)");
		if (s->kind == KIND_OPTION)
			continue;
		if (apply(cfg, s, s->arg ? optarg : "yes", "command line", why, sizeof(why))) {
			snprintf(err, errlen, "command line: %s", why);
			if (!check_problem(cfg, err))
				return -1;
		}
	}
	if (cfg->source == SOURCE_FANOTIFY && !cfg->fanotify_mount) {
		snprintf(err, errlen, "source fanotify needs fanotify_mount (--fanotify-mount PATH)");
		if (!check_problem(cfg, err))
			return -1;
	}
	if (cfg->source == SOURCE_FANOTIFY && cfg->events != DAZUKOFS_EVENT_OPEN) {
		snprintf(err, errlen, "events: source fanotify scans opens only (events = open)");
		if (!check_problem(cfg, err))
			return -1;
	}
	if (check_backend(cfg, err, errlen) && !check_problem(cfg, err))
		return -1;
	if (check_scan_time(cfg, err, errlen) && !check_problem(cfg, err))
		return -1;
	if (check_log(cfg, err, errlen) && !check_problem(cfg, err))
		return -1;
	if (cfg->problems)
		FAIL("%s: %u problem(s), listed above", cfg->config_path, cfg->problems);
	return 0;
}
