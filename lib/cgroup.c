// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Cgroup ids and paths.  The module names a cgroup (v2) by its id, which
 * is the inode number of its directory in the cgroup2 filesystem; going
 * back from an id to a path without CAP_DAC_READ_SEARCH (which
 * open_by_handle_at() needs) means walking that filesystem.  Paths here
 * are below the cgroup2 root, as /proc/PID/cgroup shows them ("/a/b").
 */
#include <errno.h>
#include <fts.h>
#include <mntent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include <linux/magic.h>

#include "internal.h"

/* Where this process sees the cgroup2 filesystem; -1/ENOENT if nowhere. */
static int cgroup2_mount(char *buf, size_t size)
{
	struct mntent ent;
	char line[DZ_PATH_MAX + 256];
	int found = 0;
	FILE *f = setmntent("/proc/self/mounts", "r");

	if (!f) {
		dz_fail(errno, "cannot find the cgroup2 filesystem: /proc/self/mounts");
		return -1;
	}
	while (!found && getmntent_r(f, &ent, line, sizeof(line))) {
		if (!strcmp(ent.mnt_type, "cgroup2") &&
		    strlen(ent.mnt_dir) < size) {
			strcpy(buf, ent.mnt_dir);
			found = 1;
		}
	}
	endmntent(f);
	if (!found) {
		dz_fail_plain(ENOENT, "cannot find the cgroup2 filesystem: not mounted");
		return -1;
	}
	return 0;
}

/* path, in the cgroup2 filesystem mounted at mnt, is a cgroup: its id. */
static int cgroup_dir_id(const char *path, uint64_t *id)
{
	struct statfs fs;
	struct stat st;

	if (stat(path, &st) || statfs(path, &fs))
		return -1;
	if (fs.f_type != CGROUP2_SUPER_MAGIC || !S_ISDIR(st.st_mode)) {
		errno = ENOENT;
		return -1;
	}
	*id = (uint64_t)st.st_ino;
	return 0;
}

DZ_EXPORT int dazukofs_cgroup_id(const char *path, uint64_t *id)
{
	char mnt[DZ_PATH_MAX], full[DZ_PATH_MAX];
	size_t mlen;

	if (!path || path[0] != '/' || !id) {
		dz_fail_plain(EINVAL, "cannot resolve cgroup '%.200s': not a path from '/'",
			      path ? path : "(null)");
		return -1;
	}
	if (cgroup2_mount(mnt, sizeof(mnt)))
		return -1;
	mlen = strlen(mnt);
	/* the cgroup2 filesystem's own path, or a path below its root */
	if (!strncmp(path, mnt, mlen) && (path[mlen] == '/' || !path[mlen]))
		snprintf(full, sizeof(full), "%s", path);
	else if (snprintf(full, sizeof(full), "%s%s", mnt, path) >= (int)sizeof(full)) {
		dz_fail_plain(ENAMETOOLONG, "cannot resolve cgroup '%.200s': too long", path);
		return -1;
	}
	if (cgroup_dir_id(full, id)) {
		dz_fail(errno, "cannot resolve cgroup '%.200s': %s is no cgroup", path,
			full);
		return -1;
	}
	return 0;
}

DZ_EXPORT int dazukofs_cgroup_path(uint64_t id, char *buf, size_t size)
{
	char mnt[DZ_PATH_MAX];
	char *roots[2] = { mnt, NULL };
	FTSENT *e;
	FTS *fts;
	int found = 0, err = ENOENT;

	if (!buf || !size) {
		dz_fail_plain(EINVAL, "cannot find cgroup %llu: no buffer",
			      (unsigned long long)id);
		return -1;
	}
	if (cgroup2_mount(mnt, sizeof(mnt)))
		return -1;
	fts = fts_open(roots, FTS_PHYSICAL | FTS_XDEV | FTS_NOCHDIR, NULL);
	if (!fts) {
		dz_fail(errno, "cannot find cgroup %llu: cannot walk %s",
			(unsigned long long)id, mnt);
		return -1;
	}
	while (!found && (e = fts_read(fts))) {
		const char *rel;

		/* only directories are cgroups; files are skipped unread */
		if (e->fts_info != FTS_D || (uint64_t)e->fts_statp->st_ino != id)
			continue;
		rel = e->fts_path + strlen(mnt);
		if (snprintf(buf, size, "%s", *rel ? rel : "/") >= (int)size)
			err = ERANGE;
		else
			found = 1;
		break;
	}
	fts_close(fts);
	if (!found) {
		dz_fail_plain(err, err == ERANGE ?
			      "cannot name cgroup %llu: its path does not fit" :
			      "cannot find cgroup %llu: none has that id",
			      (unsigned long long)id);
		return -1;
	}
	return (int)strlen(buf);
}
