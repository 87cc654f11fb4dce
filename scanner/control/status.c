// SPDX-License-Identifier: GPL-2.0
/* The scanner's state for `dazuko-clamscan status` (see status.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "control/status.h"
#include "core/worker.h"
#include "log/counters.h"
#include "log/log.h"
#include "util/jsonb.h"

/*
 * Times are UTC, ISO 8601: "2026-12-05T08:40:01Z"; an unknown one (0)
 * is null.
 */
static int add_time(json_object *o, const char *key, int64_t t)
{
	time_t tt = (time_t)t;
	char buf[32];
	struct tm tm;

	if (t <= 0 || !gmtime_r(&tt, &tm) ||
	    !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return jsonb_add_null(o, key);
	return jsonb_add_string(o, key, buf);
}

/* A user's bytes (path, comm), escaped as the log escapes them. */
static int add_escaped(json_object *o, const char *key, const char *raw)
{
	return jsonb_add(o, key, log_json_escaped(raw));
}

/* A builder's result: o, or NULL (and o freed) if anything failed. */
static json_object *built(json_object *o, int rc)
{
	if (rc) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* The counters, by the names the statistics line gives them. */
static json_object *counters_object(const struct counter_values *c)
{
	json_object *o = json_object_new_object();

	return built(o, o ? counters_json(c, o) : -1);
}

static json_object *signatures_json(const struct status_input *in)
{
	struct scanner *sc = in->sc;
	json_object *o = json_object_new_object();
	struct backend_signatures sig = { 0 };
	int rc;

	rc = jsonb_add_string(o, "backend", sc->backend.ops ? sc->backend.ops->name : "?") ||
	     jsonb_add_bool(o, "reloading", in->reloading) ||
	     add_time(o, "loaded", atomic_load(&sc->live.loaded_at));
	if (sc->cfg->backend != BACKEND_LIBCLAMAV)
		return built(o, rc);
	rc = rc || add_escaped(o, "database", sc->cfg->database);
	if (sc->backend.ops && sc->backend.ops->signatures)
		sc->backend.ops->signatures(&sc->backend, &sig);
	if (sig.known)
		rc = rc || jsonb_add_uint(o, "count", sig.count) ||
		     (sig.version ? jsonb_add_uint(o, "version", sig.version) :
				    jsonb_add_null(o, "version")) ||
		     add_time(o, "built", sig.built);
	return built(o, rc);
}

static json_object *workers_json(const struct status_input *in, struct slot_view *v,
				 uint64_t now_us)
{
	json_object *a = json_object_new_array();
	int rc = a ? 0 : -1;

	for (unsigned int i = 0; !rc && i < in->nworkers; i++) {
		json_object *w = json_object_new_object();
		char comm[64];

		rc = jsonb_add_int(w, "worker", i) ||
		     jsonb_add_string(w, "state", v[i].busy ? "scanning" : "idle");
		if (v[i].busy) {
			scanner_read_comm(v[i].pid, comm, sizeof(comm));
			rc = rc || (v[i].path[0] ? add_escaped(w, "path", v[i].path) :
					      jsonb_add_null(w, "path")) ||
			      jsonb_add_int(w, "pid", v[i].pid) ||
			      add_escaped(w, "comm", comm) ||
			      jsonb_add_uint(w, "for_ms", now_us > v[i].since_us ?
					     (now_us - v[i].since_us) / 1000 : 0);
		}
		if (rc)
			json_object_put(w);
		else
			rc = jsonb_append(a, w);
	}
	return built(a, rc);
}

static json_object *detections_json(struct live *l, uint64_t *total)
{
	struct detection *d = calloc(LIVE_DETECTIONS, sizeof(*d));
	json_object *a = json_object_new_array();
	int rc = d && a ? 0 : -1;
	size_t n = 0;

	*total = 0;
	if (!rc)
		n = live_detections(l, d, total);
	for (size_t i = 0; !rc && i < n; i++) {
		json_object *o = json_object_new_object();

		rc = add_time(o, "time", d[i].time) ||
		     add_escaped(o, "path", d[i].path) ||
		     add_escaped(o, "signature", d[i].sig) ||
		     jsonb_add_int(o, "pid", d[i].pid) ||
		     add_escaped(o, "comm", d[i].comm) ||
		     jsonb_add_string(o, "action", d[i].action);
		if (rc)
			json_object_put(o);
		else
			rc = jsonb_append(a, o);
	}
	free(d);
	return built(a, rc);
}

static json_object *hot_json(const struct slot_view *v, unsigned int n)
{
	struct hot_entry hot[LIVE_HOT_SHOWN];
	json_object *a = json_object_new_array();
	size_t k = hot_merge(v, n, hot, LIVE_HOT_SHOWN);
	int rc = a ? 0 : -1;

	for (size_t i = 0; !rc && i < k; i++) {
		json_object *o = json_object_new_object();
		char comm[64];

		/* now: a process that is gone shows "?" */
		scanner_read_comm(hot[i].pid, comm, sizeof(comm));
		rc = jsonb_add_int(o, "pid", hot[i].pid) ||
		     add_escaped(o, "comm", comm) ||
		     jsonb_add_uint(o, "events", hot[i].events);
		if (rc)
			json_object_put(o);
		else
			rc = jsonb_append(a, o);
	}
	return built(a, rc);
}

json_object *status_json(const struct status_input *in)
{
	struct slot_view *v = calloc(in->nworkers ? in->nworkers : 1, sizeof(*v));
	json_object *o = json_object_new_object();
	uint64_t now_us = scanner_now_us(), total;
	int rc;

	if (!v || !o) {
		free(v);
		json_object_put(o);
		return NULL;
	}
	for (unsigned int i = 0; i < in->nworkers; i++)
		slot_read(&in->workers[i].slot, &v[i]);
	rc = jsonb_add_bool(o, "ok", 1) ||
	     jsonb_add_string(o, "version", DAZUKOFS_VERSION) ||
	     jsonb_add_int(o, "pid", getpid()) ||
	     add_time(o, "started", in->sc->live.started) ||
	     jsonb_add_uint(o, "uptime_s", (now_us - in->sc->live.started_us) / 1000000) ||
	     jsonb_add(o, "counters", counters_object(in->counters)) ||
	     jsonb_add(o, "signatures", signatures_json(in)) ||
	     jsonb_add(o, "workers", workers_json(in, v, now_us)) ||
	     jsonb_add(o, "detections", detections_json(&in->sc->live, &total)) ||
	     jsonb_add_uint(o, "detections_total", total) ||
	     jsonb_add(o, "hot_sources", hot_json(v, in->nworkers));
	free(v);
	return built(o, rc);
}

/* The printing: from the JSON, so that both forms say the same. */

static const char *str(json_object *o, const char *key)
{
	return jsonb_string_or(o, key, "-");
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
	c = get(o, "counters");
	if (c && json_object_is_type(c, json_type_object)) {
		json_object_object_foreach(c, key, val) {
			(void)val;
			fprintf(out, " %s=%s", key, str(c, key));
		}
	}
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
