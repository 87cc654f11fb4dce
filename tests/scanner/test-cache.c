// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the verdict cache. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/cache.h"

/*
 * Linked with -Wl,--wrap=calloc: the cache's allocations go through here,
 * and the n-th from now fails when calloc_fail_in is n.
 */
void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);
static int calloc_fail_in;

void *__wrap_calloc(size_t n, size_t size)
{
	if (calloc_fail_in > 0 && --calloc_fail_in == 0)
		return NULL;
	return __real_calloc(n, size);
}

static struct cache_key key(uint64_t ino)
{
	struct cache_key k;

	memset(&k, 0, sizeof(k));
	k.dev = 7;
	k.ino = ino;
	k.size = 100;
	k.mtime_sec = 1000;
	k.ctime_sec = 1000;
	return k;
}

static void test_hit_miss(void **state)
{
	struct cache c;
	struct cache_key k = key(1), k2;
	struct cache_stats s;

	(void)state;
	assert_int_equal(cache_init(&c, 8), 0);
	assert_false(cache_lookup(&c, &k));
	cache_insert(&c, &k, cache_generation(&c));
	assert_true(cache_lookup(&c, &k));
	/* every field is part of the key */
	k2 = k; k2.dev++;         assert_false(cache_lookup(&c, &k2));
	k2 = k; k2.ino++;         assert_false(cache_lookup(&c, &k2));
	k2 = k; k2.size++;        assert_false(cache_lookup(&c, &k2));
	k2 = k; k2.mtime_sec++;   assert_false(cache_lookup(&c, &k2));
	k2 = k; k2.mtime_nsec++;  assert_false(cache_lookup(&c, &k2));
	k2 = k; k2.ctime_sec++;   assert_false(cache_lookup(&c, &k2));
	k2 = k; k2.ctime_nsec++;  assert_false(cache_lookup(&c, &k2));
	cache_get_stats(&c, &s);
	assert_int_equal(s.hits, 1);
	assert_int_equal(s.misses, 8);
	assert_int_equal(s.entries, 1);
	/* a second insert of the same key is no new entry */
	cache_insert(&c, &k, cache_generation(&c));
	cache_get_stats(&c, &s);
	assert_int_equal(s.entries, 1);
	cache_destroy(&c);
}

static void test_bounded(void **state)
{
	struct cache c;
	struct cache_stats s;
	struct cache_key k;
	int present = 0;

	(void)state;
	assert_int_equal(cache_init(&c, 4), 0);
	for (uint64_t i = 0; i < 100; i++) {
		k = key(i);
		cache_insert(&c, &k, cache_generation(&c));
	}
	cache_get_stats(&c, &s);
	assert_int_equal(s.entries, 4);
	assert_int_equal(s.evictions, 96);
	for (uint64_t i = 0; i < 100; i++) {
		k = key(i);
		present += cache_lookup(&c, &k);
	}
	assert_int_equal(present, 4);
	/* the last one inserted is there */
	k = key(99);
	assert_true(cache_lookup(&c, &k));
	cache_destroy(&c);
}

/* The clock gives a referenced entry a second chance. */
static void test_second_chance(void **state)
{
	struct cache c;
	struct cache_key k;

	(void)state;
	assert_int_equal(cache_init(&c, 3), 0);
	for (uint64_t i = 1; i <= 3; i++) {
		k = key(i);
		cache_insert(&c, &k, 0);
	}
	k = key(1);
	assert_true(cache_lookup(&c, &k));	/* 1 referenced */
	k = key(4);
	cache_insert(&c, &k, 0);		/* evicts 2, not 1 */
	k = key(1);
	assert_true(cache_lookup(&c, &k));
	k = key(2);
	assert_false(cache_lookup(&c, &k));
	k = key(3);
	assert_true(cache_lookup(&c, &k));
	k = key(4);
	assert_true(cache_lookup(&c, &k));
	cache_destroy(&c);
}

static void test_clear_generation(void **state)
{
	struct cache c;
	struct cache_key k = key(1), k2 = key(2);
	uint64_t old;

	(void)state;
	assert_int_equal(cache_init(&c, 8), 0);
	old = cache_generation(&c);
	cache_insert(&c, &k, old);
	cache_clear(&c);
	assert_false(cache_lookup(&c, &k));
	/* a scan that began before the clear does not fill the new cache */
	cache_insert(&c, &k2, old);
	assert_false(cache_lookup(&c, &k2));
	cache_insert(&c, &k2, cache_generation(&c));
	assert_true(cache_lookup(&c, &k2));
	cache_destroy(&c);
}

static void test_disabled(void **state)
{
	struct cache c;
	struct cache_key k = key(1);

	(void)state;
	assert_int_equal(cache_init(&c, 0), 0);
	cache_insert(&c, &k, 0);
	assert_false(cache_lookup(&c, &k));
	cache_clear(&c);
	cache_destroy(&c);
}

/* A failed init frees what it got; the caller's destroy frees nothing twice. */
static void test_init_fails(void **state)
{
	struct cache c;
	struct cache_key k = key(1);

	(void)state;
	for (int which = 1; which <= 2; which++) {
		calloc_fail_in = which;	/* the entries, then the index */
		errno = 0;
		assert_int_equal(cache_init(&c, 8), -1);
		assert_int_equal(errno, ENOMEM);
		assert_int_equal(calloc_fail_in, 0);
		/* usable as no cache, then destroyed like any other */
		cache_insert(&c, &k, cache_generation(&c));
		assert_false(cache_lookup(&c, &k));
		cache_destroy(&c);
	}
}

struct hammer {
	struct cache *c;
	unsigned int seed;
};

static void *hammer_main(void *arg)
{
	struct hammer *h = arg;

	for (int i = 0; i < 20000; i++) {
		struct cache_key k = key(rand_r(&h->seed) % 300);

		if (!cache_lookup(h->c, &k))
			cache_insert(h->c, &k, cache_generation(h->c));
		if (i % 5000 == 4999)
			cache_clear(h->c);
	}
	return NULL;
}

static void test_threads(void **state)
{
	struct hammer h[4];
	pthread_t t[4];
	struct cache c;
	struct cache_stats s;

	(void)state;
	assert_int_equal(cache_init(&c, 64), 0);
	for (int i = 0; i < 4; i++) {
		h[i].c = &c;
		h[i].seed = (unsigned int)i + 1;
		assert_int_equal(pthread_create(&t[i], NULL, hammer_main, &h[i]), 0);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	cache_get_stats(&c, &s);
	assert_int_equal(s.hits + s.misses, 80000);
	assert_true(s.entries <= 64);
	/* the index is consistent: as many keys findable as entries */
	{
		uint64_t found = 0;

		for (uint64_t i = 0; i < 300; i++) {
			struct cache_key k = key(i);

			found += (uint64_t)cache_lookup(&c, &k);
		}
		assert_int_equal(found, s.entries);
	}
	cache_destroy(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hit_miss),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_second_chance),
		cmocka_unit_test(test_clear_generation),
		cmocka_unit_test(test_disabled),
		cmocka_unit_test(test_init_fails),
		cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
