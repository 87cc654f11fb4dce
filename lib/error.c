// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Error messages: each thread has its own last message, so handles used by
 * different threads never see each other's failures.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define DZ_MSG_MAX 1024

static _Thread_local char dz_message[DZ_MSG_MAX];

static void dz_vfail(int err, int with_strerror, const char *fmt, va_list ap)
{
	char reason[128];
	int n;

	n = vsnprintf(dz_message, sizeof(dz_message), fmt, ap);
	if (n < 0)
		n = 0;
	if (with_strerror && (size_t)n < sizeof(dz_message)) {
		/* strerror_r: the GNU one returns the string to use. */
		const char *s = strerror_r(err, reason, sizeof(reason));

		snprintf(dz_message + n, sizeof(dz_message) - (size_t)n, ": %s",
			 s);
	}
	errno = err;
}

void dz_fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dz_vfail(err, 1, fmt, ap);
	va_end(ap);
}

void dz_fail_plain(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dz_vfail(err, 0, fmt, ap);
	va_end(ap);
}

DZ_EXPORT const char *dazukofs_strerror(void)
{
	if (!dz_message[0])
		return "no error";
	return dz_message;
}
