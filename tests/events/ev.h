/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the access event tests (events-test.c, soak.c): groups
 * in configfs, group devices, sysfs counters, openers in child processes.
 */
#ifndef DAZUKOFS_EV_H
#define DAZUKOFS_EV_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "protocol.h"
#include <uapi/linux/dazukofs.h>

/* A deadline in milliseconds from now, and whether it has passed. */
static inline long long ev_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static inline void ev_nap(void)
{
	struct timespec ts = { 0, 5 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

/* mkdir the group; its id, or -errno. */
static inline int ev_group_mkdir(const char *name)
{
	char path[256], buf[32];
	int fd, n;

	snprintf(path, sizeof(path), DAZUKOFS_CONFIGFS_ROOT "/%s", name);
	if (mkdir(path, 0755))
		return -errno;
	snprintf(path, sizeof(path), DAZUKOFS_CONFIGFS_ROOT "/%s/id", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = (int)read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	return atoi(buf);
}

/* Write @value to the group's configfs attribute @attr; 0 or -errno. */
static inline int ev_group_write(const char *name, const char *attr,
				 const char *value)
{
	char path[256];
	int fd, err = 0;

	snprintf(path, sizeof(path), DAZUKOFS_CONFIGFS_ROOT "/%s/%s", name, attr);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, value, strlen(value)) != (ssize_t)strlen(value))
		err = -errno;
	close(fd);
	return err;
}

/*
 * Read the group's configfs attribute @attr into @buf (NUL-terminated);
 * its length, or -errno (-EIO for an empty read).
 */
static inline int ev_group_read(const char *name, const char *attr,
				char *buf, size_t size)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), DAZUKOFS_CONFIGFS_ROOT "/%s/%s", name, attr);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	n = n < 0 ? -errno : n;
	close(fd);
	if (n <= 0)
		return n ? (int)n : -EIO;
	buf[n] = '\0';
	return (int)n;
}

/* Arm the group before any worker (events queue from now on); 0 or -errno. */
static inline int ev_group_arm(const char *name)
{
	return ev_group_write(name, "armed", "1");
}

static inline int ev_group_rmdir(const char *name)
{
	char path[256];

	if ((size_t)snprintf(path, sizeof(path), DAZUKOFS_CONFIGFS_ROOT "/%s",
			     name) >= sizeof(path))
		return -ENAMETOOLONG;
	return rmdir(path) ? -errno : 0;
}

static inline int ev_dev_open(int id, int flags)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), DAZUKOFS_DEV_PREFIX "%d", id);
	fd = open(path, O_RDWR | O_CLOEXEC | flags);
	return fd < 0 ? -errno : fd;
}

/* A counter: of group @group, or of all groups when @group is NULL. */
static inline long long ev_ctr(const char *group, const char *name)
{
	char path[256], buf[32];
	int fd, n;

	if (group)
		snprintf(path, sizeof(path), DAZUKOFS_SYSFS_GROUPS "/%s/%s",
			 group, name);
	else
		snprintf(path, sizeof(path), DAZUKOFS_SYSFS_ROOT "/%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1000000 - errno;
	n = (int)read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -2000000;
	buf[n] = '\0';
	return atoll(buf);
}

/* Wait until a counter reads @want; false after @ms milliseconds. */
static inline bool ev_wait_ctr(const char *group, const char *name,
			       long long want, int ms)
{
	long long end = ev_now_ms() + ms;

	for (;;) {
		if (ev_ctr(group, name) == want)
			return true;
		if (ev_now_ms() > end)
			return false;
		ev_nap();
	}
}

/*
 * Read one event from a group device, waiting at most @ms (poll).
 * Return: 0, or -errno (-ETIMEDOUT when nothing came).
 */
static inline int ev_read(int devfd, struct dazukofs_proto_event *ev, int ms)
{
	char buf[DAZUKOFS_EVENT_MAX];
	struct pollfd pfd = { .fd = devfd, .events = POLLIN };
	ssize_t n;

	if (ms >= 0) {
		int r = poll(&pfd, 1, ms);

		if (r < 0)
			return -errno;
		if (r == 0)
			return -ETIMEDOUT;
	}
	n = read(devfd, buf, sizeof(buf));
	if (n < 0)
		return -errno;
	if (dazukofs_proto_parse_event(buf, (size_t)n, ev))
		return -EBADMSG;
	return 0;
}

/* Answer an event, asking that it be remembered or not; 0 or -errno. */
static inline int ev_answer_keep(int devfd, unsigned long id, int verdict,
				 int remember)
{
	char buf[DAZUKOFS_RESPONSE_MAX];
	int n = dazukofs_proto_format_response(buf, sizeof(buf), id, verdict,
					       remember);

	if (n < 0)
		return -EINVAL;
	if (write(devfd, buf, (size_t)n) != n)
		return -errno;
	return 0;
}

/* Answer an event for this open only; 0 or -errno. */
static inline int ev_answer(int devfd, unsigned long id, int verdict)
{
	return ev_answer_keep(devfd, id, verdict, 0);
}

/*
 * Fork a process that opens @path with @flags (mode 0644 if it creates
 * it): exit 0 on success, else errno.
 */
static inline pid_t ev_opener_flags(const char *path, int flags)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(path, flags, 0644);

		_exit(fd < 0 ? (errno ? errno : 255) : 0);
	}
	return pid;
}

static inline pid_t ev_opener(const char *path)
{
	return ev_opener_flags(path, O_RDONLY);
}

#define EV_TIMEOUT (-1)		/* still running */
#define EV_SIGNALLED(sig) (-1000 - (sig))

/* An opener's result: its exit code, EV_SIGNALLED(sig), or EV_TIMEOUT. */
static inline int ev_opener_wait(pid_t pid, int ms)
{
	long long end = ev_now_ms() + ms;
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid) {
			if (WIFEXITED(status))
				return WEXITSTATUS(status);
			if (WIFSIGNALED(status))
				return EV_SIGNALLED(WTERMSIG(status));
			return -3;
		}
		if (r < 0)
			return -2;
		if (ev_now_ms() > end)
			return EV_TIMEOUT;
		ev_nap();
	}
}

/* Is the opener still waiting (alive and not exited)? */
static inline bool ev_opener_running(pid_t pid)
{
	int status;

	return waitpid(pid, &status, WNOHANG) == 0;
}

#endif /* DAZUKOFS_EV_H */
