/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verdict cache: files found clean, keyed by what changes when the
 * file does (device, inode, size, mtime, ctime).  Bounded, with the clock
 * algorithm for eviction; thread-safe.  Entries carry the generation of
 * the engine that scanned them: cache_clear() starts a new generation, and
 * a late insert from an older one is dropped.
 */
#ifndef SCANNER_CACHE_H
#define SCANNER_CACHE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

struct cache_key {
	uint64_t dev, ino, size;
	int64_t mtime_sec, ctime_sec;
	long mtime_nsec, ctime_nsec;
};

struct cache_stats {
	uint64_t hits, misses, inserts, evictions, forgotten, entries;
};

struct cache_entry;

struct cache {
	pthread_mutex_t lock;
	size_t capacity, used, hand, nbuckets;
	size_t holes;			/* forgotten entries among the used */
	struct cache_entry *entries;
	uint32_t *buckets;		/* index + 1 into entries; 0: empty */
	uint64_t generation;
	struct cache_stats stats;
};

void cache_key_from_stat(struct cache_key *key, const struct stat *st);

/*
 * capacity 0: a cache that never hits.  Returns -1/ENOMEM, the cache then
 * of capacity 0; cache_destroy() it either way.
 */
int cache_init(struct cache *c, size_t capacity);
void cache_destroy(struct cache *c);

/* 1 if key is known clean (counted as a hit), 0 if not (a miss). */
int cache_lookup(struct cache *c, const struct cache_key *key);
/* The generation to pass to cache_insert() for a scan starting now. */
uint64_t cache_generation(struct cache *c);
void cache_insert(struct cache *c, const struct cache_key *key,
		  uint64_t generation);
/* Forget every entry of a file (it was written). */
void cache_forget(struct cache *c, uint64_t dev, uint64_t ino);
/* Forget everything (new signatures), starting a new generation. */
void cache_clear(struct cache *c);
void cache_get_stats(struct cache *c, struct cache_stats *out);

#endif
