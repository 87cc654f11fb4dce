// SPDX-License-Identifier: GPL-2.0
/*
 * fs-casefold UPPER LOWER: a dazukofs mount (UPPER) of a case-insensitive
 * directory (LOWER: vfat, exfat, or an ext4 directory with casefold) works
 * as the lower does: names are found in every case and name one file, a
 * name made in one case is taken in another, getcwd() after a chdir in
 * another case names the directory, and the dcache keeps one dentry per
 * file (lookups in 4096 spellings add next to no dentry, counted by
 * /proc/sys/fs/dentry-state, where exact matching kept one per spelling
 * of the file's name, each failing revalidation against the lower's).  Prints one PASS/FAIL line per check; exits 1 on
 * any FAIL.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs-check.h"

#define check(ok, what) check_as("fs-casefold", (ok), (what))

static const char *at(const char *dir, const char *name)
{
	static char path[4][PATH_MAX];
	static int next;
	char *p = path[next++ % 4];

	snprintf(p, PATH_MAX, "%s/%s", dir, name);
	return p;
}

static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_ino == sb.st_ino;
}

static long dentries(void)
{
	long n = -1;
	FILE *f = fopen("/proc/sys/fs/dentry-state", "re");

	if (f) {
		if (fscanf(f, "%ld", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

/* All 2^n case spellings of @name (n letters at most 12). */
static int stat_every_spelling(const char *dir, const char *name)
{
	char variant[NAME_MAX + 1];
	size_t len = strlen(name);
	unsigned int letters = 0, ok = 1;
	struct stat st;

	for (size_t i = 0; i < len; i++)
		letters += !!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
				    name[i]);
	if (letters > 12)
		letters = 12;
	for (unsigned int mask = 0; mask < (1u << letters); mask++) {
		unsigned int bit = 0;

		for (size_t i = 0; i < len; i++) {
			char c = name[i];

			if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", c) &&
			    bit < letters)
				c = (mask >> bit++) & 1 ? (c & ~0x20) : (c | 0x20);
			variant[i] = c;
		}
		variant[len] = '\0';
		if (stat(at(dir, variant), &st))
			ok = 0;
	}
	return ok;
}

/* Is @name in @dir's listing in exactly that spelling? */
static int listed_as(const char *dir, const char *name)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int found = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (!strcmp(de->d_name, name))
			found = 1;
	closedir(d);
	return found;
}

/*
 * In @dir: look @looked up (missing), then make @made, the same name in
 * another spelling, a file or a directory.  Does it keep its spelling?
 */
static int made_as_spelled(const char *dir, const char *looked,
			   const char *made, int directory)
{
	int fd;

	if (access(at(dir, looked), F_OK) == 0 || errno != ENOENT)
		return 0;
	if (directory) {
		if (mkdir(at(dir, made), 0755))
			return 0;
	} else {
		fd = open(at(dir, made), O_WRONLY | O_CREAT, 0644);
		if (fd < 0)
			return 0;
		close(fd);
	}
	return listed_as(dir, made);
}

int main(int argc, char **argv)
{
	const char *up, *low;
	char cwd[PATH_MAX], buf[64];
	long before, after;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: %s UPPER LOWER\n", argv[0]);
		return 2;
	}
	up = argv[1];
	low = argv[2];
	if (mkdir(at(low, "Dir"), 0755) ||
	    (fd = open(at(low, "Dir/FileName.txt"), O_WRONLY | O_CREAT, 0644)) < 0 ||
	    write(fd, "content\n", 8) != 8 || close(fd)) {
		perror("fs-casefold: setting up the lower");
		return 1;
	}

	check(same_file(at(up, "Dir/FileName.txt"), at(low, "Dir/FileName.txt")) &&
	      same_file(at(up, "dir/filename.txt"), at(low, "Dir/FileName.txt")) &&
	      same_file(at(up, "DIR/FILENAME.TXT"), at(low, "Dir/FileName.txt")),
	      "a name in any case finds the lower's file");
	fd = open(at(up, "dIR/fILEnAME.tXT"), O_RDONLY);
	check(fd >= 0 && read(fd, buf, sizeof(buf)) == 8 && !memcmp(buf, "content\n", 8),
	      "open and read in another case");
	if (fd >= 0)
		close(fd);

	fd = open(at(up, "NEW.txt"), O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		perror("fs-casefold: create NEW.txt");
	check(fd >= 0, "create through the mount");
	if (fd >= 0)
		close(fd);
	check(same_file(at(low, "new.TXT"), at(up, "new.txt")),
	      "created name found in another case, on the lower and the mount");
	errno = 0;
	check(open(at(up, "new.TXT"), O_WRONLY | O_CREAT | O_EXCL, 0644) < 0 &&
	      errno == EEXIST, "O_EXCL create in another case: EEXIST");
	check(rename(at(up, "new.TXT"), at(up, "Renamed.txt")) == 0 &&
	      same_file(at(low, "RENAMED.TXT"), at(up, "renamed.TXT")),
	      "rename to a new name, found in another case");
	check(rename(at(up, "renamed.txt"), at(up, "New.txt")) == 0,
	      "rename back");
	check(unlink(at(up, "New.Txt")) == 0, "unlink in another case");
	check(access(at(low, "NEW.txt"), F_OK) && errno == ENOENT &&
	      access(at(up, "NEW.txt"), F_OK) && errno == ENOENT,
	      "unlinked: gone in every case, on the lower and the mount");

	/*
	 * A name takes the spelling it is made with, also after a lookup of
	 * another (exfat keeps that one's negative dentry), as on the lower.
	 */
	check(made_as_spelled(low, "CONTROL.txt", "control.TXT", 0) &&
	      made_as_spelled(low, "CONTROL.DIR", "Control.dir", 1),
	      "the lower: made names keep their spelling after a lookup of another");
	check(made_as_spelled(up, "SPELLED.txt", "spelled.TXT", 0),
	      "open(O_CREAT) keeps its spelling after a lookup of another");
	check(made_as_spelled(up, "SPELLED.DIR", "Spelled.dir", 1),
	      "mkdir keeps its spelling after a lookup of another");

	check(chdir(at(up, "DIR")) == 0 && getcwd(cwd, sizeof(cwd)) &&
	      strrchr(cwd, '/') && strcasecmp(strrchr(cwd, '/') + 1, "dir") == 0 &&
	      same_file(cwd, at(low, "Dir")) && same_file(".", cwd),
	      "getcwd after chdir in another case names the directory");
	if (chdir("/"))
		return 1;

	/* Spellings must not multiply dentries (the lower has one each). */
	before = dentries();
	for (int round = 0; round < 2; round++)
		if (!stat_every_spelling(up, "Dir/FileName.txt"))
			check(0, "every spelling of Dir/FileName.txt");
	after = dentries();
	printf("fs-casefold: dentries %ld -> %ld over 2 rounds of 2^12 spellings\n",
	       before, after);
	/* Exact matching kept one per spelling of the file's name: 2^9 here. */
	check(before >= 0 && after - before < 64,
	      "lookups in 4096 spellings add no dentry per spelling");

	return check_done("fs-casefold");
}
