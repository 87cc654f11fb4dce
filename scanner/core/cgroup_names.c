// SPDX-License-Identifier: GPL-2.0
/*
 * The workload behind an access (cgroup_names.h).  Only detections and
 * logged clean scans ask, so a miss may walk the cgroup2 filesystem
 * (dazukofs_cgroup_path()); a small cache, replaced round robin, keeps a
 * burst of detections in one container from walking again.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dazukofs.h>

#include "core/cgroup_names.h"

#define CGROUP_NAMES_CACHED 64
#define CGROUP_PATH_MAX 4096

struct cgroup_name {
	uint64_t id;			/* 0: free */
	char *path;
	struct workload w;
};

struct cgroup_names {
	pthread_mutex_t lock;
	struct cgroup_name e[CGROUP_NAMES_CACHED];
	unsigned int next;		/* the entry replaced next */
};

struct cgroup_names *cgroup_names_new(void)
{
	struct cgroup_names *cn = calloc(1, sizeof(*cn));

	if (cn)
		pthread_mutex_init(&cn->lock, NULL);
	return cn;
}

void cgroup_names_free(struct cgroup_names *cn)
{
	if (!cn)
		return;
	for (unsigned int i = 0; i < CGROUP_NAMES_CACHED; i++)
		free(cn->e[i].path);
	pthread_mutex_destroy(&cn->lock);
	free(cn);
}

int cgroup_names_parse_proc(const char *text, char *path, size_t size)
{
	const char *l = text;

	while (l && *l) {
		if (!strncmp(l, "0::", 3)) {
			size_t n = strcspn(l + 3, "\n");

			if (n >= size || l[3] != '/')
				return -1;
			memcpy(path, l + 3, n);
			path[n] = '\0';
			return 0;
		}
		l = strchr(l, '\n');
		if (l)
			l++;
	}
	return -1;
}

/* pid's cgroup path, from /proc/PID/cgroup; -1 if the process is gone. */
static int proc_cgroup(pid_t pid, char *path, size_t size)
{
	char file[64], text[CGROUP_PATH_MAX + 512];
	ssize_t n;
	int fd;

	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	return cgroup_names_parse_proc(text, path, size);
}

static int cached(struct cgroup_names *cn, uint64_t id, char *path, size_t size,
		  struct workload *w)
{
	int found = -1;

	pthread_mutex_lock(&cn->lock);
	for (unsigned int i = 0; i < CGROUP_NAMES_CACHED; i++) {
		if (cn->e[i].id != id || !cn->e[i].path)
			continue;
		if (strlen(cn->e[i].path) < size) {
			strcpy(path, cn->e[i].path);
			*w = cn->e[i].w;
			found = 0;
		}
		break;
	}
	pthread_mutex_unlock(&cn->lock);
	return found;
}

static void remember(struct cgroup_names *cn, uint64_t id, const char *path,
		     const struct workload *w)
{
	char *copy = strdup(path);
	struct cgroup_name *e;

	if (!copy)
		return;
	pthread_mutex_lock(&cn->lock);
	e = &cn->e[cn->next];
	cn->next = (cn->next + 1) % CGROUP_NAMES_CACHED;
	free(e->path);
	e->id = id;
	e->path = copy;
	e->w = *w;
	pthread_mutex_unlock(&cn->lock);
}

int cgroup_names_lookup(struct cgroup_names *cn, uint64_t id, pid_t pid,
			char *path, size_t size, struct workload *w)
{
	uint64_t found_id = 0;
	int ok = -1;

	memset(w, 0, sizeof(*w));
	if (size)
		path[0] = '\0';
	if (id && cn && !cached(cn, id, path, size, w))
		return 0;
	/* the opener's own cgroup, if it is still the event's */
	if (pid > 0 && !proc_cgroup(pid, path, size) &&
	    !dazukofs_cgroup_id(path, &found_id) && (!id || found_id == id))
		ok = 0;
	else if (id && dazukofs_cgroup_path(id, path, size) >= 0)
		ok = 0, found_id = id;
	if (ok) {
		if (size)
			path[0] = '\0';
		return -1;
	}
	workload_parse(path, w);
	if (cn && found_id)
		remember(cn, found_id, path, w);
	return 0;
}
