/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `dazuko-clamscan status`: the running scanner's state as a JSON object
 * (the fields are in dazuko-clamscan(8)), and its human-readable form.
 */
#ifndef SCANNER_STATUS_H
#define SCANNER_STATUS_H

#include <stdio.h>

#include <json-c/json.h>

struct counter_values;
struct scanner;
struct worker;

struct status_input {
	struct scanner *sc;
	struct worker *workers;
	unsigned int nworkers;
	/* every counter, as the statistics line has them (log/counters.h) */
	const struct counter_values *counters;
	int reloading;
};

/* NULL if out of memory. */
json_object *status_json(const struct status_input *in);
/* The answer to status, for people (paths and names escaped). */
void status_print(FILE *out, json_object *o);

#endif
