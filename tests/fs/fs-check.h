/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PASS/FAIL reporting shared by the small vm-sync test programs
 * (fs-reflink, fs-ioctl, fs-casefold): one line per check, prefixed with
 * the program's name, and the count of failures for the exit status.
 */
#ifndef FS_CHECK_H
#define FS_CHECK_H

#include <stdio.h>

static int failures;

static void check_as(const char *prog, int ok, const char *what)
{
	printf("%s: %s: %s\n", prog, ok ? "PASS" : "FAIL", what);
	if (!ok)
		failures++;
}

/* The summary line; returns the exit status. */
static int check_done(const char *prog)
{
	printf("%s: %s\n", prog, failures ? "FAIL" : "PASS");
	return failures ? 1 : 0;
}

#endif
