// SPDX-License-Identifier: GPL-2.0
/*
 * dazukofsctl group: add, set, del, list, show.  Every configfs attribute
 * a group has is a row of one table, which makes the options of add and
 * set, their --help and what show prints.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dzcommon/escape.h>

#include "ctl.h"

/* A new group's settings unless the options say otherwise. */
static const struct dazukofs_group_config group_defaults = DAZUKOFS_GROUP_CONFIG_DEFAULT;

enum setting_kind {
	SET_FLAG,	/* no value: the attribute gets flag_value */
	SET_UINT,	/* a decimal number from min to max */
	SET_ACTION,	/* allow or deny */
	SET_EVENTS,	/* open, exec, close_write: blanks or commas between */
	SET_CGROUPS,	/* cgroup ids or paths: blanks or commas between */
};

struct group_setting {
	const char *option;	/* --option [VALUE] */
	const char *attr;	/* the configfs attribute */
	enum setting_kind kind;
	const char *arg;	/* VALUE in --help */
	unsigned long min, max;
	const char *flag_value;	/* SET_FLAG: what is written */
	/*
	 * The module's own default, as the attribute reads (the UAPI
	 * header's): --help shows it, and asked for by add, an older module
	 * without the attribute has it anyway (no error).
	 */
	const char *module_default;
	const char *help;
};

/* A default of the UAPI header, as its attribute reads: DZ_STR(DAZUKOFS_X_DEFAULT) */
#define DZ_STR_(x) #x
#define DZ_STR(x) DZ_STR_(x)
#define DZ_ACTION_NAME(a) ((a) == DAZUKOFS_DENY ? DAZUKOFS_ACTION_NAME_DENY : \
			   DAZUKOFS_ACTION_NAME_ALLOW)

static const struct group_setting settings[] = {
	{ "track", "track", SET_FLAG, NULL, 0, 0, "1", DZ_STR(DAZUKOFS_TRACK_DEFAULT),
	  "crash-tracked: a reader's events go to another reader\n"
	  "when it dies, and with none left opens pass" },
	{ "untracked", "track", SET_FLAG, NULL, 0, 0, "0", DZ_STR(DAZUKOFS_TRACK_DEFAULT),
	  "the 2009 behaviour: events wait for a reader, also those a\n"
	  "reader that died held and those that come while it has none" },
	{ "timeout", "timeout_ms", SET_UINT, "MS", 0, DAZUKOFS_TIMEOUT_MS_MAX, NULL,
	  DZ_STR(DAZUKOFS_TIMEOUT_MS_DEFAULT),
	  "how long an event may wait for the group's answer;\n"
	  "0 waits for ever" },
	{ "on-timeout", "timeout_action", SET_ACTION, "allow|deny", 0, 0, NULL,
	  DZ_ACTION_NAME(DAZUKOFS_TIMEOUT_ACTION_DEFAULT),
	  "the verdict when the timeout passes" },
	{ "grace", "grace_ms", SET_UINT, "MS", 0, DAZUKOFS_GRACE_MS_MAX, NULL,
	  DZ_STR(DAZUKOFS_GRACE_MS_DEFAULT),
	  "tracked: how long the group stays active after its last\n"
	  "reader went, for a restarted one" },
	{ "max-queue", "max_queue", SET_UINT, "N", 1, UINT_MAX, NULL,
	  DZ_STR(DAZUKOFS_MAX_QUEUE_DEFAULT),
	  "the most events unsettled at once; more are settled at\n"
	  "once by --on-overflow (the module checks its maximum)" },
	{ "on-overflow", "overflow_action", SET_ACTION, "allow|deny", 0, 0, NULL,
	  DZ_ACTION_NAME(DAZUKOFS_OVERFLOW_ACTION_DEFAULT),
	  "the verdict past --max-queue" },
	{ "on-open-error", "open_error_action", SET_ACTION, "allow|deny", 0, 0, NULL,
	  DZ_ACTION_NAME(DAZUKOFS_OPEN_ERROR_ACTION_DEFAULT),
	  "the verdict when a reader cannot be given the file" },
	{ "events", "events", SET_EVENTS, "'open exec close_write'", 0, 0, NULL,
	  DAZUKOFS_EVENTS_NAMES_DEFAULT,
	  "what makes events: opens, execs, closes of files\n"
	  "written through the mount; one or more" },
	{ "record", "record", SET_UINT, "1|2|3", DAZUKOFS_RECORD_V1, DAZUKOFS_RECORD_V3, NULL,
	  DZ_STR(DAZUKOFS_RECORD_DEFAULT),
	  "the record format: 1 id, fd and pid; 2 also who opened\n"
	  "the file how, which file, fd errors; 3 also the opener's\n"
	  "cgroup" },
	{ "exclude-cgroups", "exclude_cgroups", SET_CGROUPS, "'CGROUP...'", 0, 0, NULL, "",
	  "cgroups whose processes, and their children's, make no\n"
	  "events: ids or paths (/system.slice/x.service or\n"
	  "/sys/fs/cgroup/...); '' for none; replaces the list" },
	{ "busy-poll", "busy_poll_us", SET_UINT, "US", 0, DAZUKOFS_BUSY_POLL_US_MAX, NULL,
	  DZ_STR(DAZUKOFS_BUSY_POLL_US_DEFAULT),
	  "openers and readers spin this long before they sleep;\n"
	  "0 never" },
	{ "arm", "armed", SET_FLAG, NULL, 0, 0, "1", "0",
	  "take part in events before a reader comes (an untracked\n"
	  "group's events then queue); cannot be undone" },
};
#define N_SETTINGS (sizeof(settings) / sizeof(settings[0]))

static void usage_group(FILE *out)
{
	fprintf(out,
		"Usage: dazukofsctl group add NAME [OPTION]...\n"
		"       dazukofsctl group set NAME OPTION...\n"
		"       dazukofsctl group del NAME\n"
		"       dazukofsctl group list\n"
		"       dazukofsctl group show NAME\n"
		"\n"
		"Group names have 1 to %d characters of A-Z a-z 0-9 _ -.  add creates a\n"
		"group with the options' settings (crash-tracked by default), set changes\n"
		"those of an existing one; show prints them all.  Each option takes its\n"
		"value as --option VALUE or --option=VALUE:\n",
		DAZUKOFS_GROUP_NAME_MAX);
	for (size_t i = 0; i < N_SETTINGS; i++) {
		const struct group_setting *s = &settings[i];
		char head[64], range[64] = "";
		const char *p = s->help;

		snprintf(head, sizeof(head), "--%s%s%s", s->option, s->arg ? " " : "",
			 s->arg ? s->arg : "");
		if (s->kind == SET_UINT && strcmp(s->arg, "1|2|3"))
			snprintf(range, sizeof(range), " (%lu to %lu)", s->min, s->max);
		fprintf(out, "  %s\n", head);
		while (*p) {
			size_t n = strcspn(p, "\n");

			fprintf(out, "        %.*s%s\n", (int)n, p, p[n] ? "" : range);
			p += n + (p[n] == '\n');
		}
		fprintf(out, "        [%s, default %s]\n", s->attr,
			*s->module_default ? s->module_default : "none");
	}
	fputs("Settings a module lacks are errors (too old), except their defaults.\n",
	      out);
}

static int is_help(const char *a)
{
	return !strcmp(a, "--help") || !strcmp(a, "-h");
}

/* NAME must be a group name: reports a bad one as a usage error. */
static int check_name(const char *name)
{
	if (dazukofs_group_name_valid(name))
		return 0;
	ctl_err("invalid group name '%s': use 1 to %d of A-Z a-z 0-9 _ -", name,
		DAZUKOFS_GROUP_NAME_MAX);
	return -1;
}

/* "open,exec" or "exec open" as the module's "open exec"; -1 after a message. */
static int events_value(const char *v, char *out, size_t size)
{
	if (dazukofs_events_format(dazukofs_events_parse(v), out, size)) {
		ctl_err("--events: '%s' is not a list of open, exec and close_write", v);
		return -1;
	}
	return 0;
}

/*
 * "ID PATH, ..." as the module's ids, separated by blanks (a setting is
 * one line), resolved here so that the message names what is wrong; -1
 * after a message.
 */
static int cgroups_value(const char *list, char *out, size_t size)
{
	size_t len = 0, n = 0;
	const char *p = list;

	out[0] = '\0';
	while (*p) {
		size_t wlen = strcspn(p, " \t\n,");
		char word[4096];
		uint64_t id;

		if (!wlen) {
			p++;
			continue;
		}
		if (wlen >= sizeof(word)) {
			ctl_err("--exclude-cgroups: '%.40s...' is too long", p);
			return -1;
		}
		memcpy(word, p, wlen);
		word[wlen] = '\0';
		p += wlen;
		if (word[0] == '/' ? dazukofs_cgroup_id(word, &id) :
		    dazukofs_parse_uint(word, UINT64_MAX, &id)) {
			if (word[0] == '/')
				ctl_err("--exclude-cgroups: %s", dazukofs_strerror());
			else
				ctl_err("--exclude-cgroups: '%s' is neither a cgroup id nor a path from '/'",
					word);
			return -1;
		}
		if (++n > DAZUKOFS_EXCLUDE_CGROUPS_MAX) {
			ctl_err("--exclude-cgroups: more than %d cgroups",
				DAZUKOFS_EXCLUDE_CGROUPS_MAX);
			return -1;
		}
		len += (size_t)snprintf(out + len, size - len, "%s%" PRIu64, n > 1 ? " " : "",
					id);
	}
	if (!n)
		snprintf(out, size, " ");	/* none: a write must have a byte */
	return 0;
}

/* One setting's value as the module takes it, into out; -1 after a message. */
static int setting_value(const struct group_setting *s, const char *arg, char *out,
			 size_t size)
{
	char opt[40];
	unsigned long n;

	snprintf(opt, sizeof(opt), "--%s", s->option);
	switch (s->kind) {
	case SET_FLAG:
		snprintf(out, size, "%s", s->flag_value);
		return 0;
	case SET_UINT:
		if (ctl_number(opt, arg, s->min, s->max, &n))
			return -1;
		snprintf(out, size, "%lu", n);
		return 0;
	case SET_ACTION:
		if (strcmp(arg, DAZUKOFS_ACTION_NAME_ALLOW) && strcmp(arg, DAZUKOFS_ACTION_NAME_DENY)) {
			ctl_err("%s takes " DAZUKOFS_ACTION_NAME_ALLOW " or "
				DAZUKOFS_ACTION_NAME_DENY ", not '%s'", opt, arg);
			return -1;
		}
		snprintf(out, size, "%s", arg);
		return 0;
	case SET_EVENTS:
		return events_value(arg, out, size);
	case SET_CGROUPS:
		return cgroups_value(arg, out, size);
	}
	return -1;
}

/* The longest: DAZUKOFS_EXCLUDE_CGROUPS_MAX ids of 20 digits and newlines. */
#define VALUE_MAX (DAZUKOFS_EXCLUDE_CGROUPS_MAX * 21 + 2)

/* The settings given, in table order, each once (the last one given). */
struct chosen {
	const struct group_setting *s;
	char value[VALUE_MAX];
};

/*
 * Parse add's or set's arguments: the one NAME and the settings.  0, 1
 * (--help printed) or -1 (after a message: a usage error).
 */
static int parse_settings(const char *cmd, int argc, char **argv, const char **name,
			  struct chosen chosen[N_SETTINGS], size_t *n)
{
	struct option opts[N_SETTINGS + 2];
	int c;

	for (size_t i = 0; i < N_SETTINGS; i++)
		opts[i] = (struct option){ settings[i].option,
					   settings[i].kind == SET_FLAG ? no_argument :
					   required_argument, NULL, (int)(CTL_OPT_BASE + i) };
	opts[N_SETTINGS] = (struct option){ "help", no_argument, NULL, 'h' };
	opts[N_SETTINGS + 1] = (struct option){ 0 };
	*n = 0;
	while ((c = ctl_getopt(cmd, argc, argv, opts)) != -1) {
		const struct group_setting *s;
		size_t k;

		if (c == 'h') {
			usage_group(stdout);
			return 1;
		}
		if (c < CTL_OPT_BASE || c >= CTL_OPT_BASE + (int)N_SETTINGS)
			return -1;
		s = &settings[c - CTL_OPT_BASE];
		/* one attribute, one value: --track then --untracked, the last */
		for (k = 0; k < *n && strcmp(chosen[k].s->attr, s->attr); k++)
			;
		chosen[k].s = s;
		if (setting_value(s, optarg, chosen[k].value, sizeof(chosen[k].value)))
			return -1;
		if (k == *n)
			(*n)++;
	}
	*name = NULL;
	for (int i = optind; i < argc; i++) {
		if (*name) {
			ctl_err("group %s: one group name only ('%s' and '%s')", cmd, *name,
				argv[i]);
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

/* Write the chosen settings; add skips what dazukofs_group_create() wrote. */
static int write_settings(const struct ctl *ctl, const char *name,
			  const struct chosen *chosen, size_t n, int adding)
{
	for (size_t i = 0; i < n; i++) {
		const struct group_setting *s = chosen[i].s;

		if (adding && (!strcmp(s->attr, "track") || !strcmp(s->attr, "timeout_ms") ||
			       !strcmp(s->attr, "timeout_action")))
			continue;
		if (!dazukofs_group_set_attr(name, s->attr, chosen[i].value))
			continue;
		/* an older module has its own default without the attribute */
		if (adding && errno == EOPNOTSUPP && s->module_default &&
		    !strcmp(chosen[i].value, s->module_default))
			continue;
		return ctl_lib_fail(ctl, name);
	}
	return EXIT_OK;
}

static int group_add(const struct ctl *ctl, int argc, char **argv)
{
	struct dazukofs_group_config cfg = group_defaults;
	struct chosen chosen[N_SETTINGS];
	const char *name;
	size_t n;
	int r = parse_settings("add", argc, argv, &name, chosen, &n);

	if (r)
		return r > 0 ? EXIT_OK : EXIT_USAGE;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(chosen[i].s->attr, "track"))
			cfg.track = chosen[i].value[0] == '1';
		else if (!strcmp(chosen[i].s->attr, "timeout_ms"))
			cfg.timeout_ms = (unsigned int)strtoul(chosen[i].value, NULL, 10);
		else if (!strcmp(chosen[i].s->attr, "timeout_action"))
			cfg.timeout_action = strcmp(chosen[i].value, DAZUKOFS_ACTION_NAME_DENY) ?
					     DAZUKOFS_ALLOW : DAZUKOFS_DENY;
	}
	if (dazukofs_group_create(name, &cfg))
		return ctl_lib_fail(ctl, name);
	r = write_settings(ctl, name, chosen, n, 1);
	/* Like a setting that cannot be written: no half-made group left. */
	if (r != EXIT_OK)
		dazukofs_group_delete(name);
	return r;
}

static int group_set(const struct ctl *ctl, int argc, char **argv)
{
	struct chosen chosen[N_SETTINGS];
	struct dazukofs_group_info info;
	const char *name;
	size_t n;
	int r = parse_settings("set", argc, argv, &name, chosen, &n);

	if (r)
		return r > 0 ? EXIT_OK : EXIT_USAGE;
	if (!n) {
		ctl_err("group set: which setting? (see dazukofsctl group --help)");
		return EXIT_USAGE;
	}
	/* no such group: one clear error, not a file created in configfs */
	if (dazukofs_group_info(name, &info))
		return ctl_lib_fail(ctl, name);
	return write_settings(ctl, name, chosen, n, 0);
}

/* The one NAME argument of group del / group show; -2 after --help. */
static int one_name(const char *cmd, int argc, char **argv, const char **name)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	while ((c = ctl_getopt(cmd, argc, argv, opts)) != -1) {
		if (c == 'h') {
			usage_group(stdout);
			return -2;
		}
		return -1;
	}
	*name = NULL;
	for (int i = optind; i < argc; i++) {
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
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c, n;

	while ((c = ctl_getopt("list", argc, argv, opts)) != -1) {
		if (c == 'h') {
			usage_group(stdout);
			return EXIT_OK;
		}
		return EXIT_USAGE;
	}
	if (optind < argc) {
		ctl_err("group list: unexpected argument '%s' (see --help)", argv[optind]);
		return EXIT_USAGE;
	}
	n = dazukofs_group_list(infos, DAZUKOFS_MAX_GROUPS);
	if (n < 0)
		return ctl_lib_fail(ctl, NULL);
	if (n > DAZUKOFS_MAX_GROUPS)
		n = DAZUKOFS_MAX_GROUPS;
	printf("%-20s %4s %5s %10s %10s\n", "NAME", "ID", "TRACK", "TIMEOUT_MS",
	       "ON_TIMEOUT");
	for (int i = 0; i < n; i++)
		printf("%-20s %4d %5s %10u %10s\n", infos[i].name, infos[i].id,
		       infos[i].config.track ? "yes" : "no",
		       infos[i].config.timeout_ms,
		       dazukofs_action_name(infos[i].config.timeout_action));
	return EXIT_OK;
}

/* An attribute's value, "" if the module does not have it. */
static const char *attr_or_empty(const char *name, const char *attr, char *buf,
				 size_t size)
{
	if (dazukofs_group_get_attr(name, attr, buf, size))
		buf[0] = '\0';
	return buf;
}

/* The excluded cgroups, by id and path, and how many accesses they made. */
static void show_excluded(const struct ctl *ctl, const char *name)
{
	uint64_t ids[DAZUKOFS_EXCLUDE_CGROUPS_MAX];
	char path[4096], count[32] = "";
	int n = dazukofs_group_get_exclude_cgroups(name, ids, DAZUKOFS_EXCLUDE_CGROUPS_MAX);
	FILE *f;

	if (n < 0)
		return;		/* an older module */
	snprintf(path, sizeof(path), "%s/groups/%s/excluded", ctl->sysfs, name);
	f = fopen(path, "re");
	if (f) {
		if (!fgets(count, sizeof(count), f))
			count[0] = '\0';
		count[strcspn(count, "\n")] = '\0';
		fclose(f);
	}
	if (!n) {
		printf("excluded:      no cgroup\n");
		return;
	}
	printf("excluded:      %d cgroup(s)%s%s%s\n", n, *count ? ", " : "", count,
	       *count ? " accesses spared" : "");
	for (int i = 0; i < n && i < DAZUKOFS_EXCLUDE_CGROUPS_MAX; i++) {
		/* cgroup names are a user's (delegated subtrees): escaped */
		char shown[sizeof(path) * DZ_ESCAPE_MAX_GROWTH];

		if (dazukofs_cgroup_path(ids[i], path, sizeof(path)) < 0)
			printf("  cgroup %" PRIu64 " (not found: %s)\n", ids[i],
			       dazukofs_strerror());
		else
			printf("  cgroup %" PRIu64 " '%s'\n", ids[i],
			       (dz_escape(shown, sizeof(shown), path, 0), shown));
	}
}

static int group_show(const struct ctl *ctl, int argc, char **argv)
{
	struct dazukofs_group_info info;
	struct dazukofs_stats s;
	const char *name;
	char buf[VALUE_MAX];
	int r = one_name("show", argc, argv, &name);

	if (r)
		return r == -2 ? EXIT_OK : EXIT_USAGE;
	if (dazukofs_group_info(name, &info))
		return ctl_lib_fail(ctl, name);
	printf("name:          %s\n", info.name);
	printf("id:            %d\n", info.id);
	printf("device:        %s%d\n", ctl->dev_prefix, info.id);
	printf("track:         %s\n", info.config.track ?
	       "yes (a reader that dies hands its events on; none left: opens pass)" :
	       "no (events wait for a reader, also a dead reader's)");
	if (info.config.timeout_ms)
		printf("timeout:       %u ms, then %s\n", info.config.timeout_ms,
		       dazukofs_action_name(info.config.timeout_action));
	else
		printf("timeout:       none (events wait for ever)\n");
	/* the attributes older modules lack: shown when the module has them */
	if (*attr_or_empty(name, "grace_ms", buf, sizeof(buf)))
		printf("grace:         %s ms\n", buf);
	if (*attr_or_empty(name, "max_queue", buf, sizeof(buf)))
		printf("max queue:     %s events\n", buf);
	if (*attr_or_empty(name, "overflow_action", buf, sizeof(buf)))
		printf("on overflow:   %s\n", buf);
	if (*attr_or_empty(name, "open_error_action", buf, sizeof(buf)))
		printf("on open error: %s\n", buf);
	if (*attr_or_empty(name, "events", buf, sizeof(buf)))
		printf("event types:   %s\n", buf);
	attr_or_empty(name, "record", buf, sizeof(buf));
	if (!strcmp(buf, "1"))
		printf("record:        1 (id, fd, pid)\n");
	else if (!strcmp(buf, "2"))
		printf("record:        2 (also who opened how, which file, fd errors)\n");
	else if (!strcmp(buf, "3"))
		printf("record:        3 (as 2, and the opener's cgroup)\n");
	show_excluded(ctl, name);
	if (*attr_or_empty(name, "busy_poll_us", buf, sizeof(buf)) && strcmp(buf, "0"))
		printf("busy poll:     %s us\n", buf);
	if (*attr_or_empty(name, "armed", buf, sizeof(buf)))
		printf("armed:         %s\n", strcmp(buf, "0") ? "yes" :
		       "no (takes part in events once a reader opens its device)");
	if (dazukofs_get_stats(name, &s))
		return ctl_lib_fail(ctl, name);
	printf("active:        %s\n", s.active ? "yes" : "no (tracked, no reader: events skip it)");
	printf("readers:       %llu\n", (unsigned long long)s.readers);
	printf("waiting:       %llu\n", (unsigned long long)s.waiting);
	printf("in hand:       %llu\n", (unsigned long long)s.in_hand);
	printf("events:        %llu (allowed %llu, denied %llu, cancelled %llu, timeouts %llu)\n",
	       (unsigned long long)s.events, (unsigned long long)s.allowed,
	       (unsigned long long)s.denied, (unsigned long long)s.cancelled,
	       (unsigned long long)s.timeouts);
	return EXIT_OK;
}

int ctl_cmd_group(const struct ctl *ctl, int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*run)(const struct ctl *ctl, int argc, char **argv);
	} subs[] = {
		{ "add", group_add }, { "set", group_set }, { "del", group_del },
		{ "delete", group_del }, { "list", group_list }, { "show", group_show },
	};

	if (argc < 1) {
		ctl_err("group: add, set, del, list or show? (see dazukofsctl group --help)");
		return EXIT_USAGE;
	}
	if (is_help(argv[0])) {
		usage_group(stdout);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
		if (!strcmp(argv[0], subs[i].name))
			return subs[i].run(ctl, argc, argv);
	ctl_err("group: unknown subcommand '%s' (add, set, del, list, show)", argv[0]);
	return EXIT_USAGE;
}
