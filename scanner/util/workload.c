// SPDX-License-Identifier: GPL-2.0
/*
 * Cgroup paths to workloads: see workload.h.  The shapes, as their makers
 * name them:
 *   systemd        /system.slice/NAME.service, ..., user.slice/user-UID.slice/
 *                  user@UID.service/app.slice/NAME.service (a user's unit)
 *   Docker         docker-ID.scope (systemd driver), /docker/ID (cgroupfs)
 *   Podman         libpod-ID.scope
 *   containerd     cri-containerd-ID.scope
 *   CRI-O          crio-ID.scope
 *   kubelet        kubepods[-QOS]-podUID.slice, UID with '_' for '-'
 *                  (systemd driver); /kubepods/QOS/podUID/ID (cgroupfs)
 */
#include <stddef.h>
#include <string.h>

#include "util/workload.h"

static int ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

static int starts_with(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(s, prefix, n);
}

/* A container id: 12 (a short one) to 64 lowercase hex digits. */
static int is_container_id(const char *s, size_t len)
{
	if (len < 12 || len > 64)
		return 0;
	for (size_t i = 0; i < len; i++) {
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	}
	return 1;
}

/*
 * A pod UID as the kubelet writes it in a cgroup name: 8-4-4-4-12 hex
 * digits, with sep ('-', or '_' in systemd unit names) between; into
 * out with '-'.
 */
static int take_pod_uid(const char *s, size_t len, char sep, char out[WORKLOAD_ID_MAX])
{
	char uid[WORKLOAD_ID_MAX];

	if (len != 36)
		return 0;
	for (size_t i = 0; i < len; i++) {
		int dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != sep :
		    !((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
		uid[i] = dash ? '-' : s[i];
	}
	uid[len] = '\0';
	memcpy(out, uid, len + 1);
	return 1;
}

int workload_unit_name_valid(const char *name, size_t len)
{
	if (!len || len >= WORKLOAD_UNIT_MAX ||
	    !(ends_with(name, len, ".service") || ends_with(name, len, ".scope")))
		return 0;
	/* systemd's unit name characters; others it escapes as \xNN */
	for (size_t i = 0; i < len; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || strchr(":_.@\\-", c)))
			return 0;
	}
	/* a name, not only its suffix */
	return name[0] != '.';
}

static const struct {
	const char *prefix;
	const char *runtime;
} container_scopes[] = {
	{ "docker-", "docker" },
	{ "libpod-", "podman" },
	{ "cri-containerd-", "containerd" },
	{ "crio-", "cri-o" },
};

/* RUNTIME-ID.scope: the container's id and runtime. */
static int take_container_scope(const char *c, size_t len, struct workload *w)
{
	if (!ends_with(c, len, ".scope"))
		return 0;
	len -= strlen(".scope");
	for (size_t i = 0; i < sizeof(container_scopes) / sizeof(container_scopes[0]); i++) {
		size_t plen = strlen(container_scopes[i].prefix);

		if (!starts_with(c, len, container_scopes[i].prefix) ||
		    !is_container_id(c + plen, len - plen))
			continue;
		memcpy(w->container, c + plen, len - plen);
		w->container[len - plen] = '\0';
		w->runtime = container_scopes[i].runtime;
		return 1;
	}
	return 0;
}

/* kubepods[-QOS]-podUID.slice */
static int take_pod_slice(const char *c, size_t len, struct workload *w)
{
	if (!starts_with(c, len, "kubepods-") || !ends_with(c, len, ".slice"))
		return 0;
	len -= strlen(".slice");
	/* the UID's 36 characters end the name, after "-pod" */
	if (len < 36 + 4 || memcmp(c + len - 36 - 4, "-pod", 4))
		return 0;
	return take_pod_uid(c + len - 36, 36, '_', w->pod);
}

/*
 * A component below the slices: the system unit, or under a user
 * manager (user@UID.service) the user's unit.  Returns 1 when no other
 * unit can follow: below a unit are its own cgroups (a delegated
 * subtree), and a component that is no unit name ends the units.
 */
static int take_unit(const char *c, size_t len, struct workload *w)
{
	char *dst = w->unit[0] ? w->user_unit : w->unit;

	if (!workload_unit_name_valid(c, len))
		return 1;
	memcpy(dst, c, len);
	dst[len] = '\0';
	return dst == w->user_unit ||
	       !(starts_with(c, len, "user@") && ends_with(c, len, ".service"));
}

int workload_path_in_unit(const char *path, const char *unit)
{
	size_t ulen = strlen(unit);
	const char *p = path;

	while (*p) {
		size_t len;

		while (*p == '/')
			p++;
		len = strcspn(p, "/");
		if (len == ulen && !memcmp(p, unit, len))
			return 1;
		if (!len || !ends_with(p, len, ".slice"))
			return 0;
		p += len;
	}
	return 0;
}

int workload_path_under(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	while (n > 1 && prefix[n - 1] == '/')
		n--;
	if (n == 1 && prefix[0] == '/')
		return path[0] == '/';
	return !strncmp(path, prefix, n) && (path[n] == '\0' || path[n] == '/');
}

int workload_parse(const char *path, struct workload *w)
{
	const char *p = path, *prev = NULL;
	size_t prev_len = 0;
	int in_kubepods = 0, unit_done = 0;

	memset(w, 0, sizeof(*w));
	while (*p) {
		size_t len;
		const char *c;

		while (*p == '/')
			p++;
		c = p;
		len = strcspn(p, "/");
		p += len;
		if (!len)
			break;
		if (len == 8 && !memcmp(c, "kubepods", 8))
			in_kubepods = 1;
		if (take_pod_slice(c, len, w)) {
			in_kubepods = 1;
		} else if (in_kubepods && !w->pod[0] && starts_with(c, len, "pod")) {
			take_pod_uid(c + 3, len - 3, '-', w->pod);
		} else if (!w->container[0] && take_container_scope(c, len, w)) {
			;
		} else if (!w->container[0] && len == 64 && is_container_id(c, len) &&
			   ((prev_len == 6 && !memcmp(prev, "docker", 6)) || w->pod[0])) {
			memcpy(w->container, c, len);
			w->container[len] = '\0';
			w->runtime = w->pod[0] ? "kubernetes" : "docker";
		}
		if (!unit_done && !ends_with(c, len, ".slice"))
			unit_done = take_unit(c, len, w);
		prev = c;
		prev_len = len;
	}
	return w->unit[0] || w->container[0] || w->pod[0];
}
