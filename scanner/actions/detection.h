/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What is done on each detection, after the verdict and never delaying
 * it: quarantine (quarantine.h), then virus_event.
 *
 * virus_event: a command run on each detection, like clamd's VirusEvent,
 * but executed directly (execve, no shell), with the file's path, the
 * signature and the opener's pid in its environment:
 * CLAM_VIRUSEVENT_FILENAME, CLAM_VIRUSEVENT_VIRUSNAME (clamd's names),
 * DAZUKOFS_VIRUSEVENT_PID, DAZUKOFS_VIRUSEVENT_ACTION and
 * DAZUKOFS_QUARANTINE_ID (empty if the file was not quarantined).  A worker only
 * queues the detection: the verdict never waits for the command.
 */
#ifndef SCANNER_DETECTION_H
#define SCANNER_DETECTION_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "config/config.h"

struct detection_actions;

/*
 * Start cfg->virus_event_max runner threads: that many commands run at
 * once, at most; open (create) the quarantine directory if
 * cfg->quarantine.  NULL with a message in err.
 */
struct detection_actions *detection_actions_start(const struct config *cfg, char *err,
				    size_t errlen);
/*
 * Queue one detection (copied; fd, the detected file, is dup'ed for the
 * quarantine).  Never blocks on a command: when the queue is full the
 * detection's command is not run and the file not quarantined, and that
 * is logged and counted.
 */
void detection_actions_queue(struct detection_actions *ve, int fd, const char *path,
		      const char *signature, pid_t pid, const char *action);
/*
 * Commands run, detections whose actions were dropped (queue full),
 * commands killed for outlasting virus_event_timeout, files quarantined,
 * quarantines that failed, and those skipped for the quarantine's limits.
 */
void detection_actions_counts(struct detection_actions *ve, uint64_t *run, uint64_t *dropped,
		       uint64_t *timeouts, uint64_t *quarantined,
		       uint64_t *quarantine_failed, uint64_t *quarantine_skipped);
/*
 * Stop: queued detections are dropped (logged), running commands' process
 * groups get SIGTERM and, if still there 2 s later, SIGKILL; the threads
 * are joined.  NULL is fine.
 */
void detection_actions_stop(struct detection_actions *ve);

#endif
