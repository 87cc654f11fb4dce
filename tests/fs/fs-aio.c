// SPDX-License-Identifier: GPL-2.0
/*
 * fs-aio UPPER LOWER DMNAME: asynchronous I/O through a dazukofs mount
 * (UPPER) stays asynchronous, as on its lower filesystem (LOWER), which
 * lives on the device-mapper device DMNAME.
 *
 * Each case opens aio.dat with O_DIRECT, suspends DMNAME (dmsetup suspend
 * --noflush --nolockfs: the device queues new I/O, the filesystem is not
 * frozen) and submits one read or write, by aio (libaio) and by io_uring
 * (liburing).  The submission must return while the device is still
 * suspended, the completion must not be there yet, and after the resume
 * it must complete with every byte right.  A dazukofs that served an
 * asynchronous kiocb synchronously would wait inside io_submit() for the
 * device: the submission is bounded (SUBMIT_BOUND_S), then the device is
 * resumed so that nothing hangs.  Every case runs on LOWER first: it is the
 * reference, and it proves that the setup can tell the two apart.  (The
 * io_uring write cannot tell: ext4 refuses its nowait attempt, for the
 * time update, and io_uring hands it to a worker either way; it checks the
 * data path.)  Then an aio write by the owner, without CAP_FSETID, clears
 * the setuid bit of the file it writes (file_remove_privs() through the
 * mount's setattr), as on the lower.
 * Prints one PASS/FAIL line per check; exits 1 on any FAIL.
 */
#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <liburing.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fs-check.h"

#define PROG "fs-aio"
#define IO_LEN (64 * 1024)		/* aligned for any logical block size */
#define FILE_LEN (16 * IO_LEN)
#define SUBMIT_BOUND_S 30		/* far above a queued submission's cost */
#define COMPLETE_BOUND_S 120

#define check(ok, ...) do { \
	char what_[512]; \
	snprintf(what_, sizeof(what_), __VA_ARGS__); \
	check_as(PROG, (ok), what_); \
} while (0)

static const char *dm_name;

static void die(const char *what)
{
	fprintf(stderr, PROG ": %s: %s\n", what, strerror(errno));
	exit(1);
}

/* The byte that aio.dat holds at @off when written by setup_file(). */
static unsigned char file_byte(off_t off)
{
	return (unsigned char)(off * 7 + (off >> 12));
}

static int dmsetup(const char *verb)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (!strcmp(verb, "suspend"))
			execlp("dmsetup", "dmsetup", "suspend", "--noflush",
			       "--nolockfs", dm_name, (char *)NULL);
		else
			execlp("dmsetup", "dmsetup", verb, dm_name, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid dmsetup");
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, PROG ": dmsetup %s %s failed\n", verb, dm_name);
		return -1;
	}
	return 0;
}

static void *aligned_buf(void)
{
	void *buf;

	if (posix_memalign(&buf, 4096, IO_LEN))
		die("posix_memalign");
	return buf;
}

static void setup_file(const char *lower)
{
	char path[PATH_MAX];
	unsigned char *buf = malloc(FILE_LEN);
	int fd;

	if (!buf)
		die("malloc");
	for (off_t i = 0; i < FILE_LEN; i++)
		buf[i] = file_byte(i);
	snprintf(path, sizeof(path), "%s/aio.dat", lower);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, buf, FILE_LEN) != FILE_LEN || fsync(fd))
		die("write aio.dat on the lower");
	close(fd);
	free(buf);
}

enum api { API_AIO, API_URING };

struct io_case {
	enum api api;
	bool write;
	const char *where;	/* "lower" or "mount" */
	int fd;
	off_t off;
	unsigned char *buf;
	io_context_t aio;
	struct io_uring ring;
	int submitted;		/* the submission's result */
	int done_pipe[2];	/* the submitter writes one byte when back */
};

static const char *api_name(const struct io_case *c)
{
	return c->api == API_AIO ? "aio" : "io_uring";
}

static void *submit(void *arg)
{
	struct io_case *c = arg;

	if (c->api == API_AIO) {
		struct iocb cb, *cbs[1] = { &cb };

		if (c->write)
			io_prep_pwrite(&cb, c->fd, c->buf, IO_LEN, c->off);
		else
			io_prep_pread(&cb, c->fd, c->buf, IO_LEN, c->off);
		c->submitted = io_submit(c->aio, 1, cbs);
	} else {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&c->ring);

		if (c->write)
			io_uring_prep_write(sqe, c->fd, c->buf, IO_LEN, c->off);
		else
			io_uring_prep_read(sqe, c->fd, c->buf, IO_LEN, c->off);
		c->submitted = io_uring_submit(&c->ring);
	}
	if (write(c->done_pipe[1], "", 1) != 1)
		die("write done pipe");
	return NULL;
}

/* The completion's result if there is one (@wait_s 0: do not wait), or 1. */
static long completion(struct io_case *c, int wait_s)
{
	long res;

	if (c->api == API_AIO) {
		struct timespec ts = { .tv_sec = wait_s };
		struct io_event ev;
		int n = io_getevents(c->aio, wait_s ? 1 : 0, 1, &ev, &ts);

		if (n < 0) {
			errno = -n;
			die("io_getevents");
		}
		return n ? (long)ev.res : 1;
	}
	struct __kernel_timespec kts = { .tv_sec = wait_s };
	struct io_uring_cqe *cqe;
	int err = wait_s ? io_uring_wait_cqe_timeout(&c->ring, &cqe, &kts) :
			   io_uring_peek_cqe(&c->ring, &cqe);

	if (err == -EAGAIN || err == -ETIME)
		return 1;
	if (err) {
		errno = -err;
		die("io_uring wait");
	}
	res = cqe->res;
	io_uring_cqe_seen(&c->ring, cqe);
	return res;
}

static bool data_right(const struct io_case *c, const char *lower)
{
	unsigned char *disk = aligned_buf();
	char path[PATH_MAX];
	bool ok = true;
	int fd;

	if (!c->write) {
		for (int i = 0; i < IO_LEN && ok; i++)
			ok = c->buf[i] == file_byte(c->off + i);
		free(disk);
		return ok;
	}
	snprintf(path, sizeof(path), "%s/aio.dat", lower);
	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0 || pread(fd, disk, IO_LEN, c->off) != IO_LEN)
		die("read back aio.dat on the lower");
	close(fd);
	ok = !memcmp(disk, c->buf, IO_LEN);
	free(disk);
	return ok;
}

static void run_case(struct io_case *c, const char *dir, const char *lower)
{
	const char *op = c->write ? "write" : "read";
	struct pollfd pfd;
	pthread_t thread;
	char path[PATH_MAX];
	bool returned;
	long res;

	snprintf(path, sizeof(path), "%s/aio.dat", dir);
	c->fd = open(path, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (c->fd < 0)
		die(path);
	c->buf = aligned_buf();
	/* The lower's metadata of the range read in before the device stops. */
	if (pread(c->fd, c->buf, IO_LEN, c->off) != IO_LEN)
		die("warm-up pread");
	for (int i = 0; i < IO_LEN; i++)
		c->buf[i] = c->write ? (unsigned char)(i ^ c->off >> 16 ^ 0x5a) : 0xee;
	if (c->api == API_AIO) {
		int err = io_setup(4, &c->aio);

		if (err) {
			errno = -err;
			die("io_setup");
		}
	} else {
		int err = io_uring_queue_init(4, &c->ring, 0);

		if (err) {
			errno = -err;
			die("io_uring_queue_init");
		}
	}
	if (pipe2(c->done_pipe, O_CLOEXEC))
		die("pipe2");

	/*
	 * No journal commit in flight when the device stops (the lower is
	 * mounted with a long commit interval): a write's time update would
	 * wait for that commit's I/O, on the lower as through the mount.
	 */
	if (syncfs(c->fd))
		die("syncfs");
	if (dmsetup("suspend"))
		exit(1);
	if (pthread_create(&thread, NULL, submit, c))
		die("pthread_create");
	pfd = (struct pollfd){ .fd = c->done_pipe[0], .events = POLLIN };
	returned = poll(&pfd, 1, SUBMIT_BOUND_S * 1000) == 1;
	check(returned, "%s: %s %s returned while the device was suspended",
	      c->where, api_name(c), op);
	if (returned) {
		check(c->submitted == 1, "%s: %s %s submitted (%d)", c->where,
		      api_name(c), op, c->submitted);
		res = completion(c, 0);
		check(res == 1,
		      "%s: %s %s not complete while the device was suspended (%ld)",
		      c->where, api_name(c), op, res);
	}
	if (dmsetup("resume"))
		exit(1);
	pthread_join(thread, NULL);
	if (c->submitted != 1) {
		check(false, "%s: %s %s: nothing to complete", c->where,
		      api_name(c), op);
	} else {
		res = completion(c, COMPLETE_BOUND_S);
		/* aio reports an error as a negative res; so does io_uring */
		check(res == IO_LEN, "%s: %s %s completed: %ld bytes", c->where,
		      api_name(c), op, res);
		if (res == IO_LEN)
			check(data_right(c, lower), "%s: %s %s: every byte right",
			      c->where, api_name(c), op);
	}

	if (c->api == API_AIO)
		io_destroy(c->aio);
	else
		io_uring_queue_exit(&c->ring);
	close(c->done_pipe[0]);
	close(c->done_pipe[1]);
	close(c->fd);
	free(c->buf);
}

#define NOBODY 65534

/* In a child as NOBODY: one aio write of 4 KiB at 0 to @path; exit 0 if done. */
static void aio_write_as_nobody(const char *path)
{
	unsigned char *buf = aligned_buf();
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;
	io_context_t ctx = 0;
	int fd;

	memset(buf, 0x11, IO_LEN);
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		_exit(2);
	fd = open(path, O_WRONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0 || io_setup(1, &ctx))
		_exit(3);
	io_prep_pwrite(&cb, fd, buf, 4096, 0);
	if (io_submit(ctx, 1, cbs) != 1 ||
	    io_getevents(ctx, 1, 1, &ev, NULL) != 1 || ev.res != 4096)
		_exit(4);
	_exit(0);
}

static void privs_case(const char *dir, const char *lower, const char *where)
{
	char path[PATH_MAX], lower_path[PATH_MAX];
	unsigned char *buf = aligned_buf();
	struct stat st;
	int fd, status;
	pid_t pid;

	snprintf(lower_path, sizeof(lower_path), "%s/aio-suid-%s.dat", lower,
		 where);
	snprintf(path, sizeof(path), "%s/aio-suid-%s.dat", dir, where);
	memset(buf, 0x22, IO_LEN);
	fd = open(lower_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, buf, IO_LEN) != IO_LEN ||
	    fchown(fd, NOBODY, NOBODY) || fchmod(fd, 04755) || fsync(fd))
		die("setuid file on the lower");
	close(fd);
	free(buf);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0)
		aio_write_as_nobody(path);
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid");
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "%s: aio write by the owner of a setuid file (status %#x)", where,
	      status);
	if (stat(lower_path, &st))
		die("stat setuid file");
	check(!(st.st_mode & S_ISUID),
	      "%s: the aio write cleared the setuid bit (mode %o)", where,
	      st.st_mode & 07777);
}

int main(int argc, char **argv)
{
	const char *dirs[2], *names[2] = { "lower", "mount" };
	int n = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: " PROG " UPPER LOWER DMNAME\n");
		return 2;
	}
	dirs[0] = argv[2];
	dirs[1] = argv[1];
	dm_name = argv[3];
	setup_file(argv[2]);
	for (int where = 0; where < 2; where++) {
		for (int api = API_AIO; api <= API_URING; api++) {
			for (int write = 0; write < 2; write++) {
				struct io_case c = {
					.api = api,
					.write = write,
					.where = names[where],
					.off = (off_t)n++ * IO_LEN,
				};

				run_case(&c, dirs[where], argv[2]);
			}
		}
	}
	for (int where = 0; where < 2; where++)
		privs_case(dirs[where], argv[2], names[where]);
	return check_done(PROG);
}
