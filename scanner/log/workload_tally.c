// SPDX-License-Identifier: GPL-2.0
/* Detections by workload (workload_tally.h). */
#include <inttypes.h>
#include <string.h>

#include <dzcommon/prom.h>

#include "log/workload_tally.h"

void workload_tally_init(struct workload_tally *t)
{
	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->lock, NULL);
}

void workload_tally_destroy(struct workload_tally *t)
{
	pthread_mutex_destroy(&t->lock);
}

void workload_tally_add(struct workload_tally *t, const struct workload *w)
{
	const char *unit = w ? w->unit : "", *container = w ? w->container : "";
	struct workload_tally_snapshot *s = &t->s;
	size_t i;

	pthread_mutex_lock(&t->lock);
	for (i = 0; i < s->n; i++)
		if (!strcmp(s->c[i].unit, unit) && !strcmp(s->c[i].container, container))
			break;
	if (i == s->n && s->n < WORKLOAD_TALLY_MAX) {
		/* both bounded as the struct's fields are (workload.h) */
		strcpy(s->c[i].unit, unit);
		strcpy(s->c[i].container, container);
		s->n++;
	}
	if (i < s->n)
		s->c[i].detections++;
	else
		s->other++;
	pthread_mutex_unlock(&t->lock);
}

void workload_tally_snapshot(struct workload_tally *t, struct workload_tally_snapshot *out)
{
	pthread_mutex_lock(&t->lock);
	*out = t->s;
	pthread_mutex_unlock(&t->lock);
}

/* A label value as the text format wants it: \\, \" and \n escaped. */
static void label_value(char *out, size_t size, const char *v)
{
	size_t len = 0;

	for (; *v && len + 3 < size; v++) {
		if (*v == '\\' || *v == '"' || *v == '\n')
			out[len++] = '\\';
		out[len++] = *v == '\n' ? 'n' : *v;
	}
	out[len] = '\0';
}

void workload_tally_prometheus(const struct workload_tally_snapshot *s, FILE *out,
			       const char *name)
{
	char unit[2 * WORKLOAD_UNIT_MAX], container[2 * WORKLOAD_ID_MAX];
	char labels[sizeof(unit) + sizeof(container) + 32];

	prom_family(out, name, "counter",
		    "Detections by the opener's systemd unit and container (the first 32; the rest as unit \"other\").");
	for (size_t i = 0; i < s->n; i++) {
		label_value(unit, sizeof(unit), s->c[i].unit);
		label_value(container, sizeof(container), s->c[i].container);
		snprintf(labels, sizeof(labels), "unit=\"%s\",container=\"%s\"", unit, container);
		prom_sample(out, name, labels, "%" PRIu64, s->c[i].detections);
	}
	if (s->other)
		prom_sample(out, name, "unit=\"other\",container=\"\"", "%" PRIu64, s->other);
}
