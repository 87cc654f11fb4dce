/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libdazukofs: the userspace API of DazukoFS.
 *
 * Groups (configfs), workers (the group devices), the ignore device and the
 * counters (sysfs), so that nobody has to parse the device protocol or poke
 * configfs by hand.  Functions return 0 or a positive count on success and
 * -1 with errno set on failure; dazukofs_strerror() then gives a message that
 * says what was tried.  One handle per thread; handles are not shared.
 */
#ifndef DAZUKOFS_H
#define DAZUKOFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The kernel's values (<linux/dazukofs.h>, which is not installed), here
 * again for programs that use only this header: libdazukofs compiles both
 * headers into one unit, where a value that differs is a redefinition,
 * which fails the build (-Werror).
 */
#define DAZUKOFS_ALLOW 0
#define DAZUKOFS_DENY 1

/* Group settings, for dazukofs_group_create() and dazukofs_group_info(). */
struct dazukofs_group_config {
	int track;			/* 1: crash-tracked registration */
	unsigned int timeout_ms;	/* 0: wait for ever */
	int timeout_action;		/* DAZUKOFS_ALLOW or DAZUKOFS_DENY */
};

/*
 * The settings of a group made with mkdir, which dazukofs_group_create()
 * also gives for a NULL config.  Crash-tracked, so that a daemon that dies
 * holds no open: its workers' events go to another worker, and with none
 * left opens pass.  Start from this and change what differs; a config
 * zeroed by hand asks for the 2009 behaviour (track 0: events wait for a
 * worker, even one that died holding them).
 */
#define DAZUKOFS_GROUP_CONFIG_DEFAULT \
	{ .track = 1, .timeout_ms = 0, .timeout_action = DAZUKOFS_ALLOW }

struct dazukofs_group_info {
	char name[65];
	int id;
	struct dazukofs_group_config config;
};

/* Counters of one group, or of all (sysfs /sys/fs/dazukofs[/groups/NAME]). */
struct dazukofs_stats {
	uint64_t events, allowed, denied, cancelled, timeouts;
	uint64_t waiting, in_hand, readers;
	int active;			/* groups only; 1 for the totals */
	uint64_t latency_max_us;
	uint64_t latency_le_100us, latency_le_1ms, latency_le_10ms;
	uint64_t latency_le_100ms, latency_le_1s, latency_gt_1s;
};

/* One access event, as a worker holds it. */
struct dazukofs_access {
	unsigned long id;	/* event id, echoed by dazukofs_return_access() */
	int fd;			/* read-only fd to the file; the caller closes it */
	pid_t pid;		/* the opener */
	int deny;		/* the verdict to give: set before returning */
};

/* The access bits of dazukofs_access_info: how the opener opened the file. */
#define DAZUKOFS_ACCESS_READ		0x1
#define DAZUKOFS_ACCESS_WRITE		0x2
#define DAZUKOFS_ACCESS_TRUNC		0x4	/* O_TRUNC */
#define DAZUKOFS_ACCESS_CREATE		0x8	/* the open created the file */

/*
 * What a record of format 2 or 3 says besides struct dazukofs_access; of a
 * format-1 record only format is set (1), the rest is 0.
 */
struct dazukofs_access_info {
	int format;		/* DAZUKOFS_RECORD_V1, _V2 or _V3 */
	unsigned int type;	/* DAZUKOFS_EVENT_OPEN, _EXEC or _CLOSE_WRITE */
	unsigned int access;	/* DAZUKOFS_ACCESS_* */
	/*
	 * Not 0: the kernel could not open the file for the worker (an errno
	 * value); acc->fd is -1 and the event is already settled by the
	 * group's open_error_action: do not answer it.
	 */
	int fd_error;
	uid_t uid, euid, fsuid;	/* the opener's real, effective and fs uid */
	dev_t dev;		/* the file's st_dev */
	uint64_t ino;		/* and st_ino (ino_t's size depends on the build) */
	int64_t size;		/* its size when acc->fd was opened */
	uint64_t change;	/* its change counter then, 0 if none is kept */
	/*
	 * Format 3: the opener's cgroup v2 id (the closer's for a
	 * close_write); dazukofs_cgroup_path() names it.  0 in format 2.
	 */
	uint64_t cgroup;
	uint64_t reserved[3];	/* zero: room for later fields */
};

/* Where the library looks; NULL members mean the system defaults. */
struct dazukofs_paths {
	const char *configfs;	/* default /sys/kernel/config/dazukofs */
	const char *sysfs;	/* default /sys/fs/dazukofs */
	const char *dev_prefix;	/* default /dev/dazukofs. */
	const char *ign_dev;	/* default /dev/dazukofs.ign */
};

/* For tests: use these roots instead of the system's (NULL restores). */
void dazukofs_set_paths(const struct dazukofs_paths *paths);

/* DAZUKOFS_ALLOW's or DAZUKOFS_DENY's name, "allow" or "deny" (anything else: "allow"). */
const char *dazukofs_action_name(int action);

/*
 * The number a string of decimal digits writes, if at most max: the rule
 * for every number the module, its tools and configs read.  No sign, blank
 * or prefix.  -1/EINVAL if s is not such a string, -1/ERANGE if too large.
 */
int dazukofs_parse_uint(const char *s, uint64_t max, uint64_t *out);

/* Groups */
/* 1 if name is a group name: 1 to 64 of A-Z a-z 0-9 _ -; else 0. */
int dazukofs_group_name_valid(const char *name);
int dazukofs_group_create(const char *name,
			  const struct dazukofs_group_config *config);
int dazukofs_group_delete(const char *name);
/*
 * How long (ms, at most 600000) a tracked group whose last worker went
 * stays active for a worker to come back; 0 (the default) goes inactive at
 * once.  -1/EOPNOTSUPP if the module is too old to know grace_ms.
 */
int dazukofs_group_set_grace(const char *name, unsigned int ms);
/*
 * How long (microseconds, at most 1000) an opener waiting for the group's
 * answer, and a worker waiting in a read for an event, spin before they
 * sleep: for workers that answer within microseconds, at the cost of CPU
 * time.  0 (the default) never spins.  -1/EOPNOTSUPP if the module is too
 * old to know busy_poll_us.
 */
int dazukofs_group_set_busy_poll(const char *name, unsigned int us);
/*
 * Forget every verdict the group's workers asked to be remembered (after
 * loading new signatures).  -1/EOPNOTSUPP if the module is too old.
 */
int dazukofs_group_flush(const char *name);
/*
 * What makes events for the group (the same bits as the kernel's
 * <linux/dazukofs.h>): opens (the default), opens for execve, closes of
 * files written through a mount (the closer does not wait; a deny is
 * remembered).  At least one.  -1/EOPNOTSUPP if the module is too old.
 */
#define DAZUKOFS_EVENT_OPEN		0x1
#define DAZUKOFS_EVENT_EXEC		0x2
#define DAZUKOFS_EVENT_CLOSE_WRITE	0x4
int dazukofs_group_set_events(const char *name, unsigned int events);
/*
 * Event names as bits: "open exec close_write", blanks or commas between,
 * in any order; 0 if a word names no event, or none is given.
 */
unsigned int dazukofs_events_parse(const char *names);
/*
 * Bits as the module names them, in its order ("open close_write"), in
 * buf.  -1/EINVAL for no event or an unknown bit, -1/ERANGE if too small.
 */
int dazukofs_events_format(unsigned int events, char *buf, size_t size);
/*
 * The group's record format: DAZUKOFS_RECORD_V1 (the default, id, fd and
 * pid only), DAZUKOFS_RECORD_V2 (also who opened the file how, which
 * file it is, and fd errors; see dazukofs_get_access_info()) or
 * DAZUKOFS_RECORD_V3 (format 2 and the opener's cgroup).  The reading
 * functions below take any.  -1/EOPNOTSUPP if the module is too old.
 */
#define DAZUKOFS_RECORD_V1		1
#define DAZUKOFS_RECORD_V2		2
#define DAZUKOFS_RECORD_V3		3
int dazukofs_group_set_record(const char *name, int format);
/*
 * The cgroups (v2) whose processes, and their descendants', make no event
 * for the group: n ids (0 for none), at most
 * DAZUKOFS_EXCLUDE_CGROUPS_MAX, replacing the list.  -1/ENOENT if an id
 * names no cgroup (the list is then unchanged), -1/EOPNOTSUPP if the
 * module is too old.  The getter fills up to max ids and returns how many
 * the group excludes (removed cgroups drop out).
 */
#define DAZUKOFS_EXCLUDE_CGROUPS_MAX	64
int dazukofs_group_set_exclude_cgroups(const char *name, const uint64_t *ids,
				       size_t n);
int dazukofs_group_get_exclude_cgroups(const char *name, uint64_t *ids,
				       size_t max);
/*
 * Cgroup ids and paths.  A path is below the cgroup2 root, as
 * /proc/PID/cgroup shows it ("/system.slice/x.service"), or the
 * directory's own path in the mounted cgroup2 filesystem.
 * dazukofs_cgroup_id(): -1/ENOENT if the path is no cgroup.
 * dazukofs_cgroup_path() walks the cgroup2 filesystem for the id (no
 * privilege needed; cost grows with the number of cgroups): the path's
 * length, -1/ENOENT if no cgroup has the id (any more), -1/ERANGE if
 * the path does not fit.
 */
int dazukofs_cgroup_id(const char *path, uint64_t *id);
int dazukofs_cgroup_path(uint64_t id, char *buf, size_t size);
/*
 * What the setters above set, read back.  -1/EOPNOTSUPP if the module is
 * too old to have the attribute.
 */
int dazukofs_group_get_grace(const char *name, unsigned int *ms);
int dazukofs_group_get_busy_poll(const char *name, unsigned int *us);
int dazukofs_group_get_events(const char *name, unsigned int *events);
int dazukofs_group_get_record(const char *name, int *format);
/*
 * Any attribute of the group's configfs directory by its name, as the
 * text the module reads and shows (one line, without its newline):
 * max_queue, open_error_action, overflow_action, armed and the others,
 * documented in the DazukoFS documentation.  The module checks the
 * value (-1/EINVAL); -1/EOPNOTSUPP if it has no such attribute, -1/ERANGE
 * if the value does not fit in size bytes.
 */
int dazukofs_group_set_attr(const char *name, const char *attr, const char *value);
int dazukofs_group_get_attr(const char *name, const char *attr, char *buf,
			    size_t size);
/* Fills up to max infos, returns how many groups exist (may be > max). */
int dazukofs_group_list(struct dazukofs_group_info *infos, size_t max);
int dazukofs_group_info(const char *name, struct dazukofs_group_info *info);

/* Workers */
typedef struct dazukofs_handle *dazukofs_handle_t;

#define DAZUKOFS_NONBLOCK 1

/* Open the device of group NAME (which must exist). flags: DAZUKOFS_NONBLOCK. */
dazukofs_handle_t dazukofs_open(const char *group, int flags);
/* The fd to poll/epoll for readability (POLLIN: an event waits). */
int dazukofs_get_fd(dazukofs_handle_t handle);
/*
 * Next event; blocks unless DAZUKOFS_NONBLOCK (then -1/EAGAIN).  A record
 * that does not parse gives -1/EPROTO, its file's fd closed.
 */
int dazukofs_get_access(dazukofs_handle_t handle, struct dazukofs_access *acc);
/*
 * The same, and what the record says besides (info).  On a format-2 group
 * a record may be an fd error: info->fd_error set, acc->fd -1, and it
 * must not be answered.  (dazukofs_get_access() skips those.)
 */
int dazukofs_get_access_info(dazukofs_handle_t handle,
			     struct dazukofs_access *acc,
			     struct dazukofs_access_info *info);
/*
 * Up to max events (at most DAZUKOFS_BATCH_MAX) in one read on a format-2
 * group (1 on a format-1 group); waits only for the first.  infos may be
 * NULL: fd-error records are then skipped.  Returns how many it took.  A
 * malformed record among them is left out (its fd closed if it names it
 * for sure): the others are returned, with dazukofs_strerror() saying so
 * and errno EPROTO; -1/EPROTO if none was well-formed.
 */
#define DAZUKOFS_BATCH_MAX 1024
int dazukofs_get_accesses(dazukofs_handle_t handle,
			  struct dazukofs_access *accs,
			  struct dazukofs_access_info *infos, size_t max);
/*
 * Answer n events with their deny (flags as dazukofs_return_access_flags()),
 * in one write on a format-2 group, one write each on a format-1 group,
 * and close their fds.  Entries whose fd is -1 (fd errors) are left out:
 * do not set an event's fd to -1 yourself before answering it here (its
 * opener would wait for the group's timeout, or for ever).
 * An answer the kernel refuses does not stop the others: -1 at the end
 * with the errno of the first refused.
 */
int dazukofs_return_accesses(dazukofs_handle_t handle,
			     struct dazukofs_access *accs, size_t n,
			     unsigned int flags);
/* Answer with acc->deny and close acc->fd. */
int dazukofs_return_access(dazukofs_handle_t handle,
			   struct dazukofs_access *acc);
/*
 * The same, with flags: DAZUKOFS_REMEMBER asks the kernel to keep the
 * verdict for this group, so that later opens of the unchanged file make
 * no event (it is kept only if the file did not change since acc->fd was
 * opened, and for an open that writes or creates the file only if it is a
 * deny; an open's allow does not answer a later exec, an exec's allow
 * answers both; see dazukofs_group_flush() to forget them all).
 */
#define DAZUKOFS_REMEMBER 1
int dazukofs_return_access_flags(dazukofs_handle_t handle,
				 struct dazukofs_access *acc,
				 unsigned int flags);
/*
 * The path of an open fd (from /proc/self/fd), NUL-terminated; returns its
 * length.  -1/ERANGE if it does not fit (buf holds ""), else readlink's
 * errno.  Sets no message for dazukofs_strerror().
 */
int dazukofs_fd_path(int fd, char *buf, size_t size);
/* The path of the accessed file (from its fd); returns its length. */
int dazukofs_get_filename(const struct dazukofs_access *acc, char *buf,
			  size_t size);
int dazukofs_close(dazukofs_handle_t handle);

/* The ignore device: the calling process makes no events while on. */
int dazukofs_ignore_on(void);
int dazukofs_ignore_off(void);

/* Counters: group NULL for the totals. */
int dazukofs_get_stats(const char *group, struct dazukofs_stats *stats);

/* The verdict cache's counters: group NULL for the totals. */
struct dazukofs_cache_stats {
	uint64_t hits;		/* verdicts taken from the cache, no event */
	uint64_t misses;	/* events once the group remembered a verdict */
	uint64_t invalidations;	/* verdicts forgotten: the file changed */
};
/* -1/EOPNOTSUPP if the module is too old to have a verdict cache. */
int dazukofs_get_cache_stats(const char *group,
			     struct dazukofs_cache_stats *stats);

/* The last failure of this thread, with what was tried. */
const char *dazukofs_strerror(void);

#ifdef __cplusplus
}
#endif

#endif /* DAZUKOFS_H */
