// SPDX-License-Identifier: GPL-2.0
/*
 * The verdict store (store/verdict_store.c) on a real LMDB in a scratch
 * directory: entries answer only with the signatures and settings they
 * were found with, survive a close and an open, are evicted oldest first
 * when the store is full; a damaged, truncated or foreign store is made
 * anew, and a directory others may enter is refused.  And the content
 * keys (store/content_key.c): the SHA-256 of exactly st_size bytes; the
 * signatures' digest (util/db_fingerprint.c) and the settings'.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "store/content_key.h"
#include "store/fingerprint.h"
#include "store/verdict_store.h"
#include "util/db_fingerprint.h"

#define SIZE (4u << 20)

struct fixture {
	char dir[64];
	char msg[512];
	struct verdict_store *st;
	struct store_context ctx;
};

static void key_of(struct store_key *key, unsigned int n)
{
	unsigned char digest[STORE_DIGEST_LEN] = { 0 };

	memcpy(digest, &n, sizeof(n));
	store_key_sha256(key, digest);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/dz-store-test.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	memset(f->ctx.signatures, 0x11, sizeof(f->ctx.signatures));
	memset(f->ctx.settings, 0x22, sizeof(f->ctx.settings));
	*state = f;
	return 0;
}

static void remove_tree(const char *dir)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	verdict_store_close(f->st);
	remove_tree(f->dir);
	free(f);
	return 0;
}

static void open_store(struct fixture *f)
{
	int rc = verdict_store_open(&f->st, f->dir, SIZE, f->msg, sizeof(f->msg));

	if (rc)
		fail_msg("verdict_store_open: %s", f->msg);
}

static void reopen(struct fixture *f)
{
	verdict_store_close(f->st);
	f->st = NULL;
	open_store(f);
}

static void add(struct fixture *f, unsigned int n, enum stored_result r, const char *sig)
{
	struct store_verdict v = { .result = r };
	struct store_key key;

	key_of(&key, n);
	snprintf(v.signature, sizeof(v.signature), "%s", sig);
	assert_int_equal(verdict_store_add(f->st, &key, &f->ctx, &v), 0);
}

static void flush(struct fixture *f)
{
	if (verdict_store_flush(f->st, f->msg, sizeof(f->msg)))
		fail_msg("verdict_store_flush: %s", f->msg);
}

static int lookup(struct fixture *f, unsigned int n, const struct store_context *ctx,
		  struct store_verdict *v)
{
	struct store_key key;

	key_of(&key, n);
	return verdict_store_lookup(f->st, &key, ctx, v, f->msg, sizeof(f->msg));
}

static void data_path(const struct fixture *f, char *p, size_t size)
{
	snprintf(p, size, "%s/%s", f->dir, STORE_DATA_FILE);
}

/* Clean and infected entries answer after a close and an open. */
static void survives_reopen(void **state)
{
	struct fixture *f = *state;
	struct store_verdict v;

	open_store(f);
	assert_string_equal(f->msg, "");
	add(f, 1, STORED_CLEAN, "");
	add(f, 2, STORED_INFECTED, "Eicar-Test-Signature");
	assert_int_equal(lookup(f, 1, &f->ctx, &v), 0);	/* queued, not yet written */
	flush(f);
	reopen(f);
	assert_string_equal(f->msg, "");
	assert_int_equal(lookup(f, 1, &f->ctx, &v), 1);
	assert_int_equal(v.result, STORED_CLEAN);
	assert_int_equal(lookup(f, 2, &f->ctx, &v), 1);
	assert_int_equal(v.result, STORED_INFECTED);
	assert_string_equal(v.signature, "Eicar-Test-Signature");
	assert_int_equal(lookup(f, 3, &f->ctx, &v), 0);
	assert_int_equal(verdict_store_entries(f->st), 2);
	assert_int_equal(verdict_store_counters(f->st)->hits, 2);
	assert_int_equal(verdict_store_counters(f->st)->misses, 1);
}

/* Other signatures or other settings: a miss, whatever the entry says. */
static void other_context_misses(void **state)
{
	struct fixture *f = *state;
	struct store_context other = f->ctx;
	struct store_verdict v;

	open_store(f);
	add(f, 1, STORED_CLEAN, "");
	flush(f);
	other.signatures[31] ^= 1;
	assert_int_equal(lookup(f, 1, &other, &v), 0);
	other = f->ctx;
	other.settings[0] ^= 0x80;
	assert_int_equal(lookup(f, 1, &other, &v), 0);
	assert_int_equal(lookup(f, 1, &f->ctx, &v), 1);
}

/* A new verdict of the same content replaces the old one. */
static void newer_verdict_replaces(void **state)
{
	struct fixture *f = *state;
	struct store_verdict v;

	open_store(f);
	add(f, 7, STORED_CLEAN, "");
	flush(f);
	add(f, 7, STORED_INFECTED, "New.Signature");
	flush(f);
	assert_int_equal(lookup(f, 7, &f->ctx, &v), 1);
	assert_int_equal(v.result, STORED_INFECTED);
	assert_int_equal(verdict_store_entries(f->st), 1);
	reopen(f);	/* the age index stayed in step: the store is sound */
	assert_string_equal(f->msg, "");
}

/* Keys of the two kinds never meet; a bad verity digest length is refused. */
static void verity_keys_apart(void **state)
{
	unsigned char digest[STORE_DIGEST_LEN] = { 1, 2, 3 };
	struct store_key a, b;

	(void)state;
	store_key_sha256(&a, digest);
	assert_int_equal(store_key_verity(&b, 1, digest, sizeof(digest)), 0);
	assert_int_equal(a.len, b.len);
	assert_memory_not_equal(a.bytes, b.bytes, a.len);
	assert_int_equal(store_key_verity(&b, 1, digest, 0), -1);
	assert_int_equal(store_key_verity(&b, 1, digest, STORE_VERITY_DIGEST_MAX + 1), -1);
}

/* Full: the oldest entries go, the newest stay, the store stays bounded. */
static void full_store_evicts_oldest(void **state)
{
	struct fixture *f = *state;
	struct store_verdict v;
	unsigned int i, n = 3 * (SIZE / 2048);

	open_store(f);
	for (i = 0; i < n; i++) {
		add(f, i, STORED_CLEAN, "");
		if (i % 1000 == 999)
			flush(f);
	}
	flush(f);
	assert_true(verdict_store_counters(f->st)->evictions > 0);
	assert_true(verdict_store_entries(f->st) <= (long long)(SIZE / 2048));
	assert_int_equal(lookup(f, 0, &f->ctx, &v), 0);
	assert_int_equal(lookup(f, n - 1, &f->ctx, &v), 1);
	assert_int_equal(verdict_store_counters(f->st)->dropped, 0);
	reopen(f);
	assert_string_equal(f->msg, "");
}

/* The queue is bounded: past it, entries are dropped and counted. */
static void full_queue_drops(void **state)
{
	struct fixture *f = *state;
	struct store_verdict v = { .result = STORED_CLEAN };
	struct store_key key;
	unsigned int i;

	open_store(f);
	for (i = 0; i < STORE_QUEUE_MAX; i++) {
		key_of(&key, i);
		assert_int_equal(verdict_store_add(f->st, &key, &f->ctx, &v), 0);
	}
	assert_int_equal(verdict_store_add(f->st, &key, &f->ctx, &v), -1);
	assert_int_equal(verdict_store_counters(f->st)->dropped, 1);
	flush(f);
	assert_int_equal(verdict_store_entries(f->st), STORE_QUEUE_MAX);
}

static void clear_empties(void **state)
{
	struct fixture *f = *state;
	struct store_verdict v;

	open_store(f);
	add(f, 1, STORED_CLEAN, "");
	flush(f);
	assert_int_equal(verdict_store_clear(f->st, f->msg, sizeof(f->msg)), 0);
	assert_int_equal(verdict_store_entries(f->st), 0);
	assert_int_equal(lookup(f, 1, &f->ctx, &v), 0);
	add(f, 2, STORED_CLEAN, "");
	flush(f);
	assert_int_equal(lookup(f, 2, &f->ctx, &v), 1);
}

/* Store one entry and close: a store on disk for the damage tests. */
static void one_entry_on_disk(struct fixture *f)
{
	open_store(f);
	add(f, 1, STORED_CLEAN, "");
	flush(f);
	verdict_store_close(f->st);
	f->st = NULL;
}

static void assert_made_anew(struct fixture *f, const char *why)
{
	struct store_verdict v;

	open_store(f);
	if (!strstr(f->msg, why) || !strstr(f->msg, "made anew"))
		fail_msg("expected '%s ... made anew', got '%s'", why, f->msg);
	assert_int_equal(verdict_store_entries(f->st), 0);
	assert_int_equal(lookup(f, 1, &f->ctx, &v), 0);
	add(f, 1, STORED_CLEAN, "");
	flush(f);
	assert_int_equal(lookup(f, 1, &f->ctx, &v), 1);
}

static void truncated_is_made_anew(void **state)
{
	struct fixture *f = *state;
	char p[128];
	struct stat sb;

	one_entry_on_disk(f);
	data_path(f, p, sizeof(p));
	/* shorter than LMDB's pages: mapped, it would fault */
	assert_int_equal(stat(p, &sb), 0);
	assert_int_equal(truncate(p, sb.st_size > 3 * 4096 ? 3 * 4096 : 4096), 0);
	assert_made_anew(f, "shorter than its pages");
	verdict_store_close(f->st);
	f->st = NULL;
	assert_int_equal(truncate(p, 100), 0);
	assert_made_anew(f, "truncated");
}

/* Garbage over the meta pages: LMDB's own check finds it. */
static void damaged_meta_is_made_anew(void **state)
{
	struct fixture *f = *state;
	char p[128], junk[8192];
	int fd;

	one_entry_on_disk(f);
	data_path(f, p, sizeof(p));
	memset(junk, 0x5a, sizeof(junk));
	fd = open(p, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, junk, sizeof(junk), 0), (ssize_t)sizeof(junk));
	close(fd);
	assert_made_anew(f, "no LMDB store");
}

/* Every stored value is checked at open: one flipped byte is found. */
static void damaged_value_is_made_anew(void **state)
{
	struct fixture *f = *state;
	unsigned char *buf;
	char p[128];
	struct stat sb;
	off_t i;
	int fd;

	open_store(f);
	add(f, 1, STORED_INFECTED, "Find.Me.In.The.File");
	flush(f);
	verdict_store_close(f->st);
	f->st = NULL;
	data_path(f, p, sizeof(p));
	fd = open(p, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &sb), 0);
	buf = malloc(sb.st_size);
	assert_non_null(buf);
	assert_int_equal(pread(fd, buf, sb.st_size, 0), sb.st_size);
	for (i = 0; i + 19 <= sb.st_size; i++)
		if (!memcmp(buf + i, "Find.Me.In.The.File", 19))
			break;
	assert_true(i + 19 <= sb.st_size);
	buf[i] ^= 0x20;
	assert_int_equal(pwrite(fd, buf + i, 1, i), 1);
	free(buf);
	close(fd);
	assert_made_anew(f, "not a sound verdict store");
}

/* An LMDB environment of another program: foreign, made anew. */
static void foreign_is_made_anew(void **state)
{
	struct fixture *f = *state;
	char cmd[256];

	snprintf(cmd, sizeof(cmd),
		 "printf 'VERSION=3\\nformat=bytevalue\\ntype=btree\\nHEADER=END\\n 6b6579\\n 76616c\\nDATA=END\\n' | mdb_load '%s'",
		 f->dir);
	assert_int_equal(system(cmd), 0);	/* mdb_load: lmdb-utils */
	assert_made_anew(f, "another format");
}

/* The store says which files are clean: nobody else may reach it. */
static void open_dir_refused(void **state)
{
	struct fixture *f = *state;
	char sub[128];

	assert_int_equal(chmod(f->dir, 0755), 0);
	assert_int_equal(verdict_store_open(&f->st, f->dir, SIZE, f->msg, sizeof(f->msg)), -1);
	assert_non_null(strstr(f->msg, "mode 0755"));
	assert_int_equal(chmod(f->dir, 0700), 0);
	/* made where missing, 0700, with 0600 files */
	snprintf(sub, sizeof(sub), "%s/sub", f->dir);
	assert_int_equal(verdict_store_open(&f->st, sub, SIZE, f->msg, sizeof(f->msg)), 0);
	verdict_store_close(f->st);
	f->st = NULL;
	{
		struct stat sb;
		char p[160];

		assert_int_equal(stat(sub, &sb), 0);
		assert_int_equal(sb.st_mode & 07777, 0700);
		snprintf(p, sizeof(p), "%s/%s", sub, STORE_DATA_FILE);
		assert_int_equal(stat(p, &sb), 0);
		assert_int_equal(sb.st_mode & 07777, 0600);
	}
	assert_int_equal(verdict_store_open(&f->st, f->dir, 1000, f->msg, sizeof(f->msg)), -1);
	assert_non_null(strstr(f->msg, "too small"));
}

/* The SHA-256 of the bytes; a file whose length is not st's fails. */
static void content_key_of_file(void **state)
{
	/* SHA-256("abc"), FIPS 180-2 */
	static const unsigned char abc[STORE_DIGEST_LEN] = {
		0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde,
		0x5d, 0xae, 0x22, 0x23, 0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c,
		0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
	};
	struct fixture *f = *state;
	struct store_key key, want;
	uint64_t hashed;
	struct stat sb;
	bool verity;
	char p[128];
	int fd;

	snprintf(p, sizeof(p), "%s/abc", f->dir);
	fd = open(p, O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "abc", 3), 3);
	assert_int_equal(fstat(fd, &sb), 0);
	assert_int_equal(content_key(fd, &sb, &key, &hashed, &verity), 0);
	assert_false(verity);	/* a scratch file has no fs-verity */
	assert_int_equal(hashed, 3);
	store_key_sha256(&want, abc);
	assert_int_equal(key.len, want.len);
	assert_memory_equal(key.bytes, want.bytes, key.len);
	/* written since the fstat: longer, or shorter, than st says */
	assert_int_equal(write(fd, "d", 1), 1);
	assert_int_equal(content_key(fd, &sb, &key, &hashed, &verity), -1);
	assert_int_equal(errno, EIO);
	assert_int_equal(ftruncate(fd, 1), 0);
	assert_int_equal(content_key(fd, &sb, &key, &hashed, &verity), -1);
	assert_int_equal(errno, EIO);
	close(fd);
	assert_int_equal(sha256_buffer("abc", 3, want.bytes), 0);
	assert_memory_equal(want.bytes, abc, sizeof(abc));
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char p[256];
	FILE *fp;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fp = fopen(p, "w");
	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

static void fingerprint_of(const char *dir, unsigned char out[STORE_DIGEST_LEN])
{
	char err[256];

	if (db_content_digest(dir, "libclamav 1.0", out, err, sizeof(err)))
		fail_msg("db_content_digest: %s", err);
}

/*
 * Any change of the signatures changes the fingerprint: a local file
 * added, a symlinked file's content; freshclam's state and timestamps
 * do not.
 */
static void signatures_fingerprint_changes(void **state)
{
	struct fixture *f = *state;
	unsigned char a[STORE_DIGEST_LEN], b[STORE_DIGEST_LEN];
	char db[128], other[128], link[256];
	struct config cfg;

	snprintf(db, sizeof(db), "%s/db", f->dir);
	snprintf(other, sizeof(other), "%s/other", f->dir);
	assert_int_equal(mkdir(db, 0700), 0);
	assert_int_equal(mkdir(other, 0700), 0);
	write_file(db, "main.ndb", "Test.A:0:*:41414141\n");
	write_file(other, "linked.ndb", "Test.B:0:*:42424242\n");
	snprintf(link, sizeof(link), "%s/linked.ndb", db);
	assert_int_equal(symlink("../other/linked.ndb", link), 0);
	fingerprint_of(db, a);
	fingerprint_of(db, b);
	assert_memory_equal(a, b, sizeof(a));

	write_file(db, "freshclam.dat", "state");
	write_file(db, ".hidden", "x");
	assert_int_equal(utimensat(AT_FDCWD, link, NULL, 0), 0);
	fingerprint_of(db, b);
	assert_memory_equal(a, b, sizeof(a));

	write_file(other, "linked.ndb", "Test.B:0:*:42424243\n");
	fingerprint_of(db, b);
	assert_memory_not_equal(a, b, sizeof(a));
	memcpy(a, b, sizeof(a));

	write_file(db, "local.ndb", "Test.C:0:*:43434343\n");
	fingerprint_of(db, b);
	assert_memory_not_equal(a, b, sizeof(a));

	/* a missing directory is an error, not an empty set */
	assert_int_equal(db_content_digest("/nonexistent-dz", "", b, f->msg, sizeof(f->msg)), -1);
	/* another libclamav: another fingerprint */
	fingerprint_of(db, a);
	assert_int_equal(db_content_digest(db, "libclamav 1.1", b, f->msg, sizeof(f->msg)), 0);
	assert_memory_not_equal(a, b, sizeof(a));

	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(settings_fingerprint(&cfg, a), 0);
	cfg.limits.max_scan_size = 1;
	assert_int_equal(settings_fingerprint(&cfg, b), 0);
	assert_memory_not_equal(a, b, sizeof(a));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(survives_reopen, setup, teardown),
		cmocka_unit_test_setup_teardown(other_context_misses, setup, teardown),
		cmocka_unit_test_setup_teardown(newer_verdict_replaces, setup, teardown),
		cmocka_unit_test(verity_keys_apart),
		cmocka_unit_test_setup_teardown(full_store_evicts_oldest, setup, teardown),
		cmocka_unit_test_setup_teardown(full_queue_drops, setup, teardown),
		cmocka_unit_test_setup_teardown(clear_empties, setup, teardown),
		cmocka_unit_test_setup_teardown(truncated_is_made_anew, setup, teardown),
		cmocka_unit_test_setup_teardown(damaged_meta_is_made_anew, setup, teardown),
		cmocka_unit_test_setup_teardown(damaged_value_is_made_anew, setup, teardown),
		cmocka_unit_test_setup_teardown(foreign_is_made_anew, setup, teardown),
		cmocka_unit_test_setup_teardown(open_dir_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(content_key_of_file, setup, teardown),
		cmocka_unit_test_setup_teardown(signatures_fingerprint_changes, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
