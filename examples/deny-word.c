// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * deny-word: the smallest useful scanner built on libdazukofs.
 *
 *   deny-word GROUP WORD [COUNT]
 *
 * Makes a tracked group GROUP with a 10 s timeout, then answers its events:
 * deny when the first 64 KiB of the file contain WORD, allow otherwise.
 * Stops after COUNT events (default: never) and removes the group.
 */
#define _GNU_SOURCE
#include <dazukofs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int contains(int fd, const char *word)
{
	static char buf[65536 + 1];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return memmem(buf, (size_t)n, word, strlen(word)) != NULL;
}

int main(int argc, char **argv)
{
	struct dazukofs_group_config config = DAZUKOFS_GROUP_CONFIG_DEFAULT;
	struct dazukofs_access acc;
	dazukofs_handle_t handle;
	long count = -1;
	char path[4096];

	if (argc < 3 || argc > 4 || !strcmp(argv[1], "--help")) {
		fprintf(stderr, "usage: %s GROUP WORD [COUNT]\n", argv[0]);
		return argc == 2 ? 0 : 2;
	}
	if (argc == 4)
		count = strtol(argv[3], NULL, 10);
	config.timeout_ms = 10000;	/* then allow, the default action */

	/* Our own reads of files on the mount must not wait for ourselves. */
	if (dazukofs_ignore_on() < 0 ||
	    dazukofs_group_create(argv[1], &config) < 0) {
		fprintf(stderr, "deny-word: %s\n", dazukofs_strerror());
		return 1;
	}
	handle = dazukofs_open(argv[1], 0);
	if (!handle) {
		fprintf(stderr, "deny-word: %s\n", dazukofs_strerror());
		dazukofs_group_delete(argv[1]);
		return 1;
	}
	printf("deny-word: ready\n");
	fflush(stdout);

	while (count != 0 && dazukofs_get_access(handle, &acc) == 0) {
		acc.deny = contains(acc.fd, argv[2]);
		if (dazukofs_get_filename(&acc, path, sizeof(path)) < 0)
			snprintf(path, sizeof(path), "(unknown)");
		printf("%s %s (pid %d)\n", acc.deny ? "deny" : "allow", path,
		       (int)acc.pid);
		fflush(stdout);
		if (dazukofs_return_access(handle, &acc) < 0)
			fprintf(stderr, "deny-word: %s\n", dazukofs_strerror());
		if (count > 0)
			count--;
	}
	dazukofs_close(handle);
	dazukofs_group_delete(argv[1]);
	return 0;
}
