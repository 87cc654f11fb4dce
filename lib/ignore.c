// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The ignore device: while the process holds /dev/dazukofs.ign open, its
 * opens make no events.  The exemption belongs to the process, so the fd is
 * process-wide state here, under a mutex.  A child after fork() is not
 * exempt (the module's rule), whatever it inherits.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "internal.h"

static pthread_mutex_t dz_ign_lock = PTHREAD_MUTEX_INITIALIZER;
static int dz_ign_fd = -1;
static pid_t dz_ign_pid;	/* the process that opened dz_ign_fd */

DZ_EXPORT int dazukofs_ignore_on(void)
{
	char path[DZ_PATH_MAX];
	int ret = 0;

	if (dz_path(path, sizeof(path), DZ_IGN_DEV, "%s", ""))
		return -1;
	pthread_mutex_lock(&dz_ign_lock);
	if (dz_ign_fd >= 0 && dz_ign_pid == getpid())
		goto out;	/* already on */
	if (dz_ign_fd >= 0)
		close(dz_ign_fd);	/* inherited: not ours, no exemption */
	dz_ign_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (dz_ign_fd < 0) {
		dz_fail(errno, "cannot turn ignore on: open %s", path);
		ret = -1;
	}
	dz_ign_pid = getpid();
out:
	pthread_mutex_unlock(&dz_ign_lock);
	return ret;
}

DZ_EXPORT int dazukofs_ignore_off(void)
{
	int ret = 0;

	pthread_mutex_lock(&dz_ign_lock);
	if (dz_ign_fd >= 0 && close(dz_ign_fd)) {
		dz_fail(errno, "cannot turn ignore off: close");
		ret = -1;
	}
	dz_ign_fd = -1;
	pthread_mutex_unlock(&dz_ign_lock);
	return ret;
}
