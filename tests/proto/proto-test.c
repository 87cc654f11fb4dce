// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of module/protocol.c, the text of the group device protocol:
 * event records (read, formats 1 and 2) and answers (write), and the
 * splitting of texts into lines.  Built with ASan and UBSan.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "protocol.h"
#include <uapi/linux/dazukofs.h>

#define CANARY 0x5a

/* Parse a string literal (NUL not included) from an exact-size heap copy. */
static int parse_ev(const char *s, size_t len, struct dazukofs_proto_event *ev)
{
	char *copy = malloc(len ? len : 1);
	int ret;

	assert_non_null(copy);
	memcpy(copy, s, len);
	ret = dazukofs_proto_parse_event(copy, len, ev);
	free(copy);
	return ret;
}

static int parse_resp_keep(const char *s, size_t len, unsigned long *id,
			   int *r, int *keep)
{
	char *copy = malloc(len ? len : 1);
	int ret;

	assert_non_null(copy);
	memcpy(copy, s, len);
	ret = dazukofs_proto_parse_response(copy, len, id, r, keep);
	free(copy);
	return ret;
}

/* An answer for this open only: parses with remember 0. */
static int parse_resp(const char *s, size_t len, unsigned long *id, int *r)
{
	int keep = 7, ret = parse_resp_keep(s, len, id, r, &keep);

	if (!ret)
		assert_int_equal(keep, 0);
	return ret;
}

#define PARSE_EV(lit, ev) parse_ev(lit, sizeof(lit) - 1, ev)
#define PARSE_RESP(lit, id, r) parse_resp(lit, sizeof(lit) - 1, id, r)

/* ---- event records: format ---- */

static void format_event_basic(void **state)
{
	struct dazukofs_proto_event ev = { .id = 1, .fd = 3, .pid = 42 };
	char buf[DAZUKOFS_EVENT_MAX];

	(void)state;
	assert_int_equal(dazukofs_proto_format_event(buf, sizeof(buf), &ev), 17);
	assert_string_equal(buf, "id=1\nfd=3\npid=42\n");
}

static void format_event_matches_uapi_format(void **state)
{
	static const struct dazukofs_proto_event evs[] = {
		{ 0, 0, 0 }, { 1, 2, 3 }, { 10, 100, 1000 },
		{ 4294967296UL, 1023, 32768 },
		{ ULONG_MAX, INT_MAX, INT_MAX },
		{ ULONG_MAX - 1, INT_MAX - 1, 1 },
	};
	char buf[DAZUKOFS_EVENT_MAX], want[DAZUKOFS_EVENT_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		int n = snprintf(want, sizeof(want), DAZUKOFS_EVENT_FORMAT,
				 evs[i].id, evs[i].fd, evs[i].pid);

		assert_int_equal(dazukofs_proto_format_event(buf, sizeof(buf),
							     &evs[i]), n);
		assert_string_equal(buf, want);
	}
}

/* The longest record fits DAZUKOFS_EVENT_MAX with its NUL. */
static void format_event_longest_fits(void **state)
{
	struct dazukofs_proto_event ev = { ULONG_MAX, INT_MAX, INT_MAX };
	char buf[DAZUKOFS_EVENT_MAX];
	int n;

	(void)state;
	n = dazukofs_proto_format_event(buf, sizeof(buf), &ev);
	assert_true(n > 0);
	assert_true(n < DAZUKOFS_EVENT_MAX);
	assert_string_equal(buf,
		"id=18446744073709551615\nfd=2147483647\npid=2147483647\n");
}

/* Too small by one (no room for the NUL) fails; nothing past size is touched. */
static void format_event_buffer_limits(void **state)
{
	struct dazukofs_proto_event ev = { 123, 4, 5678 };
	const char *want = "id=123\nfd=4\npid=5678\n";
	size_t len = strlen(want), size;
	char buf[DAZUKOFS_EVENT_MAX + 8];

	(void)state;
	for (size = 0; size <= len + 1; size++) {
		int n;

		memset(buf, CANARY, sizeof(buf));
		n = dazukofs_proto_format_event(buf, size, &ev);
		for (size_t i = size; i < sizeof(buf); i++)
			assert_int_equal((unsigned char)buf[i], CANARY);
		if (size <= len) {
			assert_int_equal(n, -1);
		} else {
			assert_int_equal(n, (int)len);
			assert_string_equal(buf, want);
		}
	}
	assert_int_equal(dazukofs_proto_format_event(NULL, 0, &ev), -1);
}

static void format_event_rejects_negative(void **state)
{
	struct dazukofs_proto_event neg_fd = { 1, -1, 2 };
	struct dazukofs_proto_event neg_pid = { 1, 2, -1 };
	struct dazukofs_proto_event min = { 1, INT_MIN, INT_MIN };
	char buf[DAZUKOFS_EVENT_MAX];

	(void)state;
	assert_int_equal(dazukofs_proto_format_event(buf, sizeof(buf), &neg_fd), -1);
	assert_int_equal(dazukofs_proto_format_event(buf, sizeof(buf), &neg_pid), -1);
	assert_int_equal(dazukofs_proto_format_event(buf, sizeof(buf), &min), -1);
}

/* ---- event records: parse ---- */

static void parse_event_round_trip(void **state)
{
	static const struct dazukofs_proto_event evs[] = {
		{ 0, 0, 0 }, { 1, 3, 42 }, { 99, 1023, 4194304 },
		{ ULONG_MAX, INT_MAX, INT_MAX }, { 1UL << 63, 0, 1 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		char buf[DAZUKOFS_EVENT_MAX];
		struct dazukofs_proto_event got = { 7, 7, 7 };
		int n = dazukofs_proto_format_event(buf, sizeof(buf), &evs[i]);

		assert_true(n > 0);
		assert_int_equal(parse_ev(buf, (size_t)n, &got), 0);
		assert_true(got.id == evs[i].id);
		assert_int_equal(got.fd, evs[i].fd);
		assert_int_equal(got.pid, evs[i].pid);
	}
}

static void parse_event_leading_zeros(void **state)
{
	struct dazukofs_proto_event ev;

	(void)state;
	assert_int_equal(PARSE_EV("id=007\nfd=00\npid=010\n", &ev), 0);
	assert_true(ev.id == 7);
	assert_int_equal(ev.fd, 0);
	assert_int_equal(ev.pid, 10);
}

/* Every malformed record is refused and leaves *ev untouched. */
static void parse_event_malformed(void **state)
{
	static const struct {
		const char *s;
		size_t len;
	} bad[] = {
#define B(lit) { lit, sizeof(lit) - 1 }
		B(""),
		B("\n"),
		B("id="),
		B("id=1"),
		B("id=1\n"),
		B("id=1\nfd=2"),
		B("id=1\nfd=2\n"),
		B("id=1\nfd=2\npid=3"),		/* no final newline */
		B("id=1\nfd=2\npid=\n"),	/* empty field */
		B("id=\nfd=2\npid=3\n"),
		B("id=1\nfd=\npid=3\n"),
		B("id=1\npid=3\nfd=2\n"),	/* wrong order */
		B("fd=2\nid=1\npid=3\n"),
		B("id=1\nfd=2\npid=3\n\n"),	/* trailing garbage */
		B("id=1\nfd=2\npid=3\nx"),
		B("id=1\nfd=2\npid=3\nid=4\nfd=5\npid=6\n"), /* two records */
		B("id=1\nfd=2\npid=3 \n"),
		B(" id=1\nfd=2\npid=3\n"),	/* leading blank */
		B("\tid=1\nfd=2\npid=3\n"),
		B("\nid=1\nfd=2\npid=3\n"),
		B("id= 1\nfd=2\npid=3\n"),
		B("id =1\nfd=2\npid=3\n"),
		B("id=1 \nfd=2\npid=3\n"),
		B("id=+1\nfd=2\npid=3\n"),	/* signs */
		B("id=-1\nfd=2\npid=3\n"),
		B("id=1\nfd=-2\npid=3\n"),
		B("id=1\nfd=+2\npid=3\n"),
		B("id=1\nfd=2\npid=-3\n"),
		B("id=0x10\nfd=2\npid=3\n"),	/* not decimal */
		B("id=1a\nfd=2\npid=3\n"),
		B("ID=1\nFD=2\nPID=3\n"),
		B("id=1\r\nfd=2\r\npid=3\r\n"),
		B("id=18446744073709551616\nfd=2\npid=3\n"),	/* ULONG_MAX + 1 */
		B("id=99999999999999999999\nfd=2\npid=3\n"),
		B("id=184467440737095516150\nfd=2\npid=3\n"),
		B("id=1\nfd=2147483648\npid=3\n"),		/* INT_MAX + 1 */
		B("id=1\nfd=2\npid=2147483648\n"),
		B("id=1\nfd=4294967296\npid=3\n"),
		B("id=1\nfd=2\npid=18446744073709551616\n"),
		B("id=1\0\nfd=2\npid=3\n"),	/* embedded NUL */
		B("id=1\nfd=2\0\npid=3\n"),
		B("id=1\nfd=2\npid=3\n\0"),
		B("\0id=1\nfd=2\npid=3\n"),
#undef B
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct dazukofs_proto_event ev = { 77, 88, 99 };

		if (parse_ev(bad[i].s, bad[i].len, &ev) != -1)
			fail_msg("accepted malformed record #%zu", i);
		assert_true(ev.id == 77 && ev.fd == 88 && ev.pid == 99);
	}
}

/* The length, not a NUL, ends the text: a prefix of a record is refused. */
static void parse_event_uses_length(void **state)
{
	const char *rec = "id=12\nfd=3\npid=4\n";
	size_t len = strlen(rec), n;
	struct dazukofs_proto_event ev;

	(void)state;
	for (n = 0; n < len; n++)
		assert_int_equal(parse_ev(rec, n, &ev), -1);
	assert_int_equal(parse_ev(rec, len, &ev), 0);
	assert_true(ev.id == 12);
}

/* ---- answers: format ---- */

static void format_response_basic(void **state)
{
	char buf[DAZUKOFS_RESPONSE_MAX], want[DAZUKOFS_RESPONSE_MAX];
	static const unsigned long ids[] = { 0, 1, 42, 4294967296UL, ULONG_MAX };
	size_t i;
	int r;

	(void)state;
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		for (r = 0; r <= 1; r++) {
			int n = snprintf(want, sizeof(want),
					 DAZUKOFS_RESPONSE_FORMAT, ids[i], r);

			assert_int_equal(dazukofs_proto_format_response(
					buf, sizeof(buf), ids[i], r, 0), n);
			assert_string_equal(buf, want);
			assert_true(n < DAZUKOFS_RESPONSE_MAX);
		}
	}
	assert_int_equal(dazukofs_proto_format_response(buf, sizeof(buf), 5,
							DAZUKOFS_DENY, 0), 9);
	assert_string_equal(buf, "id=5 r=1\n");
}

static void format_response_rejects_bad_verdict(void **state)
{
	char buf[DAZUKOFS_RESPONSE_MAX];
	static const int bad[] = { -1, 2, 3, 48, INT_MIN, INT_MAX };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(dazukofs_proto_format_response(buf, sizeof(buf),
								1, bad[i], 0), -1);
}

static void format_response_buffer_limits(void **state)
{
	const char *want = "id=9876 r=0\n";
	size_t len = strlen(want), size;
	char buf[DAZUKOFS_RESPONSE_MAX + 8];

	(void)state;
	for (size = 0; size <= len + 1; size++) {
		int n;

		memset(buf, CANARY, sizeof(buf));
		n = dazukofs_proto_format_response(buf, size, 9876, 0, 0);
		for (size_t i = size; i < sizeof(buf); i++)
			assert_int_equal((unsigned char)buf[i], CANARY);
		if (size <= len) {
			assert_int_equal(n, -1);
		} else {
			assert_int_equal(n, (int)len);
			assert_string_equal(buf, want);
		}
	}
}

/* ---- answers: parse ---- */

static void parse_response_valid(void **state)
{
	static const struct {
		const char *s;
		size_t len;
		unsigned long id;
		int r;
	} good[] = {
#define G(lit, id, r) { lit, sizeof(lit) - 1, id, r }
		G("id=1 r=0", 1, 0),
		G("id=1 r=1", 1, 1),
		G("id=1 r=0\n", 1, 0),
		G("id=2 r=1\n", 2, 1),
		G("id=0 r=0", 0, 0),
		G("id=3\tr=1", 3, 1),
		G("id=4 \t  \tr=0\n", 4, 0),
		G("id=5    r=1", 5, 1),
		G("id=007 r=1", 7, 1),
		G("id=18446744073709551615 r=1\n", ULONG_MAX, 1),
#undef G
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		unsigned long id = 77;
		int r = 77;

		if (parse_resp(good[i].s, good[i].len, &id, &r))
			fail_msg("refused valid answer #%zu", i);
		assert_true(id == good[i].id);
		assert_int_equal(r, good[i].r);
	}
}

static void parse_response_round_trip(void **state)
{
	static const unsigned long ids[] = { 0, 1, 10, 65535, 1UL << 40,
					     ULONG_MAX - 1, ULONG_MAX };
	size_t i;
	int v;

	(void)state;
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		for (v = 0; v <= 1; v++) {
			char buf[DAZUKOFS_RESPONSE_MAX];
			unsigned long id;
			int r, n;

			n = dazukofs_proto_format_response(buf, sizeof(buf), ids[i], v, 0);
			assert_true(n > 0);
			assert_int_equal(parse_resp(buf, (size_t)n, &id, &r), 0);
			assert_true(id == ids[i]);
			assert_int_equal(r, v);
			/* without the optional newline too */
			assert_int_equal(parse_resp(buf, (size_t)n - 1, &id, &r), 0);
			assert_true(id == ids[i]);
			assert_int_equal(r, v);
		}
	}
}

static void parse_response_malformed(void **state)
{
	static const struct {
		const char *s;
		size_t len;
	} bad[] = {
#define B(lit) { lit, sizeof(lit) - 1 }
		B(""),				/* empty */
		B("\n"),
		B(" "),
		B("id="),			/* missing fields */
		B("id=1"),
		B("id=1 "),
		B("id=1 r="),
		B("id=1 r=\n"),
		B("r=0"),
		B("id= r=0"),
		B("id=1r=0"),			/* no blank */
		B("id=1\nr=0"),			/* newline is not a blank */
		B("id=1\rr=0"),
		B("id=1\vr=0"),
		B("id=1\fr=0"),
		B(" id=1 r=0"),			/* leading blanks */
		B("\tid=1 r=0"),
		B("\nid=1 r=0"),
		B("id= 1 r=0"),
		B("id =1 r=0"),
		B("id=1 r= 0"),
		B("id=1 r =0"),
		B("id=1 r=0 "),			/* trailing garbage */
		B("id=1 r=0\t"),
		B("id=1 r=0\n\n"),
		B("id=1 r=0\r\n"),
		B("id=1 r=0\nx"),
		B("id=1 r=0x"),
		B("id=1 r=00"),
		B("id=1 r=01"),
		B("id=1 r=10"),
		B("id=1 r=0 r=1"),
		B("id=1 r=0\nid=2 r=0\n"),	/* two answers */
		B("id=1 r=2"),			/* verdict out of range */
		B("id=1 r=9"),
		B("id=1 r=-1"),
		B("id=1 r=+0"),
		B("id=1 r=a"),
		B("id=1 r=deny"),
		B("id=+1 r=0"),			/* signs */
		B("id=-1 r=0"),
		B("id=0x1 r=0"),
		B("ID=1 R=0"),
		B("id=1 R=0"),
		B("id=1,r=0"),
		B("id=18446744073709551616 r=0"),	/* overflow */
		B("id=18446744073709551620 r=0"),
		B("id=99999999999999999999 r=0"),
		B("id=184467440737095516150 r=0"),
		B("id=1\0 r=0"),		/* embedded NUL */
		B("id=1 r=0\0"),
		B("id=1 r=\0"),
		B("id=1 \0r=0"),
		B("\0id=1 r=0"),
#undef B
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		unsigned long id = 77;
		int r = 88;

		if (parse_resp(bad[i].s, bad[i].len, &id, &r) != -1)
			fail_msg("accepted malformed answer #%zu", i);
		assert_true(id == 77);
		assert_int_equal(r, 88);
	}
}

static void parse_response_uses_length(void **state)
{
	const char *ans = "id=123 r=1\n";
	unsigned long id;
	int r;

	(void)state;
	/* every prefix shorter than "id=123 r=1" is incomplete */
	for (size_t n = 0; n < strlen("id=123 r=1"); n++)
		assert_int_equal(parse_resp(ans, n, &id, &r), -1);
	assert_int_equal(parse_resp(ans, strlen(ans), &id, &r), 0);
	assert_true(id == 123 && r == 1);
}

/*
 * Length limits: the parser itself takes any length (the device refuses
 * writes longer than DAZUKOFS_RESPONSE_MAX before parsing); the longest
 * canonical answer is far below the limit, and an answer padded with
 * blanks to exactly DAZUKOFS_RESPONSE_MAX bytes is still well-formed.
 */
static void parse_response_length_limits(void **state)
{
	char buf[DAZUKOFS_RESPONSE_MAX * 4];
	unsigned long id;
	int r, n;

	(void)state;
	n = dazukofs_proto_format_response(buf, sizeof(buf), ULONG_MAX, 1, 0);
	assert_true(n > 0 && n < DAZUKOFS_RESPONSE_MAX);

	/* "id=5" + blanks + "r=1\n" = exactly DAZUKOFS_RESPONSE_MAX bytes */
	memcpy(buf, "id=5", 4);
	memset(buf + 4, ' ', DAZUKOFS_RESPONSE_MAX - 8);
	memcpy(buf + DAZUKOFS_RESPONSE_MAX - 4, "r=1\n", 4);
	assert_int_equal(parse_resp(buf, DAZUKOFS_RESPONSE_MAX, &id, &r), 0);
	assert_true(id == 5 && r == 1);

	/* many leading zeros do not overflow */
	memset(buf, '0', sizeof(buf));
	memcpy(buf, "id=", 3);
	memcpy(buf + sizeof(buf) - 6, "9 r=0\n", 6);
	assert_int_equal(parse_resp(buf, sizeof(buf), &id, &r), 0);
	assert_true(id == 9 && r == 0);
}

/* ---- answers that ask for the verdict to be remembered ---- */

static void response_remember(void **state)
{
	static const struct {
		const char *text;
		unsigned long id;
		int r;
	} ok[] = {
		{ "id=5 r=0 remember", 5, 0 },
		{ "id=5 r=1 remember\n", 5, 1 },
		{ "id=7\tr=1\t\tremember", 7, 1 },
	};
	static const char *const bad[] = {
		"id=5 r=0remember", "id=5 r=0 remembe", "id=5 r=0 rememberx",
		"id=5 r=0 remember ", "id=5 r=0 Remember", "id=5 r=0 remember\n\n",
		"id=5 r=0 ", "id=5 r=0 \n", "id=5 r=0 keep", "id=5 remember r=0",
	};
	char buf[DAZUKOFS_RESPONSE_MAX];
	unsigned long id;
	size_t i;
	int r, keep, n;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		keep = 9;
		assert_int_equal(parse_resp_keep(ok[i].text, strlen(ok[i].text),
						 &id, &r, &keep), 0);
		assert_int_equal(id, ok[i].id);
		assert_int_equal(r, ok[i].r);
		assert_int_equal(keep, 1);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		keep = 9;
		assert_int_equal(parse_resp_keep(bad[i], strlen(bad[i]), &id, &r,
						 &keep), -1);
		assert_int_equal(keep, 9);
	}
	n = dazukofs_proto_format_response(buf, sizeof(buf), 42, 1, 1);
	assert_string_equal(buf, "id=42 r=1 remember\n");
	assert_int_equal(n, (int)strlen(buf));
	assert_int_equal(dazukofs_proto_format_response(buf, sizeof(buf), 42, 0, 2),
			 -1);
	/* The longest answer still fits DAZUKOFS_RESPONSE_MAX. */
	assert_true(dazukofs_proto_format_response(buf, sizeof(buf), ULONG_MAX,
						   1, 1) > 0);
}

/* ---- format 2: one record per line ---- */

static const struct dazukofs_proto_record rec_basic = {
	.format = DAZUKOFS_RECORD_V2,
	.id = 7, .fd = 5, .pid = 1234, .uid = 1000, .euid = 0, .fsuid = 1000,
	.type = DAZUKOFS_EVENT_OPEN,
	.access = DAZUKOFS_ACCESS_READ | DAZUKOFS_ACCESS_TRUNC,
	.dev_major = 8, .dev_minor = 1, .ino = 42, .size = 100, .change = 3,
};

#define REC_BASIC_NO_NL "id=7 fd=5 pid=1234 uid=1000 euid=0 fsuid=1000 " \
	"type=open access=rt dev=8:1 ino=42 size=100 change=3"
#define REC_BASIC_TEXT REC_BASIC_NO_NL "\n"

/* The longest record: every number at its widest, fd negative. */
static const struct dazukofs_proto_record rec_longest = {
	.format = DAZUKOFS_RECORD_V2,
	.id = ULONG_MAX, .fd = -INT_MAX, .pid = INT_MAX, .uid = UINT_MAX,
	.euid = UINT_MAX, .fsuid = UINT_MAX, .type = DAZUKOFS_EVENT_CLOSE_WRITE,
	.access = 0xf, .dev_major = UINT_MAX, .dev_minor = UINT_MAX,
	.ino = ULLONG_MAX, .size = LLONG_MAX, .change = ULLONG_MAX,
};

static int parse_rec(const char *s, size_t len, struct dazukofs_proto_record *rec)
{
	char *copy = malloc(len ? len : 1);
	int ret;

	assert_non_null(copy);
	memcpy(copy, s, len);
	ret = dazukofs_proto_parse_record(copy, len, rec);
	free(copy);
	return ret;
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

static const char *access_text(unsigned int access, char *buf)
{
	static const char letters[] = "rwtc";
	char *p = buf;

	if (!access)
		*p++ = '-';
	for (int i = 0; i < 4; i++)
		if (access & (1U << i))
			*p++ = letters[i];
	*p = '\0';
	return buf;
}

static const char *type_text(unsigned int type)
{
	switch (type) {
	case DAZUKOFS_EVENT_OPEN: return DAZUKOFS_EVENT_NAME_OPEN;
	case DAZUKOFS_EVENT_EXEC: return DAZUKOFS_EVENT_NAME_EXEC;
	default: return DAZUKOFS_EVENT_NAME_CLOSE_WRITE;
	}
}

/* What DAZUKOFS_RECORD_FORMAT (or _RECORD3_) makes of rec, by snprintf. */
static int snprintf_rec(char *buf, size_t size,
			const struct dazukofs_proto_record *r)
{
	char acc[8];

	if (r->format == DAZUKOFS_RECORD_V3)
		return snprintf(buf, size, DAZUKOFS_RECORD3_FORMAT, r->id, r->fd,
				r->pid, r->uid, r->euid, r->fsuid,
				type_text(r->type), access_text(r->access, acc),
				r->dev_major, r->dev_minor, r->ino, r->size,
				r->change, r->cgroup);
	return snprintf(buf, size, DAZUKOFS_RECORD_FORMAT, r->id, r->fd, r->pid,
			r->uid, r->euid, r->fsuid, type_text(r->type),
			access_text(r->access, acc), r->dev_major, r->dev_minor,
			r->ino, r->size, r->change);
}

static void format_record_basic(void **state)
{
	char buf[DAZUKOFS_RECORD_MAX];

	(void)state;
	assert_int_equal(dazukofs_proto_format_record(buf, sizeof(buf), &rec_basic),
			 (int)strlen(REC_BASIC_TEXT));
	assert_string_equal(buf, REC_BASIC_TEXT);
}

static void format_record_matches_uapi_format(void **state)
{
	struct dazukofs_proto_record recs[] = {
		rec_basic, rec_longest, rec_basic, rec_basic, rec_basic,
		rec_basic, rec_basic,
	};
	char buf[DAZUKOFS_RECORD_MAX], want[DAZUKOFS_RECORD_MAX];
	size_t i;

	(void)state;
	recs[2].fd = -2 /* -ENOENT */;
	recs[2].type = DAZUKOFS_EVENT_EXEC;
	recs[2].access = 0;
	recs[3].type = DAZUKOFS_EVENT_CLOSE_WRITE;
	recs[3].access = DAZUKOFS_ACCESS_WRITE | DAZUKOFS_ACCESS_CREATE;
	memset(&recs[4], 0, sizeof(recs[4]));
	recs[4].format = DAZUKOFS_RECORD_V2;
	recs[4].type = DAZUKOFS_EVENT_OPEN;
	recs[5].access = 0xf;
	recs[5].format = DAZUKOFS_RECORD_V3;
	recs[5].cgroup = 4242;
	recs[5].fd = INT_MAX;
	recs[6].fd = -1;
	recs[6].access = DAZUKOFS_ACCESS_CREATE;
	for (i = 0; i < sizeof(recs) / sizeof(recs[0]); i++) {
		int n = snprintf_rec(want, sizeof(want), &recs[i]);

		assert_int_equal(dazukofs_proto_format_record(buf, sizeof(buf),
							      &recs[i]), n);
		assert_string_equal(buf, want);
	}
}

/* The longest record fits DAZUKOFS_RECORD_MAX with its NUL. */
static void format_record_longest_fits(void **state)
{
	char buf[DAZUKOFS_RECORD_MAX], want[DAZUKOFS_RECORD_MAX * 2];
	struct dazukofs_proto_record plus = rec_longest;
	int n;

	(void)state;
	n = dazukofs_proto_format_record(buf, sizeof(buf), &rec_longest);
	assert_true(n > 0);
	assert_true(n < DAZUKOFS_RECORD_MAX);
	assert_int_equal(n, snprintf_rec(want, sizeof(want), &rec_longest));
	assert_string_equal(buf, want);
	/* a positive fd is one character shorter */
	plus.fd = INT_MAX;
	assert_int_equal(dazukofs_proto_format_record(buf, sizeof(buf), &plus),
			 n - 1);
}

/*
 * The longest format-3 record needs more than DAZUKOFS_RECORD_MAX, which
 * is why format 3 has its own maximum, and fits that with its NUL.
 */
static void format_record3_longest_fits(void **state)
{
	char buf[DAZUKOFS_RECORD3_MAX], want[DAZUKOFS_RECORD3_MAX * 2];
	struct dazukofs_proto_record rec = rec_longest;
	int n;

	(void)state;
	rec.format = DAZUKOFS_RECORD_V3;
	rec.cgroup = ULLONG_MAX;
	n = dazukofs_proto_format_record(buf, sizeof(buf), &rec);
	assert_true(n >= DAZUKOFS_RECORD_MAX);
	assert_true(n < DAZUKOFS_RECORD3_MAX);
	assert_int_equal(n, snprintf_rec(want, sizeof(want), &rec));
	assert_string_equal(buf, want);
	assert_int_equal(dazukofs_proto_format_record(buf, DAZUKOFS_RECORD_MAX,
						      &rec), -1);
}

/* A record with a cgroup field is of format 3; strict as format 2. */
static void parse_record3_forms(void **state)
{
	static const char *const bad[] = {
		REC_BASIC_NO_NL " cgroup=\n",
		REC_BASIC_NO_NL " cgroup=-1\n",
		REC_BASIC_NO_NL " cgroup=18446744073709551616\n",
		REC_BASIC_NO_NL " cgroup=1 cgroup=2\n",
		REC_BASIC_NO_NL "  cgroup=1\n",
		REC_BASIC_NO_NL " cgroup=1 \n",
		REC_BASIC_NO_NL " cgroup=1",
		REC_BASIC_NO_NL " cgroup=0x1\n",
		REC_BASIC_NO_NL " Cgroup=1\n",
		REC_BASIC_NO_NL " cgroups=1\n",
		REC_BASIC_NO_NL " \n",
	};
	static const char good[] = REC_BASIC_NO_NL " cgroup=0042\n";
	struct dazukofs_proto_record rec, want = rec_basic;

	(void)state;
	want.format = DAZUKOFS_RECORD_V3;
	want.cgroup = 42;
	assert_int_equal(parse_rec(good, sizeof(good) - 1, &rec), 0);
	assert_true(rec_equal(&rec, &want));
	assert_int_equal(parse_rec(REC_BASIC_TEXT, strlen(REC_BASIC_TEXT), &rec), 0);
	assert_int_equal(rec.format, DAZUKOFS_RECORD_V2);
	assert_true(rec.cgroup == 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse_rec(bad[i], strlen(bad[i]), &rec) != -1)
			fail_msg("accepted '%s'", bad[i]);
	}
}

/* Every buffer size: too small fails, nothing past size is touched. */
static void format_record_buffer_limits(void **state)
{
	const struct dazukofs_proto_record *recs[] = { &rec_basic, &rec_longest };
	char want[DAZUKOFS_RECORD_MAX];

	(void)state;
	for (size_t r = 0; r < 2; r++) {
		size_t len = (size_t)snprintf_rec(want, sizeof(want), recs[r]);

		for (size_t size = 0; size <= DAZUKOFS_RECORD_MAX; size++) {
			char *buf = malloc(size ? size : 1);
			int n;

			assert_non_null(buf);
			memset(buf, CANARY, size);
			n = dazukofs_proto_format_record(size ? buf : NULL, size,
							 recs[r]);
			if (size <= len) {
				assert_int_equal(n, -1);
			} else {
				assert_int_equal(n, (int)len);
				assert_string_equal(buf, want);
			}
			free(buf);
		}
	}
}

static void format_record_rejects_invalid(void **state)
{
	struct dazukofs_proto_record bad[12];
	char buf[DAZUKOFS_RECORD_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < 12; i++)
		bad[i] = rec_basic;
	bad[9].format = 0;
	bad[10].format = DAZUKOFS_RECORD_V1;
	bad[11].format = DAZUKOFS_RECORD_V3 + 1;
	bad[0].fd = INT_MIN;
	bad[1].pid = -1;
	bad[2].size = -1;
	bad[3].type = 0;
	bad[4].type = DAZUKOFS_EVENT_OPEN | DAZUKOFS_EVENT_EXEC;
	bad[5].type = 0x8;
	bad[6].access = 0x10;
	bad[7].access = 0x80000000U;
	bad[8].pid = INT_MIN;
	for (i = 0; i < 12; i++) {
		memset(buf, CANARY, sizeof(buf));
		if (dazukofs_proto_format_record(buf, sizeof(buf), &bad[i]) != -1)
			fail_msg("formatted invalid record #%zu", i);
	}
}

static void parse_record_round_trip(void **state)
{
	struct dazukofs_proto_record recs[] = {
		rec_basic, rec_longest, rec_basic, rec_basic, rec_basic,
	};
	size_t i;

	(void)state;
	recs[2].fd = -1;
	recs[2].type = DAZUKOFS_EVENT_EXEC;
	recs[2].access = 0;
	recs[3].fd = INT_MAX;
	recs[3].access = 0xf;
	recs[3].type = DAZUKOFS_EVENT_CLOSE_WRITE;
	memset(&recs[4], 0, sizeof(recs[4]));
	recs[4].format = DAZUKOFS_RECORD_V3;
	recs[4].type = DAZUKOFS_EVENT_OPEN;
	recs[1].format = DAZUKOFS_RECORD_V3;
	recs[1].cgroup = ULLONG_MAX;
	for (unsigned int a = 0; a <= 0xf; a++) {
		for (i = 0; i < sizeof(recs) / sizeof(recs[0]); i++) {
			struct dazukofs_proto_record got;
			char buf[DAZUKOFS_RECORD3_MAX];
			int n;

			recs[i].access = a;
			n = dazukofs_proto_format_record(buf, sizeof(buf), &recs[i]);
			assert_true(n > 0);
			memset(&got, 0x77, sizeof(got));
			assert_int_equal(parse_rec(buf, (size_t)n, &got), 0);
			assert_true(rec_equal(&got, &recs[i]));
			/* the newline is part of the record */
			assert_int_equal(parse_rec(buf, (size_t)n - 1, &got), -1);
			/* every prefix is refused */
			for (size_t k = 0; k < (size_t)n; k++)
				assert_int_equal(parse_rec(buf, k, &got), -1);
		}
	}
}

static void parse_record_valid_forms(void **state)
{
	/* leading zeros, also after the minus */
	static const char zeros[] = "id=007 fd=-002 pid=01 uid=00 euid=0 fsuid=0 "
		"type=exec access=- dev=08:001 ino=0 size=00 change=0\n";
	/* the extremes */
	static const char max[] = "id=18446744073709551615 fd=-2147483647 "
		"pid=2147483647 uid=4294967295 euid=4294967295 fsuid=4294967295 "
		"type=close_write access=rwtc dev=4294967295:4294967295 "
		"ino=18446744073709551615 size=9223372036854775807 "
		"change=18446744073709551615\n";
	struct dazukofs_proto_record rec;

	(void)state;
	assert_int_equal(parse_rec(REC_BASIC_TEXT, strlen(REC_BASIC_TEXT), &rec), 0);
	assert_true(rec_equal(&rec, &rec_basic));
	assert_int_equal(parse_rec(zeros, sizeof(zeros) - 1, &rec), 0);
	assert_true(rec.id == 7 && rec.fd == -2 && rec.pid == 1 &&
		    rec.type == DAZUKOFS_EVENT_EXEC && rec.access == 0 &&
		    rec.dev_major == 8 && rec.dev_minor == 1 && rec.size == 0);
	assert_int_equal(parse_rec(max, sizeof(max) - 1, &rec), 0);
	assert_true(rec_equal(&rec, &rec_longest));
	assert_true(sizeof(max) <= DAZUKOFS_RECORD_MAX);
}

/* A valid record with one piece replaced by another text. */
static void check_bad_variant(const char *from, const char *to)
{
	static const char good[] = "id=7 fd=5 pid=1234 uid=1000 euid=0 fsuid=1000 "
		"type=open access=rt dev=8:1 ino=42 size=100 change=3\n";
	char text[DAZUKOFS_RECORD_MAX * 2];
	const char *at = strstr(good, from);
	struct dazukofs_proto_record rec;
	size_t pre, len;

	assert_non_null(at);
	pre = (size_t)(at - good);
	len = strlen(to);
	memcpy(text, good, pre);
	memcpy(text + pre, to, len);
	memcpy(text + pre + len, at + strlen(from),
	       sizeof(good) - 1 - pre - strlen(from));
	len = sizeof(good) - 1 - strlen(from) + len;
	memset(&rec, 0x55, sizeof(rec));
	if (parse_rec(text, len, &rec) != -1)
		fail_msg("accepted '%s' for '%s'", to, from);
	for (size_t i = 0; i < sizeof(rec); i++)
		assert_int_equal(((unsigned char *)&rec)[i], 0x55);
}

static void parse_record_malformed(void **state)
{
	static const char *const subst[][2] = {
		{ "fd=5", "fd=-0" },		/* "-0" */
		{ "fd=5", "fd=-00" },
		{ "fd=5", "fd=-2147483648" },	/* INT_MIN */
		{ "fd=5", "fd=2147483648" },
		{ "fd=5", "fd=+5" },
		{ "fd=5", "fd=--5" },
		{ "fd=5", "fd=-" },
		{ "fd=5", "fd=" },
		{ "pid=1234", "pid=-1" },
		{ "pid=1234", "pid=2147483648" },
		{ "uid=1000", "uid=4294967296" },
		{ "uid=1000", "uid=-1" },
		{ "euid=0", "euid=" },
		{ "fsuid=1000", "fsuid=4294967296" },
		{ "id=7", "id=18446744073709551616" },
		{ "id=7", "id=-7" },
		{ "size=100", "size=-1" },
		{ "size=100", "size=9223372036854775808" },
		{ "ino=42", "ino=18446744073709551616" },
		{ "change=3", "change=18446744073709551616" },
		{ "dev=8:1", "dev=4294967296:1" },
		{ "dev=8:1", "dev=8:4294967296" },
		{ "dev=8:1", "dev=8" },
		{ "dev=8:1", "dev=8:" },
		{ "dev=8:1", "dev=:1" },
		{ "dev=8:1", "dev=8,1" },
		{ "type=open", "type=" },		/* bad type */
		{ "type=open", "type=Open" },
		{ "type=open", "type=opened" },
		{ "type=open", "type=ope" },
		{ "type=open", "type=close" },
		{ "type=open", "type=close_writer" },
		{ "type=open", "type=1" },
		{ "type=open", "type=open,exec" },
		{ "access=rt", "access=" },		/* bad access */
		{ "access=rt", "access=tr" },		/* order */
		{ "access=rt", "access=rr" },		/* duplicates */
		{ "access=rt", "access=rtt" },
		{ "access=rt", "access=rwtcr" },
		{ "access=rt", "access=cw" },
		{ "access=rt", "access=-r" },
		{ "access=rt", "access=r-" },
		{ "access=rt", "access=--" },
		{ "access=rt", "access=x" },
		{ "access=rt", "access=R" },
		{ "access=rt", "access=rx" },
		{ "access=rt", "access=1" },
		{ "id=7 fd=5", "fd=5 id=7" },		/* field order */
		{ "uid=1000 euid=0", "euid=0 uid=1000" },
		{ "ino=42 size=100", "size=100 ino=42" },
		{ "pid=1234 ", "pid=1234 pid=1234 " },	/* duplicate field */
		{ "type=open ", "type=open type=open " },
		{ "type=open ", "" },			/* missing field */
		{ " change=3", "" },
		{ "id=7 ", "id=7  " },			/* blanks */
		{ "id=7 ", "id=7\t" },
		{ "id=7", " id=7" },
		{ "id=", "ID=" },
		{ "id=7", "id=0x7" },
		{ "change=3\n", "change=3" },		/* no newline */
		{ "change=3\n", "change=3 \n" },	/* trailing garbage */
		{ "change=3\n", "change=3\n\n" },
		{ "change=3\n", "change=3\r\n" },
		{ "change=3\n", "change=3\nx" },
		{ "change=3\n", "change=3 extra=1\n" },
		{ "change=3\n", "change=3\n" REC_BASIC_TEXT },	/* two records */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(subst) / sizeof(subst[0]); i++)
		check_bad_variant(subst[i][0], subst[i][1]);
}

/* An embedded NUL anywhere is refused: the length, not a NUL, counts. */
static void parse_record_nul(void **state)
{
	const size_t len = strlen(REC_BASIC_TEXT);
	struct dazukofs_proto_record rec;
	struct dazukofs_proto_event ev;
	char buf[DAZUKOFS_RECORD_MAX];

	(void)state;
	for (size_t i = 0; i < len; i++) {
		memcpy(buf, REC_BASIC_TEXT, len);
		buf[i] = '\0';
		assert_int_equal(parse_rec(buf, len, &rec), -1);
	}
	/* a format-1 record is not a format-2 one, nor the other way round */
	assert_int_equal(parse_rec("id=1\nfd=2\npid=3\n", 17, &rec), -1);
	assert_int_equal(parse_ev(REC_BASIC_TEXT, len, &ev), -1);
}

static void line_len(void **state)
{
	static const char two[] = "id=1 r=0\nid=2 r=1\n";

	(void)state;
	assert_int_equal(dazukofs_proto_line_len("", 0), 0);
	assert_int_equal(dazukofs_proto_line_len("abc", 3), 3);
	assert_int_equal(dazukofs_proto_line_len("\n", 1), 1);
	assert_int_equal(dazukofs_proto_line_len("\n\n", 2), 1);
	assert_int_equal(dazukofs_proto_line_len(two, sizeof(two) - 1), 9);
	assert_int_equal(dazukofs_proto_line_len(two + 9, sizeof(two) - 10), 9);
	/* the length, not a NUL, ends the text */
	assert_int_equal(dazukofs_proto_line_len("a\0b\nc", 5), 4);
	assert_int_equal(dazukofs_proto_line_len("ab\ncd", 2), 2);
	assert_int_equal(dazukofs_proto_line_len("ab\ncd", 3), 3);
	/* a NULL text of length 0 is not read */
	assert_int_equal(dazukofs_proto_line_len(NULL, 0), 0);
}

/* Several records, one per line, split by line_len and parsed one by one. */
static void line_len_records(void **state)
{
	struct dazukofs_proto_record recs[3] = { rec_basic, rec_longest, rec_basic };
	char text[DAZUKOFS_RECORD_MAX * 3];
	size_t len = 0, off, i;

	(void)state;
	recs[2].fd = -13;
	for (i = 0; i < 3; i++) {
		int n = dazukofs_proto_format_record(text + len, sizeof(text) - len,
						     &recs[i]);

		assert_true(n > 0);
		len += (size_t)n;
	}
	for (off = 0, i = 0; off < len; i++) {
		size_t n = dazukofs_proto_line_len(text + off, len - off);
		struct dazukofs_proto_record got;

		assert_true(i < 3);
		assert_int_equal(parse_rec(text + off, n, &got), 0);
		assert_true(rec_equal(&got, &recs[i]));
		off += n;
	}
	assert_int_equal(i, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(format_event_basic),
		cmocka_unit_test(format_event_matches_uapi_format),
		cmocka_unit_test(format_event_longest_fits),
		cmocka_unit_test(format_event_buffer_limits),
		cmocka_unit_test(format_event_rejects_negative),
		cmocka_unit_test(parse_event_round_trip),
		cmocka_unit_test(parse_event_leading_zeros),
		cmocka_unit_test(parse_event_malformed),
		cmocka_unit_test(parse_event_uses_length),
		cmocka_unit_test(format_response_basic),
		cmocka_unit_test(format_response_rejects_bad_verdict),
		cmocka_unit_test(format_response_buffer_limits),
		cmocka_unit_test(parse_response_valid),
		cmocka_unit_test(parse_response_round_trip),
		cmocka_unit_test(parse_response_malformed),
		cmocka_unit_test(parse_response_uses_length),
		cmocka_unit_test(parse_response_length_limits),
		cmocka_unit_test(response_remember),
		cmocka_unit_test(format_record_basic),
		cmocka_unit_test(format_record_matches_uapi_format),
		cmocka_unit_test(format_record_longest_fits),
		cmocka_unit_test(format_record3_longest_fits),
		cmocka_unit_test(parse_record3_forms),
		cmocka_unit_test(format_record_buffer_limits),
		cmocka_unit_test(format_record_rejects_invalid),
		cmocka_unit_test(parse_record_round_trip),
		cmocka_unit_test(parse_record_valid_forms),
		cmocka_unit_test(parse_record_malformed),
		cmocka_unit_test(parse_record_nul),
		cmocka_unit_test(line_len),
		cmocka_unit_test(line_len_records),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
