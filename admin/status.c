// SPDX-License-Identifier: GPL-2.0
/*
 * dazukofsctl status: is the module loaded, where is dazukofs mounted, what
 * state are the groups in, and is anything wrong.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <libmount.h>

#include "ctl.h"


/* --interval's default and limit, in --help from here */
#define INTERVAL_DEFAULT_MS	1000
#define INTERVAL_MAX_MS		60000

static void usage_status(FILE *out)
{
	fprintf(out,
		"Usage: dazukofsctl status [--interval MS]\n"
		"\n"
		"Show whether the dazukofs module is loaded, its mounts and its groups,\n"
		"and report problems: a group with events waiting and no reader, a\n"
		"tracked group that is inactive, verdict timeouts rising between two\n"
		"samples --interval MS apart (default %d; 0: one sample only).\n"
		"Exit status: 0 nothing wrong, 1 a problem found, 2 usage error,\n"
		"3 module not loaded or configfs not mounted.\n",
		INTERVAL_DEFAULT_MS);
}

typedef unsigned long long ull;

/*
 * Print the dazukofs mounts; returns how many, or -1 if unreadable.
 * ctl->mountinfo is /proc/self/mountinfo or the tests' file: libmount
 * reads either, and undoes the escapes (\040).
 */
static int show_mounts(const struct ctl *ctl)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	int n = -1, rc;

	if (!tb || !it) {
		ctl_err("cannot read the mounts: %s: %s", ctl->mountinfo, strerror(ENOMEM));
		goto out;
	}
	rc = mnt_table_parse_file(tb, ctl->mountinfo);
	if (rc) {
		ctl_err("cannot read the mounts: %s: %s", ctl->mountinfo,
			rc < 0 ? strerror(-rc) : "parse error");
		goto out;
	}
	n = 0;
	while (!mnt_table_next_fs(tb, it, &fs)) {
		const char *type = mnt_fs_get_fstype(fs);
		const char *src = mnt_fs_get_source(fs);
		char *remember = NULL;
		size_t len = 0;

		if (!type || strcmp(type, DAZUKOFS_FS_TYPE))
			continue;
		if (!n)
			printf("mounts:\n");
		printf("  %s (over %s", mnt_fs_get_target(fs), src ? src : "?");
		/* Shown by the kernel unless it is the default, auto. */
		if (!mnt_fs_get_option(fs, "remember", &remember, &len) && remember)
			printf(", remember=%.*s", (int)len, remember);
		printf(")\n");
		n++;
	}
	if (!n)
		printf("mounts: none\n");
out:
	mnt_free_iter(it);
	mnt_unref_table(tb);
	return n;
}

static void sleep_ms(unsigned long ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int ctl_cmd_status(const struct ctl *ctl, int argc, char **argv)
{
	static struct dazukofs_group_info infos[DAZUKOFS_MAX_GROUPS];
	static struct dazukofs_stats st[DAZUKOFS_MAX_GROUPS], st2[DAZUKOFS_MAX_GROUPS];
	unsigned long interval = INTERVAL_DEFAULT_MS;
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "interval", required_argument, NULL, CTL_OPT_BASE },
		{ 0 },
	};
	int i, n, c, problems = 0;

	while ((c = ctl_getopt("status", argc, argv, opts)) != -1) {
		if (c == 'h') {
			usage_status(stdout);
			return EXIT_OK;
		}
		if (c != CTL_OPT_BASE ||
		    ctl_number("--interval", optarg, 0, INTERVAL_MAX_MS, &interval))
			return EXIT_USAGE;
	}
	if (optind < argc) {
		ctl_err("status: unexpected argument '%s' (see --help)", argv[optind]);
		return EXIT_USAGE;
	}
	if (!ctl_module_loaded(ctl)) {
		printf("module: not loaded\n");
		ctl_err_not_loaded(ctl);
		return EXIT_ENV;
	}
	printf("module: loaded\n");
	if (show_mounts(ctl) < 0)
		return EXIT_ENV;
	n = dazukofs_group_list(infos, DAZUKOFS_MAX_GROUPS);
	if (n < 0)
		return ctl_lib_fail(ctl, NULL);
	if (n > DAZUKOFS_MAX_GROUPS)
		n = DAZUKOFS_MAX_GROUPS;
	for (i = 0; i < n; i++) {
		if (dazukofs_get_stats(infos[i].name, &st[i]))
			return ctl_lib_fail(ctl, infos[i].name);
	}
	if (interval && n) {
		sleep_ms(interval);
		for (i = 0; i < n; i++) {
			if (dazukofs_get_stats(infos[i].name, &st2[i]))
				st2[i] = st[i];	/* deleted meanwhile */
		}
	} else {
		memcpy(st2, st, sizeof(st[0]) * (size_t)n);
	}
	printf(n ? "groups:\n" : "groups: none\n");
	for (i = 0; i < n; i++) {
		const struct dazukofs_stats *s = &st2[i];

		printf("  %-20s id=%d readers=%llu %s waiting=%llu in_hand=%llu timeouts=%llu%s\n",
		       infos[i].name, infos[i].id, (ull)s->readers,
		       s->active ? "active" : "INACTIVE", (ull)s->waiting,
		       (ull)s->in_hand, (ull)s->timeouts,
		       infos[i].config.track ? " tracked" : "");
	}
	for (i = 0; i < n; i++) {
		const char *g = infos[i].name;
		const struct dazukofs_stats *a = &st[i], *b = &st2[i];

		if (b->waiting > 0 && b->readers == 0) {
			printf("problem: group '%s' has %llu open(s) waiting and no reader\n",
			       g, (ull)b->waiting);
			problems++;
		}
		if (infos[i].config.track && !b->active) {
			printf("problem: tracked group '%s' is inactive (no reader): its events are skipped\n",
			       g);
			problems++;
		}
		if (b->timeouts > a->timeouts) {
			printf("problem: group '%s': %llu verdict timeout(s) in the last %lu ms (%llu in all)\n",
			       g, (ull)(b->timeouts - a->timeouts), interval,
			       (ull)b->timeouts);
			problems++;
		} else if (b->timeouts) {
			printf("note: group '%s' has had %llu verdict timeout(s) since it was created\n",
			       g, (ull)b->timeouts);
		}
	}
	if (!problems)
		printf("status: ok\n");
	else
		printf("status: %d problem(s)\n", problems);
	return problems ? EXIT_PROBLEM : EXIT_OK;
}
