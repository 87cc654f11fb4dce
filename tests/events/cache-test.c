// SPDX-License-Identifier: GPL-2.0
/*
 * cache-test LOWER MNT [FILTER | --remembers-nothing | --image IMAGE]: the
 * verdict cache, as root in the VM.
 *
 * The test is the group's only worker: it reads each event itself, decides
 * by the file's content as the event's fd shows it (the word EVIL means
 * infected) and answers "remember".  Every change a file can go through
 * after a clean verdict was remembered -- through the mount or on the
 * lower directly -- turns it infected, and the next open must be denied
 * by a new event, never allowed from the cache.
 *
 * The test process holds /dev/dazukofs.ign, so that its own changes made
 * through the mount make no events; the openers are forked children, which
 * the exemption does not cover.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <liburing.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "become-nobody.h"
#include "ev.h"

#define GROUP "cachetest"
#define CLEAN "clean file, nothing to see here.\n"
#define EVIL  "EVIL file, a virus would be here\n"
/* A change of content alone, same size: only the change itself can tell. */
_Static_assert(sizeof(CLEAN) == sizeof(EVIL), "CLEAN and EVIL differ in size");

static const char *lower, *mnt;
static int devfd = -1;

static void path_in(char *buf, size_t size, const char *dir, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
}

static void put_file(const char *dir, const char *name, const char *content)
{
	char path[512];
	int fd;

	path_in(path, sizeof(path), dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, strlen(content)),
			 (ssize_t)strlen(content));
	assert_int_equal(close(fd), 0);
}

static int answer_by_content(const struct dazukofs_proto_event *ev)
{
	char buf[256];
	ssize_t n = pread(ev->fd, buf, sizeof(buf) - 1, 0);

	assert_true(n >= 0);
	buf[n] = '\0';
	return strstr(buf, "EVIL") ? DAZUKOFS_DENY : DAZUKOFS_ALLOW;
}

/*
 * Wait until the coarse clock, which stamps files, is past MNT/NAME's
 * mtime: a worker's view taken in the tick of the file's last change is
 * racy, and an allow on it is never remembered.  A file that does not
 * exist yet has no tick to wait for.
 */
static void wait_past_mtime(const char *name)
{
	long long end = ev_now_ms() + 10000;
	struct timespec now;
	char path[512];
	struct stat st;

	path_in(path, sizeof(path), mnt, name);
	if (stat(path, &st)) {
		assert_int_equal(errno, ENOENT);
		return;
	}
	for (;;) {
		assert_int_equal(clock_gettime(CLOCK_REALTIME_COARSE, &now), 0);
		if (now.tv_sec > st.st_mtim.tv_sec ||
		    (now.tv_sec == st.st_mtim.tv_sec &&
		     now.tv_nsec > st.st_mtim.tv_nsec))
			return;
		assert_true(ev_now_ms() < end);
		usleep(1000);
	}
}

/*
 * Serve the group until child @pid exits: every event is answered by
 * content, remembered.  Return: the child's exit code (ev_opener_wait());
 * *events: how many events it made.
 */
static int serve_until_exit(pid_t pid, int *events)
{
	int rc;

	*events = 0;
	for (;;) {
		struct dazukofs_proto_event ev;

		rc = ev_opener_wait(pid, 20);
		if (rc != EV_TIMEOUT)
			return rc;
		if (ev_read(devfd, &ev, 20))
			continue;
		(*events)++;
		assert_int_equal(ev_answer_keep(devfd, ev.id,
						 answer_by_content(&ev), 1), 0);
		close(ev.fd);
	}
}

/*
 * Serve the group, as serve_until_exit(), until @fd is readable (at most
 * 30 s).  Return: 0, or -1 on the time limit.
 */
static int serve_until_readable(int fd)
{
	long long end = ev_now_ms() + 30000;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	while (poll(&pfd, 1, 0) == 0) {
		struct dazukofs_proto_event ev;

		if (ev_now_ms() > end)
			return -1;
		if (ev_read(devfd, &ev, 20))
			continue;
		assert_int_equal(ev_answer_keep(devfd, ev.id,
						 answer_by_content(&ev), 1), 0);
		close(ev.fd);
	}
	return 0;
}

/*
 * Open MNT/NAME with @flags in a child while serving the group: every
 * event is answered by content, remembered.  Return: the open's errno (0
 * if it opened); *events: how many events it made.
 */
static int open_served_flags(const char *name, int flags, int *events)
{
	char path[512];
	pid_t pid;
	int rc;

	path_in(path, sizeof(path), mnt, name);
	wait_past_mtime(name);
	pid = ev_opener_flags(path, flags);
	assert_true(pid > 0);
	rc = serve_until_exit(pid, events);
	assert_true(rc >= 0);
	return rc;
}

static int open_served(const char *name, int *events)
{
	return open_served_flags(name, O_RDONLY, events);
}

/*
 * execve() MNT/NAME in a child, as nobody, while serving the group
 * (serve_until_exit()).  Return: 0 if the program ran and exited 0,
 * EPERM if the exec was refused; *events: how many events it made.
 */
static int exec_served(const char *name, int *events)
{
	char path[512];
	pid_t pid;
	int rc;

	path_in(path, sizeof(path), mnt, name);
	wait_past_mtime(name);
	pid = fork();
	if (pid == 0) {
		if (become_nobody(false))
			_exit(102);
		execl(path, path, (char *)NULL);
		_exit(errno == EPERM ? 100 : 101);
	}
	assert_true(pid > 0);
	rc = serve_until_exit(pid, events);
	assert_true(rc == 0 || rc == 100);
	return rc == 100 ? EPERM : 0;
}

/* A clean file whose allow is remembered: the second open makes no event. */
static void cached_clean(const char *name)
{
	int events;

	put_file(mnt, name, CLEAN);
	assert_int_equal(open_served(name, &events), 0);
	assert_int_equal(events, 1);
	assert_int_equal(open_served(name, &events), 0);
	assert_int_equal(events, 0);
}

/* After a change that made it infected, the open is denied by a new event. */
static void assert_denied_anew(const char *name)
{
	int events;

	assert_int_equal(open_served(name, &events), EPERM);
	assert_int_equal(events, 1);
	/* ... and that deny is remembered in turn. */
	assert_int_equal(open_served(name, &events), EPERM);
	assert_int_equal(events, 0);
}

static void remembered_allow_makes_no_event(void **state)
{
	long long hits = ev_ctr(GROUP, "cache_hits");
	long long events = ev_ctr(GROUP, "events");
	int n, i;

	(void)state;
	cached_clean("allow");
	for (i = 0; i < 3; i++) {
		assert_int_equal(open_served("allow", &n), 0);
		assert_int_equal(n, 0);
	}
	assert_int_equal(ev_ctr(GROUP, "events"), events + 1);
	assert_int_equal(ev_ctr(GROUP, "cache_hits"), hits + 4);
}

static void remembered_deny(void **state)
{
	long long hits = ev_ctr(GROUP, "cache_hits");
	int n;

	(void)state;
	put_file(mnt, "deny", EVIL);
	assert_int_equal(open_served("deny", &n), EPERM);
	assert_int_equal(n, 1);
	assert_int_equal(open_served("deny", &n), EPERM);
	assert_int_equal(n, 0);
	assert_int_equal(ev_ctr(GROUP, "cache_hits"), hits + 1);
}

/*
 * Of the verdicts on an open that writes or creates the file, only a deny
 * is remembered (the kernel takes no view of such a file): after an allow
 * the next open asks again, after a deny it does not.
 */
static void write_open_remembers_deny_only(void **state)
{
	static const struct {
		const char *name, *content;
		int flags, err;
	} cases[] = {
		{ "wo-allow", CLEAN, O_WRONLY, 0 },
		{ "wo-created", NULL, O_WRONLY | O_CREAT, 0 },
		{ "wo-rdwr-deny", EVIL, O_RDWR, EPERM },
		{ "wo-trunc-deny", EVIL, O_WRONLY | O_TRUNC, EPERM },
	};
	long long inval, hits;
	char path[512];
	size_t i;
	int n;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		path_in(path, sizeof(path), lower, cases[i].name);
		unlink(path);
		if (cases[i].content)
			put_file(mnt, cases[i].name, cases[i].content);
		inval = ev_ctr(GROUP, "cache_invalidations");
		hits = ev_ctr(GROUP, "cache_hits");
		assert_int_equal(open_served_flags(cases[i].name,
						   cases[i].flags, &n),
				 cases[i].err);
		assert_int_equal(n, 1);
		/* An allow was never stored, so the writer's close drops none. */
		assert_int_equal(ev_ctr(GROUP, "cache_invalidations"), inval);
		assert_int_equal(open_served(cases[i].name, &n), cases[i].err);
		assert_int_equal(n, cases[i].err ? 0 : 1);
		assert_int_equal(open_served(cases[i].name, &n), cases[i].err);
		assert_int_equal(n, 0);
		assert_int_equal(ev_ctr(GROUP, "cache_hits"),
				 hits + (cases[i].err ? 2 : 1));
		if (!cases[i].err)
			continue;
		/* That deny goes with the file's next change. */
		put_file(mnt, cases[i].name, CLEAN);
		assert_int_equal(open_served(cases[i].name, &n), 0);
		assert_int_equal(n, 1);
	}
}

static void write_at(const char *dir, const char *name, int flags)
{
	char path[512];
	int fd;

	path_in(path, sizeof(path), dir, name);
	fd = open(path, O_WRONLY | O_CLOEXEC | flags);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, EVIL, strlen(EVIL), 0), (ssize_t)strlen(EVIL));
	assert_int_equal(close(fd), 0);
}

static void write_through_mount(void **state)
{
	(void)state;
	cached_clean("w-mnt");
	write_at(mnt, "w-mnt", 0);
	assert_denied_anew("w-mnt");
}

/* Same size, at once (within the clock tick), no dazukofs file open. */
static void write_lower_directly(void **state)
{
	(void)state;
	cached_clean("w-lower");
	write_at(lower, "w-lower", 0);
	assert_denied_anew("w-lower");
}

static void o_trunc(void **state)
{
	char path[512];
	int fd;

	(void)state;
	cached_clean("trunc");
	path_in(path, sizeof(path), mnt, "trunc");
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, EVIL, strlen(EVIL)), (ssize_t)strlen(EVIL));
	assert_int_equal(close(fd), 0);
	assert_denied_anew("trunc");
}

/* Write @content through a shared mapping of DIR/NAME, then unmap. */
static void mmap_write(const char *dir, const char *name, const char *content)
{
	size_t len = strlen(content);
	char path[512], *map;
	int fd;

	path_in(path, sizeof(path), dir, name);
	fd = open(path, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(map != MAP_FAILED);
	memcpy(map, content, len);
	assert_int_equal(munmap(map, len), 0);
	assert_int_equal(close(fd), 0);
}

/*
 * A write through a shared mapping into a page already dirty when the
 * verdict was remembered: it changes no timestamp (on tmpfs, none at all).
 * The page is dirtied on the lower: after a shared writable mapping
 * through the mount no allow is remembered on the file at all.
 */
static void mmap_dirty_page(const char *dir, const char *name)
{
	int events;

	put_file(mnt, name, CLEAN);
	mmap_write(lower, name, CLEAN);		/* the page is dirty now */
	assert_int_equal(open_served(name, &events), 0);
	assert_int_equal(events, 1);
	assert_int_equal(open_served(name, &events), 0);
	assert_int_equal(events, 0);
	mmap_write(dir, name, EVIL);
	assert_denied_anew(name);
}

static void mmap_dirty_page_through_mount(void **state)
{
	(void)state;
	mmap_dirty_page(mnt, "mmap-mnt");
}

static void mmap_dirty_page_on_lower(void **state)
{
	(void)state;
	mmap_dirty_page(lower, "mmap-lower");
}

/*
 * A shared mapping through the mount that may write (here read-only, but
 * of a file open for writing: mprotect() could make it writable) leaves
 * no trace once gone, except page references taken through it: no allow
 * is remembered on the file afterwards.  A deny still is.
 */
static void shared_mapping_forgoes_allows(void **state)
{
	char path[512], *map;
	int fd, events, i;

	(void)state;
	put_file(mnt, "shared-map", CLEAN);
	path_in(path, sizeof(path), mnt, "shared-map");
	fd = open(path, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	map = mmap(NULL, strlen(CLEAN), PROT_READ, MAP_SHARED, fd, 0);
	assert_true(map != MAP_FAILED);
	assert_int_equal(munmap(map, strlen(CLEAN)), 0);
	assert_int_equal(close(fd), 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(open_served("shared-map", &events), 0);
		assert_int_equal(events, 1);
	}
	put_file(mnt, "shared-map", EVIL);
	assert_denied_anew("shared-map");
}

/* While a writable shared mapping lives, no verdict is used. */
static void live_writable_mapping(void **state)
{
	size_t len = strlen(EVIL);
	char path[512], *map;
	int fd, events;

	(void)state;
	cached_clean("mapped");
	path_in(path, sizeof(path), lower, "mapped");
	fd = open(path, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(map != MAP_FAILED);
	assert_int_equal(close(fd), 0);
	memcpy(map, EVIL, len);
	/* Not remembered while the mapping may still write. */
	assert_int_equal(open_served("mapped", &events), EPERM);
	assert_int_equal(events, 1);
	assert_int_equal(open_served("mapped", &events), EPERM);
	assert_int_equal(events, 1);
	assert_int_equal(munmap(map, len), 0);
}

/*
 * Pin MNT/NAME's first page for I/O as an attacker would: map it shared
 * and writable, register the mapping as an io_uring buffer, unmap and
 * close.  The pinned page outlives all that.
 */
static void pin_file_page(const char *name, struct io_uring *ring,
			  struct iovec *iov)
{
	char path[512];
	int fd;

	path_in(path, sizeof(path), mnt, name);
	fd = open(path, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	iov->iov_len = strlen(EVIL);
	iov->iov_base = mmap(NULL, iov->iov_len, PROT_READ | PROT_WRITE,
			     MAP_SHARED, fd, 0);
	assert_true(iov->iov_base != MAP_FAILED);
	assert_int_equal(io_uring_queue_init(2, ring, 0), 0);
	assert_int_equal(io_uring_register_buffers(ring, iov, 1), 0);
	assert_int_equal(munmap(iov->iov_base, iov->iov_len), 0);
	assert_int_equal(close(fd), 0);
}

/* Write EVIL into the pinned page: no writer, no event, no new stamp. */
static void write_through_pin(struct io_uring *ring, const struct iovec *iov)
{
	char src[] = "/tmp/cache-test-pin-XXXXXX";
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int srcfd = mkstemp(src);

	assert_true(srcfd >= 0);
	assert_int_equal(unlink(src), 0);
	assert_int_equal(pwrite(srcfd, EVIL, iov->iov_len, 0),
			 (ssize_t)iov->iov_len);
	sqe = io_uring_get_sqe(ring);
	assert_non_null(sqe);
	io_uring_prep_read_fixed(sqe, srcfd, iov->iov_base, iov->iov_len, 0, 0);
	assert_int_equal(io_uring_submit(ring), 1);
	assert_int_equal(io_uring_wait_cqe(ring, &cqe), 0);
	assert_int_equal(cqe->res, (int)iov->iov_len);
	io_uring_cqe_seen(ring, cqe);
	assert_int_equal(close(srcfd), 0);
}

/*
 * A page pinned for I/O can be written with no writer, no event and no
 * change of the stamp.  The attacker pins the file's page, lets the clean
 * file be scanned and remembered, then writes the virus through the pin.
 * The next open must be scanned again.
 */
static void pinned_page_write(void **state)
{
	struct io_uring ring;
	struct iovec iov;
	int events;

	(void)state;
	put_file(mnt, "pinned", CLEAN);
	pin_file_page("pinned", &ring, &iov);
	/* Scanned clean; the worker asks to remember it. */
	assert_int_equal(open_served("pinned", &events), 0);
	assert_int_equal(events, 1);
	write_through_pin(&ring, &iov);
	/* The file is infected now: no remembered allow may let it through. */
	assert_int_equal(open_served("pinned", &events), EPERM);
	assert_int_equal(events, 1);
	io_uring_queue_exit(&ring);
}

/*
 * The same, with the pin gone before the answer: the virus is written
 * while the worker is scanning (after it read the clean content) and the
 * buffer unregistered before it answers "allow, remember".
 */
static void pinned_page_write_during_scan(void **state)
{
	struct dazukofs_proto_event ev;
	struct io_uring ring;
	char path[512];
	struct iovec iov;
	int events;
	pid_t pid;

	(void)state;
	put_file(mnt, "pinned-scan", CLEAN);
	pin_file_page("pinned-scan", &ring, &iov);
	wait_past_mtime("pinned-scan");
	path_in(path, sizeof(path), mnt, "pinned-scan");
	pid = ev_opener(path);
	assert_true(pid > 0);
	assert_int_equal(ev_read(devfd, &ev, 10000), 0);
	assert_int_equal(answer_by_content(&ev), DAZUKOFS_ALLOW);
	write_through_pin(&ring, &iov);
	assert_int_equal(io_uring_unregister_buffers(&ring), 0);
	io_uring_queue_exit(&ring);
	assert_int_equal(ev_answer_keep(devfd, ev.id, DAZUKOFS_ALLOW, 1), 0);
	close(ev.fd);
	assert_int_equal(ev_opener_wait(pid, 10000), 0);
	assert_int_equal(open_served("pinned-scan", &events), EPERM);
	assert_int_equal(events, 1);
}

static void rename_over(void **state)
{
	char from[512], to[512];

	(void)state;
	cached_clean("renamed");
	put_file(lower, "renamed.new", EVIL);
	path_in(from, sizeof(from), mnt, "renamed.new");
	path_in(to, sizeof(to), mnt, "renamed");
	assert_int_equal(rename(from, to), 0);
	assert_denied_anew("renamed");
}

static void xattr_set(void **state)
{
	long long inval = ev_ctr(GROUP, "cache_invalidations");
	char path[512];
	int events;

	(void)state;
	cached_clean("xattr");
	path_in(path, sizeof(path), mnt, "xattr");
	/* trusted.*: tmpfs has it on every kernel, user.* only since 6.6. */
	assert_int_equal(setxattr(path, "trusted.dazukofs_test", "1", 1, 0), 0);
	assert_int_equal(ev_ctr(GROUP, "cache_invalidations"), inval + 1);
	assert_int_equal(open_served("xattr", &events), 0);
	assert_int_equal(events, 1);
}

static void chmod_invalidates(void **state)
{
	char path[512];
	int events;

	(void)state;
	cached_clean("chmod");
	path_in(path, sizeof(path), lower, "chmod");
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(open_served("chmod", &events), 0);
	assert_int_equal(events, 1);
}

static void copy_range_into(void **state)
{
	char src[512], dst[512];
	int in, out;

	(void)state;
	cached_clean("copied");
	put_file(lower, "copy-src", EVIL);
	path_in(src, sizeof(src), mnt, "copy-src");
	path_in(dst, sizeof(dst), mnt, "copied");
	in = open(src, O_RDONLY | O_CLOEXEC);
	assert_true(in >= 0);
	out = open(dst, O_WRONLY | O_CLOEXEC);
	assert_true(out >= 0);
	assert_int_equal(copy_file_range(in, NULL, out, NULL, strlen(EVIL), 0),
			 (ssize_t)strlen(EVIL));
	close(in);
	assert_int_equal(close(out), 0);
	assert_denied_anew("copied");
}

static void flush_forgets(void **state)
{
	int fd, events;

	(void)state;
	cached_clean("flush");
	fd = open(DAZUKOFS_CONFIGFS_ROOT "/" GROUP "/flush", O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "2", 1), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(write(fd, "1", 1), 1);
	close(fd);
	assert_int_equal(open_served("flush", &events), 0);
	assert_int_equal(events, 1);
	assert_int_equal(open_served("flush", &events), 0);
	assert_int_equal(events, 0);
}

/* A writer that comes and goes while the worker holds the event. */
static void writer_during_scan_not_remembered(void **state)
{
	struct dazukofs_proto_event ev;
	char path[512];
	pid_t pid;
	int rc;

	(void)state;
	put_file(mnt, "racy", CLEAN);
	path_in(path, sizeof(path), mnt, "racy");
	pid = ev_opener(path);
	assert_int_equal(ev_read(devfd, &ev, 10000), 0);
	assert_int_equal(answer_by_content(&ev), DAZUKOFS_ALLOW);
	write_at(lower, "racy", 0);		/* now infected */
	assert_int_equal(ev_answer_keep(devfd, ev.id, DAZUKOFS_ALLOW, 1), 0);
	close(ev.fd);
	rc = ev_opener_wait(pid, 10000);
	assert_int_equal(rc, 0);		/* that open got its answer */
	assert_denied_anew("racy");
}

/* Write @words to the group's events attribute: 0 or the errno. */
static int set_events(const char *words)
{
	int fd = open(DAZUKOFS_CONFIGFS_ROOT "/" GROUP "/events",
		      O_WRONLY | O_CLOEXEC);
	ssize_t n;

	assert_true(fd >= 0);
	n = write(fd, words, strlen(words));
	close(fd);
	return n == (ssize_t)strlen(words) ? 0 : errno;
}

static void assert_events_attr(const char *want)
{
	char buf[64];
	int fd = open(DAZUKOFS_CONFIGFS_ROOT "/" GROUP "/events",
		      O_RDONLY | O_CLOEXEC);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, want);
}

/* Each test below chooses the group's events; the rest expect "open". */
static int events_default(void **state)
{
	(void)state;
	return set_events("open");
}

static void events_attribute(void **state)
{
	(void)state;
	assert_events_attr("open\n");
	assert_int_equal(set_events("close_write  open\n"), 0);
	assert_events_attr("open close_write\n");
	assert_int_equal(set_events("exec"), 0);
	assert_events_attr("exec\n");
	assert_int_equal(set_events("opne"), EINVAL);
	assert_int_equal(set_events("open bogus"), EINVAL);
	assert_int_equal(set_events("open_"), EINVAL);
	assert_int_equal(set_events(" \n"), EINVAL);
	assert_events_attr("exec\n");
}

enum write_how { WRITE_PLAIN, WRITE_MMAP, WRITE_TRUNCATE };

/* Fork a process that changes MNT/NAME as @how says and closes it. */
static pid_t writer(const char *name, enum write_how how, const char *content)
{
	char path[512];
	pid_t pid;

	path_in(path, sizeof(path), mnt, name);
	pid = fork();
	if (pid == 0) {
		size_t len = strlen(content);
		int fd = open(path, how == WRITE_MMAP ? O_RDWR : O_WRONLY);
		char *map;

		if (fd < 0)
			_exit(1);
		switch (how) {
		case WRITE_PLAIN:
			if (pwrite(fd, content, len, 0) != (ssize_t)len)
				_exit(2);
			break;
		case WRITE_MMAP:
			map = mmap(NULL, len, PROT_READ | PROT_WRITE,
				   MAP_SHARED, fd, 0);
			if (map == MAP_FAILED)
				_exit(3);
			memcpy(map, content, len);
			if (munmap(map, len))
				_exit(4);
			break;
		case WRITE_TRUNCATE:
			if (ftruncate(fd, 0))
				_exit(5);
			break;
		}
		_exit(close(fd) ? 6 : 0);
	}
	return pid;
}

/*
 * A writer changed MNT/NAME and closed it without waiting for anyone: the
 * close is then an event of its own, whose pid is the writer's.
 */
static void close_event(const char *name, enum write_how how,
			const char *content, struct dazukofs_proto_event *ev)
{
	long long posted = ev_ctr(GROUP, "close_writes");
	pid_t pid = writer(name, how, content);

	assert_true(pid > 0);
	assert_int_equal(ev_opener_wait(pid, 10000), 0);
	assert_int_equal(ev_ctr(GROUP, "close_writes"), posted + 1);
	/* The event's fd is opened at the read: its view must not be racy. */
	wait_past_mtime(name);
	assert_int_equal(ev_read(devfd, ev, 10000), 0);
	assert_int_equal(ev->pid, pid);
}

/* Open MNT/NAME with open events on: errno, and *events as open_served(). */
static int open_with_events(const char *name, int *events)
{
	int rc;

	assert_int_equal(set_events("open close_write"), 0);
	rc = open_served(name, events);
	assert_int_equal(set_events("close_write"), 0);
	return rc;
}

/* Found infected at its close: the deny is remembered without asking. */
static void close_write_deny_remembered(enum write_how how, const char *name)
{
	struct dazukofs_proto_event ev;
	int events;

	cached_clean(name);
	assert_int_equal(set_events("close_write"), 0);
	close_event(name, how, EVIL, &ev);
	assert_int_equal(answer_by_content(&ev), DAZUKOFS_DENY);
	assert_int_equal(ev_answer(devfd, ev.id, DAZUKOFS_DENY), 0);
	close(ev.fd);
	assert_int_equal(open_with_events(name, &events), EPERM);
	assert_int_equal(events, 0);
}

static void close_write_after_write(void **state)
{
	(void)state;
	close_write_deny_remembered(WRITE_PLAIN, "cw-write");
}

static void close_write_after_mmap_write(void **state)
{
	(void)state;
	close_write_deny_remembered(WRITE_MMAP, "cw-mmap");
}

/* A group without open events still denies a file found bad at its close. */
static void close_write_only_denies_opens(void **state)
{
	struct dazukofs_proto_event ev;
	long long events = ev_ctr(GROUP, "events");
	char path[512];

	(void)state;
	put_file(mnt, "cw-only", CLEAN);
	assert_int_equal(set_events("close_write"), 0);
	close_event("cw-only", WRITE_PLAIN, EVIL, &ev);
	assert_int_equal(ev_answer(devfd, ev.id, DAZUKOFS_DENY), 0);
	close(ev.fd);
	path_in(path, sizeof(path), mnt, "cw-only");
	assert_int_equal(ev_opener_wait(ev_opener(path), 10000), EPERM);
	assert_int_equal(ev_ctr(GROUP, "events"), events + 1);
}

/* An allow at the close is remembered only when the worker asks. */
static void close_write_allow(void **state)
{
	struct dazukofs_proto_event ev;
	int events;

	(void)state;
	put_file(mnt, "cw-allow", CLEAN);
	assert_int_equal(set_events("close_write"), 0);
	close_event("cw-allow", WRITE_PLAIN, CLEAN, &ev);
	assert_int_equal(ev_answer(devfd, ev.id, DAZUKOFS_ALLOW), 0);
	close(ev.fd);
	assert_int_equal(open_with_events("cw-allow", &events), 0);
	assert_int_equal(events, 1);

	close_event("cw-allow", WRITE_PLAIN, CLEAN, &ev);
	assert_int_equal(ev_answer_keep(devfd, ev.id, DAZUKOFS_ALLOW, 1), 0);
	close(ev.fd);
	assert_int_equal(open_with_events("cw-allow", &events), 0);
	assert_int_equal(events, 0);
}

static void close_write_after_truncate(void **state)
{
	struct dazukofs_proto_event ev;
	struct stat st;

	(void)state;
	cached_clean("cw-trunc");
	assert_int_equal(set_events("close_write"), 0);
	close_event("cw-trunc", WRITE_TRUNCATE, "", &ev);
	assert_int_equal(fstat(ev.fd, &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(ev_answer(devfd, ev.id, DAZUKOFS_ALLOW), 0);
	close(ev.fd);
}

/* Read-only closes, and closes that leave a writer behind, post nothing. */
static void close_write_last_writer_only(void **state)
{
	struct dazukofs_proto_event ev;
	long long posted;
	char path[512];
	int hold[2], ready[2], fd;
	pid_t holder, pid;
	char c;

	(void)state;
	put_file(mnt, "cw-last", CLEAN);
	assert_int_equal(set_events("close_write"), 0);
	posted = ev_ctr(GROUP, "close_writes");
	path_in(path, sizeof(path), mnt, "cw-last");
	assert_int_equal(ev_opener_wait(ev_opener(path), 10000), 0);

	assert_int_equal(pipe2(hold, O_CLOEXEC), 0);
	assert_int_equal(pipe2(ready, O_CLOEXEC), 0);
	holder = fork();
	if (holder == 0) {
		fd = open(path, O_WRONLY);
		if (fd < 0)
			_exit(1);
		close(hold[1]);
		if (write(ready[1], "r", 1) != 1 || read(hold[0], &c, 1) < 0)
			_exit(2);
		_exit(close(fd) ? 3 : 0);
	}
	assert_true(holder > 0);
	close(hold[0]);
	close(ready[1]);
	/* The holder has its writable fd open. */
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	pid = writer("cw-last", WRITE_PLAIN, EVIL);
	assert_int_equal(ev_opener_wait(pid, 10000), 0);
	assert_int_equal(ev_ctr(GROUP, "close_writes"), posted);
	assert_int_equal(ev_read(devfd, &ev, 0), -ETIMEDOUT);

	close(hold[1]);
	assert_int_equal(ev_opener_wait(holder, 10000), 0);
	assert_int_equal(ev_ctr(GROUP, "close_writes"), posted + 1);
	assert_int_equal(ev_read(devfd, &ev, 10000), 0);
	assert_int_equal(ev.pid, holder);
	assert_int_equal(ev_answer(devfd, ev.id, answer_by_content(&ev)), 0);
	close(ev.fd);
}

/* Closes fill at most half of max_queue; the rest are dropped, counted. */
static void close_write_half_queue(void **state)
{
	struct dazukofs_proto_event ev;
	long long posted = ev_ctr(GROUP, "close_writes");
	long long dropped = ev_ctr(GROUP, "close_writes_dropped");
	int fd;

	(void)state;
	put_file(mnt, "cw-q1", CLEAN);
	put_file(mnt, "cw-q2", CLEAN);
	assert_int_equal(set_events("close_write"), 0);
	fd = open(DAZUKOFS_CONFIGFS_ROOT "/" GROUP "/max_queue",
		  O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "2", 1), 1);
	assert_int_equal(ev_opener_wait(writer("cw-q1", WRITE_PLAIN, CLEAN),
					10000), 0);
	assert_int_equal(ev_opener_wait(writer("cw-q2", WRITE_PLAIN, CLEAN),
					10000), 0);
	assert_int_equal(write(fd, "16384", 5), 5);
	close(fd);
	assert_int_equal(ev_ctr(GROUP, "close_writes"), posted + 1);
	assert_int_equal(ev_ctr(GROUP, "close_writes_dropped"), dropped + 1);
	assert_int_equal(ev_read(devfd, &ev, 10000), 0);
	assert_int_equal(ev_answer(devfd, ev.id, DAZUKOFS_ALLOW), 0);
	close(ev.fd);
	assert_int_equal(ev_read(devfd, &ev, 0), -ETIMEDOUT);
}

/*
 * A remembered allow serves only the accesses its event vouches for: an
 * open's allow does not let an exec through unasked (a user who may read
 * a file may try to run it); an exec's allow serves execs and opens.
 */
static void remembered_per_event_type(void **state)
{
	char path[512];
	int events;

	(void)state;
	put_file(mnt, "type.sh", "#!/bin/sh\nexit 0\n");
	path_in(path, sizeof(path), mnt, "type.sh");
	assert_int_equal(chmod(path, 0755), 0);
	assert_int_equal(set_events("open exec"), 0);

	assert_int_equal(open_served("type.sh", &events), 0);
	assert_int_equal(events, 1);
	assert_int_equal(open_served("type.sh", &events), 0);
	assert_int_equal(events, 0);
	/* The open's allow does not answer the exec ... */
	assert_int_equal(exec_served("type.sh", &events), 0);
	assert_int_equal(events, 1);
	/* ... the exec's allow is remembered, and answers both. */
	assert_int_equal(exec_served("type.sh", &events), 0);
	assert_int_equal(events, 0);
	assert_int_equal(open_served("type.sh", &events), 0);
	assert_int_equal(events, 0);

	/* A remembered deny answers every access. */
	put_file(mnt, "type-evil.sh", "#!/bin/sh\n# EVIL\nexit 0\n");
	path_in(path, sizeof(path), mnt, "type-evil.sh");
	assert_int_equal(chmod(path, 0755), 0);
	assert_int_equal(open_served("type-evil.sh", &events), EPERM);
	assert_int_equal(events, 1);
	assert_int_equal(exec_served("type-evil.sh", &events), EPERM);
	assert_int_equal(events, 0);
}

/* "exec" alone: execve makes events, other opens do not. */
static void exec_events_only(void **state)
{
	struct dazukofs_proto_event ev;
	char path[512];
	int events;
	pid_t pid;

	(void)state;
	put_file(mnt, "exec.sh", "#!/bin/sh\nexit 0\n");
	path_in(path, sizeof(path), mnt, "exec.sh");
	assert_int_equal(chmod(path, 0755), 0);
	assert_int_equal(set_events("exec"), 0);
	assert_int_equal(open_served("exec.sh", &events), 0);
	assert_int_equal(events, 0);
	pid = fork();
	if (pid == 0) {
		execl(path, path, (char *)NULL);
		_exit(errno == EPERM ? 100 : 101);
	}
	assert_true(pid > 0);
	assert_int_equal(ev_read(devfd, &ev, 10000), 0);
	assert_int_equal(ev.pid, pid);
	assert_int_equal(ev_answer(devfd, ev.id, DAZUKOFS_DENY), 0);
	close(ev.fd);
	assert_int_equal(ev_opener_wait(pid, 10000), 100);
}

/* Write @content over the start of @path, through a shared mapping or not. */
static int overwrite(const char *path, const char *content, bool mapped)
{
	size_t len = strlen(content);
	int fd = open(path, O_RDWR | O_CLOEXEC);
	char *map;

	if (fd < 0)
		return -1;
	if (!mapped) {
		if (pwrite(fd, content, len, 0) != (ssize_t)len)
			return -1;
		return close(fd);
	}
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -1;
	memcpy(map, content, len);
	if (munmap(map, len))
		return -1;
	return close(fd);
}

static int write_map(const char *file, const char *line)
{
	int fd = open(file, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, line, strlen(line));
	close(fd);
	return n == (ssize_t)strlen(line) ? 0 : -1;
}

#define OVL_NO_USERNS 77
#define OVL_NO_USER_XATTR 78

/*
 * A child: mount an overlayfs whose upper layer is @dir/up (on the mount)
 * at @dir/merged, in a mount namespace of its own, and turn @dir/merged/f
 * EVIL through it.  With @userns, as nobody in a user namespace of its own,
 * as any user may (OVL_NO_USERNS if the kernel has none, OVL_NO_USER_XATTR
 * if overlayfs cannot use the mount as its upper layer there).
 */
static int overlay_write_child(const char *dir, bool userns, bool mapped)
{
	char opts[1024], merged[512], file[600];

	if (userns) {
		/* No such entry: a kernel without CONFIG_USER_NS. */
		if (access("/proc/self/ns/user", F_OK))
			return OVL_NO_USERNS;
		/* Dumpable again after the change of uid: else /proc/self is root's. */
		if (become_nobody(false) || prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
			return 1;
		if (unshare(CLONE_NEWUSER)) {
			fprintf(stderr, "unshare(CLONE_NEWUSER): %s\n",
				strerror(errno));
			return 2;
		}
		if (write_map("/proc/self/setgroups", "deny") ||
		    write_map("/proc/self/uid_map", "0 65534 1") ||
		    write_map("/proc/self/gid_map", "0 65534 1"))
			return 3;
	}
	if (unshare(CLONE_NEWNS)) {
		fprintf(stderr, "unshare(CLONE_NEWNS): %s\n", strerror(errno));
		return 2;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return 4;
	snprintf(opts, sizeof(opts),
		 "lowerdir=%s/low,upperdir=%s/up,workdir=%s/work%s", dir, dir,
		 dir, userns ? ",userxattr" : "");
	snprintf(merged, sizeof(merged), "%s/merged", dir);
	/*
	 * In a user namespace overlayfs keeps user.* xattrs on its upper
	 * layer, which it requires of an upper with revalidated dentries,
	 * as dazukofs's are: tmpfs has them since 6.6 only.
	 */
	snprintf(file, sizeof(file), "%s/up", dir);
	if (userns && setxattr(file, "user.cachetest", "1", 1, 0) &&
	    errno == EOPNOTSUPP)
		return OVL_NO_USER_XATTR;
	if (mount("overlay", merged, "overlay", 0, opts))
		return 5;
	snprintf(file, sizeof(file), "%s/f", merged);
	return overwrite(file, EVIL, mapped) ? 6 : 0;
}

/*
 * overlayfs with its upper layer on the mount (6.1's opens the upper file
 * with FMODE_NONOTIFY, which must not reach the lower file that dazukofs
 * opens for it: its changes would make no fsnotify events).  A file
 * remembered clean is made EVIL through the overlay, by write() and
 * through a shared mapping, by root and by a user in a user namespace;
 * its next open through the mount must be scanned anew, and the lower
 * file must report the change to its watchers (the verdict cache's mark
 * among them).
 */
static void overlay_upper_on_mount(void **state)
{
	static const char *const sub[] = { "low", "up", "work", "merged" };
	char dir[512], path[600], name[64];
	char inobuf[sizeof(struct inotify_event) + NAME_MAX + 1]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	int variant, events, rc, ino;
	ssize_t n;
	size_t i;
	pid_t pid;

	(void)state;
	for (variant = 0; variant < 4; variant++) {
		bool userns = variant & 2, mapped = variant & 1;

		snprintf(name, sizeof(name), "ovl%d", variant);
		path_in(dir, sizeof(dir), mnt, name);
		assert_int_equal(mkdir(dir, 0755), 0);
		for (i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
			snprintf(path, sizeof(path), "%s/%s", dir, sub[i]);
			assert_int_equal(mkdir(path, 0755), 0);
			assert_int_equal(chown(path, NOBODY_ID, NOBODY_ID), 0);
		}
		snprintf(name, sizeof(name), "ovl%d/up/f", variant);
		cached_clean(name);
		path_in(path, sizeof(path), mnt, name);
		assert_int_equal(chown(path, NOBODY_ID, NOBODY_ID), 0);
		/* That was a change: remembered clean again. */
		assert_int_equal(open_served(name, &events), 0);
		assert_int_equal(open_served(name, &events), 0);
		assert_int_equal(events, 0);

		/* The lower file must report the change: its close at least. */
		path_in(path, sizeof(path), lower, name);
		ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		assert_true(ino >= 0);
		assert_true(inotify_add_watch(ino, path, IN_CLOSE_WRITE) >= 0);

		pid = fork();
		if (pid == 0)
			_exit(overlay_write_child(dir, userns, mapped));
		assert_true(pid > 0);
		rc = serve_until_exit(pid, &events);
		n = read(ino, inobuf, sizeof(inobuf));
		close(ino);
		if (rc == OVL_NO_USERNS || rc == OVL_NO_USER_XATTR) {
			print_message("overlay variant %d: %s: as root only\n",
				      variant, rc == OVL_NO_USERNS ?
				      "no user namespaces" :
				      "the lower has no user xattrs");
			continue;
		}
		if (rc)
			fail_msg("overlay variant %d: the child failed at step %d",
				 variant, rc);
		if (n <= 0)
			fail_msg("overlay variant %d: no close-write on the lower file (FMODE_NONOTIFY inherited?)",
				 variant);
		assert_int_equal(open_served(name, &events), EPERM);
		assert_int_equal(events, 1);
	}
}

struct dio_read {
	int fd;
	void *buf;
	size_t len;
	ssize_t ret;
};

static void *dio_reader(void *arg)
{
	struct dio_read *r = arg;

	r->ret = read(r->fd, r->buf, r->len);
	return NULL;
}

/* Wait (at most 30 s) until @path exists. */
static int wait_for_file(const char *path)
{
	long long end = ev_now_ms() + 30000;

	while (access(path, F_OK)) {
		if (ev_now_ms() > end)
			return -1;
		usleep(1000);
	}
	return 0;
}

/*
 * A child, as nobody: map @victim shared and writable through the mount,
 * start a direct read of @stall (a FUSE file whose server holds the
 * reply until told) into the mapping, and once the server has the request
 * (@stalled exists) unmap and close the victim and write a byte to
 * @ready.  Exits when the read is done.  Return: 0, or the failed step.
 */
static int dio_into_mapping_child(const char *victim, const char *stall,
				  const char *stalled, int ready)
{
	long page = sysconf(_SC_PAGESIZE);
	struct dio_read r = { .len = (size_t)page };
	pthread_t reader;
	int vfd;

	if (become_nobody(false))
		return 1;
	vfd = open(victim, O_RDWR | O_CLOEXEC);
	if (vfd < 0)
		return 2;
	r.buf = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, vfd, 0);
	if (r.buf == MAP_FAILED)
		return 3;
	r.fd = open(stall, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (r.fd < 0 || pthread_create(&reader, NULL, dio_reader, &r))
		return 4;
	if (wait_for_file(stalled))
		return 5;
	/* The read holds the victim's page: let go of all else. */
	if (munmap(r.buf, page) || close(vfd) || write(ready, "r", 1) != 1)
		return 6;
	pthread_join(reader, NULL);
	return r.ret == page ? 0 : 7;
}

/*
 * A page reference that is not a pin: on 6.1 direct I/O takes plain
 * references (FOLL_GET) on the pages it reads into.  A user maps a file
 * it may write shared and writable, starts a direct read from its own
 * FUSE file into the mapping, unmaps and closes the file: the read still
 * holds the page.  The file is scanned clean, and then the FUSE server
 * replies: the page turns EVIL with no event and no change of the stamp.
 * The next open must be scanned anew.  CACHE_TEST_FUSE names a refusefs
 * mount, CACHE_TEST_FUSE_SRC its source directory.
 */
static void dio_into_mapping(void **state)
{
	const char *fuse = getenv("CACHE_TEST_FUSE");
	const char *fuse_src = getenv("CACHE_TEST_FUSE_SRC");
	char victim[512], stall[512], stalled[512], release[512], buf[64];
	long page = sysconf(_SC_PAGESIZE);
	int events, ready[2], status, fd;
	char *content;
	pid_t pid;

	(void)state;
	if (!fuse || !fuse_src)
		fail_msg("dio_into_mapping needs CACHE_TEST_FUSE and CACHE_TEST_FUSE_SRC (a refusefs mount)");
	path_in(stall, sizeof(stall), fuse, "stall-evil");
	path_in(stalled, sizeof(stalled), fuse_src, ".stalled");
	path_in(release, sizeof(release), fuse_src, ".release");
	unlink(stalled);
	unlink(release);
	/* What the server replies: EVIL, then zeros to the page's end. */
	content = calloc(1, page);
	assert_non_null(content);
	memcpy(content, EVIL, strlen(EVIL));
	path_in(victim, sizeof(victim), fuse_src, "stall-evil");
	fd = open(victim, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, page), page);
	assert_int_equal(close(fd), 0);
	free(content);

	put_file(mnt, "dio-victim", CLEAN);
	path_in(victim, sizeof(victim), mnt, "dio-victim");
	assert_int_equal(chown(victim, NOBODY_ID, NOBODY_ID), 0);

	assert_int_equal(pipe2(ready, O_CLOEXEC), 0);
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		_exit(dio_into_mapping_child(victim, stall, stalled, ready[1]));
	}
	assert_true(pid > 0);
	close(ready[1]);
	/* Its open of the victim is an event: serve until it is ready. */
	assert_int_equal(serve_until_readable(ready[0]), 0);
	close(ready[0]);

	/* Scanned clean; the worker asks to remember it. */
	assert_int_equal(open_served("dio-victim", &events), 0);
	assert_int_equal(events, 1);

	/* The server replies: EVIL lands in the victim's page. */
	fd = open(release, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(close(fd), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	path_in(victim, sizeof(victim), lower, "dio-victim");
	fd = open(victim, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, buf, strlen(EVIL), 0), (ssize_t)strlen(EVIL));
	assert_int_equal(close(fd), 0);
	assert_memory_equal(buf, EVIL, strlen(EVIL));

	assert_int_equal(open_served("dio-victim", &events), EPERM);
	assert_int_equal(events, 1);
}

/* Bad answers are refused and change nothing. */
static void bad_remember_answers(void **state)
{
	static const char *const bad[] = {
		"id=1 r=0 remembe", "id=1 r=0remember", "id=1 r=2 remember",
		"id=1 r=0 remember x",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(write(devfd, bad[i], strlen(bad[i])), -1);
		assert_int_equal(errno, EINVAL);
	}
	/* Well formed, but no such event. */
	assert_int_equal(write(devfd, "id=999999 r=0 remember", 22), -1);
	assert_int_equal(errno, ENOENT);
}

/*
 * Run with --remembers-nothing over a mount that remembers no verdict: a
 * remote lower (the harness's 9p share, whose server may change files
 * behind the kernel's back), one on a loop device (remember=auto), one
 * mounted with remember=off.  Every open is an event.
 */
static void remembers_nothing(void **state)
{
	long long hits = ev_ctr(GROUP, "cache_hits");
	int events, i;

	(void)state;
	put_file(mnt, "forgotten-clean", CLEAN);
	put_file(mnt, "forgotten-evil", EVIL);
	for (i = 0; i < 2; i++) {
		assert_int_equal(open_served("forgotten-clean", &events), 0);
		assert_int_equal(events, 1);
		assert_int_equal(open_served("forgotten-evil", &events), EPERM);
		assert_int_equal(events, 1);
	}
	assert_int_equal(ev_ctr(GROUP, "cache_hits"), hits);
}

static const char *image;

/* A file of its own in the image, at a block's start; same length. */
#define BELOW_CLEAN "clean bytes in a loop image #42\n"
#define BELOW_EVIL  "EVIL bytes in a loop image #42!\n"
_Static_assert(sizeof(BELOW_CLEAN) == sizeof(BELOW_EVIL),
	       "BELOW_CLEAN and BELOW_EVIL differ in size");

/*
 * As the image's owner (nobody), who needs no privilege for it: rewrite
 * every block of the image that begins with BELOW_CLEAN.  Return: how many
 * (a child's exit code), 0 if none or on error.
 */
static int rewrite_image_as_nobody(void)
{
	static char buf[1 << 20];
	int fd, found = 0;
	ssize_t n;
	off_t at;

	if (become_nobody(false))
		return 0;
	fd = open(image, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 0;
	for (at = 0; (n = pread(fd, buf, sizeof(buf), at)) > 0; at += n) {
		/* ext4's smallest block is 1 KiB: file data starts at one. */
		for (ssize_t off = 0; off + 1024 <= n; off += 1024) {
			if (memcmp(buf + off, BELOW_CLEAN, strlen(BELOW_CLEAN)))
				continue;
			if (pwrite(fd, BELOW_EVIL, strlen(BELOW_EVIL),
				   at + off) != (ssize_t)strlen(BELOW_EVIL))
				return 0;
			found++;
		}
	}
	return fsync(fd) ? 0 : found;
}

/*
 * Run with --image IMAGE over ext4 on a loop device over IMAGE, a file its
 * owner (nobody) may write, as udisks sets one up for a user.  A clean
 * file is opened (and its verdict asked to be remembered); then nobody
 * rewrites its bytes in the image, and its pages leave the page cache
 * (fadvise here; memory pressure does it for anyone).  The next open must
 * be scanned anew: the file now reads EVIL.
 */
static void image_rewritten_below(void **state)
{
	char path[512], buf[sizeof(BELOW_EVIL)];
	int events, fd, status;
	pid_t pid;

	(void)state;
	put_file(mnt, "below", BELOW_CLEAN);
	/* Its bytes in the image, and an inode kept with its mark. */
	path_in(path, sizeof(path), lower, "below");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fsync(fd), 0);
	assert_int_equal(open_served("below", &events), 0);
	assert_int_equal(events, 1);

	pid = fork();
	if (pid == 0)
		_exit(rewrite_image_as_nobody());
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 1);
	assert_int_equal(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	assert_int_equal(pread(fd, buf, sizeof(buf) - 1, 0),
			 (ssize_t)strlen(BELOW_EVIL));
	buf[sizeof(buf) - 1] = '\0';
	assert_string_equal(buf, BELOW_EVIL);

	assert_int_equal(open_served("below", &events), EPERM);
	assert_int_equal(events, 1);
	assert_int_equal(close(fd), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest forgetful_tests[] = {
		cmocka_unit_test(remembers_nothing),
	};
	const struct CMUnitTest image_tests[] = {
		cmocka_unit_test(remembers_nothing),
		cmocka_unit_test(image_rewritten_below),
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(remembered_allow_makes_no_event),
		cmocka_unit_test(remembered_deny),
		cmocka_unit_test(write_open_remembers_deny_only),
		cmocka_unit_test(write_through_mount),
		cmocka_unit_test(write_lower_directly),
		cmocka_unit_test(o_trunc),
		cmocka_unit_test(mmap_dirty_page_through_mount),
		cmocka_unit_test(mmap_dirty_page_on_lower),
		cmocka_unit_test(live_writable_mapping),
		cmocka_unit_test(shared_mapping_forgoes_allows),
		cmocka_unit_test(pinned_page_write),
		cmocka_unit_test(pinned_page_write_during_scan),
		cmocka_unit_test(rename_over),
		cmocka_unit_test(xattr_set),
		cmocka_unit_test(chmod_invalidates),
		cmocka_unit_test(copy_range_into),
		cmocka_unit_test(flush_forgets),
		cmocka_unit_test(writer_during_scan_not_remembered),
		cmocka_unit_test(bad_remember_answers),
		cmocka_unit_test(overlay_upper_on_mount),
		cmocka_unit_test(dio_into_mapping),
		cmocka_unit_test_teardown(events_attribute, events_default),
		cmocka_unit_test_teardown(close_write_after_write, events_default),
		cmocka_unit_test_teardown(close_write_after_mmap_write,
					  events_default),
		cmocka_unit_test_teardown(close_write_after_truncate,
					  events_default),
		cmocka_unit_test_teardown(close_write_only_denies_opens,
					  events_default),
		cmocka_unit_test_teardown(close_write_allow, events_default),
		cmocka_unit_test_teardown(close_write_last_writer_only,
					  events_default),
		cmocka_unit_test_teardown(close_write_half_queue, events_default),
		cmocka_unit_test_teardown(exec_events_only, events_default),
		cmocka_unit_test_teardown(remembered_per_event_type,
					  events_default),
	};
	bool forgetful = false;
	int id, rc, ign;

	if (argc < 3 || argc > 5) {
		fprintf(stderr, "usage: cache-test LOWER MNT [FILTER | --remembers-nothing | --image IMAGE]\n");
		return 2;
	}
	lower = argv[1];
	mnt = argv[2];
	if (argc == 4 && !strcmp(argv[3], "--remembers-nothing"))
		forgetful = true;
	else if (argc == 5 && !strcmp(argv[3], "--image"))
		image = argv[4];
	else if (argc == 4 && argv[3][0] != '-')
		cmocka_set_test_filter(argv[3]);
	else if (argc > 3) {
		fprintf(stderr, "cache-test: bad arguments\n");
		return 2;
	}
	ign = open(DAZUKOFS_DEV_PREFIX "ign", O_RDONLY | O_CLOEXEC);
	if (ign < 0) {
		fprintf(stderr, "cache-test: open the ignore device: %s\n",
			strerror(errno));
		return 1;
	}
	id = ev_group_mkdir(GROUP);
	if (id < 0) {
		fprintf(stderr, "cache-test: mkdir group: %s\n", strerror(-id));
		return 1;
	}
	devfd = ev_dev_open(id, 0);
	if (devfd < 0) {
		fprintf(stderr, "cache-test: open device: %s\n", strerror(-devfd));
		return 1;
	}
	if (forgetful)
		rc = cmocka_run_group_tests(forgetful_tests, NULL, NULL);
	else if (image)
		rc = cmocka_run_group_tests(image_tests, NULL, NULL);
	else
		rc = cmocka_run_group_tests(tests, NULL, NULL);
	close(devfd);
	ev_group_rmdir(GROUP);
	close(ign);
	return rc;
}
