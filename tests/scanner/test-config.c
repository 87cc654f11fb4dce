// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the scanner's config parsing: bad input above all. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <dazukofs.h>

#include "capture.h"

#include "config/config.h"
#include "log/log.h"

/*
 * The tests' configs live in a private directory: the scanner refuses a
 * config in a directory that others may write (/tmp).
 */
static const char *private_dir(void)
{
	static char dir[] = "/tmp/scanner-config-XXXXXX";
	static int made;

	if (!made) {
		assert_non_null(mkdtemp(dir));
		made = 1;
	}
	return dir;
}

static char *write_tmp(const char *text, size_t len)
{
	char *path;
	int fd;

	assert_true(asprintf(&path, "%s/config-XXXXXX", private_dir()) > 0);
	fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

/* Load text as a config file; returns the rc, message in err. */
static int load(struct config *cfg, const char *text, char *err, size_t errlen)
{
	char *path = write_tmp(text, strlen(text));
	int rc;

	rc = config_load_file(cfg, path, 1, err, errlen);
	if (rc) {
		/* The message names the file. */
		assert_non_null(strstr(err, path));
	}
	unlink(path);
	free(path);
	return rc;
}

static void test_defaults(void **state)
{
	struct config cfg;

	(void)state;
	config_init(&cfg);
	assert_string_equal(cfg.group, "clamscan");
	assert_string_equal(cfg.database, "/var/lib/clamav");
	assert_int_equal(cfg.workers, 0);
	assert_int_equal(cfg.on_error, VERDICT_ALLOW);
	assert_int_equal(cfg.source, SOURCE_DAZUKOFS);
	assert_int_equal(cfg.track, 1);
	assert_int_equal(cfg.grace_ms, 30000);
	assert_int_equal(cfg.events, DAZUKOFS_EVENT_OPEN);
	assert_int_equal(cfg.clamav_cache, 1);
	config_free(&cfg);
}

static void test_good_file(void **state)
{
	char err[CONFIG_ERR_MAX] = "";
	struct config cfg;

	(void)state;
	config_init(&cfg);
	assert_int_equal(load(&cfg,
		"# a comment\n"
		"\n"
		"   group = av1  \n"
		"workers=3\n"
		"database = /srv/db\n"
		"max-file-size = 64K\n"
		"on_error = deny\n"
		"include = /srv/\n"
		"include = /home\n"
		"exclude = /srv/cache\n"
		"log_level = debug\n"
		"timeout_ms = 0\n"
		"timeout_action = deny\n"
		"track = no\n"
		"grace_ms = 5000\n"
		"cache_size = 10\n"
		"clamav_cache = no\n"
		"source = fanotify\n"
		"fanotify_mount = /mnt/x\n"
		"foreground = yes\n"
		"\t# indented comment\n", err, sizeof(err)), 0);
	assert_string_equal(cfg.group, "av1");
	assert_int_equal(cfg.workers, 3);
	assert_string_equal(cfg.database, "/srv/db");
	assert_int_equal(cfg.limits.max_file_size, 65536);
	assert_int_equal(cfg.on_error, VERDICT_DENY);
	assert_int_equal(cfg.include.n, 2);
	assert_string_equal(cfg.include.items[0], "/srv");
	assert_string_equal(cfg.include.items[1], "/home");
	assert_int_equal(cfg.exclude.n, 1);
	assert_int_equal(cfg.log_level, LOG_LVL_DEBUG);
	assert_int_equal(cfg.timeout_ms, 0);
	assert_int_equal(cfg.timeout_action, VERDICT_DENY);
	assert_int_equal(cfg.track, 0);
	assert_int_equal(cfg.grace_ms, 5000);
	assert_int_equal(cfg.cache_size, 10);
	assert_int_equal(cfg.clamav_cache, 0);
	assert_int_equal(cfg.source, SOURCE_FANOTIFY);
	assert_string_equal(cfg.fanotify_mount, "/mnt/x");
	assert_int_equal(cfg.foreground, 1);
	config_free(&cfg);
}

/* Each bad file: rc -1, and the message has ":LINE:" and a hint. */
/* The exclusions by process: uids, names resolved, root, executables. */
static void test_exclusions(void **state)
{
	struct config cfg;
	char err[CONFIG_ERR_MAX];

	(void)state;
	config_init(&cfg);
	assert_int_equal(cfg.exclude_root, 0);
	assert_int_equal(cfg.exclude_uids.n, 0);
	assert_int_equal(cfg.prevention, 1);
	assert_int_equal(load(&cfg, "exclude_uid = 1000\nexclude_user = nobody\n"
			      "exclude_root = yes\nexclude_exe = /usr/bin/env\n"
			      "exclude-uid = 0\nprevention = no\n", err, sizeof(err)), 0);
	assert_int_equal(cfg.exclude_uids.n, 3);
	assert_int_equal(cfg.exclude_uids.v[0], 1000);
	assert_int_equal(cfg.exclude_uids.v[1], 65534);
	assert_int_equal(cfg.exclude_uids.v[2], 0);
	assert_int_equal(cfg.exclude_root, 1);
	assert_int_equal(cfg.exclude_exes.n, 1);
	assert_string_equal(cfg.exclude_exes.items[0], "/usr/bin/env");
	assert_int_equal(cfg.prevention, 0);
	config_free(&cfg);

	/* workloads: units and cgroup paths, repeatable; a trailing '/' goes */
	config_init(&cfg);
	assert_int_equal(load(&cfg, "exclude_unit = backup.service\n"
			      "exclude_unit = getty@tty1.service\nexclude_unit = run-u7.scope\n"
			      "exclude_cgroup = /ci.slice/\nexclude_cgroup = /\n", err, sizeof(err)), 0);
	assert_int_equal(cfg.exclude_units.n, 3);
	assert_string_equal(cfg.exclude_units.items[1], "getty@tty1.service");
	assert_int_equal(cfg.exclude_cgroups.n, 2);
	assert_string_equal(cfg.exclude_cgroups.items[0], "/ci.slice");
	assert_string_equal(cfg.exclude_cgroups.items[1], "/");
	config_free(&cfg);

	/* virus_event: words, NULL-terminated for execve; a later one replaces */
	config_init(&cfg);
	assert_int_equal(cfg.virus_event_max, 4);
	assert_int_equal(load(&cfg, "virus_event = /bin/true a\n"
			      "virus_event = /bin/echo  one\ttwo $(x)\n", err, sizeof(err)), 0);
	assert_int_equal(cfg.virus_event.n, 4);
	assert_string_equal(cfg.virus_event.items[0], "/bin/echo");
	assert_string_equal(cfg.virus_event.items[2], "two");
	assert_string_equal(cfg.virus_event.items[3], "$(x)");
	assert_null(cfg.virus_event.items[4]);
	config_free(&cfg);
}

static void test_bad_lines(void **state)
{
	static const struct {
		const char *text, *line, *hint;
	} bad[] = {
		{ "group = a\nnonsense\n", ":2:", "key = value" },
		{ "frobnicate = 1\n", ":1:", "unknown key 'frobnicate'" },
		{ "# c\n = 3\n", ":2:", "key is missing" },
		{ "workers =\n", ":1:", "value is missing" },
		{ "workers = -1\n", ":1:", "workers" },
		{ "workers = 3x\n", ":1:", "workers" },
		{ "workers = 99999999999999999999999\n", ":1:", "workers" },
		{ "workers = 1025\n", ":1:", "workers" },
		{ "max_file_size = 10Q\n", ":1:", "max_file_size" },
		{ "max_file_size = M\n", ":1:", "max_file_size" },
		{ "max_file_size = 99999999999999999T\n", ":1:", "max_file_size" },
		{ "on_error = maybe\n", ":1:", "allow or deny" },
		{ "timeout_action = Allow\n", ":1:", "allow or deny" },
		{ "timeout_ms = 86400001\n", ":1:", "timeout_ms" },
		{ "grace_ms = 600001\n", ":1:", "grace_ms: '600001' is not a number from 0 to 600000" },
		{ "grace_ms = -1\n", ":1:", "grace_ms" },
		{ "grace_ms = +5\n", ":1:", "grace_ms: '+5' is not a number" },
		{ "workers = 0x4\n", ":1:", "workers: '0x4' is not" },
		{ "events =  ,\n", ":1:", "events: ',' is not a list of open, exec and close_write" },
		{ "events = open write\n", ":1:", "events: 'open write'" },
		{ "events = open_exec\n", ":1:", "events" },
		{ "include = relative/path\n", ":1:", "absolute" },
		{ "prevention = maybe\n", ":1:", "prevention: 'maybe' is not yes (deny) or no" },
		{ "exclude_uid = bob\n", ":1:", "exclude_uid: 'bob' is not a uid" },
		{ "exclude_uid = 4294967295\n", ":1:", "exclude_uid" },
		{ "exclude_user = no-such-user-4f2a\n", ":1:", "exclude_user: 'no-such-user-4f2a': no such user" },
		{ "exclude_root = sometimes\n", ":1:", "exclude_root" },
		{ "exclude_exe = bin/cat\n", ":1:", "absolute" },
		{ "exclude_unit = backup\n", ":1:", "exclude_unit: 'backup' is not the name of a service or scope unit" },
		{ "exclude_unit = a b.service\n", ":1:", "not the name of a service or scope unit" },
		{ "exclude_unit = x.socket\n", ":1:", "not the name of a service or scope unit" },
		{ "exclude_cgroup = system.slice\n", ":1:", "exclude_cgroup: 'system.slice' is not a cgroup path" },
		{ "exclude_cgroup = /a/../b\n", ":1:", "is not a cgroup path" },
		{ "exclude_cgroup = /a//b\n", ":1:", "is not a cgroup path" },
		{ "store = maybe\n", ":1:", "store" },
		{ "store_path = verdicts\n", ":1:", "store_path: 'verdicts' is not an absolute path" },
		{ "store_size = 1000K\n", ":1:", "store_size: '1000K' is not a size from 1M to 64G" },
		{ "store_size = 65G\n", ":1:", "store_size: '65G' is not a size from 1M to 64G" },
		{ "store_size = 0\n", ":1:", "store_size" },
		{ "virus_event = notify-admin\n", ":1:", "virus_event: 'notify-admin' is not an absolute path" },
		{ "virus_event = /nonexistent/x --a\n", ":1:", "No such file" },
		{ "virus_event_max = 0\n", ":1:", "virus_event_max: '0' is not a number from 1 to 64" },
		{ "virus_event_max = 65\n", ":1:", "virus_event_max" },
		{ "exclude = /a//b\n", ":1:", "canonical absolute" },
		{ "include = /srv/./x\n", ":1:", "canonical" },
		{ "include = /srv/../etc\n", ":1:", "canonical" },
		{ "exclude = /srv/..\n", ":1:", "canonical" },
		{ "exclude = /srv/../\n", ":1:", "canonical" },
		{ "include = /.\n", ":1:", "canonical" },
		{ "include = //srv\n", ":1:", "canonical" },
		{ "# c\nworkers = # nothing but a comment\n", ":2:", "value is missing" },
		{ "workers = 2 # two\n\nworkers = 3x # x\n", ":3:", "workers: '3x'" },
		{ "group = has space\n", ":1:", "group" },
		{ "group = caf\xc3\xa9\n", ":1:", "group" },
		{ "group = aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n", ":1:", "group" },
		{ "log_level = loud\n", ":1:", "log_level" },
		{ "source = inotify\n", ":1:", "dazukofs or fanotify" },
		{ "backend = clamav\n", ":1:", "libclamav or clamd" },
		{ "local_socket = run/clamd.ctl\n", ":1:", "local_socket" },
		{ "tcp_server = scanner1\n", ":1:", "HOST:PORT" },
		{ "tcp_server = ::1:3310\n", ":1:", "brackets" },
		{ "tcp_server = [::1]3310\n", ":1:", "tcp_server" },
		{ "tcp_server = host:0\n", ":1:", "tcp_server" },
		{ "tcp_server = host:65536\n", ":1:", "tcp_server" },
		{ "tcp_server = :3310\n", ":1:", "tcp_server" },
		{ "stream_max_length = 5G\n", ":1:", "stream_max_length" },
		{ "clamd_timeout_ms = 0\n", ":1:", "clamd_timeout_ms" },
		{ "clamd_retry_ms = soon\n", ":1:", "clamd_retry_ms" },
		{ "track = perhaps\n", ":1:", "yes or no" },
		{ "clamav_cache = off-ish\n", ":1:", "clamav_cache" },
		{ "database = var/lib\n", ":1:", "absolute" },
		{ "cache_size = 99999999999\n", ":1:", "cache_size" },
		{ "a\n\n\n\nworkers = 2 = 3\n", ":1:", "key = value" },
		{ "workers = 2\n\n\n\nworkers == 3\n", ":5:", "workers" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char err[CONFIG_ERR_MAX] = "";
		struct config cfg;

		config_init(&cfg);
		if (load(&cfg, bad[i].text, err, sizeof(err)) != -1)
			fail_msg("accepted: %s", bad[i].text);
		if (!strstr(err, bad[i].line) || !strstr(err, bad[i].hint))
			fail_msg("for %s: message '%s' lacks '%s' or '%s'", bad[i].text, err,
				 bad[i].line, bad[i].hint);
		config_free(&cfg);
	}
}

/* A '#' after a blank ends the line; one inside a word does not. */
static void test_trailing_comment(void **state)
{
	char err[CONFIG_ERR_MAX] = "";
	struct config cfg;

	(void)state;
	config_init(&cfg);
	assert_int_equal(load(&cfg,
		"workers = 2 # two workers\n"
		"on_error = deny\t#\n"
		"database = /srv/db#1 # the '#' before 1 is part of the path\n"
		"group = av#x\n"	/* refused below if the '#' were kept */
		"exclude = /srv/cache #/srv/not-this\n", err, sizeof(err)), -1);
	assert_non_null(strstr(err, ":4: group: 'av#x'"));
	assert_int_equal(cfg.workers, 2);
	assert_int_equal(cfg.on_error, VERDICT_DENY);
	assert_string_equal(cfg.database, "/srv/db#1");
	config_free(&cfg);

	config_init(&cfg);
	assert_int_equal(load(&cfg, "exclude = /srv/cache #/srv/not-this\n",
			      err, sizeof(err)), 0);
	assert_int_equal(cfg.exclude.n, 1);
	assert_string_equal(cfg.exclude.items[0], "/srv/cache");
	config_free(&cfg);
}

/* What the log writes to stderr while a config text is loaded. */
static char *load_logged(struct config *cfg, const char *text, int *rc,
			 char **path_out)
{
	static char out[4096];
	char err[CONFIG_ERR_MAX] = "";
	char *path = write_tmp(text, strlen(text));
	struct stderr_capture c;

	log_init(LOG_LVL_INFO, 0);
	capture_begin(&c);
	*rc = config_load_file(cfg, path, 1, err, sizeof(err));
	capture_end(&c, out, sizeof(out));
	unlink(path);
	*path_out = path;
	return out;
}

static void assert_has(const char *text, const char *want)
{
	if (!strstr(text, want))
		fail_msg("'%s' lacks '%s'", text, want);
}

/* A prefix through a symlink is resolved, with a notice naming the line. */
static void test_prefix_symlink(void **state)
{
	char dir[] = "/tmp/scanner-prefix-XXXXXX", real[PATH_MAX], link[PATH_MAX + 8];
	char text[3 * PATH_MAX], want[PATH_MAX + 64], *path, *logged;
	struct config cfg;
	int rc;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_non_null(realpath(dir, real));
	snprintf(link, sizeof(link), "%s/link", dir);
	assert_int_equal(symlink(real, link), 0);
	snprintf(text, sizeof(text), "# resolved\ninclude = %s/\nexclude = %s/x\n",
		 link, link);
	config_init(&cfg);
	logged = load_logged(&cfg, text, &rc, &path);
	assert_int_equal(rc, 0);
	assert_int_equal(cfg.include.n, 1);
	assert_string_equal(cfg.include.items[0], real);
	/* exclude /x below the link does not exist: kept, but not warned of */
	snprintf(want, sizeof(want), "%s/link/x", dir);
	assert_string_equal(cfg.exclude.items[0], want);
	snprintf(want, sizeof(want), "notice: %s:2: include: '%s' leads through a symlink",
		 path, link);
	assert_has(logged, want);
	assert_null(strstr(logged, "warning"));
	free(path);
	config_free(&cfg);
	unlink(link);
	rmdir(dir);
}

/* An include prefix that does not exist here is a warning naming the line. */
static void test_prefix_missing(void **state)
{
	char want[PATH_MAX + 128], *path, *logged;
	struct config cfg;
	int rc;

	(void)state;
	config_init(&cfg);
	logged = load_logged(&cfg, "include = /tmp\n\ninclude = /nonexistent-dazukofs-9f1\n",
			     &rc, &path);
	assert_int_equal(rc, 0);
	assert_int_equal(cfg.include.n, 2);
	snprintf(want, sizeof(want),
		 "warning: %s:3: include: '/nonexistent-dazukofs-9f1' does not exist here",
		 path);
	assert_has(logged, want);
	assert_null(strstr(logged, ":1:"));
	free(path);
	config_free(&cfg);
}

static void test_nul_byte(void **state)
{
	static const char text[] = "workers = 2\nwork\0ers = 3\n";
	char err[CONFIG_ERR_MAX] = "";
	struct config cfg;
	char *path = write_tmp(text, sizeof(text) - 1);

	(void)state;
	config_init(&cfg);
	assert_int_equal(config_load_file(&cfg, path, 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ":2:"));
	unlink(path);
	free(path);
	config_free(&cfg);
}

static void test_missing_file(void **state)
{
	char err[CONFIG_ERR_MAX] = "";
	struct config cfg;

	(void)state;
	config_init(&cfg);
	assert_int_equal(config_load_file(&cfg, "/nonexistent/x.conf", 0, err, sizeof(err)), 0);
	assert_int_equal(config_load_file(&cfg, "/nonexistent/x.conf", 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/x.conf"));
	assert_non_null(strstr(err, "No such file"));
	config_free(&cfg);
}

static void test_sizes(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(config_parse_size("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(config_parse_size("100M", &v), 0);
	assert_int_equal(v, 100ULL << 20);
	assert_int_equal(config_parse_size("2g", &v), 0);
	assert_int_equal(v, 2ULL << 30);
	assert_int_equal(config_parse_size("4KiB", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(config_parse_size("4Ki", &v), -1);
	assert_int_equal(config_parse_size("4KB", &v), 0);
	assert_int_equal(config_parse_size("", &v), -1);
	assert_int_equal(config_parse_size(" 1", &v), -1);
	assert_int_equal(config_parse_size("+1", &v), -1);
	assert_int_equal(config_parse_size("1MM", &v), -1);
	assert_int_equal(config_parse_size("18446744073709551616", &v), -1);
	assert_int_equal(config_parse_size("16777216T", &v), -1);
}

static int args(struct config *cfg, char *err, size_t errlen, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;

	argv[argc++] = "dazuko-clamscan";
	va_start(ap, errlen);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	return config_from_args(cfg, argc, argv, err, errlen);
}

static void test_events(void **state)
{
	char err[CONFIG_ERR_MAX] = "";
	struct config cfg;
	char *path;

	(void)state;
	config_init(&cfg);
	assert_int_equal(load(&cfg, "events = close_write, exec\n", err,
			      sizeof(err)), 0);
	assert_int_equal(cfg.events,
			 DAZUKOFS_EVENT_CLOSE_WRITE | DAZUKOFS_EVENT_EXEC);
	assert_int_equal(load(&cfg, "events = open close_write open\n", err,
			      sizeof(err)), 0);
	assert_int_equal(cfg.events,
			 DAZUKOFS_EVENT_OPEN | DAZUKOFS_EVENT_CLOSE_WRITE);
	config_free(&cfg);
	/* Only dazukofs groups have exec and close_write events. */
	config_init(&cfg);
	path = write_tmp("", 0);
	assert_int_equal(args(&cfg, err, sizeof(err), "-c", path,
			      "--source", "fanotify", "--fanotify-mount", "/mnt",
			      "--events", "close_write", (char *)NULL), -1);
	assert_non_null(strstr(err, "source fanotify scans opens only"));
	unlink(path);
	free(path);
	config_free(&cfg);
}

static void test_command_line(void **state)
{
	char err[CONFIG_ERR_MAX] = "";
	char *path = write_tmp("workers = 2\ngroup = fromfile\n", 28);
	struct config cfg;

	(void)state;
	config_init(&cfg);
	assert_int_equal(args(&cfg, err, sizeof(err), "--config", path, "--workers", "5",
			      "--max-file-size", "1K", "--exclude", "/proc", "-f",
			      "--on-error=deny", (char *)NULL), 0);
	assert_int_equal(cfg.workers, 5);		/* the option wins */
	assert_string_equal(cfg.group, "fromfile");	/* the file stays */
	assert_int_equal(cfg.limits.max_file_size, 1024);
	assert_int_equal(cfg.exclude.n, 1);
	assert_int_equal(cfg.foreground, 1);
	assert_int_equal(cfg.on_error, VERDICT_DENY);
	config_free(&cfg);

	config_init(&cfg);
	assert_int_equal(args(&cfg, err, sizeof(err), "-c", path, "--workers", "many",
			      (char *)NULL), -1);
	assert_non_null(strstr(err, "workers"));
	config_free(&cfg);

	config_init(&cfg);
	assert_int_equal(args(&cfg, err, sizeof(err), "-c", path, "--bogus", (char *)NULL), -1);
	assert_non_null(strstr(err, "--bogus"));
	config_free(&cfg);

	config_init(&cfg);
	assert_int_equal(args(&cfg, err, sizeof(err), "-c", path, "--workers", (char *)NULL), -1);
	config_free(&cfg);

	config_init(&cfg);
	assert_int_equal(args(&cfg, err, sizeof(err), "-c", path, "stray", (char *)NULL), -1);
	assert_non_null(strstr(err, "stray"));
	config_free(&cfg);

	config_init(&cfg);
	assert_int_equal(args(&cfg, err, sizeof(err), "-c", path, "--source", "fanotify",
			      (char *)NULL), -1);
	assert_non_null(strstr(err, "fanotify_mount"));
	config_free(&cfg);

	config_init(&cfg);
	assert_int_equal(args(&cfg, err, sizeof(err), "-c", "/nonexistent.conf", (char *)NULL), -1);
	assert_non_null(strstr(err, "/nonexistent.conf"));
	config_free(&cfg);

	unlink(path);
	free(path);
}

/*
 * The scan limits: clamd's defaults, 0 for unlimited, bad values refused;
 * max_scan_time never beyond the group's timeout_ms: refused when given,
 * lowered when it is the default; fanotify (no timeout) takes any.
 */
static void test_limits(void **state)
{
	static const char *const bad[][3] = {	/* option, value, key named */
		{ "--max-scan-size", "1X", "max_scan_size" },
		{ "--max-recursion", "-1", "max_recursion" },
		{ "--max-files", "4294967296", "max_files" },
		{ "--max-scan-time", "1s", "max_scan_time" },
		{ "--alert-exceeds-max", "maybe", "alert_exceeds_max" },
		{ "--alert-encrypted", "2", "alert_encrypted" },
	};
	char err[CONFIG_ERR_MAX] = "";
	struct config cfg;

	(void)state;
	config_init(&cfg);
	assert_int_equal(cfg.limits.max_file_size, 100 << 20);
	assert_int_equal(cfg.limits.max_scan_size, 400 << 20);
	assert_int_equal(cfg.limits.max_recursion, 17);
	assert_int_equal(cfg.limits.max_files, 10000);
	assert_int_equal(cfg.limits.max_scan_time_ms, 120000);
	assert_int_equal(cfg.alert_exceeds_max, 1);
	assert_int_equal(cfg.alert_encrypted, 1);
	/* the default 120000 is lowered to the default timeout_ms 30000 */
	assert_int_equal(args(&cfg, err, sizeof(err), "-c", "/dev/null", (char *)NULL), 0);
	assert_int_equal(cfg.limits.max_scan_time_ms, 30000);
	config_free(&cfg);

	config_init(&cfg);
	assert_int_equal(args(&cfg, err, sizeof(err), "-c", "/dev/null",
			      "--max-file-size", "0", "--max-scan-size", "1G",
			      "--max-recursion", "0", "--max-files", "5",
			      "--max-scan-time", "30000", "--alert-exceeds-max", "no",
			      "--alert-encrypted", "no", (char *)NULL), 0);
	assert_int_equal(cfg.limits.max_file_size, 0);
	assert_int_equal(cfg.limits.max_scan_size, 1 << 30);
	assert_int_equal(cfg.limits.max_recursion, 0);
	assert_int_equal(cfg.limits.max_files, 5);
	assert_int_equal(cfg.limits.max_scan_time_ms, 30000);
	assert_int_equal(cfg.alert_exceeds_max, 0);
	assert_int_equal(cfg.alert_encrypted, 0);
	config_free(&cfg);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		config_init(&cfg);
		if (args(&cfg, err, sizeof(err), "-c", "/dev/null", bad[i][0], bad[i][1],
			 (char *)NULL) != -1)
			fail_msg("accepted: %s %s", bad[i][0], bad[i][1]);
		if (!strstr(err, bad[i][2]))
			fail_msg("for %s %s: message '%s' names no key", bad[i][0], bad[i][1], err);
		config_free(&cfg);
	}

	config_init(&cfg);
	assert_int_equal(args(&cfg, err, sizeof(err), "-c", "/dev/null",
			      "--max-scan-time", "30001", (char *)NULL), -1);
	assert_non_null(strstr(err, "max_scan_time 30001 ms is longer than timeout_ms 30000"));
	config_free(&cfg);
	config_init(&cfg);
	assert_int_equal(args(&cfg, err, sizeof(err), "-c", "/dev/null", "--timeout-ms", "5000",
			      "--max-scan-time", "0", (char *)NULL), -1);
	assert_non_null(strstr(err, "max_scan_time 0 (unlimited) with timeout_ms 5000"));
	config_free(&cfg);
	/* no timeout, or no kernel timeout at all: any scan time */
	config_init(&cfg);
	assert_int_equal(args(&cfg, err, sizeof(err), "-c", "/dev/null", "--timeout-ms", "0",
			      "--max-scan-time", "999999", (char *)NULL), 0);
	assert_int_equal(cfg.limits.max_scan_time_ms, 999999);
	config_free(&cfg);
	config_init(&cfg);
	assert_int_equal(args(&cfg, err, sizeof(err), "-c", "/dev/null", "--source", "fanotify",
			      "--fanotify-mount", "/mnt", (char *)NULL), 0);
	assert_int_equal(cfg.limits.max_scan_time_ms, 120000);
	config_free(&cfg);
}

/*
 * The backend: libclamav by default; clamd needs a server; the servers in
 * order; clamd_timeout_ms below the group's timeout_ms (refused when
 * given, lowered to a third when it is the default; fanotify takes any).
 */
static void test_backend(void **state)
{
	char err[CONFIG_ERR_MAX] = "";
	struct config cfg;
	char host[64], port[8];

	(void)state;
	config_init(&cfg);
	assert_int_equal(cfg.backend, BACKEND_LIBCLAMAV);
	assert_int_equal(cfg.stream_max_length, 100 << 20);
	assert_int_equal(load(&cfg, "backend = clamd\nlocal_socket = /run/clamav/clamd.ctl\n"
			      "tcp_server = scan1.example:3310\ntcp_server = [::1]:3311\n"
			      "stream_max_length = 25M\nclamd_retry_ms = 500\n", err,
			      sizeof(err)), 0);
	assert_int_equal(cfg.backend, BACKEND_CLAMD);
	assert_string_equal(cfg.local_socket, "/run/clamav/clamd.ctl");
	assert_int_equal(cfg.tcp_servers.n, 2);
	assert_string_equal(cfg.tcp_servers.items[0], "scan1.example:3310");
	assert_string_equal(cfg.tcp_servers.items[1], "[::1]:3311");
	assert_int_equal(cfg.stream_max_length, 25 << 20);
	assert_int_equal(cfg.clamd_retry_ms, 500);
	config_free(&cfg);

	assert_int_equal(config_parse_hostport("[::1]:3311", host, sizeof(host), port,
					       sizeof(port)), 0);
	assert_string_equal(host, "::1");
	assert_string_equal(port, "3311");
	assert_int_equal(config_parse_hostport("10.0.0.1:1", host, sizeof(host), port,
					       sizeof(port)), 0);
	assert_string_equal(host, "10.0.0.1");

	config_init(&cfg);
	assert_int_equal(args(&cfg, err, sizeof(err), "-c", "/dev/null", "--backend", "clamd",
			      (char *)NULL), -1);
	assert_non_null(strstr(err, "needs a server"));
	config_free(&cfg);

	/* the default per-request timeout fits three times into timeout_ms */
	config_init(&cfg);
	assert_int_equal(args(&cfg, err, sizeof(err), "-c", "/dev/null", "--backend", "clamd",
			      "--tcp-server", "127.0.0.1:3310", "--timeout-ms", "6000",
			      (char *)NULL), 0);
	assert_int_equal(cfg.clamd_timeout_ms, 2000);
	config_free(&cfg);

	config_init(&cfg);
	assert_int_equal(args(&cfg, err, sizeof(err), "-c", "/dev/null", "--backend", "clamd",
			      "--tcp-server", "127.0.0.1:3310", "--timeout-ms", "6000",
			      "--clamd-timeout-ms", "6000", (char *)NULL), -1);
	assert_non_null(strstr(err, "clamd_timeout_ms 6000 is not below timeout_ms 6000"));
	config_free(&cfg);

	config_init(&cfg);
	assert_int_equal(args(&cfg, err, sizeof(err), "-c", "/dev/null", "--backend", "clamd",
			      "--local-socket", "/run/c.sock", "--source", "fanotify",
			      "--fanotify-mount", "/", "--clamd-timeout-ms", "60000",
			      (char *)NULL), 0);
	assert_int_equal(cfg.clamd_timeout_ms, 60000);
	config_free(&cfg);
}

/*
 * The settings' table (config.c): the options that are no setting are no
 * keys, every key takes dashes, and a setting without an argument on the
 * command line (--foreground) is set to yes.
 */
static void test_table(void **state)
{
	static const char *const not_keys[] = {
		"config", "help", "version", "check_config", "check-config",
		"import_clamd_conf",
	};
	char err[CONFIG_ERR_MAX] = "";
	struct config cfg;

	(void)state;
	config_init(&cfg);
	for (size_t i = 0; i < sizeof(not_keys) / sizeof(not_keys[0]); i++) {
		assert_int_equal(config_set(&cfg, not_keys[i], "/x", err, sizeof(err)), -1);
		assert_non_null(strstr(err, "unknown key"));
	}
	assert_int_equal(config_set(&cfg, "max-file-size", "1K", err, sizeof(err)), 0);
	assert_int_equal(cfg.limits.max_file_size, 1024);
	assert_int_equal(config_set(&cfg, "on-error", "deny", err, sizeof(err)), 0);
	assert_int_equal(cfg.on_error, VERDICT_DENY);
	assert_int_equal(config_set(&cfg, "source", "fanotify", err, sizeof(err)), 0);
	assert_int_equal(cfg.source, SOURCE_FANOTIFY);
	config_free(&cfg);

	config_init(&cfg);
	assert_int_equal(args(&cfg, err, sizeof(err), "-c", "/dev/null", "--foreground",
			      "--cache-size", "7", (char *)NULL), 0);
	assert_int_equal(cfg.foreground, 1);
	assert_int_equal(cfg.cache_size, 7);
	config_free(&cfg);

	/* a missing argument names the option as given, or its letter */
	config_init(&cfg);
	assert_int_equal(args(&cfg, err, sizeof(err), "-c", "/dev/null", "--max-files",
			      (char *)NULL), -1);
	assert_non_null(strstr(err, "bad option '--max-files'"));
	config_free(&cfg);
	config_init(&cfg);
	assert_int_equal(args(&cfg, err, sizeof(err), "-c", "/dev/null", "--workers",
			      (char *)NULL), -1);
	assert_non_null(strstr(err, "bad option '-w'"));
	config_free(&cfg);
	config_init(&cfg);
	assert_int_equal(args(&cfg, err, sizeof(err), "--import-clamd-conf", (char *)NULL), -1);
	assert_non_null(strstr(err, "bad option '--import-clamd-conf'"));
	config_free(&cfg);
}

/* metrics_file: *.prom, absolute; metrics_interval: 1 to 3600 seconds */
static void test_metrics(void **state)
{
	static const struct {
		const char *text, *hint;
	} bad[] = {
		{ "metrics_interval = 0\n", "metrics_interval: '0' is not a number of seconds from 1 to 3600" },
		{ "metrics_interval = 3601\n", "metrics_interval: '3601' is not a number of seconds from 1 to 3600" },
		{ "metrics_interval = 5s\n", "metrics_interval: '5s'" },
		{ "metrics_file = rel/x.prom\n", "metrics_file: 'rel/x.prom' is not an absolute path of a file named *.prom" },
		{ "metrics_file = /var/lib/x.txt\n", "metrics_file: '/var/lib/x.txt' is not an absolute path" },
		{ "metrics_file = /var/lib/x.prom/\n", "metrics_file: '/var/lib/x.prom/'" },
		{ "metrics_file = /.prom\n", NULL },
	};
	char err[CONFIG_ERR_MAX] = "";
	struct config cfg;

	(void)state;
	config_init(&cfg);
	assert_null(cfg.metrics_file);
	assert_int_equal(cfg.metrics_interval, 15);
	assert_int_equal(load(&cfg, "metrics_file = /var/lib/prometheus/node-exporter/d.prom\n"
			      "metrics_interval = 3600\n", err, sizeof(err)), 0);
	assert_string_equal(cfg.metrics_file, "/var/lib/prometheus/node-exporter/d.prom");
	assert_int_equal(cfg.metrics_interval, 3600);
	/* the command line's empty value turns the file's off */
	assert_int_equal(config_set(&cfg, "metrics-file", "", err, sizeof(err)), 0);
	assert_null(cfg.metrics_file);
	config_free(&cfg);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		config_init(&cfg);
		if (!load(&cfg, bad[i].text, err, sizeof(err)))
			fail_msg("accepted: %s", bad[i].text);
		if (bad[i].hint && !strstr(err, bad[i].hint))
			fail_msg("for %s: '%s' lacks '%s'", bad[i].text, err, bad[i].hint);
		config_free(&cfg);
	}

	/* no room left for the temporary file's name beside it */
	{
		char path[PATH_MAX];

		memset(path, 'a', sizeof(path));
		path[0] = '/';
		strcpy(path + PATH_MAX - 16, ".prom");
		config_init(&cfg);
		assert_int_equal(config_set(&cfg, "metrics_file", path, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "is longer than 4079 bytes"));
		path[PATH_MAX - 17 - 5] = 0;
		strcat(path, ".prom");
		assert_int_equal(config_set(&cfg, "metrics_file", path, err, sizeof(err)), 0);
		config_free(&cfg);
	}
}

static void test_help(void **state)
{
	char err[CONFIG_ERR_MAX] = "";
	struct config cfg;
	FILE *saved = stdout;

	(void)state;
	stdout = fopen("/dev/null", "w");
	config_init(&cfg);
	assert_int_equal(args(&cfg, err, sizeof(err), "--workers", "2", "--help", (char *)NULL), 1);
	config_free(&cfg);
	fclose(stdout);
	stdout = saved;
}

/* --help's {min}, {max} and {default} become the table's and config_init()'s values */
static void test_help_values(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	config_usage(f, "dazuko-clamscan");
	assert_int_equal(fclose(f), 0);
	assert_null(strchr(text, '{'));
	assert_non_null(strstr(text, "restarted scanner, 0 to 600000 (default 30000)\n"));
	assert_non_null(strstr(text, "larger files are not scanned (default 100M, 0: no limit)\n"));
	assert_non_null(strstr(text, "verdict of a timed-out event (default allow)\n"));
	assert_non_null(strstr(text, "crash-tracked group (default yes)\n"));
	assert_non_null(strstr(text, "how often metrics_file is written (default 15)\n"));
	free(text);
}

/* Loading PATH fails with a message that names it and says WHY. */
static void expect_untrusted(const char *path, const char *why)
{
	char err[CONFIG_ERR_MAX] = "";
	struct config cfg;

	config_init(&cfg);
	assert_int_equal(config_load_file(&cfg, path, 1, err, sizeof(err)), -1);
	if (!strstr(err, path) || !strstr(err, why))
		fail_msg("'%s' does not name %s and say '%s'", err, path, why);
	config_free(&cfg);
}

static int load_path(const char *path)
{
	char err[CONFIG_ERR_MAX] = "";
	struct config cfg;
	int rc;

	config_init(&cfg);
	rc = config_load_file(&cfg, path, 1, err, sizeof(err));
	if (rc)
		print_message("%s\n", err);
	config_free(&cfg);
	return rc;
}

/*
 * The config file and virus_event's program, and the directories they sit
 * in, must be root's or the scanner's own, and nobody else's to write.
 */
static void test_trust(void **state)
{
	char dir[PATH_MAX], conf[PATH_MAX + 16], prog[PATH_MAX + 16];
	char *text = NULL;
	FILE *f;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/trust", private_dir());
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(conf, sizeof(conf), "%s/c.conf", dir);
	snprintf(prog, sizeof(prog), "%s/event.sh", dir);
	f = fopen(prog, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(prog, 0755), 0);
	assert_true(asprintf(&text, "virus_event = %s\n", prog) > 0);
	f = fopen(conf, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	free(text);
	assert_int_equal(chmod(conf, 0644), 0);
	assert_int_equal(load_path(conf), 0);

	assert_int_equal(chmod(conf, 0666), 0);
	expect_untrusted(conf, "writable by all (mode 0666); refused");
	assert_int_equal(chmod(conf, 0664), 0);
	expect_untrusted(conf, "writable by its group (mode 0664)");
	assert_int_equal(chmod(conf, 0644), 0);

	assert_int_equal(chmod(prog, 0777), 0);
	expect_untrusted(conf, "virus_event");
	expect_untrusted(conf, "writable by all (mode 0777)");
	assert_int_equal(chmod(prog, 0755), 0);

	/* The directory: world-writable, even sticky as /tmp is. */
	assert_int_equal(chmod(dir, 01777), 0);
	expect_untrusted(conf, "writable by all (mode 1777)");
	assert_int_equal(chmod(dir, 0775), 0);
	expect_untrusted(conf, "writable by its group (mode 0775)");
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(load_path(conf), 0);

	/* Another user's file, where the test may give one away. */
	if (geteuid() == 0) {
		assert_int_equal(chown(conf, 12345, 0), 0);
		expect_untrusted(conf, "owned by uid 12345, not by root or the scanner's user");
		assert_int_equal(chown(conf, 0, 0), 0);
		assert_int_equal(chown(prog, 12345, 0), 0);
		expect_untrusted(conf, "owned by uid 12345");
		assert_int_equal(chown(prog, 0, 0), 0);
		assert_int_equal(load_path(conf), 0);
	}
	assert_int_equal(unlink(conf), 0);
	assert_int_equal(unlink(prog), 0);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_good_file),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_exclusions),
		cmocka_unit_test(test_trailing_comment),
		cmocka_unit_test(test_prefix_symlink),
		cmocka_unit_test(test_prefix_missing),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_command_line),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_help_values),
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_backend),
		cmocka_unit_test(test_trust),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	rmdir(private_dir());
	return rc;
}
