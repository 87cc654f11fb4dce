// SPDX-License-Identifier: GPL-2.0
/*
 * fs-create-race UPPER LOWER SECONDS: open(O_CREAT) through a dazukofs
 * mount (UPPER) racing with creates and unlinks of the same name made
 * directly in the lower (LOWER), for SECONDS.  On the lower itself,
 * open(O_CREAT) without O_EXCL never fails with EEXIST: it creates the
 * file or opens the one that is there.  Through the mount it must give the
 * same answer; a dazukofs that creates with a lower dentry made positive
 * since its lookup fails with EEXIST.  Fails on any EEXIST or other
 * error, or if the races never overlapped enough to prove anything (no
 * open found the file made by the other side).  ESTALE is counted and
 * tolerated: the VFS walks again once on ESTALE, and only a second race
 * in a row lets it through.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	char up[PATH_MAX], low[PATH_MAX];
	long opens = 0, eexist = 0, estale = 0, other = 0, found = 0;
	double end;
	pid_t churn;
	int seconds, status;

	if (argc != 4 || (seconds = atoi(argv[3])) <= 0) {
		fprintf(stderr, "usage: %s UPPER LOWER SECONDS\n", argv[0]);
		return 2;
	}
	snprintf(up, sizeof(up), "%s/raced", argv[1]);
	snprintf(low, sizeof(low), "%s/raced", argv[2]);
	end = now() + seconds;

	churn = fork();
	if (churn < 0) {
		perror("fs-create-race: fork");
		return 1;
	}
	if (churn == 0) {
		/* The lower side: the name appears (with one byte) and goes. */
		while (now() < end) {
			int fd = open(low, O_WRONLY | O_CREAT | O_EXCL, 0644);

			if (fd >= 0) {
				if (write(fd, "L", 1) != 1)
					_exit(1);
				close(fd);
			}
			unlink(low);
		}
		_exit(0);
	}

	while (now() < end) {
		int fd = open(up, O_RDWR | O_CREAT, 0644);
		struct stat st;

		opens++;
		if (fd < 0) {
			if (errno == EEXIST)
				eexist++;
			else if (errno == ESTALE)
				estale++;
			else
				other++;
			continue;
		}
		if (fstat(fd, &st) == 0 && st.st_size > 0)
			found++;
		close(fd);
		unlink(up);
	}
	waitpid(churn, &status, 0);
	unlink(low);

	printf("fs-create-race: %ld opens: %ld found the lower's file, %ld EEXIST, %ld ESTALE, %ld other errors\n",
	       opens, found, eexist, estale, other);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "fs-create-race: the lower side failed\n");
		return 1;
	}
	if (eexist || other) {
		printf("fs-create-race: FAIL: open(O_CREAT) through the mount failed where the lower's would not\n");
		return 1;
	}
	if (found == 0) {
		printf("fs-create-race: FAIL: no open met the lower's file: the race was never run\n");
		return 1;
	}
	printf("fs-create-race: PASS\n");
	return 0;
}
