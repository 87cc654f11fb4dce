// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The group device's write() of several answers (fake.h), for programs
 * linked with -Wl,--wrap=write only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fake.h"
#include "protocol.h"

/* Linked with -Wl,--wrap=write: the library's write() comes here. */
ssize_t __real_write(int fd, const void *buf, size_t count);
ssize_t __wrap_write(int fd, const void *buf, size_t count);

static int answers_fd = -1;
static unsigned long answers_fail_id;
static int answers_fail_err;
static int answers_writes;
static int answers_one;

void fake_device_answers(int fd, unsigned long fail_id, int fail_err)
{
	answers_fd = fd;
	answers_fail_id = fail_id;
	answers_fail_err = fail_err;
	answers_writes = 0;
}

void fake_device_one_per_write(int on)
{
	answers_one = on;
}

int fake_device_writes(void)
{
	int n = answers_writes;

	answers_writes = 0;
	return n;
}

ssize_t __wrap_write(int fd, const void *buf, size_t count)
{
	const char *text = buf;
	size_t off = 0, len;

	if (fd != answers_fd || answers_fd < 0)
		return __real_write(fd, buf, count);
	answers_writes++;
	if (answers_one && dazukofs_proto_line_len(text, count) < count) {
		errno = EINVAL;
		return -1;
	}
	for (; off < count; off += len) {
		unsigned long id;
		int r, keep, err = 0;

		len = dazukofs_proto_line_len(text + off, count - off);
		if (dazukofs_proto_parse_response(text + off, len, &id, &r, &keep))
			err = EINVAL;
		else if (id == answers_fail_id)
			err = answers_fail_err;
		if (err) {
			if (off)
				break;
			errno = err;
			return -1;
		}
		if (__real_write(fd, text + off, len) != (ssize_t)len) {
			perror("fake device write");
			abort();
		}
	}
	return (ssize_t)off;
}
