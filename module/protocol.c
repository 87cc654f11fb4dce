// SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note
/*
 * The group device protocol's text: formatting and strict parsing of the
 * event records a worker reads and of the answers it writes.
 *
 * Freestanding C on purpose: the same file is built into dazukofs.ko and
 * into userspace, where it is unit-tested and fuzzed.
 */

#include "protocol.h"

#define DAZUKOFS_INT_MAX 0x7fffffffULL
#define DAZUKOFS_LLONG_MAX 0x7fffffffffffffffULL

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

/* One or more decimal digits, no sign, at most @max. */
static int take_number(struct dazukofs_cursor *c, unsigned long long max,
		       unsigned long long *out)
{
	unsigned long long value = 0;
	const char *p = c->pos;

	if (p == c->end || *p < '0' || *p > '9')
		return -1;
	for (; p != c->end && *p >= '0' && *p <= '9'; p++) {
		unsigned long long digit = (unsigned long long)(*p - '0');

		if (value > (max - digit) / 10)
			return -1;
		value = value * 10 + digit;
	}
	c->pos = p;
	*out = value;
	return 0;
}

static int take_ulong(struct dazukofs_cursor *c, unsigned long *out)
{
	unsigned long long value;

	if (take_number(c, ~0UL, &value))
		return -1;
	*out = (unsigned long)value;
	return 0;
}

static int take_uint(struct dazukofs_cursor *c, unsigned int *out)
{
	unsigned long long value;

	if (take_number(c, ~0U, &value))
		return -1;
	*out = (unsigned int)value;
	return 0;
}

static int take_int(struct dazukofs_cursor *c, int *out)
{
	unsigned long long value;

	if (take_number(c, DAZUKOFS_INT_MAX, &value))
		return -1;
	*out = (int)value;
	return 0;
}

/* An int that may be negative, down to -DAZUKOFS_INT_MAX. */
static int take_signed_int(struct dazukofs_cursor *c, int *out)
{
	int negative = c->pos != c->end && *c->pos == '-';

	if (negative)
		c->pos++;
	if (take_int(c, out))
		return -1;
	if (negative) {
		if (!*out)
			return -1;	/* "-0" */
		*out = -*out;
	}
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

static void put_ulong(struct dazukofs_writer *w, unsigned long long value)
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

/* Format 2's event types, by name; the last entry ends the table. */
static const struct {
	unsigned int type;
	const char *name;
} dazukofs_record_types[] = {
	{ DAZUKOFS_EVENT_OPEN, DAZUKOFS_EVENT_NAME_OPEN },
	{ DAZUKOFS_EVENT_EXEC, DAZUKOFS_EVENT_NAME_EXEC },
	{ DAZUKOFS_EVENT_CLOSE_WRITE, DAZUKOFS_EVENT_NAME_CLOSE_WRITE },
	{ 0, (const char *)0 },
};

/* Format 2's access letters, in their order. */
static const char dazukofs_access_letters[] = "rwtc";
#define DAZUKOFS_ACCESS_ALL	0xfU

/**
 * dazukofs_proto_event_name() - the name of an event type
 * @type: one DAZUKOFS_EVENT_* bit
 *
 * The names are those of format-2 records and of a group's "events"
 * attribute.
 *
 * Return: the name, or NULL if @type is not one known bit.
 */
const char *dazukofs_proto_event_name(unsigned int type)
{
	size_t i;

	for (i = 0; dazukofs_record_types[i].name; i++) {
		if (dazukofs_record_types[i].type == type)
			return dazukofs_record_types[i].name;
	}
	return (const char *)0;
}

/**
 * dazukofs_proto_event_type() - the event type of a name
 * @name: the name; need not be NUL-terminated
 * @len: its length
 *
 * Return: its DAZUKOFS_EVENT_* bit, or 0 if it names none.
 */
unsigned int dazukofs_proto_event_type(const char *name, size_t len)
{
	size_t i, n;

	for (i = 0; dazukofs_record_types[i].name; i++) {
		const char *known = dazukofs_record_types[i].name;

		for (n = 0; n < len && known[n] && known[n] == name[n]; n++)
			;
		if (n == len && !known[n])
			return dazukofs_record_types[i].type;
	}
	return 0;
}

static void put_int(struct dazukofs_writer *w, int value)
{
	if (value < 0) {
		put_str(w, "-");
		put_ulong(w, (unsigned long long)-(long long)value);
	} else {
		put_ulong(w, (unsigned long long)value);
	}
}

static void put_access(struct dazukofs_writer *w, unsigned int access)
{
	char letter[2] = { 0, 0 };
	unsigned int bit;

	if (!access)
		put_str(w, "-");
	for (bit = 0; bit < sizeof(dazukofs_access_letters) - 1; bit++) {
		if (access & (1U << bit)) {
			letter[0] = dazukofs_access_letters[bit];
			put_str(w, letter);
		}
	}
}

/**
 * dazukofs_proto_format_record() - write a format-2 or format-3 event record
 * @buf: where to write it, NUL-terminated
 * @size: size of @buf
 * @rec: the event: @rec->format 2 or 3, @rec->pid and @rec->size not
 *	 negative, @rec->fd not INT_MIN, @rec->type one known type,
 *	 @rec->access known bits
 *
 * Return: the record's length without the NUL, or -1 if @buf is too small
 * or @rec is invalid.
 */
int dazukofs_proto_format_record(char *buf, size_t size,
				 const struct dazukofs_proto_record *rec)
{
	struct dazukofs_writer w = { .buf = buf, .size = size };
	const char *type = dazukofs_proto_event_name(rec->type);

	if (!type || rec->pid < 0 || rec->size < 0 ||
	    (rec->format != DAZUKOFS_RECORD_V2 &&
	     rec->format != DAZUKOFS_RECORD_V3) ||
	    rec->fd < -(int)DAZUKOFS_INT_MAX ||
	    (rec->access & ~DAZUKOFS_ACCESS_ALL))
		return -1;
	put_str(&w, "id=");
	put_ulong(&w, rec->id);
	put_str(&w, " fd=");
	put_int(&w, rec->fd);
	put_str(&w, " pid=");
	put_ulong(&w, (unsigned long long)rec->pid);
	put_str(&w, " uid=");
	put_ulong(&w, rec->uid);
	put_str(&w, " euid=");
	put_ulong(&w, rec->euid);
	put_str(&w, " fsuid=");
	put_ulong(&w, rec->fsuid);
	put_str(&w, " type=");
	put_str(&w, type);
	put_str(&w, " access=");
	put_access(&w, rec->access);
	put_str(&w, " dev=");
	put_ulong(&w, rec->dev_major);
	put_str(&w, ":");
	put_ulong(&w, rec->dev_minor);
	put_str(&w, " ino=");
	put_ulong(&w, rec->ino);
	put_str(&w, " size=");
	put_ulong(&w, (unsigned long long)rec->size);
	put_str(&w, " change=");
	put_ulong(&w, rec->change);
	if (rec->format == DAZUKOFS_RECORD_V3) {
		put_str(&w, " cgroup=");
		put_ulong(&w, rec->cgroup);
	}
	put_str(&w, "\n");
	return put_finish(&w);
}

static int take_type(struct dazukofs_cursor *c, unsigned int *type)
{
	size_t i;

	/* No name is a prefix of another that a blank could follow. */
	for (i = 0; dazukofs_record_types[i].name; i++) {
		struct dazukofs_cursor try = *c;

		if (!take_literal(&try, dazukofs_record_types[i].name) &&
		    try.pos != try.end && *try.pos == ' ') {
			*c = try;
			*type = dazukofs_record_types[i].type;
			return 0;
		}
	}
	return -1;
}

/* "-", or one or more letters of "rwtc", each at most once, in order. */
static int take_access(struct dazukofs_cursor *c, unsigned int *access)
{
	unsigned int bit = 0, seen = 0;

	if (c->pos != c->end && *c->pos == '-') {
		c->pos++;
		*access = 0;
		return 0;
	}
	while (c->pos != c->end) {
		while (dazukofs_access_letters[bit] &&
		       dazukofs_access_letters[bit] != *c->pos)
			bit++;
		if (!dazukofs_access_letters[bit])
			break;
		seen |= 1U << bit++;
		c->pos++;
	}
	if (!seen)
		return -1;
	*access = seen;
	return 0;
}

/**
 * dazukofs_proto_parse_record() - parse a format-2 or format-3 event record
 * @buf: the record, as read() returned it; need not be NUL-terminated
 * @len: its length, up to and including its newline
 * @rec: filled in on success, @rec->format with the record's format
 *
 * The grammar is exactly what dazukofs_proto_format_record() writes, with
 * single spaces between fields, except that numbers may have leading
 * zeros.  An fd of "-0" is refused.  A record with a cgroup field is of
 * format 3, one without of format 2.
 *
 * Return: 0, or -1 if @buf is not exactly one well-formed record.
 */
int dazukofs_proto_parse_record(const char *buf, size_t len,
				struct dazukofs_proto_record *rec)
{
	struct dazukofs_cursor c = { .pos = buf, .end = buf + len };
	struct dazukofs_proto_record parsed;
	unsigned long long size;

	if (take_literal(&c, "id=") || take_ulong(&c, &parsed.id) ||
	    take_literal(&c, " fd=") || take_signed_int(&c, &parsed.fd) ||
	    take_literal(&c, " pid=") || take_int(&c, &parsed.pid) ||
	    take_literal(&c, " uid=") || take_uint(&c, &parsed.uid) ||
	    take_literal(&c, " euid=") || take_uint(&c, &parsed.euid) ||
	    take_literal(&c, " fsuid=") || take_uint(&c, &parsed.fsuid) ||
	    take_literal(&c, " type=") || take_type(&c, &parsed.type) ||
	    take_literal(&c, " access=") || take_access(&c, &parsed.access) ||
	    take_literal(&c, " dev=") || take_uint(&c, &parsed.dev_major) ||
	    take_literal(&c, ":") || take_uint(&c, &parsed.dev_minor) ||
	    take_literal(&c, " ino=") ||
	    take_number(&c, ~0ULL, &parsed.ino) ||
	    take_literal(&c, " size=") ||
	    take_number(&c, DAZUKOFS_LLONG_MAX, &size) ||
	    take_literal(&c, " change=") ||
	    take_number(&c, ~0ULL, &parsed.change))
		return -1;
	parsed.format = DAZUKOFS_RECORD_V2;
	parsed.cgroup = 0;
	if (c.pos != c.end && *c.pos == ' ') {
		if (take_literal(&c, " cgroup=") ||
		    take_number(&c, ~0ULL, &parsed.cgroup))
			return -1;
		parsed.format = DAZUKOFS_RECORD_V3;
	}
	if (take_literal(&c, "\n") || c.pos != c.end)
		return -1;
	parsed.size = (long long)size;
	*rec = parsed;
	return 0;
}

/**
 * dazukofs_proto_line_len() - the length of the first line of a text
 * @buf: the text; need not be NUL-terminated
 * @len: its length
 *
 * For texts of several records or answers, one per line.
 *
 * Return: the length of the first line with its newline, or @len if there
 * is no newline.
 */
size_t dazukofs_proto_line_len(const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (buf[i] == '\n')
			return i + 1;
	}
	return len;
}
