// SPDX-License-Identifier: GPL-2.0
/*
 * dazuko-clamscan store stats|clear (store_command.h).  The store is
 * opened as it is, beside a running scanner (LMDB takes care of two
 * processes): nothing is made, and a damaged store is only reported; the
 * scanner makes it anew at its next start.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "app/store_command.h"
#include "config/config.h"
#include "store/verdict_store.h"

enum { STORE_EXIT_OK, STORE_EXIT_FAILED, STORE_EXIT_USAGE };

static void store_usage(FILE *out)
{
	fprintf(out,
"Usage: dazuko-clamscan store stats [-c FILE]\n"
"       dazuko-clamscan store clear [-c FILE]\n"
"The verdict store (store_path of the config file): how many verdicts it\n"
"holds and its size on disk (stats), or remove every verdict (clear), also\n"
"while the scanner runs.  The scanner's own counters of the store (hits,\n"
"misses, stores) are in dazuko-clamscan status.\n"
"\n"
"  -c, --config FILE  the config file that names the store\n"
"                     (default " CONFIG_DEFAULT_PATH ")\n"
"  -h, --help         this text\n"
"\n"
"Exit status: 0 done; 1 the store cannot be read or cleared; 2 bad usage.\n"
"See dazuko-clamscan(8).\n");
}

static int stats(struct verdict_store *st, const struct config *cfg)
{
	char data[4096];
	long long entries = verdict_store_entries(st);
	struct stat sb;

	snprintf(data, sizeof(data), "%s/%s", cfg->store_path, STORE_DATA_FILE);
	if (entries < 0 || stat(data, &sb)) {
		fprintf(stderr, "dazuko-clamscan store stats: cannot read %s\n", cfg->store_path);
		return STORE_EXIT_FAILED;
	}
	printf("store: %s\nentries: %lld\nbytes_on_disk: %lld\nstore_size: %" PRIu64 "\n",
	       cfg->store_path, entries, (long long)sb.st_blocks * 512, cfg->store_size);
	return STORE_EXIT_OK;
}

static int clear(struct verdict_store *st, const struct config *cfg)
{
	long long entries = verdict_store_entries(st);
	char msg[512];

	if (verdict_store_clear(st, msg, sizeof(msg))) {
		fprintf(stderr, "dazuko-clamscan store clear: %s\n", msg);
		return STORE_EXIT_FAILED;
	}
	printf("store: %s: %lld entries removed\n", cfg->store_path, entries < 0 ? 0 : entries);
	return STORE_EXIT_OK;
}

int store_command_main(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *conf = CONFIG_DEFAULT_PATH, *what;
	char err[CONFIG_ERR_MAX], msg[1024];
	struct verdict_store *st;
	int conf_given = 0, c, rc;
	struct config cfg;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "c:h", longs, NULL)) != -1) {
		switch (c) {
		case 'c':
			conf = optarg;
			conf_given = 1;
			break;
		case 'h':
			store_usage(stdout);
			return STORE_EXIT_OK;
		default:
			fprintf(stderr, "dazuko-clamscan store: bad option '%s' or its argument is missing (see --help)\n",
				argv[optind - 1]);
			return STORE_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc ||
	    (strcmp(argv[optind], "stats") && strcmp(argv[optind], "clear"))) {
		store_usage(stderr);
		return STORE_EXIT_USAGE;
	}
	what = argv[optind];
	config_init(&cfg);
	if (config_load_file(&cfg, conf, conf_given, err, sizeof(err))) {
		fprintf(stderr, "dazuko-clamscan store %s: %s\n", what, err);
		config_free(&cfg);
		return STORE_EXIT_FAILED;
	}
	if (verdict_store_attach(&st, cfg.store_path, cfg.store_size, msg, sizeof(msg))) {
		fprintf(stderr, "dazuko-clamscan store %s: %s\n", what, msg);
		config_free(&cfg);
		return STORE_EXIT_FAILED;
	}
	rc = !strcmp(what, "stats") ? stats(st, &cfg) : clear(st, &cfg);
	verdict_store_close(st);
	config_free(&cfg);
	return rc;
}
