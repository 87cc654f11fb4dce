// SPDX-License-Identifier: GPL-2.0
/*
 * Access event soak (run as root in the VM by guest-events-soak.sh).
 *
 * usage: events-soak LOWER MNT [SECONDS [GROUPS [WORKERS [OPENERS [FILES]]]]]
 *
 * GROUPS groups with WORKERS worker processes each; every group denies a
 * file iff deny(group, file) says so, the worker finding the file from the
 * event's fd (readlink of /proc/self/fd/N, and the content must match).
 * OPENERS processes open random files of a fixed set through MNT for
 * SECONDS; every open must get exactly the verdict its groups gave (EPERM
 * iff some group denies the file).  Then the counters must match what was
 * done, exactly; the groups are removed (the idle workers see ENODEV).
 * Groups of odd number speak record format 2 with batches of up to
 * BATCH events per read and one write for their answers; each record's
 * ino must be its fd's.  Group 1 busy-polls (busy_poll_us = BUSY_POLL_US):
 * its openers and readers spin before they sleep, racing the answers and
 * the events of the other groups.  Exits 0 if everything matched.
 */
#include <libgen.h>
#include <stdarg.h>
#include <stdint.h>

#include "ev.h"

#define MAX_GROUPS 16
#define MAX_FILES 4096
#define BATCH 4
#define BUSY_POLL_US "200"

static const char *lower, *mnt;
static int seconds = 50, ngroups = 3, nworkers = 3, nopeners = 4, nfiles = 64;

static uint32_t hash32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

/* Does group @g deny file @f?  About one file in four per group. */
static bool denies(int g, int f)
{
	return hash32((uint32_t)g * 7919U + (uint32_t)f * 104729U + 17U) % 4 == 0;
}

static void file_name(char *buf, size_t size, int f)
{
	snprintf(buf, size, "soak-%04d", f);
}

struct worker_report {
	long long allowed, denied, errors;
	long long batched;	/* records that came in a read of several */
};

struct opener_report {
	long long opens, eperm, ok, errors;
	long long denied_by[MAX_GROUPS];	/* opens of files group g denies */
};

static int report_fd;

static void __attribute__((format(printf, 1, 2))) complain(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "soak[%d]: ", getpid());
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* Which soak file does the event fd open?  -1 if none. */
static int event_file(int fd)
{
	char link[64], path[4096], want[32], content[32];
	ssize_t n;
	int f;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return -1;
	path[n] = '\0';
	if (sscanf(basename(path), "soak-%d", &f) != 1 || f < 0 || f >= nfiles)
		return -1;
	file_name(want, sizeof(want), f);
	n = pread(fd, content, sizeof(content), 0);
	if (n != (ssize_t)strlen(want) || memcmp(content, want, (size_t)n))
		return -1;
	return f;
}

/* The verdict on one event of group @g, counted in @r. */
static int judge(int g, unsigned long id, int event_fd,
		 struct worker_report *r)
{
	int f = event_file(event_fd);

	if (f < 0) {
		complain("group %d: event %lu: not a soak file", g, id);
		r->errors++;
		return DAZUKOFS_DENY;
	}
	return denies(g, f) ? DAZUKOFS_DENY : DAZUKOFS_ALLOW;
}

/*
 * Answer the batch in @text (@len bytes, @n answers, verdicts in
 * @verdicts) with as few writes as the kernel takes.
 */
static void answer_batch(int g, int fd, const char *text, size_t len,
			 const int *verdicts, int n, struct worker_report *r)
{
	size_t off = 0;
	int i = 0;

	while (off < len && i < n) {
		ssize_t done = write(fd, text + off, len - off);
		size_t line;

		if (done < 0) {
			/* the first answer left failed: skip it */
			line = dazukofs_proto_line_len(text + off, len - off);
			complain("group %d: answer '%.*s': %s", g, (int)line - 1,
				 text + off, strerror(errno));
			r->errors++;
			off += line;
			i++;
			continue;
		}
		for (done += (ssize_t)off; off < (size_t)done; i++) {
			off += dazukofs_proto_line_len(text + off, len - off);
			if (verdicts[i] == DAZUKOFS_DENY)
				r->denied++;
			else
				r->allowed++;
		}
	}
}

/* A format-2 worker: batches of up to BATCH records, one write of answers. */
static void worker_batched(int g, int fd, struct worker_report *r)
{
	char buf[BATCH * DAZUKOFS_RECORD_MAX], text[BATCH * DAZUKOFS_RESPONSE_MAX];
	int verdicts[BATCH];

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		size_t off = 0, len = 0;
		ssize_t n;
		int nans = 0;

		if (poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			r->errors++;
			break;
		}
		if (pfd.revents & (POLLERR | POLLHUP))
			break;		/* the group was removed */
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EAGAIN)
			continue;
		if (n < 0 && errno == ENODEV)
			break;
		if (n < 0) {
			complain("group %d: read: %s", g, strerror(errno));
			r->errors++;
			continue;
		}
		while (off < (size_t)n) {
			size_t line = dazukofs_proto_line_len(buf + off, (size_t)n - off);
			struct dazukofs_proto_record rec;
			struct stat st;

			if (dazukofs_proto_parse_record(buf + off, line, &rec) ||
			    nans == BATCH) {
				complain("group %d: bad record '%.*s'", g,
					 (int)line, buf + off);
				r->errors++;
				break;
			}
			off += line;
			if (rec.fd < 0) {
				complain("group %d: event %lu: fd error %d", g,
					 rec.id, -rec.fd);
				r->errors++;
				continue;
			}
			if (fstat(rec.fd, &st) || st.st_ino != rec.ino ||
			    rec.type != DAZUKOFS_EVENT_OPEN ||
			    rec.access != DAZUKOFS_ACCESS_READ || rec.pid <= 0) {
				complain("group %d: event %lu: record does not match its fd",
					 g, rec.id);
				r->errors++;
			}
			verdicts[nans] = judge(g, rec.id, rec.fd, r);
			close(rec.fd);
			len += (size_t)dazukofs_proto_format_response(text + len,
				sizeof(text) - len, rec.id, verdicts[nans], 0);
			nans++;
		}
		if (nans > 1)
			r->batched += nans;
		answer_batch(g, fd, text, len, verdicts, nans, r);
	}
}

static void worker(int g, int id)
{
	struct worker_report r = { 0 };
	int fd = ev_dev_open(id, O_NONBLOCK);

	if (fd < 0) {
		complain("group %d: open device: %s", g, strerror(-fd));
		r.errors++;
		goto out;
	}
	if (g % 2) {
		worker_batched(g, fd, &r);
		goto out;
	}
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct dazukofs_proto_event ev;
		int err, verdict;

		if (poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			r.errors++;
			break;
		}
		if (pfd.revents & (POLLERR | POLLHUP))
			break;		/* the group was removed */
		err = ev_read(fd, &ev, -1);
		if (err == -EAGAIN)
			continue;	/* another worker was quicker */
		if (err == -ENODEV)
			break;
		if (err) {
			complain("group %d: read: %s", g, strerror(-err));
			r.errors++;
			continue;
		}
		verdict = judge(g, ev.id, ev.fd, &r);
		close(ev.fd);
		err = ev_answer(fd, ev.id, verdict);
		if (err) {
			complain("group %d: answer %lu: %s", g, ev.id, strerror(-err));
			r.errors++;
		} else if (verdict == DAZUKOFS_DENY) {
			r.denied++;
		} else {
			r.allowed++;
		}
	}
out:
	if (write(report_fd, &r, sizeof(r)) != sizeof(r))
		_exit(2);
	_exit(0);
}

static void opener(int n, long long end)
{
	struct opener_report r = { 0 };
	uint32_t seed = hash32((uint32_t)n + 1U);
	char path[4096], name[32], content[32];

	while (ev_now_ms() < end) {
		int f, g, fd;
		bool deny = false;

		seed = hash32(seed);
		f = (int)(seed % (uint32_t)nfiles);
		for (g = 0; g < ngroups; g++) {
			if (denies(g, f)) {
				deny = true;
				r.denied_by[g]++;
			}
		}
		file_name(name, sizeof(name), f);
		snprintf(path, sizeof(path), "%s/%s", mnt, name);
		r.opens++;
		fd = open(path, O_RDONLY);
		if (fd >= 0) {
			ssize_t len = read(fd, content, sizeof(content));

			r.ok++;
			if (deny) {
				complain("%s opened, but a group denies it", name);
				r.errors++;
			}
			if (len != (ssize_t)strlen(name) ||
			    memcmp(content, name, (size_t)len)) {
				complain("%s: wrong content", name);
				r.errors++;
			}
			close(fd);
		} else if (errno == EPERM) {
			r.eperm++;
			if (!deny) {
				complain("%s: EPERM, but every group allows it", name);
				r.errors++;
			}
		} else {
			complain("%s: open: %s", name, strerror(errno));
			r.errors++;
		}
	}
	if (write(report_fd, &r, sizeof(r)) != sizeof(r))
		_exit(2);
	_exit(0);
}

static const char *const ctr_names[] = {
	"events", "allowed", "denied", "cancelled", "waiting", "in_hand",
};
#define NCTR 6

static int failures;

#define CHECK_EQ(what, a, b)						\
	do {								\
		long long _a = (a), _b = (b);				\
		if (_a != _b) {						\
			fprintf(stderr, "soak: MISMATCH %s: %lld != %lld\n", \
				what, _a, _b);				\
			failures++;					\
		}							\
	} while (0)

/* Read exactly @size bytes from a pipe; false at EOF. */
static bool read_full(int fd, void *buf, size_t size)
{
	size_t done = 0;

	while (done < size) {
		ssize_t n = read(fd, (char *)buf + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		done += (size_t)n;
	}
	return true;
}

/* Wait for @pid with a deadline; its exit status, or -1. */
static int reap(pid_t pid, long long end)
{
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
		if (r < 0 || ev_now_ms() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		ev_nap();
	}
}

int main(int argc, char **argv)
{
	char gname[MAX_GROUPS][32], path[4096], name[32];
	long long g0[MAX_GROUPS][NCTR], g1[MAX_GROUPS][NCTR], a0[NCTR], a1[NCTR];
	pid_t wpids[MAX_GROUPS * 64], opids[256];
	int wpipe[2], opipe[2], gid[MAX_GROUPS];
	struct opener_report total = { 0 };
	long long w_allowed[MAX_GROUPS] = { 0 }, w_denied[MAX_GROUPS] = { 0 };
	long long w_batched = 0;
	long long w_errors = 0, end, t0;
	int g, i, k, err, nw = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: %s LOWER MNT [SECONDS [GROUPS [WORKERS [OPENERS [FILES]]]]]\n",
			argv[0]);
		return 2;
	}
	lower = argv[1];
	mnt = argv[2];
	if (argc > 3)
		seconds = atoi(argv[3]);
	if (argc > 4)
		ngroups = atoi(argv[4]);
	if (argc > 5)
		nworkers = atoi(argv[5]);
	if (argc > 6)
		nopeners = atoi(argv[6]);
	if (argc > 7)
		nfiles = atoi(argv[7]);
	if (ngroups < 1 || ngroups > MAX_GROUPS || nworkers < 1 ||
	    nworkers > 64 || nopeners < 1 || nopeners > 256 || nfiles < 1 ||
	    nfiles > MAX_FILES || seconds < 1) {
		fprintf(stderr, "soak: bad arguments\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("soak: %d s, %d groups x %d workers, %d openers, %d files\n",
	       seconds, ngroups, nworkers, nopeners, nfiles);

	for (i = 0; i < nfiles; i++) {
		int fd;

		file_name(name, sizeof(name), i);
		snprintf(path, sizeof(path), "%s/%s", lower, name);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, name, strlen(name)) != (ssize_t)strlen(name)) {
			perror(path);
			return 1;
		}
		close(fd);
	}
	if (pipe(wpipe) || pipe(opipe)) {
		perror("pipe");
		return 1;
	}

	for (g = 0; g < ngroups; g++) {
		snprintf(gname[g], sizeof(gname[g]), "soak%d", g);
		gid[g] = ev_group_mkdir(gname[g]);
		if (gid[g] < 0) {
			fprintf(stderr, "soak: mkdir %s: %s\n", gname[g],
				strerror(-gid[g]));
			return 1;
		}
		err = g % 2 ? ev_group_write(gname[g], "record", "2") : 0;
		if (err) {
			fprintf(stderr, "soak: %s: record 2: %s\n", gname[g],
				strerror(-err));
			return 1;
		}
		err = g == 1 ? ev_group_write(gname[g], "busy_poll_us",
					      BUSY_POLL_US) : 0;
		if (err) {
			fprintf(stderr, "soak: %s: busy_poll_us: %s\n",
				gname[g], strerror(-err));
			return 1;
		}
		for (i = 0; i < nworkers; i++) {
			pid_t pid = fork();

			if (pid == 0) {
				close(wpipe[0]);
				report_fd = wpipe[1];
				worker(g, gid[g]);
			}
			wpids[nw++] = pid;
		}
	}
	/* every worker has its device open before the first open */
	for (g = 0; g < ngroups; g++) {
		if (!ev_wait_ctr(gname[g], "readers", nworkers, 30000)) {
			fprintf(stderr, "soak: workers of %s did not start\n", gname[g]);
			failures++;
		}
		for (k = 0; k < NCTR; k++)
			g0[g][k] = ev_ctr(gname[g], ctr_names[k]);
	}
	for (k = 0; k < NCTR; k++)
		a0[k] = ev_ctr(NULL, ctr_names[k]);

	t0 = ev_now_ms();
	end = t0 + seconds * 1000LL;
	for (i = 0; i < nopeners; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			close(opipe[0]);
			report_fd = opipe[1];
			opener(i, end);
		}
		opids[i] = pid;
	}
	close(opipe[1]);
	for (i = 0; i < nopeners; i++) {
		struct opener_report r;
		int st = reap(opids[i], end + 120000);

		if (st != 0) {
			fprintf(stderr, "soak: opener %d: %s (%d)\n", i,
				st < 0 ? "hung, killed" : "failed", st);
			failures++;
		}
		(void)r;
	}
	for (i = 0; i < nopeners; i++) {
		struct opener_report r;

		if (!read_full(opipe[0], &r, sizeof(r))) {
			fprintf(stderr, "soak: an opener sent no report\n");
			failures++;
			break;
		}
		total.opens += r.opens;
		total.eperm += r.eperm;
		total.ok += r.ok;
		total.errors += r.errors;
		for (g = 0; g < ngroups; g++)
			total.denied_by[g] += r.denied_by[g];
	}
	printf("soak: %lld opens in %lld ms: %lld allowed, %lld EPERM, %lld errors\n",
	       total.opens, ev_now_ms() - t0, total.ok, total.eperm, total.errors);
	CHECK_EQ("opens with a wrong verdict or error", total.errors, 0);
	CHECK_EQ("opens = allowed + EPERM", total.opens, total.ok + total.eperm);

	/* counters, while the groups and their idle workers are still there */
	for (k = 0; k < NCTR; k++)
		a1[k] = ev_ctr(NULL, ctr_names[k]);
	CHECK_EQ("global events delta = opens", a1[0] - a0[0], total.opens);
	CHECK_EQ("global allowed delta", a1[1] - a0[1], total.ok);
	CHECK_EQ("global denied delta", a1[2] - a0[2], total.eperm);
	CHECK_EQ("global cancelled delta", a1[3] - a0[3], 0);
	CHECK_EQ("global waiting", a1[4], 0);
	CHECK_EQ("global in_hand", a1[5], 0);
	for (g = 0; g < ngroups; g++) {
		char what[128];

		for (k = 0; k < NCTR; k++)
			g1[g][k] = ev_ctr(gname[g], ctr_names[k]);
		printf("soak: %s: events %lld allowed %lld denied %lld\n", gname[g],
		       g1[g][0] - g0[g][0], g1[g][1] - g0[g][1], g1[g][2] - g0[g][2]);
#define GCHECK(desc, a, b) \
	do { snprintf(what, sizeof(what), "%s %s", gname[g], desc); CHECK_EQ(what, a, b); } while (0)
		GCHECK("events delta = opens", g1[g][0] - g0[g][0], total.opens);
		GCHECK("events = allowed + denied",
		       g1[g][0], g1[g][1] + g1[g][2] + g1[g][3]);
		GCHECK("denied delta = opens of files it denies",
		       g1[g][2] - g0[g][2], total.denied_by[g]);
		GCHECK("cancelled delta", g1[g][3] - g0[g][3], 0);
		GCHECK("waiting", g1[g][4], 0);
		GCHECK("in_hand", g1[g][5], 0);
#undef GCHECK
	}

	/* remove the groups: the idle workers see ENODEV and report */
	for (g = 0; g < ngroups; g++) {
		int err = ev_group_rmdir(gname[g]);

		if (err) {
			fprintf(stderr, "soak: rmdir %s: %s\n", gname[g], strerror(-err));
			failures++;
		}
	}
	close(wpipe[1]);
	for (i = 0; i < nw; i++) {
		int st = reap(wpids[i], ev_now_ms() + 30000);

		if (st != 0) {
			fprintf(stderr, "soak: worker %d: %s (%d)\n", i,
				st < 0 ? "did not stop after rmdir" : "failed", st);
			failures++;
		}
	}
	for (g = 0; g < ngroups; g++) {
		for (i = 0; i < nworkers; i++) {
			struct worker_report r;

			if (!read_full(wpipe[0], &r, sizeof(r))) {
				fprintf(stderr, "soak: a worker sent no report\n");
				failures++;
				goto reports_done;
			}
			/* reports arrive in any order: sum over all groups */
			w_allowed[0] += r.allowed;
			w_denied[0] += r.denied;
			w_errors += r.errors;
			w_batched += r.batched;
		}
	}
reports_done:
	{
		long long want_denied = 0;

		for (g = 0; g < ngroups; g++)
			want_denied += total.denied_by[g];
		CHECK_EQ("worker errors", w_errors, 0);
		printf("soak: %lld events came in reads of several records\n",
		       w_batched);
		CHECK_EQ("answers given = opens x groups",
			 w_allowed[0] + w_denied[0], total.opens * ngroups);
		CHECK_EQ("denials given = sum of per-group denials",
			 w_denied[0], want_denied);
	}
	CHECK_EQ("global waiting after rmdir", ev_ctr(NULL, "waiting"), 0);
	CHECK_EQ("global in_hand after rmdir", ev_ctr(NULL, "in_hand"), 0);
	CHECK_EQ("global readers after rmdir", ev_ctr(NULL, "readers"), 0);

	if (total.opens == 0) {
		fprintf(stderr, "soak: no open happened\n");
		failures++;
	}
	printf("soak: %s (%d mismatches)\n", failures ? "FAILED" : "passed", failures);
	return failures ? 1 : 0;
}
