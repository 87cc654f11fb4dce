// SPDX-License-Identifier: GPL-2.0
/* The in-process backend: the current libclamav engine (see engine.h). */
#include <stdio.h>

#include "backends/backend.h"

static enum scan_result lc_scan(struct backend *b, int fd, const struct stat *st,
				const char *name, struct scan_answer *a)
{
	struct engine *e = engine_holder_get(b->priv);
	unsigned long scanned;
	enum scan_result res;

	(void)st;
	a->server = NULL;
	if (!e) {
		snprintf(a->sig, sizeof(a->sig), "no signatures loaded");
		return SCAN_ERROR;
	}
	res = engine_scan(e, fd, name, a->sig, sizeof(a->sig), &scanned);
	engine_put(e);
	return res;
}

static void lc_status(struct backend *b, char *buf, size_t len)
{
	(void)b;
	if (len)
		buf[0] = 0;
}

static const struct backend_ops libclamav_ops = {
	.name = "libclamav",
	.scan = lc_scan,
	.status = lc_status,
};

void backend_libclamav_init(struct backend *b, struct engine_holder *h)
{
	b->ops = &libclamav_ops;
	b->priv = h;
}
