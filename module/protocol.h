/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The text of the group device protocol, shared by the module and by
 * userspace (libdazukofs and the fuzzer): pure C, no kernel or libc calls
 * beyond the freestanding headers.
 */
#ifndef _DAZUKOFS_PROTOCOL_H
#define _DAZUKOFS_PROTOCOL_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stddef.h>
#endif
#include <uapi/linux/dazukofs.h>

/**
 * struct dazukofs_proto_event - one access event as a worker sees it
 * @id: the event id, to be echoed in the answer
 * @fd: a read-only fd to the accessed file, installed in the reader
 * @pid: the opener's pid in the reader's pid namespace
 */
struct dazukofs_proto_event {
	unsigned long id;
	int fd;
	int pid;
};

/**
 * struct dazukofs_proto_record - one access event in record format 2 or 3
 * @format: DAZUKOFS_RECORD_V2 or DAZUKOFS_RECORD_V3
 * @id: the event id, to be echoed in the answer
 * @fd: a read-only fd to the file, installed in the reader; or -errno if
 *	the module could not open it (the event is then settled)
 * @pid: the opener's pid in the reader's pid namespace (0: not in it)
 * @uid: the opener's real uid, in the reader's user namespace
 * @euid: its effective uid
 * @fsuid: its filesystem uid
 * @type: DAZUKOFS_EVENT_OPEN, DAZUKOFS_EVENT_EXEC or DAZUKOFS_EVENT_CLOSE_WRITE
 * @access: DAZUKOFS_ACCESS_* bits
 * @dev_major: the file's st_dev, major
 * @dev_minor: and minor
 * @ino: its st_ino
 * @size: its size, not negative
 * @change: its change counter, 0 if none is kept
 * @cgroup: format 3: the opener's cgroup v2 id
 */
struct dazukofs_proto_record {
	unsigned int format;
	unsigned long id;
	int fd;
	int pid;
	unsigned int uid;
	unsigned int euid;
	unsigned int fsuid;
	unsigned int type;
	unsigned int access;
	unsigned int dev_major;
	unsigned int dev_minor;
	unsigned long long ino;
	long long size;
	unsigned long long change;
	unsigned long long cgroup;
};

int dazukofs_proto_format_record(char *buf, size_t size,
				 const struct dazukofs_proto_record *rec);
int dazukofs_proto_parse_record(const char *buf, size_t len,
				struct dazukofs_proto_record *rec);
size_t dazukofs_proto_line_len(const char *buf, size_t len);
const char *dazukofs_proto_event_name(unsigned int type);
unsigned int dazukofs_proto_event_type(const char *name, size_t len);

int dazukofs_proto_format_event(char *buf, size_t size,
				const struct dazukofs_proto_event *ev);
int dazukofs_proto_parse_event(const char *buf, size_t len,
			       struct dazukofs_proto_event *ev);
int dazukofs_proto_format_response(char *buf, size_t size, unsigned long id,
				   int verdict, int remember);
int dazukofs_proto_parse_response(const char *buf, size_t len,
				  unsigned long *id, int *verdict,
				  int *remember);

#endif /* _DAZUKOFS_PROTOCOL_H */
