// SPDX-License-Identifier: GPL-2.0
/* The Prometheus text format (see dzcommon/prom.h). */
#include <stdarg.h>

#include <dzcommon/prom.h>

void prom_family(FILE *out, const char *name, const char *type,
		 const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void prom_sample(FILE *out, const char *name, const char *labels,
		 const char *fmt, ...)
{
	va_list ap;

	if (labels && *labels)
		fprintf(out, "%s{%s} ", name, labels);
	else
		fprintf(out, "%s ", name);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
}
