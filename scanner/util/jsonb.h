/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Building JSON with json-c where an allocation may fail: json-c's own
 * json_object_object_add() and json_object_array_add() assert on a NULL
 * container, and its printers return NULL without memory.  Each helper
 * takes what it is given (freeing it on failure) and returns -1 if
 * anything was missing, so that a builder ORs the results and drops the
 * whole object on any failure rather than send a JSON null that looks
 * like an unknown value.
 */
#ifndef SCANNER_JSONB_H
#define SCANNER_JSONB_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

/* o[key] = v; -1 if o or v is NULL (v is put) or the add fails. */
int jsonb_add(json_object *o, const char *key, json_object *v);
/* o[key] = null: a value that is not known, on purpose. */
int jsonb_add_null(json_object *o, const char *key);
int jsonb_add_string(json_object *o, const char *key, const char *s);
int jsonb_add_int(json_object *o, const char *key, int64_t i);
int jsonb_add_uint(json_object *o, const char *key, uint64_t u);
int jsonb_add_bool(json_object *o, const char *key, int b);
/* Append v to array a; -1 as jsonb_add(). */
int jsonb_append(json_object *a, json_object *v);
/*
 * o as text (json_object_to_json_string_length's flags), owned by o;
 * NULL without memory or for a NULL o.  len may be NULL.  json-c's
 * printer does not check every growth of its buffer: a text printed
 * while memory runs out can lack a piece.  What must be whole (a log
 * record, a quarantine entry's metadata) is written with jsonw.h.
 */
const char *jsonb_text(json_object *o, int flags, size_t *len);
/* A member's value as text; fallback if missing, null, or no memory. */
const char *jsonb_string_or(json_object *o, const char *key, const char *fallback);

#endif
