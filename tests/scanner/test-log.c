// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the log: escaping, one call making one line, the JSON
 * records (parsed back with json-c), the file target and its reopening,
 * syslog facilities, and the settings' bad values.
 */
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <regex.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "capture.h"

#include "config/config.h"
#include "log/log.h"

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
	/* bidi controls and the line separators, as code points */
	expect_escaped("a\xe2\x80\xae" "b\xe2\x80\xa8" "c\xe2\x81\xa6" "d\xd8\x9c",
		       "a\\u202eb\\u2028c\\u2066d\\u061c");
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
	const struct log_opener who = { .pid = 42, .uid = -1, .comm = "ev\x1b[2J\ncomm" };

	log_detection(forged_path, &who, "Eicar\n", "denied", NULL);
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
		"dazuko-clamscan: warning: FOUND signature=Eicar\\n path=\"/srv/x\\n"
		"dazuko-clamscan: warning: FOUND signature=Forged path=/etc/passwd\" "
		"pid=42 comm=ev\\x1b[2J\\ncomm action=denied\n");
}

/*
 * Names a user chooses, each meant to fake a field or the line: spaces,
 * '=', quotes, a backslash, a newline, ESC, a bidi override (U+202E),
 * the line separator (U+2028), an empty comm.
 */
static const char *const hostile[][2] = {
	{ "/srv/x action=allowed-report-only", "a b" },
	{ "/srv/\"quoted\" pid=1", "comm=init" },
	{ "/srv/back\\slash \\\" tail", "\"" },
	{ "/srv/nl\nFOUND signature=Forged path=/etc/passwd", "x\x1b[2J" },
	{ "/srv/\xe2\x80\xaegpj.exe", "\xe2\x80\xa8sep" },
	{ "/srv/empty-comm", "" },
};

static int hostile_i;

static void log_hostile(void)
{
	const struct log_opener who = {
		.pid = 7, .uid = -1, .comm = hostile[hostile_i][1],
	};

	log_detection(hostile[hostile_i][0], &who, "Sig", "denied", NULL);
}

/* Undo log_escape_value() on the value at *p; advance past it. */
static char *logfmt_value(const char **p)
{
	static char buf[1024];
	const char *s = *p;
	int quoted = *s == '"';
	size_t n = 0;

	s += quoted;
	while (*s && (quoted ? *s != '"' : *s != ' ' && *s != '\n')) {
		unsigned int v;

		assert_true(n + 4 < sizeof(buf));
		if (*s != '\\') {
			buf[n++] = *s++;
			continue;
		}
		switch (s[1]) {
		case 'n': buf[n++] = '\n'; s += 2; break;
		case 't': buf[n++] = '\t'; s += 2; break;
		case 'r': buf[n++] = '\r'; s += 2; break;
		case '\\': case '"': buf[n++] = s[1]; s += 2; break;
		case 'x':
			assert_int_equal(sscanf(s + 2, "%2x", &v), 1);
			buf[n++] = (char)v;
			s += 4;
			break;
		case 'u':	/* U+0800..U+FFFF: three bytes of UTF-8 */
			assert_int_equal(sscanf(s + 2, "%4x", &v), 1);
			buf[n++] = (char)(0xe0 | v >> 12);
			buf[n++] = (char)(0x80 | (v >> 6 & 0x3f));
			buf[n++] = (char)(0x80 | (v & 0x3f));
			s += 6;
			break;
		default:
			fail_msg("unknown escape in '%s'", *p);
		}
	}
	if (quoted) {
		assert_int_equal(*s, '"');
		s++;
	}
	buf[n] = 0;
	*p = s;
	return buf;
}

/* KEY=VALUE at *p, then a space or the end of the line. */
static void expect_field(const char **p, const char *key, const char *raw)
{
	size_t klen = strlen(key);
	char *value;

	if (strncmp(*p, key, klen) || (*p)[klen] != '=')
		fail_msg("want field %s at '%s'", key, *p);
	*p += klen + 1;
	value = logfmt_value(p);
	if (strcmp(value, raw))
		fail_msg("field %s reads back as '%s', not '%s'", key, value, raw);
	assert_true(**p == ' ' || **p == '\n');
	*p += **p == ' ';
}

/* Each hostile name gives one line whose fields read back as they were. */
static void test_hostile_fields(void **state)
{
	(void)state;
	log_init(LOG_LVL_DEBUG, 0);
	for (hostile_i = 0; hostile_i < (int)(sizeof(hostile) / sizeof(hostile[0]));
	     hostile_i++) {
		const char *out = capture_stderr(log_hostile), *p = out;
		static const char head[] = "dazuko-clamscan: warning: FOUND ";

		assert_int_equal(count(out, '\n'), 1);
		assert_int_equal(count(out, '\x1b'), 0);
		assert_null(strstr(out, "\xe2\x80\xae"));
		assert_null(strstr(out, "\xe2\x80\xa8"));
		assert_int_equal(strncmp(p, head, strlen(head)), 0);
		p += strlen(head);
		expect_field(&p, "signature", "Sig");
		expect_field(&p, "path", hostile[hostile_i][0]);
		expect_field(&p, "pid", "7");
		expect_field(&p, "comm", hostile[hostile_i][1]);
		expect_field(&p, "action", "denied");
		assert_string_equal(p, "\n");
	}
}

static void test_facility(void **state)
{
	(void)state;
	assert_int_equal(log_facility_parse("daemon"), LOG_DAEMON);
	assert_int_equal(log_facility_parse("local0"), LOG_LOCAL0);
	assert_int_equal(log_facility_parse("local7"), LOG_LOCAL7);
	/* clamd's LogFacility spelling, and any case */
	assert_int_equal(log_facility_parse("LOG_LOCAL6"), LOG_LOCAL6);
	assert_int_equal(log_facility_parse("Mail"), LOG_MAIL);
	assert_int_equal(log_facility_parse("authpriv"), LOG_AUTHPRIV);
	assert_int_equal(log_facility_parse("local8"), -1);
	assert_int_equal(log_facility_parse("kern"), -1);
	assert_int_equal(log_facility_parse("LOG_"), -1);
	assert_int_equal(log_facility_parse(""), -1);
	assert_int_equal(log_facility_parse("daemon "), -1);
	assert_string_equal(log_facility_name(LOG_LOCAL3), "local3");
	assert_string_equal(log_facility_name(LOG_DAEMON), "daemon");
	assert_null(log_facility_name(LOG_KERN));
}

/* s parsed as strict JSON, valid UTF-8 required; fails the test if not. */
static json_object *parse_strict(const char *s, size_t len)
{
	json_tokener *tok = json_tokener_new();
	json_object *o;

	assert_non_null(tok);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, s, (int)len);
	if (!o || json_tokener_get_parse_end(tok) != len)
		fail_msg("not one strict JSON object (%s): '%.*s'",
			 json_tokener_error_desc(json_tokener_get_error(tok)), (int)len, s);
	json_tokener_free(tok);
	return o;
}

static const char *str_field(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		fail_msg("no string field '%s' in %s", key, json_object_to_json_string(o));
	return json_object_get_string(v);
}

static int64_t int_field(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		fail_msg("no integer field '%s' in %s", key, json_object_to_json_string(o));
	return json_object_get_int64(v);
}

static int has_field(json_object *o, const char *key)
{
	return json_object_object_get_ex(o, key, NULL);
}

/* out's lines, each one strict JSON object; n of them expected */
static void parse_lines(const char *out, json_object **objs, size_t n)
{
	const char *p = out;

	for (size_t i = 0; i < n; i++) {
		const char *nl = strchr(p, '\n');

		if (!nl)
			fail_msg("line %zu missing in '%s'", i + 1, out);
		objs[i] = parse_strict(p, (size_t)(nl - p));
		p = nl + 1;
	}
	assert_string_equal(p, "");
}

/* RFC 3339 with microseconds and a numeric offset */
static void assert_rfc3339(const char *t)
{
	regex_t re;

	assert_int_equal(regcomp(&re, "^[0-9]{4}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9]"
				 "\\.[0-9]{6}[+-][0-2][0-9]:[0-5][0-9]$", REG_EXTENDED | REG_NOSUB), 0);
	if (regexec(&re, t, 0, NULL, 0))
		fail_msg("time '%s' is not RFC 3339 with microseconds and an offset", t);
	regfree(&re);
}

static void use_stderr(enum log_format format, int clean)
{
	const struct log_setup ls = {
		.level = LOG_LVL_INFO, .target = LOG_TARGET_STDERR, .format = format,
		.clean = clean,
	};
	char err[256];

	assert_int_equal(log_open(&ls, err, sizeof(err)), 0);
}

/* not UTF-8, a newline, a quote, a backslash: all must survive as JSON */
static const char odd_path[] = "/srv/\xff\xfe bad\n\"q\"\\x.com";
static const char odd_path_escaped[] = "/srv/\\xff\\xfe bad\\n\"q\"\\\\x.com";

static void log_json_records(void)
{
	log_event(LOG_LVL_NOTICE, "start", "ready: %s", "test");
	log_info("a message with a \x01 control and UTF-8 \xc3\xbc");
	log_debug("not logged at info");
	log_detection(odd_path, &(struct log_opener){ .pid = 42, .uid = 1000, .comm = "ev\xc3\x28il", .written = 1 }, "Eicar-Sig", "denied", "/run/clamd.ctl");
	log_clean("/srv/clean.txt", &(struct log_opener){ .pid = 43, .uid = -1, .comm = "cat" }, NULL);
	log_file_event(LOG_LVL_WARNING, "error", odd_path, "%s: scan error: x", odd_path);
}

static void test_json(void **state)
{
	json_object *o[5];
	const char *out;

	(void)state;
	use_stderr(LOG_FORMAT_JSON, 1);
	out = capture_stderr(log_json_records);
	log_init(LOG_LVL_INFO, 0);
	parse_lines(out, o, 5);

	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(int_field(o[i], "schema"), LOG_JSON_SCHEMA);
		assert_rfc3339(str_field(o[i], "time"));
		assert_int_equal(int_field(o[i], "scanner_pid"), getpid());
	}
	assert_string_equal(str_field(o[0], "event"), "start");
	assert_string_equal(str_field(o[0], "level"), "notice");
	assert_string_equal(str_field(o[0], "message"), "ready: test");
	assert_false(has_field(o[0], "path"));

	assert_string_equal(str_field(o[1], "event"), "message");
	assert_string_equal(str_field(o[1], "level"), "info");
	assert_string_equal(str_field(o[1], "message"),
			    "a message with a \\x01 control and UTF-8 \xc3\xbc");

	assert_string_equal(str_field(o[2], "event"), "detection");
	assert_string_equal(str_field(o[2], "level"), "warning");
	assert_string_equal(str_field(o[2], "path"), odd_path_escaped);
	assert_int_equal(int_field(o[2], "pid"), 42);
	assert_int_equal(int_field(o[2], "uid"), 1000);
	assert_string_equal(str_field(o[2], "comm"), "ev\\xc3(il");
	assert_string_equal(str_field(o[2], "signature"), "Eicar-Sig");
	assert_string_equal(str_field(o[2], "action"), "denied");
	assert_string_equal(str_field(o[2], "server"), "/run/clamd.ctl");
	/* a close after a write, not an open */
	assert_true(json_object_get_boolean(json_object_object_get(o[2], "written")));
	assert_false(has_field(o[3], "written"));

	assert_string_equal(str_field(o[3], "event"), "clean");
	assert_string_equal(str_field(o[3], "level"), "info");
	assert_string_equal(str_field(o[3], "path"), "/srv/clean.txt");
	assert_int_equal(int_field(o[3], "pid"), 43);
	/* an unknown uid is left out, not made up */
	assert_false(has_field(o[3], "uid"));
	assert_string_equal(str_field(o[3], "comm"), "cat");
	assert_false(has_field(o[3], "signature"));
	assert_false(has_field(o[3], "server"));
	assert_false(has_field(o[3], "action"));

	/* a message about one file carries its path as a field too */
	assert_string_equal(str_field(o[4], "event"), "error");
	assert_string_equal(str_field(o[4], "path"), odd_path_escaped);
	assert_false(has_field(o[4], "pid"));
	assert_false(has_field(o[4], "comm"));
	for (size_t i = 0; i < 5; i++)
		json_object_put(o[i]);
}

static void log_written(void)
{
	const struct log_opener who = {
		.pid = 9, .uid = 1000, .comm = "vim", .written = 1,
	};

	log_clean("/srv/w.txt", &who, NULL);
	log_detection("/srv/w.com", &who, "Eicar", "denied", NULL);
}

/* A close after a write says so: written=yes on the text line. */
static void test_written(void **state)
{
	const char *out;

	(void)state;
	use_stderr(LOG_FORMAT_TEXT, 1);
	out = capture_stderr(log_written);
	log_init(LOG_LVL_INFO, 0);
	assert_string_equal(out,
		"dazuko-clamscan: info: clean path=/srv/w.txt pid=9 comm=vim written=yes\n"
		"dazuko-clamscan: warning: FOUND signature=Eicar path=/srv/w.com pid=9 comm=vim action=denied written=yes\n");
}

#define CID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static const struct workload in_container = {
	.unit = "docker-" CID ".scope", .container = CID, .runtime = "docker",
};

static void log_in_container(void)
{
	const struct log_opener who = {
		.pid = 9, .uid = 0, .comm = "sh", .cgroup = "/system.slice/docker-" CID ".scope",
		.workload = &in_container,
	};

	log_detection("/srv/c.com", &who, "Eicar", "denied", NULL);
}

/* The workload on the text line and in JSON, only the fields it has. */
static void test_workload_fields(void **state)
{
	const char *out;
	json_object *o;

	(void)state;
	use_stderr(LOG_FORMAT_TEXT, 1);
	out = capture_stderr(log_in_container);
	assert_string_equal(out,
		"dazuko-clamscan: warning: FOUND signature=Eicar path=/srv/c.com pid=9 comm=sh "
		"action=denied unit=docker-" CID ".scope container=" CID " runtime=docker\n");
	use_stderr(LOG_FORMAT_JSON, 1);
	out = capture_stderr(log_in_container);
	log_init(LOG_LVL_INFO, 0);
	o = parse_strict(out, strlen(out) - 1);
	assert_string_equal(str_field(o, "cgroup"), "/system.slice/docker-" CID ".scope");
	assert_string_equal(str_field(o, "unit"), "docker-" CID ".scope");
	assert_string_equal(str_field(o, "container"), CID);
	assert_string_equal(str_field(o, "container_runtime"), "docker");
	assert_false(json_object_object_get_ex(o, "pod", NULL));
	assert_false(json_object_object_get_ex(o, "user_unit", NULL));
	json_object_put(o);
}

static void log_one_clean(void)
{
	log_clean("/srv/clean.txt", &(struct log_opener){ .pid = 43, .uid = 0, .comm = "cat" }, NULL);
}

static void log_clean_and_detection(void)
{
	log_clean("/srv/clean.txt", &(struct log_opener){ .pid = 43, .uid = 0, .comm = "cat" }, "10.0.0.1:3310");
	log_detection("/srv/e.com", &(struct log_opener){ .pid = 44, .uid = 0, .comm = "cat" }, "Eicar", "allowed-report-only", NULL);
}

/* log_clean = no logs no clean file; detections are logged whatever the level */
static void test_clean_and_levels(void **state)
{
	const struct log_setup quiet = {
		.level = LOG_LVL_ERROR, .target = LOG_TARGET_STDERR, .clean = 1,
	};
	char err[256];

	(void)state;
	use_stderr(LOG_FORMAT_TEXT, 0);
	assert_false(log_clean_enabled());
	assert_string_equal(capture_stderr(log_one_clean), "");
	use_stderr(LOG_FORMAT_TEXT, 1);
	assert_true(log_clean_enabled());
	assert_string_equal(capture_stderr(log_one_clean),
			    "dazuko-clamscan: info: clean path=/srv/clean.txt pid=43 comm=cat\n");
	/* log_clean is the admin's choice: it holds below info, like detections */
	assert_int_equal(log_open(&quiet, err, sizeof(err)), 0);
	assert_string_equal(capture_stderr(log_clean_and_detection),
			    "dazuko-clamscan: info: clean path=/srv/clean.txt pid=43 comm=cat server=10.0.0.1:3310\n"
			    "dazuko-clamscan: warning: FOUND signature=Eicar path=/srv/e.com pid=44 comm=cat action=allowed-report-only\n");
	log_init(LOG_LVL_INFO, 0);
}

static char *read_all(const char *path)
{
	static char buf[1 << 20];
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		fail_msg("%s: cannot open", path);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	return buf;
}

struct tmpdir {
	char dir[64], file[128], moved[128];
};

static void tmpdir_make(struct tmpdir *t)
{
	snprintf(t->dir, sizeof(t->dir), "/tmp/test-log.XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->file, sizeof(t->file), "%s/scan.log", t->dir);
	snprintf(t->moved, sizeof(t->moved), "%s/scan.log.1", t->dir);
}

static void tmpdir_remove(struct tmpdir *t)
{
	unlink(t->file);
	unlink(t->moved);
	rmdir(t->dir);
}

/* The file target: created 0640 less the umask, appended to, reopened. */
static void test_file_reopen(void **state)
{
	struct tmpdir t;
	struct log_setup ls = {
		.level = LOG_LVL_INFO, .target = LOG_TARGET_AUTO, .format = LOG_FORMAT_TEXT,
	};
	char err[256], want[64];
	mode_t old_umask = umask(022);
	struct stat st;
	const char *s;

	(void)state;
	tmpdir_make(&t);
	ls.file = t.file;
	/* auto with a log_file is the file */
	assert_int_equal(log_open(&ls, err, sizeof(err)), 0);
	assert_int_equal(log_target_in_use(), LOG_TARGET_FILE);
	assert_int_equal(stat(t.file, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	log_notice("before the rotation");
	assert_int_equal(rename(t.file, t.moved), 0);
	log_notice("after the rename, before the reopen");
	assert_int_equal(log_reopen(err, sizeof(err)), 0);
	log_notice("after the reopen");
	log_close();

	s = read_all(t.moved);
	snprintf(want, sizeof(want), " dazuko-clamscan[%d]: notice: before the rotation\n",
		 (int)getpid());
	assert_non_null(strstr(s, want));
	assert_non_null(strstr(s, "after the rename, before the reopen"));
	assert_null(strstr(s, "after the reopen"));
	/* the time first: "2026-12-05T09:14:03.123456+01:00 dazuko-clamscan[..." */
	{
		char when[40];

		assert_int_equal(sscanf(s, "%39s", when), 1);
		assert_rfc3339(when);
	}
	s = read_all(t.file);
	assert_non_null(strstr(s, "notice: after the reopen\n"));
	assert_null(strstr(s, "before"));

	/* appended to, never truncated; the unit's umask makes it 0600 */
	unlink(t.moved);
	unlink(t.file);
	umask(077);
	ls.target = LOG_TARGET_FILE;
	ls.format = LOG_FORMAT_JSON;
	assert_int_equal(log_open(&ls, err, sizeof(err)), 0);
	log_notice("one");
	log_close();
	assert_int_equal(log_open(&ls, err, sizeof(err)), 0);
	log_notice("two");
	log_close();
	assert_int_equal(stat(t.file, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	{
		json_object *o[2];

		parse_lines(read_all(t.file), o, 2);
		assert_string_equal(str_field(o[0], "message"), "one");
		assert_string_equal(str_field(o[1], "message"), "two");
		json_object_put(o[0]);
		json_object_put(o[1]);
	}
	umask(old_umask);
	tmpdir_remove(&t);
}

/* A file that cannot be opened: a clear error, the log unchanged. */
static void test_file_errors(void **state)
{
	struct tmpdir t;
	struct log_setup ls = { .level = LOG_LVL_INFO, .target = LOG_TARGET_FILE };
	char err[256];

	(void)state;
	log_init(LOG_LVL_INFO, 0);
	ls.file = "/nonexistent-dir-7f3a/scan.log";
	assert_int_equal(log_open(&ls, err, sizeof(err)), -1);
	assert_string_equal(err, "log_file /nonexistent-dir-7f3a/scan.log: No such file or directory");
	assert_int_equal(log_target_in_use(), LOG_TARGET_STDERR);
	ls.file = NULL;
	assert_int_equal(log_open(&ls, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "needs log_file"));

	tmpdir_make(&t);
	ls.file = t.dir;
	assert_int_equal(log_open(&ls, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "Is a directory"));
	/* a FIFO is no log file; without a reader it must not hang the open */
	assert_int_equal(mkfifo(t.file, 0600), 0);
	ls.file = t.file;
	assert_int_equal(log_open(&ls, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "No such device or address"));
	{
		int rd = open(t.file, O_RDONLY | O_NONBLOCK);

		assert_true(rd >= 0);
		assert_int_equal(log_open(&ls, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "not a regular file"));
		close(rd);
	}
	assert_int_equal(unlink(t.file), 0);
	/* a reopen that fails keeps the old file */
	ls.file = t.file;
	assert_int_equal(log_open(&ls, err, sizeof(err)), 0);
	assert_int_equal(rename(t.file, t.moved), 0);
	assert_int_equal(chmod(t.dir, 0500), 0);
	if (geteuid() != 0) {
		assert_int_equal(log_reopen(err, sizeof(err)), -1);
		assert_non_null(strstr(err, "Permission denied"));
	}
	assert_int_equal(chmod(t.dir, 0700), 0);
	log_notice("still here");
	log_close();
	assert_non_null(strstr(read_all(t.moved), "still here"));
	tmpdir_remove(&t);
}

/* What the checks of open_log_file() refuse, each with its reason. */
static void test_file_refused(void **state)
{
	struct tmpdir t;
	struct log_setup ls = { .level = LOG_LVL_INFO, .target = LOG_TARGET_FILE };
	char err[512], want[512], target[160], other[160];
	mode_t old_umask = umask(077);

	(void)state;
	log_init(LOG_LVL_INFO, 0);
	tmpdir_make(&t);
	ls.file = t.file;
	snprintf(target, sizeof(target), "%s/target", t.dir);
	snprintf(other, sizeof(other), "%s/other-name", t.dir);

	/* a symbolic link, even to a good file of ours */
	close(open(target, O_WRONLY | O_CREAT, 0600));
	assert_int_equal(symlink(target, t.file), 0);
	assert_int_equal(log_open(&ls, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "log_file %s: is a symbolic link (refused)", t.file);
	assert_string_equal(err, want);
	assert_int_equal(log_target_in_use(), LOG_TARGET_STDERR);
	assert_int_equal(unlink(t.file), 0);

	/* a second name (hard link): st_nlink 2 */
	assert_int_equal(link(target, t.file), 0);
	assert_int_equal(log_open(&ls, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "log_file %s: has other hard links; refused", t.file);
	assert_string_equal(err, want);
	assert_int_equal(unlink(t.file), 0);

	/* group- or other-writable: others could forge records */
	assert_int_equal(rename(target, t.file), 0);
	assert_int_equal(chmod(t.file, 0620), 0);
	assert_int_equal(log_open(&ls, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "log_file %s: writable by group or others; refused", t.file);
	assert_string_equal(err, want);
	assert_int_equal(chmod(t.file, 0602), 0);
	assert_int_equal(log_open(&ls, err, sizeof(err)), -1);
	assert_string_equal(err, want);

	/* another owner: root can make one (nobody, 65534) */
	assert_int_equal(chmod(t.file, 0600), 0);
	if (geteuid() == 0) {
		assert_int_equal(chown(t.file, 65534, 65534), 0);
		assert_int_equal(log_open(&ls, err, sizeof(err)), -1);
		snprintf(want, sizeof(want),
			 "log_file %s: not owned by the scanner's user (owner uid 65534, scanner uid 0); refused",
			 t.file);
		assert_string_equal(err, want);
		assert_int_equal(chown(t.file, 0, 0), 0);
	} else {
		print_message("not root: the other-owner case is skipped\n");
	}

	/* and the same file, made right, is taken */
	assert_int_equal(log_open(&ls, err, sizeof(err)), 0);
	assert_int_equal(log_target_in_use(), LOG_TARGET_FILE);
	log_close();
	unlink(other);
	unlink(target);
	umask(old_umask);
	tmpdir_remove(&t);
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* A second log_open closes the first target; log_init forgets log_clean. */
static void test_open_twice(void **state)
{
	struct tmpdir t;
	struct log_setup ls = {
		.level = LOG_LVL_INFO, .target = LOG_TARGET_FILE, .clean = 1,
	};
	char err[256];
	int before;

	(void)state;
	log_init(LOG_LVL_INFO, 0);
	tmpdir_make(&t);
	before = open_fds();
	ls.file = t.file;
	assert_int_equal(log_open(&ls, err, sizeof(err)), 0);
	assert_int_equal(open_fds(), before + 1);
	log_notice("first");
	ls.file = t.moved;
	assert_int_equal(log_open(&ls, err, sizeof(err)), 0);
	assert_int_equal(open_fds(), before + 1);
	log_notice("second");
	assert_true(log_clean_enabled());
	log_close();
	assert_int_equal(open_fds(), before);
	assert_null(strstr(read_all(t.file), "second"));
	assert_non_null(strstr(read_all(t.moved), "second"));

	assert_int_equal(log_open(&ls, err, sizeof(err)), 0);
	assert_true(log_clean_enabled());
	log_init(LOG_LVL_INFO, 0);
	assert_false(log_clean_enabled());
	/* log_init left the file open: log_open closes it now */
	ls.target = LOG_TARGET_STDERR;
	assert_int_equal(log_open(&ls, err, sizeof(err)), 0);
	log_close();
	tmpdir_remove(&t);
}

static void log_three_lines(void)
{
	log_notice("%0500d", 1);
	log_notice("%0500d", 2);
	log_notice("%0500d", 3);
}

/*
 * A file that takes the first line and only part of the second
 * (RLIMIT_FSIZE: a short write, then EFBIG): said on stderr, never
 * silent; the third line's failure within the same minute is not said
 * again.  The limit is the capture's too: the report must fit.
 */
static void test_write_errors(void **state)
{
	struct tmpdir t;
	struct log_setup ls = { .level = LOG_LVL_INFO, .target = LOG_TARGET_FILE };
	struct rlimit old, lim;
	char err[256], want[256];
	const char *out;
	struct stat st;

	(void)state;
	tmpdir_make(&t);
	ls.file = t.file;
	assert_int_equal(log_open(&ls, err, sizeof(err)), 0);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 800;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	out = capture_stderr(log_three_lines);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	log_close();
	assert_int_equal(stat(t.file, &st), 0);
	assert_int_equal(st.st_size, 800);
	snprintf(want, sizeof(want), "dazuko-clamscan: error: cannot write the log (log_file %s): File too large; 1 line(s) lost or cut",
		 t.file);
	if (strncmp(out, want, strlen(want)))
		fail_msg("stderr '%s', want '%s...'", out, want);
	/* the third line's failure is within the minute: not told again */
	assert_int_equal(count(out, '\n'), 1);
	tmpdir_remove(&t);
}

#define WRITERS 4
#define LINES_EACH 3000

static void *writer(void *arg)
{
	char path[600];

	/* long enough that two writes per line would mix */
	snprintf(path, sizeof(path), "/srv/%0500d/%d", 0, (int)(intptr_t)arg);
	for (int i = 0; i < LINES_EACH; i++)
		log_detection(path, &(struct log_opener){ .pid = i, .uid = 0, .comm = "writer" }, "Sig", "denied", NULL);
	return NULL;
}

static atomic_int writers_done;

static void *join_writers(void *arg)
{
	pthread_t *th = arg;

	for (int i = 0; i < WRITERS; i++)
		pthread_join(th[i], NULL);
	atomic_store(&writers_done, 1);
	return NULL;
}

/* The complete JSON detection lines of path; fails on any other line. */
static size_t detection_lines(const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0, lines = 0;
	ssize_t n;

	assert_non_null(f);
	while ((n = getline(&line, &cap, f)) > 0) {
		json_object *o;

		if (line[n - 1] != '\n')
			fail_msg("%s: a line without its newline", path);
		o = parse_strict(line, (size_t)n - 1);
		assert_string_equal(str_field(o, "event"), "detection");
		json_object_put(o);
		lines++;
	}
	free(line);
	fclose(f);
	return lines;
}

/*
 * Lines of several threads never mix, and none is lost while the file
 * is rotated (renamed, reopened) again and again until the writers are
 * done: every line is whole in exactly one of the files.
 */
static void test_threads(void **state)
{
	struct tmpdir t;
	struct log_setup s = {
		.level = LOG_LVL_INFO, .target = LOG_TARGET_FILE, .format = LOG_FORMAT_JSON,
	};
	pthread_t th[WRITERS], joiner;
	char err[256], name[160];
	size_t lines;
	int rotations = 0;

	(void)state;
	tmpdir_make(&t);
	s.file = t.file;
	atomic_store(&writers_done, 0);
	assert_int_equal(log_open(&s, err, sizeof(err)), 0);
	for (intptr_t i = 0; i < WRITERS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, writer, (void *)i), 0);
	assert_int_equal(pthread_create(&joiner, NULL, join_writers, th), 0);
	while (!atomic_load(&writers_done)) {
		snprintf(name, sizeof(name), "%s.%d", t.file, rotations++);
		assert_int_equal(rename(t.file, name), 0);
		assert_int_equal(log_reopen(err, sizeof(err)), 0);
	}
	pthread_join(joiner, NULL);
	log_close();
	lines = detection_lines(t.file);
	assert_int_equal(unlink(t.file), 0);
	for (int i = 0; i < rotations; i++) {
		snprintf(name, sizeof(name), "%s.%d", t.file, i);
		lines += detection_lines(name);
		assert_int_equal(unlink(name), 0);
	}
	print_message("%d rotations\n", rotations);
	assert_true(rotations > 1);
	assert_int_equal(lines, WRITERS * LINES_EACH);
	tmpdir_remove(&t);
}

#define PIPE_WRITERS 4
#define PIPE_LINES 300

static void *pipe_writer(void *arg)
{
	char path[4000];

	/* a record longer than PIPE_BUF: the pipe may take it in pieces */
	snprintf(path, sizeof(path), "/srv/%03990d", (int)(intptr_t)arg);
	for (int i = 0; i < PIPE_LINES; i++)
		log_detection(path, &(struct log_opener){ .pid = i, .uid = 0, .comm = "writer" }, "Sig", "denied", NULL);
	return NULL;
}

static int saved_stderr;

/* The writers done: stderr back, which closes the pipe's last write end. */
static void *join_pipe_writers(void *arg)
{
	pthread_t *th = arg;

	for (int i = 0; i < PIPE_WRITERS; i++)
		pthread_join(th[i], NULL);
	log_close();
	assert_true(dup2(saved_stderr, STDERR_FILENO) >= 0);
	close(saved_stderr);
	return NULL;
}

/* stderr a pipe: lines longer than PIPE_BUF from several threads stay whole. */
static void test_stderr_pipe(void **state)
{
	struct log_setup s = {
		.level = LOG_LVL_INFO, .target = LOG_TARGET_STDERR, .format = LOG_FORMAT_JSON,
	};
	pthread_t th[PIPE_WRITERS], joiner;
	int p[2];
	char err[256], *buf, *line, *nl;
	size_t cap = 1 << 24, len = 0, lines = 0;
	ssize_t n;

	(void)state;
	saved_stderr = dup(STDERR_FILENO);
	assert_true(saved_stderr >= 0);
	assert_int_equal(pipe(p), 0);
	assert_true(dup2(p[1], STDERR_FILENO) >= 0);
	close(p[1]);
	assert_int_equal(log_open(&s, err, sizeof(err)), 0);
	for (intptr_t i = 0; i < PIPE_WRITERS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, pipe_writer, (void *)i), 0);
	buf = malloc(cap);
	assert_non_null(buf);
	assert_int_equal(pthread_create(&joiner, NULL, join_pipe_writers, th), 0);
	/* read while they write, in small pieces, so the pipe fills and empties */
	while ((n = read(p[0], buf + len, 1000)) > 0) {
		len += (size_t)n;
		assert_true(len + 1000 < cap);
	}
	pthread_join(joiner, NULL);
	close(p[0]);
	buf[len] = 0;
	for (line = buf; (nl = strchr(line, '\n')); line = nl + 1) {
		json_object *o = parse_strict(line, (size_t)(nl - line));

		assert_string_equal(str_field(o, "event"), "detection");
		json_object_put(o);
		lines++;
	}
	assert_int_equal(*line, 0);
	assert_int_equal(lines, PIPE_WRITERS * PIPE_LINES);
	free(buf);
}

/* The settings: each bad value a clear error naming the good ones. */
static void expect_bad(const char *key, const char *value, const char *want)
{
	struct config cfg;
	char err[CONFIG_ERR_MAX];

	config_init(&cfg);
	assert_int_equal(config_set(&cfg, key, value, err, sizeof(err)), -1);
	if (strcmp(err, want))
		fail_msg("%s = %s: '%s', want '%s'", key, value, err, want);
	config_free(&cfg);
}

static int from_args(const char **args, char *err, size_t errlen, struct config *cfg)
{
	const char *argv[16] = { "dazuko-clamscan", "-c", "/dev/null" };
	int argc = 3, rc;

	for (; *args; args++)
		argv[argc++] = *args;
	config_init(cfg);
	rc = config_from_args(cfg, argc, (char **)argv, err, errlen);
	return rc;
}

static void test_settings(void **state)
{
	const char *json_journal[] = { "--log-format", "json", "--log-target", "journal", NULL };
	const char *json_syslog[] = { "--log-format", "json", "--log-target", "syslog", NULL };
	const char *file_no_path[] = { "--log-target", "file", NULL };
	const char *file_ignored[] = { "--log-target", "syslog", "--log-file",
				       "/var/log/dazukofs/clamscan.log", NULL };
	const char *good[] = { "--log-target", "syslog", "--log-facility", "LOG_LOCAL6",
			       "--log-clean", "yes", NULL };
	const char *json_file[] = { "--log-file", "/var/log/dazukofs/clamscan.log",
				    "--log-format", "json", NULL };
	char err[CONFIG_ERR_MAX];
	struct config cfg;

	(void)state;
	log_init(LOG_LVL_ERROR, 0);
	expect_bad("log_target", "file2",
		   "log_target: 'file2' is not auto, journal, syslog, file or stderr");
	expect_bad("log_format", "xml", "log_format: 'xml' is not text or json");
	expect_bad("log_facility", "local8",
		   "log_facility: 'local8' is not " LOG_FACILITY_NAMES);
	expect_bad("log_file", "scan.log", "log_file: 'scan.log' is not an absolute path");
	expect_bad("log_clean", "maybe", "log_clean: 'maybe' is not yes or no");

	assert_int_equal(from_args(json_journal, err, sizeof(err), &cfg), -1);
	assert_string_equal(err, "log_format json applies to log_target file or stderr, not journal (the journal keeps structured fields)");
	config_free(&cfg);
	assert_int_equal(from_args(json_syslog, err, sizeof(err), &cfg), -1);
	assert_non_null(strstr(err, "not syslog"));
	config_free(&cfg);
	assert_int_equal(from_args(file_no_path, err, sizeof(err), &cfg), -1);
	assert_string_equal(err, "log_target file needs log_file PATH");
	config_free(&cfg);
	assert_int_equal(from_args(file_ignored, err, sizeof(err), &cfg), -1);
	assert_string_equal(err, "log_file /var/log/dazukofs/clamscan.log is set but log_target is syslog: set log_target file (or auto), or remove log_file");
	config_free(&cfg);

	assert_int_equal(from_args(good, err, sizeof(err), &cfg), 0);
	assert_int_equal(cfg.log_target, LOG_TARGET_SYSLOG);
	assert_int_equal(cfg.log_facility, LOG_LOCAL6);
	assert_int_equal(cfg.log_clean, 1);
	assert_int_equal(cfg.log_format, LOG_FORMAT_TEXT);
	config_free(&cfg);
	assert_int_equal(from_args(json_file, err, sizeof(err), &cfg), 0);
	assert_int_equal(cfg.log_target, LOG_TARGET_AUTO);
	assert_string_equal(cfg.log_file, "/var/log/dazukofs/clamscan.log");
	assert_int_equal(cfg.log_format, LOG_FORMAT_JSON);
	config_free(&cfg);
	/* the defaults */
	config_init(&cfg);
	assert_int_equal(cfg.log_target, LOG_TARGET_AUTO);
	assert_int_equal(cfg.log_facility, LOG_DAEMON);
	assert_int_equal(cfg.log_clean, 0);
	assert_null(cfg.log_file);
	config_free(&cfg);
	log_init(LOG_LVL_INFO, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_escape_bounded),
		cmocka_unit_test(test_one_line),
		cmocka_unit_test(test_hostile_fields),
		cmocka_unit_test(test_written),
		cmocka_unit_test(test_workload_fields),
		cmocka_unit_test(test_facility),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_clean_and_levels),
		cmocka_unit_test(test_file_reopen),
		cmocka_unit_test(test_file_errors),
		cmocka_unit_test(test_file_refused),
		cmocka_unit_test(test_open_twice),
		cmocka_unit_test(test_write_errors),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_stderr_pipe),
		cmocka_unit_test(test_settings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
