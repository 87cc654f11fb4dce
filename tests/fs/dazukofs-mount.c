// SPDX-License-Identifier: GPL-2.0
/*
 * dazukofs-mount: call mount(2) once and check errno exactly.
 *
 * usage: dazukofs-mount [-t FSTYPE] [-o DATA] [-e ERRNAME|0] SOURCE TARGET
 *   -e ERRNAME: expect mount(2) to fail with that errno (e.g. ENOENT);
 *   -e 0 (default): expect success.
 * Exit status 0 if the outcome is the expected one, 1 otherwise.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

static int errno_by_name(const char *name)
{
	if (!strcmp(name, "0"))
		return 0;
	for (int e = 1; e < 200; e++) {
		const char *n = strerrorname_np(e);

		if (n && !strcmp(n, name))
			return e;
	}
	fprintf(stderr, "unknown errno name %s\n", name);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *type = "dazukofs", *data = NULL;
	int want = 0, opt, r, err;

	while ((opt = getopt(argc, argv, "t:o:e:")) != -1) {
		switch (opt) {
		case 't': type = optarg; break;
		case 'o': data = optarg; break;
		case 'e': want = errno_by_name(optarg); break;
		default: return 2;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: %s [-t FSTYPE] [-o DATA] [-e ERRNAME|0] "
			"SOURCE TARGET\n", argv[0]);
		return 2;
	}
	errno = 0;
	r = mount(argv[optind], argv[optind + 1], type, 0, data);
	err = r ? errno : 0;
	printf("mount -t %s%s%s %s %s: %s\n", type, data ? " -o " : "",
	       data ? data : "", argv[optind], argv[optind + 1],
	       err ? strerrorname_np(err) : "success");
	if (err != want) {
		fprintf(stderr, "  expected %s\n",
			want ? strerrorname_np(want) : "success");
		return 1;
	}
	return 0;
}
