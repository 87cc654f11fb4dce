/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Quarantine: a detected file's content, copied into a directory only
 * root can enter, with what is needed to put it back: its original path,
 * owner, group, mode, times and the signature that matched.
 *
 * Each entry is two files named by its id: ID (the content, mode 0600)
 * and ID.json (the metadata, written after the content is on disk, so an
 * entry without ID.json is an interrupted copy).  The fields of ID.json
 * are documented in dazuko-quarantine(8) and stay stable.
 */
#ifndef SCANNER_QUARANTINE_H
#define SCANNER_QUARANTINE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "config/config.h"

/* "20261205T051200Z-0123abcd" */
#define QUARANTINE_ID_MAX 32

struct quarantine_entry {
	char id[QUARANTINE_ID_MAX];
	char *path;		/* as the scanner saw it */
	char *signature;
	uid_t uid;
	gid_t gid;
	mode_t mode;		/* permission bits, setuid ones included */
	uint64_t size;
	struct timespec atime, mtime;
	int64_t quarantined;	/* time(2) of the copy */
	pid_t pid;		/* the opener */
	enum quarantine_mode action;
};

void quarantine_entry_free(struct quarantine_entry *e);

/*
 * Open dir (an O_PATH-free directory fd), creating it (0700) if create;
 * refused unless it is a directory owned by this user that nobody else
 * may enter: a quarantine others can read hands them the malware.
 */
int quarantine_open_dir(const char *dir, int create, char *err, size_t errlen);

/*
 * What the quarantine may take, so that a flood of detections fills
 * neither it nor its filesystem: a copy that would go past one is not
 * made.  0: no such limit.
 */
struct quarantine_limits {
	uint64_t max_size;	/* bytes of every entry, content and metadata */
	unsigned int max_files;	/* entries */
	uint64_t min_free;	/* bytes its filesystem keeps free after a copy */
};

/* Why quarantine_file() made no copy: for the caller to count. */
enum quarantine_outcome {
	QUARANTINE_DONE,
	QUARANTINE_FAILED,	/* err says why */
	QUARANTINE_NO_ROOM,	/* a limit of lim; err says which */
};

/*
 * Put the file open at fd (read from offset 0; the caller's offset is
 * not used) into the quarantine at dirfd, if lim leaves room for its
 * size (the entries are counted now: an admin may have deleted some; a
 * file that grows while it is copied is not copied past the size it had).
 * Callers that share dirfd call this one at a time.  With QUARANTINE_MOVE
 * the file is then unlinked at path, but only if path still names the
 * same file (device and inode) as fd: the path is the scanner's view,
 * which a rename or another mount namespace may have made someone else's
 * file.  QUARANTINE_DONE with the new id in id (and *removed set).
 */
enum quarantine_outcome quarantine_file(int dirfd, const struct quarantine_limits *lim,
					enum quarantine_mode mode, int fd,
					const char *path, const char *signature,
					pid_t pid, char id[QUARANTINE_ID_MAX],
					int *removed, char *err, size_t errlen);

/* Whether id is well formed: no way out of the directory through it. */
int quarantine_id_valid(const char *id);

/* Read ID.json; -1 with a message (missing, malformed). */
int quarantine_load(int dirfd, const char *id, struct quarantine_entry *e,
		    char *err, size_t errlen);

/*
 * The ids of the complete entries, sorted (oldest first): a malloc'ed
 * array of malloc'ed strings, *n of them.  -1 with a message.
 */
int quarantine_list(int dirfd, char ***ids, size_t *n, char *err, size_t errlen);

/*
 * Write the entry's content to 'to' (the original path if NULL) with its
 * owner, group, mode and times; refuse an existing file unless replace.
 * The entry stays in the quarantine (delete it after).
 */
int quarantine_restore(int dirfd, const struct quarantine_entry *e,
		       const char *to, int replace, char *err, size_t errlen);

/* Remove both files of the entry. */
int quarantine_delete(int dirfd, const char *id, char *err, size_t errlen);

#endif
