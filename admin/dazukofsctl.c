// SPDX-License-Identifier: GPL-2.0
/*
 * dazukofsctl: administer DazukoFS groups, read its counters, check its
 * health.  See dazukofsctl(8).
 */
#include <errno.h>
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
	"  group add NAME [--untracked] [--timeout MS] [--on-timeout allow|deny]\n"
	"                          create a group (crash-tracked by default)\n"
	"  group del NAME          delete a group\n"
	"  group list              list the groups and their settings\n"
	"  group show NAME         one group's settings and state\n"
	"  stats [GROUP] [--json] [--watch SECONDS [--count N]]\n"
	"                          the counters (all groups, or one)\n"
	"  status [--interval MS]  is the module loaded, what is mounted, is\n"
	"                          anything wrong (exit status 1 if so)\n"
	"\n"
	"Every command takes --help.  Exit status: 0 ok, 1 failure or problem\n"
	"found, 2 usage error, 3 module not loaded / configfs not mounted / no\n"
	"permission.  Environment: DAZUKOFS_CONFIGFS, DAZUKOFS_SYSFS,\n"
	"DAZUKOFS_DEV, DAZUKOFS_MOUNTINFO, DAZUKOFS_MODULE override the paths.\n"
	"See dazukofsctl(8).\n";

/* A new group's settings unless the options say otherwise. */
static const struct dazukofs_group_config group_defaults = DAZUKOFS_GROUP_CONFIG_DEFAULT;

static const char *action_name(int action)
{
	return action == DAZUKOFS_DENY ? DAZUKOFS_ACTION_NAME_DENY : DAZUKOFS_ACTION_NAME_ALLOW;
}

/*
 * The limits come from <linux/dazukofs.h>, formatted in at run time, so
 * that the text cannot drift from what the kernel accepts.
 */
static void usage_group(FILE *out)
{
	fprintf(out,
		"Usage: dazukofsctl group add NAME [--untracked] [--timeout MS]\n"
		"                             [--on-timeout %s|%s] [--record 1|2]\n"
		"                             [--busy-poll US]\n"
		"       dazukofsctl group del NAME\n"
		"       dazukofsctl group list\n"
		"       dazukofsctl group show NAME\n"
		"\n"
		"Group names have 1 to %d characters of A-Z a-z 0-9 _ -.\n"
		"  --untracked         the 2009 behaviour: events wait for a reader, also\n"
		"                      those a reader that died held and those that come\n"
		"                      while the group has none.  By default the group is\n"
		"                      crash-tracked: a reader's events go to another\n"
		"                      reader when it dies, and with none left opens pass\n"
		"  --track             crash-tracked (the default)\n"
		"  --timeout MS        how long an event may wait for the group's answer,\n"
		"                      0 to %u ms; 0 (the default) waits for ever\n"
		"  --on-timeout %s|%s\n"
		"                      the verdict when the timeout passes (default %s)\n"
		"  --record 1|2        the record format of its events: 1 (the default)\n"
		"                      id, fd and pid; 2 also who opened the file how,\n"
		"                      which file it is, and files the module could not\n"
		"                      open for the worker (needs a module that has it)\n"
		"  --busy-poll US      openers waiting for the group's answer and workers\n"
		"                      waiting for an event spin this long before they\n"
		"                      sleep, 0 to %u us; 0 (the default) never: for\n"
		"                      workers that answer in microseconds, at the cost\n"
		"                      of CPU time (needs a module that has it)\n",
		DAZUKOFS_ACTION_NAME_ALLOW, DAZUKOFS_ACTION_NAME_DENY,
		DAZUKOFS_GROUP_NAME_MAX, DAZUKOFS_TIMEOUT_MS_MAX,
		DAZUKOFS_ACTION_NAME_ALLOW, DAZUKOFS_ACTION_NAME_DENY,
		action_name(group_defaults.timeout_action),
		DAZUKOFS_BUSY_POLL_US_MAX);
}

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
	unsigned long v;
	char *end;

	if (!s) {
		ctl_err("%s needs a value (see --help)", opt);
		return -1;
	}
	errno = 0;
	v = strtoul(s, &end, 10);
	if (!*s || *end || errno || s[0] == '-' || v < min || v > max) {
		ctl_err("%s: '%s' is not a number from %lu to %lu", opt, s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

static int is_help(const char *a)
{
	return !strcmp(a, "--help") || !strcmp(a, "-h");
}

/* NAME must be a group name: reports a bad one as a usage error. */
static int check_name(const char *name)
{
	size_t i, len = strlen(name);

	if (len == 0 || len > DAZUKOFS_GROUP_NAME_MAX)
		goto bad;
	for (i = 0; i < len; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-'))
			goto bad;
	}
	return 0;
bad:
	ctl_err("invalid group name '%s': use 1 to %d of A-Z a-z 0-9 _ -", name,
		DAZUKOFS_GROUP_NAME_MAX);
	return -1;
}

static int group_add(const struct ctl *ctl, int argc, char **argv)
{
	struct dazukofs_group_config cfg = group_defaults;
	const char *name = NULL;
	unsigned long ms, record = 0, busy_poll = 0;
	int i, rc;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (is_help(a)) {
			usage_group(stdout);
			return EXIT_OK;
		} else if (!strcmp(a, "--track")) {
			cfg.track = 1;
		} else if (!strcmp(a, "--untracked")) {
			cfg.track = 0;
		} else if (!strcmp(a, "--timeout")) {
			if (ctl_number("--timeout", ++i < argc ? argv[i] : NULL,
				       0, DAZUKOFS_TIMEOUT_MS_MAX, &ms))
				return EXIT_USAGE;
			cfg.timeout_ms = (unsigned int)ms;
		} else if (!strncmp(a, "--timeout=", 10)) {
			if (ctl_number("--timeout", a + 10, 0, DAZUKOFS_TIMEOUT_MS_MAX, &ms))
				return EXIT_USAGE;
			cfg.timeout_ms = (unsigned int)ms;
		} else if (!strcmp(a, "--on-timeout") || !strncmp(a, "--on-timeout=", 13)) {
			const char *v = a[12] == '=' ? a + 13 : (++i < argc ? argv[i] : NULL);

			if (v && !strcmp(v, DAZUKOFS_ACTION_NAME_ALLOW)) {
				cfg.timeout_action = DAZUKOFS_ALLOW;
			} else if (v && !strcmp(v, DAZUKOFS_ACTION_NAME_DENY)) {
				cfg.timeout_action = DAZUKOFS_DENY;
			} else {
				ctl_err("--on-timeout takes " DAZUKOFS_ACTION_NAME_ALLOW " or "
					DAZUKOFS_ACTION_NAME_DENY "%s%s%s",
					v ? ", not '" : "", v ? v : "", v ? "'" : "");
				return EXIT_USAGE;
			}
		} else if (!strcmp(a, "--record") || !strncmp(a, "--record=", 9)) {
			const char *v = a[8] == '=' ? a + 9 : (++i < argc ? argv[i] : NULL);

			if (ctl_number("--record", v, DAZUKOFS_RECORD_V1,
				       DAZUKOFS_RECORD_V2, &record))
				return EXIT_USAGE;
		} else if (!strcmp(a, "--busy-poll") || !strncmp(a, "--busy-poll=", 12)) {
			const char *v = a[11] == '=' ? a + 12 : (++i < argc ? argv[i] : NULL);

			if (ctl_number("--busy-poll", v, 0, DAZUKOFS_BUSY_POLL_US_MAX,
				       &busy_poll))
				return EXIT_USAGE;
		} else if (a[0] == '-' && a[1]) {
			ctl_err("group add: unknown option '%s' (see --help)", a);
			return EXIT_USAGE;
		} else if (name) {
			ctl_err("group add: one group name only ('%s' and '%s')", name, a);
			return EXIT_USAGE;
		} else {
			name = a;
		}
	}
	if (!name) {
		ctl_err("group add: which group? (dazukofsctl group add NAME)");
		return EXIT_USAGE;
	}
	if (check_name(name))
		return EXIT_USAGE;
	if (dazukofs_group_create(name, &cfg))
		return ctl_lib_fail(ctl, name);
	if (busy_poll && dazukofs_group_set_busy_poll(name, (unsigned int)busy_poll))
		goto fail;
	if (!record || !dazukofs_group_set_record(name, (int)record))
		return EXIT_OK;
	/* A module without the attribute has format 1 only: asked for. */
	if (record == DAZUKOFS_RECORD_V1 && errno == EOPNOTSUPP)
		return EXIT_OK;
fail:
	rc = ctl_lib_fail(ctl, name);
	/* Like a setting that cannot be written: no half-made group left. */
	dazukofs_group_delete(name);
	return rc;
}

/*
 * The first line of one of the group's configfs attributes, into @buf;
 * empty if the module does not have it.
 */
static void group_attr(const struct ctl *ctl, const char *name,
		       const char *attr, char *buf, size_t size)
{
	char path[512];
	FILE *fp;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s/%s", ctl->configfs, name, attr);
	fp = fopen(path, "re");
	if (!fp)
		return;
	if (!fgets(buf, (int)size, fp))
		buf[0] = '\0';
	fclose(fp);
	buf[strcspn(buf, "\n")] = '\0';
}

/* The group's record format, if the module has the attribute: 0 if not. */
static int group_record(const struct ctl *ctl, const char *name)
{
	char buf[8];

	group_attr(ctl, name, "record", buf, sizeof(buf));
	return !strcmp(buf, "1") || !strcmp(buf, "2") ? buf[0] - '0' : 0;
}

/* The one NAME argument of group del / group show. */
static int one_name(const char *cmd, int argc, char **argv, const char **name)
{
	int i;

	*name = NULL;
	for (i = 0; i < argc; i++) {
		if (is_help(argv[i])) {
			usage_group(stdout);
			return -2;
		}
		if (argv[i][0] == '-' && argv[i][1]) {
			ctl_err("group %s: unknown option '%s' (see --help)", cmd, argv[i]);
			return -1;
		}
		if (*name) {
			ctl_err("group %s: one group name only", cmd);
			return -1;
		}
		*name = argv[i];
	}
	if (!*name) {
		ctl_err("group %s: which group? (dazukofsctl group %s NAME)", cmd, cmd);
		return -1;
	}
	return check_name(*name);
}

static int group_del(const struct ctl *ctl, int argc, char **argv)
{
	const char *name;
	int r = one_name("del", argc, argv, &name);

	if (r)
		return r == -2 ? EXIT_OK : EXIT_USAGE;
	if (dazukofs_group_delete(name)) {
		if (errno == EBUSY) {
			ctl_err("group '%s' is in use: %s", name, dazukofs_strerror());
			return EXIT_PROBLEM;
		}
		return ctl_lib_fail(ctl, name);
	}
	return EXIT_OK;
}

static int group_list(const struct ctl *ctl, int argc, char **argv)
{
	static struct dazukofs_group_info infos[DAZUKOFS_MAX_GROUPS];
	int i, n;

	for (i = 0; i < argc; i++) {
		if (is_help(argv[i])) {
			usage_group(stdout);
			return EXIT_OK;
		}
		ctl_err("group list: unexpected argument '%s' (see --help)", argv[i]);
		return EXIT_USAGE;
	}
	n = dazukofs_group_list(infos, DAZUKOFS_MAX_GROUPS);
	if (n < 0)
		return ctl_lib_fail(ctl, NULL);
	if (n > DAZUKOFS_MAX_GROUPS)
		n = DAZUKOFS_MAX_GROUPS;
	printf("%-20s %4s %5s %10s %10s\n", "NAME", "ID", "TRACK", "TIMEOUT_MS",
	       "ON_TIMEOUT");
	for (i = 0; i < n; i++)
		printf("%-20s %4d %5s %10u %10s\n", infos[i].name, infos[i].id,
		       infos[i].config.track ? "yes" : "no",
		       infos[i].config.timeout_ms,
		       action_name(infos[i].config.timeout_action));
	return EXIT_OK;
}

static int group_show(const struct ctl *ctl, int argc, char **argv)
{
	struct dazukofs_group_info info;
	struct dazukofs_stats s;
	const char *name;
	char buf[16];
	int r = one_name("show", argc, argv, &name);

	if (r)
		return r == -2 ? EXIT_OK : EXIT_USAGE;
	if (dazukofs_group_info(name, &info))
		return ctl_lib_fail(ctl, name);
	printf("name:       %s\n", info.name);
	printf("id:         %d\n", info.id);
	printf("device:     %s%d\n", ctl->dev_prefix, info.id);
	printf("track:      %s\n", info.config.track ?
	       "yes (a reader that dies hands its events on; none left: opens pass)" :
	       "no (events wait for a reader, also a dead reader's)");
	if (info.config.timeout_ms)
		printf("timeout:    %u ms, then %s\n", info.config.timeout_ms,
		       action_name(info.config.timeout_action));
	else
		printf("timeout:    none (events wait for ever)\n");
	switch (group_record(ctl, name)) {
	case DAZUKOFS_RECORD_V1:
		printf("record:     1 (id, fd, pid)\n");
		break;
	case DAZUKOFS_RECORD_V2:
		printf("record:     2 (also who opened how, which file, fd errors)\n");
		break;
	}
	group_attr(ctl, name, "busy_poll_us", buf, sizeof(buf));
	if (buf[0] && strcmp(buf, "0"))
		printf("busy poll:  %s us\n", buf);
	if (dazukofs_get_stats(name, &s))
		return ctl_lib_fail(ctl, name);
	printf("active:     %s\n", s.active ? "yes" : "no (tracked, no reader: events skip it)");
	printf("readers:    %llu\n", (unsigned long long)s.readers);
	printf("waiting:    %llu\n", (unsigned long long)s.waiting);
	printf("in hand:    %llu\n", (unsigned long long)s.in_hand);
	printf("events:     %llu (allowed %llu, denied %llu, cancelled %llu, timeouts %llu)\n",
	       (unsigned long long)s.events, (unsigned long long)s.allowed,
	       (unsigned long long)s.denied, (unsigned long long)s.cancelled,
	       (unsigned long long)s.timeouts);
	return EXIT_OK;
}

static int cmd_group(const struct ctl *ctl, int argc, char **argv)
{
	if (argc < 1) {
		ctl_err("group: add, del, list or show? (see dazukofsctl group --help)");
		return EXIT_USAGE;
	}
	if (is_help(argv[0])) {
		usage_group(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[0], "add"))
		return group_add(ctl, argc - 1, argv + 1);
	if (!strcmp(argv[0], "del") || !strcmp(argv[0], "delete"))
		return group_del(ctl, argc - 1, argv + 1);
	if (!strcmp(argv[0], "list"))
		return group_list(ctl, argc - 1, argv + 1);
	if (!strcmp(argv[0], "show"))
		return group_show(ctl, argc - 1, argv + 1);
	ctl_err("group: unknown subcommand '%s' (add, del, list, show)", argv[0]);
	return EXIT_USAGE;
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
	if (!strcmp(argv[1], "group"))
		return cmd_group(&ctl, argc - 2, argv + 2);
	if (!strcmp(argv[1], "stats"))
		return ctl_cmd_stats(&ctl, argc - 2, argv + 2);
	if (!strcmp(argv[1], "status"))
		return ctl_cmd_status(&ctl, argc - 2, argv + 2);
	ctl_err("unknown command '%s' (see dazukofsctl --help)", argv[1]);
	return EXIT_USAGE;
}
