// SPDX-License-Identifier: GPL-2.0
/*
 * fs-create-race UPPER LOWER SECONDS: open(O_CREAT) through a dazukofs
 * mount (UPPER) racing with creates and unlinks of the same name made
 * directly in the lower (LOWER), for SECONDS.  On the lower itself,
 * open(O_CREAT) without O_EXCL never fails with EEXIST: it creates the
 * file or opens the one that is there.  Through the mount it must give the
 * same answer; a dazukofs that creates with a lower dentry made positive
 * since its lookup fails with EEXIST, and one that answers ESTALE (for the
 * VFS to walk again) fails when the lower changes again before the second
 * walk.  Every other open adds O_EXCL: then EEXIST is the lower's answer,
 * but a success must be a file of its own, never the lower's (which has a
 * byte).  Fails on any other error, or if the races never overlapped
 * enough to prove anything (no open found the file made by the other
 * side).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "name-churn.h"

#define CHURNERS 3

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	char up[PATH_MAX], low[PATH_MAX];
	long opens = 0, eexist = 0, excl_eexist = 0, excl_found = 0;
	long estale = 0, other = 0, found = 0;
	double end;
	pid_t churn[CHURNERS];
	int seconds, status, i;
	bool churn_failed = false;

	if (argc != 4 || (seconds = atoi(argv[3])) <= 0) {
		fprintf(stderr, "usage: %s UPPER LOWER SECONDS\n", argv[0]);
		return 2;
	}
	snprintf(up, sizeof(up), "%s/raced", argv[1]);
	snprintf(low, sizeof(low), "%s/raced", argv[2]);
	end = now() + seconds;

	/*
	 * The lower side, in several processes so that the name often
	 * changes twice within one open through the mount: it appears (with
	 * one byte) and goes.
	 */
	for (i = 0; i < CHURNERS; i++) {
		churn[i] = fork();
		if (churn[i] < 0) {
			perror("fs-create-race: fork");
			return 1;
		}
		if (churn[i] == 0)
			churn_name(low, seconds);
	}

	while (now() < end) {
		bool excl = opens++ & 1;
		int fd = open(up, O_RDWR | O_CREAT | (excl ? O_EXCL : 0), 0644);
		struct stat st;

		if (fd < 0) {
			if (errno == EEXIST)
				*(excl ? &excl_eexist : &eexist) += 1;
			else if (errno == ESTALE)
				estale++;
			else
				other++;
			continue;
		}
		if (fstat(fd, &st) == 0 && st.st_size > 0)
			*(excl ? &excl_found : &found) += 1;
		close(fd);
		unlink(up);
	}
	for (i = 0; i < CHURNERS; i++) {
		waitpid(churn[i], &status, 0);
		churn_failed |= !WIFEXITED(status) || WEXITSTATUS(status);
	}
	unlink(low);

	printf("fs-create-race: %ld opens (half O_EXCL): %ld found the lower's file, %ld EEXIST (%ld with O_EXCL), %ld O_EXCL opened the lower's file, %ld ESTALE, %ld other errors\n",
	       opens, found, eexist + excl_eexist, excl_eexist, excl_found,
	       estale, other);
	if (churn_failed) {
		fprintf(stderr, "fs-create-race: the lower side failed\n");
		return 1;
	}
	if (eexist || estale || other) {
		printf("fs-create-race: FAIL: open(O_CREAT) through the mount failed where the lower's would not\n");
		return 1;
	}
	if (excl_found) {
		printf("fs-create-race: FAIL: open(O_CREAT | O_EXCL) through the mount opened an existing file\n");
		return 1;
	}
	if (found == 0) {
		printf("fs-create-race: FAIL: no open met the lower's file: the race was never run\n");
		return 1;
	}
	printf("fs-create-race: PASS\n");
	return 0;
}
