/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scanner's open-file limit: each event in its hands holds an fd that
 * the kernel made for it, and an event whose fd the kernel cannot make
 * (EMFILE) is denied by the kernel itself.  So the limit is raised at
 * start, and the sources never take more events than it leaves room for.
 */
#ifndef DAZUKO_CLAMSCAN_FDLIMIT_H
#define DAZUKO_CLAMSCAN_FDLIMIT_H

#include <stddef.h>

/*
 * Fds kept for everything but events: virus_event's queue holds one per
 * detection for the quarantine (256), and logs, sockets, signatures and
 * the control socket's clients take some; each worker a few more (a
 * libclamav temporary file, a clamd session).
 */
#define FDLIMIT_RESERVE 320
#define FDLIMIT_RESERVE_PER_WORKER 16
/* Events held at once, at most, whatever the limit. */
#define FDLIMIT_EVENTS_MAX 65536

/*
 * Raise the soft RLIMIT_NOFILE to the hard one.  Returns the soft limit
 * now, or -1 with @err.
 */
long fdlimit_raise(char *err, size_t errlen);
/* The least soft limit that leaves room for one event per worker. */
long fdlimit_needed(unsigned int workers);
/*
 * How many events may hold an fd at once under the soft limit @soft with
 * @workers workers; 0 if @soft is below fdlimit_needed(@workers).
 */
unsigned int fdlimit_events(long soft, unsigned int workers);

#endif
