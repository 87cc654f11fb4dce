// SPDX-License-Identifier: GPL-2.0
/*
 * The config file names the program run at each detection, and the
 * scanner runs as root: a file or directory on that path that someone
 * else can write would be a way for them to run code as root, or to turn
 * scanning off.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/trust.h"

static int trusted(const char *what, const char *path, const char *p,
		   char *err, size_t errlen)
{
	struct stat st;

	if (stat(p, &st)) {
		snprintf(err, errlen, "%s %s: %s: %s", what, path, p, strerror(errno));
		return -1;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		snprintf(err, errlen,
			 "%s %s: %s is owned by uid %u, not by root or the scanner's user (uid %u); refused",
			 what, path, p, (unsigned int)st.st_uid, (unsigned int)geteuid());
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(err, errlen,
			 "%s %s: %s is writable by %s (mode %04o); refused",
			 what, path, p, st.st_mode & S_IWOTH ? "all" : "its group",
			 (unsigned int)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

int trust_path(const char *what, const char *path, char *err, size_t errlen)
{
	char real[PATH_MAX], *slash;

	if (!realpath(path, real)) {
		snprintf(err, errlen, "%s %s: %s", what, path, strerror(errno));
		return -1;
	}
	/* "-c /dev/null", no settings: it reads empty whoever writes it. */
	if (!strcmp(real, "/dev/null"))
		return 0;
	if (trusted(what, path, real, err, errlen))
		return -1;
	slash = strrchr(real, '/');
	slash[slash == real] = '\0';	/* "/x" sits in "/" */
	return trusted(what, path, real, err, errlen);
}
