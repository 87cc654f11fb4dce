// SPDX-License-Identifier: LGPL-2.1-or-later
/* Counters from sysfs: DAZUKOFS_SYSFS_ROOT[/groups/NAME]. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

struct dz_counter {
	const char *file;
	size_t offset;
};

#define DZ_C(file, field) { file, offsetof(struct dazukofs_stats, field) }
static const struct dz_counter dz_counters[] = {
	DZ_C("events", events),
	DZ_C("allowed", allowed),
	DZ_C("denied", denied),
	DZ_C("cancelled", cancelled),
	DZ_C("timeouts", timeouts),
	DZ_C("waiting", waiting),
	DZ_C("in_hand", in_hand),
	DZ_C("readers", readers),
	DZ_C("latency/max_us", latency_max_us),
	DZ_C("latency/le_100us", latency_le_100us),
	DZ_C("latency/le_1ms", latency_le_1ms),
	DZ_C("latency/le_10ms", latency_le_10ms),
	DZ_C("latency/le_100ms", latency_le_100ms),
	DZ_C("latency/le_1s", latency_le_1s),
	DZ_C("latency/gt_1s", latency_gt_1s),
};

DZ_EXPORT int dazukofs_get_stats(const char *group, struct dazukofs_stats *stats)
{
	char what[128], dir[DZ_PATH_MAX], path[DZ_PATH_MAX + 32], buf[32];
	struct dazukofs_stats s;
	struct stat st;
	size_t i;

	if (group)
		snprintf(what, sizeof(what), "cannot read the counters of group '%.80s'",
			 group);
	else
		snprintf(what, sizeof(what), "cannot read the counters");
	if (!stats) {
		dz_fail_plain(EINVAL, "%s: no struct to fill", what);
		return -1;
	}
	if (group && !dz_check_name(what, group))
		return -1;
	if (group ? dz_path(dir, sizeof(dir), DZ_SYSFS, "/groups/%s", group) :
		    dz_path(dir, sizeof(dir), DZ_SYSFS, "%s", ""))
		return -1;
	if (stat(dir, &st)) {
		if (errno == ENOENT && group)
			dz_fail_plain(ENOENT, "%s: no such group (%s does not exist)",
				      what, dir);
		else
			dz_fail(errno, "%s: %s", what, dir);
		return -1;
	}
	memset(&s, 0, sizeof(s));
	for (i = 0; i < sizeof(dz_counters) / sizeof(dz_counters[0]); i++) {
		uint64_t v;

		snprintf(path, sizeof(path), "%s/%s", dir, dz_counters[i].file);
		if (dz_read_attr(path, buf, sizeof(buf))) {
			dz_fail(errno, "%s: read %s", what, path);
			return -1;
		}
		if (dazukofs_parse_uint(buf, UINT64_MAX, &v)) {
			dz_fail_plain(EIO, "%s: %s holds '%s', not a number", what,
				      path, buf);
			return -1;
		}
		memcpy((char *)&s + dz_counters[i].offset, &v, sizeof(v));
	}
	s.active = 1;
	if (group) {
		uint64_t v;

		snprintf(path, sizeof(path), "%s/active", dir);
		if (dz_read_attr(path, buf, sizeof(buf))) {
			dz_fail(errno, "%s: read %s", what, path);
			return -1;
		}
		if (dazukofs_parse_uint(buf, 1, &v)) {
			dz_fail_plain(EIO, "%s: %s holds '%s', not 0 or 1", what,
				      path, buf);
			return -1;
		}
		s.active = (int)v;
	}
	*stats = s;
	return 0;
}

DZ_EXPORT int dazukofs_get_cache_stats(const char *group,
				       struct dazukofs_cache_stats *stats)
{
	static const struct {
		const char *file;
		size_t offset;
	} files[] = {
		{ "cache_hits", offsetof(struct dazukofs_cache_stats, hits) },
		{ "cache_misses", offsetof(struct dazukofs_cache_stats, misses) },
		{ "cache_invalidations",
		  offsetof(struct dazukofs_cache_stats, invalidations) },
	};
	char what[128], dir[DZ_PATH_MAX], path[DZ_PATH_MAX + 32], buf[32];
	struct dazukofs_cache_stats s;
	struct stat st;
	size_t i;

	if (group)
		snprintf(what, sizeof(what),
			 "cannot read the cache counters of group '%.64s'",
			 group);
	else
		snprintf(what, sizeof(what), "cannot read the verdict cache counters");
	if (!stats) {
		dz_fail_plain(EINVAL, "%s: no struct to fill", what);
		return -1;
	}
	if (group && !dz_check_name(what, group))
		return -1;
	if (group ? dz_path(dir, sizeof(dir), DZ_SYSFS, "/groups/%s", group) :
		    dz_path(dir, sizeof(dir), DZ_SYSFS, "%s", ""))
		return -1;
	if (stat(dir, &st)) {
		dz_fail(errno, "%s: %s", what, dir);
		return -1;
	}
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		uint64_t v;

		snprintf(path, sizeof(path), "%s/%s", dir, files[i].file);
		if (dz_read_attr(path, buf, sizeof(buf))) {
			if (errno == ENOENT)
				dz_fail_plain(EOPNOTSUPP,
					      "%s: the dazukofs module has no %s (too old)",
					      what, files[i].file);
			else
				dz_fail(errno, "%s: read %s", what, path);
			return -1;
		}
		if (dazukofs_parse_uint(buf, UINT64_MAX, &v)) {
			dz_fail_plain(EIO, "%s: %s holds '%s', not a number", what,
				      path, buf);
			return -1;
		}
		memcpy((char *)&s + files[i].offset, &v, sizeof(v));
	}
	*stats = s;
	return 0;
}
