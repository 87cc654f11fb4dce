// SPDX-License-Identifier: GPL-2.0
/*
 * dazuko-quarantine: list, show, restore and delete what dazuko-clamscan
 * put into quarantine (quarantine.h).  The directory is the scanner's
 * quarantine_dir, read from the same config file.
 */
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "actions/quarantine.h"
#include "config/config.h"
#include "log/log.h"
#include "util/jsonb.h"

#define PROG "dazuko-quarantine"

struct opts {
	const char *config;
	const char *dir;
	const char *to;
	int json, force, keep;
};

static void usage(FILE *out)
{
	fprintf(out,
"Usage: " PROG " [OPTION]... list\n"
"       " PROG " [OPTION]... show ID...\n"
"       " PROG " [OPTION]... restore [--to PATH] [--force] [--keep] ID\n"
"       " PROG " [OPTION]... delete ID...\n"
"Files dazuko-clamscan quarantined (quarantine = copy or move).\n"
"\n"
"  -c, --config FILE   the scanner's config file, for quarantine_dir\n"
"                      (default " CONFIG_DEFAULT_PATH ")\n"
"  -d, --dir DIR       the quarantine directory (default: quarantine_dir,\n"
"                      " QUARANTINE_DEFAULT_DIR ")\n"
"      --json          list: one JSON array of the entries' metadata\n"
"      --to PATH       restore: to PATH instead of the original path\n"
"      --force         restore: replace a file that is there\n"
"      --keep          restore: keep the entry in the quarantine\n"
"  -h, --help          this help\n"
"      --version       the version\n"
"\n"
"A restored file gets its original owner, group, mode and times.  It is\n"
"still the file that matched the signature: where the scanner watches, it\n"
"is denied again unless the signatures changed.\n");
}

static void print_escaped(const char *s)
{
	char buf[PATH_MAX * LOG_ESCAPE_MAX_GROWTH + 1];

	log_escape(buf, sizeof(buf), s);
	fputs(buf, stdout);
}

static int cmd_list(int dirfd, const struct opts *o)
{
	json_object *arr = o->json ? json_object_new_array() : NULL;
	char err[CONFIG_ERR_MAX], **ids;
	struct quarantine_entry e;
	size_t n;
	int rc = 0;

	if (o->json && !arr) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	if (quarantine_list(dirfd, &ids, &n, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		json_object_put(arr);
		return 1;
	}
	if (!o->json && n)
		printf("%-26s %-20s %10s  %-30s %s\n", "ID", "QUARANTINED (UTC)", "SIZE",
		       "SIGNATURE", "PATH");
	for (size_t i = 0; i < n; i++) {
		char when[32];
		struct tm tm;
		time_t t;

		if (quarantine_load(dirfd, ids[i], &e, err, sizeof(err))) {
			fprintf(stderr, PROG ": %s\n", err);
			rc = 1;
			continue;
		}
		if (arr) {
			json_object *f;
			char name[QUARANTINE_ID_MAX + 8];
			int fd;

			/* what the scanner wrote, exactly */
			snprintf(name, sizeof(name), "%s.json", ids[i]);
			fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
			f = fd >= 0 ? json_object_from_fd(fd) : NULL;
			if (fd >= 0)
				close(fd);
			if (!f || jsonb_append(arr, f)) {
				fprintf(stderr, PROG ": %s: %s\n", name,
					f ? "out of memory" : "cannot be read");
				rc = 1;
			}
		} else {
			t = (time_t)e.quarantined;
			gmtime_r(&t, &tm);
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
			printf("%-26s %-20s %10llu  ", e.id, when, (unsigned long long)e.size);
			/* a clamd over TCP names the signature: text from outside */
			print_escaped(e.signature);
			putchar(' ');
			print_escaped(e.path);
			putchar('\n');
		}
		quarantine_entry_free(&e);
	}
	if (arr) {
		const char *text = jsonb_text(arr, JSON_C_TO_STRING_PRETTY |
					      JSON_C_TO_STRING_NOSLASHESCAPE, NULL);

		if (text) {
			puts(text);
		} else {
			fprintf(stderr, PROG ": out of memory\n");
			rc = 1;
		}
		json_object_put(arr);
	}
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	return rc;
}

static int cmd_show(int dirfd, char **ids, int n)
{
	char err[CONFIG_ERR_MAX];
	struct quarantine_entry e;
	int rc = 0;

	for (int i = 0; i < n; i++) {
		if (quarantine_load(dirfd, ids[i], &e, err, sizeof(err))) {
			fprintf(stderr, PROG ": %s\n", err);
			rc = 1;
			continue;
		}
		printf("id: %s\npath: ", e.id);
		print_escaped(e.path);
		printf("\nsignature: ");
		print_escaped(e.signature);
		printf("\nowner: %u:%u\nmode: %04o\nsize: %llu\n"
		       "mtime: %lld.%09ld\nquarantined: %lld\npid: %d\naction: %s\n\n",
		       (unsigned int)e.uid, (unsigned int)e.gid,
		       (unsigned int)e.mode, (unsigned long long)e.size,
		       (long long)e.mtime.tv_sec, e.mtime.tv_nsec,
		       (long long)e.quarantined, (int)e.pid,
		       e.action == QUARANTINE_MOVE ? "move" : "copy");
		quarantine_entry_free(&e);
	}
	return rc;
}

static int cmd_restore(int dirfd, const char *id, const struct opts *o)
{
	char err[CONFIG_ERR_MAX];
	struct quarantine_entry e;
	int rc = 1;

	if (quarantine_load(dirfd, id, &e, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	if (!o->to && e.path[0] != '/') {
		fprintf(stderr, PROG ": %s: the original path is not known; give --to PATH\n", id);
		goto out;
	}
	if (quarantine_restore(dirfd, &e, o->to, o->force, err, sizeof(err))) {
		fprintf(stderr, PROG ": restore %s: %s\n", id, err);
		goto out;
	}
	printf("restored %s to ", id);
	print_escaped(o->to ? o->to : e.path);
	putchar('\n');
	if (!o->keep && quarantine_delete(dirfd, id, err, sizeof(err))) {
		fprintf(stderr, PROG ": restored, but not removed from the quarantine: %s\n", err);
		goto out;
	}
	rc = 0;
out:
	quarantine_entry_free(&e);
	return rc;
}

static int cmd_delete(int dirfd, char **ids, int n)
{
	char err[CONFIG_ERR_MAX];
	int rc = 0;

	for (int i = 0; i < n; i++) {
		if (quarantine_delete(dirfd, ids[i], err, sizeof(err))) {
			fprintf(stderr, PROG ": %s\n", err);
			rc = 1;
		}
	}
	return rc;
}

/* quarantine_dir from the scanner's config file, unless --dir. */
static char *quarantine_dir(const struct opts *o)
{
	char err[CONFIG_ERR_MAX];
	struct config cfg;
	char *dir;

	if (o->dir)
		return strdup(o->dir);
	config_init(&cfg);
	if (config_load_file(&cfg, o->config ? o->config : CONFIG_DEFAULT_PATH,
			     !!o->config, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		config_free(&cfg);
		return NULL;
	}
	dir = strdup(cfg.quarantine_dir);
	config_free(&cfg);
	return dir;
}

int main(int argc, char **argv)
{
	enum { OPT_JSON = 256, OPT_TO, OPT_FORCE, OPT_KEEP, OPT_VERSION };
	static const struct option long_opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "dir", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "to", required_argument, NULL, OPT_TO },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "keep", no_argument, NULL, OPT_KEEP },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { 0 };
	char err[CONFIG_ERR_MAX], *dir;
	const char *cmd;
	int c, dirfd, rc, nargs;

	while ((c = getopt_long(argc, argv, "c:d:h", long_opts, NULL)) != -1) {
		switch (c) {
		case 'c': o.config = optarg; break;
		case 'd': o.dir = optarg; break;
		case OPT_JSON: o.json = 1; break;
		case OPT_TO: o.to = optarg; break;
		case OPT_FORCE: o.force = 1; break;
		case OPT_KEEP: o.keep = 1; break;
		case 'h': usage(stdout); return 0;
		case OPT_VERSION: printf(PROG " %s\n", DAZUKOFS_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, PROG ": a command is missing: list, show, restore or delete\n");
		usage(stderr);
		return 2;
	}
	cmd = argv[optind++];
	nargs = argc - optind;
	if (!strcmp(cmd, "list") ? nargs != 0 :
	    !strcmp(cmd, "restore") ? nargs != 1 :
	    (!strcmp(cmd, "show") || !strcmp(cmd, "delete")) ? nargs < 1 : 1) {
		fprintf(stderr, PROG ": '%s': unknown command or wrong number of arguments\n", cmd);
		usage(stderr);
		return 2;
	}
	if ((o.to || o.force || o.keep) && strcmp(cmd, "restore")) {
		fprintf(stderr, PROG ": --to, --force and --keep are for restore\n");
		return 2;
	}
	dir = quarantine_dir(&o);
	if (!dir)
		return 1;
	dirfd = quarantine_open_dir(dir, 0, err, sizeof(err));
	free(dir);
	if (dirfd < 0) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	if (!strcmp(cmd, "list"))
		rc = cmd_list(dirfd, &o);
	else if (!strcmp(cmd, "show"))
		rc = cmd_show(dirfd, argv + optind, nargs);
	else if (!strcmp(cmd, "restore"))
		rc = cmd_restore(dirfd, argv[optind], &o);
	else
		rc = cmd_delete(dirfd, argv + optind, nargs);
	close(dirfd);
	return rc;
}
