/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * DazukoFS: what userspace needs to talk to the dazukofs module.
 *
 * Groups are directories in configfs (DAZUKOFS_CONFIGFS_ROOT/NAME); group N
 * hands out access events on the character device DAZUKOFS_DEV_PREFIX "N".
 * A read() returns one event as text, DAZUKOFS_EVENT_FORMAT; a write() of
 * DAZUKOFS_RESPONSE_FORMAT answers it.  A group may choose record format 2
 * instead (DAZUKOFS_RECORD_FORMAT, batches of events and of answers), or
 * format 3, which also names the opener's cgroup (DAZUKOFS_RECORD3_FORMAT).
 * Counters are in DAZUKOFS_SYSFS_ROOT.
 * Documentation/filesystems/dazukofs.rst describes the protocol in full.
 */
#ifndef _UAPI_LINUX_DAZUKOFS_H
#define _UAPI_LINUX_DAZUKOFS_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define DAZUKOFS_FS_TYPE		"dazukofs"
#define DAZUKOFS_SUPER_MAGIC		0x64617a75	/* "dazu" */

/* configfs's mount point: the groups are in DAZUKOFS_CONFIGFS_ROOT below it. */
#define DAZUKOFS_CONFIGFS_MOUNT		"/sys/kernel/config"
#define DAZUKOFS_CONFIGFS_ROOT		DAZUKOFS_CONFIGFS_MOUNT "/dazukofs"
#define DAZUKOFS_SYSFS_ROOT		"/sys/fs/dazukofs"
#define DAZUKOFS_SYSFS_GROUPS		DAZUKOFS_SYSFS_ROOT "/groups"
#define DAZUKOFS_DEV_PREFIX		"/dev/dazukofs."

/* Group names: 1 to DAZUKOFS_GROUP_NAME_MAX of [A-Za-z0-9_-]. */
#define DAZUKOFS_GROUP_NAME_MAX		64
/* Group ids are 0 .. DAZUKOFS_MAX_GROUPS - 1; a new group gets the smallest free. */
#define DAZUKOFS_MAX_GROUPS		256

/* A group's timeout_ms: at most a day; 0 waits for ever. */
#define DAZUKOFS_TIMEOUT_MS_MAX		(24U * 60 * 60 * 1000)
/* A tracked group's grace_ms: at most 10 minutes. */
#define DAZUKOFS_GRACE_MS_MAX		(10U * 60 * 1000)
/* A group's busy_poll_us: at most a millisecond; 0 (the default) never spins. */
#define DAZUKOFS_BUSY_POLL_US_MAX	1000U
/* The values of the action attributes (timeout_action...). */
#define DAZUKOFS_ACTION_NAME_ALLOW	"allow"
#define DAZUKOFS_ACTION_NAME_DENY	"deny"

/* One event, as read() returns it: event id, fd installed in the reader, opener's pid. */
#define DAZUKOFS_EVENT_FORMAT		"id=%lu\nfd=%d\npid=%d\n"
/* The longest event record; a read() buffer must hold this much. */
#define DAZUKOFS_EVENT_MAX		64

/* The answer to an event, as write() takes it (a trailing newline is allowed). */
#define DAZUKOFS_RESPONSE_FORMAT	"id=%lu r=%d\n"
/*
 * An answer may ask that its verdict be remembered: later opens of the
 * unchanged file then make no event for the group (see the verdict cache
 * in Documentation/filesystems/dazukofs.rst).
 */
#define DAZUKOFS_RESPONSE_REMEMBER	"remember"
#define DAZUKOFS_RESPONSE_FORMAT_REMEMBER \
	"id=%lu r=%d " DAZUKOFS_RESPONSE_REMEMBER "\n"
/* The longest answer write() accepts. */
#define DAZUKOFS_RESPONSE_MAX		64

#define DAZUKOFS_ALLOW			0
#define DAZUKOFS_DENY			1

/*
 * The record format of a group, its configfs attribute "record": 1 (the
 * default) is DAZUKOFS_EVENT_FORMAT, one event per read() and one answer
 * per write(), as in 2009.  2 is one line per event, DAZUKOFS_RECORD_FORMAT,
 * which says who opened the file how, and which file it is:
 *
 *   id fd pid   as in format 1, except that a negative fd is -errno: the
 *               module could not open the file for the worker, and the
 *               group's open_error_action has settled the event (it takes
 *               no answer), as fanotify's FAN_REPORT_FD_ERROR does
 *   uid euid fsuid  the opening task's own (as /proc/PID/status shows
 *               them, not credentials a kernel service opens with on its
 *               behalf), in the reader's user namespace
 *   type        open, exec or close_write (DAZUKOFS_EVENT_NAME_*); a
 *               group whose event mask is "open" gets exec events too
 *   access      the open's access: r (read), w (write), t (O_TRUNC),
 *               c (the open created the file), in that order; "-" if none
 *   dev ino     the file's st_dev (major:minor) and st_ino, as fstat() of
 *               the fd gives them (the lower file's, not the mount's)
 *   size        its size when the worker's fd was opened
 *   change      its change counter (statx's STATX_CHANGE_COOKIE, i_version)
 *               then, or 0 if the filesystem keeps none
 *
 * Format 3 (DAZUKOFS_RECORD3_FORMAT) is format 2 with one more field:
 *
 *   cgroup      the cgroup v2 id of the opener (of the closer, for
 *               close_write): the inode number of its directory in the
 *               cgroup2 filesystem, as name_to_handle_at() and statx()
 *               give it there; global, not relative to the reader's
 *               cgroup namespace
 *
 * A read() returns up to count / DAZUKOFS_RECORD_MAX records
 * (count / DAZUKOFS_RECORD3_MAX in format 3; at most
 * DAZUKOFS_RECORD_BATCH_MAX), each with its own fd, and waits only for
 * the first; a count below one record's maximum fails with EINVAL.  A write() of any length may
 * carry several answers, one per line (each at most DAZUKOFS_RESPONSE_MAX
 * bytes); it returns the bytes of the answers taken, short before the
 * first one that fails (the next write() starting with that one fails
 * with its errno), or the first answer's error.
 */
#define DAZUKOFS_RECORD_V1		1
#define DAZUKOFS_RECORD_V2		2
#define DAZUKOFS_RECORD_V3		3
#define DAZUKOFS_RECORD_FORMAT \
	"id=%lu fd=%d pid=%d uid=%u euid=%u fsuid=%u type=%s access=%s " \
	"dev=%u:%u ino=%llu size=%lld change=%llu\n"
/*
 * Room for any format-2 record and a NUL (the longest is 235 bytes): the
 * unit of a format-2 read()'s count, which must be at least this.
 */
#define DAZUKOFS_RECORD_MAX		256
#define DAZUKOFS_RECORD3_FORMAT \
	"id=%lu fd=%d pid=%d uid=%u euid=%u fsuid=%u type=%s access=%s " \
	"dev=%u:%u ino=%llu size=%lld change=%llu cgroup=%llu\n"
/*
 * Room for any format-3 record and a NUL (the longest is 263 bytes): the
 * unit of a format-3 read()'s count.  A reader that does not know which
 * of formats 2 and 3 its group uses reads at most count / 256 records
 * with a count of at least DAZUKOFS_RECORD3_MAX.
 */
#define DAZUKOFS_RECORD3_MAX		288
/* The most records one read() returns. */
#define DAZUKOFS_RECORD_BATCH_MAX	1024

/* The access bits of a format-2 record, in the order of its letters. */
#define DAZUKOFS_ACCESS_READ		0x1	/* r */
#define DAZUKOFS_ACCESS_WRITE		0x2	/* w */
#define DAZUKOFS_ACCESS_TRUNC		0x4	/* t */
#define DAZUKOFS_ACCESS_CREATE		0x8	/* c */

/*
 * What makes events for a group: its configfs attribute "events" lists the
 * names below, separated by blanks.  The default is "open", the 2009
 * semantics.  An open for execution (execve) counts as "open" and "exec";
 * "close_write" is the close of a file that was open for writing through
 * a dazukofs mount, by its last writer (the closer does not wait).
 */
#define DAZUKOFS_EVENT_OPEN		0x1
#define DAZUKOFS_EVENT_EXEC		0x2
#define DAZUKOFS_EVENT_CLOSE_WRITE	0x4
#define DAZUKOFS_EVENT_ALL		0x7
#define DAZUKOFS_EVENT_NAME_OPEN	"open"
#define DAZUKOFS_EVENT_NAME_EXEC	"exec"
#define DAZUKOFS_EVENT_NAME_CLOSE_WRITE	"close_write"

/*
 * A group's attribute "exclude_cgroups": the cgroups (v2) whose processes,
 * and those of their descendants, make no event for the group, nor find
 * its remembered verdicts (as if they held DAZUKOFS_DEV_PREFIX "ign" for
 * this group alone).  A write replaces the list: cgroup ids (decimal) or
 * paths below the cgroup2 root as /proc/PID/cgroup shows them ("/a/b"),
 * separated by blanks or newlines, at most DAZUKOFS_EXCLUDE_CGROUPS_MAX;
 * an empty write empties it.  Malformed text fails with EINVAL, an id or
 * path of no cgroup with ENOENT, too many with E2BIG; a failed write
 * changes nothing.  A read lists the ids, one per line; a cgroup that was
 * removed drops out of the list.  Each access spared counts in the
 * group's "excluded".
 */
#define DAZUKOFS_EXCLUDE_CGROUPS_MAX	64

/*
 * A new group's settings, as its configfs attributes read until written:
 * the module sets them, and libdazukofs (DAZUKOFS_GROUP_CONFIG_DEFAULT)
 * and dazukofsctl take them from here.  Fail open when the daemon dies
 * (tracked, allow on timeout), as fanotify does; fail closed where a
 * local user could force the verdict (overflow, a file no worker opens).
 */
#define DAZUKOFS_TRACK_DEFAULT			1
#define DAZUKOFS_TIMEOUT_MS_DEFAULT		0
#define DAZUKOFS_TIMEOUT_ACTION_DEFAULT		DAZUKOFS_ALLOW
#define DAZUKOFS_GRACE_MS_DEFAULT		0
#define DAZUKOFS_MAX_QUEUE_DEFAULT		16384
#define DAZUKOFS_OVERFLOW_ACTION_DEFAULT	DAZUKOFS_DENY
#define DAZUKOFS_OPEN_ERROR_ACTION_DEFAULT	DAZUKOFS_DENY
#define DAZUKOFS_EVENTS_DEFAULT			DAZUKOFS_EVENT_OPEN
#define DAZUKOFS_EVENTS_NAMES_DEFAULT		DAZUKOFS_EVENT_NAME_OPEN
#define DAZUKOFS_RECORD_DEFAULT			DAZUKOFS_RECORD_V1
#define DAZUKOFS_BUSY_POLL_US_DEFAULT		0

/*
 * Which group an open group device serves.  Group numbers are reused
 * after an rmdir, so a name resolved to DAZUKOFS_DEV_PREFIX "N" may have
 * become another group's by the time N is opened: after the open, this
 * ioctl names the group the file is bound to, for good.  @instance is
 * unique among the groups created since the module was loaded (configfs
 * attribute "instance"); @removed is 1 once the group was removed.
 */
struct dazukofs_group_ident {
	__u64 instance;
	__s32 id;
	__u32 removed;
	char name[80];		/* NUL-terminated, DAZUKOFS_GROUP_NAME_MAX at most */
};

#define DAZUKOFS_IOC_MAGIC		0xda
#define DAZUKOFS_IOC_GROUP_IDENT	_IOR(DAZUKOFS_IOC_MAGIC, 1, struct dazukofs_group_ident)

#endif /* _UAPI_LINUX_DAZUKOFS_H */
