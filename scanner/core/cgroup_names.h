/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The workload behind an access, for the log: the opener's cgroup (v2)
 * path and what it names (util/workload.h).  The id comes with a dazukofs
 * record of format 3; otherwise, and to find a path quickly, the opener's
 * /proc/PID/cgroup.  Ids are never reused while the machine runs, so what
 * an id was found to be is cached; pids are, so a path read from /proc is
 * taken only if its cgroup has the event's id (or no id was given).
 */
#ifndef SCANNER_CORE_CGROUP_NAMES_H
#define SCANNER_CORE_CGROUP_NAMES_H

#include <stdint.h>
#include <sys/types.h>

#include "util/workload.h"

struct cgroup_names;

/* NULL without memory. */
struct cgroup_names *cgroup_names_new(void);
void cgroup_names_free(struct cgroup_names *cn);

/*
 * The cgroup of an access: id (0: unknown, take pid's current one), pid
 * (0: none).  Fills path (the cgroup's path below the cgroup2 root) and
 * w; returns 0, or -1 if it cannot be told (path "" and w empty).
 * Thread-safe.
 */
int cgroup_names_lookup(struct cgroup_names *cn, uint64_t id, pid_t pid,
			char *path, size_t size, struct workload *w);

/*
 * The "0::PATH" line of a /proc/PID/cgroup text: PATH into path.  -1 if
 * there is none (a cgroup v1 only system) or it does not fit.
 */
int cgroup_names_parse_proc(const char *text, char *path, size_t size);

#endif
