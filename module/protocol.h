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
