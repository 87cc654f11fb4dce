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
#include <unistd.h>

#include <dazukofs.h>

#include "clamdconf.h"
#include "config.h"
#include "log.h"
#include "quarantine.h"

#define DAZUKOFS_GROUP_NAME_MAX 64
#define TIMEOUT_MS_MAX (24U * 60 * 60 * 1000)
#define GRACE_MS_MAX (10U * 60 * 1000)		/* the kernel's limit */
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
	cfg->quarantine_dir = xstrdup(QUARANTINE_DEFAULT_DIR);
	cfg->log_level = LOG_LVL_INFO;
	cfg->timeout_ms = CONFIG_DEFAULT_TIMEOUT_MS;
	cfg->timeout_action = VERDICT_ALLOW;
	cfg->track = 1;
	/* A restart (RestartSec=2s) plus loading the signatures, and margin. */
	cfg->grace_ms = 30000;
	cfg->events = DAZUKOFS_EVENT_OPEN;
	cfg->source = SOURCE_DAZUKOFS;
	cfg->cache_size = 65536;
	cfg->clamav_cache = 1;
	cfg->status_interval_ms = 5000;
	cfg->backend = BACKEND_LIBCLAMAV;
	cfg->stream_max_length = 100ULL << 20;	/* clamd's default */
	cfg->clamd_timeout_ms = CLAMD_TIMEOUT_DEFAULT_MS;
	cfg->clamd_retry_ms = CLAMD_RETRY_DEFAULT_MS;
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
	list_free(&cfg->tcp_servers);
	list_free(&cfg->include);
	list_free(&cfg->exclude);
	list_free(&cfg->exclude_exes);
	list_free(&cfg->virus_event);
	free(cfg->quarantine_dir);
	free(cfg->exclude_uids.v);
	memset(cfg, 0, sizeof(*cfg));
}

int config_parse_uint(const char *s, unsigned long long max,
		      unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (!*s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
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
	unsigned long long p;

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
	if (!hn || hn >= hostlen || config_parse_uint(colon + 1, 65535, &p) || !p ||
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

static int parse_verdict(const char *s, enum verdict *out)
{
	if (!strcmp(s, "allow"))
		*out = VERDICT_ALLOW;
	else if (!strcmp(s, "deny"))
		*out = VERDICT_DENY;
	else
		return -1;
	return 0;
}

static int valid_group(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > DAZUKOFS_GROUP_NAME_MAX)
		return 0;
	for (; *s; s++)
		if (!isascii((unsigned char)*s) ||
		    !(isalnum((unsigned char)*s) || *s == '_' || *s == '-'))
			return 0;
	return 1;
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
 * The group's events: open, exec, close_write, separated by blanks or
 * commas, at least one.  0, or -1 for anything else.
 */
static int parse_events(const char *value, unsigned int *events)
{
	static const struct {
		const char *word;
		unsigned int bit;
	} names[] = {
		{ "open", DAZUKOFS_EVENT_OPEN },
		{ "exec", DAZUKOFS_EVENT_EXEC },
		{ "close_write", DAZUKOFS_EVENT_CLOSE_WRITE },
	};
	unsigned int got = 0;
	const char *p = value;

	for (;;) {
		size_t len, i;

		p += strspn(p, " \t,");
		if (!*p)
			break;
		len = strcspn(p, " \t,");
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			if (strlen(names[i].word) == len &&
			    !strncmp(p, names[i].word, len))
				break;
		}
		if (i == sizeof(names) / sizeof(names[0]))
			return -1;
		got |= names[i].bit;
		p += len;
	}
	if (!got)
		return -1;
	*events = got;
	return 0;
}

/*
 * Set KEY to VALUE.  where (a file's "FILE:LINE" or "command line") is
 * for the notices and warnings of a value that is taken.
 */
static int set_key(struct config *cfg, const char *key_in, const char *value,
		   const char *where, char *err, size_t errlen)
{
	unsigned long long u;
	char key[64];
	size_t i;

	for (i = 0; key_in[i] && i < sizeof(key) - 1; i++)
		key[i] = key_in[i] == '-' ? '_' : key_in[i];
	key[i] = 0;
	if (key_in[i])
		FAIL("unknown key '%s'", key_in);

	if (!strcmp(key, "group")) {
		if (!valid_group(value))
			FAIL("group: '%s' is not 1 to %d of [A-Za-z0-9_-]", value,
			     DAZUKOFS_GROUP_NAME_MAX);
		set_str(&cfg->group, value);
	} else if (!strcmp(key, "workers")) {
		if (config_parse_uint(value, 1024, &u))
			FAIL("workers: '%s' is not a number from 0 (one per CPU) to 1024", value);
		cfg->workers = (unsigned int)u;
	} else if (!strcmp(key, "database")) {
		if (value[0] != '/')
			FAIL("database: '%s' is not an absolute path", value);
		set_str(&cfg->database, value);
	} else if (!strcmp(key, "max_file_size")) {
		if (config_parse_size(value, &cfg->limits.max_file_size))
			FAIL("max_file_size: '%s' is not a size (e.g. 4096, 64K, 100M, 2G; 0: unlimited)",
			     value);
	} else if (!strcmp(key, "max_scan_size")) {
		if (config_parse_size(value, &cfg->limits.max_scan_size))
			FAIL("max_scan_size: '%s' is not a size (e.g. 4096, 64K, 400M, 2G; 0: unlimited)",
			     value);
	} else if (!strcmp(key, "max_recursion")) {
		if (config_parse_uint(value, UINT32_MAX, &u))
			FAIL("max_recursion: '%s' is not a number from 0 (unlimited) to %u", value,
			     UINT32_MAX);
		cfg->limits.max_recursion = (unsigned int)u;
	} else if (!strcmp(key, "max_files")) {
		if (config_parse_uint(value, UINT32_MAX, &u))
			FAIL("max_files: '%s' is not a number from 0 (unlimited) to %u", value,
			     UINT32_MAX);
		cfg->limits.max_files = (unsigned int)u;
	} else if (!strcmp(key, "max_scan_time")) {
		if (config_parse_uint(value, UINT32_MAX, &u))
			FAIL("max_scan_time: '%s' is not a number of milliseconds from 0 (unlimited) to %u",
			     value, UINT32_MAX);
		cfg->limits.max_scan_time_ms = (unsigned int)u;
		cfg->max_scan_time_set = 1;
	} else if (!strcmp(key, "alert_exceeds_max")) {
		if (config_parse_bool(value, &cfg->alert_exceeds_max))
			FAIL("alert_exceeds_max: '%s' is not yes or no", value);
	} else if (!strcmp(key, "alert_encrypted")) {
		if (config_parse_bool(value, &cfg->alert_encrypted))
			FAIL("alert_encrypted: '%s' is not yes or no", value);
	} else if (!strcmp(key, "on_error")) {
		if (parse_verdict(value, &cfg->on_error))
			FAIL("on_error: '%s' is not allow or deny", value);
	} else if (!strcmp(key, "prevention")) {
		if (config_parse_bool(value, &cfg->prevention))
			FAIL("prevention: '%s' is not yes (deny) or no (report only)", value);
	} else if (!strcmp(key, "include")) {
		if (add_prefix(&cfg->include, key, value, where, err, errlen))
			return -1;
	} else if (!strcmp(key, "exclude")) {
		if (add_prefix(&cfg->exclude, key, value, where, err, errlen))
			return -1;
	} else if (!strcmp(key, "exclude_uid")) {
		if (config_parse_uint(value, (uid_t)-2, &u))
			FAIL("exclude_uid: '%s' is not a uid (a number from 0 to %u)", value,
			     (unsigned int)(uid_t)-2);
		uid_add(&cfg->exclude_uids, (uid_t)u);
	} else if (!strcmp(key, "exclude_user")) {
		char why[256];
		uid_t uid;

		if (lookup_user(value, &uid, why, sizeof(why)))
			FAIL("exclude_user: '%s': %s", value, why);
		uid_add(&cfg->exclude_uids, uid);
	} else if (!strcmp(key, "exclude_root")) {
		if (config_parse_bool(value, &cfg->exclude_root))
			FAIL("exclude_root: '%s' is not yes or no", value);
	} else if (!strcmp(key, "exclude_exe")) {
		if (add_prefix(&cfg->exclude_exes, key, value, where, err, errlen))
			return -1;
	} else if (!strcmp(key, "virus_event")) {
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
		/* execve's argv ends with a NULL after the n words */
		list_add(&cfg->virus_event, "");
		cfg->virus_event.n--;
		free(cfg->virus_event.items[cfg->virus_event.n]);
		cfg->virus_event.items[cfg->virus_event.n] = NULL;
	} else if (!strcmp(key, "virus_event_max")) {
		if (config_parse_uint(value, 64, &u) || !u)
			FAIL("virus_event_max: '%s' is not a number from 1 to 64", value);
		cfg->virus_event_max = (unsigned int)u;
	} else if (!strcmp(key, "quarantine")) {
		int m = quarantine_mode_parse(value);

		if (m < 0)
			FAIL("quarantine: '%s' is not no, copy or move", value);
		cfg->quarantine = m;
	} else if (!strcmp(key, "quarantine_dir")) {
		if (value[0] != '/')
			FAIL("quarantine_dir: '%s' is not an absolute path", value);
		set_str(&cfg->quarantine_dir, value);
	} else if (!strcmp(key, "log_level")) {
		int l = log_level_parse(value);

		if (l < 0)
			FAIL("log_level: '%s' is not error, warning, notice, info or debug", value);
		cfg->log_level = l;
	} else if (!strcmp(key, "timeout_ms")) {
		if (config_parse_uint(value, TIMEOUT_MS_MAX, &u))
			FAIL("timeout_ms: '%s' is not a number from 0 (wait for ever) to %u",
			     value, TIMEOUT_MS_MAX);
		cfg->timeout_ms = (unsigned int)u;
	} else if (!strcmp(key, "timeout_action")) {
		if (parse_verdict(value, &cfg->timeout_action))
			FAIL("timeout_action: '%s' is not allow or deny", value);
	} else if (!strcmp(key, "backend")) {
		if (!strcmp(value, "libclamav"))
			cfg->backend = BACKEND_LIBCLAMAV;
		else if (!strcmp(value, "clamd"))
			cfg->backend = BACKEND_CLAMD;
		else
			FAIL("backend: '%s' is not libclamav or clamd", value);
	} else if (!strcmp(key, "local_socket")) {
		struct sockaddr_un sun;

		if (value[0] != '/' || strlen(value) >= sizeof(sun.sun_path))
			FAIL("local_socket: '%s' is not an absolute path of at most %zu bytes",
			     value, sizeof(sun.sun_path) - 1);
		set_str(&cfg->local_socket, value);
	} else if (!strcmp(key, "tcp_server")) {
		char host[256], port[8];

		if (config_parse_hostport(value, host, sizeof(host), port, sizeof(port)))
			FAIL("tcp_server: '%s' is not HOST:PORT (an IPv6 address in brackets: [::1]:3310)",
			     value);
		list_add(&cfg->tcp_servers, value);
	} else if (!strcmp(key, "stream_max_length")) {
		if (config_parse_size(value, &cfg->stream_max_length) ||
		    cfg->stream_max_length > UINT32_MAX)
			FAIL("stream_max_length: '%s' is not a size up to 4G (e.g. 25M, 100M; 0: unlimited)",
			     value);
	} else if (!strcmp(key, "clamd_timeout_ms")) {
		if (config_parse_uint(value, TIMEOUT_MS_MAX, &u) || !u)
			FAIL("clamd_timeout_ms: '%s' is not a number of milliseconds from 1 to %u",
			     value, TIMEOUT_MS_MAX);
		cfg->clamd_timeout_ms = (unsigned int)u;
		cfg->clamd_timeout_set = 1;
	} else if (!strcmp(key, "clamd_retry_ms")) {
		if (config_parse_uint(value, TIMEOUT_MS_MAX, &u) || !u)
			FAIL("clamd_retry_ms: '%s' is not a number of milliseconds from 1 to %u",
			     value, TIMEOUT_MS_MAX);
		cfg->clamd_retry_ms = (unsigned int)u;
	} else if (!strcmp(key, "track")) {
		if (config_parse_bool(value, &cfg->track))
			FAIL("track: '%s' is not yes or no", value);
	} else if (!strcmp(key, "grace_ms")) {
		if (config_parse_uint(value, GRACE_MS_MAX, &u))
			FAIL("grace_ms: '%s' is not a number from 0 to %u",
			     value, GRACE_MS_MAX);
		cfg->grace_ms = (unsigned int)u;
	} else if (!strcmp(key, "events")) {
		if (parse_events(value, &cfg->events))
			FAIL("events: '%s' is not a list of open, exec and close_write",
			     value);
	} else if (!strcmp(key, "source")) {
		if (!strcmp(value, "dazukofs"))
			cfg->source = SOURCE_DAZUKOFS;
		else if (!strcmp(value, "fanotify"))
			cfg->source = SOURCE_FANOTIFY;
		else
			FAIL("source: '%s' is not dazukofs or fanotify", value);
	} else if (!strcmp(key, "fanotify_mount")) {
		if (value[0] != '/')
			FAIL("fanotify_mount: '%s' is not an absolute path", value);
		set_str(&cfg->fanotify_mount, value);
	} else if (!strcmp(key, "foreground")) {
		if (config_parse_bool(value, &cfg->foreground))
			FAIL("foreground: '%s' is not yes or no", value);
	} else if (!strcmp(key, "cache_size")) {
		if (config_parse_uint(value, 1U << 24, &u))
			FAIL("cache_size: '%s' is not a number from 0 (no cache) to %u", value,
			     1U << 24);
		cfg->cache_size = (size_t)u;
	} else if (!strcmp(key, "clamav_cache")) {
		if (config_parse_bool(value, &cfg->clamav_cache))
			FAIL("clamav_cache: '%s' is not yes or no", value);
	} else if (!strcmp(key, "status_interval_ms")) {
		if (config_parse_uint(value, 3600000, &u) || u < 100)
			FAIL("status_interval_ms: '%s' is not a number from 100 to 3600000", value);
		cfg->status_interval_ms = (unsigned int)u;
	} else {
		FAIL("unknown key '%s'", key_in);
	}
	return 0;
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

int config_load_file(struct config *cfg, const char *path, int must_exist,
		     char *err, size_t errlen)
{
	char why[CONFIG_ERR_MAX];
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned int lineno = 0;
	int rc = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT && !must_exist)
			return 0;
		FAIL("%s: %s", path, strerror(errno));
	}
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
	fclose(f);
	return rc;
}

void config_usage(FILE *out, const char *prog)
{
	fprintf(out,
"Usage: %s [OPTION]...\n"
"On-access virus scanner for DazukoFS (or fanotify) with libclamav.\n"
"\n"
"  -c, --config FILE          config file (default " CONFIG_DEFAULT_PATH ")\n"
"  -g, --group NAME           DazukoFS group to create and serve (default " CONFIG_DEFAULT_GROUP ")\n"
"  -w, --workers N            scanning threads (default 0: one per CPU)\n"
"  -d, --database DIR         ClamAV signature directory (default " CONFIG_DEFAULT_DATABASE ")\n"
"      --max-file-size SIZE   larger files are not scanned (default 100M, 0: no limit)\n"
"      --max-scan-size SIZE   data scanned per file, archives included (default 400M)\n"
"      --max-recursion N      archive nesting scanned (default 17, 0: no limit)\n"
"      --max-files N          files scanned per archive (default 10000, 0: no limit)\n"
"      --max-scan-time MS     time per file (default 120000, at most timeout-ms)\n"
"      --alert-exceeds-max yes|no  deny files past a limit (default yes)\n"
"      --alert-encrypted yes|no    deny encrypted archives, documents (default yes)\n"
"      --on-error allow|deny  verdict when a scan fails (default allow)\n"
"      --prevention yes|no    no: report only, log and count detections but\n"
"                             allow the open (default yes)\n"
"      --include PREFIX       scan only under these path prefixes (repeatable)\n"
"      --exclude PREFIX       never scan under these path prefixes (repeatable)\n"
"      --exclude-uid UID      opens by processes of this uid are not scanned\n"
"                             (repeatable)\n"
"      --exclude-user NAME    the same, by user name (repeatable)\n"
"      --exclude-root yes|no  opens by root's processes are not scanned\n"
"                             (default no)\n"
"      --exclude-exe PATH     opens by processes running this executable\n"
"                             are not scanned (repeatable)\n"
"      --virus-event 'PROG [ARG]...'  run on each detection (no shell), with\n"
"                             CLAM_VIRUSEVENT_FILENAME, _VIRUSNAME set\n"
"      --virus-event-max N    virus_event commands at once (default 4)\n"
"      --quarantine no|copy|move  put detected files into quarantine_dir;\n"
"                             move also removes them (default no)\n"
"      --quarantine-dir DIR   root-only quarantine directory\n"
"                             (default " QUARANTINE_DEFAULT_DIR ")\n"
"      --log-level LEVEL      error, warning, notice, info (default), debug\n"
"      --timeout-ms MS        group verdict timeout, 0 waits for ever (default 30000)\n"
"      --timeout-action allow|deny  verdict of a timed-out event (default allow)\n"
"      --track yes|no         crash-tracked group (default yes)\n"
"      --grace-ms MS          tracked group: how long its events wait for a\n"
"                             restarted scanner, 0 to 600000 (default 30000)\n"
"      --events 'open exec close_write'  what is scanned (source dazukofs):\n"
"                             opens, execs, files as their writer closes\n"
"                             them (default open)\n"
"      --cache-size N         verdict cache entries, 0 disables (default 65536)\n"
"      --clamav-cache yes|no  libclamav's cache of clean file hashes (default yes)\n"
"      --status-interval-ms MS  how often the status line is updated (default 5000)\n"
"      --source dazukofs|fanotify  where events come from (default dazukofs)\n"
"      --fanotify-mount PATH  the mount to watch with source fanotify\n"
"      --backend libclamav|clamd  who scans: libclamav in this process\n"
"                             (default) or clamd servers\n"
"      --local-socket PATH    backend clamd: a local clamd's socket (fd passing)\n"
"      --tcp-server HOST:PORT backend clamd: a clamd over TCP (repeatable,\n"
"                             in order of preference)\n"
"      --stream-max-length SIZE  the TCP servers' StreamMaxLength (default 100M)\n"
"      --clamd-timeout-ms MS  one request to one clamd (default 10000, below\n"
"                             timeout-ms)\n"
"      --clamd-retry-ms MS    a failed clamd is retried after (default 10000)\n"
"  -f, --foreground           do not detach (always so under systemd)\n"
"      --check-config         read the config file and the options, load\n"
"                             nothing, print every problem; exit 0 if none\n"
"      --import-clamd-conf FILE  print a clamd.conf's on-access, engine and\n"
"                             logging options as settings of this scanner;\n"
"                             what cannot be mapped, line by line, on stderr\n"
"  -h, --help                 this text\n"
"  -V, --version              print the version and exit\n"
"\n"
"Options override the config file.  Signals: SIGHUP or SIGUSR2 reloads the\n"
"signatures, SIGUSR1 logs the statistics, SIGTERM/SIGINT stop.\n"
"See dazuko-clamscan(8) and clamscan.conf(5).\n", prog);
}

static const struct option long_opts[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "group", required_argument, NULL, 'g' },
	{ "workers", required_argument, NULL, 'w' },
	{ "database", required_argument, NULL, 'd' },
	{ "max-file-size", required_argument, NULL, 0 },
	{ "max-scan-size", required_argument, NULL, 0 },
	{ "max-recursion", required_argument, NULL, 0 },
	{ "max-files", required_argument, NULL, 0 },
	{ "max-scan-time", required_argument, NULL, 0 },
	{ "alert-exceeds-max", required_argument, NULL, 0 },
	{ "alert-encrypted", required_argument, NULL, 0 },
	{ "on-error", required_argument, NULL, 0 },
	{ "prevention", required_argument, NULL, 0 },
	{ "include", required_argument, NULL, 0 },
	{ "exclude", required_argument, NULL, 0 },
	{ "exclude-uid", required_argument, NULL, 0 },
	{ "exclude-user", required_argument, NULL, 0 },
	{ "exclude-root", required_argument, NULL, 0 },
	{ "exclude-exe", required_argument, NULL, 0 },
	{ "virus-event", required_argument, NULL, 0 },
	{ "virus-event-max", required_argument, NULL, 0 },
	{ "quarantine", required_argument, NULL, 0 },
	{ "quarantine-dir", required_argument, NULL, 0 },
	{ "log-level", required_argument, NULL, 0 },
	{ "timeout-ms", required_argument, NULL, 0 },
	{ "timeout-action", required_argument, NULL, 0 },
	{ "track", required_argument, NULL, 0 },
	{ "grace-ms", required_argument, NULL, 0 },
	{ "events", required_argument, NULL, 0 },
	{ "cache-size", required_argument, NULL, 0 },
	{ "clamav-cache", required_argument, NULL, 0 },
	{ "status-interval-ms", required_argument, NULL, 0 },
	{ "source", required_argument, NULL, 0 },
	{ "fanotify-mount", required_argument, NULL, 0 },
	{ "backend", required_argument, NULL, 0 },
	{ "local-socket", required_argument, NULL, 0 },
	{ "tcp-server", required_argument, NULL, 0 },
	{ "stream-max-length", required_argument, NULL, 0 },
	{ "clamd-timeout-ms", required_argument, NULL, 0 },
	{ "clamd-retry-ms", required_argument, NULL, 0 },
	{ "foreground", no_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "check-config", no_argument, NULL, 'C' },
	{ "import-clamd-conf", required_argument, NULL, 'I' },
	{ NULL, 0, NULL, 0 },
};

static const char short_opts[] = "+c:g:w:d:fhV";

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
		     t, cfg->timeout_ms, cfg->timeout_action == VERDICT_DENY ? "deny" : "allow");
	FAIL("max_scan_time 0 (unlimited) with timeout_ms %u: the kernel would apply timeout_action=%s before a long scan answers; set max_scan_time to at most timeout_ms, or timeout_ms to 0",
	     cfg->timeout_ms, cfg->timeout_action == VERDICT_DENY ? "deny" : "allow");
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
	     cfg->timeout_action == VERDICT_DENY ? "deny" : "allow");
}

int config_from_args(struct config *cfg, int argc, char **argv, char *err,
		     size_t errlen)
{
	const char *path = CONFIG_DEFAULT_PATH;
	char why[CONFIG_ERR_MAX];
	int explicit = 0, c, idx;

	/* First pass: --config and --help only, and catch bad options. */
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, short_opts, long_opts, &idx)) != -1) {
		if (c == 'c') {
			path = optarg;
			explicit = 1;
		} else if (c == 'h') {
			config_usage(stdout, argv[0]);
			return 1;
		} else if (c == 'V') {
			printf("dazuko-clamscan %s\n", DAZUKOFS_VERSION);
			return 1;
		} else if (c == 'C') {
			cfg->check_only = 1;
		} else if (c == 'I') {
			if (clamdconf_import(optarg, stdout, stderr))
				FAIL("--import-clamd-conf %s: nothing imported", optarg);
			return 1;
		} else if (c == '?') {
			if (optopt)
				FAIL("bad option '-%c' or its argument is missing (see --help)", optopt);
			FAIL("bad option '%s' or its argument is missing (see --help)",
			     argv[optind - 1]);
		}
	}
	if (optind < argc)
		FAIL("unexpected argument '%s' (see --help)", argv[optind]);
	set_str(&cfg->config_path, path);
	if (config_load_file(cfg, path, explicit, err, errlen) &&
	    !check_problem(cfg, err))
		return -1;

	optind = 1;
	while ((c = getopt_long(argc, argv, short_opts, long_opts, &idx)) != -1) {
		const char *key;

		switch (c) {
		case 'c': case 'h': case 'V': case 'C': case 'I': continue;
		case 'f': cfg->foreground = 1; continue;
		case 'g': key = "group"; break;
		case 'w': key = "workers"; break;
		case 'd': key = "database"; break;
		case 0: key = long_opts[idx].name; break;
		default: FAIL("bad option (see --help)");
		}
		if (config_set(cfg, key, optarg, why, sizeof(why))) {
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
	if (cfg->problems)
		FAIL("%s: %u problem(s), listed above", cfg->config_path, cfg->problems);
	return 0;
}
