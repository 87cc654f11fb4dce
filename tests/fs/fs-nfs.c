// SPDX-License-Identifier: GPL-2.0
/*
 * fs-nfs: a dazukofs mount over an NFSv4 client mount behaves as the
 * client mount does (run as root in the VM by guest-nfs.sh, with the
 * guest's own nfsd exporting SERVER with root_squash).
 *
 * usage: fs-nfs SERVER LOWER UPPER USER_UID
 *   SERVER: the exported directory, on the server's side (owned by
 *   USER_UID); LOWER: the NFS client mount of it; UPPER: dazukofs over
 *   LOWER.  Root is squashed to nobody by the server; USER_UID is not.
 *
 * - unlink through the mount removes the file on the server, without a
 *   sillyrename (.nfsXXXX) when nobody has it open, and with one when
 *   somebody does, as on the client mount;
 * - root gets no access through the mount that the server refuses it;
 * - POSIX, OFD and flock locks taken through the mount are held on the
 *   server: a process there sees them;
 * - a file the worker (root, squashed) cannot open for a user's event is
 *   settled by the group's open_error_action and reported in record
 *   format 2 with fd -EACCES.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fs-check.h"
#include "protocol.h"
#include <uapi/linux/dazukofs.h>

#define PROG "fs-nfs"
#define GROUP "nfs"

static const char *server, *lower, *upper;
static uid_t user;

static void check(int ok, const char *what)
{
	check_as(PROG, ok, what);
}

static const char *at(const char *dir, const char *name)
{
	static char bufs[8][4096];
	static unsigned int n;
	char *b = bufs[n++ % 8];

	snprintf(b, 4096, "%s/%s", dir, name);
	return b;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void nap(void)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

/* Run @fn(@arg) in a child as USER_UID; its exit status, or -1. */
static int as_user(int (*fn)(const void *arg), const void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (setresgid(user, user, user) || setresuid(user, user, user))
			_exit(100);
		_exit(fn(arg));
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int make_file(const void *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, "content\n", 8) != 8)
		return 1;
	return close(fd) ? 1 : 0;
}

static int remove_file(const void *path)
{
	return unlink(path) ? errno : 0;
}

static bool server_has_silly(void)
{
	struct dirent *de;
	bool found = false;
	DIR *d = opendir(server);

	if (!d)
		return true;
	while ((de = readdir(d)))
		found |= !strncmp(de->d_name, ".nfs", 4);
	closedir(d);
	return found;
}

/* Was @name renamed away on the server (IN_MOVED_FROM), and deleted? */
static void server_events(int ino_fd, const char *name, bool *moved,
			  bool *deleted)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	*moved = *deleted = false;
	while ((n = read(ino_fd, buf, sizeof(buf))) > 0) {
		char *p = buf;

		while (p < buf + n) {
			struct inotify_event *ev = (struct inotify_event *)p;

			if (ev->len && !strcmp(ev->name, name)) {
				*moved |= !!(ev->mask & IN_MOVED_FROM);
				*deleted |= !!(ev->mask & IN_DELETE);
			}
			p += sizeof(*ev) + ev->len;
		}
	}
}

/*
 * A file nobody has open, unlinked through @dir (LOWER or UPPER) by the
 * user after a stat through it: removed on the server, not renamed.
 */
static void unlink_closed(const char *dir, const char *name, const char *what)
{
	int ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	const char *path = at(dir, name);
	bool moved, deleted;
	struct stat st;
	char msg[256];

	check(ino >= 0 && inotify_add_watch(ino, server, IN_MOVED_FROM |
					    IN_DELETE) >= 0, "inotify on the server");
	check(as_user(make_file, path) == 0, "the user makes a file");
	check(stat(path, &st) == 0, "stat it (its dentry is cached)");
	check(as_user(remove_file, path) == 0, "the user unlinks it");
	server_events(ino, name, &moved, &deleted);
	snprintf(msg, sizeof(msg), "%s: a closed file unlinked is deleted on the server", what);
	check(deleted, msg);
	snprintf(msg, sizeof(msg), "%s: ... without a sillyrename", what);
	check(!moved && !server_has_silly(), msg);
	close(ino);
}

/*
 * A file open through @dir, unlinked: sillyrenamed (so the open file
 * stays readable), and gone from the server once closed.
 */
static void unlink_open(const char *dir, const char *name, const char *what)
{
	const char *path = at(dir, name);
	long long end;
	char buf[16], msg[256];
	int fd;

	check(as_user(make_file, path) == 0, "the user makes a file");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	check(fd >= 0, "root opens it (0644)");
	check(as_user(remove_file, path) == 0, "the user unlinks it");
	snprintf(msg, sizeof(msg), "%s: an open file unlinked is sillyrenamed", what);
	check(server_has_silly(), msg);
	snprintf(msg, sizeof(msg), "%s: ... and stays readable", what);
	check(pread(fd, buf, sizeof(buf), 0) == 8 && !memcmp(buf, "content\n", 8),
	      msg);
	close(fd);
	end = now_ms() + 20000;
	while (server_has_silly() && now_ms() < end)
		nap();
	snprintf(msg, sizeof(msg), "%s: ... and is deleted on the server after the close", what);
	check(!server_has_silly(), msg);
}

static int open_errno(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0644);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int user_reads(const void *path)
{
	return open_errno(path, O_RDONLY);
}

/*
 * open(O_CREAT) of a name the client has cached as missing, made on the
 * server since (by another client, say): the open finds the server's file
 * and treats it as existing, as the client mount does itself: O_TRUNC
 * empties it, O_EXCL refuses it.  Each run has a directory of its own, so
 * that the client's cache of it is as fresh in both.  Root is squashed to
 * nobody: the directory and the files let anyone write.
 */
static void create_server_made(const char *dir, const char *what)
{
	const char *sub = dir == upper ? "made-on-server-upper" :
					 "made-on-server-lower";
	char name[96], msg[256];
	struct stat st;
	int fd;

	mkdir(at(server, sub), 0777);
	check(chmod(at(server, sub), 0777) == 0,
	      "chmod the directory on the server");
	snprintf(name, sizeof(name), "%s/trunc", sub);
	snprintf(msg, sizeof(msg), "%s: the name is missing at first", what);
	check(stat(at(dir, name), &st) == -1 && errno == ENOENT, msg);
	check(make_file(at(server, name)) == 0 &&
	      chmod(at(server, name), 0666) == 0, "a file made on the server");

	fd = open(at(dir, name), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	snprintf(msg, sizeof(msg),
		 "%s: open(O_CREAT | O_TRUNC) of the server's file works (%s)",
		 what, fd >= 0 ? "yes" : strerror(errno));
	check(fd >= 0, msg);
	snprintf(msg, sizeof(msg),
		 "%s: open(O_CREAT | O_TRUNC) empties the server's file", what);
	check(fd >= 0 && fstat(fd, &st) == 0 && st.st_size == 0, msg);
	if (fd >= 0)
		close(fd);
	snprintf(msg, sizeof(msg), "%s: the server sees it emptied", what);
	check(stat(at(server, name), &st) == 0 && st.st_size == 0, msg);

	snprintf(name, sizeof(name), "%s/excl", sub);
	snprintf(msg, sizeof(msg), "%s: the O_EXCL name is missing at first",
		 what);
	check(stat(at(dir, name), &st) == -1 && errno == ENOENT, msg);
	check(make_file(at(server, name)) == 0, "a second file made on the server");
	snprintf(msg, sizeof(msg),
		 "%s: open(O_CREAT | O_EXCL) of the server's file: EEXIST", what);
	check(open_errno(at(dir, name), O_WRONLY | O_CREAT | O_EXCL) == EEXIST,
	      msg);
}

/* Root is nobody on the server: the mount gives it no more. */
static void root_squashed(void)
{
	const char *s = at(server, "secret");
	int fd = open(s, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	check(fd >= 0 && write(fd, "secret\n", 7) == 7 && fchown(fd, user, user) == 0,
	      "a 0600 file of the user's on the server");
	if (fd >= 0)
		close(fd);
	check(open_errno(at(lower, "secret"), O_RDONLY) == EACCES,
	      "root cannot read it on the client mount");
	check(open_errno(at(upper, "secret"), O_RDONLY) == EACCES,
	      "root cannot read it through dazukofs either");
	check(as_user(user_reads, at(upper, "secret")) == 0,
	      "the user reads it through dazukofs");
	check(open_errno(at(upper, "root-made"), O_WRONLY | O_CREAT) == EACCES &&
	      access(at(server, "root-made"), F_OK) != 0,
	      "root cannot create in the user's directory through dazukofs");
}

/* Is a write lock held on the server's copy of @name by someone else? */
static bool server_sees_lock(const char *name)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd = open(at(server, name), O_RDWR | O_CLOEXEC);
	bool locked;

	if (fd < 0)
		return false;
	locked = !fcntl(fd, F_GETLK, &fl) && fl.l_type != F_UNLCK;
	close(fd);
	return locked;
}

enum lock_kind { LOCK_POSIX, LOCK_OFD, LOCK_FLOCK };

struct lock_job {
	const char *path;
	enum lock_kind kind;
	int ready[2];	/* the child says "locked" */
	int done[2];	/* the parent says "unlock" */
};

static int lock_and_hold(const void *arg)
{
	const struct lock_job *job = arg;
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd = open(job->path, O_RDWR | O_CLOEXEC), err;
	char c = 0;

	if (fd < 0)
		return 1;
	switch (job->kind) {
	case LOCK_POSIX:
		/* during the server's grace period LOCK waits: so do we */
		err = fcntl(fd, F_SETLKW, &fl);
		break;
	case LOCK_OFD:
		err = fcntl(fd, F_OFD_SETLKW, &fl);
		break;
	default:
		err = flock(fd, LOCK_EX);
		break;
	}
	if (err || write(job->ready[1], "l", 1) != 1 ||
	    read(job->done[0], &c, 1) != 1)
		return 2;
	/* closing drops every kind of lock */
	return close(fd) ? 3 : 0;
}

static int make_lock_file(const void *path)
{
	return make_file(path);
}

static void locks_reach_server(enum lock_kind kind, const char *what)
{
	struct lock_job job = { .path = at(upper, "lk"), .kind = kind };
	char c, msg[256];
	long long end;
	pid_t pid;
	int status;

	check(as_user(make_lock_file, job.path) == 0, "the user makes a file to lock");
	if (pipe(job.ready) || pipe(job.done)) {
		check(0, "pipes");
		return;
	}
	pid = fork();
	if (pid == 0) {
		if (setresgid(user, user, user) || setresuid(user, user, user))
			_exit(100);
		_exit(lock_and_hold(&job));
	}
	close(job.ready[1]);
	close(job.done[0]);
	snprintf(msg, sizeof(msg), "%s through dazukofs taken", what);
	check(read(job.ready[0], &c, 1) == 1, msg);
	snprintf(msg, sizeof(msg), "%s through dazukofs is held on the server", what);
	check(server_sees_lock("lk"), msg);
	check(write(job.done[1], "u", 1) == 1, "tell the locker to close");
	check(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0, "the locker closed its file");
	end = now_ms() + 20000;
	while (server_sees_lock("lk") && now_ms() < end)
		nap();
	snprintf(msg, sizeof(msg), "%s released on the server at the close", what);
	check(!server_sees_lock("lk"), msg);
	close(job.ready[0]);
	close(job.done[1]);
}

static bool kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma > major || (ma == major && mi >= minor);
}

/*
 * The worker is root, which the server squashes: its fd for the user's
 * 0600 file cannot be opened.  Format 2 says so (fd -EACCES) and the
 * group's open_error_action (deny) settles the open.
 */
static int cfg_write(const char *attr, const char *value)
{
	int fd = open(at(DAZUKOFS_CONFIGFS_ROOT "/" GROUP, attr), O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, value, strlen(value));
	close(fd);
	return n == (ssize_t)strlen(value) ? 0 : -1;
}

static void worker_cannot_open(void)
{
	struct pollfd pfd = { .events = POLLIN };
	struct dazukofs_proto_record rec = { .fd = 0 };
	char buf[DAZUKOFS_RECORD_MAX + 1], idtext[16], dev[64];
	int idfd, n = -1, status = -1;
	pid_t pid;

	if (mkdir(DAZUKOFS_CONFIGFS_ROOT "/" GROUP, 0755)) {
		check(0, "mkdir the group");
		return;
	}
	idfd = open(DAZUKOFS_CONFIGFS_ROOT "/" GROUP "/id", O_RDONLY | O_CLOEXEC);
	if (idfd >= 0) {
		n = (int)read(idfd, idtext, sizeof(idtext) - 1);
		close(idfd);
	}
	check(n > 0 && cfg_write("record", "2") == 0, "a format-2 group");
	idtext[n > 0 ? n : 0] = '\0';
	snprintf(dev, sizeof(dev), DAZUKOFS_DEV_PREFIX "%d", atoi(idtext));
	pfd.fd = open(dev, O_RDWR | O_CLOEXEC);
	check(pfd.fd >= 0, "the worker opens the group device");

	pid = fork();
	if (pid == 0) {
		if (setresgid(user, user, user) || setresuid(user, user, user))
			_exit(100);
		_exit(open_errno(at(upper, "secret"), O_RDONLY));
	}
	check(poll(&pfd, 1, 20000) == 1, "the user's open makes an event");
	n = (int)read(pfd.fd, buf, DAZUKOFS_RECORD_MAX);
	check(n > 0 && !dazukofs_proto_parse_record(buf, (size_t)n, &rec),
	      "a format-2 record");
	if (n > 0) {
		buf[n] = '\0';
		printf("%s: record: %s", PROG, buf);
	}
	check(rec.fd == -EACCES && rec.pid == pid && rec.uid == user,
	      "it reports the worker's EACCES (root_squash) with the user's uid");
	if (kernel_at_least(6, 3))
		check(rec.change != 0,
		      "its change is NFS's change attribute (statx's change cookie, 6.3+)");
	check(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == EPERM,
	      "open_error_action (deny) settled the user's open");
	close(pfd.fd);
	check(rmdir(DAZUKOFS_CONFIGFS_ROOT "/" GROUP) == 0, "rmdir the group");
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: %s SERVER LOWER UPPER USER_UID\n", PROG);
		return 2;
	}
	server = argv[1];
	lower = argv[2];
	upper = argv[3];
	user = (uid_t)atoi(argv[4]);
	signal(SIGPIPE, SIG_IGN);

	unlink_closed(lower, "u-lower", "client mount (control)");
	unlink_closed(upper, "u-upper", "dazukofs");
	unlink_open(lower, "o-lower", "client mount (control)");
	unlink_open(upper, "o-upper", "dazukofs");
	root_squashed();
	create_server_made(lower, "client mount (control)");
	create_server_made(upper, "dazukofs");
	locks_reach_server(LOCK_POSIX, "a POSIX lock");
	locks_reach_server(LOCK_OFD, "an OFD lock");
	locks_reach_server(LOCK_FLOCK, "a flock");
	worker_cannot_open();
	return check_done(PROG);
}
