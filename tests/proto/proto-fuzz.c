// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for module/protocol.c: arbitrary bytes go to all three
 * parsers (format-1 events, format-2 records, answers), which are checked
 * against straightforward reference parsers; whatever parses re-formats to
 * the canonical text, which parses to the same values; the input's bytes,
 * read as numbers, are formatted into buffers of every size and parsed
 * back; and the input, split into lines by dazukofs_proto_line_len(), goes
 * line by line to the answer and record parsers, as a multi-answer write()
 * and a multi-record read() are taken apart.
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

/* Reference: decimal digits to unsigned long long, at most max. */
static int ref_ullong(const uint8_t **p, const uint8_t *end,
		      unsigned long long max, unsigned long long *out)
{
	unsigned long long v = 0;
	const uint8_t *q = *p;

	if (q == end || *q < '0' || *q > '9')
		return -1;
	while (q != end && *q >= '0' && *q <= '9') {
		if (__builtin_mul_overflow(v, 10ULL, &v) ||
		    __builtin_add_overflow(v, (unsigned long long)(*q - '0'), &v))
			return -1;
		q++;
	}
	if (v > max)
		return -1;
	*p = q;
	*out = v;
	return 0;
}

static int ref_uint(const uint8_t **p, const uint8_t *end, unsigned int *out)
{
	unsigned long long v;

	if (ref_ullong(p, end, UINT_MAX, &v))
		return -1;
	*out = (unsigned int)v;
	return 0;
}

/* The word up to the next blank, newline or end. */
static size_t ref_word(const uint8_t *p, const uint8_t *end)
{
	const uint8_t *q = p;

	while (q != end && *q != ' ' && *q != '\n')
		q++;
	return (size_t)(q - p);
}

static int ref_parse_record(const uint8_t *p, size_t len,
			    struct dazukofs_proto_record *rec)
{
	static const char *const types[] = { "open", "exec", "close_write" };
	static const unsigned int type_bits[] = {
		DAZUKOFS_EVENT_OPEN, DAZUKOFS_EVENT_EXEC,
		DAZUKOFS_EVENT_CLOSE_WRITE,
	};
	const uint8_t *end = p + len;
	unsigned long long id, fd, pid, size;
	struct dazukofs_proto_record r;
	int negative = 0;
	size_t n, i;

	if (ref_lit(&p, end, "id=") || ref_ullong(&p, end, ULONG_MAX, &id) ||
	    ref_lit(&p, end, " fd="))
		return -1;
	if (p != end && *p == '-') {
		negative = 1;
		p++;
	}
	if (ref_ullong(&p, end, INT_MAX, &fd) || (negative && fd == 0))
		return -1;
	if (ref_lit(&p, end, " pid=") || ref_ullong(&p, end, INT_MAX, &pid) ||
	    ref_lit(&p, end, " uid=") || ref_uint(&p, end, &r.uid) ||
	    ref_lit(&p, end, " euid=") || ref_uint(&p, end, &r.euid) ||
	    ref_lit(&p, end, " fsuid=") || ref_uint(&p, end, &r.fsuid) ||
	    ref_lit(&p, end, " type="))
		return -1;
	n = ref_word(p, end);
	for (i = 0; i < 3; i++) {
		if (n == strlen(types[i]) && !memcmp(p, types[i], n))
			break;
	}
	if (i == 3)
		return -1;
	r.type = type_bits[i];
	p += n;
	if (ref_lit(&p, end, " access="))
		return -1;
	n = ref_word(p, end);
	r.access = 0;
	if (n == 1 && *p == '-') {
		p++;
	} else {
		/* each letter at most once, each after those before it */
		int last = -1;

		if (!n)
			return -1;
		for (i = 0; i < n; i++) {
			const char *at = memchr("rwtc", p[i], 4);

			if (!at || at - "rwtc" <= last)
				return -1;
			last = (int)(at - "rwtc");
			r.access |= 1U << last;
		}
		p += n;
	}
	if (ref_lit(&p, end, " dev=") || ref_uint(&p, end, &r.dev_major) ||
	    ref_lit(&p, end, ":") || ref_uint(&p, end, &r.dev_minor) ||
	    ref_lit(&p, end, " ino=") || ref_ullong(&p, end, ULLONG_MAX, &r.ino) ||
	    ref_lit(&p, end, " size=") || ref_ullong(&p, end, LLONG_MAX, &size) ||
	    ref_lit(&p, end, " change=") ||
	    ref_ullong(&p, end, ULLONG_MAX, &r.change))
		return -1;
	r.format = DAZUKOFS_RECORD_V2;
	r.cgroup = 0;
	if (!ref_lit(&p, end, " cgroup=")) {
		if (ref_ullong(&p, end, ULLONG_MAX, &r.cgroup))
			return -1;
		r.format = DAZUKOFS_RECORD_V3;
	}
	if (ref_lit(&p, end, "\n") || p != end)
		return -1;
	r.id = (unsigned long)id;
	r.fd = negative ? -(int)fd : (int)fd;
	r.pid = (int)pid;
	r.size = (long long)size;
	*rec = r;
	return 0;
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

static int rec_equal(const struct dazukofs_proto_record *a,
		     const struct dazukofs_proto_record *b)
{
	return a->id == b->id && a->fd == b->fd && a->pid == b->pid &&
	       a->uid == b->uid && a->euid == b->euid && a->fsuid == b->fsuid &&
	       a->type == b->type && a->access == b->access &&
	       a->dev_major == b->dev_major && a->dev_minor == b->dev_minor &&
	       a->ino == b->ino && a->size == b->size && a->change == b->change &&
	       a->format == b->format && a->cgroup == b->cgroup;
}

/* What DAZUKOFS_RECORD_FORMAT (or _RECORD3_) makes of rec, by snprintf. */
static int snprintf_record(char *buf, size_t size,
			   const struct dazukofs_proto_record *r)
{
	char access[8], *a = access;
	const char *type = r->type == DAZUKOFS_EVENT_OPEN ? "open" :
			   r->type == DAZUKOFS_EVENT_EXEC ? "exec" :
			   "close_write";
	int i;

	if (!r->access)
		*a++ = '-';
	for (i = 0; i < 4; i++) {
		if (r->access & (1U << i))
			*a++ = "rwtc"[i];
	}
	*a = '\0';
	if (r->format == DAZUKOFS_RECORD_V3)
		return snprintf(buf, size, DAZUKOFS_RECORD3_FORMAT, r->id,
				r->fd, r->pid, r->uid, r->euid, r->fsuid, type,
				access, r->dev_major, r->dev_minor, r->ino,
				r->size, r->change, r->cgroup);
	return snprintf(buf, size, DAZUKOFS_RECORD_FORMAT, r->id, r->fd,
			r->pid, r->uid, r->euid, r->fsuid, type, access,
			r->dev_major, r->dev_minor, r->ino, r->size, r->change);
}

static void check_record_text(const uint8_t *data, size_t size)
{
	struct dazukofs_proto_record rec, ref, again, untouched;
	char buf[DAZUKOFS_RECORD3_MAX], want[DAZUKOFS_RECORD3_MAX];
	int ok, ref_ok, n;

	memset(&rec, 0x5a, sizeof(rec));
	untouched = rec;
	ok = dazukofs_proto_parse_record((const char *)data, size, &rec);
	ref_ok = ref_parse_record(data, size, &ref);
	CHECK(ok == 0 || ok == -1);
	CHECK(ok == ref_ok);
	if (ok) {
		CHECK(!memcmp(&rec, &untouched, sizeof(rec)));
		return;
	}
	CHECK(rec_equal(&rec, &ref));
	CHECK(rec.fd != INT_MIN && rec.pid >= 0 && rec.size >= 0);
	CHECK(!(rec.access & ~0xfU));

	/* The canonical text: what the format says, and it parses back. */
	n = dazukofs_proto_format_record(buf, sizeof(buf), &rec);
	CHECK(n > 0 && (size_t)n < sizeof(buf));
	CHECK(n == snprintf_record(want, sizeof(want), &rec));
	CHECK(!strcmp(buf, want));
	CHECK(n <= (int)size);	/* only leading zeros can make it longer */
	memset(&again, 0, sizeof(again));
	CHECK(!dazukofs_proto_parse_record(buf, (size_t)n, &again));
	CHECK(rec_equal(&again, &rec));
	if ((size_t)n == size)
		CHECK(!memcmp(buf, data, size));
	/* One line: line_len finds all of it. */
	CHECK(dazukofs_proto_line_len((const char *)data, size) == size);
}

/*
 * The input as several lines, as a write() of several answers or a read()
 * of several records is taken apart: every line goes to both parsers, and
 * the lines add up to the input.
 */
static void check_lines(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	size_t off = 0, lines = 0;

	while (off < size) {
		size_t n = dazukofs_proto_line_len(text + off, size - off);
		const char *nl = memchr(text + off, '\n', size - off);

		CHECK(n > 0 && n <= size - off);
		if (nl)
			CHECK(n == (size_t)(nl - (text + off)) + 1);
		else
			CHECK(n == size - off);
		check_record_text(data + off, n);
		check_response_text(data + off, n);
		off += n;
		lines++;
	}
	CHECK(off == size);
	CHECK(lines <= size);
	CHECK(dazukofs_proto_line_len(text, 0) == 0);
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

/* Formats a record made of the input's bytes into buffers of every size. */
static void check_format_record(const uint8_t *data, size_t size)
{
	struct dazukofs_proto_record rec, back;
	char want[DAZUKOFS_RECORD3_MAX];
	size_t bsize;
	int n, valid;

	if (size < sizeof(rec))
		return;
	memcpy(&rec, data, sizeof(rec));
	/* Often a known type and access: else formatting only ever fails. */
	if (data[0] & 1)
		rec.type = 1U << (rec.type % 3);
	if (data[0] & 2)
		rec.access &= 0xf;
	if (data[0] & 4)
		rec.format = DAZUKOFS_RECORD_V2 + (rec.format & 1);
	valid = (rec.type == DAZUKOFS_EVENT_OPEN ||
		 rec.type == DAZUKOFS_EVENT_EXEC ||
		 rec.type == DAZUKOFS_EVENT_CLOSE_WRITE) &&
		!(rec.access & ~0xfU) && rec.pid >= 0 && rec.size >= 0 &&
		rec.fd != INT_MIN && (rec.format == DAZUKOFS_RECORD_V2 ||
				      rec.format == DAZUKOFS_RECORD_V3);
	n = valid ? snprintf_record(want, sizeof(want), &rec) : -1;
	CHECK(!valid || (n > 0 && n < (rec.format == DAZUKOFS_RECORD_V3 ?
					DAZUKOFS_RECORD3_MAX :
					DAZUKOFS_RECORD_MAX)));
	for (bsize = 0; bsize <= DAZUKOFS_RECORD3_MAX; bsize++) {
		/* exact-size heap buffer: ASan sees any write past bsize */
		char *buf = malloc(bsize ? bsize : 1);
		int got;

		CHECK(buf);
		got = dazukofs_proto_format_record(bsize ? buf : NULL, bsize, &rec);
		if (!valid || (size_t)n >= bsize) {
			CHECK(got == -1);
		} else {
			struct dazukofs_proto_record same = rec;

			CHECK(got == n && !strcmp(buf, want));
			/* format 2 has no cgroup: it reads back as 0 */
			if (rec.format == DAZUKOFS_RECORD_V2)
				same.cgroup = 0;
			memset(&back, 0, sizeof(back));
			CHECK(!dazukofs_proto_parse_record(buf, (size_t)got, &back));
			CHECK(rec_equal(&back, &same));
			CHECK(dazukofs_proto_line_len(buf, (size_t)got) ==
			      (size_t)got);
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
	check_record_text(data, size);
	check_lines(data, size);
	check_format_record(data, size);
	return 0;
}
