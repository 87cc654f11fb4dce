// SPDX-License-Identifier: GPL-2.0
/*
 * dazukofsctl: administer DazukoFS groups, read its counters, check its
 * health.  See dazukofsctl(8).
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ctl.h"


static const char usage_main[] =
	"Usage: dazukofsctl COMMAND [ARGS]\n"
	"\n"
	"Administer DazukoFS on-access scanning groups and read its counters.\n"
	"\n"
	"Commands:\n"
	"  group add NAME [OPTION]...\n"
	"                          create a group (crash-tracked by default)\n"
	"  group set NAME OPTION...\n"
	"                          change a group's settings\n"
	"  group del NAME          delete a group\n"
	"  group list              list the groups and their main settings\n"
	"  group show NAME         one group's settings and state, all of them\n"
	"  stats [GROUP] [--json] [--watch SECONDS [--count N]]\n"
	"                          the counters (all groups, or one)\n"
	"  status [--interval MS]  is the module loaded, what is mounted, is\n"
	"                          anything wrong (exit status 1 if so)\n"
	"\n"
	"Every command takes --help; options take --opt VALUE or --opt=VALUE.\n"
	"Exit status: 0 ok, 1 failure or problem\n"
	"found, 2 usage error, 3 module not loaded / configfs not mounted / no\n"
	"permission.  Environment: DAZUKOFS_CONFIGFS, DAZUKOFS_SYSFS,\n"
	"DAZUKOFS_DEV, DAZUKOFS_MOUNTINFO, DAZUKOFS_MODULE override the paths.\n"
	"See dazukofsctl(8).\n";

void ctl_err(const char *fmt, ...)
{
	va_list ap;

	fputs("dazukofsctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

int ctl_module_loaded(const struct ctl *ctl)
{
	return exists(ctl->module_dir) || exists(ctl->sysfs);
}

void ctl_err_not_loaded(const struct ctl *ctl)
{
	ctl_err("the " CTL_MODULE_NAME " module is not loaded (no %s): modprobe " CTL_MODULE_NAME,
		ctl->module_dir);
}

int ctl_lib_fail(const struct ctl *ctl, const char *group)
{
	int err = errno;

	if (err == ENOENT && !exists(ctl->configfs)) {
		if (!ctl_module_loaded(ctl))
			ctl_err_not_loaded(ctl);
		else
			ctl_err("configfs is not mounted (no %s): mount -t configfs none "
				DAZUKOFS_CONFIGFS_MOUNT, ctl->configfs);
		return EXIT_ENV;
	}
	if (err == EACCES || err == EPERM) {
		ctl_err("permission denied: %s (run as root)", dazukofs_strerror());
		return EXIT_ENV;
	}
	if (err == ENOENT && group) {
		ctl_err("no such group '%s'", group);
		return EXIT_PROBLEM;
	}
	if (err == EEXIST && group) {
		ctl_err("group '%s' already exists", group);
		return EXIT_PROBLEM;
	}
	ctl_err("%s", dazukofs_strerror());
	return err == EINVAL ? EXIT_USAGE : EXIT_PROBLEM;
}

int ctl_number(const char *opt, const char *s, unsigned long min,
	       unsigned long max, unsigned long *out)
{
	uint64_t v;

	if (!s) {
		ctl_err("%s needs a value (see --help)", opt);
		return -1;
	}
	if (dazukofs_parse_uint(s, max, &v) || v < min) {
		ctl_err("%s: '%s' is not a number from %lu to %lu", opt, s, min, max);
		return -1;
	}
	*out = (unsigned long)v;
	return 0;
}

static int is_help(const char *a)
{
	return !strcmp(a, "--help") || !strcmp(a, "-h");
}

int ctl_getopt(const char *cmd, int argc, char **argv, const struct option *opts)
{
	int c;

	opterr = 0;	/* our messages, one line each */
	c = getopt_long(argc, argv, ":h", opts, NULL);
	if (c == ':') {
		ctl_err("%s: %s needs a value (see --help)", cmd, argv[optind - 1]);
		return '?';
	}
	if (c == '?') {
		ctl_err("%s: unknown option '%s' (see --help)", cmd, argv[optind - 1]);
		return '?';
	}
	return c;
}

static const char *env_or(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v && *v ? v : def;
}

int main(int argc, char **argv)
{
	struct dazukofs_paths paths = { 0 };
	struct ctl ctl;

	ctl.configfs = env_or("DAZUKOFS_CONFIGFS", DAZUKOFS_CONFIGFS_ROOT);
	ctl.sysfs = env_or("DAZUKOFS_SYSFS", DAZUKOFS_SYSFS_ROOT);
	ctl.dev_prefix = env_or("DAZUKOFS_DEV", DAZUKOFS_DEV_PREFIX);
	ctl.mountinfo = env_or("DAZUKOFS_MOUNTINFO", CTL_MOUNTINFO);
	ctl.module_dir = env_or("DAZUKOFS_MODULE", CTL_MODULE_DIR);
	paths.configfs = ctl.configfs;
	paths.sysfs = ctl.sysfs;
	paths.dev_prefix = ctl.dev_prefix;
	dazukofs_set_paths(&paths);

	if (argc < 2) {
		fputs(usage_main, stderr);
		return EXIT_USAGE;
	}
	if (is_help(argv[1]) || !strcmp(argv[1], "help")) {
		fputs(usage_main, stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		puts("dazukofsctl " DAZUKOFS_VERSION);
		return EXIT_OK;
	}
	/* each command parses its own words, argv[0] its name */
	if (!strcmp(argv[1], "group"))
		return ctl_cmd_group(&ctl, argc - 2, argv + 2);
	if (!strcmp(argv[1], "stats"))
		return ctl_cmd_stats(&ctl, argc - 1, argv + 1);
	if (!strcmp(argv[1], "status"))
		return ctl_cmd_status(&ctl, argc - 1, argv + 1);
	ctl_err("unknown command '%s' (see dazukofsctl --help)", argv[1]);
	return EXIT_USAGE;
}
