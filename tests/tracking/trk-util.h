/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the tracking tests: configfs groups, sysfs counters,
 * group devices, and openers as child processes.
 */
#ifndef TRK_UTIL_H
#define TRK_UTIL_H

#include <stdbool.h>
#include <sys/types.h>

/* Write VAL to configfs attribute ATTR of group NAME: 0 or -errno. */
int trk_cfg_write(const char *name, const char *attr, const char *val);
/* Read configfs attribute ATTR of group NAME into BUF (newline stripped). */
int trk_cfg_read(const char *name, const char *attr, char *buf, size_t len);
/* mkdir the group; returns its id (the N of /dev/dazukofs.N) or -errno. */
int trk_group_create(const char *name);
int trk_group_remove(const char *name);

/* A counter from /sys/fs/dazukofs/groups/NAME/CTR, or global if NAME is NULL. */
long long trk_stat(const char *name, const char *ctr);
/* Poll until the counter equals WANT; false after MS milliseconds. */
bool trk_wait_stat(const char *name, const char *ctr, long long want, int ms);

/* open /dev/dazukofs.ID with FLAGS (O_RDWR | extra). */
int trk_dev_open(int id, int extra_flags);
/* One event: 0 with *id, *fd (installed in us), *pid; or -errno. */
int trk_read_event(int dev, unsigned long *id, int *fd, int *pid);
/* Read one event, waiting at most MS ms for it; closes the event fd. */
int trk_read_event_wait(int dev, unsigned long *id, int ms);
/* Answer: 0 or -errno. */
int trk_answer(int dev, unsigned long id, int verdict);

/* Close every fd >= 3 in a child, except KEEP (or -1). */
void trk_close_fds_except(int keep);

/* Fork a child that opens PATH read-only and exits with 0 or errno. */
pid_t trk_opener(const char *path);
/*
 * The same as UID (and gid UID, no groups), opening with FLAGS (mode 0666
 * if it creates) and closing: exits with 0 or errno, 126 if it could not
 * change its ids.
 */
pid_t trk_opener_as(const char *path, uid_t uid, int flags);
/* Wait up to MS ms for child PID: its exit code, or -1 if still running,
 * or -2 if it died of a signal. */
int trk_child_wait(pid_t pid, int ms);
/* Remember a child so that trk_reap_all() kills it at teardown. */
void trk_track_child(pid_t pid);
void trk_reap_all(void);

/* Milliseconds on the monotonic clock. */
long long trk_now_ms(void);

#endif
