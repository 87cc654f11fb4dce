// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the quarantine's store (quarantine.c). */
#include <fcntl.h>
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

#include "actions/quarantine.h"

struct fixture {
	char top[64];
	char qdir[128];
	int qfd;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char err[256];

	snprintf(f->top, sizeof(f->top), "/tmp/dzq-test.XXXXXX");
	if (!mkdtemp(f->top))
		return -1;
	snprintf(f->qdir, sizeof(f->qdir), "%s/q", f->top);
	f->qfd = quarantine_open_dir(f->qdir, 1, err, sizeof(err));
	if (f->qfd < 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	close(f->qfd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->top);
	if (system(cmd))
		return -1;
	free(f);
	return 0;
}

static const struct quarantine_limits no_limits;

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

/*
 * The path the scanner has is not proof: when it names another file now
 * (renamed over, another namespace's view), move keeps that file and
 * still quarantines the detected one.
 */
static void test_move_keeps_another_file(void **state)
{
	struct fixture *f = *state;
	char detected[PATH_MAX], other[PATH_MAX], id[QUARANTINE_ID_MAX], err[256];
	struct quarantine_entry e;
	int fd, removed = -1;

	snprintf(detected, sizeof(detected), "%s/detected", f->top);
	snprintf(other, sizeof(other), "%s/other", f->top);
	write_file(detected, "bad");
	write_file(other, "innocent");
	fd = open(detected, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(quarantine_file(f->qfd, &no_limits, QUARANTINE_MOVE, fd, other, "Sig", 1,
					 id, &removed, err, sizeof(err)), 0);
	assert_int_equal(removed, 0);
	assert_non_null(strstr(err, "names another file"));
	assert_int_equal(access(other, F_OK), 0);
	assert_int_equal(access(detected, F_OK), 0);
	assert_int_equal(quarantine_load(f->qfd, id, &e, err, sizeof(err)), 0);
	assert_int_equal(e.size, 3);
	quarantine_entry_free(&e);

	/* the path that is the file's: removed */
	assert_int_equal(quarantine_file(f->qfd, &no_limits, QUARANTINE_MOVE, fd, detected, "Sig", 1,
					 id, &removed, err, sizeof(err)), 0);
	assert_int_equal(removed, 1);
	assert_int_equal(access(detected, F_OK), -1);
	close(fd);
}

/* Paths are bytes: newlines, quotes, non-UTF-8 come back unchanged. */
static void test_odd_path_round_trip(void **state)
{
	struct fixture *f = *state;
	char path[PATH_MAX], id[QUARANTINE_ID_MAX], err[256], **ids;
	struct quarantine_entry e;
	int fd, removed;
	size_t n;

	snprintf(path, sizeof(path), "%s/a\nb\"c\\\xff\xfe d", f->top);
	write_file(path, "x");
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(quarantine_file(f->qfd, &no_limits, QUARANTINE_COPY, fd, path, "S\"ig", 7,
					 id, &removed, err, sizeof(err)), 0);
	close(fd);
	assert_int_equal(quarantine_load(f->qfd, id, &e, err, sizeof(err)), 0);
	assert_string_equal(e.path, path);
	assert_string_equal(e.signature, "S\"ig");
	assert_int_equal(e.pid, 7);
	assert_int_equal(e.action, QUARANTINE_COPY);
	quarantine_entry_free(&e);
	assert_int_equal(quarantine_list(f->qfd, &ids, &n, err, sizeof(err)), 0);
	assert_true(n >= 1);
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
}

/* Copy path into the quarantine under lim; the outcome, err set. */
static enum quarantine_outcome copy_under(struct fixture *f, const struct quarantine_limits *lim,
					  const char *path, char *err, size_t errlen)
{
	char id[QUARANTINE_ID_MAX];
	int fd = open(path, O_RDONLY), removed;
	enum quarantine_outcome o;

	assert_true(fd >= 0);
	o = quarantine_file(f->qfd, lim, QUARANTINE_COPY, fd, path, "Sig", 1, id, &removed,
			    err, errlen);
	close(fd);
	return o;
}

/*
 * A flood of detections fills neither the quarantine nor its filesystem:
 * past a limit no copy is made, and each limit says so by name.  Entries
 * are counted anew each time (an admin may have deleted some).
 */
static void test_limits(void **state)
{
	struct fixture *f = *state;
	struct quarantine_limits lim = { .max_files = 2 };
	char path[PATH_MAX], err[256], **ids;
	size_t n;

	snprintf(path, sizeof(path), "%s/detected", f->top);
	write_file(path, "0123456789");
	assert_int_equal(copy_under(f, &lim, path, err, sizeof(err)), QUARANTINE_DONE);
	assert_int_equal(copy_under(f, &lim, path, err, sizeof(err)), QUARANTINE_DONE);
	assert_int_equal(copy_under(f, &lim, path, err, sizeof(err)), QUARANTINE_NO_ROOM);
	assert_non_null(strstr(err, "quarantine_max_files"));
	assert_int_equal(quarantine_list(f->qfd, &ids, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 2);
	/* one deleted: room again */
	assert_int_equal(quarantine_delete(f->qfd, ids[0], err, sizeof(err)), 0);
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	assert_int_equal(copy_under(f, &lim, path, err, sizeof(err)), QUARANTINE_DONE);

	/* two entries of 10 bytes and their metadata hold more than 30 bytes */
	lim = (struct quarantine_limits){ .max_size = 30 };
	assert_int_equal(copy_under(f, &lim, path, err, sizeof(err)), QUARANTINE_NO_ROOM);
	assert_non_null(strstr(err, "quarantine_max_size"));
	lim.max_size = 1 << 20;
	assert_int_equal(copy_under(f, &lim, path, err, sizeof(err)), QUARANTINE_DONE);

	/* no filesystem here has an exabyte free */
	lim = (struct quarantine_limits){ .min_free = 1ULL << 60 };
	assert_int_equal(copy_under(f, &lim, path, err, sizeof(err)), QUARANTINE_NO_ROOM);
	assert_non_null(strstr(err, "quarantine_min_free"));
	lim.min_free = 1;
	assert_int_equal(copy_under(f, &lim, path, err, sizeof(err)), QUARANTINE_DONE);
}

static void test_ids(void **state)
{
	(void)state;
	assert_true(quarantine_id_valid("20261205T051200Z-0123abcd"));
	assert_false(quarantine_id_valid(""));
	assert_false(quarantine_id_valid(".."));
	assert_false(quarantine_id_valid("../x"));
	assert_false(quarantine_id_valid("a/b"));
	assert_false(quarantine_id_valid("a.json"));
	assert_false(quarantine_id_valid("0123456789012345678901234567890123"));
	/* only what the scanner makes: short ids once read out of bounds */
	assert_false(quarantine_id_valid("abc"));
	assert_false(quarantine_id_valid("20261205T051200Z-0123ABCD"));
	assert_false(quarantine_id_valid("20261205T051200Z-0123abc"));
	assert_false(quarantine_id_valid("20261205x051200Z-0123abcd"));
	assert_int_equal(quarantine_mode_parse("move"), QUARANTINE_MOVE);
	assert_int_equal(quarantine_mode_parse("copy"), QUARANTINE_COPY);
	assert_int_equal(quarantine_mode_parse("no"), QUARANTINE_NO);
	assert_int_equal(quarantine_mode_parse("yes"), -1);
}

/* A quarantine others can enter would hand them the malware. */
static void test_dir_refused(void **state)
{
	struct fixture *f = *state;
	char dir[PATH_MAX], err[512];

	snprintf(dir, sizeof(dir), "%s/open", f->top);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(quarantine_open_dir(dir, 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "mode 0755"));
	assert_int_equal(quarantine_open_dir("relative", 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not an absolute path"));
}

/*
 * The owner of a quarantined file's directory turns it into a symlink to
 * a place of root's: the restore (by root) must not follow it there.
 */
static void test_restore_no_symlink(void **state)
{
	struct fixture *f = *state;
	char d[256], path[PATH_MAX], victim[256], moved[256];
	char id[QUARANTINE_ID_MAX], err[512];
	struct quarantine_entry e;
	int fd, removed;

	snprintf(d, sizeof(d), "%s/d", f->top);
	snprintf(victim, sizeof(victim), "%s/victim", f->top);
	snprintf(moved, sizeof(moved), "%s/d.away", f->top);
	assert_int_equal(mkdir(d, 0755), 0);
	assert_int_equal(mkdir(victim, 0755), 0);
	snprintf(path, sizeof(path), "%s/x.sh", d);
	write_file(path, "payload");
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(quarantine_file(f->qfd, &no_limits, QUARANTINE_MOVE, fd, path, "Sig", 1,
					 id, &removed, err, sizeof(err)), 0);
	close(fd);
	assert_int_equal(removed, 1);
	assert_int_equal(rename(d, moved), 0);
	assert_int_equal(symlink(victim, d), 0);
	assert_int_equal(quarantine_load(f->qfd, id, &e, err, sizeof(err)), 0);
	assert_int_equal(quarantine_restore(f->qfd, &e, NULL, 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "symlink in the original path"));
	snprintf(path, sizeof(path), "%s/x.sh", victim);
	assert_int_equal(access(path, F_OK), -1);
	/* the directory back: restored, and not over an existing file */
	assert_int_equal(unlink(d), 0);
	assert_int_equal(rename(moved, d), 0);
	assert_int_equal(quarantine_restore(f->qfd, &e, NULL, 0, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/x.sh", d);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(quarantine_restore(f->qfd, &e, NULL, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--force replaces it"));
	quarantine_entry_free(&e);
}

/* Malformed metadata is an error, not a crash or a half entry. */
static void test_malformed_metadata(void **state)
{
	struct fixture *f = *state;
	const char *bad[] = { "", "{", "[]", "{\"path\": 1}", "{\"path\": \"/x\"}" };
	char path[PATH_MAX], err[256];
	struct quarantine_entry e;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(path, sizeof(path), "%s/20200101T000000Z-0000000%zu.json", f->qdir, i);
		write_file(path, bad[i]);
		snprintf(path, sizeof(path), "20200101T000000Z-0000000%zu", i);
		assert_int_equal(quarantine_load(f->qfd, path, &e, err, sizeof(err)), -1);
		assert_null(e.path);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_move_keeps_another_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_odd_path_round_trip, setup, teardown),
		cmocka_unit_test(test_ids),
		cmocka_unit_test_setup_teardown(test_limits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_no_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed_metadata, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
