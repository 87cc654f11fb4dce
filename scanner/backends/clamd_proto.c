// SPDX-License-Identifier: GPL-2.0
/* clamd's replies (see clamd_proto.h). */
#include <stdio.h>
#include <string.h>

#include "backends/clamd_proto.h"

static int starts(const char *p, const char *end, const char *s)
{
	size_t n = strlen(s);

	return (size_t)(end - p) >= n && !memcmp(p, s, n);
}

static int ends(const char *p, const char *end, const char *s)
{
	size_t n = strlen(s);

	return (size_t)(end - p) >= n && !memcmp(end - n, s, n);
}

static void set(struct clamd_reply *r, enum clamd_reply_kind kind,
		const char *p, const char *end)
{
	r->kind = kind;
	snprintf(r->text, sizeof(r->text), "%.*s", (int)(end - p), p);
}

/* "N: " with N == id; p is moved past it. */
static int skip_id(const char **p, const char *end, unsigned int id)
{
	unsigned long long v = 0;
	const char *q = *p;

	if (q == end || *q < '0' || *q > '9')
		return -1;
	while (q < end && *q >= '0' && *q <= '9' && v <= 0xffffffffULL)
		v = v * 10 + (unsigned int)(*q++ - '0');
	if (v != id || !starts(q, end, ": "))
		return -1;
	*p = q + 2;
	return 0;
}

/* The name clamd gives the scanned object: "stream: " or "fd[N]: ". */
static int skip_object(const char **p, const char *end, enum clamd_request req)
{
	const char *q = *p;

	if (req == CLAMD_REQ_STREAM) {
		if (!starts(q, end, "stream: "))
			return -1;
		*p = q + strlen("stream: ");
		return 0;
	}
	if (req != CLAMD_REQ_FD || !starts(q, end, "fd["))
		return -1;
	q += 3;
	if (q == end || *q < '0' || *q > '9')
		return -1;
	while (q < end && *q >= '0' && *q <= '9')
		q++;
	if (!starts(q, end, "]: "))
		return -1;
	*p = q + 3;
	return 0;
}

void clamd_parse_reply(const char *buf, size_t len, unsigned int id,
		       enum clamd_request req, struct clamd_reply *r)
{
	const char *p = buf, *end = buf + len;

	set(r, CLAMD_REPLY_UNEXPECTED, buf, end);
	/* one reply is one string; a NUL inside means the stream is out of step */
	if (!len || memchr(buf, 0, len))
		return;
	if (id && skip_id(&p, end, id))
		return;
	if ((size_t)(end - p) == strlen("INSTREAM size limit exceeded. ERROR") &&
	    starts(p, end, "INSTREAM size limit exceeded. ERROR")) {
		set(r, CLAMD_REPLY_SIZE_LIMIT, p, end - strlen(" ERROR"));
		return;
	}
	if (req == CLAMD_REQ_PING) {
		if ((size_t)(end - p) == 4 && starts(p, end, "PONG"))
			set(r, CLAMD_REPLY_PONG, p, end);
		return;
	}
	if (req == CLAMD_REQ_RELOAD) {
		if ((size_t)(end - p) == 9 && starts(p, end, "RELOADING"))
			set(r, CLAMD_REPLY_RELOADING, p, end);
		return;
	}
	if (req == CLAMD_REQ_VERSION) {
		/* the engine's version, the signatures' version and date */
		if (starts(p, end, "ClamAV "))
			set(r, CLAMD_REPLY_VERSION, p, end);
		return;
	}
	/*
	 * Errors come with the object's name ("fd[7]: Not a regular file
	 * ERROR", "stream: Can't allocate memory ERROR") or without it
	 * ("FILDES: didn't receive file descriptor. ERROR").
	 */
	if (!skip_object(&p, end, req)) {
		if ((size_t)(end - p) == 2 && starts(p, end, "OK")) {
			set(r, CLAMD_REPLY_OK, p, end);
		} else if (ends(p, end, " FOUND") &&
			   (size_t)(end - p) > strlen(" FOUND")) {
			set(r, CLAMD_REPLY_FOUND, p, end - strlen(" FOUND"));
		} else if (ends(p, end, " ERROR")) {
			set(r, CLAMD_REPLY_ERROR, p, end - strlen(" ERROR"));
		}
		return;
	}
	if (ends(p, end, " ERROR"))
		set(r, CLAMD_REPLY_ERROR, p, end - strlen(" ERROR"));
}

void clamd_chunk_header(uint32_t len, unsigned char out[4])
{
	out[0] = (unsigned char)(len >> 24);
	out[1] = (unsigned char)(len >> 16);
	out[2] = (unsigned char)(len >> 8);
	out[3] = (unsigned char)len;
}

const char *clamd_reply_kind_name(enum clamd_reply_kind k)
{
	switch (k) {
	case CLAMD_REPLY_OK: return "OK";
	case CLAMD_REPLY_FOUND: return "FOUND";
	case CLAMD_REPLY_ERROR: return "ERROR";
	case CLAMD_REPLY_SIZE_LIMIT: return "size limit";
	case CLAMD_REPLY_PONG: return "PONG";
	case CLAMD_REPLY_VERSION: return "VERSION";
	case CLAMD_REPLY_RELOADING: return "RELOADING";
	default: return "unexpected";
	}
}
