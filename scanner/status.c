// SPDX-License-Identifier: GPL-2.0
/* The scanner's state for `dazuko-clamscan status` (see status.h). */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "log.h"
#include "status.h"
#include "worker.h"

/* Times are UTC, ISO 8601: "2026-12-05T08:40:01Z". */
static json_object *iso_time(int64_t t)
{
	time_t tt = (time_t)t;
	char buf[32];
	struct tm tm;

	if (t <= 0 || !gmtime_r(&tt, &tm) ||
	    !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return NULL;		/* JSON null: not known */
	return json_object_new_string(buf);
}

static void add(json_object *o, const char *key, json_object *v)
{
	json_object_object_add(o, key, v);
}

/*
 * The statistics line's "key=value" pairs as numbers: its keys are defined
 * once, where the line is made (stats.c, main.c).
 */
static json_object *counters_json(const char *line)
{
	json_object *o = json_object_new_object();
	const char *p = line;

	if (!o)
		return NULL;
	while (*p) {
		size_t n = strcspn(p, " ");
		const char *eq = memchr(p, '=', n);

		if (eq && eq > p && isdigit((unsigned char)eq[1])) {
			char key[64];

			snprintf(key, sizeof(key), "%.*s", (int)(eq - p), p);
			add(o, key, json_object_new_uint64(strtoull(eq + 1, NULL, 10)));
		}
		p += n;
		p += strspn(p, " ");
	}
	return o;
}

static json_object *signatures_json(const struct status_input *in)
{
	struct scanner *sc = in->sc;
	json_object *o = json_object_new_object();
	struct engine *e;

	if (!o)
		return NULL;
	add(o, "backend", json_object_new_string(sc->backend.ops ? sc->backend.ops->name : "?"));
	add(o, "reloading", json_object_new_boolean(in->reloading));
	add(o, "loaded", iso_time(atomic_load(&sc->live.loaded_at)));
	if (sc->cfg->backend != BACKEND_LIBCLAMAV)
		return o;
	add(o, "database", log_json_escaped(sc->cfg->database));
	e = engine_holder_get(&sc->engines);
	if (e) {
		add(o, "count", json_object_new_uint64(e->signatures));
		add(o, "version", e->db_version ? json_object_new_uint64(e->db_version) : NULL);
		add(o, "built", iso_time(e->db_time));
		engine_put(e);
	}
	return o;
}

static json_object *workers_json(const struct status_input *in, struct slot_view *v,
				 uint64_t now_us)
{
	json_object *a = json_object_new_array();

	if (!a)
		return NULL;
	for (unsigned int i = 0; i < in->nworkers; i++) {
		json_object *w = json_object_new_object();
		char comm[64];

		if (!w)
			break;
		add(w, "worker", json_object_new_int((int)i));
		add(w, "state", json_object_new_string(v[i].busy ? "scanning" : "idle"));
		if (v[i].busy) {
			scanner_read_comm(v[i].pid, comm, sizeof(comm));
			add(w, "path", v[i].path[0] ? log_json_escaped(v[i].path) : NULL);
			add(w, "pid", json_object_new_int((int)v[i].pid));
			add(w, "comm", log_json_escaped(comm));
			add(w, "for_ms", json_object_new_uint64(now_us > v[i].since_us ?
						(now_us - v[i].since_us) / 1000 : 0));
		}
		json_object_array_add(a, w);
	}
	return a;
}

static json_object *detections_json(struct live *l, uint64_t *total)
{
	struct detection *d = calloc(LIVE_DETECTIONS, sizeof(*d));
	json_object *a = json_object_new_array();
	size_t n;

	if (!d || !a) {
		free(d);
		json_object_put(a);
		*total = 0;
		return NULL;
	}
	n = live_detections(l, d, total);
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_new_object();

		if (!o)
			break;
		add(o, "time", iso_time(d[i].time));
		add(o, "path", log_json_escaped(d[i].path));
		add(o, "signature", log_json_escaped(d[i].sig));
		add(o, "pid", json_object_new_int((int)d[i].pid));
		add(o, "comm", log_json_escaped(d[i].comm));
		add(o, "action", json_object_new_string(d[i].action));
		json_object_array_add(a, o);
	}
	free(d);
	return a;
}

static json_object *hot_json(const struct slot_view *v, unsigned int n)
{
	struct hot_entry hot[LIVE_HOT_SHOWN];
	json_object *a = json_object_new_array();
	size_t k = hot_merge(v, n, hot, LIVE_HOT_SHOWN);

	if (!a)
		return NULL;
	for (size_t i = 0; i < k; i++) {
		json_object *o = json_object_new_object();
		char comm[64];

		if (!o)
			break;
		/* now: a process that is gone shows "?" */
		scanner_read_comm(hot[i].pid, comm, sizeof(comm));
		add(o, "pid", json_object_new_int((int)hot[i].pid));
		add(o, "comm", log_json_escaped(comm));
		add(o, "events", json_object_new_uint64(hot[i].events));
		json_object_array_add(a, o);
	}
	return a;
}

json_object *status_json(const struct status_input *in)
{
	struct slot_view *v = calloc(in->nworkers ? in->nworkers : 1, sizeof(*v));
	json_object *o = json_object_new_object();
	uint64_t now_us = scanner_now_us(), total;

	if (!v || !o) {
		free(v);
		json_object_put(o);
		return NULL;
	}
	for (unsigned int i = 0; i < in->nworkers; i++)
		slot_read(&in->workers[i].slot, &v[i]);
	add(o, "ok", json_object_new_boolean(1));
	add(o, "version", json_object_new_string(DAZUKOFS_VERSION));
	add(o, "pid", json_object_new_int((int)getpid()));
	add(o, "started", iso_time(in->sc->live.started));
	add(o, "uptime_s", json_object_new_uint64((now_us - in->sc->live.started_us) / 1000000));
	add(o, "counters", counters_json(in->counters));
	add(o, "signatures", signatures_json(in));
	add(o, "workers", workers_json(in, v, now_us));
	add(o, "detections", detections_json(&in->sc->live, &total));
	add(o, "detections_total", json_object_new_uint64(total));
	add(o, "hot_sources", hot_json(v, in->nworkers));
	free(v);
	return o;
}

/* The printing: from the JSON, so that both forms say the same. */

static const char *str(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return "-";
	return json_object_get_string(v);
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/*
 * A user's bytes (a path, a command name) on the terminal.  The scanner
 * sends them escaped as its log does (log_json_escaped): shown as sent,
 * so that a backslash is not doubled again, unless a control byte says
 * they were not.
 */
static const char *esc(const char *s, char *buf, size_t size)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f) {
			log_escape(buf, size, s);
			return buf;
		}
	}
	return s;
}

void status_print(FILE *out, json_object *o)
{
	char e1[PATH_MAX * LOG_ESCAPE_MAX_GROWTH + 1], e2[256 * LOG_ESCAPE_MAX_GROWTH + 1],
	     e3[64 * LOG_ESCAPE_MAX_GROWTH + 1];
	json_object *sig = get(o, "signatures"), *a, *c;
	uint64_t up = (uint64_t)json_object_get_uint64(get(o, "uptime_s"));
	size_t n;

	fprintf(out, "dazuko-clamscan %s, pid %s, up %" PRIu64 "d %02" PRIu64 ":%02" PRIu64
		":%02" PRIu64 " (since %s)\n", str(o, "version"), str(o, "pid"),
		up / 86400, up / 3600 % 24, up / 60 % 60, up % 60, str(o, "started"));
	fprintf(out, "signatures: backend %s", str(sig, "backend"));
	if (get(sig, "database"))
		fprintf(out, ", %s from %s, version %s built %s", str(sig, "count"),
			esc(str(sig, "database"), e1, sizeof(e1)), str(sig, "version"),
			str(sig, "built"));
	fprintf(out, "; loaded %s%s\n", str(sig, "loaded"),
		json_object_get_boolean(get(sig, "reloading")) ? "; reloading now" : "");
	fprintf(out, "counters:");
	json_object_object_foreach(get(o, "counters"), key, val)
		fprintf(out, " %s=%s", key, json_object_get_string(val));
	fprintf(out, "\nworkers:\n");
	a = get(o, "workers");
	n = a ? json_object_array_length(a) : 0;
	for (size_t i = 0; i < n; i++) {
		c = json_object_array_get_idx(a, i);
		if (strcmp(str(c, "state"), "scanning")) {
			fprintf(out, "  %-4s idle\n", str(c, "worker"));
			continue;
		}
		fprintf(out, "  %-4s scanning %s for pid %s (%s), %s ms\n", str(c, "worker"),
			esc(str(c, "path"), e1, sizeof(e1)), str(c, "pid"),
			esc(str(c, "comm"), e2, sizeof(e2)), str(c, "for_ms"));
	}
	a = get(o, "detections");
	n = a ? json_object_array_length(a) : 0;
	fprintf(out, "last detections (%zu of %s, newest first):\n", n,
		str(o, "detections_total"));
	for (size_t i = 0; i < n; i++) {
		c = json_object_array_get_idx(a, i);
		fprintf(out, "  %s %s %s pid %s (%s) %s\n", str(c, "time"),
			esc(str(c, "signature"), e2, sizeof(e2)), esc(str(c, "path"), e1, sizeof(e1)),
			str(c, "pid"), esc(str(c, "comm"), e3, sizeof(e3)), str(c, "action"));
	}
	a = get(o, "hot_sources");
	n = a ? json_object_array_length(a) : 0;
	fprintf(out, "hot event sources (events since the start, most first):\n");
	for (size_t i = 0; i < n; i++) {
		c = json_object_array_get_idx(a, i);
		fprintf(out, "  pid %-8s %-16s %s events\n", str(c, "pid"),
			esc(str(c, "comm"), e2, sizeof(e2)), str(c, "events"));
	}
}
