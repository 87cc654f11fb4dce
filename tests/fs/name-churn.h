/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One name that keeps appearing and going in the lower directory, for the
 * tests that race open(O_CREAT) through the mount against it
 * (fs-create-race, events-test's create_race_denied).
 */
#ifndef NAME_CHURN_H
#define NAME_CHURN_H

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

/*
 * In a child process: make @path with one byte (so that an open through
 * the mount can tell the lower's file from a new one of its own) and
 * remove it, over and over, for @seconds; then exit, 1 if a write failed.
 */
static void __attribute__((noreturn)) churn_name(const char *path,
						  double seconds)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);

		if (fd >= 0) {
			if (write(fd, "L", 1) != 1)
				_exit(1);
			close(fd);
		}
		unlink(path);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) +
		 (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	_exit(0);
}

#endif
