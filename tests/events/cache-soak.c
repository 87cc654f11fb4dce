// SPDX-License-Identifier: GPL-2.0
/*
 * cache-soak LOWER MNT SECONDS: writers and openers race against a worker
 * that remembers every verdict, as root in the VM.
 *
 * The worker (a thread here) answers each event by the file's content, as
 * its fd shows it: the word EVIL means infected.  A writer process (exempt
 * through /dev/dazukofs.ign) keeps changing NFILES files, through the
 * mount and on the lower directly, in every way the cache must notice:
 * write, O_TRUNC, a shared mapping, rename over, copy_file_range, chmod.
 * Opener processes open the files through the mount.  A writer changes a
 * file only under an exclusive flock of the file's lock, an opener holds
 * it shared from before its open until it has read the content, so the
 * content an opener reads is the content its open was judged on:
 *   - an open allowed while the file says EVIL is a stale "clean" verdict;
 *   - an open denied while the file is clean is a stale "infected" one.
 * Either is counted and fails the run; so does a run whose opens were
 * never answered from the cache (then it tested nothing).
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "ev.h"

#define GROUP "cachesoak"
#define NFILES 4
#define OPENERS 2
#define CLEAN "clean file, nothing to see here.\n"
#define EVIL  "EVIL file, a virus would be here\n"
_Static_assert(sizeof(CLEAN) == sizeof(EVIL), "CLEAN and EVIL differ in size");
#define LEN (sizeof(CLEAN) - 1)

static const char *lower, *mnt;
static long long deadline;
static atomic_bool worker_stop;

static void name_of(char *buf, size_t size, const char *dir, int i)
{
	snprintf(buf, size, "%s/soak%d", dir, i);
}

static void lock_of(char *buf, size_t size, int i)
{
	snprintf(buf, size, "/tmp/cache-soak.%d.lock", i);
}

static int lock_file(int i, int how)
{
	char path[128];
	int fd;

	lock_of(path, sizeof(path), i);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, how)) {
		perror("cache-soak: lock");
		exit(2);
	}
	return fd;
}

static void die(const char *what, const char *path)
{
	fprintf(stderr, "cache-soak: %s %s: %s\n", what, path, strerror(errno));
	exit(2);
}

static void write_whole(const char *path, const char *content, int flags)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | flags, 0644);

	if (fd < 0)
		die("open for writing", path);
	if (pwrite(fd, content, LEN, 0) != (ssize_t)LEN)
		die("write", path);
	close(fd);
}

static void mmap_whole(const char *path, const char *content)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	char *map;

	if (fd < 0)
		die("open for mmap", path);
	map = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap", path);
	close(fd);
	memcpy(map, content, LEN);
	munmap(map, LEN);
}

/* One change of file @i to @content, the way @how says. */
static void change(int i, const char *content, unsigned int how)
{
	char up[256], low[256], tmp[256], src[256];
	int in, out;

	name_of(up, sizeof(up), mnt, i);
	name_of(low, sizeof(low), lower, i);
	switch (how % 8) {
	case 0:
		write_whole(up, content, 0);
		break;
	case 1:
		write_whole(low, content, 0);
		break;
	case 2:
		write_whole(up, content, O_TRUNC);
		break;
	case 3:
		mmap_whole(up, content);
		break;
	case 4:
		mmap_whole(low, content);
		break;
	case 5:
		snprintf(tmp, sizeof(tmp), "%s/soak%d.new", lower, i);
		write_whole(tmp, content, O_CREAT | O_TRUNC);
		if (rename(tmp, low))
			die("rename over", low);
		break;
	case 6:
		/* Both ends on the mount: across filesystems it is EXDEV. */
		snprintf(src, sizeof(src), "%s/source-%s", mnt,
			 content[0] == 'E' ? "evil" : "clean");
		in = open(src, O_RDONLY | O_CLOEXEC);
		out = open(up, O_WRONLY | O_CLOEXEC);
		if (in < 0 || out < 0)
			die("open for copy_file_range", up);
		if (copy_file_range(in, NULL, out, NULL, LEN, 0) != (ssize_t)LEN)
			die("copy_file_range", up);
		close(in);
		close(out);
		break;
	default:
		/* Same content, other rights: the verdict must go all the same. */
		write_whole(low, content, 0);
		if (chmod(up, (how / 8) % 2 ? 0644 : 0640))
			die("chmod", up);
		break;
	}
}

static int writer(void)
{
	unsigned int seed = 1;
	long changes = 0;
	int ign = open(DAZUKOFS_DEV_PREFIX "ign", O_RDONLY | O_CLOEXEC);

	if (ign < 0)
		die("open", DAZUKOFS_DEV_PREFIX "ign");
	while (ev_now_ms() < deadline) {
		int i = (int)(rand_r(&seed) % NFILES);
		unsigned int how = (unsigned int)rand_r(&seed);
		int lock;

		/* Leave the files alone now and then: the cache gets hits. */
		if (how % 3 == 0) {
			ev_nap();
			continue;
		}
		lock = lock_file(i, LOCK_EX);
		change(i, how & 0x100 ? EVIL : CLEAN, how);
		changes++;
		close(lock);
	}
	printf("cache-soak: writer made %ld changes\n", changes);
	return 0;
}

static int opener(int n)
{
	unsigned int seed = 100 + (unsigned int)n;
	long opens = 0, denied = 0, bad = 0;

	while (ev_now_ms() < deadline) {
		int i = (int)(rand_r(&seed) % NFILES);
		char up[256], low[256], buf[64];
		int lock, fd, err;
		ssize_t got;

		name_of(up, sizeof(up), mnt, i);
		name_of(low, sizeof(low), lower, i);
		lock = lock_file(i, LOCK_SH);
		fd = open(up, O_RDONLY | O_CLOEXEC);
		err = fd < 0 ? errno : 0;
		if (err && err != EPERM)
			die("open", up);
		if (err)
			fd = open(low, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			die("open", low);
		got = pread(fd, buf, sizeof(buf) - 1, 0);
		close(fd);
		close(lock);
		if (got < 0)
			die("read", up);
		buf[got] = '\0';
		opens++;
		denied += err == EPERM;
		if (!err && strstr(buf, "EVIL")) {
			bad++;
			fprintf(stderr, "cache-soak: FAIL: %s opened, but it is infected\n", up);
		} else if (err == EPERM && !strstr(buf, "EVIL")) {
			bad++;
			fprintf(stderr, "cache-soak: FAIL: %s denied, but it is clean\n", up);
		}
	}
	printf("cache-soak: opener %d: %ld opens, %ld denied, %ld wrong\n", n,
	       opens, denied, bad);
	return bad ? 1 : 0;
}

static void *worker(void *arg)
{
	int devfd = *(int *)arg;

	while (!atomic_load(&worker_stop)) {
		struct dazukofs_proto_event ev;
		char buf[64];
		ssize_t got;
		int verdict;

		if (ev_read(devfd, &ev, 50))
			continue;
		got = pread(ev.fd, buf, sizeof(buf) - 1, 0);
		buf[got < 0 ? 0 : got] = '\0';
		verdict = got >= 0 && !strstr(buf, "EVIL") ? DAZUKOFS_ALLOW
							   : DAZUKOFS_DENY;
		if (ev_answer_keep(devfd, ev.id, verdict, 1))
			fprintf(stderr, "cache-soak: answer %lu failed\n", ev.id);
		close(ev.fd);
	}
	return NULL;
}

static pid_t spawn(int (*fn)(int), int arg)
{
	pid_t pid = fork();

	if (pid == 0)
		exit(fn(arg));
	if (pid < 0)
		die("fork", "");
	return pid;
}

static int writer_main(int unused)
{
	(void)unused;
	return writer();
}

int main(int argc, char **argv)
{
	pid_t pids[OPENERS + 1];
	char path[256];
	pthread_t thread;
	int id, devfd, i, failed = 0;
	long long hits;

	if (argc != 4) {
		fprintf(stderr, "usage: cache-soak LOWER MNT SECONDS\n");
		return 2;
	}
	lower = argv[1];
	mnt = argv[2];
	for (i = 0; i < NFILES; i++) {
		name_of(path, sizeof(path), lower, i);
		write_whole(path, CLEAN, O_CREAT | O_TRUNC);
	}
	snprintf(path, sizeof(path), "%s/source-clean", lower);
	write_whole(path, CLEAN, O_CREAT | O_TRUNC);
	snprintf(path, sizeof(path), "%s/source-evil", lower);
	write_whole(path, EVIL, O_CREAT | O_TRUNC);

	id = ev_group_mkdir(GROUP);
	if (id < 0) {
		fprintf(stderr, "cache-soak: mkdir group: %s\n", strerror(-id));
		return 1;
	}
	devfd = ev_dev_open(id, 0);
	if (devfd < 0) {
		fprintf(stderr, "cache-soak: open device: %s\n", strerror(-devfd));
		return 1;
	}
	if (pthread_create(&thread, NULL, worker, &devfd)) {
		fprintf(stderr, "cache-soak: no worker thread\n");
		return 1;
	}
	deadline = ev_now_ms() + atoll(argv[3]) * 1000;
	pids[0] = spawn(writer_main, 0);
	for (i = 0; i < OPENERS; i++)
		pids[i + 1] = spawn(opener, i);
	for (i = 0; i <= OPENERS; i++) {
		int status;

		if (waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			failed = 1;
	}
	atomic_store(&worker_stop, true);
	pthread_join(thread, NULL);

	hits = ev_ctr(GROUP, "cache_hits");
	printf("cache-soak: events=%lld cache_hits=%lld cache_invalidations=%lld\n",
	       ev_ctr(GROUP, "events"), hits,
	       ev_ctr(GROUP, "cache_invalidations"));
	if (hits <= 0) {
		fprintf(stderr, "cache-soak: FAIL: no open was answered from the cache\n");
		failed = 1;
	}
	close(devfd);
	if (ev_group_rmdir(GROUP))
		failed = 1;
	printf("cache-soak: %s\n", failed ? "FAIL" : "PASS");
	return failed;
}
