/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libdazukofs internals: shared by the modules of the library only. */
#ifndef DAZUKOFS_LIB_INTERNAL_H
#define DAZUKOFS_LIB_INTERNAL_H

#include <stddef.h>

#include "dazukofs.h"

#define DZ_EXPORT __attribute__((visibility("default")))

/* A path of up to this many bytes (incl. NUL). */
#define DZ_PATH_MAX 4096

enum dz_root {
	DZ_CONFIGFS,
	DZ_SYSFS,
	DZ_DEV_PREFIX,
	DZ_IGN_DEV,
};

/*
 * Build ROOT followed by the printf-formatted rest into buf.
 * Returns 0, or -1 with errno ENAMETOOLONG (and the error message set).
 */
int dz_path(char *buf, size_t size, enum dz_root root, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Set this thread's error: errno = err, message = fmt... + ": " strerror(err). */
void dz_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same without the strerror part (the message says it all). */
void dz_fail_plain(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* 1 if name is a valid group name, else 0 with the error set (EINVAL). */
int dz_check_name(const char *what, const char *name);

/*
 * Read a small text file (an attribute) into buf, NUL-terminated, with the
 * trailing newline removed.  Returns 0, or -1 with errno set (no message).
 */
int dz_read_attr(const char *path, char *buf, size_t size);

/* The group's id, from configfs. -1 with errno and message on failure. */
int dz_group_id(const char *what, const char *name);

#endif /* DAZUKOFS_LIB_INTERNAL_H */
