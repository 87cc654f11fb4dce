// SPDX-License-Identifier: GPL-2.0
/*
 * Exclusions by the opening process (opener.h).
 *
 * Races.  Both sources give the opener's tgid, and the opener waits,
 * killably, in its open until the scanner answers: its pid cannot be
 * freed and reused meanwhile unless it is killed, and then its open has
 * failed anyway and the verdict is moot.  An execve by another of its
 * threads kills the waiting thread the same way.  /proc/PID is opened
 * once and both reads go through that directory fd, which stays bound to
 * that process (a reused pid gives ESRCH, not another process's data).
 *
 * Safety.  An exclusion only lets this one open through unscanned: the
 * caller never caches it, so another user's open of the same file is
 * scanned.  Any doubt (the process gone, an unreadable /proc, a deleted
 * or replaced executable) means "not excluded": the file is scanned.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cgroup_names.h"
#include "core/opener.h"
#include "log/log.h"
#include "util/workload.h"

int opener_exclusions(const struct config *cfg)
{
	return cfg->exclude_root || cfg->exclude_uids.n || cfg->exclude_exes.n ||
	       cfg->exclude_units.n || cfg->exclude_cgroups.n;
}

/*
 * The opener's cgroup, from /proc/PID/cgroup through its directory fd,
 * against exclude_unit and exclude_cgroup.  Who can move a process into
 * an excluded cgroup could have excluded it: cgroup.procs of a cgroup
 * below slices is root's, and a unit's path only matches below slices.
 */
static int cgroup_excluded(const struct config *cfg, int dirfd, char *why, size_t whylen)
{
	char text[4096 + 512], path[4096];
	ssize_t n;
	int fd = openat(dirfd, "cgroup", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	text[n] = 0;
	if (cgroup_names_parse_proc(text, path, sizeof(path)))
		return 0;
	for (size_t i = 0; i < cfg->exclude_units.n; i++)
		if (workload_path_in_unit(path, cfg->exclude_units.items[i])) {
			snprintf(why, whylen, "unit %s", cfg->exclude_units.items[i]);
			return 1;
		}
	for (size_t i = 0; i < cfg->exclude_cgroups.n; i++)
		if (workload_path_under(path, cfg->exclude_cgroups.items[i])) {
			snprintf(why, whylen, "cgroup %s", cfg->exclude_cgroups.items[i]);
			return 1;
		}
	return 0;
}

int opener_parse_uids(const char *status, uid_t *ruid, uid_t *euid, uid_t *fsuid)
{
	const char *l = strstr(status, "\nUid:");
	unsigned long v[4];
	char *end;

	if (!l)
		return -1;
	l += 5;
	for (int i = 0; i < 4; i++) {
		if (*l != '\t' && *l != ' ')
			return -1;
		errno = 0;
		v[i] = strtoul(l, &end, 10);
		if (errno || end == l || v[i] > (uid_t)-1)
			return -1;
		l = end;
	}
	*ruid = (uid_t)v[0];
	*euid = (uid_t)v[1];
	*fsuid = (uid_t)v[3];
	return 0;
}

static int uid_excluded(const struct config *cfg, uid_t uid)
{
	if (uid == 0 && cfg->exclude_root)
		return 1;
	for (size_t i = 0; i < cfg->exclude_uids.n; i++)
		if (cfg->exclude_uids.v[i] == uid)
			return 1;
	return 0;
}

/* /proc/PID/status read through its directory fd; -1 if it cannot be. */
static int read_status(int dirfd, char *buf, size_t size)
{
	ssize_t n;
	size_t got = 0;
	int fd = openat(dirfd, "status", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	/* the Uid: line is in the first kilobyte; a short read is retried */
	while (got < size - 1 && (n = read(fd, buf + got, size - 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	if (!got)
		return -1;
	buf[got] = 0;
	return 0;
}

int opener_uid(pid_t pid, uid_t *uid)
{
	char p[32], status[4096];
	uid_t euid, fsuid;
	int dirfd, rc;

	if (pid <= 0)
		return -1;
	snprintf(p, sizeof(p), "/proc/%d", (int)pid);
	dirfd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -1;
	rc = read_status(dirfd, status, sizeof(status)) ||
	     opener_parse_uids(status, uid, &euid, &fsuid) ? -1 : 0;
	close(dirfd);
	return rc;
}

/*
 * All of the real, effective and filesystem uids must be excluded: a
 * set-uid program run by an excluded user, or an excluded root daemon
 * acting as a user (setfsuid), is scanned.  The saved uid does not open
 * files.
 */
static int uids_excluded(const struct config *cfg, uid_t ruid, uid_t euid,
			 uid_t fsuid, char *why, size_t whylen)
{
	if (!uid_excluded(cfg, ruid) || !uid_excluded(cfg, euid) ||
	    !uid_excluded(cfg, fsuid))
		return 0;
	snprintf(why, whylen, "uid %u", (unsigned int)ruid);
	return 1;
}

int opener_ids_uid(const struct opener_ids *who, uid_t *uid)
{
	if (who->have_uids) {
		*uid = who->uid;
		return 0;
	}
	return opener_uid(who->pid, uid);
}

int opener_excluded(const struct config *cfg, pid_t pid, char *why, size_t whylen)
{
	const struct opener_ids who = { .pid = pid };

	return opener_excluded_ids(cfg, &who, why, whylen);
}

int opener_excluded_ids(const struct config *cfg, const struct opener_ids *who,
			char *why, size_t whylen)
{
	char p[32], status[4096], exe[PATH_MAX];
	int by_uid = cfg->exclude_root || cfg->exclude_uids.n;
	uid_t ruid, euid, fsuid;
	int dirfd, excluded = 0;
	ssize_t n;

	/* The event's own uids: the opener's when it opened, no /proc. */
	if (by_uid && who->have_uids) {
		if (uids_excluded(cfg, who->uid, who->euid, who->fsuid, why,
				  whylen))
			return 1;
		by_uid = 0;
	}
	if (who->pid <= 0 || (!by_uid && !cfg->exclude_exes.n &&
				!cfg->exclude_units.n && !cfg->exclude_cgroups.n))
		return 0;
	snprintf(p, sizeof(p), "/proc/%d", (int)who->pid);
	dirfd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return 0;
	if (by_uid && !read_status(dirfd, status, sizeof(status)) &&
	    !opener_parse_uids(status, &ruid, &euid, &fsuid) &&
	    uids_excluded(cfg, ruid, euid, fsuid, why, whylen))
		excluded = 1;
	if (!excluded && (cfg->exclude_units.n || cfg->exclude_cgroups.n))
		excluded = cgroup_excluded(cfg, dirfd, why, whylen);
	if (!excluded && cfg->exclude_exes.n) {
		n = readlinkat(dirfd, "exe", exe, sizeof(exe) - 1);
		/*
		 * /proc/PID/exe needs ptrace read access: without
		 * CAP_SYS_PTRACE (the shipped unit's bounding set) another
		 * user's process, or one with more capabilities, cannot be
		 * told, and is scanned.  Said once, so that the admin knows
		 * why exclude_exe does not apply; the flag is the process's
		 * like the log it guards.
		 */
		if (n < 0 && (errno == EACCES || errno == EPERM)) {
			static atomic_flag warned = ATOMIC_FLAG_INIT;

			if (!atomic_flag_test_and_set(&warned))
				log_warning("exclude_exe: cannot read /proc/%d/exe (%s): such processes are scanned; give the scanner CAP_SYS_PTRACE for exclude_exe to apply to every process",
					    (int)who->pid, strerror(errno));
		}
		/*
		 * A deleted executable reads "PATH (deleted)", which matches
		 * no configured path: whatever is at PATH now is not what runs.
		 */
		if (n > 0) {
			exe[n] = 0;
			for (size_t i = 0; i < cfg->exclude_exes.n; i++)
				if (!strcmp(exe, cfg->exclude_exes.items[i])) {
					snprintf(why, whylen, "exe %s", exe);
					excluded = 1;
					break;
				}
		}
	}
	close(dirfd);
	return excluded;
}
