// SPDX-License-Identifier: GPL-2.0
/*
 * Tracking soak (run as root inside the VM by guest-tracking-soak.sh).
 *
 * Usage: tracking-soak LOWER MOUNT [SECONDS]
 *
 * A tracked group with a 2000 ms timeout whose action is deny, 3 workers
 * that deny iff the file starts with "BAD", a supervisor that kills -9 a
 * random worker at random moments and starts a new one (never more than
 * one down, so the group stays active; now and then it first stops the
 * worker with SIGSTOP for longer than the timeout), and many openers.  Every open must
 * end with a verdict the policy allows: BAD -> EPERM always; a good file
 * -> success, or EPERM only as a timeout (good-file EPERMs <= the group's
 * timeouts delta).  No open may take longer than timeout + 10 s.
 * Afterwards waiting == in_hand == 0 and the counters add up.
 * At each kill the group's busy_poll_us switches between 0 and its largest
 * value: worker deaths, timeouts and requeues reach openers and readers
 * that busy-poll as well as sleeping ones, and the setting changes under
 * running reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../include/uapi/linux/dazukofs.h"
#include "trk-util.h"

#define GROUP		"soak"
#define TIMEOUT_MS	2000
#define NR_WORKERS	3
#define NR_OPENERS	8
#define NR_FILES	16
#define HANG_MS		(TIMEOUT_MS + 10000)

struct shared {
	atomic_long opens, bad_eperm, good_ok, good_eperm, violations;
	atomic_long max_ms;
	atomic_long answers, answer_enoent;
};

static struct shared *sh;
static int group_id;

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static pid_t start_worker(void)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	trk_close_fds_except(-1);
	int dev = trk_dev_open(group_id, 0);

	if (dev < 0)
		_exit(1);
	for (;;) {
		unsigned long id;
		char head[4] = "";
		int fd, opid, err;

		err = trk_read_event(dev, &id, &fd, &opid);
		if (err == -EINTR || err == -ERESTART)
			continue;
		if (err)
			_exit(err == -ENODEV ? 0 : 2);
		if (pread(fd, head, 3, 0) < 0)
			head[0] = 0;
		close(fd);
		err = trk_answer(dev, id, strncmp(head, "BAD", 3) ?
				 DAZUKOFS_ALLOW : DAZUKOFS_DENY);
		atomic_fetch_add(&sh->answers, 1);
		if (err == -ENOENT)
			atomic_fetch_add(&sh->answer_enoent, 1);
		else if (err)
			_exit(3);
	}
}

static void opener(const char *mnt, long long end, unsigned int seed)
{
	char path[512];

	trk_close_fds_except(-1);
	while (trk_now_ms() < end) {
		int i = rand_r(&seed) % NR_FILES;
		bool bad = i & 1;
		long long t0 = trk_now_ms(), dt;
		long prev;
		int fd, e;

		snprintf(path, sizeof(path), "%s/f%02d", mnt, i);
		fd = open(path, O_RDONLY);
		e = fd < 0 ? errno : 0;
		if (fd >= 0)
			close(fd);
		dt = trk_now_ms() - t0;
		prev = atomic_load(&sh->max_ms);
		while (dt > prev &&
		       !atomic_compare_exchange_weak(&sh->max_ms, &prev, dt))
			;
		atomic_fetch_add(&sh->opens, 1);
		if (bad && e == EPERM) {
			atomic_fetch_add(&sh->bad_eperm, 1);
		} else if (!bad && e == 0) {
			atomic_fetch_add(&sh->good_ok, 1);
		} else if (!bad && e == EPERM) {
			atomic_fetch_add(&sh->good_eperm, 1);
		} else {
			fprintf(stderr, "soak: VIOLATION: open %s: %s\n", path,
				e ? strerror(e) : "succeeded");
			atomic_fetch_add(&sh->violations, 1);
		}
		if (dt > HANG_MS) {
			fprintf(stderr, "soak: VIOLATION: open %s took %lld ms\n",
				path, dt);
			atomic_fetch_add(&sh->violations, 1);
		}
	}
	_exit(0);
}

static int set_busy_poll(unsigned int us)
{
	char value[16];

	snprintf(value, sizeof(value), "%u", us);
	if (trk_cfg_write(GROUP, "busy_poll_us", value)) {
		fprintf(stderr, "soak: FAIL: set busy_poll_us %s\n", value);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	pid_t workers[NR_WORKERS], openers[NR_OPENERS];
	long long t_to0, g_to0, end, ev, al, de, ca, to;
	unsigned int seed = (unsigned int)time(NULL) ^ (unsigned int)getpid();
	int secs = argc > 3 ? atoi(argv[3]) : 22;
	long kills = 0, stops = 0;
	int rc = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: %s LOWER MOUNT [SECONDS]\n", argv[0]);
		return 2;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 2;
	for (int i = 0; i < NR_FILES; i++) {
		char path[512];
		FILE *f;

		snprintf(path, sizeof(path), "%s/f%02d", argv[1], i);
		f = fopen(path, "w");
		if (!f)
			return 2;
		fputs(i & 1 ? "BAD file\n" : "good file\n", f);
		fclose(f);
	}

	trk_group_remove(GROUP);
	group_id = trk_group_create(GROUP);
	if (group_id < 0 || trk_cfg_write(GROUP, "track", "1") ||
	    trk_cfg_write(GROUP, "timeout_ms", "2000") ||
	    trk_cfg_write(GROUP, "timeout_action", "deny")) {
		fprintf(stderr, "soak: group setup failed\n");
		return 1;
	}
	printf("soak: seed %u, %d s, %d workers, %d openers, timeout %d ms deny\n",
	       seed, secs, NR_WORKERS, NR_OPENERS, TIMEOUT_MS);
	fflush(stdout);
	t_to0 = trk_stat(GROUP, "timeouts");
	g_to0 = trk_stat(NULL, "timeouts");

	for (int i = 0; i < NR_WORKERS; i++)
		workers[i] = start_worker();
	if (!trk_wait_stat(GROUP, "readers", NR_WORKERS, 10000) ||
	    !trk_wait_stat(GROUP, "active", 1, 10000))
		return 1;

	end = trk_now_ms() + secs * 1000LL;
	for (int i = 0; i < NR_OPENERS; i++) {
		openers[i] = fork();
		if (openers[i] == 0)
			opener(argv[2], end, seed + 7919 * (i + 1));
	}

	/* The supervisor: kill -9 a random worker, start a new one. */
	while (trk_now_ms() < end) {
		int i = rand_r(&seed) % NR_WORKERS;

		sleep_ms(20 + rand_r(&seed) % 400);
		if (rand_r(&seed) % 4 == 0) {
			/* Stopped with events in hand: they time out (deny). */
			kill(workers[i], SIGSTOP);
			sleep_ms(TIMEOUT_MS + 500);
			stops++;
		}
		kill(workers[i], SIGKILL);
		waitpid(workers[i], NULL, 0);
		workers[i] = start_worker();
		kills++;
		if (set_busy_poll(kills & 1 ? DAZUKOFS_BUSY_POLL_US_MAX : 0)) {
			rc = 1;
			break;
		}
		/* Never more than one down: the group must stay active. */
		if (!trk_wait_stat(GROUP, "readers", NR_WORKERS, 10000)) {
			rc = 1;
			break;
		}
	}

	for (int i = 0; i < NR_OPENERS; i++) {
		int st = trk_child_wait(openers[i], HANG_MS + 5000);

		if (st != 0) {
			fprintf(stderr, "soak: FAIL: opener %d %s (%d)\n", i,
				st == -1 ? "hangs" : "failed", st);
			kill(openers[i], SIGKILL);
			waitpid(openers[i], NULL, 0);
			rc = 1;
		}
	}
	if (!trk_wait_stat(GROUP, "waiting", 0, 10000) ||
	    !trk_wait_stat(GROUP, "in_hand", 0, 10000))
		rc = 1;

	ev = trk_stat(GROUP, "events");
	al = trk_stat(GROUP, "allowed");
	de = trk_stat(GROUP, "denied");
	ca = trk_stat(GROUP, "cancelled");
	to = trk_stat(GROUP, "timeouts") - t_to0;
	printf("soak: %ld opens (%ld BAD denied, %ld good allowed, %ld good EPERM), "
	       "max %ld ms; %ld kills (%ld after SIGSTOP); %ld answers (%ld ENOENT)\n",
	       atomic_load(&sh->opens), atomic_load(&sh->bad_eperm),
	       atomic_load(&sh->good_ok), atomic_load(&sh->good_eperm),
	       atomic_load(&sh->max_ms), kills, stops, atomic_load(&sh->answers),
	       atomic_load(&sh->answer_enoent));
	printf("soak: group events=%lld allowed=%lld denied=%lld cancelled=%lld "
	       "timeouts=%lld; global timeouts +%lld\n", ev, al, de, ca, to,
	       trk_stat(NULL, "timeouts") - g_to0);
	if (atomic_load(&sh->violations)) {
		fprintf(stderr, "soak: FAIL: %ld policy violations\n",
			atomic_load(&sh->violations));
		rc = 1;
	}
	if (atomic_load(&sh->good_eperm) > to) {
		fprintf(stderr, "soak: FAIL: %ld good-file EPERMs, only %lld timeouts\n",
			atomic_load(&sh->good_eperm), to);
		rc = 1;
	}
	if (trk_stat(NULL, "timeouts") - g_to0 < to) {
		fprintf(stderr, "soak: FAIL: global timeouts behind the group's\n");
		rc = 1;
	}
	if (ev != atomic_load(&sh->opens) || ev != al + de + ca + to + t_to0) {
		fprintf(stderr, "soak: FAIL: counters do not add up\n");
		rc = 1;
	}
	if (atomic_load(&sh->opens) < 100) {
		fprintf(stderr, "soak: FAIL: only %ld opens\n",
			atomic_load(&sh->opens));
		rc = 1;
	}

	for (int i = 0; i < NR_WORKERS; i++) {
		kill(workers[i], SIGKILL);
		waitpid(workers[i], NULL, 0);
	}
	if (!trk_wait_stat(GROUP, "active", 0, 10000))
		rc = 1;
	if (trk_group_remove(GROUP)) {
		perror("soak: rmdir group");
		rc = 1;
	}
	printf("soak: %s\n", rc ? "FAILED" : "passed");
	return rc;
}
