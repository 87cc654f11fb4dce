// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of module/protocol.c, the text of the group device protocol:
 * event records (read) and answers (write).  Built with ASan and UBSan.
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
