// SPDX-License-Identifier: GPL-2.0
/*
 * clamd's replies mapped exactly (clamd_proto.c): OK, FOUND, ERROR, the
 * INSTREAM size limit and PONG, with and without the IDSESSION number;
 * everything else, a wrong number or a NUL inside included, is
 * unexpected (never clean).  The chunk header is big-endian.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "backends/clamd_proto.h"

static struct clamd_reply parse(const char *s, unsigned int id, enum clamd_request req)
{
	struct clamd_reply r;

	memset(&r, 0x55, sizeof(r));
	clamd_parse_reply(s, strlen(s), id, req, &r);
	return r;
}

#define EXPECT(s, id, req, kind_, text_) do {				\
		struct clamd_reply r_ = parse(s, id, req);		\
		assert_int_equal(r_.kind, kind_);			\
		assert_string_equal(r_.text, text_);			\
	} while (0)

static void test_ok(void **state)
{
	(void)state;
	EXPECT("stream: OK", 0, CLAMD_REQ_STREAM, CLAMD_REPLY_OK, "OK");
	EXPECT("fd[12]: OK", 0, CLAMD_REQ_FD, CLAMD_REPLY_OK, "OK");
	EXPECT("7: fd[12]: OK", 7, CLAMD_REQ_FD, CLAMD_REPLY_OK, "OK");
	EXPECT("1: stream: OK", 1, CLAMD_REQ_STREAM, CLAMD_REPLY_OK, "OK");
}

static void test_found(void **state)
{
	(void)state;
	EXPECT("stream: Eicar-Signature FOUND", 0, CLAMD_REQ_STREAM,
	       CLAMD_REPLY_FOUND, "Eicar-Signature");
	EXPECT("3: fd[9]: Dazukofs.Test.EICAR.UNOFFICIAL FOUND", 3, CLAMD_REQ_FD,
	       CLAMD_REPLY_FOUND, "Dazukofs.Test.EICAR.UNOFFICIAL");
	EXPECT("2: stream: Heuristics.Limits.Exceeded.MaxFileSize FOUND", 2,
	       CLAMD_REQ_STREAM, CLAMD_REPLY_FOUND,
	       "Heuristics.Limits.Exceeded.MaxFileSize");
	/* ExtendedDetectionInfo: the name keeps its hash and size */
	EXPECT("stream: Eicar(44d88612fea8a8f36de82e1278abb02f:68) FOUND", 0,
	       CLAMD_REQ_STREAM, CLAMD_REPLY_FOUND,
	       "Eicar(44d88612fea8a8f36de82e1278abb02f:68)");
	/* a name that ends in OK or ERROR is still a name */
	EXPECT("stream: Evil.OK FOUND", 0, CLAMD_REQ_STREAM, CLAMD_REPLY_FOUND, "Evil.OK");
	/* no name: not an answer */
	EXPECT("stream: FOUND", 0, CLAMD_REQ_STREAM, CLAMD_REPLY_UNEXPECTED, "stream: FOUND");
}

static void test_errors(void **state)
{
	(void)state;
	EXPECT("INSTREAM size limit exceeded. ERROR", 0, CLAMD_REQ_STREAM,
	       CLAMD_REPLY_SIZE_LIMIT, "INSTREAM size limit exceeded.");
	EXPECT("4: INSTREAM size limit exceeded. ERROR", 4, CLAMD_REQ_STREAM,
	       CLAMD_REPLY_SIZE_LIMIT, "INSTREAM size limit exceeded.");
	EXPECT("fd[7]: Not a regular file ERROR", 0, CLAMD_REQ_FD,
	       CLAMD_REPLY_ERROR, "Not a regular file");
	EXPECT("1: stream: Can't allocate memory ERROR", 1, CLAMD_REQ_STREAM,
	       CLAMD_REPLY_ERROR, "Can't allocate memory");
	EXPECT("FILDES: didn't receive file descriptor. ERROR", 0, CLAMD_REQ_FD,
	       CLAMD_REPLY_ERROR, "FILDES: didn't receive file descriptor.");
	EXPECT("2: Command invalid inside IDSESSION. ERROR", 2, CLAMD_REQ_FD,
	       CLAMD_REPLY_ERROR, "Command invalid inside IDSESSION.");
}

static void test_unexpected(void **state)
{
	static const char nul[] = "stream: OK\0stream: OK";
	struct clamd_reply r;

	(void)state;
	EXPECT("", 0, CLAMD_REQ_STREAM, CLAMD_REPLY_UNEXPECTED, "");
	EXPECT("OK", 0, CLAMD_REQ_STREAM, CLAMD_REPLY_UNEXPECTED, "OK");
	EXPECT("stream: OK ", 0, CLAMD_REQ_STREAM, CLAMD_REPLY_UNEXPECTED, "stream: OK ");
	EXPECT("stream: ok", 0, CLAMD_REQ_STREAM, CLAMD_REPLY_UNEXPECTED, "stream: ok");
	EXPECT("fd[]: OK", 0, CLAMD_REQ_FD, CLAMD_REPLY_UNEXPECTED, "fd[]: OK");
	/* the reply of another kind of request */
	EXPECT("stream: OK", 0, CLAMD_REQ_FD, CLAMD_REPLY_UNEXPECTED, "stream: OK");
	EXPECT("fd[3]: OK", 0, CLAMD_REQ_STREAM, CLAMD_REPLY_UNEXPECTED, "fd[3]: OK");
	/* the answer to another request of the session */
	EXPECT("2: stream: OK", 3, CLAMD_REQ_STREAM, CLAMD_REPLY_UNEXPECTED, "2: stream: OK");
	EXPECT("stream: OK", 3, CLAMD_REQ_STREAM, CLAMD_REPLY_UNEXPECTED, "stream: OK");
	EXPECT("3 stream: OK", 3, CLAMD_REQ_STREAM, CLAMD_REPLY_UNEXPECTED, "3 stream: OK");
	EXPECT("99999999999999999999: stream: OK", 3, CLAMD_REQ_STREAM,
	       CLAMD_REPLY_UNEXPECTED, "99999999999999999999: stream: OK");
	/* what clamd says when a session idled too long, and to old clients */
	EXPECT("COMMAND READ TIMED OUT", 0, CLAMD_REQ_STREAM, CLAMD_REPLY_UNEXPECTED,
	       "COMMAND READ TIMED OUT");
	EXPECT("UNKNOWN COMMAND", 0, CLAMD_REQ_FD, CLAMD_REPLY_UNEXPECTED, "UNKNOWN COMMAND");
	EXPECT("PONG", 0, CLAMD_REQ_STREAM, CLAMD_REPLY_UNEXPECTED, "PONG");
	clamd_parse_reply(nul, sizeof(nul) - 1, 0, CLAMD_REQ_STREAM, &r);
	assert_int_equal(r.kind, CLAMD_REPLY_UNEXPECTED);
}

static void test_ping(void **state)
{
	(void)state;
	EXPECT("PONG", 0, CLAMD_REQ_PING, CLAMD_REPLY_PONG, "PONG");
	EXPECT("1: PONG", 1, CLAMD_REQ_PING, CLAMD_REPLY_PONG, "PONG");
	EXPECT("PONGS", 0, CLAMD_REQ_PING, CLAMD_REPLY_UNEXPECTED, "PONGS");
	EXPECT("RELOADING", 0, CLAMD_REQ_RELOAD, CLAMD_REPLY_RELOADING, "RELOADING");
	EXPECT("RELOADING!", 0, CLAMD_REQ_RELOAD, CLAMD_REPLY_UNEXPECTED, "RELOADING!");
	EXPECT("PONG", 0, CLAMD_REQ_RELOAD, CLAMD_REPLY_UNEXPECTED, "PONG");
}

/* VERSION: the whole string, which changes when clamd loads new signatures */
static void test_version(void **state)
{
	(void)state;
	EXPECT("3: ClamAV 1.4.6/101/Fri Dec  4 18:38:49 2026", 3, CLAMD_REQ_VERSION,
	       CLAMD_REPLY_VERSION, "ClamAV 1.4.6/101/Fri Dec  4 18:38:49 2026");
	EXPECT("ClamAV 1.4.6", 0, CLAMD_REQ_VERSION, CLAMD_REPLY_VERSION, "ClamAV 1.4.6");
	EXPECT("2: ClamAV 1.4.6", 3, CLAMD_REQ_VERSION, CLAMD_REPLY_UNEXPECTED,
	       "2: ClamAV 1.4.6");
	EXPECT("3: PONG", 3, CLAMD_REQ_VERSION, CLAMD_REPLY_UNEXPECTED, "3: PONG");
	EXPECT("ClamAV 1.4.6", 0, CLAMD_REQ_FD, CLAMD_REPLY_UNEXPECTED, "ClamAV 1.4.6");
}

static void test_long_text_cut(void **state)
{
	char buf[CLAMD_REPLY_MAX];
	struct clamd_reply r;
	size_t n;

	(void)state;
	n = (size_t)snprintf(buf, sizeof(buf), "stream: %0900d FOUND", 0);
	clamd_parse_reply(buf, n, 0, CLAMD_REQ_STREAM, &r);
	assert_int_equal(r.kind, CLAMD_REPLY_FOUND);
	assert_int_equal(strlen(r.text), sizeof(r.text) - 1);
}

static void test_chunk_header(void **state)
{
	unsigned char h[4];

	(void)state;
	clamd_chunk_header(0x01020304, h);
	assert_memory_equal(h, "\x01\x02\x03\x04", 4);
	clamd_chunk_header(0, h);
	assert_memory_equal(h, "\0\0\0\0", 4);
	clamd_chunk_header(65536, h);
	assert_memory_equal(h, "\0\x01\0\0", 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ok),
		cmocka_unit_test(test_found),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_unexpected),
		cmocka_unit_test(test_ping),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_long_text_cut),
		cmocka_unit_test(test_chunk_header),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
