// SPDX-License-Identifier: GPL-2.0
/*
 * The verdict store on LMDB (verdict_store.h says what it keeps).  Three
 * databases in one environment:
 *   meta      "format": STORE_FORMAT, "seq": the next entry's number
 *   verdicts  content key -> struct stored_value
 *   age       entry number (big-endian, so a cursor walks oldest first)
 *             -> content key, for eviction
 * LMDB keeps its pages as they were written and checks little, so the
 * open walks every entry once: a store that fails anywhere is made anew
 * then, not found broken in the middle of a scan.  A file shorter than
 * LMDB's own idea of it would fault when mapped: its size is checked
 * before anything is read.
 */
#include <errno.h>
#include <fcntl.h>
#include <lmdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"
#include "store/verdict_store.h"
#include "util/hash.h"

#define STORE_FORMAT "dazukofs verdict store 1"
#define STORE_MAGIC 0x53565a44u		/* "DZVS" */
#define STORE_KEY_SHA256 'S'
#define STORE_KEY_VERITY 'V'
/* readers: one per worker thread, with room */
#define STORE_MAX_READERS 512
/*
 * Map bytes per entry allowed: an entry is ~300 bytes in two B-trees whose
 * pages are half full after splits, and a transaction copies every page it
 * writes while the last one's stay; entries are evicted before the map
 * can fill.
 */
#define STORE_BYTES_PER_ENTRY 2048

/* An entry as stored: fixed size, host byte order (a store is local). */
struct stored_value {
	uint32_t magic;
	uint8_t result;
	uint8_t pad[3];
	uint64_t seq;
	unsigned char signatures[STORE_DIGEST_LEN];
	unsigned char settings[STORE_DIGEST_LEN];
	char signature[STORE_SIGNATURE_MAX];
	uint64_t check;			/* of every byte above */
};
_Static_assert(sizeof(struct stored_value) == 344, "no padding in a stored value");

struct queued {
	struct store_key key;
	struct stored_value value;
};

struct verdict_store {
	MDB_env *env;
	MDB_dbi meta, verdicts, age;
	char *dir;
	uint64_t max_bytes;
	/* 0: the admin's commands' (verdict_store_attach): nothing made or removed */
	bool repair;
	struct store_counters counters;
	/* add() fills queue; flush() swaps it with writing under queue_lock */
	pthread_mutex_t queue_lock;
	struct queued *queue, *writing;
	size_t queued;
	/* one writer at a time: flush, clear, close */
	pthread_mutex_t write_lock;
};

/* finds a damaged value, not a forged one (the store is 0600) */
static uint64_t value_check(const struct stored_value *v)
{
	return fnv1a64(FNV1A64_INIT, v, offsetof(struct stored_value, check));
}

/* LMDB's values are not aligned: *v is a copy, if data is a sound value. */
static bool value_sound(const MDB_val *data, struct stored_value *v)
{
	if (data->mv_size != sizeof(*v))
		return false;
	memcpy(v, data->mv_data, sizeof(*v));
	return v->magic == STORE_MAGIC &&
	       (v->result == STORED_CLEAN || v->result == STORED_INFECTED) &&
	       memchr(v->signature, '\0', sizeof(v->signature)) &&
	       v->check == value_check(v);
}

void store_key_sha256(struct store_key *key, const unsigned char digest[STORE_DIGEST_LEN])
{
	key->bytes[0] = STORE_KEY_SHA256;
	key->bytes[1] = key->bytes[2] = 0;
	memcpy(key->bytes + 3, digest, STORE_DIGEST_LEN);
	key->len = 3 + STORE_DIGEST_LEN;
}

int store_key_verity(struct store_key *key, uint16_t alg, const unsigned char *digest,
		     size_t len)
{
	if (!len || len > STORE_VERITY_DIGEST_MAX)
		return -1;
	key->bytes[0] = STORE_KEY_VERITY;
	key->bytes[1] = alg >> 8;
	key->bytes[2] = alg & 0xff;
	memcpy(key->bytes + 3, digest, len);
	key->len = 3 + len;
	return 0;
}

static void seq_key(unsigned char out[8], uint64_t seq)
{
	int i;

	for (i = 7; i >= 0; i--, seq >>= 8)
		out[i] = seq & 0xff;
}

static int say(char *msg, size_t msglen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int say(char *msg, size_t msglen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, msglen, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * The directory: ours and closed to others, made if missing.  The store
 * holds which files are clean: another user who could write it could
 * make us allow anything.
 */
static int check_dir(const char *dir, bool make, char *msg, size_t msglen)
{
	struct stat sb;

	if (make && mkdir(dir, 0700) && errno != EEXIST)
		return say(msg, msglen, "cannot make %s: %s%s", dir, strerror(errno),
			   errno == ENOENT ? " (its parent is made by the unit's StateDirectory=; or set store_path, or store = no)" : "");
	if (lstat(dir, &sb))
		return say(msg, msglen, "%s: %s", dir, strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		return say(msg, msglen, "%s is not a directory", dir);
	if (sb.st_uid != geteuid())
		return say(msg, msglen, "%s belongs to uid %u, not to this process's %u", dir,
			   (unsigned int)sb.st_uid, (unsigned int)geteuid());
	if (sb.st_mode & 077)
		return say(msg, msglen, "%s is mode %04o: others may not enter it (0700)", dir,
			   (unsigned int)(sb.st_mode & 07777));
	return 0;
}

static char *file_in(const char *dir, const char *name)
{
	size_t len = strlen(dir) + 1 + strlen(name) + 1;
	char *p = malloc(len);

	if (p)
		snprintf(p, len, "%s/%s", dir, name);
	return p;
}

/* Remove LMDB's files: the store is made anew. */
static int remove_files(const char *dir, char *msg, size_t msglen)
{
	static const char *const names[] = { STORE_DATA_FILE, STORE_LOCK_FILE };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *p = file_in(dir, names[i]);

		if (!p)
			return say(msg, msglen, "out of memory");
		if (unlink(p) && errno != ENOENT) {
			say(msg, msglen, "cannot remove %s: %s", p, strerror(errno));
			free(p);
			return -1;
		}
		free(p);
	}
	return 0;
}

/*
 * Whether the data file may be handed to LMDB at all: a regular file of
 * ours, at least LMDB's two meta pages long, no larger than the store may
 * be.  1 sound or absent, 0 not (why in msg), -1 cannot tell.
 */
static int data_file_usable(struct verdict_store *st, char *msg, size_t msglen)
{
	char *p = file_in(st->dir, STORE_DATA_FILE);
	struct stat sb;
	long page = sysconf(_SC_PAGESIZE);
	int ret = 1;

	if (!p)
		return say(msg, msglen, "out of memory");
	if (lstat(p, &sb)) {
		if (errno != ENOENT || !st->repair)
			ret = say(msg, msglen, "%s: %s", p, strerror(errno));
	} else if (!S_ISREG(sb.st_mode) || sb.st_uid != geteuid()) {
		snprintf(msg, msglen, "%s is not a regular file of uid %u", p,
			 (unsigned int)geteuid());
		ret = 0;
	} else if (sb.st_size < 2 * page) {
		snprintf(msg, msglen, "%s is truncated (%lld bytes)", p, (long long)sb.st_size);
		ret = 0;
	} else if ((uint64_t)sb.st_size > st->max_bytes) {
		if (st->repair) {
			snprintf(msg, msglen,
				 "%s (%lld bytes) is larger than the store's size now (%llu)", p,
				 (long long)sb.st_size, (unsigned long long)st->max_bytes);
			ret = 0;
		} else {
			st->max_bytes = sb.st_size;
		}
	}
	free(p);
	return ret;
}

/* Is every page LMDB will read inside the file?  Else it would fault. */
static int map_within_file(struct verdict_store *st, char *msg, size_t msglen)
{
	char *p = file_in(st->dir, STORE_DATA_FILE);
	MDB_envinfo info;
	MDB_stat est;
	struct stat sb;
	int ok;

	if (!p)
		return say(msg, msglen, "out of memory");
	ok = !mdb_env_info(st->env, &info) && !mdb_env_stat(st->env, &est) && !stat(p, &sb) &&
	     ((uint64_t)info.me_last_pgno + 1) * est.ms_psize <= (uint64_t)sb.st_size;
	if (!ok)
		snprintf(msg, msglen, "%s is shorter than its pages", p);
	free(p);
	return ok;
}

/* Walk db whole; with check_values, every value must be sound. */
static int walk(MDB_txn *txn, MDB_dbi dbi, bool check_values, size_t *n)
{
	struct stored_value sv;
	MDB_cursor *cur;
	MDB_val k, v;
	int rc;

	rc = mdb_cursor_open(txn, dbi, &cur);
	if (rc)
		return rc;
	*n = 0;
	while (!(rc = mdb_cursor_get(cur, &k, &v, *n ? MDB_NEXT : MDB_FIRST))) {
		if (check_values && !value_sound(&v, &sv)) {
			rc = MDB_CORRUPTED;
			break;
		}
		(*n)++;
	}
	mdb_cursor_close(cur);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

/*
 * Open the environment and its databases, and check them.  1 opened and
 * sound; 0 not ours or not sound (why in msg: make it anew); -1 failed.
 */
static int open_env(struct verdict_store *st, char *msg, size_t msglen)
{
	static const char format[] = STORE_FORMAT;
	size_t n_verdicts, n_age;
	MDB_val k = { sizeof("format") - 1, "format" }, v;
	MDB_txn *txn = NULL;
	bool fresh;
	int rc;

	rc = data_file_usable(st, msg, msglen);
	if (rc <= 0)
		return rc;
	if ((rc = mdb_env_create(&st->env)) ||
	    (rc = mdb_env_set_maxdbs(st->env, 3)) ||
	    (rc = mdb_env_set_maxreaders(st->env, STORE_MAX_READERS)) ||
	    (rc = mdb_env_set_mapsize(st->env, st->max_bytes / sysconf(_SC_PAGESIZE) *
						   sysconf(_SC_PAGESIZE))))
		return say(msg, msglen, "LMDB: %s", mdb_strerror(rc));
	rc = mdb_env_open(st->env, st->dir, MDB_NORDAHEAD, 0600);
	if (rc == MDB_INVALID || rc == MDB_VERSION_MISMATCH || rc == MDB_CORRUPTED ||
	    rc == MDB_PANIC) {
		snprintf(msg, msglen, "%s is no LMDB store of this version: %s", st->dir,
			 mdb_strerror(rc));
		return 0;
	}
	if (rc)
		return say(msg, msglen, "cannot open %s: %s", st->dir, mdb_strerror(rc));
	if (!map_within_file(st, msg, msglen))
		return 0;
	rc = mdb_txn_begin(st->env, NULL, 0, &txn);
	if (rc)
		return say(msg, msglen, "LMDB: %s", mdb_strerror(rc));
	rc = mdb_dbi_open(txn, "meta", 0, &st->meta);
	fresh = rc == MDB_NOTFOUND;
	/* no meta: a new store, or another program's LMDB */
	if (fresh) {
		MDB_dbi main_db;
		MDB_stat ms;

		rc = mdb_dbi_open(txn, NULL, 0, &main_db);
		if (!rc)
			rc = mdb_stat(txn, main_db, &ms);
		if (rc)
			goto not_ours;
		if (ms.ms_entries || !st->repair)
			goto not_ours;
		rc = MDB_NOTFOUND;
	}
	if (fresh)
		rc = mdb_dbi_open(txn, "meta", MDB_CREATE, &st->meta);
	if (!rc)
		rc = mdb_dbi_open(txn, "verdicts", fresh ? MDB_CREATE : 0, &st->verdicts);
	if (!rc)
		rc = mdb_dbi_open(txn, "age", fresh ? MDB_CREATE : 0, &st->age);
	if (rc)
		goto not_ours;
	if (fresh) {
		v = (MDB_val){ sizeof(format), (void *)format };
		rc = mdb_put(txn, st->meta, &k, &v, 0);
		if (rc)
			goto failed;
	} else {
		rc = mdb_get(txn, st->meta, &k, &v);
		if (rc || v.mv_size != sizeof(format) || memcmp(v.mv_data, format, sizeof(format)))
			goto not_ours;
		rc = walk(txn, st->verdicts, true, &n_verdicts);
		if (!rc)
			rc = walk(txn, st->age, false, &n_age);
		if (rc)
			goto not_ours;
		if (n_age != n_verdicts) {
			rc = MDB_CORRUPTED;
			goto not_ours;
		}
	}
	rc = mdb_txn_commit(txn);
	if (rc)
		return say(msg, msglen, "LMDB: %s", mdb_strerror(rc));
	return 1;

not_ours:
	mdb_txn_abort(txn);
	snprintf(msg, msglen, "%s is not a sound verdict store: %s", st->dir,
		 rc ? mdb_strerror(rc) : "another format");
	return 0;
failed:
	mdb_txn_abort(txn);
	return say(msg, msglen, "LMDB: %s", mdb_strerror(rc));
}

static void close_env(struct verdict_store *st)
{
	if (st->env)
		mdb_env_close(st->env);
	st->env = NULL;
}

static void store_free(struct verdict_store *st)
{
	close_env(st);
	pthread_mutex_destroy(&st->queue_lock);
	pthread_mutex_destroy(&st->write_lock);
	free(st->queue);
	free(st->writing);
	free(st->dir);
	free(st);
}

static int store_open(struct verdict_store **out, const char *dir, uint64_t max_bytes,
		      bool repair, char *msg, size_t msglen)
{
	struct verdict_store *st;
	char why[512];
	int rc;

	msg[0] = '\0';
	if (max_bytes < STORE_MIN_SIZE)
		return say(msg, msglen, "a store of %llu bytes is too small (at least %llu)",
			   (unsigned long long)max_bytes, STORE_MIN_SIZE);
	if (check_dir(dir, repair, msg, msglen))
		return -1;
	st = calloc(1, sizeof(*st));
	if (!st)
		return say(msg, msglen, "out of memory");
	pthread_mutex_init(&st->queue_lock, NULL);
	pthread_mutex_init(&st->write_lock, NULL);
	st->dir = strdup(dir);
	st->queue = calloc(STORE_QUEUE_MAX, sizeof(*st->queue));
	st->writing = calloc(STORE_QUEUE_MAX, sizeof(*st->writing));
	st->max_bytes = max_bytes;
	st->repair = repair;
	if (!st->dir || !st->queue || !st->writing) {
		store_free(st);
		return say(msg, msglen, "out of memory");
	}
	rc = open_env(st, why, sizeof(why));
	if (!rc && !repair) {
		snprintf(msg, msglen, "%s", why);
		rc = -1;
	} else if (!rc) {
		/* not ours, or not sound: made anew, and said */
		close_env(st);
		if (remove_files(dir, msg, msglen)) {
			store_free(st);
			return -1;
		}
		rc = open_env(st, msg, msglen);
		if (rc == 1)
			snprintf(msg, msglen, "%s; made anew", why);
		else if (!rc)
			rc = -1;
	} else if (rc < 0) {
		snprintf(msg, msglen, "%s", why);
	}
	if (rc < 0) {
		store_free(st);
		return -1;
	}
	*out = st;
	return 0;
}

int verdict_store_open(struct verdict_store **out, const char *dir, uint64_t max_bytes,
		       char *msg, size_t msglen)
{
	return store_open(out, dir, max_bytes, true, msg, msglen);
}

int verdict_store_attach(struct verdict_store **out, const char *dir, uint64_t max_bytes,
			 char *msg, size_t msglen)
{
	return store_open(out, dir, max_bytes, false, msg, msglen);
}

void verdict_store_close(struct verdict_store *st)
{
	char msg[256];

	if (!st)
		return;
	verdict_store_flush(st, msg, sizeof(msg));
	store_free(st);
}

int verdict_store_lookup(struct verdict_store *st, const struct store_key *key,
			 const struct store_context *ctx, struct store_verdict *v,
			 char *msg, size_t msglen)
{
	MDB_val k = { key->len, (void *)key->bytes }, data;
	struct stored_value sv;
	MDB_txn *txn;
	int rc, hit = 0;

	rc = mdb_txn_begin(st->env, NULL, MDB_RDONLY, &txn);
	if (rc) {
		atomic_fetch_add(&st->counters.misses, 1);
		return say(msg, msglen, "LMDB: %s", mdb_strerror(rc));
	}
	rc = mdb_get(txn, st->verdicts, &k, &data);
	if (!rc && value_sound(&data, &sv)) {
		if (!memcmp(sv.signatures, ctx->signatures, STORE_DIGEST_LEN) &&
		    !memcmp(sv.settings, ctx->settings, STORE_DIGEST_LEN)) {
			v->result = sv.result;
			snprintf(v->signature, sizeof(v->signature), "%s", sv.signature);
			hit = 1;
		}
	} else if (!rc) {
		rc = MDB_CORRUPTED;
	}
	mdb_txn_abort(txn);
	atomic_fetch_add(hit ? &st->counters.hits : &st->counters.misses, 1);
	if (rc && rc != MDB_NOTFOUND)
		return say(msg, msglen, "LMDB: %s", mdb_strerror(rc));
	return hit;
}

int verdict_store_add(struct verdict_store *st, const struct store_key *key,
		      const struct store_context *ctx, const struct store_verdict *v)
{
	struct queued *q;

	pthread_mutex_lock(&st->queue_lock);
	if (st->queued == STORE_QUEUE_MAX) {
		pthread_mutex_unlock(&st->queue_lock);
		atomic_fetch_add(&st->counters.dropped, 1);
		return -1;
	}
	q = &st->queue[st->queued++];
	memset(q, 0, sizeof(*q));
	q->key = *key;
	q->value.magic = STORE_MAGIC;
	q->value.result = v->result;
	memcpy(q->value.signatures, ctx->signatures, STORE_DIGEST_LEN);
	memcpy(q->value.settings, ctx->settings, STORE_DIGEST_LEN);
	snprintf(q->value.signature, sizeof(q->value.signature), "%s", v->signature);
	pthread_mutex_unlock(&st->queue_lock);
	return 0;
}

/* Evict the oldest n entries (both databases) in txn. */
static int evict(struct verdict_store *st, MDB_txn *txn, size_t n, size_t *evicted)
{
	MDB_cursor *cur;
	MDB_val k, v;
	int rc;

	*evicted = 0;
	rc = mdb_cursor_open(txn, st->age, &cur);
	if (rc)
		return rc;
	while (*evicted < n && !(rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST))) {
		rc = mdb_del(txn, st->verdicts, &v, NULL);
		if (rc && rc != MDB_NOTFOUND)
			break;
		rc = mdb_cursor_del(cur, 0);
		if (rc)
			break;
		(*evicted)++;
	}
	mdb_cursor_close(cur);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

static int next_seq(struct verdict_store *st, MDB_txn *txn, uint64_t *seq)
{
	MDB_val k = { sizeof("seq") - 1, "seq" }, v;
	int rc = mdb_get(txn, st->meta, &k, &v);

	if (rc == MDB_NOTFOUND) {
		*seq = 1;
		return 0;
	}
	if (!rc && v.mv_size == sizeof(*seq))
		memcpy(seq, v.mv_data, sizeof(*seq));
	return rc ? rc : v.mv_size == sizeof(*seq) ? 0 : MDB_CORRUPTED;
}

/* Write items[0..n) in txn. */
static int write_items(struct verdict_store *st, MDB_txn *txn, struct queued *items, size_t n)
{
	MDB_val sk = { sizeof("seq") - 1, "seq" }, k, v, old;
	struct stored_value old_value;
	unsigned char age_key[8];
	uint64_t seq;
	size_t i;
	int rc;

	rc = next_seq(st, txn, &seq);
	for (i = 0; !rc && i < n; i++) {
		struct queued *q = &items[i];

		k = (MDB_val){ q->key.len, q->key.bytes };
		/* a newer verdict of the same content: the old one's age goes */
		rc = mdb_get(txn, st->verdicts, &k, &old);
		if (!rc && value_sound(&old, &old_value)) {
			seq_key(age_key, old_value.seq);
			v = (MDB_val){ sizeof(age_key), age_key };
			rc = mdb_del(txn, st->age, &v, NULL);
		}
		if (rc && rc != MDB_NOTFOUND)
			break;
		q->value.seq = seq;
		q->value.check = value_check(&q->value);
		v = (MDB_val){ sizeof(q->value), &q->value };
		rc = mdb_put(txn, st->verdicts, &k, &v, 0);
		if (rc)
			break;
		seq_key(age_key, seq++);
		v = (MDB_val){ sizeof(age_key), age_key };
		rc = mdb_put(txn, st->age, &v, &k, 0);
	}
	if (!rc) {
		v = (MDB_val){ sizeof(seq), &seq };
		rc = mdb_put(txn, st->meta, &sk, &v, 0);
	}
	return rc;
}

/*
 * Make room for n more entries, and extra_room: evict the oldest, down to
 * an eighth below the store's share of the map, so that a full store
 * does not evict at every flush.  In a transaction of its own: the pages
 * it frees are free for the next.
 */
static int make_room(struct verdict_store *st, size_t n, size_t extra_room)
{
	size_t max_entries = st->max_bytes / STORE_BYTES_PER_ENTRY, evicted = 0;
	MDB_txn *txn;
	MDB_stat ms;
	int rc;

	rc = mdb_txn_begin(st->env, NULL, 0, &txn);
	if (rc)
		return rc;
	rc = mdb_stat(txn, st->verdicts, &ms);
	if (rc || ms.ms_entries + n + extra_room <= max_entries) {
		mdb_txn_abort(txn);
		return rc;
	}
	rc = evict(st, txn, ms.ms_entries + n + extra_room - max_entries + max_entries / 8,
		   &evicted);
	if (rc) {
		mdb_txn_abort(txn);
		return rc;
	}
	rc = mdb_txn_commit(txn);
	if (!rc)
		atomic_fetch_add(&st->counters.evictions, evicted);
	return rc;
}

static int write_batch(struct verdict_store *st, struct queued *items, size_t n)
{
	MDB_txn *txn;
	int rc;

	rc = mdb_txn_begin(st->env, NULL, 0, &txn);
	if (rc)
		return rc;
	rc = write_items(st, txn, items, n);
	if (rc) {
		mdb_txn_abort(txn);
		return rc;
	}
	return mdb_txn_commit(txn);
}

int verdict_store_flush(struct verdict_store *st, char *msg, size_t msglen)
{
	struct queued *items;
	size_t n;
	int rc;

	msg[0] = '\0';
	pthread_mutex_lock(&st->write_lock);
	pthread_mutex_lock(&st->queue_lock);
	items = st->queue;
	n = st->queued;
	st->queue = st->writing;
	st->writing = items;
	st->queued = 0;
	pthread_mutex_unlock(&st->queue_lock);
	if (!n) {
		pthread_mutex_unlock(&st->write_lock);
		return 0;
	}
	rc = make_room(st, n, 0);
	if (!rc)
		rc = write_batch(st, items, n);
	/* the share of an entry was short here: a quarter more goes */
	if (rc == MDB_MAP_FULL) {
		rc = make_room(st, n, st->max_bytes / STORE_BYTES_PER_ENTRY / 4);
		if (!rc)
			rc = write_batch(st, items, n);
	}
	pthread_mutex_unlock(&st->write_lock);
	if (rc) {
		atomic_fetch_add(&st->counters.dropped, n);
		return say(msg, msglen, "%zu verdicts not stored: %s", n, mdb_strerror(rc));
	}
	atomic_fetch_add(&st->counters.stores, n);
	return 0;
}

int verdict_store_clear(struct verdict_store *st, char *msg, size_t msglen)
{
	MDB_val k = { sizeof("seq") - 1, "seq" };
	MDB_txn *txn;
	int rc;

	pthread_mutex_lock(&st->write_lock);
	rc = mdb_txn_begin(st->env, NULL, 0, &txn);
	if (!rc) {
		rc = mdb_drop(txn, st->verdicts, 0);
		if (!rc)
			rc = mdb_drop(txn, st->age, 0);
		if (!rc) {
			rc = mdb_del(txn, st->meta, &k, NULL);
			if (rc == MDB_NOTFOUND)
				rc = 0;
		}
		if (rc)
			mdb_txn_abort(txn);
		else
			rc = mdb_txn_commit(txn);
	}
	pthread_mutex_unlock(&st->write_lock);
	return rc ? say(msg, msglen, "cannot clear %s: %s", st->dir, mdb_strerror(rc)) : 0;
}

long long verdict_store_entries(struct verdict_store *st)
{
	MDB_txn *txn;
	MDB_stat ms;
	int rc;

	if (mdb_txn_begin(st->env, NULL, MDB_RDONLY, &txn))
		return -1;
	rc = mdb_stat(txn, st->verdicts, &ms);
	mdb_txn_abort(txn);
	return rc ? -1 : (long long)ms.ms_entries;
}

struct store_counters *verdict_store_counters(struct verdict_store *st)
{
	return &st->counters;
}
