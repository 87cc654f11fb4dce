/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Prometheus text format (version 0.0.4, what scrapers and
 * node_exporter's textfile collector read), written in one place for
 * dazukofsctl and dazuko-clamscan: a family's "# HELP" and "# TYPE"
 * lines once, then its samples.  An internal static library, not part of
 * libdazukofs: the format has nothing to do with the module.
 */
#ifndef DZCOMMON_PROM_H
#define DZCOMMON_PROM_H

#include <stdio.h>

/* name: [a-zA-Z_:][a-zA-Z0-9_:]*; help: one line, no backslash. */
void prom_family(FILE *out, const char *name, const char *type,
		 const char *help);

/*
 * One sample: labels NULL or "" for none, else 'key="value",...' without
 * the braces (values already escaped), and the value as printf() writes
 * fmt.
 */
void prom_sample(FILE *out, const char *name, const char *labels,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
