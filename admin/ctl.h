/* SPDX-License-Identifier: GPL-2.0 */
/* dazukofsctl: what the command modules share. */
#ifndef DAZUKOFSCTL_H
#define DAZUKOFSCTL_H

#include <stdio.h>

#include <linux/dazukofs.h>

#include "dazukofs.h"

/* The project's VERSION file (CMake) */
#ifndef DAZUKOFS_VERSION
#define DAZUKOFS_VERSION "unknown"
#endif

/* Exit statuses (dazukofsctl(8)). */
#define EXIT_OK		0	/* done; status: nothing wrong */
#define EXIT_PROBLEM	1	/* the operation failed, or status found a problem */
#define EXIT_USAGE	2	/* bad command line, bad group name or value */
#define EXIT_ENV	3	/* module not loaded, configfs not mounted, no permission */

/* The module's name for modprobe; sysfs has its directory while it is loaded. */
#define CTL_MODULE_NAME		"dazukofs"
#define CTL_MODULE_DIR		"/sys/module/" CTL_MODULE_NAME
/* The mount table that status reads for the dazukofs mounts. */
#define CTL_MOUNTINFO		"/proc/self/mountinfo"

/* Where to look: the defaults or DAZUKOFS_* from the environment. */
struct ctl {
	const char *configfs;
	const char *sysfs;
	const char *dev_prefix;
	const char *mountinfo;
	const char *module_dir;
};

/* Print "dazukofsctl: MSG" on stderr. */
void ctl_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* After a library failure: one clear line on stderr; returns the exit status. */
int ctl_lib_fail(const struct ctl *ctl, const char *group);
/* "the dazukofs module is not loaded" on stderr, with the fix. */
void ctl_err_not_loaded(const struct ctl *ctl);
/* 1 if the module is loaded. */
int ctl_module_loaded(const struct ctl *ctl);

struct option;
/* getopt_long's value for the option built from table entry i. */
#define CTL_OPT_BASE 256
/*
 * The next option of a command (argv[0] is the command's own word), as
 * getopt_long gives it: --opt VALUE and --opt=VALUE alike, -h and --help.
 * An unknown option or a missing value: a ctl_err line naming cmd, and
 * '?' (a usage error).  -1 at the end; the operands then start at optind.
 */
int ctl_getopt(const char *cmd, int argc, char **argv, const struct option *opts);

int ctl_cmd_group(const struct ctl *ctl, int argc, char **argv);
int ctl_cmd_stats(const struct ctl *ctl, int argc, char **argv);
int ctl_cmd_status(const struct ctl *ctl, int argc, char **argv);
/* Parse a decimal number in [min, max]; 0, or -1 after an error message. */
int ctl_number(const char *opt, const char *s, unsigned long min,
	       unsigned long max, unsigned long *out);

#endif
