/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a cgroup (v2) path says of the workload in it: the systemd unit,
 * the user manager's unit, the container and the Kubernetes pod, from the
 * names systemd, Docker, Podman, containerd, CRI-O and the kubelet give
 * their cgroups.  Cgroup names are chosen by whoever may make cgroups
 * (a user in a delegated subtree, a container): only names of exactly the
 * known shapes are taken, and each field is bounded.
 */
#ifndef SCANNER_UTIL_WORKLOAD_H
#define SCANNER_UTIL_WORKLOAD_H

/* A systemd unit name is at most 255 bytes (UNIT_NAME_MAX). */
#define WORKLOAD_UNIT_MAX 256
/* Container ids are 64 hex digits; pod UIDs 36 characters. */
#define WORKLOAD_ID_MAX 65

struct workload {
	char unit[WORKLOAD_UNIT_MAX];		/* "backup.service", "" */
	char user_unit[WORKLOAD_UNIT_MAX];	/* under user@UID.service */
	char container[WORKLOAD_ID_MAX];	/* hex id, "" */
	const char *runtime;			/* "docker", "podman", ... or NULL */
	char pod[WORKLOAD_ID_MAX];		/* Kubernetes pod UID, "" */
};

/*
 * Fill w from path, a cgroup path below the cgroup2 root as
 * /proc/PID/cgroup shows it ("/system.slice/backup.service").  Fields the
 * path does not name are empty.  Returns 1 if any field was found, else 0.
 */
int workload_parse(const char *path, struct workload *w);

/* A valid systemd unit name of a type that holds processes (service, scope). */
int workload_unit_name_valid(const char *name, size_t len);

/*
 * Is the cgroup at path the system unit's, or below it?  Only a path
 * whose components before the unit are all slices matches: those only
 * systemd (root) makes, not a user in the subtree delegated to their
 * user manager (user@UID.service/...).
 */
int workload_path_in_unit(const char *path, const char *unit);
/* Is the cgroup at path the one at prefix ("/a/b"), or below it? */
int workload_path_under(const char *path, const char *prefix);

#endif
