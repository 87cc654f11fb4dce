// SPDX-License-Identifier: GPL-2.0
/*
 * Access event integration tests (cmocka; run as root in the VM by
 * guest-events.sh): one test per rule of groups, group devices, verdicts
 * and counters.
 *
 * usage: events-test LOWER MNT [FILTER]
 *   LOWER: the directory below the dazukofs mount MNT (files are made there,
 *   so that making them posts no event).  Expects no group to exist.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/sysmacros.h>

#include <cmocka.h>

#include "become-nobody.h"
#include "ev.h"
#include "name-churn.h"

static const char *lower, *mnt;

/* Groups and children a test made: the teardown removes what is left. */
#define MAX_TRACK 128
static char groups[MAX_TRACK][DAZUKOFS_GROUP_NAME_MAX + 1];
static int ngroups;
static pid_t kids[MAX_TRACK];
static int nkids;
static int devfds[MAX_TRACK];
static int ndevfds;

#define OK(x)								\
	do {								\
		if ((x) < 0)						\
			fail_msg("%s: %s", #x, strerror(errno));	\
	} while (0)

static int group_new(const char *name)
{
	int id = ev_group_mkdir(name);

	if (id < 0)
		fail_msg("mkdir group %s: %s", name, strerror(-id));
	assert_true(ngroups < MAX_TRACK);
	strcpy(groups[ngroups++], name);
	return id;
}

static void group_del(const char *name)
{
	int i, err = ev_group_rmdir(name);

	if (err)
		fail_msg("rmdir group %s: %s", name, strerror(-err));
	for (i = 0; i < ngroups; i++) {
		if (!strcmp(groups[i], name)) {
			groups[i][0] = '\0';
			break;
		}
	}
}

static int dev_open(int id)
{
	int fd = ev_dev_open(id, 0);

	if (fd < 0)
		fail_msg("open /dev/dazukofs.%d: %s", id, strerror(-fd));
	if (ndevfds < MAX_TRACK)
		devfds[ndevfds++] = fd;
	return fd;
}

static pid_t opener(const char *name)
{
	char path[4096];
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", mnt, name);
	pid = ev_opener(path);
	OK(pid);
	assert_true(nkids < MAX_TRACK);
	kids[nkids++] = pid;
	return pid;
}

static int opener_result(pid_t pid)
{
	return ev_opener_wait(pid, 20000);
}

/* Make LOWER/name with @content (no event: not through the mount). */
static void lower_file(const char *name, const char *content)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", lower, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	OK(fd);
	assert_int_equal(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	close(fd);
}

static void read_ev(int devfd, struct dazukofs_proto_event *ev)
{
	int err = ev_read(devfd, ev, 20000);

	if (err)
		fail_msg("reading an event: %s", strerror(-err));
}

static void answer(int devfd, unsigned long id, int verdict)
{
	int err = ev_answer(devfd, id, verdict);

	if (err)
		fail_msg("answering event %lu: %s", id, strerror(-err));
}

static ssize_t write_str(int fd, const char *s, size_t len)
{
	return write(fd, s, len);
}

static int cleanup(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < nkids; i++) {
		if (kids[i] > 0 && kill(kids[i], SIGKILL) == 0)
			waitpid(kids[i], NULL, 0);
		else if (kids[i] > 0)
			waitpid(kids[i], NULL, WNOHANG);
	}
	nkids = 0;
	/* a failed test may leave group device fds open: close them */
	for (i = 0; i < ndevfds; i++) {
		char link[64], target[64];
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", devfds[i]);
		n = readlink(link, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = '\0';
			if (!strncmp(target, DAZUKOFS_DEV_PREFIX,
				     strlen(DAZUKOFS_DEV_PREFIX)))
				close(devfds[i]);
		}
	}
	ndevfds = 0;
	for (i = 0; i < ngroups; i++) {
		if (groups[i][0])
			ev_group_rmdir(groups[i]);
	}
	ngroups = 0;
	return 0;
}

/* One read-and-answer cycle: the opener of @name gets @verdict's result. */
static void one_verdict(const char *gname, int verdict)
{
	struct dazukofs_proto_event ev;
	int id = group_new(gname), fd = dev_open(id);
	pid_t pid;

	lower_file("verdict", "v");
	pid = opener("verdict");
	read_ev(fd, &ev);
	assert_true(ev_opener_running(pid));
	answer(fd, ev.id, verdict);
	assert_int_equal(opener_result(pid), verdict ? EPERM : 0);
	close(ev.fd);
	close(fd);
	group_del(gname);
}

/* ---------------------------------------------------------------- */

static void no_group_allows(void **state)
{
	long long events = ev_ctr(NULL, "events");
	char path[4096];
	int fd;

	(void)state;
	lower_file("nogroup", "x");
	snprintf(path, sizeof(path), "%s/nogroup", mnt);
	fd = open(path, O_RDONLY);
	OK(fd);
	close(fd);
	assert_int_equal(opener_result(opener("nogroup")), 0);
	assert_int_equal(ev_ctr(NULL, "events"), events);
}

static void one_group_allows(void **state)
{
	(void)state;
	one_verdict("ev-allow", DAZUKOFS_ALLOW);
}

static void one_group_denies(void **state)
{
	(void)state;
	one_verdict("ev-deny", DAZUKOFS_DENY);
}

static void two_groups(int v1, int v2)
{
	struct dazukofs_proto_event e1, e2;
	int f1 = dev_open(group_new("ev-two-a"));
	int f2 = dev_open(group_new("ev-two-b"));
	pid_t pid;

	lower_file("two", "2");
	pid = opener("two");
	read_ev(f1, &e1);
	read_ev(f2, &e2);
	assert_int_equal(e1.pid, pid);
	assert_int_equal(e2.pid, pid);
	answer(f1, e1.id, v1);
	/* one answer is not enough */
	assert_true(ev_wait_ctr("ev-two-b", "in_hand", 1, 1000));
	assert_true(ev_opener_running(pid));
	answer(f2, e2.id, v2);
	assert_int_equal(opener_result(pid), (v1 || v2) ? EPERM : 0);
	close(e1.fd);
	close(e2.fd);
	close(f1);
	close(f2);
	group_del("ev-two-a");
	group_del("ev-two-b");
}

static void two_groups_one_denies(void **state)
{
	(void)state;
	two_groups(DAZUKOFS_ALLOW, DAZUKOFS_DENY);
	two_groups(DAZUKOFS_DENY, DAZUKOFS_ALLOW);
}

static void two_groups_both_allow(void **state)
{
	(void)state;
	two_groups(DAZUKOFS_ALLOW, DAZUKOFS_ALLOW);
}

/* A worker thread doing one blocking read. */
struct worker {
	int fd;
	pthread_t th;
	int err;
	pid_t tid;
	struct dazukofs_proto_event ev;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	__atomic_store_n(&w->tid, gettid(), __ATOMIC_RELEASE);
	w->err = ev_read(w->fd, &w->ev, -1);
	return NULL;
}

static void worker_start(struct worker *w, int fd)
{
	w->fd = fd;
	w->err = -EINPROGRESS;
	w->tid = 0;
	assert_int_equal(pthread_create(&w->th, NULL, worker_main, w), 0);
}

/* Join with a deadline; false if the thread is still blocked. */
static bool worker_join(struct worker *w, int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return pthread_timedjoin_np(w->th, NULL, &ts) == 0;
}

/* Answers DENY to every event until told to stop; counts them. */
struct denier {
	int fd;
	pthread_t th;
	bool stop;
	long denied;
	int err;
};

static void *denier_main(void *arg)
{
	struct denier *d = arg;
	struct dazukofs_proto_event ev;

	while (!__atomic_load_n(&d->stop, __ATOMIC_ACQUIRE)) {
		int err = ev_read(d->fd, &ev, 100);

		if (err == -ETIMEDOUT)
			continue;
		if (!err)
			err = ev_answer(d->fd, ev.id, DAZUKOFS_DENY);
		if (err) {
			d->err = err;
			break;
		}
		close(ev.fd);
		d->denied++;
	}
	return NULL;
}

/*
 * open(O_CREAT) through the mount while the name comes and goes in the
 * lower: whatever the lower's answer (its file, found at the lookup or
 * only under its directory's lock, or a file made by the open), the open
 * is an access event and a deny refuses it.  Every answer is DENY, so no
 * open may succeed; O_EXCL may also meet the lower's file (EEXIST).
 */
static void create_race_denied(void **state)
{
	struct denier d = { .fd = dev_open(group_new("ev-cdeny")) };
	long opens = 0, refused = 0, exist = 0, opened = 0, other = 0;
	char up[4096], low[4096];
	struct timespec t0, t;
	pid_t churn;
	int status;

	(void)state;
	snprintf(up, sizeof(up), "%s/craced", mnt);
	snprintf(low, sizeof(low), "%s/craced", lower);
	assert_int_equal(pthread_create(&d.th, NULL, denier_main, &d), 0);
	churn = fork();
	OK(churn);
	if (churn == 0)
		churn_name(low, 4);
	kids[nkids++] = churn;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		int flags = O_RDWR | O_CREAT | (opens++ & 1 ? O_EXCL : 0);
		int fd = open(up, flags, 0644);

		if (fd >= 0) {
			opened++;
			close(fd);
		} else if (errno == EPERM) {
			refused++;
		} else if (errno == EEXIST && (flags & O_EXCL)) {
			exist++;
		} else {
			other++;
			print_message("open(%s, %#x): %s\n", up, flags,
				      strerror(errno));
		}
		unlink(low);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 4);

	OK(waitpid(churn, &status, 0));
	nkids--;
	__atomic_store_n(&d.stop, true, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(d.th, NULL), 0);
	unlink(low);
	print_message("%ld opens: %ld refused, %ld EEXIST, %ld opened, %ld other; %ld denied\n",
		      opens, refused, exist, opened, other, d.denied);
	assert_int_equal(d.err, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(opened, 0);
	assert_int_equal(other, 0);
	assert_true(refused > 0);
	assert_int_equal(d.denied, refused);
	group_del("ev-cdeny");
}

/* Task @tid's state letter in /proc (R, S, D...), or 0 if it has none. */
static char task_state(pid_t tid)
{
	char path[64], buf[512], *p;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", getpid(), tid);
	f = fopen(path, "r");
	if (!f) {
		/* not a thread of ours: a child process */
		snprintf(path, sizeof(path), "/proc/%d/stat", tid);
		f = fopen(path, "r");
	}
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/* Does task @tid reach @state within @ms? */
static bool task_reaches(pid_t tid, char state, int ms)
{
	long long end = ev_now_ms() + ms;

	while (task_state(tid) != state) {
		if (ev_now_ms() > end)
			return false;
		ev_nap();
	}
	return true;
}

/* Is thread @w asleep (blocked in the kernel)? */
static bool worker_sleeping(struct worker *w, int ms)
{
	long long end = ev_now_ms() + ms;
	pid_t tid;

	while (!(tid = __atomic_load_n(&w->tid, __ATOMIC_ACQUIRE))) {
		if (ev_now_ms() > end)
			return false;
		ev_nap();
	}
	return task_reaches(tid, 'S', (int)(end - ev_now_ms()));
}

static void workers_hold_distinct_events(void **state)
{
	enum { N = 3 };
	struct worker w[N];
	pid_t pids[N];
	int id = group_new("ev-workers"), i, j;

	(void)state;
	lower_file("workers", "w");
	for (i = 0; i < N; i++)
		worker_start(&w[i], dev_open(id));
	for (i = 0; i < N; i++)
		pids[i] = opener("workers");
	for (i = 0; i < N; i++) {
		assert_true(worker_join(&w[i], 20000));
		assert_int_equal(w[i].err, 0);
	}
	assert_int_equal(ev_ctr("ev-workers", "in_hand"), N);
	assert_int_equal(ev_ctr("ev-workers", "waiting"), 0);
	for (i = 0; i < N; i++) {
		assert_true(ev_opener_running(pids[i]));
		for (j = 0; j < i; j++) {
			assert_true(w[i].ev.id != w[j].ev.id);
			assert_true(w[i].ev.pid != w[j].ev.pid);
		}
		/* each event is one of our openers' */
		for (j = 0; j < N; j++)
			if (w[i].ev.pid == pids[j])
				break;
		assert_true(j < N);
	}
	for (i = 0; i < N; i++)
		answer(w[i].fd, w[i].ev.id, DAZUKOFS_ALLOW);
	for (i = 0; i < N; i++) {
		assert_int_equal(opener_result(pids[i]), 0);
		close(w[i].ev.fd);
		close(w[i].fd);
	}
	group_del("ev-workers");
}

/* Voluntary context switches of thread @w: one per sleep it woke from. */
static long long worker_switches(struct worker *w)
{
	char path[64], line[256];
	long long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", w->tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %lld", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* Wait until @want more of @w[0..n-1] return from their read; false on timeout. */
static bool workers_joined(struct worker *w, bool *done, int n, int want,
			   int ms)
{
	long long end = ev_now_ms() + ms;
	int i;

	while (want > 0) {
		for (i = 0; i < n && want > 0; i++) {
			if (!done[i] && worker_join(&w[i], 1)) {
				done[i] = true;
				want--;
			}
		}
		if (want > 0 && ev_now_ms() > end)
			return false;
	}
	return true;
}

/*
 * Readers wait exclusively: one event wakes one of the blocked readers,
 * the others sleep on without waking at all; two events reach two
 * readers; the group's removal wakes every reader left.
 */
static void one_event_wakes_one_reader(void **state)
{
	enum { N = 4 };
	/* static: threads left blocked by a failed assertion outlive us */
	static struct worker w[N];
	long long sw[N];
	bool done[N] = { false };
	pid_t pids[3];
	int id = group_new("ev-wake1"), i, got = -1, nr;

	(void)state;
	lower_file("wake1", "w");
	for (i = 0; i < N; i++)
		worker_start(&w[i], dev_open(id));
	for (i = 0; i < N; i++)
		assert_true(worker_sleeping(&w[i], 20000));
	for (i = 0; i < N; i++) {
		sw[i] = worker_switches(&w[i]);
		assert_true(sw[i] >= 0);
	}

	pids[0] = opener("wake1");
	assert_true(workers_joined(w, done, N, 1, 20000));
	for (i = 0; i < N; i++)
		if (done[i])
			got = i;
	assert_int_equal(w[got].err, 0);
	assert_int_equal(w[got].ev.pid, pids[0]);
	answer(w[got].fd, w[got].ev.id, DAZUKOFS_ALLOW);
	assert_int_equal(opener_result(pids[0]), 0);
	close(w[got].ev.fd);
	/* the others never woke: still blocked, no new context switch */
	for (i = 0; i < N; i++) {
		if (i == got)
			continue;
		assert_false(worker_join(&w[i], 0));
		assert_true(worker_sleeping(&w[i], 20000));
		assert_int_equal(worker_switches(&w[i]), sw[i]);
	}

	/* two events, two readers; the third stays blocked */
	pids[1] = opener("wake1");
	pids[2] = opener("wake1");
	assert_true(workers_joined(w, done, N, 2, 20000));
	for (i = 0, nr = 0; i < N; i++) {
		if (i == got || !done[i])
			continue;
		assert_int_equal(w[i].err, 0);
		answer(w[i].fd, w[i].ev.id, DAZUKOFS_ALLOW);
		close(w[i].ev.fd);
		nr++;
	}
	assert_int_equal(nr, 2);
	assert_int_equal(opener_result(pids[1]), 0);
	assert_int_equal(opener_result(pids[2]), 0);
	for (i = 0, nr = 0; i < N; i++) {
		if (done[i])
			continue;
		assert_false(worker_join(&w[i], 0));
		got = i;
		nr++;
	}
	assert_int_equal(nr, 1);
	assert_int_equal(ev_ctr("ev-wake1", "waiting"), 0);
	assert_int_equal(ev_ctr("ev-wake1", "in_hand"), 0);

	/* removal wakes all */
	group_del("ev-wake1");
	assert_true(workers_joined(w, done, N, 1, 20000));
	assert_int_equal(w[got].err, -ENODEV);
	for (i = 0; i < N; i++)
		close(w[i].fd);
}

static void event_fd_properties(void **state)
{
	struct dazukofs_proto_event ev;
	int fd = dev_open(group_new("ev-fd"));
	char buf[64], proc[64], link[4096], want[4096];
	ssize_t n;
	pid_t pid;
	int flags;

	(void)state;
	lower_file("content", "the file's content\n");
	pid = opener("content");
	read_ev(fd, &ev);
	n = pread(ev.fd, buf, sizeof(buf), 0);
	assert_int_equal(n, 19);
	assert_memory_equal(buf, "the file's content\n", 19);
	assert_int_equal(write(ev.fd, "x", 1), -1);
	assert_int_equal(errno, EBADF);
	flags = fcntl(ev.fd, F_GETFD);
	assert_true(flags >= 0 && (flags & FD_CLOEXEC));
	flags = fcntl(ev.fd, F_GETFL);
	assert_int_equal(flags & O_ACCMODE, O_RDONLY);
	/* the fd is the lower file */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", ev.fd);
	n = readlink(proc, link, sizeof(link) - 1);
	assert_true(n > 0);
	link[n] = '\0';
	snprintf(want, sizeof(want), "%s/content", lower);
	assert_string_equal(link, want);
	answer(fd, ev.id, DAZUKOFS_ALLOW);
	assert_int_equal(opener_result(pid), 0);
	close(ev.fd);
	close(fd);
	group_del("ev-fd");
}

static void event_pid_is_opener(void **state)
{
	struct dazukofs_proto_event ev;
	int fd = dev_open(group_new("ev-pid"));
	pid_t pid;

	(void)state;
	lower_file("pid", "p");
	pid = opener("pid");
	read_ev(fd, &ev);
	assert_int_equal(ev.pid, pid);
	assert_true(ev.pid != getpid());
	answer(fd, ev.id, DAZUKOFS_ALLOW);
	assert_int_equal(opener_result(pid), 0);
	close(ev.fd);
	close(fd);
	group_del("ev-pid");
}

static const char *const stat_names[] = {
	"events", "allowed", "denied", "cancelled", "waiting", "in_hand",
	"readers",
};
#define NSTATS (sizeof(stat_names) / sizeof(stat_names[0]))

static void snap(const char *group, long long *v)
{
	size_t i;

	for (i = 0; i < NSTATS; i++)
		v[i] = ev_ctr(group, stat_names[i]);
}

static void assert_snap_equal(const long long *a, const long long *b)
{
	size_t i;

	for (i = 0; i < NSTATS; i++)
		if (a[i] != b[i])
			fail_msg("counter %s: %lld, then %lld", stat_names[i],
				 a[i], b[i]);
}

static void bad_writes_change_nothing(void **state)
{
	struct dazukofs_proto_event ev;
	long long g0[NSTATS], g1[NSTATS], a0[NSTATS], a1[NSTATS];
	int fd = dev_open(group_new("ev-bad"));
	pid_t p1, p2;
	char buf[256];
	static const char *const malformed[] = {
		"", "\n", "id=", "id=1", "r=0", "id=1 r=2", "id=1 r=-1",
		"id=-1 r=0", "id=+1 r=0", " id=1 r=0", "id=1r=0",
		"id=1 r=0 ", "id=1 r=0\n\n", "id=18446744073709551616 r=0",
		"garbage", "id=1 r=0x",
	};
	size_t i;

	(void)state;
	lower_file("bad", "b");
	p1 = opener("bad");
	read_ev(fd, &ev);
	p2 = opener("bad");	/* queued, not read */
	assert_true(ev_wait_ctr("ev-bad", "waiting", 1, 20000));
	snap("ev-bad", g0);
	snap(NULL, a0);

	/* unknown ids, and the id of the event not read yet */
	assert_int_equal(ev_answer(fd, ev.id + 1, DAZUKOFS_ALLOW), -ENOENT);
	assert_int_equal(ev_answer(fd, ev.id + 1000, DAZUKOFS_DENY), -ENOENT);
	assert_int_equal(ev_answer(fd, 0, DAZUKOFS_DENY), -ENOENT);
	assert_int_equal(ev_answer(fd, ULONG_MAX, DAZUKOFS_DENY), -ENOENT);
	for (i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++) {
		assert_int_equal(write_str(fd, malformed[i], strlen(malformed[i])), -1);
		if (errno != EINVAL)
			fail_msg("write \"%s\": %s, want EINVAL", malformed[i],
				 strerror(errno));
	}
	/* embedded NUL */
	snprintf(buf, sizeof(buf), "id=%lu r=0", ev.id);
	buf[strlen(buf) - 3] = '\0';
	assert_int_equal(write_str(fd, buf, strlen(buf + strlen(buf) + 1) +
				   strlen(buf) + 1), -1);
	assert_int_equal(errno, EINVAL);
	/* the right id, longer than DAZUKOFS_RESPONSE_MAX: refused */
	i = (size_t)snprintf(buf, sizeof(buf), "id=%lu", ev.id);
	memset(buf + i, ' ', sizeof(buf) - i);
	memcpy(buf + DAZUKOFS_RESPONSE_MAX + 1 - 4, "r=1\n", 4);
	assert_int_equal(write_str(fd, buf, DAZUKOFS_RESPONSE_MAX + 1), -1);
	assert_int_equal(errno, EINVAL);

	snap("ev-bad", g1);
	snap(NULL, a1);
	assert_snap_equal(g0, g1);
	assert_snap_equal(a0, a1);
	assert_true(ev_opener_running(p1));
	assert_true(ev_opener_running(p2));

	/* still answerable: exactly DAZUKOFS_RESPONSE_MAX bytes, deny */
	memcpy(buf + DAZUKOFS_RESPONSE_MAX - 4, "r=1\n", 4);
	assert_int_equal(write_str(fd, buf, DAZUKOFS_RESPONSE_MAX),
			 DAZUKOFS_RESPONSE_MAX);
	assert_int_equal(opener_result(p1), EPERM);
	/* answered: now unknown */
	assert_int_equal(ev_answer(fd, ev.id, DAZUKOFS_ALLOW), -ENOENT);
	close(ev.fd);

	/* the queued one, with tabs and no newline */
	read_ev(fd, &ev);
	assert_int_equal(ev.pid, p2);
	snprintf(buf, sizeof(buf), "id=%lu\t \tr=0", ev.id);
	assert_int_equal(write_str(fd, buf, strlen(buf)), (ssize_t)strlen(buf));
	assert_int_equal(opener_result(p2), 0);
	close(ev.fd);
	close(fd);
	group_del("ev-bad");
}

/* Any process holding the group device may answer. */
static void answer_from_other_process(void **state)
{
	struct dazukofs_proto_event ev;
	int fd = dev_open(group_new("ev-other"));
	pid_t pid, helper;

	(void)state;
	lower_file("other", "o");
	pid = opener("other");
	read_ev(fd, &ev);
	helper = fork();
	OK(helper);
	if (helper == 0)
		_exit(ev_answer(fd, ev.id, DAZUKOFS_DENY) ? 1 : 0);
	assert_int_equal(ev_opener_wait(helper, 20000), 0);
	assert_int_equal(opener_result(pid), EPERM);
	close(ev.fd);
	close(fd);
	group_del("ev-other");
}

static void small_read_buffer(void **state)
{
	struct dazukofs_proto_event ev;
	int fd = dev_open(group_new("ev-small"));
	char small[8];
	pid_t pid;
	int fds_before, fds_after;

	(void)state;
	lower_file("small", "s");
	pid = opener("small");
	assert_true(ev_wait_ctr("ev-small", "waiting", 1, 20000));
	fds_before = dup(0);
	close(fds_before);
	assert_int_equal(read(fd, small, sizeof(small)), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(read(fd, small, 0), -1);
	assert_int_equal(errno, EINVAL);
	/* no fd was installed, the event is still queued */
	fds_after = dup(0);
	close(fds_after);
	assert_int_equal(fds_after, fds_before);
	assert_int_equal(ev_ctr("ev-small", "waiting"), 1);
	assert_int_equal(ev_ctr("ev-small", "in_hand"), 0);
	assert_true(ev_opener_running(pid));
	read_ev(fd, &ev);
	assert_int_equal(ev.pid, pid);
	answer(fd, ev.id, DAZUKOFS_ALLOW);
	assert_int_equal(opener_result(pid), 0);
	close(ev.fd);
	close(fd);
	group_del("ev-small");
}

static void rmdir_settles_events(void **state)
{
	struct dazukofs_proto_event ev;
	int id = group_new("ev-rmdir"), fd = dev_open(id), fd2 = dev_open(id);
	long long allowed = ev_ctr(NULL, "allowed");
	struct pollfd pfd;
	pid_t p1, p2;

	(void)state;
	lower_file("rmdir", "r");
	p1 = opener("rmdir");
	read_ev(fd, &ev);		/* in hand */
	p2 = opener("rmdir");		/* waiting */
	assert_true(ev_wait_ctr("ev-rmdir", "waiting", 1, 20000));
	assert_true(ev_opener_running(p1));
	group_del("ev-rmdir");
	assert_int_equal(opener_result(p1), 0);
	assert_int_equal(opener_result(p2), 0);
	assert_int_equal(ev_ctr(NULL, "allowed"), allowed + 2);
	/* the old fds: ENODEV, EPOLLERR|EPOLLHUP */
	assert_int_equal(ev_read(fd, &ev, -1), -ENODEV);
	assert_int_equal(ev_read(fd2, &ev, -1), -ENODEV);
	assert_int_equal(ev_answer(fd, ev.id, DAZUKOFS_DENY), -ENODEV);
	pfd.fd = fd;
	pfd.events = POLLIN;
	assert_int_equal(poll(&pfd, 1, 0), 1);
	assert_true(pfd.revents & POLLERR);
	assert_true(pfd.revents & POLLHUP);
	close(ev.fd);
	close(fd);
	close(fd2);
}

static void rmdir_wakes_blocked_reader(void **state)
{
	struct worker w;
	int id = group_new("ev-rmdir-rd");

	(void)state;
	worker_start(&w, dev_open(id));
	assert_true(worker_sleeping(&w, 20000));
	assert_false(worker_join(&w, 10));
	group_del("ev-rmdir-rd");
	assert_true(worker_join(&w, 20000));
	assert_int_equal(w.err, -ENODEV);
	assert_int_equal(ev_read(w.fd, &w.ev, -1), -ENODEV);
	close(w.fd);
}

static void dev_of_removed_group(void **state)
{
	char node[64], path[4096];
	struct stat st;
	int id = group_new("ev-enxio"), fd;

	(void)state;
	snprintf(node, sizeof(node), DAZUKOFS_DEV_PREFIX "%d", id);
	OK(stat(node, &st));
	assert_true(S_ISCHR(st.st_mode));
	group_del("ev-enxio");
	assert_int_equal(stat(node, &st) == 0 ? 0 : errno, ENOENT);
	/* a node of our own for the removed group's minor */
	snprintf(path, sizeof(path), "/tmp/ev-node");
	unlink(path);
	OK(mknod(path, S_IFCHR | 0600, st.st_rdev));
	fd = open(path, O_RDWR);
	assert_int_equal(fd, -1);
	assert_int_equal(errno, ENXIO);
	unlink(path);
}

static void nonblock_read(void **state)
{
	int id = group_new("ev-nonblock"), fd = ev_dev_open(id, O_NONBLOCK);
	char buf[DAZUKOFS_EVENT_MAX];

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf)), -1);
	assert_int_equal(errno, EAGAIN);
	close(fd);
	group_del("ev-nonblock");
}

static void poll_and_epoll(void **state)
{
	struct dazukofs_proto_event ev;
	int fd = dev_open(group_new("ev-poll")), ep;
	struct epoll_event ee = { .events = EPOLLIN }, out;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	pid_t pid;

	(void)state;
	ep = epoll_create1(EPOLL_CLOEXEC);
	OK(ep);
	ee.data.fd = fd;
	OK(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ee));
	assert_int_equal(poll(&pfd, 1, 0), 0);
	assert_int_equal(epoll_wait(ep, &out, 1, 0), 0);

	lower_file("poll", "p");
	pid = opener("poll");
	assert_int_equal(poll(&pfd, 1, 20000), 1);
	assert_true(pfd.revents & POLLIN);
	assert_int_equal(epoll_wait(ep, &out, 1, 20000), 1);
	assert_true(out.events & EPOLLIN);
	assert_int_equal(out.data.fd, fd);

	read_ev(fd, &ev);
	/* taken: not readable any more */
	assert_int_equal(poll(&pfd, 1, 0), 0);
	assert_int_equal(epoll_wait(ep, &out, 1, 0), 0);
	answer(fd, ev.id, DAZUKOFS_ALLOW);
	assert_int_equal(opener_result(pid), 0);
	close(ev.fd);
	close(ep);
	close(fd);
	group_del("ev-poll");
}

static void sigkill_waiting_opener(void **state)
{
	int id = group_new("ev-kill"), fd = ev_dev_open(id, O_NONBLOCK);
	long long gev, gcan, can, events;
	struct dazukofs_proto_event ev;
	pid_t pid;

	(void)state;
	assert_true(fd >= 0);
	lower_file("kill", "k");
	gcan = ev_ctr("ev-kill", "cancelled");
	can = ev_ctr(NULL, "cancelled");
	pid = opener("kill");
	assert_true(ev_wait_ctr("ev-kill", "waiting", 1, 20000));
	gev = ev_ctr("ev-kill", "events");
	events = ev_ctr(NULL, "events");
	OK(kill(pid, SIGKILL));
	assert_int_equal(ev_opener_wait(pid, 5000), EV_SIGNALLED(SIGKILL));
	assert_true(ev_wait_ctr("ev-kill", "cancelled", gcan + 1, 5000));
	assert_int_equal(ev_ctr("ev-kill", "waiting"), 0);
	assert_int_equal(ev_ctr("ev-kill", "in_hand"), 0);
	assert_int_equal(ev_ctr("ev-kill", "events"), gev);
	assert_int_equal(ev_ctr(NULL, "cancelled"), can + 1);
	assert_int_equal(ev_ctr(NULL, "waiting"), 0);
	assert_int_equal(ev_ctr(NULL, "events"), events);
	/* withdrawn: nothing to read */
	assert_int_equal(ev_read(fd, &ev, -1), -EAGAIN);
	close(fd);
	group_del("ev-kill");
}

/*
 * A killed opener whose event is in a worker's hands: the event is
 * withdrawn (cancelled) at once, the worker's late answer gets ENOENT,
 * and nothing pins the lower any more: the dazukofs mount and the lower
 * under it unmount, without the worker answering.  The worker closed the
 * event's fd, and keeps its device open throughout.
 */
static const char klower[] = "/mnt/ev-kill-lower", kmnt[] = "/mnt/ev-kill";

/* The teardown of sigkill_opener_in_hand(): its mounts too, if left. */
static int cleanup_kill_mounts(void **state)
{
	cleanup(state);
	umount2(kmnt, MNT_DETACH);
	umount2(klower, MNT_DETACH);
	return 0;
}

static void sigkill_opener_in_hand(void **state)
{
	int id = group_new("ev-killh"), fd = dev_open(id);
	long long gcan, can, gev;
	struct dazukofs_proto_event ev;
	char path[4096];
	int um_mnt, um_lower, err;
	pid_t pid;

	(void)state;
	mkdir(klower, 0755);
	mkdir(kmnt, 0755);
	OK(mount("ev-kill", klower, "tmpfs", 0, "size=1m"));
	if (mount(klower, kmnt, "dazukofs", 0, NULL)) {
		err = errno;
		umount2(klower, MNT_DETACH);
		fail_msg("mount dazukofs: %s", strerror(err));
	}
	snprintf(path, sizeof(path), "%s/file", klower);
	err = open(path, O_WRONLY | O_CREAT, 0644);
	OK(err);
	close(err);
	snprintf(path, sizeof(path), "%s/file", kmnt);
	gcan = ev_ctr("ev-killh", "cancelled");
	can = ev_ctr(NULL, "cancelled");
	pid = ev_opener(path);
	OK(pid);
	kids[nkids++] = pid;
	read_ev(fd, &ev);
	close(ev.fd);
	gev = ev_ctr("ev-killh", "events");
	OK(kill(pid, SIGKILL));
	assert_int_equal(ev_opener_wait(pid, 5000), EV_SIGNALLED(SIGKILL));
	/* The opener withdrew its event before it exited. */
	um_mnt = umount2(kmnt, 0) ? errno : 0;
	um_lower = umount2(klower, 0) ? errno : 0;
	if (um_mnt || um_lower)
		fail_msg("umount with the worker's event outstanding: %s, %s",
			 strerror(um_mnt), strerror(um_lower));
	assert_true(ev_wait_ctr("ev-killh", "cancelled", gcan + 1, 5000));
	assert_int_equal(ev_ctr("ev-killh", "in_hand"), 0);
	assert_int_equal(ev_ctr("ev-killh", "waiting"), 0);
	assert_int_equal(ev_ctr("ev-killh", "events"), gev);
	assert_int_equal(ev_ctr(NULL, "cancelled"), can + 1);
	/* The answer comes too late, and leaves no trace. */
	assert_int_equal(ev_answer(fd, ev.id, DAZUKOFS_DENY), -ENOENT);
	assert_int_equal(ev_ctr("ev-killh", "denied"), 0);
	close(fd);
	group_del("ev-killh");
}

static volatile sig_atomic_t got_term, got_int;
static void on_signal(int sig)
{
	if (sig == SIGTERM)
		got_term = 1;
	else
		got_int = 1;
}

/* Are @mask's signals pending for process @pid (ShdPnd)? */
static bool signals_pending(pid_t pid, unsigned long long mask, int ms)
{
	long long end = ev_now_ms() + ms;
	char path[64], line[256];

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	for (;;) {
		FILE *f = fopen(path, "r");
		unsigned long long pnd = 0;

		if (f) {
			while (fgets(line, sizeof(line), f))
				if (sscanf(line, "ShdPnd: %llx", &pnd) == 1)
					break;
			fclose(f);
		}
		if ((pnd & mask) == mask)
			return true;
		if (ev_now_ms() > end)
			return false;
		ev_nap();
	}
}

static void signals_do_not_interrupt(int verdict)
{
	struct dazukofs_proto_event ev;
	int fd = dev_open(group_new("ev-signal"));
	char path[4096];
	pid_t pid;

	lower_file("signal", "s");
	snprintf(path, sizeof(path), "%s/signal", mnt);
	pid = fork();
	OK(pid);
	if (pid == 0) {
		struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART */
		int f;

		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
		f = open(path, O_RDONLY);
		if (!got_term || !got_int)
			_exit(100);	/* the handlers did not run */
		_exit(f < 0 ? errno : 0);
	}
	kids[nkids++] = pid;
	read_ev(fd, &ev);
	assert_int_equal(ev.pid, pid);
	OK(kill(pid, SIGTERM));
	OK(kill(pid, SIGINT));
	assert_true(signals_pending(pid, (1ULL << (SIGTERM - 1)) |
				    (1ULL << (SIGINT - 1)), 5000));
	assert_true(ev_opener_running(pid));
	answer(fd, ev.id, verdict);
	assert_int_equal(opener_result(pid), verdict ? EPERM : 0);
	close(ev.fd);
	close(fd);
	group_del("ev-signal");
}

static void sigterm_sigint_do_not_interrupt(void **state)
{
	(void)state;
	signals_do_not_interrupt(DAZUKOFS_ALLOW);
	signals_do_not_interrupt(DAZUKOFS_DENY);
}

/* Opening @path (flags) in a child completes without any worker. */
static void open_makes_no_event(const char *path, int flags)
{
	pid_t pid = fork();

	OK(pid);
	if (pid == 0) {
		int f = open(path, flags);

		_exit(f < 0 ? errno : 0);
	}
	kids[nkids++] = pid;
	assert_int_equal(ev_opener_wait(pid, 20000), 0);
}

static void dir_and_fifo_make_no_event(void **state)
{
	long long events = ev_ctr(NULL, "events");
	char path[4096];

	(void)state;
	group_new("ev-nodir");
	snprintf(path, sizeof(path), "%s/ev-dir", mnt);
	rmdir(path);
	OK(mkdir(path, 0755));
	open_makes_no_event(path, O_RDONLY | O_DIRECTORY);
	snprintf(path, sizeof(path), "%s/ev-fifo", mnt);
	unlink(path);
	OK(mkfifo(path, 0644));
	open_makes_no_event(path, O_RDWR);
	open_makes_no_event(path, O_RDONLY | O_NONBLOCK);
	open_makes_no_event(mnt, O_RDONLY);
	assert_int_equal(ev_ctr(NULL, "events"), events);
	assert_int_equal(ev_ctr("ev-nodir", "events"), 0);
	assert_int_equal(ev_ctr("ev-nodir", "waiting"), 0);
	group_del("ev-nodir");
	unlink(path);
	snprintf(path, sizeof(path), "%s/ev-dir", mnt);
	rmdir(path);
}

static void assert_bad_name(const char *name)
{
	int id = ev_group_mkdir(name);

	if (id >= 0) {
		ev_group_rmdir(name);
		fail_msg("mkdir \"%s\" succeeded (id %d)", name, id);
	}
	if (id != -EINVAL)
		fail_msg("mkdir \"%s\": %s, want EINVAL", name, strerror(-id));
}

static void group_names(void **state)
{
	char name[DAZUKOFS_GROUP_NAME_MAX + 2];

	(void)state;
	memset(name, 'n', DAZUKOFS_GROUP_NAME_MAX + 1);
	name[DAZUKOFS_GROUP_NAME_MAX + 1] = '\0';
	assert_bad_name(name);		/* 65 characters */
	assert_bad_name("a.b");
	assert_bad_name("a b");
	assert_bad_name("\xc3\xa4");	/* "ä" in UTF-8 */
	assert_bad_name("a:b");
	assert_bad_name("a+b");
	assert_bad_name("a\tb");
	assert_bad_name("a\nb");
	name[DAZUKOFS_GROUP_NAME_MAX] = '\0';	/* 64: fine */
	group_new(name);
	group_del(name);
	group_new("Az09_-");
	group_del("Az09_-");
	group_new("x");
	group_del("x");
}

/* Latin-1 letters are not [A-Za-z0-9_-] either. */
static void group_names_latin1(void **state)
{
	(void)state;
	assert_bad_name("\xe4");	/* "ä" in Latin-1 */
	assert_bad_name("a\xc0z");
	assert_bad_name("\xdf");
}

static bool dev_exists(int id)
{
	char node[64];
	struct stat st;

	snprintf(node, sizeof(node), DAZUKOFS_DEV_PREFIX "%d", id);
	return stat(node, &st) == 0 && S_ISCHR(st.st_mode);
}

static void dev_node_follows_group(void **state)
{
	int id;

	(void)state;
	id = group_new("ev-node");
	assert_true(dev_exists(id));
	assert_int_equal(ev_ctr("ev-node", "id"), id);
	group_del("ev-node");
	assert_false(dev_exists(id));
	assert_int_equal(ev_ctr("ev-node", "id"), -1000000 - ENOENT);
}

static void sixty_four_groups(void **state)
{
	enum { N = 64 };
	char name[32];
	int fds[N], i;
	struct dazukofs_proto_event ev;
	pid_t pid;

	(void)state;
	for (i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "ev-g%02d", i);
		assert_int_equal(group_new(name), i);
		assert_true(dev_exists(i));
		/*
		 * each takes part before its worker opens the device below:
		 * untracked, as in 2009, or it would skip events until then
		 */
		assert_int_equal(ev_group_write(name, "track", "0"), 0);
		assert_int_equal(ev_group_arm(name), 0);
	}
	/* one open, 64 answers */
	lower_file("g64", "g");
	pid = opener("g64");
	for (i = 0; i < N; i++) {
		fds[i] = dev_open(i);
		read_ev(fds[i], &ev);
		assert_int_equal(ev.pid, pid);
		close(ev.fd);
		if (i < N - 1)
			assert_true(ev_opener_running(pid));
		answer(fds[i], ev.id, DAZUKOFS_ALLOW);
		close(fds[i]);
	}
	assert_int_equal(opener_result(pid), 0);

	/* the smallest free id is reused */
	group_del("ev-g10");
	assert_false(dev_exists(10));
	assert_int_equal(group_new("ev-g10-again"), 10);
	assert_true(dev_exists(10));
	group_del("ev-g10-again");
	group_del("ev-g20");
	group_del("ev-g05");
	/* free: 5, 10, 20, and 64 on */
	assert_int_equal(group_new("ev-g05-again"), 5);
	assert_int_equal(group_new("ev-g10-again"), 10);
	assert_int_equal(group_new("ev-g20-again"), 20);
	assert_int_equal(group_new("ev-g64"), 64);
	group_del("ev-g05-again");
	group_del("ev-g10-again");
	group_del("ev-g20-again");
	group_del("ev-g64");
	for (i = 0; i < N; i++) {
		if (i == 5 || i == 10 || i == 20)
			continue;
		snprintf(name, sizeof(name), "ev-g%02d", i);
		group_del(name);
	}
	for (i = 0; i <= N; i++)
		assert_false(dev_exists(i));
}

static const char *const lat_names[] = {
	"latency/le_100us", "latency/le_1ms", "latency/le_10ms",
	"latency/le_100ms", "latency/le_1s", "latency/gt_1s",
};

static long long lat_sum(const char *group)
{
	long long s = 0;
	size_t i;

	for (i = 0; i < sizeof(lat_names) / sizeof(lat_names[0]); i++)
		s += ev_ctr(group, lat_names[i]);
	return s;
}

static void counters_exact(void **state)
{
	static const int verdicts[][2] = {
		{ 0, 0 }, { 1, 0 }, { 0, 1 }, { 1, 1 }, { 0, 0 },
	};
	enum { N = sizeof(verdicts) / sizeof(verdicts[0]) };
	long long a0[NSTATS], a1[NSTATS], x0[NSTATS], x1[NSTATS],
		  y0[NSTATS], y1[NSTATS], alat, xlat, ylat, amax;
	int fx, fy, i;

	(void)state;
	snap(NULL, a0);
	alat = lat_sum(NULL);
	amax = ev_ctr(NULL, "latency/max_us");
	fx = dev_open(group_new("ev-ctr-x"));
	fy = dev_open(group_new("ev-ctr-y"));
	snap("ev-ctr-x", x0);
	snap("ev-ctr-y", y0);
	assert_int_equal(x0[0], 0);
	assert_int_equal(x0[6], 1);	/* readers */
	assert_int_equal(ev_ctr(NULL, "readers"), a0[6] + 2);
	xlat = lat_sum("ev-ctr-x");
	ylat = lat_sum("ev-ctr-y");
	assert_int_equal(xlat, 0);

	lower_file("ctr", "c");
	for (i = 0; i < N; i++) {
		struct dazukofs_proto_event ex, ey;
		pid_t pid = opener("ctr");

		read_ev(fx, &ex);
		read_ev(fy, &ey);
		answer(fx, ex.id, verdicts[i][0]);
		answer(fy, ey.id, verdicts[i][1]);
		assert_int_equal(opener_result(pid),
				 verdicts[i][0] || verdicts[i][1] ? EPERM : 0);
		close(ex.fd);
		close(ey.fd);
	}
	snap(NULL, a1);
	snap("ev-ctr-x", x1);
	snap("ev-ctr-y", y1);
	/* events allowed denied cancelled waiting in_hand readers */
	{
		const long long da[NSTATS] = { 5, 2, 3, 0, 0, 0, 2 };
		const long long dx[NSTATS] = { 5, 3, 2, 0, 0, 0, 0 };
		const long long dy[NSTATS] = { 5, 3, 2, 0, 0, 0, 0 };
		size_t k;

		for (k = 0; k < NSTATS; k++) {
			if (a1[k] - a0[k] != da[k])
				fail_msg("global %s: +%lld, want +%lld",
					 stat_names[k], a1[k] - a0[k], da[k]);
			if (x1[k] - x0[k] != dx[k])
				fail_msg("x %s: +%lld, want +%lld",
					 stat_names[k], x1[k] - x0[k], dx[k]);
			if (y1[k] - y0[k] != dy[k])
				fail_msg("y %s: +%lld, want +%lld",
					 stat_names[k], y1[k] - y0[k], dy[k]);
		}
	}
	/* every verdict has a latency */
	assert_int_equal(lat_sum(NULL) - alat, N);
	assert_int_equal(lat_sum("ev-ctr-x") - xlat, N);
	assert_int_equal(lat_sum("ev-ctr-y") - ylat, N);
	assert_true(ev_ctr(NULL, "latency/max_us") >= amax);
	/* per group: events = allowed + denied + cancelled + waiting + in_hand */
	assert_int_equal(x1[0], x1[1] + x1[2] + x1[3] + x1[4] + x1[5]);
	assert_int_equal(y1[0], y1[1] + y1[2] + y1[3] + y1[4] + y1[5]);

	close(fx);
	assert_true(ev_wait_ctr("ev-ctr-x", "readers", 0, 5000));
	close(fy);
	assert_true(ev_wait_ctr(NULL, "readers", a0[6], 5000));
	group_del("ev-ctr-x");
	group_del("ev-ctr-y");
}

/* Write @val to configfs attribute @attr of group @name: 0 or -errno. */
static int cfg_write(const char *name, const char *attr, const char *val)
{
	char path[256];
	int fd, err = 0;

	snprintf(path, sizeof(path), DAZUKOFS_CONFIGFS_ROOT "/%s/%s", name,
		 attr);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		err = -errno;
	close(fd);
	return err;
}

static void expect_cfg(const char *name, const char *attr, const char *want)
{
	char buf[64];
	int n = ev_group_read(name, attr, buf, sizeof(buf));

	if (n < 0)
		fail_msg("read %s of group %s: %s", attr, name, strerror(-n));
	assert_string_equal(buf, want);
}

/* The group's counters add up (see Documentation: Counters). */
static void assert_group_sum(const char *g)
{
	assert_int_equal(ev_ctr(g, "events"),
			 ev_ctr(g, "allowed") + ev_ctr(g, "denied") +
			 ev_ctr(g, "cancelled") + ev_ctr(g, "timeouts") +
			 ev_ctr(g, "open_errors") + ev_ctr(g, "overflows") +
			 ev_ctr(g, "waiting") + ev_ctr(g, "in_hand"));
}

/*
 * Open @path in a child that became nobody (become_nobody()).  Return: 0
 * if the open worked, else its errno.
 */
static int open_as_nobody(const char *path, bool sys_admin)
{
	pid_t pid = fork();
	int status;

	OK(pid);
	if (pid == 0) {
		int fd;

		if (become_nobody(sys_admin))
			_exit(100);
		fd = open(path, O_RDWR | O_CLOEXEC);
		_exit(fd < 0 ? errno : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_true(WEXITSTATUS(status) < 100);
	return WEXITSTATUS(status);
}

#define IGN_DEV DAZUKOFS_DEV_PREFIX "ign"
static mode_t ign_mode_saved;

/* The ignore device's mode back, whatever devices_need_cap_sys_admin did. */
static int cleanup_ign_mode(void **state)
{
	if (ign_mode_saved)
		chmod(IGN_DEV, ign_mode_saved);
	ign_mode_saved = 0;
	return cleanup(state);
}

/*
 * A group device or the ignore device whose mode lets anyone in still
 * refuses a process without CAP_SYS_ADMIN, before it counts as a worker
 * or is exempt; a non-root process with that capability opens both.
 */
static void devices_need_cap_sys_admin(void **state)
{
	const char *ign = IGN_DEV;
	char dev[64];
	struct stat ign_st;
	int id;

	(void)state;
	id = group_new("ev-cap");
	snprintf(dev, sizeof(dev), DAZUKOFS_DEV_PREFIX "%d", id);
	OK(stat(ign, &ign_st));
	ign_mode_saved = ign_st.st_mode & 07777;
	OK(chmod(dev, 0666));
	OK(chmod(ign, 0666));
	assert_int_equal(open_as_nobody(dev, false), EPERM);
	assert_int_equal(open_as_nobody(ign, false), EPERM);
	assert_int_equal(ev_ctr("ev-cap", "readers"), 0);
	assert_int_equal(open_as_nobody(dev, true), 0);
	assert_int_equal(open_as_nobody(ign, true), 0);
	group_del("ev-cap");
}

/*
 * max_queue bounds the events a group holds unsettled, waiting or in
 * hand: one more is settled at once by overflow_action (deny by default)
 * and counted in overflows, without waiting for a worker.
 */
static void queue_overflow(void **state)
{
	static const char *const bad[] = {
		"0", "1048577", "-1", "abc", "\n", "2x", "4294967298",
	};
	int fd = dev_open(group_new("ev-ovf"));
	long long govf = ev_ctr(NULL, "overflows");
	struct dazukofs_proto_event ev1, ev2;
	pid_t o1, o2, o3, o4, o5;
	size_t i;

	(void)state;
	expect_cfg("ev-ovf", "max_queue", "16384\n");
	expect_cfg("ev-ovf", "overflow_action", "deny\n");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (cfg_write("ev-ovf", "max_queue", bad[i]) != -EINVAL)
			fail_msg("max_queue '%s' accepted", bad[i]);
	}
	assert_int_equal(cfg_write("ev-ovf", "overflow_action", "maybe"),
			 -EINVAL);
	expect_cfg("ev-ovf", "max_queue", "16384\n");
	expect_cfg("ev-ovf", "overflow_action", "deny\n");
	assert_int_equal(cfg_write("ev-ovf", "max_queue", "1048576"), 0);
	assert_int_equal(cfg_write("ev-ovf", "max_queue", "2\n"), 0);
	expect_cfg("ev-ovf", "max_queue", "2\n");

	lower_file("ovf", "o");
	o1 = opener("ovf");
	o2 = opener("ovf");
	assert_true(ev_wait_ctr("ev-ovf", "waiting", 2, 20000));
	/* Full: the third is denied at once, with nobody reading. */
	o3 = opener("ovf");
	assert_int_equal(ev_opener_wait(o3, 10000), EPERM);
	assert_int_equal(ev_ctr("ev-ovf", "overflows"), 1);
	assert_int_equal(ev_ctr(NULL, "overflows"), govf + 1);
	assert_int_equal(ev_ctr("ev-ovf", "events"), 3);
	assert_int_equal(ev_ctr("ev-ovf", "waiting"), 2);
	assert_true(ev_opener_running(o1));
	assert_true(ev_opener_running(o2));
	assert_group_sum("ev-ovf");

	/* An event in hand still counts; overflow_action allow lets through. */
	read_ev(fd, &ev1);
	assert_int_equal(cfg_write("ev-ovf", "overflow_action", "allow"), 0);
	o4 = opener("ovf");
	assert_int_equal(ev_opener_wait(o4, 10000), 0);
	assert_int_equal(ev_ctr("ev-ovf", "overflows"), 2);
	assert_int_equal(ev_ctr("ev-ovf", "allowed"), 0);
	assert_group_sum("ev-ovf");

	/*
	 * Room again once one is answered.  o1 and o2 raced to post: ev1
	 * is whichever came first.
	 */
	assert_true(ev1.pid == o1 || ev1.pid == o2);
	if (ev1.pid == o2) {
		o2 = o1;
		o1 = ev1.pid;
	}
	answer(fd, ev1.id, DAZUKOFS_ALLOW);
	close(ev1.fd);
	assert_int_equal(opener_result(o1), 0);
	o5 = opener("ovf");
	assert_true(ev_wait_ctr("ev-ovf", "waiting", 2, 20000));
	read_ev(fd, &ev1);
	read_ev(fd, &ev2);
	answer(fd, ev1.id, DAZUKOFS_DENY);
	answer(fd, ev2.id, DAZUKOFS_DENY);
	close(ev1.fd);
	close(ev2.fd);
	assert_int_equal(opener_result(o2), EPERM);
	assert_int_equal(opener_result(o5), EPERM);
	assert_int_equal(ev_ctr("ev-ovf", "overflows"), 2);
	assert_int_equal(ev_ctr("ev-ovf", "events"), 5);
	assert_group_sum("ev-ovf");
	close(fd);
	group_del("ev-ovf");
}

/* Write @val to the file @path: 0 or -errno. */
/*
 * busy_poll_us makes waiters spin before they sleep: bad values are
 * refused and change nothing; with the largest set, a reader with nothing
 * to take and an opener whose answer is late still go to sleep (past
 * their spin) and are woken; verdicts given at once reach the opener as
 * they are; a killed opener dies and its event is withdrawn.
 */
static void busy_poll(void **state)
{
	static const char *const bad[] = {
		"1001", "-1", "abc", "\n", "2x", "4294967296",
	};
	int fd = dev_open(group_new("ev-bpoll"));
	struct dazukofs_proto_event ev;
	char max[16];
	struct worker w;
	pid_t pid;
	size_t i;

	(void)state;
	expect_cfg("ev-bpoll", "busy_poll_us", "0\n");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(cfg_write("ev-bpoll", "busy_poll_us", bad[i]),
				 -EINVAL);
		expect_cfg("ev-bpoll", "busy_poll_us", "0\n");
	}
	snprintf(max, sizeof(max), "%u", DAZUKOFS_BUSY_POLL_US_MAX);
	assert_int_equal(cfg_write("ev-bpoll", "busy_poll_us", max), 0);
	strcat(max, "\n");
	expect_cfg("ev-bpoll", "busy_poll_us", max);

	lower_file("bpoll", "b");
	worker_start(&w, fd);
	assert_true(worker_sleeping(&w, 20000));
	pid = opener("bpoll");
	assert_true(worker_join(&w, 20000));
	assert_int_equal(w.err, 0);
	/* TASK_KILLABLE shows as D */
	assert_true(task_reaches(pid, 'D', 20000));
	answer(fd, w.ev.id, DAZUKOFS_DENY);
	assert_int_equal(opener_result(pid), EPERM);
	close(w.ev.fd);

	for (i = 0; i < 20; i++) {
		int verdict = i % 2 ? DAZUKOFS_DENY : DAZUKOFS_ALLOW;

		pid = opener("bpoll");
		read_ev(fd, &ev);
		answer(fd, ev.id, verdict);
		assert_int_equal(opener_result(pid), verdict ? EPERM : 0);
		close(ev.fd);
	}

	pid = opener("bpoll");
	read_ev(fd, &ev);
	OK(kill(pid, SIGKILL));
	assert_int_equal(ev_opener_wait(pid, 20000), EV_SIGNALLED(SIGKILL));
	assert_int_equal(ev_answer(fd, ev.id, DAZUKOFS_ALLOW), -ENOENT);
	close(ev.fd);
	assert_true(ev_wait_ctr("ev-bpoll", "in_hand", 0, 20000));
	assert_group_sum("ev-bpoll");
	close(fd);
	group_del("ev-bpoll");
}

static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		err = -errno;
	close(fd);
	return err;
}

/* Read the file @path into @buf (NUL-terminated) if it can be read. */
static void read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return;
	n = read(fd, buf, size - 1);
	if (n > 0)
		buf[n] = '\0';
	close(fd);
}

/*
 * An opener waiting for a verdict can be frozen: suspend (here the
 * freezer test of suspend to idle) succeeds while it waits, and the
 * verdict reaches it after the thaw.  An opener that cannot be frozen
 * makes freezing fail after pm_freeze_timeout, and the write with EBUSY.
 */
static void freeze_waiting_opener(void **state)
{
	static const char pm_test[] = "/sys/power/pm_test";
	static const char pm_timeout[] = "/sys/power/pm_freeze_timeout";
	/* The test mode's busy wait (5 s by default): a soft lockup on TCG. */
	static const char pm_delay[] = "/sys/module/suspend/parameters/pm_test_delay";
	struct dazukofs_proto_event ev;
	char old_timeout[32] = "20000", old_delay[32] = "5";
	int fd, err;
	long long t0;
	pid_t pid;

	(void)state;
	if (access(pm_test, W_OK)) {
		print_message("no %s (CONFIG_PM_DEBUG): skipped\n", pm_test);
		skip();
	}
	fd = dev_open(group_new("ev-freeze"));
	lower_file("freeze", "f");
	pid = opener("freeze");
	assert_true(ev_wait_ctr("ev-freeze", "waiting", 1, 20000));

	read_file(pm_timeout, old_timeout, sizeof(old_timeout));
	read_file(pm_delay, old_delay, sizeof(old_delay));
	/* Fail in 5 s, not 20, when something cannot be frozen. */
	assert_int_equal(write_file(pm_timeout, "5000"), 0);
	assert_int_equal(write_file(pm_delay, "0"), 0);
	assert_int_equal(write_file(pm_test, "freezer"), 0);
	t0 = ev_now_ms();
	err = write_file("/sys/power/state", "freeze");
	write_file(pm_test, "none");
	write_file(pm_delay, old_delay);
	write_file(pm_timeout, old_timeout);
	if (err)
		fail_msg("freeze with an opener waiting: %s after %lld ms",
			 strerror(-err), ev_now_ms() - t0);

	/* Thawed: still waiting, and the verdict reaches it. */
	assert_true(ev_opener_running(pid));
	read_ev(fd, &ev);
	answer(fd, ev.id, DAZUKOFS_DENY);
	assert_int_equal(opener_result(pid), EPERM);
	close(ev.fd);
	close(fd);
	group_del("ev-freeze");
}

/*
 * The fd a worker gets makes no fsnotify events on the lower and leaves
 * its atime alone: an inotify watch on the lower file sees nothing of the
 * worker opening, reading and closing it.
 */
static void worker_fd_makes_no_notifications(void **state)
{
	struct timespec ts[2] = { { 1, 0 }, { 0, UTIME_NOW } };
	int fd = dev_open(group_new("ev-nonotify"));
	struct dazukofs_proto_event ev;
	char path[4096], buf[4096];
	struct stat st;
	ssize_t n;
	int in;
	pid_t pid;

	(void)state;
	lower_file("nonotify", "quiet");
	snprintf(path, sizeof(path), "%s/nonotify", lower);
	/* An atime before the mtime: relatime would update it on a read. */
	OK(utimensat(AT_FDCWD, path, ts, 0));
	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	OK(in);
	OK(inotify_add_watch(in, path, IN_ALL_EVENTS));

	pid = opener("nonotify");
	read_ev(fd, &ev);
	assert_int_equal(pread(ev.fd, buf, sizeof(buf), 0), 5);
	close(ev.fd);
	/* The opener waits: it has not opened the lower file yet. */
	n = read(in, buf, sizeof(buf));
	if (n > 0) {
		const struct inotify_event *ie = (const void *)buf;

		fail_msg("the worker's fd made inotify event mask 0x%x",
			 ie->mask);
	}
	assert_int_equal(n, -1);
	assert_int_equal(errno, EAGAIN);
	OK(stat(path, &st));
	assert_int_equal(st.st_atim.tv_sec, 1);

	answer(fd, ev.id, DAZUKOFS_ALLOW);
	assert_int_equal(opener_result(pid), 0);
	/* The opener's own open is seen: the watch works. */
	assert_true(read(in, buf, sizeof(buf)) > 0);
	close(in);
	close(fd);
	group_del("ev-nonotify");
}

/*
 * A fanotify listener on a dazukofs mount gets its event fds without
 * making dazukofs events (they carry FMODE_NONOTIFY): its read() does not
 * wait for a dazukofs worker.
 */
static void fanotify_fd_makes_no_event(void **state)
{
	int fd = dev_open(group_new("ev-fan"));
	struct dazukofs_proto_event ev;
	char path[4096];
	int fan, st;
	pid_t pid, reader;

	(void)state;
	lower_file("fan", "f");
	snprintf(path, sizeof(path), "%s/fan", mnt);
	fan = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC, O_RDONLY);
	OK(fan);
	OK(fanotify_mark(fan, FAN_MARK_ADD, FAN_CLOSE_NOWRITE, AT_FDCWD, path));

	pid = opener("fan");
	read_ev(fd, &ev);
	answer(fd, ev.id, DAZUKOFS_ALLOW);
	close(ev.fd);
	assert_int_equal(opener_result(pid), 0);
	assert_int_equal(ev_ctr("ev-fan", "events"), 1);

	/* Reading the fanotify event opens the file on the mount. */
	reader = fork();
	OK(reader);
	if (reader == 0) {
		struct fanotify_event_metadata md[4];
		ssize_t n = read(fan, md, sizeof(md));

		_exit(n >= (ssize_t)sizeof(md[0]) && md[0].fd >= 0 ? 0 : 1);
	}
	kids[nkids++] = reader;
	st = ev_opener_wait(reader, 10000);
	if (st != 0) {
		/* Old behaviour: the read waits for a verdict; give it. */
		if (ev_read(fd, &ev, 1000) == 0) {
			answer(fd, ev.id, DAZUKOFS_ALLOW);
			close(ev.fd);
		}
		fail_msg("fanotify read: %d (events %lld)", st,
			 ev_ctr("ev-fan", "events"));
	}
	assert_int_equal(ev_ctr("ev-fan", "events"), 1);
	close(fan);
	close(fd);
	group_del("ev-fan");
}

#define LIMIT_NAME "ev-lim%03d"

static int cleanup_limit(void **state)
{
	char name[32];
	int i;

	for (i = 0; i < DAZUKOFS_MAX_GROUPS; i++) {
		snprintf(name, sizeof(name), LIMIT_NAME, i);
		ev_group_rmdir(name);
	}
	ev_group_rmdir("ev-lim-again");
	ev_group_rmdir("ev-lim-over");
	return cleanup(state);
}

/*
 * With every id taken, mkdir fails with ENOSPC and leaves no directory,
 * device or reserved id behind: a freed id is the next one given.
 */
static void group_limit(void **state)
{
	char name[32];
	int i, id;

	(void)state;
	for (i = 0; i < DAZUKOFS_MAX_GROUPS; i++) {
		snprintf(name, sizeof(name), LIMIT_NAME, i);
		id = ev_group_mkdir(name);
		if (id != i)
			fail_msg("mkdir %s: %d, expected id %d", name, id, i);
	}
	assert_int_equal(ev_group_mkdir("ev-lim-over"), -ENOSPC);
	assert_int_equal(access(DAZUKOFS_CONFIGFS_ROOT "/ev-lim-over", F_OK), -1);
	assert_int_equal(access(DAZUKOFS_SYSFS_GROUPS "/ev-lim-over", F_OK), -1);
	assert_int_equal(ev_group_mkdir("ev-lim-over"), -ENOSPC);

	snprintf(name, sizeof(name), LIMIT_NAME, 100);
	assert_int_equal(ev_group_rmdir(name), 0);
	assert_false(dev_exists(100));
	assert_int_equal(ev_group_mkdir("ev-lim-again"), 100);
	assert_true(dev_exists(100));
	assert_int_equal(ev_group_mkdir("ev-lim-over"), -ENOSPC);
}

/* A reader's loop: 0 while every read gave a number or failed cleanly. */
static int read_race_files(const char *const *files, int nfiles)
{
	char buf[64];
	int i, fd;
	ssize_t n;

	for (i = 0; i < nfiles; i++) {
		fd = open(files[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			if (errno != ENOENT && errno != ENXIO && errno != ENODEV)
				return 10 + i;
			continue;
		}
		n = read(fd, buf, sizeof(buf) - 1);
		if (n < 0 && errno != ENODEV && errno != ENOENT) {
			close(fd);
			return 20 + i;
		}
		/* a group device's read blocks: it is opened, never read */
		if (n > 0 && (buf[0] < '0' || buf[0] > '9') && buf[0] != '-') {
			close(fd);
			return 30 + i;
		}
		close(fd);
	}
	return 0;
}

/*
 * The group's sysfs and configfs files and its device, used while the
 * group is made and removed over and over: every use succeeds or fails
 * cleanly, and (on the debug kernel) nothing touches freed memory.
 */
static void files_used_while_group_goes(void **state)
{
	static const char *const files[] = {
		DAZUKOFS_SYSFS_GROUPS "/ev-race/events",
		DAZUKOFS_SYSFS_GROUPS "/ev-race/id",
		DAZUKOFS_SYSFS_GROUPS "/ev-race/active",
		DAZUKOFS_SYSFS_GROUPS "/ev-race/latency/max_us",
		DAZUKOFS_CONFIGFS_ROOT "/ev-race/id",
		DAZUKOFS_CONFIGFS_ROOT "/ev-race/max_queue",
	};
	long long deadline = ev_now_ms() + 3000;
	int cycles = 0, st, id, first;
	char dev[64];
	pid_t pid;

	(void)state;
	/* the smallest free id, which every cycle below gets again */
	first = ev_group_mkdir("ev-race");
	assert_true(first >= 0);
	assert_int_equal(ev_group_rmdir("ev-race"), 0);
	snprintf(dev, sizeof(dev), DAZUKOFS_DEV_PREFIX "%d", first);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		for (;;) {
			int fd, rc = read_race_files(files, 6);

			if (rc)
				_exit(rc);
			fd = open(dev, O_RDWR | O_CLOEXEC);
			if (fd < 0 && errno != ENOENT && errno != ENXIO)
				_exit(40);
			if (fd >= 0)
				close(fd);
		}
	}
	kids[nkids++] = pid;
	/* a cycle waits for an RCU grace period: slow on the debug kernel */
	while (cycles < 10 || ev_now_ms() < deadline) {
		id = ev_group_mkdir("ev-race");
		if (id != first)
			fail_msg("mkdir ev-race: %d in cycle %d, expected id %d",
				 id, cycles, first);
		assert_int_equal(ev_group_rmdir("ev-race"), 0);
		if (waitpid(pid, &st, WNOHANG) == pid)
			fail_msg("the reader stopped: status %#x after %d cycles",
				 st, cycles);
		cycles++;
		if (ev_now_ms() > deadline + 120000)
			break;
	}
	print_message("%d cycles\n", cycles);
	assert_true(cycles >= 10);
}

static void no_group_left(void **state)
{
	char path[64];
	int i;

	(void)state;
	for (i = 0; i < DAZUKOFS_MAX_GROUPS; i++) {
		snprintf(path, sizeof(path), DAZUKOFS_DEV_PREFIX "%d", i);
		if (access(path, F_OK) == 0)
			fail_msg("%s left", path);
	}
	assert_int_equal(ev_ctr(NULL, "waiting"), 0);
	assert_int_equal(ev_ctr(NULL, "in_hand"), 0);
	assert_int_equal(ev_ctr(NULL, "readers"), 0);
}

#define T(f) cmocka_unit_test_teardown(f, cleanup)

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		T(no_group_allows),
		T(one_group_allows),
		T(one_group_denies),
		T(create_race_denied),
		T(two_groups_one_denies),
		T(two_groups_both_allow),
		T(workers_hold_distinct_events),
		T(one_event_wakes_one_reader),
		T(event_fd_properties),
		T(event_pid_is_opener),
		T(bad_writes_change_nothing),
		T(answer_from_other_process),
		T(small_read_buffer),
		T(rmdir_settles_events),
		T(rmdir_wakes_blocked_reader),
		T(dev_of_removed_group),
		T(nonblock_read),
		T(poll_and_epoll),
		T(sigkill_waiting_opener),
		cmocka_unit_test_teardown(sigkill_opener_in_hand,
					  cleanup_kill_mounts),
		T(sigterm_sigint_do_not_interrupt),
		T(dir_and_fifo_make_no_event),
		T(group_names),
		T(group_names_latin1),
		T(dev_node_follows_group),
		cmocka_unit_test_teardown(devices_need_cap_sys_admin,
					  cleanup_ign_mode),
		T(sixty_four_groups),
		cmocka_unit_test_teardown(group_limit, cleanup_limit),
		T(files_used_while_group_goes),
		T(counters_exact),
		T(queue_overflow),
		T(busy_poll),
		T(freeze_waiting_opener),
		T(worker_fd_makes_no_notifications),
		T(fanotify_fd_makes_no_event),
		T(no_group_left),
	};

	if (argc < 3) {
		fprintf(stderr, "usage: %s LOWER MNT [FILTER]\n", argv[0]);
		return 2;
	}
	lower = argv[1];
	mnt = argv[2];
	if (argc > 3)
		cmocka_set_test_filter(argv[3]);
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
