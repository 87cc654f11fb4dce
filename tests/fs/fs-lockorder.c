// SPDX-License-Identifier: GPL-2.0
/*
 * fs-lockorder UPPER LOWER SECONDS: splice(2), sendfile(2) and
 * copy_file_range(2) into files of a dazukofs mount, splices straight into
 * its lower filesystem from the same pipe, and fsfreeze of the lower, all
 * at once for SECONDS.  A dazukofs that takes the lower's freeze protection
 * under the pipe lock deadlocks here (the freezer waits for the direct
 * splice, which waits for the pipe, whose holder waits for the thaw), and
 * lockdep on a debug kernel reports the inversion even when no deadlock
 * happens to strike.  Fails if any thread is still stuck long after the
 * end, if a kind of operation never succeeded (the test would prove
 * nothing), on any unexpected error, or if a file holds other bytes than
 * the ones spliced in.
 *
 * UPPER is a dazukofs mount of LOWER; LOWER is the root of a filesystem
 * that can be frozen (ext4, xfs, btrfs).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CHUNK 4096
#define SLOTS 64	/* files stay at most SLOTS chunks long */
#define PATTERN 'z'
#define STUCK_AFTER_S 60

struct shared {
	const char *upper;
	const char *lower;
	int pipe[2];
	atomic_bool stop;
	atomic_int failed;
};

struct worker {
	const char *name;
	void *(*fn)(void *);
	const char *dir;	/* for splice_into(): where, and which file */
	const char *file;
	struct shared *sh;
	long done;		/* successful operations */
	pthread_t thread;
	bool joined;
};

static void fail(struct shared *sh, const char *what, const char *path)
{
	fprintf(stderr, "fs-lockorder: %s %s: %s\n", what, path ? path : "",
		strerror(errno));
	atomic_store(&sh->failed, 1);
}

static int open_in(struct shared *sh, const char *dir, const char *name,
		   int flags)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, flags | O_CLOEXEC, 0644);
	if (fd < 0)
		fail(sh, "open", path);
	return fd;
}

static void *feed(void *arg)
{
	struct worker *w = arg;
	char buf[CHUNK];

	memset(buf, PATTERN, sizeof(buf));
	while (!atomic_load(&w->sh->stop)) {
		if (write(w->sh->pipe[1], buf, sizeof(buf)) != sizeof(buf)) {
			fail(w->sh, "write", "pipe");
			break;
		}
		w->done++;
	}
	return NULL;
}

/* Splices from the shared pipe into @fd until the feeder closed it. */
static void splice_from_pipe(struct worker *w, int fd)
{
	long i = 0;

	for (;;) {
		loff_t off = (i++ % SLOTS) * CHUNK;
		ssize_t n = splice(w->sh->pipe[0], NULL, fd, &off, CHUNK, 0);

		if (n == 0)
			return;
		if (n < 0) {
			fail(w->sh, "splice into", w->name);
			return;
		}
		w->done++;
	}
}

/* Splices into a file of the directory the worker names (mount or lower). */
static void *splice_into(void *arg)
{
	struct worker *w = arg;
	int fd = open_in(w->sh, w->dir, w->file, O_WRONLY | O_CREAT);

	if (fd >= 0) {
		splice_from_pipe(w, fd);
		close(fd);
	}
	return NULL;
}

/* sendfile from a lower file into a dazukofs file: do_splice_direct(). */
static void *sendfile_upper(void *arg)
{
	struct worker *w = arg;
	int in = open_in(w->sh, w->sh->lower, "source", O_RDONLY);
	int out = open_in(w->sh, w->sh->upper, "sent-upper", O_WRONLY | O_CREAT);
	long i = 0;

	while (in >= 0 && out >= 0 && !atomic_load(&w->sh->stop)) {
		off_t off = 0;

		if (lseek(out, (i++ % SLOTS) * CHUNK, SEEK_SET) < 0 ||
		    sendfile(out, in, &off, CHUNK) != CHUNK) {
			fail(w->sh, "sendfile into", "sent-upper");
			break;
		}
		w->done++;
	}
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return NULL;
}

static void *copy_upper(void *arg)
{
	struct worker *w = arg;
	int in = open_in(w->sh, w->sh->upper, "source", O_RDONLY);
	int out = open_in(w->sh, w->sh->upper, "copied-upper", O_WRONLY | O_CREAT);
	long i = 0;

	while (in >= 0 && out >= 0 && !atomic_load(&w->sh->stop)) {
		loff_t off_in = 0, off_out = (i++ % SLOTS) * CHUNK;

		if (copy_file_range(in, &off_in, out, &off_out, CHUNK, 0) != CHUNK) {
			fail(w->sh, "copy_file_range into", "copied-upper");
			break;
		}
		w->done++;
	}
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return NULL;
}

static void *freezer(void *arg)
{
	struct worker *w = arg;
	int fd = open(w->sh->lower, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	const struct timespec frozen = { 0, 2 * 1000 * 1000 };

	if (fd < 0) {
		fail(w->sh, "open", w->sh->lower);
		return NULL;
	}
	while (!atomic_load(&w->sh->stop)) {
		if (ioctl(fd, FIFREEZE, 0)) {
			fail(w->sh, "FIFREEZE", w->sh->lower);
			break;
		}
		/* Long enough for writers to pile up against the freeze. */
		nanosleep(&frozen, NULL);
		if (ioctl(fd, FITHAW, 0)) {
			fail(w->sh, "FITHAW", w->sh->lower);
			break;
		}
		w->done++;
	}
	close(fd);
	return NULL;
}

/* Every byte of @name in @dir is PATTERN, and there is at least one. */
static int check_content(struct shared *sh, const char *dir, const char *name)
{
	char buf[CHUNK];
	ssize_t n;
	long total = 0;
	int fd = open_in(sh, dir, name, O_RDONLY);

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != PATTERN) {
				fprintf(stderr, "fs-lockorder: %s/%s: byte %ld is %#x\n",
					dir, name, total + i, (unsigned char)buf[i]);
				close(fd);
				return -1;
			}
		}
		total += n;
	}
	close(fd);
	if (n < 0 || total == 0) {
		fprintf(stderr, "fs-lockorder: %s/%s: %s\n", dir, name,
			n < 0 ? strerror(errno) : "empty");
		return -1;
	}
	return 0;
}

static int make_source(struct shared *sh)
{
	char buf[CHUNK];
	int fd = open_in(sh, sh->lower, "source", O_WRONLY | O_CREAT | O_TRUNC);
	int ret = 0;

	if (fd < 0)
		return -1;
	memset(buf, PATTERN, sizeof(buf));
	if (write(fd, buf, sizeof(buf)) != sizeof(buf) || fsync(fd)) {
		fail(sh, "write", "source");
		ret = -1;
	}
	close(fd);
	return ret;
}

static int join_by(struct worker *w, const struct timespec *deadline)
{
	int err = pthread_timedjoin_np(w->thread, NULL, deadline);

	if (err) {
		fprintf(stderr, "fs-lockorder: %s still stuck %d s after the end: %s\n",
			w->name, STUCK_AFTER_S, strerror(err));
		return -1;
	}
	w->joined = true;
	return 0;
}

int main(int argc, char **argv)
{
	struct shared sh = { 0 };
	struct worker workers[] = {
		{ .name = "splice into the mount", .fn = splice_into,
		  .dir = argv[1], .file = "spliced-upper" },
		{ .name = "splice into the lower", .fn = splice_into,
		  .dir = argv[2], .file = "spliced-lower" },
		{ .name = "sendfile into the mount", .fn = sendfile_upper },
		{ .name = "copy_file_range in the mount", .fn = copy_upper },
		{ .name = "fsfreeze of the lower", .fn = freezer },
	};
	struct worker feeder = { .name = "pipe feeder", .fn = feed };
	const size_t nworkers = sizeof(workers) / sizeof(workers[0]);
	struct timespec deadline;
	int seconds, rc = 0;

	if (argc != 4 || (seconds = atoi(argv[3])) <= 0) {
		fprintf(stderr, "usage: %s UPPER LOWER SECONDS\n", argv[0]);
		return 2;
	}
	sh.upper = argv[1];
	sh.lower = argv[2];
	if (pipe(sh.pipe)) {
		perror("fs-lockorder: pipe");
		return 1;
	}
	if (make_source(&sh))
		return 1;

	feeder.sh = &sh;
	pthread_create(&feeder.thread, NULL, feeder.fn, &feeder);
	for (size_t i = 0; i < nworkers; i++) {
		workers[i].sh = &sh;
		pthread_create(&workers[i].thread, NULL, workers[i].fn, &workers[i]);
	}
	sleep(seconds);	/* the soak's length, not a wait for a condition */
	atomic_store(&sh.stop, true);

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += STUCK_AFTER_S;
	/* The splicers see the end of the pipe once the feeder closed it. */
	if (join_by(&feeder, &deadline) == 0)
		close(sh.pipe[1]);
	else
		rc = 1;
	for (size_t i = 0; i < nworkers; i++)
		if (join_by(&workers[i], &deadline))
			rc = 1;
	if (rc) {
		/* Leave the stuck threads to the kernel log's hung-task report. */
		fprintf(stderr, "fs-lockorder: FAIL: deadlock\n");
		_exit(1);
	}

	for (size_t i = 0; i < nworkers; i++) {
		printf("fs-lockorder: %s: %ld\n", workers[i].name, workers[i].done);
		if (workers[i].done == 0) {
			fprintf(stderr, "fs-lockorder: %s never succeeded\n",
				workers[i].name);
			rc = 1;
		}
	}
	if (atomic_load(&sh.failed))
		rc = 1;
	if (check_content(&sh, sh.upper, "spliced-upper") ||
	    check_content(&sh, sh.lower, "spliced-lower") ||
	    check_content(&sh, sh.lower, "sent-upper") ||
	    check_content(&sh, sh.lower, "copied-upper"))
		rc = 1;
	printf("fs-lockorder: %s\n", rc ? "FAIL" : "PASS");
	return rc;
}
