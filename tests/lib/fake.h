/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fakes for the libdazukofs unit tests: a temporary directory stands in for
 * configfs, sysfs and /dev; FIFOs stand in for the group devices.
 */
#ifndef DAZUKOFS_TESTS_LIB_FAKE_H
#define DAZUKOFS_TESTS_LIB_FAKE_H

#include <stdint.h>

struct fake {
	char root[256];
	char configfs[300];
	char sysfs[300];
	char dev_prefix[300];
	char ign_dev[300];
};

/* Make the tree and point the library at it (dazukofs_set_paths). */
void fake_setup(struct fake *f);
/* Remove the tree and restore the library's defaults. */
void fake_teardown(struct fake *f);
/* Write TEXT to ROOT/REL (creating directories on the way). */
void fake_write(const char *root, const char *rel, const char *text);
/* Read ROOT/REL (trailing newline kept) into a static buffer. */
const char *fake_read(const char *root, const char *rel);
/* A group as configfs and sysfs show it, with all counters at base. */
void fake_group(struct fake *f, const char *name, int id, int track,
		unsigned int timeout_ms, const char *action, uint64_t base);
/* Counters of the totals (name NULL) or of a group, all set to base+i. */
void fake_counters(struct fake *f, const char *name, uint64_t base);
/* A FIFO standing in for /dev/dazukofs.ID; returns the fake's O_RDWR fd. */
int fake_device(struct fake *f, int id);

/*
 * The group device's write(), as the kernel takes answers in record format
 * 2, for writes to fd (the library's end of a fake device; -1 stops it):
 * line by line, each answer passed on to the FIFO, short before the first
 * one whose id is fail_id (that one fails with fail_err if it comes first)
 * or that is malformed (EINVAL if first).  Other fds: the real write().
 * In fake-write.c, for programs linked with -Wl,--wrap=write.
 */
void fake_device_answers(int fd, unsigned long fail_id, int fail_err);
/* On: writes of more than one line fail with EINVAL (a format-1 group). */
void fake_device_one_per_write(int on);
/* How many write()s the fake device took since the last call. */
int fake_device_writes(void);

#endif
