// SPDX-License-Identifier: GPL-2.0
/* Quarantine (quarantine.h): entries of content + JSON metadata. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <json-c/json.h>
#include <linux/dazukofs.h>
#include <linux/openat2.h>

#include "actions/quarantine.h"
#include "util/file_version.h"
#include "util/jsonw.h"

#define COPY_CHUNK (128 * 1024)
#define META_SUFFIX ".json"
#define META_MAX (64 * 1024)

void quarantine_entry_free(struct quarantine_entry *e)
{
	free(e->path);
	free(e->signature);
	e->path = NULL;
	e->signature = NULL;
}

/* mkdir -p: missing parents 0755, dir itself 0700. */
static int mkdir_parents(const char *dir, char *err, size_t errlen)
{
	char path[PATH_MAX];
	size_t n = strlen(dir);

	if (n >= sizeof(path)) {
		snprintf(err, errlen, "quarantine_dir: path too long");
		return -1;
	}
	memcpy(path, dir, n + 1);
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			snprintf(err, errlen, "quarantine_dir %s: mkdir %s: %s", dir, path,
				 strerror(errno));
			return -1;
		}
		*p = '/';
	}
	if (mkdir(path, 0700) && errno != EEXIST) {
		snprintf(err, errlen, "quarantine_dir %s: mkdir: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

int quarantine_open_dir(const char *dir, int create, char *err, size_t errlen)
{
	struct stat st;
	int fd;

	if (dir[0] != '/') {
		snprintf(err, errlen, "quarantine_dir '%s': not an absolute path", dir);
		return -1;
	}
	if (create && mkdir_parents(dir, err, errlen))
		return -1;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "quarantine_dir %s: %s", dir, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st)) {
		snprintf(err, errlen, "quarantine_dir %s: fstat: %s", dir, strerror(errno));
		goto fail;
	}
	if (st.st_uid != geteuid() || (st.st_mode & 077)) {
		snprintf(err, errlen,
			 "quarantine_dir %s: owned by uid %u with mode %04o; it must be this user's (uid %u) and mode 0700, so that nobody else can take the files",
			 dir, (unsigned int)st.st_uid, (unsigned int)(st.st_mode & 07777),
			 (unsigned int)geteuid());
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

/* Exactly what new_id() makes: YYYYMMDDTHHMMSSZ-xxxxxxxx. */
int quarantine_id_valid(const char *id)
{
	static const char pattern[] = "DDDDDDDDTDDDDDDZ-XXXXXXXX";

	if (strlen(id) != sizeof(pattern) - 1)
		return 0;
	for (size_t i = 0; pattern[i]; i++) {
		char c = id[i];

		if (pattern[i] == 'D' ? !(c >= '0' && c <= '9') :
		    pattern[i] == 'X' ? !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) :
		    c != pattern[i])
			return 0;
	}
	return 1;
}

static int new_id(char id[QUARANTINE_ID_MAX], time_t now)
{
	unsigned char rnd[4];
	struct tm tm;
	char stamp[20];

	if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd))
		return -1;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(id, QUARANTINE_ID_MAX, "%s-%02x%02x%02x%02x", stamp, rnd[0], rnd[1],
		 rnd[2], rnd[3]);
	return 0;
}

/* All of in (from offset 0) into out; -1 with errno. */
/* The first max bytes of in; EFBIG if it holds more. */
static int copy_fd(int in, int out, uint64_t max)
{
	char *buf = malloc(COPY_CHUNK);
	off_t off = 0;
	ssize_t n;

	if (!buf)
		return -1;
	for (;;) {
		/* one byte past max, to tell a file that grew */
		n = pread(in, buf, COPY_CHUNK, off);
		if (n > 0 && (uint64_t)off + (uint64_t)n > max) {
			free(buf);
			errno = EFBIG;
			return -1;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (ssize_t done = 0; done < n;) {
			ssize_t w = write(out, buf + done, (size_t)(n - done));

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				free(buf);
				return -1;
			}
			done += w;
		}
		off += n;
	}
	free(buf);
	return n < 0 ? -1 : 0;
}

/* The entry's metadata as JSON text (the caller frees it); NULL without memory. */
static char *entry_to_json(const struct quarantine_entry *e, size_t *len)
{
	struct jsonw w;

	if (jsonw_begin(&w, 1))
		return NULL;
	jsonw_string(&w, "id", e->id);
	jsonw_string(&w, "path", e->path);
	jsonw_string(&w, "signature", e->signature);
	jsonw_int(&w, "uid", e->uid);
	jsonw_int(&w, "gid", e->gid);
	jsonw_int(&w, "mode", e->mode);
	jsonw_uint(&w, "size", e->size);
	jsonw_int(&w, "atime_sec", e->atime.tv_sec);
	jsonw_int(&w, "atime_nsec", e->atime.tv_nsec);
	jsonw_int(&w, "mtime_sec", e->mtime.tv_sec);
	jsonw_int(&w, "mtime_nsec", e->mtime.tv_nsec);
	jsonw_int(&w, "quarantined", e->quarantined);
	jsonw_int(&w, "pid", e->pid);
	jsonw_string(&w, "action", quarantine_mode_name(e->action));
	return jsonw_end(&w, 1, len);
}

/* ID.json, written to a temporary name and renamed: never half there. */
static int write_meta(int dirfd, const struct quarantine_entry *e, char *err,
		      size_t errlen)
{
	char tmp[QUARANTINE_ID_MAX + 16], name[QUARANTINE_ID_MAX + 8];
	size_t len;
	char *text = entry_to_json(e, &len);
	int fd, rc = -1;

	if (!text) {
		snprintf(err, errlen, "quarantine %s" META_SUFFIX ": out of memory", e->id);
		goto out;
	}
	snprintf(tmp, sizeof(tmp), "%s.json.tmp", e->id);
	snprintf(name, sizeof(name), "%s" META_SUFFIX, e->id);
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(err, errlen, "quarantine %s: %s", tmp, strerror(errno));
		goto out;
	}
	errno = EIO;	/* a short write sets none */
	if (write(fd, text, len) != (ssize_t)len || fsync(fd)) {
		snprintf(err, errlen, "quarantine %s: write: %s", tmp, strerror(errno));
		close(fd);
		unlinkat(dirfd, tmp, 0);
		goto out;
	}
	close(fd);
	if (renameat(dirfd, tmp, dirfd, name)) {
		snprintf(err, errlen, "quarantine %s: rename: %s", tmp, strerror(errno));
		unlinkat(dirfd, tmp, 0);
		goto out;
	}
	fsync(dirfd);
	rc = 0;
out:
	free(text);
	return rc;
}

/*
 * Whether now (found by path in dfd) is the detected file st.  The event's
 * fd of a dazukofs group is the lower file; a dazukofs mount over its own
 * lower (mount -t dazukofs /srv /srv) makes the path name the dazukofs
 * inode, which reports the lower's inode number, size and times but the
 * mount's device.
 */
static int same_file(int dfd, const struct stat *now, const struct stat *st)
{
	struct statfs sfs;

	if (now->st_dev == st->st_dev)
		return now->st_ino == st->st_ino;
	return now->st_ino == st->st_ino && stat_same_times(now, st) &&
	       !fstatfs(dfd, &sfs) && sfs.f_type == DAZUKOFS_SUPER_MAGIC;
}

/*
 * Unlink path if it still names the file st describes.  The parent is
 * held open, so only the last component can change between the check
 * and the unlink, and that needs write access to the directory, which
 * is enough to remove the entry anyway.
 */
static int remove_original(const char *path, const struct stat *st, char *err,
			   size_t errlen)
{
	char *copy = strdup(path), *copy2 = strdup(path);
	const char *base;
	struct stat now;
	int dfd = -1, rc = -1;

	if (!copy || !copy2) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (path[0] != '/') {
		snprintf(err, errlen, "not removed: the path is not known here");
		goto out;
	}
	base = basename(copy2);
	dfd = open(dirname(copy), O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		snprintf(err, errlen, "not removed: %s", strerror(errno));
		goto out;
	}
	if (fstatat(dfd, base, &now, AT_SYMLINK_NOFOLLOW) || !same_file(dfd, &now, st)) {
		snprintf(err, errlen, "not removed: the path names another file here");
		goto out;
	}
	if (unlinkat(dfd, base, 0)) {
		snprintf(err, errlen, "not removed: unlink: %s", strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (dfd >= 0)
		close(dfd);
	free(copy);
	free(copy2);
	return rc;
}

/*
 * The quarantine's entries from the start, on a descriptor of their own
 * (dirfd stays the caller's); NULL with a message.
 */
static DIR *open_entries(int dirfd, char *err, size_t errlen)
{
	int fd = dup(dirfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d) {
		snprintf(err, errlen, "opendir: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	rewinddir(d);
	return d;
}

/* Bytes and entries in the quarantine now, interrupted copies included. */
static int quarantine_usage(int dirfd, uint64_t *bytes, unsigned int *files,
			    char *err, size_t errlen)
{
	DIR *d = open_entries(dirfd, err, errlen);
	struct dirent *de;

	*bytes = 0;
	*files = 0;
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.' ||
		    fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		*bytes += (uint64_t)st.st_size;
		*files += quarantine_id_valid(de->d_name);
	}
	closedir(d);
	return 0;
}

/* 1 if a copy of size bytes fits in lim, 0 if not (err says why), -1 error. */
static int quarantine_room(int dirfd, const struct quarantine_limits *lim,
			   uint64_t size, char *err, size_t errlen)
{
	unsigned int files;
	uint64_t bytes;
	struct statfs sf;

	if (lim->max_size || lim->max_files) {
		if (quarantine_usage(dirfd, &bytes, &files, err, errlen))
			return -1;
		if (lim->max_files && files >= lim->max_files) {
			snprintf(err, errlen, "quarantine_max_files: %u entries already", files);
			return 0;
		}
		if (lim->max_size && (bytes > lim->max_size || size > lim->max_size - bytes)) {
			snprintf(err, errlen,
				 "quarantine_max_size: %" PRIu64 " bytes held, %" PRIu64 " more would pass %" PRIu64,
				 bytes, size, lim->max_size);
			return 0;
		}
	}
	if (lim->min_free) {
		uint64_t avail;

		if (fstatfs(dirfd, &sf)) {
			snprintf(err, errlen, "statfs: %s", strerror(errno));
			return -1;
		}
		avail = (uint64_t)sf.f_bavail * (uint64_t)sf.f_bsize;
		if (avail < lim->min_free || avail - lim->min_free < size) {
			snprintf(err, errlen,
				 "quarantine_min_free: %" PRIu64 " bytes free, a copy of %" PRIu64 " would leave less than %" PRIu64,
				 avail, size, lim->min_free);
			return 0;
		}
	}
	return 1;
}

enum quarantine_outcome quarantine_file(int dirfd, const struct quarantine_limits *lim,
					enum quarantine_mode mode, int fd,
					const char *path, const char *signature,
					pid_t pid, char id[QUARANTINE_ID_MAX],
					int *removed, char *err, size_t errlen)
{
	struct quarantine_entry e = { .pid = pid, .action = mode };
	struct stat st;
	int out, room;

	*removed = 0;
	if (fstat(fd, &st)) {
		snprintf(err, errlen, "fstat: %s", strerror(errno));
		return QUARANTINE_FAILED;
	}
	/* the metadata's few hundred bytes are within the floor's slack */
	room = quarantine_room(dirfd, lim, (uint64_t)st.st_size, err, errlen);
	if (room <= 0)
		return room ? QUARANTINE_FAILED : QUARANTINE_NO_ROOM;
	e.quarantined = time(NULL);
	if (new_id(e.id, (time_t)e.quarantined)) {
		snprintf(err, errlen, "getrandom: %s", strerror(errno));
		return QUARANTINE_FAILED;
	}
	out = openat(dirfd, e.id, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0) {
		snprintf(err, errlen, "create %s: %s", e.id, strerror(errno));
		return QUARANTINE_FAILED;
	}
	if (copy_fd(fd, out, (uint64_t)st.st_size) || fsync(out)) {
		snprintf(err, errlen, "copy to %s: %s", e.id,
			 errno == EFBIG ? "the file grew while it was copied" : strerror(errno));
		close(out);
		unlinkat(dirfd, e.id, 0);
		return QUARANTINE_FAILED;
	}
	close(out);
	e.path = (char *)path;
	e.signature = (char *)signature;
	e.uid = st.st_uid;
	e.gid = st.st_gid;
	e.mode = st.st_mode & 07777;
	e.size = (uint64_t)st.st_size;
	e.atime = st.st_atim;
	e.mtime = st.st_mtim;
	if (write_meta(dirfd, &e, err, errlen)) {
		unlinkat(dirfd, e.id, 0);
		return QUARANTINE_FAILED;
	}
	memcpy(id, e.id, QUARANTINE_ID_MAX);
	if (mode == QUARANTINE_MOVE && !remove_original(path, &st, err, errlen))
		*removed = 1;	/* else quarantined; err says why it stayed */
	return QUARANTINE_DONE;
}

static int get_int64(json_object *o, const char *key, int64_t *v)
{
	json_object *f;

	if (!json_object_object_get_ex(o, key, &f) || !json_object_is_type(f, json_type_int))
		return -1;
	*v = json_object_get_int64(f);
	return 0;
}

static char *get_string(json_object *o, const char *key)
{
	json_object *f;

	if (!json_object_object_get_ex(o, key, &f) || !json_object_is_type(f, json_type_string))
		return NULL;
	return strdup(json_object_get_string(f));
}

int quarantine_load(int dirfd, const char *id, struct quarantine_entry *e,
		    char *err, size_t errlen)
{
	char name[QUARANTINE_ID_MAX + 8], *text = NULL, *action = NULL;
	int64_t uid, gid, mode, size, as, an, ms, mn, when, pid;
	json_object *o = NULL;
	ssize_t n;
	int fd, rc = -1;

	memset(e, 0, sizeof(*e));
	if (!quarantine_id_valid(id)) {
		snprintf(err, errlen, "'%s' is not a quarantine id", id);
		return -1;
	}
	snprintf(name, sizeof(name), "%s" META_SUFFIX, id);
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", id,
			 errno == ENOENT ? "no such entry in the quarantine" : strerror(errno));
		return -1;
	}
	text = malloc(META_MAX + 1);
	n = text ? read(fd, text, META_MAX) : -1;
	close(fd);
	if (n < 0) {
		snprintf(err, errlen, "%s: read: %s", name, strerror(errno));
		goto out;
	}
	text[n] = '\0';
	o = json_tokener_parse(text);
	snprintf(e->id, sizeof(e->id), "%s", id);
	if (!o || !(e->path = get_string(o, "path")) ||
	    !(e->signature = get_string(o, "signature")) ||
	    !(action = get_string(o, "action")) ||
	    get_int64(o, "uid", &uid) || get_int64(o, "gid", &gid) ||
	    get_int64(o, "mode", &mode) || get_int64(o, "size", &size) ||
	    get_int64(o, "atime_sec", &as) || get_int64(o, "atime_nsec", &an) ||
	    get_int64(o, "mtime_sec", &ms) || get_int64(o, "mtime_nsec", &mn) ||
	    get_int64(o, "quarantined", &when) || get_int64(o, "pid", &pid) ||
	    quarantine_mode_parse(action) <= QUARANTINE_NO) {
		snprintf(err, errlen, "%s: malformed or incomplete metadata", name);
		quarantine_entry_free(e);
		goto out;
	}
	e->uid = (uid_t)uid;
	e->gid = (gid_t)gid;
	e->mode = (mode_t)mode & 07777;
	e->size = (uint64_t)size;
	e->atime.tv_sec = as;
	e->atime.tv_nsec = an;
	e->mtime.tv_sec = ms;
	e->mtime.tv_nsec = mn;
	e->quarantined = when;
	e->pid = (pid_t)pid;
	e->action = quarantine_mode_parse(action);
	rc = 0;
out:
	if (o)
		json_object_put(o);
	free(action);
	free(text);
	return rc;
}

static int cmp_ids(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int quarantine_list(int dirfd, char ***ids, size_t *n, char *err, size_t errlen)
{
	DIR *d = open_entries(dirfd, err, errlen);
	size_t cap = 0;
	struct dirent *de;

	*ids = NULL;
	*n = 0;
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char id[QUARANTINE_ID_MAX];

		if (len <= strlen(META_SUFFIX) ||
		    strcmp(de->d_name + len - strlen(META_SUFFIX), META_SUFFIX) ||
		    len - strlen(META_SUFFIX) >= sizeof(id))
			continue;
		memcpy(id, de->d_name, len - strlen(META_SUFFIX));
		id[len - strlen(META_SUFFIX)] = '\0';
		if (!quarantine_id_valid(id))
			continue;
		if (*n == cap) {
			char **grown = realloc(*ids, (cap = cap ? 2 * cap : 16) * sizeof(**ids));

			if (!grown)
				goto nomem;
			*ids = grown;
		}
		if (!((*ids)[*n] = strdup(id)))
			goto nomem;
		(*n)++;
	}
	closedir(d);
	qsort(*ids, *n, sizeof(**ids), cmp_ids);
	return 0;
nomem:
	closedir(d);
	for (size_t i = 0; i < *n; i++)
		free((*ids)[i]);
	free(*ids);
	*ids = NULL;
	*n = 0;
	snprintf(err, errlen, "out of memory");
	return -1;
}

/*
 * The directory to restore into, held open: the create and the rename are
 * made in it, so that nothing can swap a component between them.  The
 * original path (the scanner's canonical view) has no symlinks, and none
 * is followed: else its owner could turn a directory of the path into a
 * symlink and have root write a file of theirs anywhere (--force: over
 * anything).  A --to path is the admin's own and resolved as usual.
 */
static int open_parent(const char *target, int from_metadata, char *base,
		       size_t baselen, char *err, size_t errlen)
{
	char parent[PATH_MAX];
	const char *slash = strrchr(target, '/');
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	size_t plen;
	int fd;

	if (!slash || !slash[1] || !strcmp(slash + 1, ".") || !strcmp(slash + 1, "..") ||
	    strlen(slash + 1) >= baselen) {
		snprintf(err, errlen, "%s: not a path to a file", target);
		return -1;
	}
	snprintf(base, baselen, "%s", slash + 1);
	plen = slash == target ? 1 : (size_t)(slash - target);
	if (plen >= sizeof(parent)) {
		snprintf(err, errlen, "%s: path too long", target);
		return -1;
	}
	memcpy(parent, target, plen);
	parent[plen] = '\0';
	if (from_metadata)
		fd = (int)syscall(SYS_openat2, AT_FDCWD, parent, &how, sizeof(how));
	else
		fd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		snprintf(err, errlen, "%s: %s%s", parent, strerror(errno),
			 from_metadata && errno == ELOOP ?
			 " (a symlink in the original path: restore with --to)" : "");
	return fd;
}

int quarantine_restore(int dirfd, const struct quarantine_entry *e,
		       const char *to, int replace, char *err, size_t errlen)
{
	const char *target = to ? to : e->path;
	char tmp[QUARANTINE_ID_MAX + 8], base[NAME_MAX + 1];
	struct timespec times[2] = { e->atime, e->mtime };
	int in, pfd, out = -1, rc = -1;

	in = openat(dirfd, e->id, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0) {
		snprintf(err, errlen, "%s: content: %s", e->id, strerror(errno));
		return -1;
	}
	pfd = open_parent(target, !to, base, sizeof(base), err, errlen);
	if (pfd < 0) {
		close(in);
		return -1;
	}
	/*
	 * The content goes to a new file next to the target, which gets the
	 * owner and mode before it gets the name: never visible half-written
	 * or with the wrong owner.
	 */
	snprintf(tmp, sizeof(tmp), ".dzq-%s", e->id);
	out = openat(pfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	if (copy_fd(in, out, UINT64_MAX) || fsync(out)) {
		snprintf(err, errlen, "%s: write: %s", tmp, strerror(errno));
		goto fail;
	}
	/* chown clears the setuid bits: the mode comes after */
	if (fchown(out, e->uid, e->gid) || fchmod(out, e->mode) || futimens(out, times)) {
		snprintf(err, errlen, "%s: setting owner %u:%u, mode %04o, times: %s", tmp,
			 (unsigned int)e->uid, (unsigned int)e->gid, (unsigned int)e->mode,
			 strerror(errno));
		goto fail;
	}
	if (renameat2(pfd, tmp, pfd, base, replace ? 0 : RENAME_NOREPLACE)) {
		snprintf(err, errlen, "%s: %s%s", target, strerror(errno),
			 errno == EEXIST ? " (--force replaces it)" : "");
		goto fail;
	}
	rc = 0;
	goto out;
fail:
	unlinkat(pfd, tmp, 0);
out:
	if (out >= 0)
		close(out);
	close(pfd);
	close(in);
	return rc;
}

int quarantine_delete(int dirfd, const char *id, char *err, size_t errlen)
{
	char name[QUARANTINE_ID_MAX + 8];

	if (!quarantine_id_valid(id)) {
		snprintf(err, errlen, "'%s' is not a quarantine id", id);
		return -1;
	}
	snprintf(name, sizeof(name), "%s" META_SUFFIX, id);
	if (faccessat(dirfd, name, F_OK, AT_SYMLINK_NOFOLLOW)) {
		snprintf(err, errlen, "%s: %s", id,
			 errno == ENOENT ? "no such entry in the quarantine" : strerror(errno));
		return -1;
	}
	/* the content first: an entry is listed as long as its metadata is */
	if (unlinkat(dirfd, id, 0) && errno != ENOENT) {
		snprintf(err, errlen, "%s: content: %s", id, strerror(errno));
		return -1;
	}
	if (unlinkat(dirfd, name, 0)) {
		snprintf(err, errlen, "%s: %s", id, strerror(errno));
		return -1;
	}
	return 0;
}
