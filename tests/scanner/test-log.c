// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the log: escaping, and one call making one line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture.h"

#include "log.h"

static void expect_escaped(const char *in, const char *want)
{
	char out[256];
	size_t n = log_escape(out, sizeof(out), in);

	if (strcmp(out, want))
		fail_msg("escaped '%s', want '%s'", out, want);
	assert_int_equal(n, strlen(want));
}

static void test_escape(void **state)
{
	(void)state;
	expect_escaped("/srv/plain file.txt", "/srv/plain file.txt");
	expect_escaped("a\nb", "a\\nb");
	expect_escaped("tab\there\r", "tab\\there\\r");
	expect_escaped("back\\slash", "back\\\\slash");
	/* an escape made by the log and one in the input stay apart */
	expect_escaped("\\n\n", "\\\\n\\n");
	expect_escaped("\x1b[31mred\x7f\x01", "\\x1b[31mred\\x7f\\x01");
	/* UTF-8 passes; C1 controls, stray and overlong bytes do not */
	expect_escaped("gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80",
		       "gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80");
	expect_escaped("\xc2\x9b" "2J", "\\xc2\\x9b2J");
	expect_escaped("\xff\xc3", "\\xff\\xc3");
	expect_escaped("\xc0\xaf", "\\xc0\\xaf");
	expect_escaped("\xed\xa0\x80", "\\xed\\xa0\\x80");	/* a surrogate */
	expect_escaped("", "");
}

/* Cut short, never inside an escape nor inside a UTF-8 character. */
static void test_escape_bounded(void **state)
{
	char out[8];

	(void)state;
	memset(out, 'Z', sizeof(out));
	assert_int_equal(log_escape(out, 6, "abcd\nef"), 4);
	assert_string_equal(out, "abcd");
	assert_int_equal(out[6], 'Z');
	assert_int_equal(log_escape(out, 6, "abc\x01"), 3);
	assert_string_equal(out, "abc");
	assert_int_equal(log_escape(out, 5, "abc\xe2\x82\xac"), 3);
	assert_string_equal(out, "abc");
	assert_int_equal(log_escape(out, 1, "abc"), 0);
	assert_string_equal(out, "");
	out[0] = 'Z';
	assert_int_equal(log_escape(out, 0, "abc"), 0);
	assert_int_equal(out[0], 'Z');
}

/* What fn() writes to stderr. */
static char *capture_stderr(void (*fn)(void))
{
	static char buf[8192];
	struct stderr_capture c;

	capture_begin(&c);
	fn();
	return capture_end(&c, buf, sizeof(buf));
}

static const char forged_path[] =
	"/srv/x\ndazuko-clamscan: warning: FOUND signature=Forged path=/etc/passwd";

static void log_a_path(void)
{
	log_warning("%s: scan error: %s", forged_path, "boom\\");
}

static void log_a_detection(void)
{
	log_detection(forged_path, 42, "ev\x1b[2J\ncomm", "Eicar\n", "denied", NULL);
}

static int count(const char *s, char c)
{
	int n = 0;

	for (; *s; s++)
		n += *s == c;
	return n;
}

static void test_one_line(void **state)
{
	const char *out;

	(void)state;
	log_init(LOG_LVL_DEBUG, 0);
	out = capture_stderr(log_a_path);
	assert_int_equal(count(out, '\n'), 1);
	assert_string_equal(out,
		"dazuko-clamscan: warning: /srv/x\\ndazuko-clamscan: warning: FOUND "
		"signature=Forged path=/etc/passwd: scan error: boom\\\\\n");

	out = capture_stderr(log_a_detection);
	assert_int_equal(count(out, '\n'), 1);
	assert_int_equal(count(out, '\x1b'), 0);
	assert_string_equal(out,
		"dazuko-clamscan: warning: FOUND signature=Eicar\\n path=/srv/x\\n"
		"dazuko-clamscan: warning: FOUND signature=Forged path=/etc/passwd "
		"pid=42 comm=ev\\x1b[2J\\ncomm action=denied\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_escape_bounded),
		cmocka_unit_test(test_one_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
