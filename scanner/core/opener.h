/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exclusions by the opening process (clamd's OnAccessExcludeUID,
 * OnAccessExcludeUname, OnAccessExcludeRootUID, and by executable): who
 * the event's pid is, read from /proc at event time.
 */
#ifndef SCANNER_OPENER_H
#define SCANNER_OPENER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "config/config.h"

/* Any exclusion by process configured (else no /proc lookup at all). */
int opener_exclusions(const struct config *cfg);

/*
 * Who opened a file: the pid, and its real, effective and filesystem
 * uids when the event said (a dazukofs record of format 2), else they are
 * read from /proc at event time.
 */
struct opener_ids {
	pid_t pid;
	int have_uids;
	uid_t uid, euid, fsuid;
	int written;		/* it closed the file after writing it */
	uint64_t cgroup;	/* its cgroup v2 id when it opened; 0: unknown */
};

/*
 * 1 if the process pid is excluded by cfg (why: "uid 1000", "exe
 * /usr/bin/x"), 0 if not, or if it cannot be told (gone, /proc unreadable):
 * a doubt is always scanned.
 */
int opener_excluded(const struct config *cfg, pid_t pid, char *why, size_t whylen);
/* The same for who: its uids from the event if it has them. */
int opener_excluded_ids(const struct config *cfg, const struct opener_ids *who,
			char *why, size_t whylen);

/*
 * The real uid of process pid (the user who ran it), for the log; -1 if
 * it cannot be told (gone, /proc unreadable).
 */
int opener_uid(pid_t pid, uid_t *uid);
/* The same for who: its real uid from the event if it has it. */
int opener_ids_uid(const struct opener_ids *who, uid_t *uid);

/*
 * The Uid: line of /proc/PID/status ("Uid:\tR\tE\tS\tF"): real, effective
 * and filesystem uids.  -1 if malformed.  For the tests.
 */
int opener_parse_uids(const char *status, uid_t *ruid, uid_t *euid, uid_t *fsuid);

#endif
