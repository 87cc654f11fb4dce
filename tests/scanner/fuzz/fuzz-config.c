// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the config file parser, config_load_stream(), on any
 * text, through a memory stream (config_load_file() would also want the
 * file's owner and mode).  ASan's leak check covers config_free().
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config/config.h"
#include "log/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int quiet;
	char err[CONFIG_ERR_MAX];
	struct config cfg;
	FILE *f;

	if (!quiet) {
		/* Warnings of odd but valid settings: not this test's business. */
		log_init(LOG_LVL_ERROR, 0);
		quiet = 1;
	}
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	config_init(&cfg);
	config_load_stream(&cfg, f, "fuzz.conf", err, sizeof(err));
	config_free(&cfg);
	fclose(f);
	return 0;
}
