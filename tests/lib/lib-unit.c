// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libdazukofs unit tests on the host, against fakes (fake.c): a temporary
 * directory as configfs and sysfs, FIFOs as the group devices.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmocka.h>

#include <linux/dazukofs.h>

#include "dazukofs.h"
#include "fake.h"

/* A record buffer: the kernel's longest format-2 record (UAPI). */
#define DAZUKOFS_RECORD_MAX 256

static int setup(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	fake_setup(f);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fake_teardown(*state);
	free(*state);
	return 0;
}

static void assert_msg(const char *want)
{
	const char *msg = dazukofs_strerror();

	if (!strstr(msg, want))
		fail_msg("message '%s' lacks '%s'", msg, want);
}

static void test_create(void **state)
{
	struct fake *f = *state;
	struct dazukofs_group_config cfg = { 1, 500, DAZUKOFS_DENY };

	assert_int_equal(dazukofs_group_create("scan_1", &cfg), 0);
	assert_string_equal(fake_read(f->configfs, "scan_1/track"), "1");
	assert_string_equal(fake_read(f->configfs, "scan_1/timeout_ms"), "500");
	assert_string_equal(fake_read(f->configfs, "scan_1/timeout_action"), "deny");

	assert_int_equal(dazukofs_group_create("dflt", NULL), 0);
	/* The module's own defaults: crash-tracked, no timeout. */
	assert_string_equal(fake_read(f->configfs, "dflt/track"), "1");
	assert_string_equal(fake_read(f->configfs, "dflt/timeout_ms"), "0");
	assert_string_equal(fake_read(f->configfs, "dflt/timeout_action"), "allow");
}

static void test_create_exists(void **state)
{
	struct fake *f = *state;
	char want[512];

	assert_int_equal(dazukofs_group_create("x", NULL), 0);
	errno = 0;
	assert_int_equal(dazukofs_group_create("x", NULL), -1);
	assert_int_equal(errno, EEXIST);
	snprintf(want, sizeof(want),
		 "cannot create group 'x': mkdir %s/x: File exists", f->configfs);
	assert_string_equal(dazukofs_strerror(), want);
}

static void test_create_bad(void **state)
{
	struct fake *f = *state;
	struct dazukofs_group_config cfg = { 0, 86400001, DAZUKOFS_ALLOW };
	char name[70];
	struct stat st;
	char path[512];

	assert_int_equal(dazukofs_group_create("a b", NULL), -1);
	assert_int_equal(errno, EINVAL);
	assert_msg("cannot create group 'a b': invalid name");
	assert_int_equal(dazukofs_group_create("", NULL), -1);
	assert_int_equal(errno, EINVAL);
	memset(name, 'n', 65);
	name[65] = '\0';
	assert_int_equal(dazukofs_group_create(name, NULL), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(dazukofs_group_create("../etc", NULL), -1);
	assert_int_equal(errno, EINVAL);
	name[64] = '\0';	/* 64 is fine */
	assert_int_equal(dazukofs_group_create(name, NULL), 0);

	assert_int_equal(dazukofs_group_create("late", &cfg), -1);
	assert_int_equal(errno, EINVAL);
	assert_msg("more than a day");
	cfg.timeout_ms = 86400000;
	cfg.timeout_action = 7;
	assert_int_equal(dazukofs_group_create("late", &cfg), -1);
	assert_int_equal(errno, EINVAL);
	cfg.timeout_action = DAZUKOFS_DENY;
	cfg.track = 2;
	assert_int_equal(dazukofs_group_create("late", &cfg), -1);
	snprintf(path, sizeof(path), "%s/late", f->configfs);
	assert_int_equal(stat(path, &st), -1);	/* nothing left behind */
}

static void test_set_grace(void **state)
{
	struct fake *f = *state;

	assert_int_equal(dazukofs_group_create("g", NULL), 0);
	/* A module that knows grace_ms shows the attribute, 0 by default. */
	fake_write(f->configfs, "g/grace_ms", "0\n");
	assert_int_equal(dazukofs_group_set_grace("g", 30000), 0);
	assert_string_equal(fake_read(f->configfs, "g/grace_ms"), "30000");
	assert_int_equal(dazukofs_group_set_grace("g", 600000), 0);
	assert_string_equal(fake_read(f->configfs, "g/grace_ms"), "600000");
	assert_int_equal(dazukofs_group_set_grace("g", 0), 0);
	assert_string_equal(fake_read(f->configfs, "g/grace_ms"), "0");

	errno = 0;
	assert_int_equal(dazukofs_group_set_grace("g", 600001), -1);
	assert_int_equal(errno, EINVAL);
	assert_msg("cannot set grace_ms of group 'g': grace_ms 600001 is more than 10 minutes");
	assert_string_equal(fake_read(f->configfs, "g/grace_ms"), "0");
	assert_int_equal(dazukofs_group_set_grace("a b", 1), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(dazukofs_group_set_grace(NULL, 1), -1);
	assert_int_equal(errno, EINVAL);

	/* No such group. */
	assert_int_equal(dazukofs_group_set_grace("nope", 1), -1);
	assert_int_equal(errno, ENOENT);
	assert_msg("cannot set grace_ms of group 'nope': ");

	/* The group exists, the attribute does not: an older module. */
	assert_int_equal(dazukofs_group_create("old", NULL), 0);
	assert_int_equal(dazukofs_group_set_grace("old", 1), -1);
	assert_int_equal(errno, EOPNOTSUPP);
	assert_msg("has no grace_ms");
}

static void test_set_busy_poll(void **state)
{
	struct fake *f = *state;

	assert_int_equal(dazukofs_group_create("g", NULL), 0);
	fake_write(f->configfs, "g/busy_poll_us", "0\n");
	assert_int_equal(dazukofs_group_set_busy_poll("g", 50), 0);
	assert_string_equal(fake_read(f->configfs, "g/busy_poll_us"), "50");
	assert_int_equal(dazukofs_group_set_busy_poll("g", 1000), 0);
	assert_string_equal(fake_read(f->configfs, "g/busy_poll_us"), "1000");
	assert_int_equal(dazukofs_group_set_busy_poll("g", 0), 0);
	assert_string_equal(fake_read(f->configfs, "g/busy_poll_us"), "0");

	errno = 0;
	assert_int_equal(dazukofs_group_set_busy_poll("g", 1001), -1);
	assert_int_equal(errno, EINVAL);
	assert_msg("cannot set busy_poll_us of group 'g': busy_poll_us 1001 is more than 1000");
	assert_string_equal(fake_read(f->configfs, "g/busy_poll_us"), "0");
	assert_int_equal(dazukofs_group_set_busy_poll("a/b", 1), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(dazukofs_group_set_busy_poll(NULL, 1), -1);
	assert_int_equal(errno, EINVAL);

	assert_int_equal(dazukofs_group_set_busy_poll("nope", 1), -1);
	assert_int_equal(errno, ENOENT);
	assert_msg("cannot set busy_poll_us of group 'nope': ");

	assert_int_equal(dazukofs_group_create("old", NULL), 0);
	assert_int_equal(dazukofs_group_set_busy_poll("old", 1), -1);
	assert_int_equal(errno, EOPNOTSUPP);
	assert_msg("has no busy_poll_us");
}

static void test_set_events(void **state)
{
	struct fake *f = *state;

	assert_int_equal(dazukofs_group_create("g", NULL), 0);
	fake_write(f->configfs, "g/events", "open\n");
	assert_int_equal(dazukofs_group_set_events("g", DAZUKOFS_EVENT_OPEN |
						   DAZUKOFS_EVENT_CLOSE_WRITE), 0);
	assert_string_equal(fake_read(f->configfs, "g/events"),
			    "open close_write");
	assert_int_equal(dazukofs_group_set_events("g", DAZUKOFS_EVENT_EXEC |
						   DAZUKOFS_EVENT_CLOSE_WRITE), 0);
	assert_string_equal(fake_read(f->configfs, "g/events"),
			    "exec close_write");
	assert_int_equal(dazukofs_group_set_events("g", 0), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(dazukofs_group_set_events("g", 0x8), -1);
	assert_int_equal(errno, EINVAL);
	assert_msg("cannot set the events of group 'g': 0x8 is not a set of");
	assert_string_equal(fake_read(f->configfs, "g/events"),
			    "exec close_write");
	assert_int_equal(dazukofs_group_set_events("nope", 1), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(dazukofs_group_create("old", NULL), 0);
	assert_int_equal(dazukofs_group_set_events("old", 1), -1);
	assert_int_equal(errno, EOPNOTSUPP);
	assert_msg("has no events");
}

/* The rules every program shares: group names, event names and bits. */
static void test_shared_rules(void **state)
{
	char buf[32];

	(void)state;
	assert_true(dazukofs_group_name_valid("scan-1_A"));
	assert_true(dazukofs_group_name_valid("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
	assert_false(dazukofs_group_name_valid("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
	assert_false(dazukofs_group_name_valid(""));
	assert_false(dazukofs_group_name_valid(NULL));
	assert_false(dazukofs_group_name_valid("a b"));
	assert_false(dazukofs_group_name_valid("a/b"));
	assert_false(dazukofs_group_name_valid("\xc3\xa9"));

	assert_int_equal(dazukofs_events_parse("open"), DAZUKOFS_EVENT_OPEN);
	assert_int_equal(dazukofs_events_parse(" close_write,exec\topen "),
			 (DAZUKOFS_EVENT_OPEN | DAZUKOFS_EVENT_EXEC | DAZUKOFS_EVENT_CLOSE_WRITE));
	assert_int_equal(dazukofs_events_parse("open,bogus"), 0);
	assert_int_equal(dazukofs_events_parse("opens"), 0);
	assert_int_equal(dazukofs_events_parse(", ,"), 0);
	assert_int_equal(dazukofs_events_parse(""), 0);
	assert_int_equal(dazukofs_events_parse(NULL), 0);

	assert_int_equal(dazukofs_events_format(DAZUKOFS_EVENT_CLOSE_WRITE |
						DAZUKOFS_EVENT_OPEN, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "open close_write");
	assert_int_equal(dazukofs_events_format(0, buf, sizeof(buf)), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(dazukofs_events_format(0x8, buf, sizeof(buf)), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(dazukofs_events_format(DAZUKOFS_EVENT_OPEN | DAZUKOFS_EVENT_EXEC, buf, 8), -1);
	assert_int_equal(errno, ERANGE);
}

/* An fd's path: whole, or ERANGE and "" (never a cut path), or readlink's errno. */
static void test_fd_path(void **state)
{
	char dir[] = "/tmp/lib-unit-fdpath.XXXXXX", path[4096], buf[4096];
	int fd, n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a file", dir);
	fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	n = dazukofs_fd_path(fd, buf, sizeof(buf));
	assert_int_equal(n, (int)strlen(path));
	assert_string_equal(buf, path);
	assert_int_equal(dazukofs_fd_path(fd, buf, strlen(path)), -1);
	assert_int_equal(errno, ERANGE);
	assert_string_equal(buf, "");
	assert_int_equal(dazukofs_fd_path(fd, buf, strlen(path) + 1), (int)strlen(path));
	assert_int_equal(dazukofs_fd_path(-1, buf, sizeof(buf)), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(dazukofs_fd_path(fd, NULL, 1), -1);
	assert_int_equal(errno, EINVAL);
	close(fd);
	unlink(path);
	rmdir(dir);
}

/* dazukofs.h spells the module's defaults again: they must agree. */
static void test_config_default(void **state)
{
	const struct dazukofs_group_config d = DAZUKOFS_GROUP_CONFIG_DEFAULT;

	(void)state;
	assert_int_equal(d.track, DAZUKOFS_TRACK_DEFAULT);
	assert_int_equal(d.timeout_ms, DAZUKOFS_TIMEOUT_MS_DEFAULT);
	assert_int_equal(d.timeout_action, DAZUKOFS_TIMEOUT_ACTION_DEFAULT);
}

/* The one number rule: digits only, up to max. */
static void test_parse_uint(void **state)
{
	static const char *const not_numbers[] = {
		"", " 5", "5 ", "+5", "-1", "0x10", "1e3", "5\n", "1.0", "\xd9\xa3",
	};
	uint64_t v = 7;

	(void)state;
	assert_int_equal(dazukofs_parse_uint("0", 0, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(dazukofs_parse_uint("000600000", 600000, &v), 0);
	assert_int_equal(v, 600000);
	assert_int_equal(dazukofs_parse_uint("18446744073709551615", UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);
	v = 7;
	assert_int_equal(dazukofs_parse_uint("18446744073709551616", UINT64_MAX, &v), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(dazukofs_parse_uint("600001", 600000, &v), -1);
	assert_int_equal(errno, ERANGE);
	for (size_t i = 0; i < sizeof(not_numbers) / sizeof(not_numbers[0]); i++) {
		errno = 0;
		assert_int_equal(dazukofs_parse_uint(not_numbers[i], UINT64_MAX, &v), -1);
		assert_int_equal(errno, EINVAL);
	}
	assert_int_equal(dazukofs_parse_uint(NULL, 1, &v), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(v, 7);
}

/* Every attribute it sets, read back; any attribute by name, checked. */
static void test_getters_and_attrs(void **state)
{
	struct fake *f = *state;
	unsigned int u;
	char buf[16];
	int rec;

	assert_int_equal(dazukofs_group_create("g", NULL), 0);
	fake_write(f->configfs, "g/grace_ms", "0\n");
	fake_write(f->configfs, "g/busy_poll_us", "0\n");
	fake_write(f->configfs, "g/events", "open\n");
	fake_write(f->configfs, "g/record", "1\n");
	fake_write(f->configfs, "g/max_queue", "4096\n");
	assert_int_equal(dazukofs_group_set_grace("g", 2500), 0);
	assert_int_equal(dazukofs_group_get_grace("g", &u), 0);
	assert_int_equal(u, 2500);
	assert_int_equal(dazukofs_group_set_busy_poll("g", 40), 0);
	assert_int_equal(dazukofs_group_get_busy_poll("g", &u), 0);
	assert_int_equal(u, 40);
	assert_int_equal(dazukofs_group_set_events("g", DAZUKOFS_EVENT_EXEC |
						   DAZUKOFS_EVENT_CLOSE_WRITE), 0);
	assert_int_equal(dazukofs_group_get_events("g", &u), 0);
	assert_int_equal(u, DAZUKOFS_EVENT_EXEC | DAZUKOFS_EVENT_CLOSE_WRITE);
	assert_int_equal(dazukofs_group_set_record("g", DAZUKOFS_RECORD_V2), 0);
	assert_int_equal(dazukofs_group_get_record("g", &rec), 0);
	assert_int_equal(rec, DAZUKOFS_RECORD_V2);

	/* by name: written as given, read without its newline */
	assert_int_equal(dazukofs_group_set_attr("g", "max_queue", "128"), 0);
	assert_string_equal(fake_read(f->configfs, "g/max_queue"), "128");
	assert_int_equal(dazukofs_group_get_attr("g", "max_queue", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "128");
	assert_int_equal(dazukofs_group_get_attr("g", "max_queue", buf, 3), -1);
	assert_int_equal(errno, ERANGE);

	/* never a path, never two lines */
	assert_int_equal(dazukofs_group_set_attr("g", "../g/record", "1"), -1);
	assert_int_equal(errno, EINVAL);
	assert_msg("is not an attribute name");
	assert_int_equal(dazukofs_group_get_attr("g", "", buf, sizeof(buf)), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(dazukofs_group_set_attr("g", "events", "open\nexec"), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(dazukofs_group_set_attr("a/b", "record", "1"), -1);
	assert_int_equal(errno, EINVAL);

	/* what a value read back cannot be */
	fake_write(f->configfs, "g/events", "open bogus\n");
	assert_int_equal(dazukofs_group_get_events("g", &u), -1);
	assert_int_equal(errno, EIO);
	fake_write(f->configfs, "g/grace_ms", "600001\n");
	assert_int_equal(dazukofs_group_get_grace("g", &u), -1);
	assert_int_equal(errno, EIO);

	/* no such group; an older module without the attribute */
	assert_int_equal(dazukofs_group_get_attr("nope", "record", buf, sizeof(buf)), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(dazukofs_group_create("old", NULL), 0);
	assert_int_equal(dazukofs_group_get_record("old", &rec), -1);
	assert_int_equal(errno, EOPNOTSUPP);
	assert_msg("has no record");
	assert_int_equal(dazukofs_group_set_attr("old", "overflow_action", "deny"), -1);
	assert_int_equal(errno, EOPNOTSUPP);
}

static void test_flush(void **state)
{
	struct fake *f = *state;

	assert_int_equal(dazukofs_group_create("g", NULL), 0);
	fake_write(f->configfs, "g/flush", "");
	assert_int_equal(dazukofs_group_flush("g"), 0);
	assert_string_equal(fake_read(f->configfs, "g/flush"), "1");
	assert_int_equal(dazukofs_group_flush("a/b"), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(dazukofs_group_flush("nope"), -1);
	assert_int_equal(errno, ENOENT);
	assert_msg("cannot flush the verdicts of group 'nope': ");
	assert_int_equal(dazukofs_group_create("old", NULL), 0);
	assert_int_equal(dazukofs_group_flush("old"), -1);
	assert_int_equal(errno, EOPNOTSUPP);
	assert_msg("has no flush");
}

static void test_cache_stats(void **state)
{
	struct fake *f = *state;
	struct dazukofs_cache_stats cs;

	fake_write(f->sysfs, "groups/g/cache_hits", "7\n");
	fake_write(f->sysfs, "groups/g/cache_misses", "3\n");
	fake_write(f->sysfs, "groups/g/cache_invalidations", "18446744073709551615\n");
	assert_int_equal(dazukofs_get_cache_stats("g", &cs), 0);
	assert_true(cs.hits == 7 && cs.misses == 3 &&
		    cs.invalidations == UINT64_MAX);
	assert_int_equal(dazukofs_get_cache_stats("g", NULL), -1);
	assert_int_equal(errno, EINVAL);
	fake_write(f->sysfs, "groups/g/cache_misses", "-1\n");
	assert_int_equal(dazukofs_get_cache_stats("g", &cs), -1);
	assert_int_equal(errno, EIO);
	/* The totals of a module without the cache. */
	assert_int_equal(dazukofs_get_cache_stats(NULL, &cs), -1);
	assert_int_equal(errno, EOPNOTSUPP);
	assert_msg("has no cache_hits");
}

static void test_create_root_missing(void **state)
{
	struct fake *f = *state;
	char path[512];

	snprintf(path, sizeof(path), "%s/.keep", f->configfs);
	unlink(path);
	assert_int_equal(rmdir(f->configfs), 0);
	assert_int_equal(dazukofs_group_create("g", NULL), -1);
	assert_int_equal(errno, ENOENT);
	assert_msg("cannot create group 'g': mkdir ");
	assert_int_equal(dazukofs_group_list(NULL, 0), -1);
	assert_int_equal(errno, ENOENT);
	assert_msg("cannot list groups: opendir ");
}

static void test_info_list(void **state)
{
	struct fake *f = *state;
	struct dazukofs_group_info infos[2], info;

	fake_group(f, "beta", 1, 1, 250, "deny", 0);
	fake_group(f, "alpha", 0, 0, 0, "allow", 0);
	fake_group(f, "gamma", 2, 0, 9, "allow", 0);

	assert_int_equal(dazukofs_group_info("beta", &info), 0);
	assert_string_equal(info.name, "beta");
	assert_int_equal(info.id, 1);
	assert_int_equal(info.config.track, 1);
	assert_int_equal(info.config.timeout_ms, 250);
	assert_int_equal(info.config.timeout_action, DAZUKOFS_DENY);

	assert_int_equal(dazukofs_group_list(infos, 2), 3);
	assert_string_equal(infos[0].name, "alpha");
	assert_string_equal(infos[1].name, "beta");
	assert_int_equal(infos[1].config.timeout_ms, 250);
	assert_int_equal(dazukofs_group_list(NULL, 0), 3);
}

static void test_info_errors(void **state)
{
	struct fake *f = *state;
	struct dazukofs_group_info info;

	assert_int_equal(dazukofs_group_info("nope", &info), -1);
	assert_int_equal(errno, ENOENT);
	assert_msg("cannot read group 'nope': no such group");
	fake_group(f, "odd", 0, 0, 0, "maybe", 0);
	assert_int_equal(dazukofs_group_info("odd", &info), -1);
	assert_int_equal(errno, EIO);
	assert_msg("holds 'maybe', not allow or deny");
	fake_write(f->configfs, "odd/timeout_action", "allow\n");
	fake_write(f->configfs, "odd/id", "x1\n");
	assert_int_equal(dazukofs_group_info("odd", &info), -1);
	assert_int_equal(errno, EIO);
	assert_msg("not a number");
	assert_int_equal(dazukofs_group_list(NULL, 0), -1);
}

static void test_delete(void **state)
{
	struct fake *f = *state;
	char path[512];
	const char *attrs[] = { "track", "timeout_ms", "timeout_action" };
	size_t i;

	assert_int_equal(dazukofs_group_create("gone", NULL), 0);
	/* configfs removes the attributes with the directory; the fake can't */
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/gone/%s", f->configfs, attrs[i]);
		assert_int_equal(unlink(path), 0);
	}
	assert_int_equal(dazukofs_group_delete("gone"), 0);
	assert_int_equal(dazukofs_group_delete("gone"), -1);
	assert_int_equal(errno, ENOENT);
	assert_msg("cannot delete group 'gone': rmdir ");
	assert_msg("No such file or directory");
	assert_int_equal(dazukofs_group_delete("a/b"), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(dazukofs_group_delete(NULL), -1);
	assert_int_equal(errno, EINVAL);
}

static void test_stats(void **state)
{
	struct fake *f = *state;
	struct dazukofs_stats s;

	fake_counters(f, NULL, 100);
	assert_int_equal(dazukofs_get_stats(NULL, &s), 0);
	assert_int_equal(s.events, 100);
	assert_int_equal(s.allowed, 101);
	assert_int_equal(s.denied, 102);
	assert_int_equal(s.cancelled, 103);
	assert_int_equal(s.timeouts, 104);
	assert_int_equal(s.waiting, 105);
	assert_int_equal(s.in_hand, 106);
	assert_int_equal(s.readers, 107);
	assert_int_equal(s.latency_max_us, 108);
	assert_int_equal(s.latency_le_100us, 109);
	assert_int_equal(s.latency_gt_1s, 114);
	assert_int_equal(s.active, 1);

	fake_group(f, "g", 4, 1, 0, "allow", 1000);
	fake_write(f->sysfs, "groups/g/active", "0\n");
	fake_write(f->sysfs, "groups/g/events", "18446744073709551615\n");
	assert_int_equal(dazukofs_get_stats("g", &s), 0);
	assert_true(s.events == UINT64_MAX);
	assert_int_equal(s.readers, 1007);
	assert_int_equal(s.active, 0);

	assert_int_equal(dazukofs_get_stats("h", &s), -1);
	assert_int_equal(errno, ENOENT);
	assert_msg("cannot read the counters of group 'h': no such group");
	fake_write(f->sysfs, "groups/g/denied", "-1\n");
	assert_int_equal(dazukofs_get_stats("g", &s), -1);
	assert_int_equal(errno, EIO);
	assert_msg("groups/g/denied holds '-1', not a number");
	assert_int_equal(dazukofs_get_stats(NULL, NULL), -1);
	assert_int_equal(errno, EINVAL);
}

/* A file for the fake events to point at; returns its (dup'ed) fd. */
static int event_file(struct fake *f, char *path, size_t size)
{
	int fd;

	snprintf(path, size, "%s/scanned file", f->root);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	return fd;
}

static void put_record(int dev, const char *text)
{
	assert_int_equal(write(dev, text, strlen(text)), (ssize_t)strlen(text));
}

static void test_worker(void **state)
{
	struct fake *f = *state;
	struct dazukofs_access acc;
	char path[512], name[512], rec[64], ans[64];
	dazukofs_handle_t h;
	int dev, efd;

	fake_group(f, "w", 3, 0, 0, "allow", 0);
	dev = fake_device(f, 3);
	h = dazukofs_open("w", 0);
	assert_non_null(h);
	assert_true(dazukofs_get_fd(h) >= 0);

	efd = event_file(f, path, sizeof(path));
	snprintf(rec, sizeof(rec), "id=77\nfd=%d\npid=1234\n", efd);
	put_record(dev, rec);
	assert_int_equal(dazukofs_get_access(h, &acc), 0);
	assert_int_equal(acc.id, 77);
	assert_int_equal(acc.fd, efd);
	assert_int_equal(acc.pid, 1234);
	assert_int_equal(acc.deny, DAZUKOFS_ALLOW);
	assert_int_equal(dazukofs_get_filename(&acc, name, sizeof(name)),
			 (int)strlen(path));
	assert_string_equal(name, path);
	assert_int_equal(dazukofs_get_filename(&acc, name, 5), -1);
	assert_int_equal(errno, ERANGE);

	acc.deny = DAZUKOFS_DENY;
	assert_int_equal(dazukofs_return_access(h, &acc), 0);
	assert_int_equal(acc.fd, -1);
	assert_int_equal(fcntl(efd, F_GETFD), -1);	/* closed */
	assert_int_equal(errno, EBADF);
	memset(ans, 0, sizeof(ans));
	assert_int_equal(read(dev, ans, sizeof(ans) - 1), 10);
	assert_string_equal(ans, "id=77 r=1\n");

	/* allow, and a large id */
	efd = event_file(f, path, sizeof(path));
	snprintf(rec, sizeof(rec), "id=%lu\nfd=%d\npid=1\n", ULONG_MAX, efd);
	put_record(dev, rec);
	assert_int_equal(dazukofs_get_access(h, &acc), 0);
	assert_true(acc.id == ULONG_MAX);
	assert_int_equal(dazukofs_return_access(h, &acc), 0);
	memset(ans, 0, sizeof(ans));
	assert_true(read(dev, ans, sizeof(ans) - 1) > 0);
	snprintf(rec, sizeof(rec), "id=%lu r=0\n", ULONG_MAX);
	assert_string_equal(ans, rec);

	assert_int_equal(dazukofs_close(h), 0);
	close(dev);
}

static void test_worker_malformed(void **state)
{
	struct fake *f = *state;
	struct dazukofs_access acc;
	dazukofs_handle_t h;
	int dev;

	fake_group(f, "m", 0, 0, 0, "allow", 0);
	dev = fake_device(f, 0);
	h = dazukofs_open("m", 0);
	assert_non_null(h);
	put_record(dev, "id=1\nfd=-3\npid=1\n");
	assert_int_equal(dazukofs_get_access(h, &acc), -1);
	assert_int_equal(errno, EPROTO);
	assert_msg("cannot get an event of group 'm': malformed record from ");
	assert_int_equal(dazukofs_close(h), 0);
	close(dev);
}

static int open_fds(void)
{
	struct dirent *d;
	DIR *dir = opendir("/proc/self/fd");
	int n = 0;

	assert_non_null(dir);
	while ((d = readdir(dir)))
		n += d->d_name[0] != '.';
	closedir(dir);
	return n - 1;	/* the directory's own */
}

/*
 * A record that does not parse still came with an fd the module installed:
 * the library closes it, as long as the record names it for sure.
 */
static void test_worker_malformed_fd(void **state)
{
	static const char *const closed[] = {
		"id=1\nfd=%d\npid=x\n",	/* a bad field after fd */
		"id=1\nfd=%d\npid=1\nmore",	/* trailing bytes */
		"id=1\nfd=%d\n",		/* cut short */
	};
	static const char *const kept[] = {
		"id=x\nfd=%d\npid=1\n",	/* fd not where the module puts it */
		"fd=%d\npid=1\n",
		"id=1\nfd=%d9x\npid=1\n",	/* not the fd's number */
	};
	struct fake *f = *state;
	struct dazukofs_access acc;
	char path[512], rec[64];
	dazukofs_handle_t h;
	int dev, efd, before;

	fake_group(f, "mf", 4, 0, 0, "allow", 0);
	dev = fake_device(f, 4);
	h = dazukofs_open("mf", 0);
	assert_non_null(h);
	before = open_fds();
	for (size_t i = 0; i < sizeof(closed) / sizeof(closed[0]); i++) {
		efd = event_file(f, path, sizeof(path));
		snprintf(rec, sizeof(rec), closed[i], efd);
		put_record(dev, rec);
		assert_int_equal(dazukofs_get_access(h, &acc), -1);
		assert_int_equal(errno, EPROTO);
		if (fcntl(efd, F_GETFD) != -1)
			fail_msg("record %zu: fd %d left open", i, efd);
		assert_int_equal(open_fds(), before);
	}
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		efd = event_file(f, path, sizeof(path));
		snprintf(rec, sizeof(rec), kept[i], efd);
		put_record(dev, rec);
		assert_int_equal(dazukofs_get_access(h, &acc), -1);
		if (fcntl(efd, F_GETFD) == -1)
			fail_msg("record %zu: fd %d closed on a guess", i, efd);
		close(efd);
	}
	/* never the handle's own device fd */
	snprintf(rec, sizeof(rec), "id=1\nfd=%d\npid=x\n", dazukofs_get_fd(h));
	put_record(dev, rec);
	assert_int_equal(dazukofs_get_access(h, &acc), -1);
	assert_true(fcntl(dazukofs_get_fd(h), F_GETFD) != -1);
	assert_int_equal(open_fds(), before);
	assert_int_equal(dazukofs_close(h), 0);
	close(dev);
}

static void test_set_record(void **state)
{
	struct fake *f = *state;

	assert_int_equal(dazukofs_group_create("g", NULL), 0);
	/* A module that knows record formats shows the attribute, 1 by default. */
	fake_write(f->configfs, "g/record", "1\n");
	assert_int_equal(dazukofs_group_set_record("g", DAZUKOFS_RECORD_V2), 0);
	assert_string_equal(fake_read(f->configfs, "g/record"), "2");
	assert_int_equal(dazukofs_group_set_record("g", DAZUKOFS_RECORD_V1), 0);
	assert_string_equal(fake_read(f->configfs, "g/record"), "1");
	assert_int_equal(dazukofs_group_set_record("g", 0), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(dazukofs_group_set_record("g", DAZUKOFS_RECORD_V3), 0);
	assert_string_equal(fake_read(f->configfs, "g/record"), "3");
	assert_int_equal(dazukofs_group_set_record("g", DAZUKOFS_RECORD_V1), 0);
	assert_int_equal(dazukofs_group_set_record("g", 4), -1);
	assert_int_equal(errno, EINVAL);
	assert_msg("cannot set the record format of group 'g': format 4 is not 1, 2 or 3");
	assert_int_equal(dazukofs_group_set_record("g", -1), -1);
	assert_int_equal(errno, EINVAL);
	assert_string_equal(fake_read(f->configfs, "g/record"), "1");
	assert_int_equal(dazukofs_group_set_record("a b", 2), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(dazukofs_group_set_record("nope", 2), -1);
	assert_int_equal(errno, ENOENT);
	/* The group exists, the attribute does not: an older module. */
	assert_int_equal(dazukofs_group_create("old", NULL), 0);
	assert_int_equal(dazukofs_group_set_record("old", 2), -1);
	assert_int_equal(errno, EOPNOTSUPP);
	assert_msg("has no record");
}

/* A format-2 record for the fake device. */
static void put_record2(int dev, unsigned long id, int fd, int pid,
			const char *rest)
{
	char rec[DAZUKOFS_RECORD_MAX];

	snprintf(rec, sizeof(rec), "id=%lu fd=%d pid=%d %s\n", id, fd, pid, rest);
	put_record(dev, rec);
}

#define REST2 "uid=1000 euid=0 fsuid=1001 type=open access=rwc dev=8:17 " \
	"ino=123456789012 size=4096 change=77"

/* Reads one answer line from the fake device. */
static void assert_answers(int dev, const char *want)
{
	char ans[512];
	ssize_t n;

	memset(ans, 0, sizeof(ans));
	n = read(dev, ans, sizeof(ans) - 1);
	assert_true(n > 0);
	assert_string_equal(ans, want);
}

static dazukofs_handle_t open_fake(struct fake *f, const char *name, int id,
				   int flags, int *dev)
{
	dazukofs_handle_t h;

	fake_group(f, name, id, 0, 0, "allow", 0);
	*dev = fake_device(f, id);
	h = dazukofs_open(name, flags);
	assert_non_null(h);
	return h;
}

static void test_info_v1(void **state)
{
	struct fake *f = *state;
	struct dazukofs_access_info info;
	struct dazukofs_access acc;
	char path[512], rec[64];
	dazukofs_handle_t h;
	int dev, efd;

	h = open_fake(f, "v1", 3, 0, &dev);
	efd = event_file(f, path, sizeof(path));
	snprintf(rec, sizeof(rec), "id=5\nfd=%d\npid=66\n", efd);
	put_record(dev, rec);
	memset(&info, 0x55, sizeof(info));
	assert_int_equal(dazukofs_get_access_info(h, &acc, &info), 0);
	assert_int_equal(acc.id, 5);
	assert_int_equal(acc.fd, efd);
	assert_int_equal(acc.pid, 66);
	assert_int_equal(info.format, DAZUKOFS_RECORD_V1);
	assert_int_equal(info.type, 0);
	assert_int_equal(info.access, 0);
	assert_int_equal(info.fd_error, 0);
	assert_true(info.uid == 0 && info.euid == 0 && info.fsuid == 0);
	assert_true(info.dev == 0 && info.ino == 0 && info.size == 0 &&
		    info.change == 0);
	assert_int_equal(dazukofs_return_access(h, &acc), 0);
	assert_answers(dev, "id=5 r=0\n");
	assert_int_equal(dazukofs_get_access_info(h, &acc, NULL), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(dazukofs_close(h), 0);
	close(dev);
}

static void test_info_v2(void **state)
{
	struct fake *f = *state;
	struct dazukofs_access_info info;
	struct dazukofs_access acc;
	char path[512], name[512];
	dazukofs_handle_t h;
	int dev, efd;

	h = open_fake(f, "v2", 3, 0, &dev);
	efd = event_file(f, path, sizeof(path));
	put_record2(dev, 9, efd, 4321, REST2);
	assert_int_equal(dazukofs_get_access_info(h, &acc, &info), 0);
	assert_int_equal(acc.id, 9);
	assert_int_equal(acc.fd, efd);
	assert_int_equal(acc.pid, 4321);
	assert_int_equal(acc.deny, DAZUKOFS_ALLOW);
	assert_int_equal(info.format, DAZUKOFS_RECORD_V2);
	assert_int_equal(info.type, DAZUKOFS_EVENT_OPEN);
	assert_int_equal(info.access, DAZUKOFS_ACCESS_READ |
			 DAZUKOFS_ACCESS_WRITE | DAZUKOFS_ACCESS_CREATE);
	assert_int_equal(info.fd_error, 0);
	assert_int_equal(info.uid, 1000);
	assert_int_equal(info.euid, 0);
	assert_int_equal(info.fsuid, 1001);
	assert_true(info.dev == makedev(8, 17));
	assert_true(info.ino == 123456789012ULL);
	assert_true(info.size == 4096);
	assert_true(info.change == 77);
	assert_int_equal(dazukofs_get_filename(&acc, name, sizeof(name)),
			 (int)strlen(path));
	acc.deny = DAZUKOFS_DENY;
	assert_int_equal(dazukofs_return_access_flags(h, &acc, DAZUKOFS_REMEMBER), 0);
	assert_int_equal(fcntl(efd, F_GETFD), -1);
	assert_answers(dev, "id=9 r=1 remember\n");

	/* dazukofs_get_access() reads format 2 too */
	efd = event_file(f, path, sizeof(path));
	put_record2(dev, 10, efd, 1, "uid=0 euid=0 fsuid=0 type=close_write "
		    "access=- dev=0:0 ino=0 size=0 change=0");
	assert_int_equal(dazukofs_get_access(h, &acc), 0);
	assert_int_equal(acc.id, 10);
	assert_int_equal(acc.fd, efd);
	assert_int_equal(dazukofs_return_access(h, &acc), 0);
	assert_answers(dev, "id=10 r=0\n");
	assert_int_equal(dazukofs_close(h), 0);
	close(dev);
}

/* Format 3: format 2 and the opener's cgroup. */
static void test_info_v3(void **state)
{
	struct fake *f = *state;
	struct dazukofs_access_info info;
	struct dazukofs_access acc;
	char path[512];
	dazukofs_handle_t h;
	int dev, efd;

	h = open_fake(f, "v3", 3, 0, &dev);
	efd = event_file(f, path, sizeof(path));
	put_record2(dev, 9, efd, 4321, REST2 " cgroup=18446744073709551615");
	assert_int_equal(dazukofs_get_access_info(h, &acc, &info), 0);
	assert_int_equal(acc.id, 9);
	assert_int_equal(acc.fd, efd);
	assert_int_equal(info.format, DAZUKOFS_RECORD_V3);
	assert_true(info.cgroup == UINT64_MAX);
	assert_true(info.change == 77);
	assert_int_equal(dazukofs_return_access(h, &acc), 0);
	assert_answers(dev, "id=9 r=0\n");
	/* the same handle then reads a format-2 record: no cgroup */
	efd = event_file(f, path, sizeof(path));
	put_record2(dev, 10, efd, 1, REST2);
	assert_int_equal(dazukofs_get_access_info(h, &acc, &info), 0);
	assert_int_equal(info.format, DAZUKOFS_RECORD_V2);
	assert_true(info.cgroup == 0);
	assert_int_equal(dazukofs_return_access(h, &acc), 0);
	assert_answers(dev, "id=10 r=0\n");
	assert_int_equal(dazukofs_close(h), 0);
	close(dev);
}

static void test_exclude_cgroups(void **state)
{
	struct fake *f = *state;
	uint64_t ids[DAZUKOFS_EXCLUDE_CGROUPS_MAX + 1] = { 5, UINT64_MAX };
	uint64_t got[2];

	assert_int_equal(dazukofs_group_create("g", NULL), 0);
	/* an older module: no attribute */
	assert_int_equal(dazukofs_group_set_exclude_cgroups("g", ids, 1), -1);
	assert_int_equal(errno, EOPNOTSUPP);
	fake_write(f->configfs, "g/exclude_cgroups", "");
	assert_int_equal(dazukofs_group_set_exclude_cgroups("g", ids, 2), 0);
	assert_string_equal(fake_read(f->configfs, "g/exclude_cgroups"),
			    "5\n18446744073709551615\n");
	assert_int_equal(dazukofs_group_get_exclude_cgroups("g", got, 2), 2);
	assert_true(got[0] == 5 && got[1] == UINT64_MAX);
	/* more than max: counted, not stored */
	assert_int_equal(dazukofs_group_get_exclude_cgroups("g", got, 1), 2);
	assert_int_equal(dazukofs_group_get_exclude_cgroups("g", NULL, 0), 2);
	/* none: a newline, as "echo > exclude_cgroups" */
	assert_int_equal(dazukofs_group_set_exclude_cgroups("g", NULL, 0), 0);
	assert_string_equal(fake_read(f->configfs, "g/exclude_cgroups"), "\n");
	assert_int_equal(dazukofs_group_get_exclude_cgroups("g", got, 2), 0);
	assert_int_equal(dazukofs_group_set_exclude_cgroups("g", ids,
							    DAZUKOFS_EXCLUDE_CGROUPS_MAX + 1), -1);
	assert_int_equal(errno, E2BIG);
	assert_int_equal(dazukofs_group_set_exclude_cgroups("g", NULL, 1), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(dazukofs_group_set_exclude_cgroups("a b", ids, 1), -1);
	assert_int_equal(errno, EINVAL);
	/* what the module shows is checked */
	fake_write(f->configfs, "g/exclude_cgroups", "5\nx\n");
	assert_int_equal(dazukofs_group_get_exclude_cgroups("g", got, 2), -1);
	assert_int_equal(errno, EIO);
}

/* The real cgroup2 filesystem of the host: its root is "/". */
static void test_cgroup_id_path(void **state)
{
	char mnt[4096] = "", path[4096];
	struct mntent *m;
	struct stat st;
	uint64_t id;
	FILE *mounts = setmntent("/proc/self/mounts", "r");

	(void)state;
	assert_non_null(mounts);
	while ((m = getmntent(mounts)))
		if (!strcmp(m->mnt_type, "cgroup2") && !mnt[0])
			snprintf(mnt, sizeof(mnt), "%s", m->mnt_dir);
	endmntent(mounts);
	if (!mnt[0])
		skip();	/* the VM suites test it on a cgroup2 system */
	assert_int_equal(stat(mnt, &st), 0);
	assert_int_equal(dazukofs_cgroup_id("/", &id), 0);
	assert_true(id == (uint64_t)st.st_ino);
	assert_int_equal(dazukofs_cgroup_id(mnt, &id), 0);
	assert_true(id == (uint64_t)st.st_ino);
	assert_int_equal(dazukofs_cgroup_path(id, path, sizeof(path)), 1);
	assert_string_equal(path, "/");
	assert_int_equal(dazukofs_cgroup_path(id, path, 1), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(dazukofs_cgroup_id("/no such cgroup", &id), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(dazukofs_cgroup_id("relative", &id), -1);
	assert_int_equal(errno, EINVAL);
	/* a file of the cgroup2 filesystem is no cgroup */
	assert_int_equal(dazukofs_cgroup_id("/cgroup.procs", &id), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(dazukofs_cgroup_path(UINT64_MAX, path, sizeof(path)), -1);
	assert_int_equal(errno, ENOENT);
}

static void test_fd_error(void **state)
{
	struct fake *f = *state;
	struct dazukofs_access_info info;
	struct dazukofs_access acc;
	dazukofs_handle_t h;
	int dev, before;

	h = open_fake(f, "fe", 2, DAZUKOFS_NONBLOCK, &dev);
	before = open_fds();
	put_record2(dev, 11, -13, 77, REST2);
	assert_int_equal(dazukofs_get_access_info(h, &acc, &info), 0);
	assert_int_equal(acc.id, 11);
	assert_int_equal(acc.fd, -1);
	assert_int_equal(acc.pid, 77);
	assert_int_equal(info.fd_error, EACCES);
	assert_int_equal(info.format, DAZUKOFS_RECORD_V2);
	assert_true(info.dev == makedev(8, 17) && info.ino == 123456789012ULL);
	assert_int_equal(open_fds(), before);

	/* dazukofs_get_access() skips it and reads on: nothing more here */
	put_record2(dev, 12, -2, 78, REST2);
	assert_int_equal(dazukofs_get_access(h, &acc), -1);
	assert_int_equal(errno, EAGAIN);
	assert_int_equal(dazukofs_get_access(h, &acc), -1);
	assert_int_equal(errno, EAGAIN);	/* it was taken */

	/* an fd error and an event in one read: the event */
	{
		char path[512], two[2 * DAZUKOFS_RECORD_MAX];
		int efd = event_file(f, path, sizeof(path));

		snprintf(two, sizeof(two), "id=13 fd=-2 pid=1 " REST2
			 "\nid=14 fd=%d pid=2 " REST2 "\n", efd);
		put_record(dev, two);
		assert_int_equal(dazukofs_get_access(h, &acc), 0);
		assert_int_equal(acc.id, 14);
		assert_int_equal(acc.fd, efd);
		assert_int_equal(dazukofs_return_access(h, &acc), 0);
		assert_answers(dev, "id=14 r=0\n");
	}
	assert_int_equal(open_fds(), before);
	assert_int_equal(dazukofs_close(h), 0);
	close(dev);
}

struct late_record {
	int dev;
	int fd;
};

static void *put_late(void *arg)
{
	struct late_record *late = arg;

	usleep(100 * 1000);
	put_record2(late->dev, 21, late->fd, 3, REST2);
	return NULL;
}

/* A blocking dazukofs_get_access() waits on past an fd-error record. */
static void test_fd_error_reads_on(void **state)
{
	struct fake *f = *state;
	struct late_record late;
	struct dazukofs_access acc;
	char path[512];
	dazukofs_handle_t h;
	pthread_t t;

	h = open_fake(f, "fw", 2, 0, &late.dev);
	late.fd = event_file(f, path, sizeof(path));
	put_record2(late.dev, 20, -5, 3, REST2);
	assert_int_equal(pthread_create(&t, NULL, put_late, &late), 0);
	assert_int_equal(dazukofs_get_access(h, &acc), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(acc.id, 21);
	assert_int_equal(acc.fd, late.fd);
	assert_int_equal(dazukofs_return_access(h, &acc), 0);
	assert_int_equal(dazukofs_close(h), 0);
	close(late.dev);
}

static void test_batch_v2(void **state)
{
	struct fake *f = *state;
	struct dazukofs_access_info infos[8];
	struct dazukofs_access accs[8];
	char path[512], text[4 * DAZUKOFS_RECORD_MAX];
	dazukofs_handle_t h;
	int dev, efd[3], before;

	h = open_fake(f, "b2", 6, DAZUKOFS_NONBLOCK, &dev);
	before = open_fds();
	for (int i = 0; i < 3; i++)
		efd[i] = event_file(f, path, sizeof(path));
	snprintf(text, sizeof(text),
		 "id=1 fd=%d pid=10 " REST2 "\n"
		 "id=2 fd=-2 pid=20 " REST2 "\n"
		 "id=3 fd=%d pid=30 uid=5 euid=6 fsuid=7 type=exec access=r "
		 "dev=0:42 ino=1 size=0 change=0\n", efd[0], efd[1]);
	put_record(dev, text);
	assert_int_equal(dazukofs_get_accesses(h, accs, infos, 8), 3);
	assert_int_equal(accs[0].id, 1);
	assert_int_equal(accs[0].fd, efd[0]);
	assert_int_equal(accs[1].id, 2);
	assert_int_equal(accs[1].fd, -1);
	assert_int_equal(infos[1].fd_error, ENOENT);
	assert_int_equal(accs[2].id, 3);
	assert_int_equal(accs[2].fd, efd[1]);
	assert_int_equal(infos[2].type, DAZUKOFS_EVENT_EXEC);
	assert_int_equal(infos[2].access, DAZUKOFS_ACCESS_READ);
	assert_true(infos[2].uid == 5 && infos[2].euid == 6 && infos[2].fsuid == 7);
	assert_true(infos[2].dev == makedev(0, 42));

	/* one write, the fd-error event left out, every fd closed */
	fake_device_answers(dazukofs_get_fd(h), 0, 0);
	accs[2].deny = DAZUKOFS_DENY;
	assert_int_equal(dazukofs_return_accesses(h, accs, 3, 0), 0);
	assert_int_equal(fake_device_writes(), 1);
	assert_answers(dev, "id=1 r=0\nid=3 r=1\n");
	assert_int_equal(accs[0].fd, -1);
	assert_int_equal(accs[2].fd, -1);
	assert_int_equal(open_fds(), before + 1);	/* efd[2] */

	/* without infos the fd error is left out */
	snprintf(text, sizeof(text),
		 "id=4 fd=-2 pid=10 " REST2 "\n"
		 "id=5 fd=%d pid=20 " REST2 "\n", efd[2]);
	put_record(dev, text);
	assert_int_equal(dazukofs_get_accesses(h, accs, NULL, 8), 1);
	assert_int_equal(accs[0].id, 5);
	assert_int_equal(dazukofs_return_accesses(h, accs, 1, DAZUKOFS_REMEMBER), 0);
	assert_answers(dev, "id=5 r=0 remember\n");
	assert_int_equal(open_fds(), before);

	/* only fd errors, no infos: reads on (EAGAIN here) */
	put_record2(dev, 6, -2, 1, REST2);
	assert_int_equal(dazukofs_get_accesses(h, accs, NULL, 8), -1);
	assert_int_equal(errno, EAGAIN);
	assert_int_equal(dazukofs_get_accesses(h, accs, NULL, 0), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(dazukofs_return_accesses(h, NULL, 0, 0), 0);
	assert_int_equal(dazukofs_return_accesses(h, accs, 1, 2), -1);
	assert_int_equal(errno, EINVAL);
	fake_device_answers(-1, 0, 0);
	assert_int_equal(dazukofs_close(h), 0);
	close(dev);
}

static void test_batch_v1(void **state)
{
	struct fake *f = *state;
	struct dazukofs_access_info infos[4];
	struct dazukofs_access accs[4];
	char path[512], rec[64];
	dazukofs_handle_t h;
	int dev, before;

	h = open_fake(f, "b1", 7, 0, &dev);
	before = open_fds();
	for (int i = 0; i < 2; i++) {
		int efd = event_file(f, path, sizeof(path));

		snprintf(rec, sizeof(rec), "id=%d\nfd=%d\npid=1\n", 40 + i, efd);
		put_record(dev, rec);
		/* one event per read in format 1 */
		assert_int_equal(dazukofs_get_accesses(h, accs + i, infos + i, 2), 1);
		assert_int_equal(accs[i].id, 40 + i);
		assert_int_equal(accs[i].fd, efd);
		assert_int_equal(infos[i].format, DAZUKOFS_RECORD_V1);
	}
	fake_device_answers(dazukofs_get_fd(h), 0, 0);
	accs[1].deny = DAZUKOFS_DENY;
	assert_int_equal(dazukofs_return_accesses(h, accs, 2, 0), 0);
	/* one answer per write */
	assert_int_equal(fake_device_writes(), 2);
	assert_answers(dev, "id=40 r=0\nid=41 r=1\n");
	assert_int_equal(open_fds(), before);
	/* a refused answer does not stop the next */
	for (int i = 0; i < 2; i++) {
		int efd = event_file(f, path, sizeof(path));

		snprintf(rec, sizeof(rec), "id=%d\nfd=%d\npid=1\n", 50 + i, efd);
		put_record(dev, rec);
		assert_int_equal(dazukofs_get_accesses(h, accs + i, NULL, 4), 1);
	}
	fake_device_answers(dazukofs_get_fd(h), 50, ENOENT);
	assert_int_equal(dazukofs_return_accesses(h, accs, 2, 0), -1);
	assert_int_equal(errno, ENOENT);
	assert_msg("cannot answer event 50 of group 'b1'");
	assert_answers(dev, "id=51 r=0\n");
	assert_int_equal(open_fds(), before);
	fake_device_answers(-1, 0, 0);
	assert_int_equal(dazukofs_close(h), 0);
	close(dev);
}

/* Three format-2 events read in one batch; their fds in efd. */
static void read_three(struct fake *f, dazukofs_handle_t h, int dev,
		       struct dazukofs_access *accs, int *efd)
{
	char path[512], text[4 * DAZUKOFS_RECORD_MAX];

	for (int i = 0; i < 3; i++)
		efd[i] = event_file(f, path, sizeof(path));
	snprintf(text, sizeof(text),
		 "id=1 fd=%d pid=1 " REST2 "\nid=2 fd=%d pid=1 " REST2
		 "\nid=3 fd=%d pid=1 " REST2 "\n", efd[0], efd[1], efd[2]);
	put_record(dev, text);
	assert_int_equal(dazukofs_get_accesses(h, accs, NULL, 3), 3);
}

/* The kernel takes the answers before a failing one; the rest go on. */
static void test_short_writes(void **state)
{
	struct fake *f = *state;
	struct dazukofs_access accs[3];
	dazukofs_handle_t h;
	int dev, efd[3], before;

	h = open_fake(f, "sw", 8, 0, &dev);
	before = open_fds();

	/* the middle one fails: two writes */
	read_three(f, h, dev, accs, efd);
	fake_device_answers(dazukofs_get_fd(h), 2, ENOENT);
	assert_int_equal(dazukofs_return_accesses(h, accs, 3, 0), -1);
	assert_int_equal(errno, ENOENT);
	assert_msg("cannot answer event 2 of group 'sw' (allow): write ");
	/* 1-3 taken short, 2-3 fails, 2 alone fails, 3 */
	assert_int_equal(fake_device_writes(), 4);
	assert_answers(dev, "id=1 r=0\nid=3 r=0\n");
	for (int i = 0; i < 3; i++) {
		assert_int_equal(accs[i].fd, -1);
		assert_int_equal(fcntl(efd[i], F_GETFD), -1);
	}
	assert_int_equal(open_fds(), before);

	/* the first one fails */
	read_three(f, h, dev, accs, efd);
	fake_device_answers(dazukofs_get_fd(h), 1, EINVAL);
	accs[1].deny = DAZUKOFS_DENY;
	assert_int_equal(dazukofs_return_accesses(h, accs, 3, 0), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(fake_device_writes(), 3);	/* 1-3, 1 alone, 2-3 */
	assert_answers(dev, "id=2 r=1\nid=3 r=0\n");

	/* the last one fails */
	read_three(f, h, dev, accs, efd);
	fake_device_answers(dazukofs_get_fd(h), 3, ETIMEDOUT);
	assert_int_equal(dazukofs_return_accesses(h, accs, 3, 0), -1);
	assert_int_equal(errno, ETIMEDOUT);
	assert_answers(dev, "id=1 r=0\nid=2 r=0\n");

	/* the group went back to format 1: one answer per write */
	read_three(f, h, dev, accs, efd);
	fake_device_answers(dazukofs_get_fd(h), 99, ENOENT);
	fake_device_one_per_write(1);
	assert_int_equal(dazukofs_return_accesses(h, accs, 3, 0), 0);
	fake_device_one_per_write(0);
	assert_answers(dev, "id=1 r=0\nid=2 r=0\nid=3 r=0\n");
	assert_int_equal(open_fds(), before);

	/* none fails */
	read_three(f, h, dev, accs, efd);
	fake_device_answers(dazukofs_get_fd(h), 99, ENOENT);
	assert_int_equal(dazukofs_return_accesses(h, accs, 3, 0), 0);
	assert_int_equal(fake_device_writes(), 1);
	assert_answers(dev, "id=1 r=0\nid=2 r=0\nid=3 r=0\n");
	assert_int_equal(open_fds(), before);
	fake_device_answers(-1, 0, 0);
	assert_int_equal(dazukofs_close(h), 0);
	close(dev);
}

/*
 * A malformed format-2 record: its fd closed only if it names it for
 * sure; in a batch the good ones still come back.
 */
static void test_malformed_v2(void **state)
{
	static const char *const closed[] = {
		"id=1 fd=%d pid=x " REST2 "\n",		/* a bad field after fd */
		"id=1 fd=%d pid=1 " REST2 " more\n",	/* trailing bytes */
		"id=1 fd=%d ",				/* cut short */
		"id=1 fd=%d pid=1 " REST2,		/* no newline */
	};
	static const char *const kept[] = {
		"id=x fd=%d pid=1 " REST2 "\n",		/* id not a number */
		"fd=%d pid=1 " REST2 "\n",
		"id=1 fd=%d9x pid=1 " REST2 "\n",	/* not the fd's number */
		"id=1 fd=%dx pid=1 " REST2 "\n",
		"id=1 fd=%d\tpid=1 " REST2 "\n",
		"id=1 fd=%d\npid=1\n",			/* neither format */
		"id=1 fd=%d",				/* fd may go on */
		"id=1  fd=%d pid=x\n",
		"id=1\tfd=%d pid=x\n",
	};
	struct fake *f = *state;
	struct dazukofs_access_info infos[4];
	struct dazukofs_access accs[4];
	char path[512], rec[4 * DAZUKOFS_RECORD_MAX];
	dazukofs_handle_t h;
	int dev, efd, efd2, before;

	h = open_fake(f, "m2", 4, DAZUKOFS_NONBLOCK, &dev);
	before = open_fds();
	for (size_t i = 0; i < sizeof(closed) / sizeof(closed[0]); i++) {
		efd = event_file(f, path, sizeof(path));
		snprintf(rec, sizeof(rec), closed[i], efd);
		put_record(dev, rec);
		assert_int_equal(dazukofs_get_access_info(h, accs, infos), -1);
		assert_int_equal(errno, EPROTO);
		assert_msg("cannot get an event of group 'm2': malformed record from ");
		if (fcntl(efd, F_GETFD) != -1)
			fail_msg("record %zu: fd %d left open", i, efd);
		assert_int_equal(open_fds(), before);
	}
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		efd = event_file(f, path, sizeof(path));
		snprintf(rec, sizeof(rec), kept[i], efd);
		put_record(dev, rec);
		assert_int_equal(dazukofs_get_access_info(h, accs, infos), -1);
		assert_int_equal(errno, EPROTO);
		if (fcntl(efd, F_GETFD) == -1)
			fail_msg("record %zu: fd %d closed on a guess", i, efd);
		close(efd);
	}
	/* a negative fd in a malformed record is no fd */
	put_record(dev, "id=1 fd=-3 pid=x\n");
	assert_int_equal(dazukofs_get_access(h, accs), -1);
	assert_int_equal(errno, EPROTO);
	/* never the handle's own device fd */
	snprintf(rec, sizeof(rec), "id=1 fd=%d pid=x\n", dazukofs_get_fd(h));
	put_record(dev, rec);
	assert_int_equal(dazukofs_get_access(h, accs), -1);
	assert_true(fcntl(dazukofs_get_fd(h), F_GETFD) != -1);
	assert_int_equal(open_fds(), before);

	/* a batch: good, bad (fd certain), bad (fd not certain), good */
	efd = event_file(f, path, sizeof(path));
	efd2 = event_file(f, path, sizeof(path));
	{
		int bad1 = event_file(f, path, sizeof(path));
		int bad2 = event_file(f, path, sizeof(path));

		snprintf(rec, sizeof(rec),
			 "id=1 fd=%d pid=1 " REST2 "\n"
			 "id=2 fd=%d pid=1 type=open\n"
			 "id=x fd=%d pid=1 " REST2 "\n"
			 "id=4 fd=%d pid=1 " REST2 "\n", efd, bad1, bad2, efd2);
		put_record(dev, rec);
		assert_int_equal(dazukofs_get_accesses(h, accs, infos, 4), 2);
		assert_int_equal(errno, EPROTO);
		assert_msg("cannot get 2 event(s) of group 'm2': malformed records from ");
		assert_int_equal(accs[0].id, 1);
		assert_int_equal(accs[0].fd, efd);
		assert_int_equal(accs[1].id, 4);
		assert_int_equal(accs[1].fd, efd2);
		assert_int_equal(fcntl(bad1, F_GETFD), -1);
		assert_true(fcntl(bad2, F_GETFD) != -1);
		close(bad2);
		assert_int_equal(dazukofs_return_accesses(h, accs, 2, 0), 0);
		assert_answers(dev, "id=1 r=0\nid=4 r=0\n");
	}
	/* a malformed first line: the good one after it is still format 2 */
	efd = event_file(f, path, sizeof(path));
	snprintf(rec, sizeof(rec), "garbage\nid=5 fd=%d pid=1 " REST2 "\n", efd);
	put_record(dev, rec);
	assert_int_equal(dazukofs_get_accesses(h, accs, infos, 4), 1);
	assert_int_equal(accs[0].id, 5);
	assert_int_equal(accs[0].fd, efd);
	assert_int_equal(dazukofs_return_accesses(h, accs, 1, 0), 0);
	assert_answers(dev, "id=5 r=0\n");
	/* only bad lines */
	put_record(dev, "bad\nworse\n");
	assert_int_equal(dazukofs_get_accesses(h, accs, infos, 4), -1);
	assert_int_equal(errno, EPROTO);
	/* more records than asked for: the extra one's fd is closed */
	efd = event_file(f, path, sizeof(path));
	efd2 = event_file(f, path, sizeof(path));
	snprintf(rec, sizeof(rec), "id=6 fd=%d pid=1 " REST2 "\nid=7 fd=%d pid=1 "
		 REST2 "\n", efd, efd2);
	put_record(dev, rec);
	assert_int_equal(dazukofs_get_access_info(h, accs, infos), 0);
	assert_int_equal(accs[0].id, 6);
	assert_int_equal(fcntl(efd2, F_GETFD), -1);
	assert_int_equal(dazukofs_return_access(h, accs), 0);
	assert_answers(dev, "id=6 r=0\n");
	assert_int_equal(open_fds(), before);
	assert_int_equal(dazukofs_close(h), 0);
	close(dev);
}

static void test_worker_nonblock(void **state)
{
	struct fake *f = *state;
	struct dazukofs_access acc;
	char path[512], rec[64];
	struct pollfd pfd;
	dazukofs_handle_t h;
	int dev, efd;

	fake_group(f, "nb", 5, 0, 0, "allow", 0);
	dev = fake_device(f, 5);
	h = dazukofs_open("nb", DAZUKOFS_NONBLOCK);
	assert_non_null(h);
	assert_int_equal(dazukofs_get_access(h, &acc), -1);
	assert_int_equal(errno, EAGAIN);
	assert_msg("no event waiting for group 'nb'");
	pfd.fd = dazukofs_get_fd(h);
	pfd.events = POLLIN;
	assert_int_equal(poll(&pfd, 1, 0), 0);

	efd = event_file(f, path, sizeof(path));
	snprintf(rec, sizeof(rec), "id=2\nfd=%d\npid=9\n", efd);
	put_record(dev, rec);
	assert_int_equal(poll(&pfd, 1, 1000), 1);
	assert_true(pfd.revents & POLLIN);
	assert_int_equal(dazukofs_get_access(h, &acc), 0);
	assert_int_equal(acc.id, 2);
	assert_int_equal(dazukofs_return_access(h, &acc), 0);
	assert_int_equal(dazukofs_close(h), 0);
	close(dev);
}

static void test_open_errors(void **state)
{
	struct fake *f = *state;
	char want[600];

	assert_null(dazukofs_open("none", 0));
	assert_int_equal(errno, ENOENT);
	assert_msg("cannot open group 'none': no such group");
	fake_group(f, "nodev", 9, 0, 0, "allow", 0);
	assert_null(dazukofs_open("nodev", 0));
	assert_int_equal(errno, ENOENT);
	snprintf(want, sizeof(want),
		 "cannot open group 'nodev': open %s9: No such file or directory",
		 f->dev_prefix);
	assert_string_equal(dazukofs_strerror(), want);
	assert_null(dazukofs_open("nodev", 4));
	assert_int_equal(errno, EINVAL);
	assert_null(dazukofs_open("bad name", 0));
	assert_int_equal(errno, EINVAL);
	assert_int_equal(dazukofs_close(NULL), 0);
	assert_int_equal(dazukofs_get_fd(NULL), -1);
}

static void test_ignore(void **state)
{
	struct fake *f = *state;

	assert_int_equal(dazukofs_ignore_on(), -1);
	assert_int_equal(errno, ENOENT);
	assert_msg("cannot turn ignore on: open ");
	fake_write(f->root, "dev/dazukofs.ign", "");
	assert_int_equal(dazukofs_ignore_on(), 0);
	assert_int_equal(dazukofs_ignore_on(), 0);	/* already on */
	assert_int_equal(dazukofs_ignore_off(), 0);
	assert_int_equal(dazukofs_ignore_off(), 0);	/* already off */
}

static void *fail_in_thread(void *arg)
{
	(void)arg;
	if (dazukofs_group_info("other_thread", &(struct dazukofs_group_info){ 0 }) != -1)
		return (void *)1;
	return strstr(dazukofs_strerror(), "other_thread") ? NULL : (void *)1;
}

static void test_strerror_per_thread(void **state)
{
	pthread_t t;
	void *ret;

	(void)state;
	assert_int_equal(dazukofs_group_delete("main_thread"), -1);
	assert_int_equal(pthread_create(&t, NULL, fail_in_thread, NULL), 0);
	assert_int_equal(pthread_join(t, &ret), 0);
	assert_null(ret);
	assert_msg("main_thread");
}

static void test_paths_too_long(void **state)
{
	static char longp[5000];
	struct dazukofs_paths p = { 0 };

	(void)state;
	memset(longp, 'a', sizeof(longp) - 1);
	longp[0] = '/';
	p.configfs = longp;
	dazukofs_set_paths(&p);
	assert_int_equal(dazukofs_group_create("x", NULL), -1);
	/* the cut path does not exist, or is too long */
	assert_true(errno == ENAMETOOLONG || errno == ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_create),
		T(test_create_exists),
		T(test_create_bad),
		T(test_create_root_missing),
		T(test_set_grace),
		T(test_set_busy_poll),
		T(test_set_events),
		T(test_flush),
		T(test_getters_and_attrs),
		T(test_shared_rules),
		T(test_parse_uint),
		T(test_fd_path),
		T(test_config_default),
		T(test_cache_stats),
		T(test_info_list),
		T(test_info_errors),
		T(test_delete),
		T(test_stats),
		T(test_worker),
		T(test_worker_malformed),
		T(test_worker_malformed_fd),
		T(test_worker_nonblock),
		T(test_set_record),
		T(test_info_v1),
		T(test_info_v2),
		T(test_info_v3),
		T(test_exclude_cgroups),
		cmocka_unit_test(test_cgroup_id_path),
		T(test_fd_error),
		T(test_fd_error_reads_on),
		T(test_batch_v2),
		T(test_batch_v1),
		T(test_short_writes),
		T(test_malformed_v2),
		T(test_open_errors),
		T(test_ignore),
		T(test_strerror_per_thread),
		T(test_paths_too_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
