// SPDX-License-Identifier: GPL-2.0
/*
 * fs-ioctl UPPER_FILE LOWER_FILE: the ioctls a dazukofs file passes to its
 * lower file on ext4, and those it must not.  FS_IOC_GETVERSION is on the
 * known list and answers as on the lower; FS_IOC_GETFLAGS is the VFS's own
 * and answers as on the lower; EXT4_IOC_GETSTATE, an ext4 ioctl that is not
 * on the list, succeeds on the lower but gets ENOTTY through the mount.
 * With a third argument "ro" (UPPER_FILE on a read-only dazukofs mount of
 * a writable lower), FS_IOC_SETVERSION, a writer on the list, gets EROFS
 * through the mount and works on the lower.
 * Built twice: fs-ioctl, and fs-ioctl32 as a 32-bit x86 program, whose
 * ioctls reach the module's ->compat_ioctl (its FS_IOC_GETVERSION and
 * FS_IOC_SETVERSION are FS_IOC32_GETVERSION and FS_IOC32_SETVERSION, whose
 * argument is an int; the lower's ->compat_ioctl converts them).
 * Prints one PASS/FAIL line per check; exits 1 on any FAIL.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fs-check.h"

/* fs/ext4/ext4.h; not in any UAPI header */
#define EXT4_IOC_GETSTATE _IOW('f', 41, unsigned int)

#define PROG (sizeof(long) == 4 ? "fs-ioctl32" : "fs-ioctl")
#define check(ok, what) check_as(PROG, (ok), (what))

int main(int argc, char **argv)
{
	long up_version = -1, low_version = -2;
	int up_flags = -1, low_flags = -2;
	unsigned int state = 0;
	int up, low, ret;

	if (argc == 4 && strcmp(argv[3], "ro") == 0) {
		int version = 7;

		up = open(argv[1], O_RDONLY | O_CLOEXEC);
		low = open(argv[2], O_RDONLY | O_CLOEXEC);
		check(up >= 0 && low >= 0 &&
		      ioctl(low, FS_IOC_SETVERSION, &version) == 0,
		      "the control: FS_IOC_SETVERSION works on the lower");
		ret = ioctl(up, FS_IOC_SETVERSION, &version);
		check(ret == -1 && errno == EROFS,
		      "FS_IOC_SETVERSION through a read-only mount: EROFS");
		return check_done(PROG);
	}
	if (argc != 3) {
		fprintf(stderr, "usage: %s UPPER_FILE LOWER_FILE [ro]\n", argv[0]);
		return 2;
	}
	up = open(argv[1], O_RDONLY | O_CLOEXEC);
	low = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (up < 0 || low < 0) {
		fprintf(stderr, "%s: open: %s\n", PROG, strerror(errno));
		return 1;
	}

	check(ioctl(low, FS_IOC_GETVERSION, &low_version) == 0 &&
	      ioctl(up, FS_IOC_GETVERSION, &up_version) == 0 &&
	      up_version == low_version,
	      "FS_IOC_GETVERSION passes through and answers as on the lower");
	check(ioctl(low, FS_IOC_GETFLAGS, &low_flags) == 0 &&
	      ioctl(up, FS_IOC_GETFLAGS, &up_flags) == 0 && up_flags == low_flags,
	      "FS_IOC_GETFLAGS answers as on the lower");
	check(ioctl(low, EXT4_IOC_GETSTATE, &state) == 0,
	      "the control: EXT4_IOC_GETSTATE works on the lower");
	ret = ioctl(up, EXT4_IOC_GETSTATE, &state);
	check(ret == -1 && errno == ENOTTY,
	      "EXT4_IOC_GETSTATE, not on the list, gets ENOTTY through the mount");
	close(up);
	close(low);
	return check_done(PROG);
}
