// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Groups: directories in configfs (DAZUKOFS_CONFIGFS_ROOT/NAME) whose
 * attributes id, track, timeout_ms and timeout_action are the settings
 * (and grace_ms, busy_poll_us, events and record, set on their own by
 * dazukofs_group_set_grace(), dazukofs_group_set_busy_poll(),
 * dazukofs_group_set_events() and dazukofs_group_set_record()).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/dazukofs.h>

#include "internal.h"

#define DZ_WHAT_MAX 128

/*
 * Write one attribute.  O_CREAT lets a plain directory stand in for configfs
 * in the unit tests; on configfs the attribute files always exist.
 */
static int dz_write_attr(const char *what, const char *name, const char *attr,
			 const char *value)
{
	char path[DZ_PATH_MAX];
	size_t len = strlen(value);
	ssize_t n;
	int fd, err;

	if (dz_path(path, sizeof(path), DZ_CONFIGFS, "/%s/%s", name, attr))
		return -1;
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		dz_fail(errno, "%s: open %s", what, path);
		return -1;
	}
	n = write(fd, value, len);
	err = n < 0 ? errno : EIO;
	close(fd);
	if (n != (ssize_t)len) {
		dz_fail(err, "%s: write '%s' to %s", what, value, path);
		return -1;
	}
	return 0;
}

static int dz_check_config(const char *what,
			   const struct dazukofs_group_config *config)
{
	if (config->track != 0 && config->track != 1) {
		dz_fail_plain(EINVAL, "%s: track must be 0 or 1, not %d", what,
			      config->track);
		return -1;
	}
	if (config->timeout_ms > DAZUKOFS_TIMEOUT_MS_MAX) {
		dz_fail_plain(EINVAL,
			      "%s: timeout_ms %u is more than a day (%u)",
			      what, config->timeout_ms, DAZUKOFS_TIMEOUT_MS_MAX);
		return -1;
	}
	if (config->timeout_action != DAZUKOFS_ALLOW &&
	    config->timeout_action != DAZUKOFS_DENY) {
		dz_fail_plain(EINVAL,
			      "%s: timeout_action must be DAZUKOFS_ALLOW or DAZUKOFS_DENY, not %d",
			      what, config->timeout_action);
		return -1;
	}
	return 0;
}

DZ_EXPORT int dazukofs_group_create(const char *name,
				    const struct dazukofs_group_config *config)
{
	static const struct dazukofs_group_config defaults =
		DAZUKOFS_GROUP_CONFIG_DEFAULT;
	char what[DZ_WHAT_MAX], path[DZ_PATH_MAX], num[32];
	int err;

	snprintf(what, sizeof(what), "cannot create group '%.80s'",
		 name ? name : "(null)");
	if (!dz_check_name(what, name))
		return -1;
	if (!config)
		config = &defaults;
	if (dz_check_config(what, config))
		return -1;
	if (dz_path(path, sizeof(path), DZ_CONFIGFS, "/%s", name))
		return -1;
	if (mkdir(path, 0755)) {
		dz_fail(errno, "%s: mkdir %s", what, path);
		return -1;
	}
	snprintf(num, sizeof(num), "%u", config->timeout_ms);
	if (dz_write_attr(what, name, "track", config->track ? "1" : "0") ||
	    dz_write_attr(what, name, "timeout_ms", num) ||
	    dz_write_attr(what, name, "timeout_action",
			  dazukofs_action_name(config->timeout_action)))
		goto undo;
	return 0;
undo:
	/* Do not leave a half-configured group behind; keep the first error. */
	err = errno;
	rmdir(path);
	errno = err;
	return -1;
}

/*
 * Write an attribute that older modules lack: no O_CREAT, so that such a
 * module does not look like one that has it (EOPNOTSUPP then).  O_TRUNC as
 * a shell redirection does: harmless on configfs.
 */
static int dz_write_new_attr(const char *what, const char *name,
			     const char *attr, const char *value)
{
	char path[DZ_PATH_MAX];
	size_t len = strlen(value);
	ssize_t n;
	int fd, err;

	if (dz_path(path, sizeof(path), DZ_CONFIGFS, "/%s/%s", name, attr))
		return -1;
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		struct stat st;

		if (dz_path(path, sizeof(path), DZ_CONFIGFS, "/%s", name))
			return -1;
		if (stat(path, &st) == 0) {
			dz_fail_plain(EOPNOTSUPP,
				      "%s: the dazukofs module has no %s (too old)",
				      what, attr);
			return -1;
		}
		dz_fail(ENOENT, "%s: %s", what, path);
		return -1;
	}
	if (fd < 0) {
		dz_fail(errno, "%s: open %s", what, path);
		return -1;
	}
	n = write(fd, value, len);
	err = n < 0 ? errno : EIO;
	close(fd);
	if (n != (ssize_t)len) {
		dz_fail(err, "%s: write '%s' to %s", what, value, path);
		return -1;
	}
	return 0;
}

/*
 * Set a group's unsigned attribute that older modules lack, checked
 * against its largest value first; @max_words, if not NULL, says that
 * value in words for the message ("10 minutes").
 */
static int dz_set_new_uint_attr(const char *name, const char *attr,
				unsigned int value, unsigned int max,
				const char *max_words)
{
	char what[DZ_WHAT_MAX], num[32];

	snprintf(what, sizeof(what), "cannot set %s of group '%.80s'", attr,
		 name ? name : "(null)");
	if (!dz_check_name(what, name))
		return -1;
	if (value > max && max_words) {
		dz_fail_plain(EINVAL, "%s: %s %u is more than %s (%u)", what,
			      attr, value, max_words, max);
		return -1;
	}
	if (value > max) {
		dz_fail_plain(EINVAL, "%s: %s %u is more than %u", what, attr,
			      value, max);
		return -1;
	}
	snprintf(num, sizeof(num), "%u", value);
	return dz_write_new_attr(what, name, attr, num);
}

DZ_EXPORT int dazukofs_group_set_grace(const char *name, unsigned int ms)
{
	return dz_set_new_uint_attr(name, "grace_ms", ms, DAZUKOFS_GRACE_MS_MAX,
				    "10 minutes");
}

DZ_EXPORT int dazukofs_group_set_busy_poll(const char *name, unsigned int us)
{
	return dz_set_new_uint_attr(name, "busy_poll_us", us,
				    DAZUKOFS_BUSY_POLL_US_MAX, NULL);
}

DZ_EXPORT int dazukofs_group_flush(const char *name)
{
	char what[DZ_WHAT_MAX];

	snprintf(what, sizeof(what),
		 "cannot flush the verdicts of group '%.80s'",
		 name ? name : "(null)");
	if (!dz_check_name(what, name))
		return -1;
	return dz_write_new_attr(what, name, "flush", "1");
}

DZ_EXPORT int dazukofs_group_set_events(const char *name, unsigned int events)
{
	char what[DZ_WHAT_MAX], words[64];

	snprintf(what, sizeof(what), "cannot set the events of group '%.80s'",
		 name ? name : "(null)");
	if (!dz_check_name(what, name))
		return -1;
	if (dazukofs_events_format(events, words, sizeof(words))) {
		dz_fail_plain(EINVAL,
			      "%s: 0x%x is not a set of DAZUKOFS_EVENT_OPEN, _EXEC and _CLOSE_WRITE",
			      what, events);
		return -1;
	}
	return dz_write_new_attr(what, name, "events", words);
}

DZ_EXPORT int dazukofs_group_set_record(const char *name, int format)
{
	char what[DZ_WHAT_MAX];

	snprintf(what, sizeof(what),
		 "cannot set the record format of group '%.80s'",
		 name ? name : "(null)");
	if (!dz_check_name(what, name))
		return -1;
	if (format < DAZUKOFS_RECORD_V1 || format > DAZUKOFS_RECORD_V3) {
		dz_fail_plain(EINVAL, "%s: format %d is not 1, 2 or 3", what,
			      format);
		return -1;
	}
	return dz_write_new_attr(what, name, "record",
				 (const char[]){ (char)('0' + format), '\0' });
}

DZ_EXPORT int dazukofs_group_delete(const char *name)
{
	char what[DZ_WHAT_MAX], path[DZ_PATH_MAX];

	snprintf(what, sizeof(what), "cannot delete group '%.80s'",
		 name ? name : "(null)");
	if (!dz_check_name(what, name))
		return -1;
	if (dz_path(path, sizeof(path), DZ_CONFIGFS, "/%s", name))
		return -1;
	if (rmdir(path)) {
		dz_fail(errno, "%s: rmdir %s", what, path);
		return -1;
	}
	return 0;
}

/* Read attribute ATTR of group NAME into buf; message on failure. */
static int dz_group_attr(const char *what, const char *name, const char *attr,
			 char *buf, size_t size)
{
	char path[DZ_PATH_MAX];

	if (dz_path(path, sizeof(path), DZ_CONFIGFS, "/%s/%s", name, attr))
		return -1;
	if (dz_read_attr(path, buf, size)) {
		dz_fail(errno, "%s: read %s", what, path);
		return -1;
	}
	return 0;
}

/* @buf, read from the group's @attr, as a number up to @max; else EIO. */
static int dz_attr_uint(const char *what, const char *name, const char *attr,
			const char *buf, uint64_t max, uint64_t *out)
{
	char path[DZ_PATH_MAX];

	if (!dazukofs_parse_uint(buf, max, out))
		return 0;
	dz_path(path, sizeof(path), DZ_CONFIGFS, "/%s/%s", name, attr);
	dz_fail_plain(EIO, "%s: %s holds '%s', not a number up to %" PRIu64,
		      what, path, buf, max);
	return -1;
}

static int dz_group_uint(const char *what, const char *name, const char *attr,
			 uint64_t max, uint64_t *out)
{
	char buf[32];

	if (dz_group_attr(what, name, attr, buf, sizeof(buf)))
		return -1;
	return dz_attr_uint(what, name, attr, buf, max, out);
}

/* Whether the group directory exists: turns ENOENT on an attribute into "no such group". */
static int dz_group_missing(const char *what, const char *name)
{
	char path[DZ_PATH_MAX];
	struct stat st;

	if (dz_path(path, sizeof(path), DZ_CONFIGFS, "/%s", name))
		return 0;
	if (stat(path, &st) && errno == ENOENT) {
		dz_fail_plain(ENOENT, "%s: no such group (%s does not exist)",
			      what, path);
		return 1;
	}
	return 0;
}

int dz_group_id(const char *what, const char *name)
{
	uint64_t id;

	if (!dz_check_name(what, name) || dz_group_missing(what, name))
		return -1;
	if (dz_group_uint(what, name, "id", DAZUKOFS_MAX_GROUPS - 1, &id))
		return -1;
	return (int)id;
}

static int dz_info(const char *what, const char *name,
		   struct dazukofs_group_info *info)
{
	char buf[32], path[DZ_PATH_MAX];
	uint64_t v;

	if (!dz_check_name(what, name) || dz_group_missing(what, name))
		return -1;
	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "%s", name);
	if (dz_group_uint(what, name, "id", DAZUKOFS_MAX_GROUPS - 1, &v))
		return -1;
	info->id = (int)v;
	if (dz_group_uint(what, name, "track", 1, &v))
		return -1;
	info->config.track = (int)v;
	if (dz_group_uint(what, name, "timeout_ms", UINT32_MAX, &v))
		return -1;
	info->config.timeout_ms = (unsigned int)v;
	if (dz_group_attr(what, name, "timeout_action", buf, sizeof(buf)))
		return -1;
	if (!strcmp(buf, DAZUKOFS_ACTION_NAME_ALLOW)) {
		info->config.timeout_action = DAZUKOFS_ALLOW;
	} else if (!strcmp(buf, DAZUKOFS_ACTION_NAME_DENY)) {
		info->config.timeout_action = DAZUKOFS_DENY;
	} else {
		dz_path(path, sizeof(path), DZ_CONFIGFS, "/%s/timeout_action",
			name);
		dz_fail_plain(EIO, "%s: %s holds '%s', not "
			      DAZUKOFS_ACTION_NAME_ALLOW " or " DAZUKOFS_ACTION_NAME_DENY, what,
			      path, buf);
		return -1;
	}
	return 0;
}

DZ_EXPORT int dazukofs_group_info(const char *name,
				  struct dazukofs_group_info *info)
{
	char what[DZ_WHAT_MAX];

	snprintf(what, sizeof(what), "cannot read group '%.80s'",
		 name ? name : "(null)");
	return dz_info(what, name, info);
}

static int dz_cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

DZ_EXPORT int dazukofs_group_list(struct dazukofs_group_info *infos, size_t max)
{
	char path[DZ_PATH_MAX];
	char **names = NULL;
	size_t n = 0, cap = 0, i, filled = 0;
	struct dirent *de;
	int count = 0;
	DIR *dir;

	if (dz_path(path, sizeof(path), DZ_CONFIGFS, "%s", ""))
		return -1;
	dir = opendir(path);
	if (!dir) {
		dz_fail(errno, "cannot list groups: opendir %s", path);
		return -1;
	}
	while ((errno = 0, de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			char **p = realloc(names, ncap * sizeof(*names));

			if (!p)
				goto nomem;
			names = p;
			cap = ncap;
		}
		names[n] = strdup(de->d_name);
		if (!names[n])
			goto nomem;
		n++;
	}
	if (errno) {
		dz_fail(errno, "cannot list groups: readdir %s", path);
		count = -1;
		goto out;
	}
	if (n)
		qsort(names, n, sizeof(*names), dz_cmp_names);
	for (i = 0; i < n; i++) {
		struct dazukofs_group_info tmp;
		char what[DZ_WHAT_MAX];

		snprintf(what, sizeof(what), "cannot list groups: group '%.80s'",
			 names[i]);
		if (dz_info(what, names[i], &tmp)) {
			if (errno == ENOENT)	/* deleted meanwhile */
				continue;
			count = -1;
			goto out;
		}
		if (filled < max)
			infos[filled++] = tmp;
		count++;
	}
	goto out;
nomem:
	dz_fail(ENOMEM, "cannot list groups");
	count = -1;
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(dir);
	return count;
}

/* An attribute's name: a word of a-z and _, never a path. */
static int dz_check_attr(const char *what, const char *attr)
{
	size_t i;

	for (i = 0; attr && attr[i]; i++)
		if (!((attr[i] >= 'a' && attr[i] <= 'z') || attr[i] == '_'))
			break;
	if (!attr || !i || attr[i]) {
		dz_fail_plain(EINVAL, "%s: '%.64s' is not an attribute name", what,
			      attr ? attr : "(null)");
		return -1;
	}
	return 0;
}

DZ_EXPORT int dazukofs_group_set_attr(const char *name, const char *attr,
				      const char *value)
{
	char what[DZ_WHAT_MAX];

	snprintf(what, sizeof(what), "cannot set %.32s of group '%.64s'",
		 attr ? attr : "(null)", name ? name : "(null)");
	if (!dz_check_name(what, name) || dz_check_attr(what, attr))
		return -1;
	if (!value || strchr(value, '\n')) {
		dz_fail_plain(EINVAL, "%s: the value must be one line", what);
		return -1;
	}
	return dz_write_new_attr(what, name, attr, value);
}

DZ_EXPORT int dazukofs_group_get_attr(const char *name, const char *attr,
				      char *buf, size_t size)
{
	char what[DZ_WHAT_MAX], path[DZ_PATH_MAX], line[DZ_PATH_MAX];
	size_t len;

	snprintf(what, sizeof(what), "cannot read %.32s of group '%.64s'",
		 attr ? attr : "(null)", name ? name : "(null)");
	if (!dz_check_name(what, name) || dz_check_attr(what, attr))
		return -1;
	if (!buf || !size) {
		dz_fail_plain(EINVAL, "%s: no buffer", what);
		return -1;
	}
	if (dz_path(path, sizeof(path), DZ_CONFIGFS, "/%s/%s", name, attr))
		return -1;
	if (dz_read_attr(path, line, sizeof(line))) {
		int err = errno;

		if (err == ENOENT && !dz_group_missing(what, name)) {
			dz_fail_plain(EOPNOTSUPP,
				      "%s: the dazukofs module has no %s (too old)",
				      what, attr);
			return -1;
		}
		if (err != ENOENT)
			dz_fail(err, "%s: read %s", what, path);
		return -1;
	}
	len = strlen(line);
	if (len >= size) {
		dz_fail_plain(ERANGE, "%s: %zu bytes do not fit in %zu", what,
			      len + 1, size);
		return -1;
	}
	memcpy(buf, line, len + 1);
	return 0;
}

/* An unsigned attribute up to max, through dazukofs_group_get_attr(). */
static int dz_get_uint_attr(const char *name, const char *attr, unsigned int max,
			    unsigned int *value)
{
	char buf[32];
	uint64_t v;

	if (dazukofs_group_get_attr(name, attr, buf, sizeof(buf)) ||
	    dz_attr_uint("cannot read a group attribute", name, attr, buf, max,
			 &v))
		return -1;
	*value = (unsigned int)v;
	return 0;
}

DZ_EXPORT int dazukofs_group_get_grace(const char *name, unsigned int *ms)
{
	return dz_get_uint_attr(name, "grace_ms", DAZUKOFS_GRACE_MS_MAX, ms);
}

DZ_EXPORT int dazukofs_group_get_busy_poll(const char *name, unsigned int *us)
{
	return dz_get_uint_attr(name, "busy_poll_us", DAZUKOFS_BUSY_POLL_US_MAX, us);
}

DZ_EXPORT int dazukofs_group_get_record(const char *name, int *format)
{
	unsigned int v;

	if (dz_get_uint_attr(name, "record", DAZUKOFS_RECORD_V3, &v))
		return -1;
	if (v < DAZUKOFS_RECORD_V1) {
		dz_fail_plain(EIO, "cannot read record of group '%.80s': %u is not 1, 2 or 3",
			      name, v);
		return -1;
	}
	*format = (int)v;
	return 0;
}

DZ_EXPORT int dazukofs_group_get_events(const char *name, unsigned int *events)
{
	char buf[64];
	unsigned int bits;

	if (dazukofs_group_get_attr(name, "events", buf, sizeof(buf)))
		return -1;
	bits = dazukofs_events_parse(buf);
	if (!bits) {
		dz_fail_plain(EIO, "cannot read events of group '%.64s': '%s' is not a list of events",
			      name, buf);
		return -1;
	}
	*events = bits;
	return 0;
}

DZ_EXPORT int dazukofs_group_set_exclude_cgroups(const char *name,
						 const uint64_t *ids, size_t n)
{
	/* "\n" when empty: a write of nothing would not reach the module */
	char what[DZ_WHAT_MAX], text[DAZUKOFS_EXCLUDE_CGROUPS_MAX * 21 + 2] = "\n";
	size_t len = 0;

	snprintf(what, sizeof(what),
		 "cannot set the excluded cgroups of group '%.80s'",
		 name ? name : "(null)");
	if (!dz_check_name(what, name))
		return -1;
	if ((n && !ids) || n > DAZUKOFS_EXCLUDE_CGROUPS_MAX) {
		dz_fail_plain(n > DAZUKOFS_EXCLUDE_CGROUPS_MAX ? E2BIG : EINVAL,
			      "%s: %zu ids%s (at most %d)", what, n, ids ? "" : " and none given",
			      DAZUKOFS_EXCLUDE_CGROUPS_MAX);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%" PRIu64 "\n",
					ids[i]);
	return dz_write_new_attr(what, name, "exclude_cgroups", text);
}

DZ_EXPORT int dazukofs_group_get_exclude_cgroups(const char *name, uint64_t *ids,
						 size_t max)
{
	char buf[DAZUKOFS_EXCLUDE_CGROUPS_MAX * 21 + 2];
	size_t count = 0;
	char *line, *save;

	if (dazukofs_group_get_attr(name, "exclude_cgroups", buf, sizeof(buf)))
		return -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		uint64_t id;

		if (dz_attr_uint("cannot read the excluded cgroups", name,
				 "exclude_cgroups", line, UINT64_MAX, &id))
			return -1;
		if (count < max && ids)
			ids[count] = id;
		count++;
	}
	return (int)count;
}
