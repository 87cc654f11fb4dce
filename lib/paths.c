// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Where the library looks: configfs, sysfs and the devices.  The one piece
 * of process-wide configuration (besides the ignore fd); it is copied under
 * a mutex, so dazukofs_set_paths() may race with other calls safely, but it
 * is meant to be called once, before any handle is opened.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <linux/dazukofs.h>

#include "internal.h"

#define DZ_IGN_DEV_DEFAULT DAZUKOFS_DEV_PREFIX "ign"

static pthread_mutex_t dz_paths_lock = PTHREAD_MUTEX_INITIALIZER;
static char dz_roots[4][DZ_PATH_MAX] = {
	[DZ_CONFIGFS] = DAZUKOFS_CONFIGFS_ROOT,
	[DZ_SYSFS] = DAZUKOFS_SYSFS_ROOT,
	[DZ_DEV_PREFIX] = DAZUKOFS_DEV_PREFIX,
	[DZ_IGN_DEV] = DZ_IGN_DEV_DEFAULT,
};

static void dz_set_root(enum dz_root root, const char *value, const char *def)
{
	const char *v = value ? value : def;

	/* Too long a path is cut; every later use then fails with ENOENT. */
	snprintf(dz_roots[root], sizeof(dz_roots[root]), "%s", v);
}

DZ_EXPORT void dazukofs_set_paths(const struct dazukofs_paths *paths)
{
	static const struct dazukofs_paths none;

	if (!paths)
		paths = &none;
	pthread_mutex_lock(&dz_paths_lock);
	dz_set_root(DZ_CONFIGFS, paths->configfs, DAZUKOFS_CONFIGFS_ROOT);
	dz_set_root(DZ_SYSFS, paths->sysfs, DAZUKOFS_SYSFS_ROOT);
	dz_set_root(DZ_DEV_PREFIX, paths->dev_prefix, DAZUKOFS_DEV_PREFIX);
	dz_set_root(DZ_IGN_DEV, paths->ign_dev, DZ_IGN_DEV_DEFAULT);
	pthread_mutex_unlock(&dz_paths_lock);
}

int dz_path(char *buf, size_t size, enum dz_root root, const char *fmt, ...)
{
	size_t len;
	va_list ap;
	int n;

	pthread_mutex_lock(&dz_paths_lock);
	len = strlen(dz_roots[root]);
	if (len < size)
		memcpy(buf, dz_roots[root], len + 1);
	pthread_mutex_unlock(&dz_paths_lock);
	if (len >= size)
		goto too_long;
	va_start(ap, fmt);
	n = vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size - len)
		goto too_long;
	return 0;
too_long:
	dz_fail(ENAMETOOLONG, "path under %s", buf);
	return -1;
}
