/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Path prefix filters.  A prefix matches a path equal to it or below it
 * (on a '/' boundary: /srv matches /srv/a, not /srvx).  The longest
 * matching prefix decides (an exclude wins a tie); a path no prefix
 * matches is scanned unless there are include prefixes.
 */
#ifndef SCANNER_FILTER_H
#define SCANNER_FILTER_H

#include "config/config.h"

int filter_prefix_match(const char *prefix, const char *path);
/* 1: scan the file, 0: skip it (allowed unscanned). */
int filter_should_scan(const struct str_list *include,
		       const struct str_list *exclude, const char *path);

#endif
