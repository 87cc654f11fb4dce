/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A flat JSON object written straight into a buffer whose every growth
 * is checked: the text is whole or there is none.  json-c's printer is
 * not (jsonb.h), and json-c's parser crashes without memory, so a text
 * cannot be checked by reading it back.  For the records that must not
 * come out with a piece missing: log lines and quarantine metadata.
 *
 * Strings are written as json-c writes them with NOSLASHESCAPE: '"',
 * '\\' and control characters escaped, every other byte as it is, so
 * that json-c reads back the same bytes (paths need not be UTF-8).
 */
#ifndef SCANNER_JSONW_H
#define SCANNER_JSONW_H

#include <stddef.h>
#include <stdint.h>

struct jsonw {
	char *buf;		/* malloc'ed, NUL-terminated; NULL after a failure */
	size_t len, cap;
	int pretty;		/* one member per line, as dazuko-quarantine shows */
	int members;
};

/* Start an object ("{"); pretty: one member per line.  -1 without memory. */
int jsonw_begin(struct jsonw *w, int pretty);
void jsonw_string(struct jsonw *w, const char *key, const char *value);
void jsonw_int(struct jsonw *w, const char *key, int64_t value);
void jsonw_uint(struct jsonw *w, const char *key, uint64_t value);
void jsonw_bool(struct jsonw *w, const char *key, int value);
/* Something the caller needed failed: no text at the end. */
void jsonw_fail(struct jsonw *w);
/*
 * Close the object ("}" and, if newline, "\n"): the text (the caller
 * frees it) and its length, or NULL if any step ran out of memory.
 */
char *jsonw_end(struct jsonw *w, int newline, size_t *len);

#endif
