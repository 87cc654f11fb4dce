/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Verdicts that outlive the process: a store on disk (LMDB) that answers
 * "what did a scan of exactly these bytes, with exactly these signatures
 * and settings, find?".  The key is a digest of the content (SHA-256 of
 * the bytes, or a file's fs-verity digest, in a key space of its own);
 * the value holds the result with the fingerprints of the signatures and
 * of the scan settings it was found with, so that an entry of other
 * signatures or settings is a miss, never an answer.
 *
 * Entries are added to a queue in memory and written by
 * verdict_store_flush() in one transaction (one sync for many scans); the
 * oldest entries are evicted when the store is full.  A store that cannot
 * be opened as ours (damaged, truncated, foreign, another format) is
 * removed and made anew: verdict_store_open() says so in its message.
 */
#ifndef SCANNER_VERDICT_STORE_H
#define SCANNER_VERDICT_STORE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "util/hash.h"

/* A SHA-256 digest: the content key and both fingerprints. */
#define STORE_DIGEST_LEN SHA256_LEN
/* fs-verity digests go up to SHA-512's 64 bytes */
#define STORE_VERITY_DIGEST_MAX 64
/* kind (1), algorithm (2), digest */
#define STORE_KEY_MAX (1 + 2 + STORE_VERITY_DIGEST_MAX)
/* a detection's name as stored, NUL included: a scan_answer's sig fits */
#define STORE_SIGNATURE_MAX 256
/* entries waiting for verdict_store_flush(); more are dropped (counted) */
#define STORE_QUEUE_MAX 4096
/* the files LMDB keeps in the store's directory */
#define STORE_DATA_FILE "data.mdb"
#define STORE_LOCK_FILE "lock.mdb"

struct store_key {
	unsigned char bytes[STORE_KEY_MAX];
	size_t len;
};

/* The key of content whose SHA-256 is digest. */
void store_key_sha256(struct store_key *key, const unsigned char digest[STORE_DIGEST_LEN]);

/* The key of a file whose fs-verity digest (FS_VERITY_HASH_ALG_*) is digest. */
int store_key_verity(struct store_key *key, uint16_t alg, const unsigned char *digest,
		     size_t len);

/* What an entry must have been found with to answer. */
struct store_context {
	unsigned char signatures[STORE_DIGEST_LEN];
	unsigned char settings[STORE_DIGEST_LEN];
};

enum stored_result { STORED_CLEAN = 1, STORED_INFECTED = 2 };

struct store_verdict {
	enum stored_result result;
	char signature[STORE_SIGNATURE_MAX];	/* STORED_INFECTED: its name */
};

struct store_counters {
	atomic_uint_fast64_t hits;
	atomic_uint_fast64_t misses;
	atomic_uint_fast64_t stores;		/* entries written */
	atomic_uint_fast64_t evictions;		/* entries evicted for room */
	atomic_uint_fast64_t dropped;		/* not written: queue full, or a failed write */
	atomic_uint_fast64_t bytes_hashed;	/* counted by the callers that digest */
};

struct verdict_store;

/*
 * Open (making it if need be) the store in dir, at most max_bytes large.
 * dir is made 0700 and the files 0600; a dir that others can enter, or
 * that is not the caller's, is refused.  A store that is not a sound one
 * of ours is removed and made anew; msg then says why (log it).  Return
 * 0 (msg "" if nothing happened worth saying), or -1 with msg.
 */
int verdict_store_open(struct verdict_store **out, const char *dir, uint64_t max_bytes,
		       char *msg, size_t msglen);

/*
 * The store in dir as it is, for the admin's commands beside a running
 * scanner: nothing is made, and a store that is not sound is only said
 * to be so (the scanner makes it anew at its next start); max_bytes, or
 * the file's size if larger.  0, or -1 with msg.
 */
int verdict_store_attach(struct verdict_store **out, const char *dir, uint64_t max_bytes,
			 char *msg, size_t msglen);

/* Flushes the queue, then closes. */
void verdict_store_close(struct verdict_store *st);

/*
 * 1 and *v if the store has key's verdict found with ctx's signatures
 * and settings; 0 if not (a miss, or an entry of others: counted as a
 * miss); -1 if the store failed (msg; counted as a miss).
 */
int verdict_store_lookup(struct verdict_store *st, const struct store_key *key,
			 const struct store_context *ctx, struct store_verdict *v,
			 char *msg, size_t msglen);

/* Queue an entry for the next flush.  0, or -1 if the queue is full. */
int verdict_store_add(struct verdict_store *st, const struct store_key *key,
		      const struct store_context *ctx, const struct store_verdict *v);

/*
 * Write the queued entries in one transaction, evicting the oldest
 * entries if the store is full.  0, or -1 with msg (the entries are
 * dropped, counted).
 */
int verdict_store_flush(struct verdict_store *st, char *msg, size_t msglen);

/* Remove every entry.  0, or -1 with msg. */
int verdict_store_clear(struct verdict_store *st, char *msg, size_t msglen);

/* Entries in the store now; -1 if it cannot be read. */
long long verdict_store_entries(struct verdict_store *st);

struct store_counters *verdict_store_counters(struct verdict_store *st);

#endif
