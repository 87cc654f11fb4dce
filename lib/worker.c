// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Workers: a handle is one open group device (/dev/dazukofs.N).  A read
 * returns one event record in format 1, one or more (one per line) in
 * formats 2 and 3, parsed by the protocol code the module uses; the
 * format is told from the text.  An answer is one write in format 1; in
 * formats 2 and 3 a write may carry several.  A handle belongs to one thread at a time.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/dazukofs.h>

#include "internal.h"
#include "protocol.h"

struct dazukofs_handle {
	int fd;
	int id;
	int flags;
	int format;		/* of the records read so far: 0 (none yet), 1, 2 (or 3) */
	char *batch;		/* the buffer of dazukofs_get_accesses() */
	size_t batch_size;
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
 * The module writes "id=N" SEP "fd=N" SEP first (SEP '\n' in format 1,
 * ' ' in format 2); only when both are intact is the number one it
 * installed.  Anything less could name an fd of the caller's, and closing
 * that would be worse than the leak.  A negative fd (format 2) is none.
 */
static int malformed_record_fd(const char *buf, size_t len, int own_fd,
			       char sep)
{
	const char *p = buf, *end = buf + len;
	long fd = 0;

	if (len < 3 || memcmp(p, "id=", 3))
		return -1;
	for (p += 3; p < end && *p >= '0' && *p <= '9'; p++)
		;
	if (p == buf + 3 || end - p < 4 || *p != sep || memcmp(p + 1, "fd=", 3))
		return -1;
	p += 4;
	if (p == end || *p < '0' || *p > '9')
		return -1;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		fd = fd * 10 + (*p - '0');
		if (fd > INT_MAX)
			return -1;
	}
	if (p == end || *p != sep || fd == own_fd)
		return -1;
	return (int)fd;
}

/* The format of the record at buf: 1 ("id=N\n..."), 2 ("id=N ...") or 0. */
static int record_format(const char *buf, size_t len)
{
	size_t i = 3;

	if (len < 4 || memcmp(buf, "id=", 3))
		return 0;
	while (i < len && buf[i] >= '0' && buf[i] <= '9')
		i++;
	if (i == 3 || i == len)
		return 0;
	return buf[i] == '\n' ? 1 : buf[i] == ' ' ? 2 : 0;
}

/*
 * The format of a whole read: that of its first record, or, if that one is
 * malformed, 2 if any line is a format-2 record (so that the good records
 * after a bad one are not lost), else 1 (one malformed record).
 */
static int read_format(const char *buf, size_t len)
{
	int format = record_format(buf, len);
	size_t off, n;

	if (format)
		return format;
	for (off = 0; off < len; off += n) {
		n = dazukofs_proto_line_len(buf + off, len - off);
		if (record_format(buf + off, n) == 2)
			return 2;
	}
	return 1;
}

/* A malformed record: close the fd it names for sure. */
static void drop_malformed(struct dazukofs_handle *h, const char *buf,
			   size_t len, char sep)
{
	int fd = malformed_record_fd(buf, len, h->fd, sep);

	/* nobody else will ever close it: the caller gets no event */
	if (fd >= 0)
		close(fd);
}

static void fill_v2(const struct dazukofs_proto_record *rec,
		    struct dazukofs_access *acc,
		    struct dazukofs_access_info *info)
{
	acc->id = rec->id;
	acc->fd = rec->fd < 0 ? -1 : rec->fd;
	acc->pid = rec->pid;
	acc->deny = DAZUKOFS_ALLOW;
	if (!info)
		return;
	memset(info, 0, sizeof(*info));
	info->format = (int)rec->format;
	info->type = rec->type;
	info->access = rec->access;
	info->fd_error = rec->fd < 0 ? -rec->fd : 0;
	info->uid = rec->uid;
	info->euid = rec->euid;
	info->fsuid = rec->fsuid;
	info->dev = makedev(rec->dev_major, rec->dev_minor);
	info->ino = rec->ino;
	info->size = rec->size;
	info->change = rec->change;
	info->cgroup = rec->cgroup;
}

/* The outcome of one read of records. */
_Static_assert(DAZUKOFS_BATCH_MAX == DAZUKOFS_RECORD_BATCH_MAX,
	       "libdazukofs' batch limit is the module's");

struct dz_batch {
	size_t taken;		/* events filled in */
	size_t malformed;	/* records that did not parse, or too many */
	size_t fd_errors;	/* fd-error records left out */
	ssize_t bytes;		/* what the read returned */
};

/*
 * One read of up to max records into accs (and infos, unless NULL; then
 * fd-error records are left out).  Returns 0 with *b filled in, or -1 if
 * the read failed (message set).
 */
static int read_records(struct dazukofs_handle *h, char *buf, size_t size,
			struct dazukofs_access *accs,
			struct dazukofs_access_info *infos, size_t max,
			struct dz_batch *b)
{
	size_t off, len;
	ssize_t n;

	memset(b, 0, sizeof(*b));
	n = read(h->fd, buf, size);
	if (n < 0) {
		if (errno == EAGAIN)
			dz_fail(errno, "no event waiting for group '%s'",
				h->group);
		else
			dz_fail(errno, "cannot get an event of group '%s': read %s",
				h->group, h->dev);
		return -1;
	}
	b->bytes = n;
	if (read_format(buf, (size_t)n) == 1) {
		struct dazukofs_proto_event ev;

		if (dazukofs_proto_parse_event(buf, (size_t)n, &ev)) {
			drop_malformed(h, buf, (size_t)n, '\n');
			b->malformed = 1;
			return 0;
		}
		h->format = DAZUKOFS_RECORD_V1;
		accs[0].id = ev.id;
		accs[0].fd = ev.fd;
		accs[0].pid = ev.pid;
		accs[0].deny = DAZUKOFS_ALLOW;
		if (infos) {
			memset(&infos[0], 0, sizeof(infos[0]));
			infos[0].format = DAZUKOFS_RECORD_V1;
		}
		b->taken = 1;
		return 0;
	}
	h->format = DAZUKOFS_RECORD_V2;
	for (off = 0; off < (size_t)n; off += len) {
		struct dazukofs_proto_record rec;

		len = dazukofs_proto_line_len(buf + off, (size_t)n - off);
		/* more than asked for: the device broke its word */
		if (b->taken == max ||
		    dazukofs_proto_parse_record(buf + off, len, &rec)) {
			drop_malformed(h, buf + off, len, ' ');
			b->malformed++;
			continue;
		}
		if (rec.fd < 0 && !infos) {
			b->fd_errors++;
			continue;
		}
		fill_v2(&rec, &accs[b->taken], infos ? &infos[b->taken] : NULL);
		b->taken++;
	}
	return 0;
}

static void fail_malformed(struct dazukofs_handle *h, const struct dz_batch *b)
{
	if (b->malformed == 1 && !b->taken)
		dz_fail_plain(EPROTO,
			      "cannot get an event of group '%s': malformed record from %s (%zd bytes)",
			      h->group, h->dev, b->bytes);
	else
		dz_fail_plain(EPROTO,
			      "cannot get %zu event(s) of group '%s': malformed records from %s (%zd bytes, %zu good)",
			      b->malformed, h->group, h->dev, b->bytes, b->taken);
}

/*
 * Up to max events; with infos NULL, reads on past reads of fd-error
 * records only.  Returns how many, or -1.
 */
static int get_records(struct dazukofs_handle *h, struct dazukofs_access *accs,
		       struct dazukofs_access_info *infos, size_t max)
{
	/*
	 * The format may change between reads: max records of format 2, or
	 * fewer of format 3, and room for one of either (see the UAPI).
	 */
	char one[DAZUKOFS_RECORD3_MAX];
	size_t size = max * DAZUKOFS_RECORD_MAX < sizeof(one) ? sizeof(one) :
		      max * DAZUKOFS_RECORD_MAX;
	struct dz_batch b;
	char *buf = one;

	if (max > 1) {
		if (h->batch_size < size) {
			char *p = realloc(h->batch, size);

			if (!p) {
				dz_fail(ENOMEM, "cannot get events of group '%s'",
					h->group);
				return -1;
			}
			h->batch = p;
			h->batch_size = size;
		}
		buf = h->batch;
	}
	do {
		if (read_records(h, buf, size, accs, infos, max, &b))
			return -1;
		if (b.malformed) {
			fail_malformed(h, &b);
			if (!b.taken)
				return -1;
		}
	} while (!b.taken);
	return (int)b.taken;
}

DZ_EXPORT int dazukofs_get_access(dazukofs_handle_t handle,
				  struct dazukofs_access *acc)
{
	if (!handle || !acc) {
		dz_fail_plain(EINVAL, "cannot get an event: no handle or no event to fill");
		return -1;
	}
	return get_records(handle, acc, NULL, 1) < 0 ? -1 : 0;
}

DZ_EXPORT int dazukofs_get_access_info(dazukofs_handle_t handle,
				       struct dazukofs_access *acc,
				       struct dazukofs_access_info *info)
{
	if (!handle || !acc || !info) {
		dz_fail_plain(EINVAL, "cannot get an event: no handle or nothing to fill");
		return -1;
	}
	return get_records(handle, acc, info, 1) < 0 ? -1 : 0;
}

DZ_EXPORT int dazukofs_get_accesses(dazukofs_handle_t handle,
				    struct dazukofs_access *accs,
				    struct dazukofs_access_info *infos,
				    size_t max)
{
	if (!handle || !accs || !max) {
		dz_fail_plain(EINVAL, "cannot get events: no handle, no events to fill or max 0");
		return -1;
	}
	if (max > DAZUKOFS_BATCH_MAX)
		max = DAZUKOFS_BATCH_MAX;
	return get_records(handle, accs, infos, max);
}

static int check_answer(struct dazukofs_handle *h, struct dazukofs_access *acc,
			unsigned int flags)
{
	if (!h || !acc || (flags & ~DAZUKOFS_REMEMBER)) {
		dz_fail_plain(EINVAL, "cannot answer an event: no handle, no event or unknown flags");
		return -1;
	}
	return 0;
}

static int format_answer(char *buf, size_t size,
			 const struct dazukofs_access *acc, unsigned int flags)
{
	return dazukofs_proto_format_response(buf, size, acc->id,
					      acc->deny ? DAZUKOFS_DENY :
							  DAZUKOFS_ALLOW,
					      !!(flags & DAZUKOFS_REMEMBER));
}

static void fail_answer(struct dazukofs_handle *h,
			const struct dazukofs_access *acc, int err)
{
	dz_fail(err, "cannot answer event %lu of group '%s' (%s): write %s",
		acc->id, h->group,
		dazukofs_action_name(acc->deny ? DAZUKOFS_DENY : DAZUKOFS_ALLOW),
		h->dev);
}

/* The fd is closed in any case: the event is over for the caller. */
static void close_event_fd(struct dazukofs_access *acc)
{
	if (acc->fd >= 0) {
		close(acc->fd);
		acc->fd = -1;
	}
}

/* One answer in one write; 0 or an errno value (message set). */
static int write_answer(struct dazukofs_handle *h,
			const struct dazukofs_access *acc, unsigned int flags)
{
	char buf[DAZUKOFS_RESPONSE_MAX + 1];
	int len = format_answer(buf, sizeof(buf), acc, flags);
	ssize_t n;

	if (len < 0) {
		dz_fail_plain(EINVAL, "cannot answer event %lu: cannot format the answer",
			      acc->id);
		return EINVAL;
	}
	n = write(h->fd, buf, (size_t)len);
	if (n != len) {
		int err = n < 0 ? errno : EIO;

		fail_answer(h, acc, err);
		return err;
	}
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
	int err;

	if (check_answer(handle, acc, flags))
		return -1;
	err = write_answer(handle, acc, flags);
	close_event_fd(acc);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

/*
 * The answers to accs (fd -1 left out) as one text, one per line: where
 * each starts in starts[] (and the text's end after the last), which
 * event in which[].  Returns how many, or -1 (message set).
 */
static int format_answers(char *buf, size_t *starts, size_t *which,
			  const struct dazukofs_access *accs, size_t n,
			  unsigned int flags)
{
	size_t i, off = 0;
	int count = 0;

	for (i = 0; i < n; i++) {
		int len;

		if (accs[i].fd < 0)
			continue;
		len = format_answer(buf + off, DAZUKOFS_RESPONSE_MAX + 1,
				    &accs[i], flags);
		if (len < 0) {
			dz_fail_plain(EINVAL, "cannot answer event %lu: cannot format the answer",
				      accs[i].id);
			return -1;
		}
		starts[count] = off;
		which[count++] = i;
		off += (size_t)len;
	}
	starts[count] = off;
	return count;
}

/*
 * All answers in one write, again from where the kernel stopped when it
 * took only some: the answer there failed (errno) and is skipped.  Returns
 * 0 or the errno of the first that failed (message set).
 */
static int write_answers(struct dazukofs_handle *h,
			 const struct dazukofs_access *accs, size_t n,
			 unsigned int flags)
{
	size_t *starts = NULL, *which = NULL, off, end, line;
	int count, err = 0, retry_alone = 0;
	char *buf = NULL;

	if (n > (SIZE_MAX - 1) / DAZUKOFS_RESPONSE_MAX) {
		dz_fail_plain(EINVAL, "cannot answer %zu events of group '%s': too many",
			      n, h->group);
		return EINVAL;
	}
	buf = malloc(n * DAZUKOFS_RESPONSE_MAX + 1);
	starts = malloc((n + 1) * sizeof(*starts));
	which = malloc((n + 1) * sizeof(*which));
	if (!buf || !starts || !which) {
		dz_fail(ENOMEM, "cannot answer %zu events of group '%s'", n,
			h->group);
		err = ENOMEM;
		goto out;
	}
	count = format_answers(buf, starts, which, accs, n, flags);
	if (count < 0) {
		err = EINVAL;
		goto out;
	}
	end = starts[count];
	for (off = 0, line = 0; off < end;) {
		size_t len = end - off;
		ssize_t k;

		while (line < (size_t)count && starts[line + 1] <= off)
			line++;
		/*
		 * After a failed write of several, the first alone: it tells
		 * which failed, and a group switched back to format 1 takes
		 * one answer per write only.
		 */
		if (retry_alone)
			len = starts[line + 1] - off;
		k = write(h->fd, buf + off, len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k > 0 && (size_t)k <= len) {
			off += (size_t)k;
			retry_alone = 0;
			continue;
		}
		if (!retry_alone && len > starts[line + 1] - off) {
			retry_alone = 1;
			continue;
		}
		/* the answer at off failed: skip it */
		if (!err) {
			fail_answer(h, &accs[which[line]], k < 0 ? errno : EIO);
			err = errno;
		}
		off = starts[line + 1];
		retry_alone = 0;
	}
out:
	free(buf);
	free(starts);
	free(which);
	return err;
}

DZ_EXPORT int dazukofs_return_accesses(dazukofs_handle_t handle,
				       struct dazukofs_access *accs, size_t n,
				       unsigned int flags)
{
	size_t i;
	int err = 0;

	if (!handle || (!accs && n) || (flags & ~DAZUKOFS_REMEMBER)) {
		dz_fail_plain(EINVAL, "cannot answer events: no handle, no events or unknown flags");
		return -1;
	}
	if (handle->format == DAZUKOFS_RECORD_V2) {
		err = write_answers(handle, accs, n, flags);
	} else {
		for (i = 0; i < n; i++) {
			int e;

			if (accs[i].fd < 0)
				continue;
			e = write_answer(handle, &accs[i], flags);
			if (e && !err)
				err = e;
		}
	}
	for (i = 0; i < n; i++)
		close_event_fd(&accs[i]);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

DZ_EXPORT int dazukofs_fd_path(int fd, char *buf, size_t size)
{
	char link[64];
	ssize_t n;

	if (!buf || size == 0) {
		errno = EINVAL;
		return -1;
	}
	buf[0] = '\0';
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, size);
	if (n < 0)
		return -1;
	/* readlink() truncates silently: a full buffer may be a cut path */
	if ((size_t)n >= size) {
		buf[0] = '\0';
		errno = ERANGE;
		return -1;
	}
	buf[n] = '\0';
	return (int)n;
}

DZ_EXPORT int dazukofs_get_filename(const struct dazukofs_access *acc,
				    char *buf, size_t size)
{
	int n;

	if (!acc || !buf || size == 0) {
		dz_fail_plain(EINVAL, "cannot get a file name: no event or no buffer");
		return -1;
	}
	n = dazukofs_fd_path(acc->fd, buf, size);
	if (n < 0 && errno == ERANGE)
		dz_fail_plain(ERANGE,
			      "cannot get the file name of event %lu: it does not fit in %zu bytes",
			      acc->id, size);
	else if (n < 0)
		dz_fail(errno, "cannot get the file name of event %lu: readlink /proc/self/fd/%d",
			acc->id, acc->fd);
	return n;
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
	free(handle->batch);
	free(handle);
	return ret;
}
