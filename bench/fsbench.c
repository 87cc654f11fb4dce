// SPDX-License-Identifier: GPL-2.0
/*
 * fsbench: one filesystem workload, timed with CLOCK_MONOTONIC.
 *
 *   fsbench prep DIR NFILES TREEFILES BIGMB   the data set (files/, tree/, big)
 *   fsbench gensrc DIR NFILES                 synthetic source tree for a tarball
 *   fsbench corpus DIR NFILES MAXKB           the scanner's corpus (DIR/cNNNNN.*)
 *   fsbench WORKLOAD DIR [options]            one timed run
 *   fsbench suite DIR -w 'WORKLOADS' -r REPEATS -c COUNTER -o CSV -l FS,CONFIG
 *           [-p HELPER_PID] [options]         every workload, REPEATS runs
 *                                             each (one process: under TCG a
 *                                             fork+exec per run costs more
 *                                             than the runs)
 *
 * Workloads: open stat create seqwrite seqread mmapread walk untar, and for
 * the scanner: scan (open+close every regular file of DIR once, spread over
 * -j THREADS threads, files/s) and reopen (time-bounded open+close loop over
 * the regular files of DIR, ops/s).
 * Options: -t SECONDS (time-bounded loops: open, stat, create, reopen; default 1),
 *          -n NFILES (files in DIR/files, default 1000), -s MB (seqwrite),
 *          -a TARBALL -f FILES (untar: the tarball and its regular files).
 *
 * A single run prints "workload=W value=V unit=U ops=N opens=K secs=S", where
 * opens counts the regular files this run opened in DIR (each is one access
 * event for dazukofs groups and fanotify FAN_OPEN_PERM; for untar it is
 * the number of files tar created).  suite appends one CSV row per run and
 * checks, after each, that COUNTER ("dz:GROUP_SYSFS_DIR", "dzhit:" the same
 * dir, whose cache_hits must grow instead, "dzx:" the same dir, whose
 * excluded must grow and events not, "fan:COUNTFILE" or "none") grew by
 * exactly its opens and that HELPER_PID is alive.
 * Exit status 0 on success.
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <ftw.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (1024 * 1024)
#define SMALL 4096

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what, const char *path)
{
	fprintf(stderr, "fsbench: %s %s: %s\n", what, path ? path : "",
		strerror(errno));
	exit(1);
}

static char buf[CHUNK];
static long walk_count;

static void write_file(const char *path, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	size_t left = size;

	if (fd < 0)
		die("create", path);
	while (left) {
		size_t n = left < sizeof(buf) ? left : sizeof(buf);

		if (write(fd, buf, n) != (ssize_t)n)
			die("write", path);
		left -= n;
	}
	if (close(fd))
		die("close", path);
}

static void mkdir_p(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		die("mkdir", path);
}

/* DIR/files/fNNNNN (4 KiB each), DIR/tree/dAA/dBB/fCC, DIR/big, DIR/scratch */
static int prep(const char *dir, long nfiles, long ntree, long bigmb)
{
	char p[4096];
	long i;

	memset(buf, 'x', sizeof(buf));
	snprintf(p, sizeof(p), "%s/files", dir);
	mkdir_p(p);
	for (i = 0; i < nfiles; i++) {
		snprintf(p, sizeof(p), "%s/files/f%05ld", dir, i);
		write_file(p, SMALL);
	}
	snprintf(p, sizeof(p), "%s/tree", dir);
	mkdir_p(p);
	for (i = 0; i < ntree; i++) {
		/* 100 files a directory, 10 directories a level */
		snprintf(p, sizeof(p), "%s/tree/d%02ld", dir, i / 1000);
		if (i % 1000 == 0)
			mkdir_p(p);
		snprintf(p, sizeof(p), "%s/tree/d%02ld/d%02ld", dir, i / 1000,
			 (i / 100) % 10);
		if (i % 100 == 0)
			mkdir_p(p);
		snprintf(p, sizeof(p), "%s/tree/d%02ld/d%02ld/f%02ld", dir,
			 i / 1000, (i / 100) % 10, i % 100);
		write_file(p, 256);
	}
	snprintf(p, sizeof(p), "%s/big", dir);
	write_file(p, (size_t)bigmb * CHUNK);
	snprintf(p, sizeof(p), "%s/scratch", dir);
	mkdir_p(p);
	return 0;
}

/* A source-like tree: DIR/src/modNN/fileNNNN.c and .h of 1-12 KiB of C-ish text. */
static int gensrc(const char *dir, long nfiles)
{
	static const char line[] =
		"static int frob_%ld(struct widget *w, unsigned long flags)\n"
		"{\n\tif (!w || flags & ~WIDGET_MASK)\n\t\treturn -EINVAL;\n"
		"\treturn widget_apply(w, flags, %ld);\n}\n\n";
	char p[4096];
	long i;

	mkdir_p(dir);
	snprintf(p, sizeof(p), "%s/src", dir);
	mkdir_p(p);
	srand(42);
	for (i = 0; i < nfiles; i++) {
		long j, lines = 8 + rand() % 90;
		FILE *f;

		snprintf(p, sizeof(p), "%s/src/mod%02ld", dir, i / 100);
		if (i % 100 == 0)
			mkdir_p(p);
		snprintf(p, sizeof(p), "%s/src/mod%02ld/file%04ld.%c", dir,
			 i / 100, i, i % 4 ? 'c' : 'h');
		f = fopen(p, "w");
		if (!f)
			die("create", p);
		fprintf(f, "/* generated file %ld */\n#include <widget.h>\n\n", i);
		for (j = 0; j < lines; j++)
			fprintf(f, line, i * 1000 + j, j);
		if (fclose(f))
			die("close", p);
	}
	return 0;
}

/* xorshift64*: deterministic contents, the same on every run */
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

static long rnd_range(long lo, long hi)
{
	return lo + (long)(rnd() % (uint64_t)(hi - lo + 1));
}

/* @size bytes of text (compressible) or of pseudo-random bytes into @path */
static void corpus_file(const char *path, size_t size, int text)
{
	static const char *const words[] = {
		"scanner", "verdict", "open", "file", "dazukofs", "stack", "lower",
		"event", "group", "worker", "cache", "signature", "the", "of", "a",
		"and", "clean", "kernel", "module", "inode",
	};
	static char cbuf[CHUNK];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	size_t left = size;

	if (fd < 0)
		die("create", path);
	while (left) {
		size_t n = left < sizeof(cbuf) ? left : sizeof(cbuf), i = 0;

		if (text) {
			while (i < n) {
				const char *w = words[rnd() % 20];
				size_t l = strlen(w);

				for (size_t k = 0; k < l && i < n; k++)
					cbuf[i++] = w[k];
				if (i < n)
					cbuf[i++] = rnd() % 12 ? ' ' : '\n';
			}
		} else {
			for (; i + 8 <= n; i += 8) {
				uint64_t r = rnd();

				memcpy(cbuf + i, &r, 8);
			}
			for (; i < n; i++)
				cbuf[i] = (char)rnd();
		}
		if (write(fd, cbuf, n) != (ssize_t)n)
			die("write", path);
		left -= n;
	}
	if (close(fd))
		die("close", path);
}

/*
 * The scanner benchmark's corpus: NFILES files in DIR, by i % 10:
 * 0-5 text of 256 B-8 KiB (.txt), 6-7 16-128 KiB (text or binary),
 * 8 128-512 KiB binary (.bin), 9 MAXKB/4-MAXKB KiB (text or binary).
 * Prints "files=N bytes=B".
 */
static int corpus(const char *dir, long n, long maxkb)
{
	char p[4096];
	long long total = 0;

	mkdir_p(dir);
	for (long i = 0; i < n; i++) {
		long c = i % 10, size;
		int text;

		if (c <= 5) {
			size = rnd_range(256, 8192);
			text = 1;
		} else if (c <= 7) {
			size = rnd_range(16, 128) * 1024;
			text = i % 20 < 10;
		} else if (c == 8) {
			size = rnd_range(128, 512) * 1024;
			text = 0;
		} else {
			size = rnd_range(maxkb / 4, maxkb) * 1024;
			text = i % 20 < 10;
		}
		snprintf(p, sizeof(p), "%s/c%05ld.%s", dir, i, text ? "txt" : "bin");
		corpus_file(p, (size_t)size, text);
		total += size;
	}
	printf("files=%ld bytes=%lld\n", n, total);
	return 0;
}

/* The regular files of @dir (not recursive), sorted: the scan/reopen list. */
static char **list;
static long nlist;

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static long list_cap;

static int list_one(const char *p, const struct stat *st, int type,
		    struct FTW *ftw)
{
	(void)ftw;
	if (type != FTW_F || !S_ISREG(st->st_mode))
		return 0;
	if (nlist == list_cap) {
		list_cap = list_cap ? list_cap * 2 : 256;
		list = realloc(list, (size_t)list_cap * sizeof(*list));
		if (!list)
			die("realloc", NULL);
	}
	list[nlist] = strdup(p);
	if (!list[nlist++])
		die("strdup", NULL);
	return 0;
}

/* every regular file under @dir, subdirectories included */
static void load_list(const char *dir)
{
	if (list)
		return;
	if (nftw(dir, list_one, 64, FTW_PHYS))
		die("nftw", dir);
	if (!nlist) {
		fprintf(stderr, "fsbench: no regular files in %s\n", dir);
		exit(1);
	}
	qsort(list, (size_t)nlist, sizeof(*list), by_name);
}

static int threads = 1;

/* scan: thread k opens files k, k + threads, ... once each */
static void *scan_thread(void *arg)
{
	for (long i = (long)(intptr_t)arg; i < nlist; i += threads) {
		int fd = open(list[i], O_RDONLY);

		if (fd < 0)
			die("open", list[i]);
		close(fd);
	}
	return NULL;
}

static struct result {
	double value;
	const char *unit;
	long ops, opens;
	double secs;
} res;

static void report(const char *w, double value, const char *unit, long ops,
		   long opens, double secs)
{
	(void)w;
	res = (struct result){ value, unit, ops, opens, secs };
}


static int walk_one(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)path; (void)st; (void)ftw;
	if (flag == FTW_F)
		walk_count++;
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st; (void)ftw;
	if ((flag == FTW_DP ? rmdir(path) : unlink(path)) && errno != ENOENT)
		die("remove", path);
	return 0;
}

static const char *tarball;
static double limit = 1.0;
static long nfiles = 1000, mb = 16, tarfiles;

/* One timed run of workload @w in @dir; the result in @res. 0 or exit status. */
static int run(const char *w, const char *dir)
{
	double t0, t1;
	long ops = 0, opens = 0;
	char p[4096];
	int fd;

	walk_count = 0;
	memset(buf, 'y', sizeof(buf));

	if (!strcmp(w, "open") || !strcmp(w, "stat")) {
		int is_open = !strcmp(w, "open");
		double end;

		t0 = now();
		end = t0 + limit;
		do {
			/* a batch between clock reads */
			for (int k = 0; k < 16; k++, ops++) {
				struct stat st;

				snprintf(p, sizeof(p), "%s/files/f%05ld", dir,
					 ops % nfiles);
				if (is_open) {
					fd = open(p, O_RDONLY);
					if (fd < 0)
						die("open", p);
					opens++;
					close(fd);
				} else if (stat(p, &st)) {
					die("stat", p);
				}
			}
			t1 = now();
		} while (t1 < end);
		report(w, ops / (t1 - t0), "ops/s", ops, opens, t1 - t0);
	} else if (!strcmp(w, "create")) {
		double end;

		t0 = now();
		end = t0 + limit;
		do {
			for (int k = 0; k < 8; k++, ops++) {
				snprintf(p, sizeof(p), "%s/scratch/c%ld", dir, ops % 64);
				fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
				if (fd < 0)
					die("create", p);
				opens++;
				if (write(fd, buf, 1024) != 1024)
					die("write", p);
				if (close(fd))
					die("close", p);
				if (unlink(p))
					die("unlink", p);
			}
			t1 = now();
		} while (t1 < end);
		report(w, ops / (t1 - t0), "ops/s", ops, opens, t1 - t0);
	} else if (!strcmp(w, "seqwrite")) {
		snprintf(p, sizeof(p), "%s/scratch/seqw", dir);
		t0 = now();
		fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			die("create", p);
		opens++;
		for (ops = 0; ops < mb; ops++)
			if (write(fd, buf, CHUNK) != CHUNK)
				die("write", p);
		if (fsync(fd) || close(fd))
			die("fsync/close", p);
		t1 = now();
		if (unlink(p))
			die("unlink", p);
		report(w, mb / (t1 - t0), "MB/s", ops, opens, t1 - t0);
	} else if (!strcmp(w, "seqread") || !strcmp(w, "mmapread")) {
		struct stat st;
		long sum = 0;

		snprintf(p, sizeof(p), "%s/big", dir);
		t0 = now();
		fd = open(p, O_RDONLY);
		if (fd < 0 || fstat(fd, &st))
			die("open", p);
		opens++;
		if (w[0] == 's') {
			ssize_t n;

			while ((n = read(fd, buf, CHUNK)) > 0)
				sum += n;
			if (n < 0)
				die("read", p);
		} else {
			const volatile char *m = mmap(NULL, (size_t)st.st_size,
						      PROT_READ, MAP_SHARED, fd, 0);
			off_t off;

			if (m == MAP_FAILED)
				die("mmap", p);
			for (off = 0; off < st.st_size; off += 4096)
				sum += m[off] == 'x';
			sum *= 4096;
			munmap((void *)m, (size_t)st.st_size);
		}
		close(fd);
		t1 = now();
		if (sum != st.st_size) {
			fprintf(stderr, "fsbench: %s: read %ld of %ld bytes\n", p,
				sum, (long)st.st_size);
			return 1;
		}
		ops = sum / CHUNK;
		report(w, (double)sum / CHUNK / (t1 - t0), "MB/s", ops, opens,
		       t1 - t0);
	} else if (!strcmp(w, "walk")) {
		snprintf(p, sizeof(p), "%s/tree", dir);
		t0 = now();
		if (nftw(p, walk_one, 64, FTW_PHYS))
			die("nftw", p);
		t1 = now();
		report(w, walk_count / (t1 - t0), "files/s", walk_count, 0,
		       t1 - t0);
	} else if (!strcmp(w, "scan")) {
		pthread_t tid[64];

		load_list(dir);
		if (threads < 1 || threads > 64) {
			fprintf(stderr, "fsbench: -j must be 1-64\n");
			return 2;
		}
		t0 = now();
		for (long k = 0; k < threads; k++)
			if (pthread_create(&tid[k], NULL, scan_thread, (void *)(intptr_t)k))
				die("pthread_create", NULL);
		for (long k = 0; k < threads; k++)
			pthread_join(tid[k], NULL);
		t1 = now();
		report(w, nlist / (t1 - t0), "files/s", nlist, nlist, t1 - t0);
	} else if (!strcmp(w, "reopen")) {
		double end;

		load_list(dir);
		t0 = now();
		end = t0 + limit;
		do {
			for (int k = 0; k < 16; k++, ops++) {
				fd = open(list[ops % nlist], O_RDONLY);
				if (fd < 0)
					die("open", list[ops % nlist]);
				opens++;
				close(fd);
			}
			t1 = now();
		} while (t1 < end);
		report(w, ops / (t1 - t0), "ops/s", ops, opens, t1 - t0);
	} else if (!strcmp(w, "untar")) {
		pid_t pid;
		int status;

		if (!tarball || tarfiles <= 0) {
			fprintf(stderr, "fsbench: untar needs -a TARBALL -f FILES\n");
			return 2;
		}
		snprintf(p, sizeof(p), "%s/scratch/untar", dir);
		mkdir_p(p);
		t0 = now();
		pid = fork();
		if (pid < 0)
			die("fork", NULL);
		if (pid == 0) {
			execlp("tar", "tar", "xf", tarball, "-C", p, (char *)NULL);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) < 0)
			die("waitpid", NULL);
		t1 = now();
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "fsbench: tar xf %s failed\n", tarball);
			return 1;
		}
		if (nftw(p, rm_one, 64, FTW_PHYS | FTW_DEPTH))
			die("rm -r", p);
		report(w, tarfiles / (t1 - t0), "files/s", tarfiles, tarfiles,
		       t1 - t0);
	} else {
		fprintf(stderr, "fsbench: unknown workload %s\n", w);
		return 2;
	}
	return 0;
}

/*
 * The event counter of a configuration: "dz:SYSFSDIR" (a group's events
 * and allowed), "dzhit:SYSFSDIR" (the group's verdict cache hits, for both:
 * opens answered without an event), "dzx:SYSFSDIR" (the group's excluded
 * accesses, and for al those plus its events: an event would show), "fan:FILE"
 * (fanlistener's count), or "none".
 */
static unsigned long long read_ull(const char *dir, const char *name)
{
	char path[4096];
	unsigned long long v;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%llu", &v) != 1)
		die("read", path);
	fclose(f);
	return v;
}

static int read_counter(const char *spec, unsigned long long *ev,
			unsigned long long *al)
{
	char path[4096];
	FILE *f;

	*ev = *al = 0;
	if (!strncmp(spec, "dz:", 3)) {
		snprintf(path, sizeof(path), "%s/events", spec + 3);
		f = fopen(path, "r");
		if (!f || fscanf(f, "%llu", ev) != 1)
			die("read", path);
		fclose(f);
		snprintf(path, sizeof(path), "%s/allowed", spec + 3);
		f = fopen(path, "r");
		if (!f || fscanf(f, "%llu", al) != 1)
			die("read", path);
		fclose(f);
	} else if (!strncmp(spec, "dzx:", 4)) {
		*ev = read_ull(spec + 4, "excluded");
		*al = *ev + read_ull(spec + 4, "events");
	} else if (!strncmp(spec, "dzhit:", 6)) {
		snprintf(path, sizeof(path), "%s/cache_hits", spec + 6);
		f = fopen(path, "r");
		if (!f || fscanf(f, "%llu", ev) != 1)
			die("read", path);
		fclose(f);
		*al = *ev;
	} else if (!strncmp(spec, "fan:", 4)) {
		uint64_t n;
		int fd = open(spec + 4, O_RDONLY);

		if (fd < 0 || pread(fd, &n, sizeof(n), 0) != sizeof(n))
			die("read", spec + 4);
		close(fd);
		*ev = *al = n;
	} else if (strcmp(spec, "none")) {
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *dir, *counter = "none", *csv = NULL, *label = "-";
	const char *workloads = "open stat create seqwrite seqread mmapread walk untar";
	int opt, repeats = 1, helper = 0, first = 1, warmup = 0;
	char wl[256], *save, *w;
	FILE *out = NULL;

	if (argc >= 6 && !strcmp(argv[1], "prep"))
		return prep(argv[2], atol(argv[3]), atol(argv[4]), atol(argv[5]));
	if (argc >= 4 && !strcmp(argv[1], "gensrc"))
		return gensrc(argv[2], atol(argv[3]));
	if (argc >= 5 && !strcmp(argv[1], "corpus"))
		return corpus(argv[2], atol(argv[3]), atol(argv[4]));
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: fsbench WORKLOAD DIR [-t S] [-n N] [-s MB] [-a TAR -f FILES] [-j THREADS]\n"
		       "       fsbench suite DIR -w 'WORKLOADS' -r REPEATS -c COUNTER -o CSV -l FS,CONFIG [-p PID] [-R FIRST] [-W] ...\n"
		       "       fsbench prep DIR NFILES TREE BIGMB | gensrc DIR FILES | corpus DIR FILES MAXKB\n"
		       "The workloads and the suite's options are described in bench/README.md and above main() in bench/fsbench.c.\n");
		return 0;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: fsbench WORKLOAD DIR [-t S] [-n N] [-s MB] [-a TAR -f FILES] [-j THREADS]\n"
			"       fsbench suite DIR -w 'WORKLOADS' -r REPEATS -c COUNTER -o CSV -l FS,CONFIG [-p PID] [-R FIRST] [-W] ...\n");
		return 2;
	}
	dir = argv[2];
	optind = 3;
	while ((opt = getopt(argc, argv, "t:n:s:a:f:w:r:c:o:l:p:j:R:W")) != -1) {
		switch (opt) {
		case 't': limit = atof(optarg); break;
		case 'n': nfiles = atol(optarg); break;
		case 's': mb = atol(optarg); break;
		case 'a': tarball = optarg; break;
		case 'f': tarfiles = atol(optarg); break;
		case 'w': workloads = optarg; break;
		case 'r': repeats = atoi(optarg); break;
		case 'c': counter = optarg; break;
		case 'o': csv = optarg; break;
		case 'l': label = optarg; break;
		case 'p': helper = atoi(optarg); break;
		case 'j': threads = atoi(optarg); break;
		case 'R': first = atoi(optarg); break;
		case 'W': warmup = 1; break;
		default: return 2;
		}
	}
	if (strcmp(argv[1], "suite")) {
		int rc = run(argv[1], dir);

		if (!rc)
			printf("workload=%s value=%.3f unit=%s ops=%ld opens=%ld secs=%.4f\n",
			       argv[1], res.value, res.unit, res.ops, res.opens, res.secs);
		return rc;
	}

	/*
	 * suite: every workload, @repeats times each, one CSV row per run
	 * ("fs,config,workload,rep,value,unit,ops,opens,events,secs"); the
	 * counter must grow by exactly the opens of each run, and the helper
	 * (worker or listener) must still be alive after it.  -R N numbers
	 * the runs from N (bench/run interleaves configurations: one run per
	 * configuration and repeat); -W first makes one untimed warm-up run
	 * of each workload (time-bounded loops for a quarter of -t), checked
	 * like the others but not written.
	 */
	if (csv && !(out = fopen(csv, "a")))
		die("open", csv);
	snprintf(wl, sizeof(wl), "%s", workloads);
	for (w = strtok_r(wl, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		for (int r = warmup ? 0 : 1; r <= repeats; r++) {
			unsigned long long e0, a0, e1, a1;
			char events[32] = "";
			double wall, full_limit = limit;
			int rc;

			if (r == 0)
				limit = full_limit / 4;

			if (read_counter(counter, &e0, &a0)) {
				fprintf(stderr, "fsbench: bad counter %s\n", counter);
				return 2;
			}
			wall = now();
			rc = run(w, dir);
			limit = full_limit;
			if (rc)
				return rc;
			wall = now() - wall;
			read_counter(counter, &e1, &a1);
			if (strcmp(counter, "none")) {
				if (e1 - e0 != (unsigned long long)res.opens ||
				    a1 - a0 != (unsigned long long)res.opens) {
					fprintf(stderr, "fsbench: %s %s: %ld opens but %llu events, %llu allowed\n",
						label, w, res.opens, e1 - e0, a1 - a0);
					return 1;
				}
				snprintf(events, sizeof(events), "%llu", e1 - e0);
			}
			if (helper && kill(helper, 0)) {
				fprintf(stderr, "fsbench: %s %s: helper %d died\n", label, w, helper);
				return 1;
			}
			if (r == 0) {
				printf("bench: %-16s %-9s warm-up %10.1f %-8s wall=%.2fs\n", label, w,
				       res.value, res.unit, wall);
				fflush(stdout);
				continue;
			}
			if (out) {
				fprintf(out, "%s,%s,%d,%.3f,%s,%ld,%ld,%s,%.4f\n", label, w, r - 1 + first,
					res.value, res.unit, res.ops, res.opens, events, res.secs);
				fflush(out);
			}
			printf("bench: %-16s %-9s #%d %12.1f %-8s wall=%.2fs %s%s\n", label, w,
			       r - 1 + first, res.value, res.unit, wall, *events ? "events=" : "", events);
			fflush(stdout);
		}
	}
	if (out && fclose(out))
		die("close", csv);
	return 0;
}
