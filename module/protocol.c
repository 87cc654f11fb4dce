// SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note
/*
 * The group device protocol's text: formatting and strict parsing of the
 * event records a worker reads and of the answers it writes.
 *
 * Freestanding C on purpose: the same file is built into dazukofs.ko and
 * into userspace, where it is unit-tested and fuzzed.
 */

#include "protocol.h"

#define DAZUKOFS_INT_MAX 0x7fffffffUL

struct dazukofs_cursor {
	const char *pos;
	const char *end;
};

static int take_literal(struct dazukofs_cursor *c, const char *lit)
{
	const char *p = c->pos;

	for (; *lit; lit++, p++) {
		if (p == c->end || *p != *lit)
			return -1;
	}
	c->pos = p;
	return 0;
}

/* One or more decimal digits, no sign, no overflow. */
static int take_ulong(struct dazukofs_cursor *c, unsigned long *out)
{
	unsigned long value = 0;
	const char *p = c->pos;

	if (p == c->end || *p < '0' || *p > '9')
		return -1;
	for (; p != c->end && *p >= '0' && *p <= '9'; p++) {
		unsigned long digit = (unsigned long)(*p - '0');

		if (value > (~0UL - digit) / 10)
			return -1;
		value = value * 10 + digit;
	}
	c->pos = p;
	*out = value;
	return 0;
}

static int take_int(struct dazukofs_cursor *c, int *out)
{
	unsigned long value;

	if (take_ulong(c, &value) || value > DAZUKOFS_INT_MAX)
		return -1;
	*out = (int)value;
	return 0;
}

static int take_blanks(struct dazukofs_cursor *c)
{
	const char *start = c->pos;

	while (c->pos != c->end && (*c->pos == ' ' || *c->pos == '\t'))
		c->pos++;
	return c->pos == start ? -1 : 0;
}

/* The end of the text: nothing, or one newline. */
static int take_end(struct dazukofs_cursor *c)
{
	if (c->pos != c->end && *c->pos == '\n')
		c->pos++;
	return c->pos == c->end ? 0 : -1;
}

struct dazukofs_writer {
	char *buf;
	size_t size;
	size_t len;
};

static void put_str(struct dazukofs_writer *w, const char *s)
{
	for (; *s; s++, w->len++) {
		if (w->len < w->size)
			w->buf[w->len] = *s;
	}
}

static void put_ulong(struct dazukofs_writer *w, unsigned long value)
{
	char digits[24];
	int n = 0;

	do {
		digits[n++] = (char)('0' + value % 10);
		value /= 10;
	} while (value);
	while (n--) {
		if (w->len < w->size)
			w->buf[w->len] = digits[n];
		w->len++;
	}
}

/* NUL-terminate; the length without the NUL, or -1 if it did not fit. */
static int put_finish(struct dazukofs_writer *w)
{
	if (w->len >= w->size || w->len > DAZUKOFS_INT_MAX)
		return -1;
	w->buf[w->len] = '\0';
	return (int)w->len;
}

/**
 * dazukofs_proto_format_event() - write an event record
 * @buf: where to write it, NUL-terminated
 * @size: size of @buf
 * @ev: the event; @ev->fd and @ev->pid must not be negative
 *
 * Return: the record's length without the NUL, or -1 if @buf is too small
 * or @ev is invalid.
 */
int dazukofs_proto_format_event(char *buf, size_t size,
				const struct dazukofs_proto_event *ev)
{
	struct dazukofs_writer w = { .buf = buf, .size = size };

	if (ev->fd < 0 || ev->pid < 0)
		return -1;
	put_str(&w, "id=");
	put_ulong(&w, ev->id);
	put_str(&w, "\nfd=");
	put_ulong(&w, (unsigned long)ev->fd);
	put_str(&w, "\npid=");
	put_ulong(&w, (unsigned long)ev->pid);
	put_str(&w, "\n");
	return put_finish(&w);
}

/**
 * dazukofs_proto_parse_event() - parse an event record
 * @buf: the record, as read() returned it; need not be NUL-terminated
 * @len: its length
 * @ev: filled in on success
 *
 * Return: 0, or -1 if @buf is not exactly one well-formed record.
 */
int dazukofs_proto_parse_event(const char *buf, size_t len,
			       struct dazukofs_proto_event *ev)
{
	struct dazukofs_cursor c = { .pos = buf, .end = buf + len };
	struct dazukofs_proto_event parsed;

	if (take_literal(&c, "id=") || take_ulong(&c, &parsed.id) ||
	    take_literal(&c, "\nfd=") || take_int(&c, &parsed.fd) ||
	    take_literal(&c, "\npid=") || take_int(&c, &parsed.pid) ||
	    take_literal(&c, "\n") || c.pos != c.end)
		return -1;
	*ev = parsed;
	return 0;
}

/**
 * dazukofs_proto_format_response() - write an answer
 * @buf: where to write it, NUL-terminated
 * @size: size of @buf
 * @id: the event id
 * @verdict: 0 to allow, 1 to deny
 * @remember: 1 to ask that the verdict be remembered for the unchanged
 *	      file, 0 for this open only
 *
 * Return: the answer's length without the NUL, or -1.
 */
int dazukofs_proto_format_response(char *buf, size_t size, unsigned long id,
				   int verdict, int remember)
{
	struct dazukofs_writer w = { .buf = buf, .size = size };

	if ((verdict != 0 && verdict != 1) || (remember != 0 && remember != 1))
		return -1;
	put_str(&w, "id=");
	put_ulong(&w, id);
	put_str(&w, verdict ? " r=1" : " r=0");
	if (remember)
		put_str(&w, " " DAZUKOFS_RESPONSE_REMEMBER);
	put_str(&w, "\n");
	return put_finish(&w);
}

/**
 * dazukofs_proto_parse_response() - parse an answer
 * @buf: the text written; need not be NUL-terminated
 * @len: its length
 * @id: the event id, on success
 * @verdict: 0 (allow) or 1 (deny), on success
 * @remember: 1 if the verdict is to be remembered, else 0, on success
 *
 * The grammar is "id=" DIGITS BLANKS "r=" ("0" | "1")
 * [ BLANKS "remember" ] [ "\n" ], with BLANKS one or more spaces or tabs;
 * anything else is refused.
 *
 * Return: 0, or -1 if the text is malformed.
 */
int dazukofs_proto_parse_response(const char *buf, size_t len,
				  unsigned long *id, int *verdict,
				  int *remember)
{
	struct dazukofs_cursor c = { .pos = buf, .end = buf + len };
	unsigned long parsed_id;
	int r, keep = 0;

	if (take_literal(&c, "id=") || take_ulong(&c, &parsed_id) ||
	    take_blanks(&c) || take_literal(&c, "r="))
		return -1;
	if (c.pos == c.end || (*c.pos != '0' && *c.pos != '1'))
		return -1;
	r = *c.pos++ - '0';
	if (c.pos != c.end && (*c.pos == ' ' || *c.pos == '\t')) {
		if (take_blanks(&c) ||
		    take_literal(&c, DAZUKOFS_RESPONSE_REMEMBER))
			return -1;
		keep = 1;
	}
	if (take_end(&c))
		return -1;
	*id = parsed_id;
	*verdict = r;
	*remember = keep;
	return 0;
}
