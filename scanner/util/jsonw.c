// SPDX-License-Identifier: GPL-2.0
/* A flat JSON object, whole or not at all (jsonw.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/jsonw.h"

static void put(struct jsonw *w, const char *s, size_t n)
{
	if (!w->buf)
		return;
	if (w->cap - w->len <= n) {
		size_t cap = (w->cap + n) * 2;
		char *grown = realloc(w->buf, cap);

		if (!grown) {
			free(w->buf);
			w->buf = NULL;
			return;
		}
		w->buf = grown;
		w->cap = cap;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	w->buf[w->len] = '\0';
}

static void put_str(struct jsonw *w, const char *s)
{
	put(w, s, strlen(s));
}

/* '"', the bytes escaped where JSON needs it, '"'. */
static void put_quoted(struct jsonw *w, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;
	char esc[8];

	put(w, "\"", 1);
	for (; *p; p++) {
		if (*p >= 0x20 && *p != '"' && *p != '\\')
			continue;
		put(w, (const char *)run, (size_t)(p - run));
		switch (*p) {
		case '"': put_str(w, "\\\""); break;
		case '\\': put_str(w, "\\\\"); break;
		case '\n': put_str(w, "\\n"); break;
		case '\t': put_str(w, "\\t"); break;
		case '\r': put_str(w, "\\r"); break;
		default:
			snprintf(esc, sizeof(esc), "\\u%04x", *p);
			put_str(w, esc);
		}
		run = p + 1;
	}
	put(w, (const char *)run, (size_t)(p - run));
	put(w, "\"", 1);
}

static void key(struct jsonw *w, const char *k)
{
	if (w->members++)
		put(w, ",", 1);
	if (w->pretty)
		put(w, "\n  ", 3);
	put_quoted(w, k);
	put(w, ":", 1);
}

int jsonw_begin(struct jsonw *w, int pretty)
{
	w->cap = 256;
	w->len = 0;
	w->members = 0;
	w->pretty = pretty;
	w->buf = malloc(w->cap);
	if (!w->buf)
		return -1;
	put(w, "{", 1);
	return 0;
}

void jsonw_string(struct jsonw *w, const char *k, const char *value)
{
	key(w, k);
	put_quoted(w, value);
}

void jsonw_int(struct jsonw *w, const char *k, int64_t value)
{
	char num[24];

	key(w, k);
	snprintf(num, sizeof(num), "%" PRId64, value);
	put_str(w, num);
}

void jsonw_uint(struct jsonw *w, const char *k, uint64_t value)
{
	char num[24];

	key(w, k);
	snprintf(num, sizeof(num), "%" PRIu64, value);
	put_str(w, num);
}

void jsonw_bool(struct jsonw *w, const char *k, int value)
{
	key(w, k);
	put_str(w, value ? "true" : "false");
}

void jsonw_fail(struct jsonw *w)
{
	free(w->buf);
	w->buf = NULL;
}

char *jsonw_end(struct jsonw *w, int newline, size_t *len)
{
	char *text;

	if (w->pretty)
		put(w, "\n", 1);
	put(w, "}", 1);
	if (newline)
		put(w, "\n", 1);
	text = w->buf;
	*len = text ? w->len : 0;
	w->buf = NULL;
	return text;
}
