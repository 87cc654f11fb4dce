// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: --import-clamd-conf on any clamd.conf text.  Beyond
 * ASan and UBSan, the importer's promise: what it writes is a config the
 * scanner reads without an error (each value is checked as the scanner
 * reads it; what is not mapped goes to the notes).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "app/clamdconf.h"
#include "config/config.h"
#include "log/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int quiet;
	char err[CONFIG_ERR_MAX], *out = NULL, *notes = NULL;
	size_t outlen = 0, noteslen = 0;
	FILE *in, *o, *n;
	struct config cfg;

	if (!quiet) {
		log_init(LOG_LVL_ERROR, 0);
		quiet = 1;
	}
	in = fmemopen((void *)data, size, "r");
	o = open_memstream(&out, &outlen);
	n = open_memstream(&notes, &noteslen);
	if (!in || !o || !n)
		abort();
	clamdconf_import_stream(in, "clamd.conf", o, n);
	fclose(in);
	fclose(o);
	fclose(n);

	in = fmemopen(out, outlen, "r");
	if (!in)
		abort();
	config_init(&cfg);
	if (config_load_stream(&cfg, in, "imported.conf", err, sizeof(err))) {
		fprintf(stderr, "the import of\n%.*s\nwrote\n%s\nwhich reads as: %s\n",
			(int)size, (const char *)data, out, err);
		abort();
	}
	config_free(&cfg);
	fclose(in);
	free(out);
	free(notes);
	return 0;
}
