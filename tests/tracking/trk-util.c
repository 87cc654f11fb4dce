// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the tracking tests (see trk-util.h). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../include/uapi/linux/dazukofs.h"
#include "trk-util.h"

long long trk_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int trk_cfg_write(const char *name, const char *attr, const char *val)
{
	char path[256];
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), DAZUKOFS_CONFIGFS_ROOT "/%s/%s", name, attr);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		err = -errno;
	else if ((size_t)n != strlen(val))
		err = -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

int trk_cfg_read(const char *name, const char *attr, char *buf, size_t len)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), DAZUKOFS_CONFIGFS_ROOT "/%s/%s", name, attr);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	return 0;
}

int trk_group_create(const char *name)
{
	char path[256], buf[32];

	snprintf(path, sizeof(path), DAZUKOFS_CONFIGFS_ROOT "/%s", name);
	if (mkdir(path, 0755))
		return -errno;
	if (trk_cfg_read(name, "id", buf, sizeof(buf)))
		return -EIO;
	return atoi(buf);
}

int trk_group_remove(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), DAZUKOFS_CONFIGFS_ROOT "/%s", name);
	return rmdir(path) ? -errno : 0;
}

long long trk_stat(const char *name, const char *ctr)
{
	char path[256], buf[32];
	ssize_t n;
	int fd;

	if (name)
		snprintf(path, sizeof(path), DAZUKOFS_SYSFS_GROUPS "/%s/%s",
			 name, ctr);
	else
		snprintf(path, sizeof(path), DAZUKOFS_SYSFS_ROOT "/%s", ctr);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1000000 - errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -2000000;
	buf[n] = 0;
	return atoll(buf);
}

bool trk_wait_stat(const char *name, const char *ctr, long long want, int ms)
{
	long long end = trk_now_ms() + ms;

	for (;;) {
		long long v = trk_stat(name, ctr);

		if (v == want)
			return true;
		if (trk_now_ms() > end) {
			fprintf(stderr, "timeout waiting for %s/%s == %lld (is %lld)\n",
				name ? name : "global", ctr, want, v);
			return false;
		}
		sleep_ms(5);
	}
}

int trk_dev_open(int id, int extra_flags)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), DAZUKOFS_DEV_PREFIX "%d", id);
	fd = open(path, O_RDWR | O_CLOEXEC | extra_flags);
	return fd < 0 ? -errno : fd;
}

int trk_read_event(int dev, unsigned long *id, int *fd, int *pid)
{
	char buf[DAZUKOFS_EVENT_MAX + 1];
	ssize_t n = read(dev, buf, DAZUKOFS_EVENT_MAX);

	if (n < 0)
		return -errno;
	buf[n] = 0;
	if (sscanf(buf, "id=%lu\nfd=%d\npid=%d\n", id, fd, pid) != 3)
		return -EBADMSG;
	return 0;
}

int trk_read_event_wait(int dev, unsigned long *id, int ms)
{
	struct pollfd p = { .fd = dev, .events = POLLIN };
	int fd, pid, err;

	if (poll(&p, 1, ms) <= 0)
		return -ETIMEDOUT;
	err = trk_read_event(dev, id, &fd, &pid);
	if (!err)
		close(fd);
	return err;
}

int trk_answer(int dev, unsigned long id, int verdict)
{
	char buf[DAZUKOFS_RESPONSE_MAX];
	int len = snprintf(buf, sizeof(buf), "id=%lu r=%d\n", id, verdict);

	return write(dev, buf, len) == len ? 0 : -errno;
}

void trk_close_fds_except(int keep)
{
	if (keep < 0) {
		syscall(SYS_close_range, 3U, ~0U, 0U);
		return;
	}
	if (keep > 3)
		syscall(SYS_close_range, 3U, (unsigned int)keep - 1, 0U);
	syscall(SYS_close_range, (unsigned int)keep + 1, ~0U, 0U);
}

pid_t trk_opener(const char *path)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd;

		trk_close_fds_except(-1);
		fd = open(path, O_RDONLY);
		_exit(fd < 0 ? errno : 0);
	}
	if (pid > 0)
		trk_track_child(pid);
	return pid;
}

pid_t trk_opener_as(const char *path, uid_t uid, int flags)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd;

		trk_close_fds_except(-1);
		if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
		    setresuid(uid, uid, uid))
			_exit(126);
		fd = open(path, flags, 0666);
		_exit(fd < 0 ? errno : close(fd) ? errno : 0);
	}
	if (pid > 0)
		trk_track_child(pid);
	return pid;
}

#define TRK_MAX_CHILDREN 64
static pid_t trk_children[TRK_MAX_CHILDREN];

void trk_track_child(pid_t pid)
{
	for (int i = 0; i < TRK_MAX_CHILDREN; i++) {
		if (!trk_children[i]) {
			trk_children[i] = pid;
			return;
		}
	}
}

static void trk_untrack_child(pid_t pid)
{
	for (int i = 0; i < TRK_MAX_CHILDREN; i++)
		if (trk_children[i] == pid)
			trk_children[i] = 0;
}

int trk_child_wait(pid_t pid, int ms)
{
	long long end = trk_now_ms() + ms;
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid) {
			trk_untrack_child(pid);
			if (WIFEXITED(status))
				return WEXITSTATUS(status);
			return -2;
		}
		if (r < 0)
			return -3;
		if (trk_now_ms() > end)
			return -1;
		sleep_ms(5);
	}
}

void trk_reap_all(void)
{
	for (int i = 0; i < TRK_MAX_CHILDREN; i++) {
		if (trk_children[i]) {
			kill(trk_children[i], SIGKILL);
			kill(trk_children[i], SIGCONT);
			waitpid(trk_children[i], NULL, 0);
			trk_children[i] = 0;
		}
	}
}
