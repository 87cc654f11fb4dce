// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Workers: a handle is one open group device (/dev/dazukofs.N).  Each read
 * returns one event record, parsed by the protocol code the module uses;
 * each answer is one write.  A handle belongs to one thread at a time.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/dazukofs.h>

#include "internal.h"
#include "protocol.h"

struct dazukofs_handle {
	int fd;
	int id;
	int flags;
	char group[DAZUKOFS_GROUP_NAME_MAX + 1];
	char dev[DZ_PATH_MAX];
};

/*
 * Whether fd, an open group device, serves the group named group: the
 * number read from configfs may have been the group's that was removed
 * just before, and is then another's.  1 yes, 0 no (*other says whose),
 * -1 on an error.  A module without the ioctl cannot tell: yes.
 */
static int serves_group(int fd, const char *group, char *other, size_t size)
{
	struct dazukofs_group_ident ident;

	memset(&ident, 0, sizeof(ident));
	if (ioctl(fd, DAZUKOFS_IOC_GROUP_IDENT, &ident))
		return errno == ENOTTY ? 1 : -1;
	ident.name[sizeof(ident.name) - 1] = '\0';
	if (!ident.removed && !strcmp(ident.name, group))
		return 1;
	snprintf(other, size, "'%s'%s", ident.name, ident.removed ? " (removed)" : "");
	return 0;
}

/* Resolving a name races with rmdir and mkdir: tries before giving up. */
#define DZ_OPEN_TRIES 3

DZ_EXPORT dazukofs_handle_t dazukofs_open(const char *group, int flags)
{
	/* the name as the ioctl gives it, quoted, and " (removed)" */
	char other[sizeof(((struct dazukofs_group_ident *)0)->name) + 16];
	char what[128], path[DZ_PATH_MAX];
	struct dazukofs_handle *h;
	int id, fd, serves, tries = 0, oflags = O_RDWR | O_CLOEXEC;

	snprintf(what, sizeof(what), "cannot open group '%.80s'",
		 group ? group : "(null)");
	if (flags & ~DAZUKOFS_NONBLOCK) {
		dz_fail_plain(EINVAL, "%s: unknown flags 0x%x", what,
			      (unsigned int)flags);
		return NULL;
	}
	if (flags & DAZUKOFS_NONBLOCK)
		oflags |= O_NONBLOCK;
	do {
		id = dz_group_id(what, group);
		if (id < 0)
			return NULL;
		if (dz_path(path, sizeof(path), DZ_DEV_PREFIX, "%d", id))
			return NULL;
		fd = open(path, oflags);
		if (fd < 0) {
			dz_fail(errno, "%s: open %s", what, path);
			return NULL;
		}
		serves = serves_group(fd, group, other, sizeof(other));
		if (serves < 0) {
			dz_fail(errno, "%s: %s: ioctl DAZUKOFS_IOC_GROUP_IDENT", what, path);
			close(fd);
			return NULL;
		}
		if (!serves)
			close(fd);
	} while (!serves && ++tries < DZ_OPEN_TRIES);
	if (!serves) {
		dz_fail_plain(ESTALE, "%s: %s serves group %s: the group was removed and its number reused meanwhile",
			      what, path, other);
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		dz_fail(ENOMEM, "%s", what);
		close(fd);
		return NULL;
	}
	h->fd = fd;
	h->id = id;
	h->flags = flags;
	snprintf(h->group, sizeof(h->group), "%s", group);
	memcpy(h->dev, path, sizeof(h->dev));
	return h;
}

DZ_EXPORT int dazukofs_get_fd(dazukofs_handle_t handle)
{
	if (!handle) {
		dz_fail_plain(EINVAL, "dazukofs_get_fd: no handle");
		return -1;
	}
	return handle->fd;
}

/*
 * The fd the module installed for a record that does not parse, or -1.
 * The module writes "id=N\nfd=N\n" first; only when both lines are intact
 * is the number one it installed.  Anything less could name an fd of the
 * caller's, and closing that would be worse than the leak.
 */
static int malformed_record_fd(const char *buf, size_t len, int own_fd)
{
	const char *p = buf, *end = buf + len;
	long fd = 0;

	if (len < 3 || memcmp(p, "id=", 3))
		return -1;
	for (p += 3; p < end && *p >= '0' && *p <= '9'; p++)
		;
	if (p == buf + 3 || end - p < 4 || memcmp(p, "\nfd=", 4))
		return -1;
	p += 4;
	if (p == end || *p < '0' || *p > '9')
		return -1;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		fd = fd * 10 + (*p - '0');
		if (fd > INT_MAX)
			return -1;
	}
	if (p == end || *p != '\n' || fd == own_fd)
		return -1;
	return (int)fd;
}

DZ_EXPORT int dazukofs_get_access(dazukofs_handle_t handle,
				  struct dazukofs_access *acc)
{
	char buf[DAZUKOFS_EVENT_MAX + 1];
	struct dazukofs_proto_event ev;
	ssize_t n;

	if (!handle || !acc) {
		dz_fail_plain(EINVAL, "cannot get an event: no handle or no event to fill");
		return -1;
	}
	n = read(handle->fd, buf, DAZUKOFS_EVENT_MAX);
	if (n < 0) {
		if (errno == EAGAIN)
			dz_fail(errno, "no event waiting for group '%s'",
				handle->group);
		else
			dz_fail(errno, "cannot get an event of group '%s': read %s",
				handle->group, handle->dev);
		return -1;
	}
	if (dazukofs_proto_parse_event(buf, (size_t)n, &ev)) {
		int fd = malformed_record_fd(buf, (size_t)n, handle->fd);

		/* nobody else will ever close it: the caller gets no event */
		if (fd >= 0)
			close(fd);
		dz_fail_plain(EPROTO,
			      "cannot get an event of group '%s': malformed record from %s (%zd bytes)",
			      handle->group, handle->dev, n);
		return -1;
	}
	acc->id = ev.id;
	acc->fd = ev.fd;
	acc->pid = ev.pid;
	acc->deny = DAZUKOFS_ALLOW;
	return 0;
}

DZ_EXPORT int dazukofs_return_access(dazukofs_handle_t handle,
				     struct dazukofs_access *acc)
{
	return dazukofs_return_access_flags(handle, acc, 0);
}

DZ_EXPORT int dazukofs_return_access_flags(dazukofs_handle_t handle,
					   struct dazukofs_access *acc,
					   unsigned int flags)
{
	char buf[DAZUKOFS_RESPONSE_MAX + 1];
	int len, err = 0;
	ssize_t n;

	if (!handle || !acc || (flags & ~DAZUKOFS_REMEMBER)) {
		dz_fail_plain(EINVAL, "cannot answer an event: no handle, no event or unknown flags");
		return -1;
	}
	len = dazukofs_proto_format_response(buf, sizeof(buf), acc->id,
					     acc->deny ? DAZUKOFS_DENY :
							 DAZUKOFS_ALLOW,
					     !!(flags & DAZUKOFS_REMEMBER));
	if (len < 0) {
		dz_fail_plain(EINVAL, "cannot answer event %lu: cannot format the answer",
			      acc->id);
		err = EINVAL;
	} else {
		n = write(handle->fd, buf, (size_t)len);
		if (n != len) {
			err = n < 0 ? errno : EIO;
			dz_fail(err, "cannot answer event %lu of group '%s' (%s): write %s",
				acc->id, handle->group,
				dz_action_name(acc->deny ? DAZUKOFS_DENY : DAZUKOFS_ALLOW),
				handle->dev);
		}
	}
	/* The fd is closed in any case: the event is over for the caller. */
	if (acc->fd >= 0) {
		close(acc->fd);
		acc->fd = -1;
	}
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

DZ_EXPORT int dazukofs_get_filename(const struct dazukofs_access *acc,
				    char *buf, size_t size)
{
	char link[64];
	ssize_t n;

	if (!acc || !buf || size == 0) {
		dz_fail_plain(EINVAL, "cannot get a file name: no event or no buffer");
		return -1;
	}
	snprintf(link, sizeof(link), "/proc/self/fd/%d", acc->fd);
	n = readlink(link, buf, size);
	if (n < 0) {
		dz_fail(errno, "cannot get the file name of event %lu: readlink %s",
			acc->id, link);
		return -1;
	}
	if ((size_t)n >= size) {
		dz_fail_plain(ERANGE,
			      "cannot get the file name of event %lu: it does not fit in %zu bytes",
			      acc->id, size);
		buf[0] = '\0';
		return -1;
	}
	buf[n] = '\0';
	return (int)n;
}

DZ_EXPORT int dazukofs_close(dazukofs_handle_t handle)
{
	int ret = 0;

	if (!handle)
		return 0;
	if (close(handle->fd)) {
		dz_fail(errno, "cannot close group '%s': close %s",
			handle->group, handle->dev);
		ret = -1;
	}
	free(handle);
	return ret;
}
