// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the path prefix filters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "core/filter.h"

static void test_prefix_match(void **state)
{
	(void)state;
	assert_true(filter_prefix_match("/srv", "/srv"));
	assert_true(filter_prefix_match("/srv", "/srv/a"));
	assert_true(filter_prefix_match("/srv", "/srv/a/b"));
	assert_false(filter_prefix_match("/srv", "/srvx"));
	assert_false(filter_prefix_match("/srv", "/sr"));
	assert_false(filter_prefix_match("/srv/a", "/srv"));
	assert_true(filter_prefix_match("/", "/anything"));
	assert_false(filter_prefix_match("/", "relative"));
}

static void test_should_scan(void **state)
{
	char *inc_items[] = { "/srv", "/srv/cache/keep" };
	char *exc_items[] = { "/srv/cache", "/tmp" };
	struct str_list none = { NULL, 0 };
	struct str_list inc = { inc_items, 2 }, exc = { exc_items, 2 };

	(void)state;
	/* no lists: everything */
	assert_true(filter_should_scan(&none, &none, "/x"));
	/* excludes only */
	assert_false(filter_should_scan(&none, &exc, "/tmp/a"));
	assert_false(filter_should_scan(&none, &exc, "/tmp"));
	assert_true(filter_should_scan(&none, &exc, "/tmpfoo"));
	/* includes: only under them */
	assert_true(filter_should_scan(&inc, &none, "/srv/a"));
	assert_false(filter_should_scan(&inc, &none, "/home/a"));
	/* longest wins */
	assert_false(filter_should_scan(&inc, &exc, "/srv/cache/x"));
	assert_true(filter_should_scan(&inc, &exc, "/srv/cache/keep/x"));
	assert_true(filter_should_scan(&inc, &exc, "/srv/cachex"));
	assert_false(filter_should_scan(&inc, &exc, "/tmp/x"));
}

static void test_tie_excludes(void **state)
{
	char *items[] = { "/srv" };
	struct str_list l = { items, 1 };

	(void)state;
	assert_false(filter_should_scan(&l, &l, "/srv/a"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefix_match),
		cmocka_unit_test(test_should_scan),
		cmocka_unit_test(test_tie_excludes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
