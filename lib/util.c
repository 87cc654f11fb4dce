// SPDX-License-Identifier: LGPL-2.1-or-later
/* Small helpers: attribute files, numbers, group names. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/dazukofs.h>

#include "internal.h"
#include "protocol.h"

DZ_EXPORT const char *dazukofs_action_name(int action)
{
	return action == DAZUKOFS_DENY ? DAZUKOFS_ACTION_NAME_DENY : DAZUKOFS_ACTION_NAME_ALLOW;
}

int dz_read_attr(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	do {
		n = read(fd, buf, size - 1);
	} while (n < 0 && errno == EINTR);
	err = errno;
	close(fd);
	if (n < 0) {
		errno = err;
		return -1;
	}
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

/*
 * Digits only: no sign, blank or base prefix, which strtoull() would take
 * (" 5", "+5", and "-1" as the largest number).
 */
DZ_EXPORT int dazukofs_parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || !*s)
		goto bad;
	for (; *s; s++) {
		unsigned int d;

		if (*s < '0' || *s > '9')
			goto bad;
		d = (unsigned int)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			goto range;
		v = v * 10 + d;
	}
	if (v > max)
		goto range;
	*out = v;
	return 0;
range:
	errno = ERANGE;
	return -1;
bad:
	errno = EINVAL;
	return -1;
}

/*
 * dazukofs.h spells the name's size as a number, as it cannot include the
 * kernel's header: a limit that changes there fails the build here.
 */
_Static_assert(sizeof(((struct dazukofs_group_info *)0)->name) ==
	       DAZUKOFS_GROUP_NAME_MAX + 1, "dazukofs_group_info.name's size");
/* DAZUKOFS_GROUP_CONFIG_DEFAULT against the module's defaults: lib-unit. */

DZ_EXPORT int dazukofs_group_name_valid(const char *name)
{
	size_t len = name ? strlen(name) : 0, i;

	if (len == 0 || len > DAZUKOFS_GROUP_NAME_MAX)
		return 0;
	for (i = 0; i < len; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-'))
			return 0;
	}
	return 1;
}

int dz_check_name(const char *what, const char *name)
{
	if (!name) {
		dz_fail_plain(EINVAL, "%s: no group name given", what);
		return 0;
	}
	if (dazukofs_group_name_valid(name))
		return 1;
	if (!*name || strlen(name) > DAZUKOFS_GROUP_NAME_MAX)
		dz_fail_plain(EINVAL,
			      "%s: invalid name: a group name has 1 to %d characters",
			      what, DAZUKOFS_GROUP_NAME_MAX);
	else
		dz_fail_plain(EINVAL,
			      "%s: invalid name: a group name has only A-Z a-z 0-9 _ -",
			      what);
	return 0;
}

DZ_EXPORT unsigned int dazukofs_events_parse(const char *names)
{
	unsigned int events = 0, bit;
	const char *p = names;

	while (p && *p) {
		size_t len = strcspn(p, " \t,");

		if (len) {
			bit = dazukofs_proto_event_type(p, len);
			if (!bit)
				return 0;
			events |= bit;
		}
		p += len;
		p += strspn(p, " \t,");
	}
	return events;
}

DZ_EXPORT int dazukofs_events_format(unsigned int events, char *buf, size_t size)
{
	size_t len = 0;
	unsigned int bit;

	if (!events || (events & ~(unsigned int)DAZUKOFS_EVENT_ALL) || !buf || !size) {
		errno = EINVAL;
		return -1;
	}
	buf[0] = '\0';
	for (bit = 1; bit & DAZUKOFS_EVENT_ALL; bit <<= 1) {
		const char *name = dazukofs_proto_event_name(bit);
		int n;

		if (!(events & bit))
			continue;
		n = snprintf(buf + len, size - len, "%s%s", len ? " " : "", name);
		if (n < 0 || (size_t)n >= size - len) {
			errno = ERANGE;
			return -1;
		}
		len += (size_t)n;
	}
	return 0;
}
