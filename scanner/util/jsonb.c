// SPDX-License-Identifier: GPL-2.0
/* JSON building that survives allocation failures (jsonb.h). */
#include "util/jsonb.h"

int jsonb_add(json_object *o, const char *key, json_object *v)
{
	if (!o || !v || json_object_object_add(o, key, v)) {
		/* an add that failed took no reference: v is still ours */
		json_object_put(v);
		return -1;
	}
	return 0;
}

int jsonb_add_null(json_object *o, const char *key)
{
	return o && !json_object_object_add(o, key, NULL) ? 0 : -1;
}

int jsonb_add_string(json_object *o, const char *key, const char *s)
{
	return s ? jsonb_add(o, key, json_object_new_string(s)) : -1;
}

int jsonb_add_int(json_object *o, const char *key, int64_t i)
{
	return jsonb_add(o, key, json_object_new_int64(i));
}

int jsonb_add_uint(json_object *o, const char *key, uint64_t u)
{
	return jsonb_add(o, key, json_object_new_uint64(u));
}

int jsonb_add_bool(json_object *o, const char *key, int b)
{
	return jsonb_add(o, key, json_object_new_boolean(b));
}

int jsonb_append(json_object *a, json_object *v)
{
	if (!a || !v || json_object_array_add(a, v)) {
		json_object_put(v);
		return -1;
	}
	return 0;
}

const char *jsonb_text(json_object *o, int flags, size_t *len)
{
	size_t n = 0;
	const char *s = o ? json_object_to_json_string_length(o, flags, &n) : NULL;

	if (len)
		*len = s ? n : 0;
	return s;
}

const char *jsonb_string_or(json_object *o, const char *key, const char *fallback)
{
	json_object *v;
	const char *s;

	if (!o || !json_object_object_get_ex(o, key, &v) || !v)
		return fallback;
	s = json_object_get_string(v);
	return s ? s : fallback;
}
