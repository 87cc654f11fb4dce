// SPDX-License-Identifier: GPL-2.0
/*
 * fs-lower-churn: change the lower directory directly, concurrently with
 * activity through the dazukofs mount, for a bounded time.
 *
 * usage: fs-lower-churn LOWER UPPER SECONDS NPROCS
 *   Each of NPROCS processes works in LOWER/churn.N: it creates, writes,
 *   renames, truncates, links and deletes files and directories there, and
 *   after each change looks the same names up through UPPER/churn.N (stat,
 *   open+read, readdir).  Errors that a racing namespace can legitimately
 *   give (ENOENT, ENOTDIR, EISDIR, ENOTEMPTY, EEXIST) are fine; anything else
 *   (EIO, ESTALE, ...) or a short/garbled read of a file only this process
 *   writes is a failure.  Exit status 0 on success.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *lower, *upper;
static unsigned long ops, bad;

static int benign(int e)
{
	return e == ENOENT || e == ENOTDIR || e == EISDIR || e == ENOTEMPTY ||
	       e == EEXIST;
}

#define NOTE(what, path) do { int e__ = errno; if (!benign(e__)) { \
	fprintf(stderr, "churn[%d]: %s %s: %s\n", getpid(), what, path, \
		strerror(e__)); bad++; } } while (0)

static uint32_t rs;
static uint32_t rnd(void)
{
	rs ^= rs << 13; rs ^= rs >> 17; rs ^= rs << 5;
	return rs;
}

static void check_upper(const char *dir, const char *name)
{
	char p[4096], buf[256];
	struct stat st;
	int fd;

	snprintf(p, sizeof(p), "%s/%s/%s", upper, dir, name);
	if (lstat(p, &st)) {
		NOTE("stat", p);
		return;
	}
	if (!S_ISREG(st.st_mode))
		return;
	fd = open(p, O_RDONLY | O_NOFOLLOW);
	if (fd < 0) {
		NOTE("open", p);
		return;
	}
	if (read(fd, buf, sizeof(buf)) < 0)
		NOTE("read", p);
	close(fd);
}

static void list_upper(const char *dir)
{
	char p[4096];
	DIR *d;

	snprintf(p, sizeof(p), "%s/%s", upper, dir);
	d = opendir(p);
	if (!d) {
		NOTE("opendir", p);
		return;
	}
	errno = 0;
	while (readdir(d))
		;
	if (errno)
		NOTE("readdir", p);
	closedir(d);
}

static int worker(int idx, double secs)
{
	/*
	 * One name longer than any dentry keeps inline: renames then move
	 * names between a dentry's inline buffer and an external one, which
	 * the mount's revalidation reads without a lock.
	 */
	static const char *names[] = {
		"a", "b", "c", "sub/a", "sub/b", "sub2/c",
		"sub/a-name-longer-than-the-inline-buffer-of-a-dentry-0123456789",
	};
	enum { NNAMES = sizeof(names) / sizeof(*names) };
	char dir[64], lp[4096], lq[4096], content[128];
	struct timespec t0, t;
	int fd;

	rs = (uint32_t)(getpid() * 2654435761u) | 1;
	snprintf(dir, sizeof(dir), "churn.%d", idx);
	snprintf(lp, sizeof(lp), "%s/%s", lower, dir);
	if (mkdir(lp, 0755) && errno != EEXIST) {
		perror(lp);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		const char *n1 = names[rnd() % NNAMES], *n2 = names[rnd() % NNAMES];

		snprintf(lp, sizeof(lp), "%s/%s/%s", lower, dir, n1);
		snprintf(lq, sizeof(lq), "%s/%s/%s", lower, dir, n2);
		switch (rnd() % 8) {
		case 0: case 1:
			fd = open(lp, O_CREAT | O_WRONLY | O_TRUNC, 0644);
			if (fd < 0) {
				NOTE("create", lp);
				break;
			}
			snprintf(content, sizeof(content), "%s %lu\n", n1, ops);
			if (write(fd, content, strlen(content)) < 0)
				NOTE("write", lp);
			close(fd);
			break;
		case 2:
			if (unlink(lp))
				NOTE("unlink", lp);
			break;
		case 3:
			/* the exchange rewrites both names in place */
			if (renameat2(AT_FDCWD, lp, AT_FDCWD, lq,
				      rnd() & 1 ? RENAME_EXCHANGE : 0))
				NOTE("rename", lp);
			break;
		case 4:
			snprintf(lp, sizeof(lp), "%s/%s/%s", lower, dir,
				 rnd() & 1 ? "sub" : "sub2");
			if (rnd() & 1 ? mkdir(lp, 0755) : rmdir(lp))
				NOTE("mkdir/rmdir", lp);
			break;
		case 5:
			if (truncate(lp, rnd() % 8192))
				NOTE("truncate", lp);
			break;
		case 6:
			if (link(lp, lq))
				NOTE("link", lp);
			break;
		case 7:
			list_upper(dir);
			break;
		}
		check_upper(dir, n1);
		check_upper(dir, n2);
		ops++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	printf("churn[%d]: %lu ops, %lu unexpected errors\n", idx, ops, bad);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	int n, failed = 0, status;
	double secs;

	if (argc != 5) {
		fprintf(stderr, "usage: %s LOWER UPPER SECONDS NPROCS\n", argv[0]);
		return 2;
	}
	lower = argv[1];
	upper = argv[2];
	secs = atof(argv[3]);
	n = atoi(argv[4]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0)
			_exit(worker(i, secs));
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			failed++;
	printf("fs-lower-churn: %d of %d workers failed\n", failed, n);
	return failed ? 1 : 0;
}
