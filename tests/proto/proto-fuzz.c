// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for module/protocol.c: arbitrary bytes go to both
 * parsers, which are checked against a straightforward reference parser;
 * whatever parses re-formats to the canonical text, which parses to the
 * same values; and the input's bytes, read as numbers, are formatted into
 * buffers of every size and parsed back.
 *
 * Build: clang -fsanitize=fuzzer,address,undefined (see CMakeLists.txt).
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include <uapi/linux/dazukofs.h>

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: check failed: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

/* Reference: decimal digits at *p, no sign, to unsigned long without overflow. */
static int ref_ulong(const uint8_t **p, const uint8_t *end, unsigned long *out)
{
	unsigned long v = 0;
	const uint8_t *q = *p;

	if (q == end || *q < '0' || *q > '9')
		return -1;
	while (q != end && *q >= '0' && *q <= '9') {
		unsigned d = *q - '0';

		if (__builtin_mul_overflow(v, 10UL, &v) ||
		    __builtin_add_overflow(v, d, &v))
			return -1;
		q++;
	}
	*p = q;
	*out = v;
	return 0;
}

static int ref_lit(const uint8_t **p, const uint8_t *end, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(end - *p) < n || memcmp(*p, lit, n))
		return -1;
	*p += n;
	return 0;
}

static int ref_parse_event(const uint8_t *p, size_t len,
			   struct dazukofs_proto_event *ev)
{
	const uint8_t *end = p + len;
	unsigned long id, fd, pid;

	if (ref_lit(&p, end, "id=") || ref_ulong(&p, end, &id) ||
	    ref_lit(&p, end, "\nfd=") || ref_ulong(&p, end, &fd) ||
	    ref_lit(&p, end, "\npid=") || ref_ulong(&p, end, &pid) ||
	    ref_lit(&p, end, "\n") || p != end)
		return -1;
	if (fd > INT_MAX || pid > INT_MAX)
		return -1;
	ev->id = id;
	ev->fd = (int)fd;
	ev->pid = (int)pid;
	return 0;
}

static int ref_parse_response(const uint8_t *p, size_t len, unsigned long *id,
			      int *r, int *keep)
{
	const uint8_t *end = p + len, *blanks;

	if (ref_lit(&p, end, "id=") || ref_ulong(&p, end, id))
		return -1;
	blanks = p;
	while (p != end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == blanks || ref_lit(&p, end, "r="))
		return -1;
	if (p == end || (*p != '0' && *p != '1'))
		return -1;
	*r = *p++ - '0';
	*keep = 0;
	blanks = p;
	while (p != end && (*p == ' ' || *p == '\t'))
		p++;
	if (p != blanks) {
		if (ref_lit(&p, end, "remember"))
			return -1;
		*keep = 1;
	}
	if (p != end && *p == '\n')
		p++;
	return p == end ? 0 : -1;
}

static void check_event_text(const uint8_t *data, size_t size)
{
	struct dazukofs_proto_event ev = { 1, 2, 3 }, ref = { 0 }, again;
	char buf[DAZUKOFS_EVENT_MAX], want[DAZUKOFS_EVENT_MAX];
	int ok = dazukofs_proto_parse_event((const char *)data, size, &ev);
	int ref_ok = ref_parse_event(data, size, &ref);
	int n;

	CHECK(ok == 0 || ok == -1);
	CHECK(ok == ref_ok);
	if (ok) {
		CHECK(ev.id == 1 && ev.fd == 2 && ev.pid == 3);	/* untouched */
		return;
	}
	CHECK(ev.id == ref.id && ev.fd == ref.fd && ev.pid == ref.pid);
	CHECK(ev.fd >= 0 && ev.pid >= 0);

	/* The canonical text: what the format says, and it parses back. */
	n = dazukofs_proto_format_event(buf, sizeof(buf), &ev);
	CHECK(n > 0 && (size_t)n < sizeof(buf));
	CHECK(n == snprintf(want, sizeof(want), DAZUKOFS_EVENT_FORMAT,
			    ev.id, ev.fd, ev.pid));
	CHECK(!strcmp(buf, want));
	CHECK(n <= (int)size);	/* only leading zeros can make it longer */
	CHECK(!dazukofs_proto_parse_event(buf, (size_t)n, &again));
	CHECK(again.id == ev.id && again.fd == ev.fd && again.pid == ev.pid);
	/* Without leading zeros the input was the canonical text itself. */
	if ((size_t)n == size)
		CHECK(!memcmp(buf, data, size));
}

static void check_response_text(const uint8_t *data, size_t size)
{
	char buf[DAZUKOFS_RESPONSE_MAX], want[DAZUKOFS_RESPONSE_MAX];
	unsigned long id = 11, ref_id = 0, id2;
	int r = 22, ref_r = 0, r2, n, keep = 33, ref_keep = 0, keep2;
	int ok = dazukofs_proto_parse_response((const char *)data, size, &id, &r,
					       &keep);
	int ref_ok = ref_parse_response(data, size, &ref_id, &ref_r, &ref_keep);

	CHECK(ok == 0 || ok == -1);
	CHECK(ok == ref_ok);
	if (ok) {
		CHECK(id == 11 && r == 22 && keep == 33);
		return;
	}
	CHECK(id == ref_id && r == ref_r && keep == ref_keep);
	CHECK(r == DAZUKOFS_ALLOW || r == DAZUKOFS_DENY);
	CHECK(keep == 0 || keep == 1);

	n = dazukofs_proto_format_response(buf, sizeof(buf), id, r, keep);
	CHECK(n > 0 && (size_t)n < sizeof(buf));
	CHECK(n == snprintf(want, sizeof(want),
			    keep ? DAZUKOFS_RESPONSE_FORMAT_REMEMBER :
				   DAZUKOFS_RESPONSE_FORMAT, id, r));
	CHECK(!strcmp(buf, want));
	CHECK(!dazukofs_proto_parse_response(buf, (size_t)n, &id2, &r2, &keep2));
	CHECK(id2 == id && r2 == r && keep2 == keep);
	/* The canonical text is never longer than the input plus its newline. */
	CHECK((size_t)n <= size + 1);
}

/* Formats values taken from the input into buffers of every size. */
static void check_format(const uint8_t *data, size_t size)
{
	struct dazukofs_proto_event ev, back;
	unsigned long id, id2;
	int fd, pid, verdict, r2, keep2;
	char want[DAZUKOFS_EVENT_MAX];
	size_t bsize;
	int n;

	if (size < sizeof(id) + sizeof(fd) + sizeof(pid) + 1)
		return;
	memcpy(&id, data, sizeof(id));
	memcpy(&fd, data + sizeof(id), sizeof(fd));
	memcpy(&pid, data + sizeof(id) + sizeof(fd), sizeof(pid));
	verdict = (int8_t)data[sizeof(id) + sizeof(fd) + sizeof(pid)];
	ev.id = id;
	ev.fd = fd;
	ev.pid = pid;

	n = snprintf(want, sizeof(want), DAZUKOFS_EVENT_FORMAT, id, fd, pid);
	for (bsize = 0; bsize <= DAZUKOFS_EVENT_MAX; bsize++) {
		/* exact-size heap buffer: ASan sees any write past bsize */
		char *buf = malloc(bsize ? bsize : 1);
		int got;

		CHECK(buf);
		got = dazukofs_proto_format_event(bsize ? buf : NULL, bsize, &ev);
		if (fd < 0 || pid < 0 || (size_t)n >= bsize) {
			CHECK(got == -1);
		} else {
			CHECK(got == n && !strcmp(buf, want));
			CHECK(!dazukofs_proto_parse_event(buf, (size_t)got, &back));
			CHECK(back.id == id && back.fd == fd && back.pid == pid);
		}
		free(buf);
	}

	n = snprintf(want, sizeof(want), DAZUKOFS_RESPONSE_FORMAT, id, verdict);
	for (bsize = 0; bsize <= DAZUKOFS_RESPONSE_MAX; bsize++) {
		char *buf = malloc(bsize ? bsize : 1);
		int got;

		CHECK(buf);
		got = dazukofs_proto_format_response(bsize ? buf : NULL, bsize,
						     id, verdict, 0);
		if ((verdict != 0 && verdict != 1) || (size_t)n >= bsize) {
			CHECK(got == -1);
		} else {
			CHECK(got == n && !strcmp(buf, want));
			CHECK(!dazukofs_proto_parse_response(buf, (size_t)got,
							     &id2, &r2, &keep2));
			CHECK(id2 == id && r2 == verdict && !keep2);
		}
		free(buf);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_event_text(data, size);
	check_response_text(data, size);
	check_format(data, size);
	return 0;
}
