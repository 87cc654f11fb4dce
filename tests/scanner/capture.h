/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For the scanner's unit tests (include after cmocka.h): what the code
 * under test writes to stderr between capture_begin() and capture_end().
 */
#ifndef SCANNER_TEST_CAPTURE_H
#define SCANNER_TEST_CAPTURE_H

#include <stdio.h>
#include <unistd.h>

struct stderr_capture {
	FILE *tmp;
	int saved;
};

static inline void capture_begin(struct stderr_capture *c)
{
	c->tmp = tmpfile();
	c->saved = dup(STDERR_FILENO);
	assert_non_null(c->tmp);
	assert_true(c->saved >= 0);
	fflush(stderr);
	assert_true(dup2(fileno(c->tmp), STDERR_FILENO) >= 0);
}

/* Restores stderr; returns buf holding what was written (cut to size). */
static inline char *capture_end(struct stderr_capture *c, char *buf, size_t size)
{
	size_t n;

	fflush(stderr);
	assert_true(dup2(c->saved, STDERR_FILENO) >= 0);
	close(c->saved);
	rewind(c->tmp);
	n = fread(buf, 1, size - 1, c->tmp);
	buf[n] = 0;
	fclose(c->tmp);
	return buf;
}

#endif
