// SPDX-License-Identifier: GPL-2.0
/* Path prefix filters (see filter.h). */
#include <string.h>

#include "core/filter.h"

int filter_prefix_match(const char *prefix, const char *path)
{
	size_t n = strlen(prefix);

	if (n == 1 && prefix[0] == '/')
		return path[0] == '/';
	return !strncmp(prefix, path, n) && (path[n] == 0 || path[n] == '/');
}

/* Length of the longest prefix of the list matching path; -1 if none. */
static long longest(const struct str_list *l, const char *path)
{
	long best = -1;

	for (size_t i = 0; i < l->n; i++) {
		long n = (long)strlen(l->items[i]);

		if (n > best && filter_prefix_match(l->items[i], path))
			best = n;
	}
	return best;
}

int filter_should_scan(const struct str_list *include,
		       const struct str_list *exclude, const char *path)
{
	long inc = longest(include, path), exc = longest(exclude, path);

	if (exc >= 0 && exc >= inc)
		return 0;
	if (inc >= 0)
		return 1;
	return include->n == 0;
}
