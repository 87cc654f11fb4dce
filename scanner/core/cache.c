// SPDX-License-Identifier: GPL-2.0
/*
 * The verdict cache (see cache.h): a fixed array of entries, a chained
 * hash index over it, and a clock hand that gives each entry a second
 * chance (its referenced bit) before evicting it.  One mutex; the work
 * under it is a hash walk, so contention is small next to a scan.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/cache.h"

struct cache_entry {
	struct cache_key key;
	uint32_t next;		/* index + 1 of the next in the bucket; 0: end */
	uint8_t used, referenced;
};

void cache_key_from_stat(struct cache_key *key, const struct stat *st)
{
	memset(key, 0, sizeof(*key));
	key->dev = (uint64_t)st->st_dev;
	key->ino = (uint64_t)st->st_ino;
	key->size = (uint64_t)st->st_size;
	key->mtime_sec = (int64_t)st->st_mtim.tv_sec;
	key->mtime_nsec = st->st_mtim.tv_nsec;
	key->ctime_sec = (int64_t)st->st_ctim.tv_sec;
	key->ctime_nsec = st->st_ctim.tv_nsec;
}

static int key_eq(const struct cache_key *a, const struct cache_key *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec &&
	       a->ctime_sec == b->ctime_sec && a->ctime_nsec == b->ctime_nsec;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h;
}

/* By file only: every version of a file shares a bucket, for cache_forget(). */
static size_t bucket_of_file(const struct cache *c, uint64_t dev, uint64_t ino)
{
	uint64_t h = mix(mix(0, dev), ino);

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return (size_t)(h & (c->nbuckets - 1));
}

static size_t bucket_of(const struct cache *c, const struct cache_key *k)
{
	return bucket_of_file(c, k->dev, k->ino);
}

int cache_init(struct cache *c, size_t capacity)
{
	memset(c, 0, sizeof(*c));
	if (capacity > UINT32_MAX - 1)
		capacity = UINT32_MAX - 1;
	c->capacity = capacity;
	pthread_mutex_init(&c->lock, NULL);
	if (!capacity)
		return 0;
	c->nbuckets = 1;
	while (c->nbuckets < capacity * 2)
		c->nbuckets <<= 1;
	c->entries = calloc(capacity, sizeof(*c->entries));
	c->buckets = calloc(c->nbuckets, sizeof(*c->buckets));
	if (!c->entries || !c->buckets) {
		/*
		 * Left as a cache of capacity 0 (the lock still initialised),
		 * so that the caller's cache_destroy() frees nothing twice.
		 */
		free(c->entries);
		free(c->buckets);
		c->entries = NULL;
		c->buckets = NULL;
		c->capacity = 0;
		c->nbuckets = 0;
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void cache_destroy(struct cache *c)
{
	free(c->entries);
	free(c->buckets);
	pthread_mutex_destroy(&c->lock);
	memset(c, 0, sizeof(*c));
}

/* Under the lock: the index of key's entry, or -1. */
static long find_locked(struct cache *c, const struct cache_key *key)
{
	uint32_t i = c->buckets[bucket_of(c, key)];

	while (i) {
		if (key_eq(&c->entries[i - 1].key, key))
			return (long)i - 1;
		i = c->entries[i - 1].next;
	}
	return -1;
}

int cache_lookup(struct cache *c, const struct cache_key *key)
{
	long i = -1;

	pthread_mutex_lock(&c->lock);
	if (c->capacity)
		i = find_locked(c, key);
	if (i >= 0) {
		c->entries[i].referenced = 1;
		c->stats.hits++;
	} else {
		c->stats.misses++;
	}
	pthread_mutex_unlock(&c->lock);
	return i >= 0;
}

uint64_t cache_generation(struct cache *c)
{
	uint64_t g;

	pthread_mutex_lock(&c->lock);
	g = c->generation;
	pthread_mutex_unlock(&c->lock);
	return g;
}

static void unlink_locked(struct cache *c, size_t idx)
{
	uint32_t *link = &c->buckets[bucket_of(c, &c->entries[idx].key)];

	while (*link && *link != idx + 1)
		link = &c->entries[*link - 1].next;
	if (*link)
		*link = c->entries[idx].next;
	c->entries[idx].next = 0;
	c->entries[idx].used = 0;
}

/* Under the lock, the cache full: the clock's victim, unlinked. */
static size_t evict_locked(struct cache *c)
{
	for (;;) {
		struct cache_entry *e = &c->entries[c->hand];
		size_t idx = c->hand;

		c->hand = (c->hand + 1) % c->capacity;
		if (!e->used) {		/* forgotten: free already */
			c->holes--;
			return idx;
		}
		if (e->referenced) {
			e->referenced = 0;
			continue;
		}
		unlink_locked(c, idx);
		c->stats.evictions++;
		return idx;
	}
}

void cache_insert(struct cache *c, const struct cache_key *key,
		  uint64_t generation)
{
	size_t idx, b;

	pthread_mutex_lock(&c->lock);
	if (!c->capacity || generation != c->generation ||
	    find_locked(c, key) >= 0)
		goto out;
	if (c->used < c->capacity)
		idx = c->used++;
	else
		idx = evict_locked(c);
	b = bucket_of(c, key);
	c->entries[idx].key = *key;
	c->entries[idx].used = 1;
	c->entries[idx].referenced = 0;
	c->entries[idx].next = c->buckets[b];
	c->buckets[b] = (uint32_t)idx + 1;
	c->stats.inserts++;
out:
	pthread_mutex_unlock(&c->lock);
}

void cache_forget(struct cache *c, uint64_t dev, uint64_t ino)
{
	uint32_t i, next;

	pthread_mutex_lock(&c->lock);
	if (!c->capacity)
		goto out;
	for (i = c->buckets[bucket_of_file(c, dev, ino)]; i; i = next) {
		struct cache_entry *e = &c->entries[i - 1];

		next = e->next;
		if (e->key.dev == dev && e->key.ino == ino) {
			unlink_locked(c, i - 1);
			c->holes++;
			c->stats.forgotten++;
		}
	}
out:
	pthread_mutex_unlock(&c->lock);
}

void cache_clear(struct cache *c)
{
	pthread_mutex_lock(&c->lock);
	c->generation++;
	if (c->capacity) {
		memset(c->entries, 0, c->capacity * sizeof(*c->entries));
		memset(c->buckets, 0, c->nbuckets * sizeof(*c->buckets));
	}
	c->used = 0;
	c->holes = 0;
	c->hand = 0;
	pthread_mutex_unlock(&c->lock);
}

void cache_get_stats(struct cache *c, struct cache_stats *out)
{
	pthread_mutex_lock(&c->lock);
	*out = c->stats;
	out->entries = c->used - c->holes;
	pthread_mutex_unlock(&c->lock);
}
