// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dazukofs.h"
#include "fake.h"

static void die(const char *what)
{
	perror(what);
	abort();
}

static void mkdirs(char *path)
{
	char *p;

	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			die(path);
		*p = '/';
	}
}

void fake_write(const char *root, const char *rel, const char *text)
{
	char path[1024];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	mkdirs(path);
	fp = fopen(path, "w");
	if (!fp)
		die(path);
	fputs(text, fp);
	if (fclose(fp))
		die(path);
}

const char *fake_read(const char *root, const char *rel)
{
	static char buf[256];
	char path[1024];
	size_t n;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	fp = fopen(path, "r");
	if (!fp)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

void fake_setup(struct fake *f)
{
	struct dazukofs_paths paths;

	snprintf(f->root, sizeof(f->root), "%s/dzlib-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(f->root))
		die("mkdtemp");
	snprintf(f->configfs, sizeof(f->configfs), "%s/config/dazukofs", f->root);
	snprintf(f->sysfs, sizeof(f->sysfs), "%s/sys/dazukofs", f->root);
	snprintf(f->dev_prefix, sizeof(f->dev_prefix), "%s/dev/dazukofs.", f->root);
	snprintf(f->ign_dev, sizeof(f->ign_dev), "%s/dev/dazukofs.ign", f->root);
	fake_write(f->root, "config/dazukofs/.keep", "");
	fake_write(f->root, "dev/.keep", "");
	fake_counters(f, NULL, 0);
	paths.configfs = f->configfs;
	paths.sysfs = f->sysfs;
	paths.dev_prefix = f->dev_prefix;
	paths.ign_dev = f->ign_dev;
	dazukofs_set_paths(&paths);
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void fake_teardown(struct fake *f)
{
	dazukofs_set_paths(NULL);
	nftw(f->root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static const char *const counters[] = {
	"events", "allowed", "denied", "cancelled", "timeouts", "waiting",
	"in_hand", "readers", "latency/max_us", "latency/le_100us",
	"latency/le_1ms", "latency/le_10ms", "latency/le_100ms",
	"latency/le_1s", "latency/gt_1s",
};

void fake_counters(struct fake *f, const char *name, uint64_t base)
{
	char rel[512], val[32];
	size_t i;

	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		if (name)
			snprintf(rel, sizeof(rel), "groups/%s/%s", name, counters[i]);
		else
			snprintf(rel, sizeof(rel), "%s", counters[i]);
		snprintf(val, sizeof(val), "%llu\n",
			 (unsigned long long)(base + i));
		fake_write(f->sysfs, rel, val);
	}
}

void fake_group(struct fake *f, const char *name, int id, int track,
		unsigned int timeout_ms, const char *action, uint64_t base)
{
	char rel[512], val[32];

	snprintf(rel, sizeof(rel), "%s/id", name);
	snprintf(val, sizeof(val), "%d\n", id);
	fake_write(f->configfs, rel, val);
	snprintf(rel, sizeof(rel), "%s/track", name);
	fake_write(f->configfs, rel, track ? "1\n" : "0\n");
	snprintf(rel, sizeof(rel), "%s/timeout_ms", name);
	snprintf(val, sizeof(val), "%u\n", timeout_ms);
	fake_write(f->configfs, rel, val);
	snprintf(rel, sizeof(rel), "%s/timeout_action", name);
	snprintf(val, sizeof(val), "%s\n", action);
	fake_write(f->configfs, rel, val);
	fake_counters(f, name, base);
	snprintf(rel, sizeof(rel), "groups/%s/id", name);
	snprintf(val, sizeof(val), "%d\n", id);
	fake_write(f->sysfs, rel, val);
	snprintf(rel, sizeof(rel), "groups/%s/active", name);
	fake_write(f->sysfs, rel, "1\n");
}

int fake_device(struct fake *f, int id)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s%d", f->dev_prefix, id);
	if (mkfifo(path, 0600))
		die(path);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die(path);
	return fd;
}

