/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text from users (paths, command names, cgroup names) is escaped before
 * it is logged or printed, so that one message is one line and no bytes
 * reach a terminal as controls: backslash becomes \\, newline, tab and
 * CR \n \t \r, other control bytes, DEL, C1 controls and bytes that are
 * not UTF-8 \xNN, and the characters that reorder or break the text
 * where it is shown (bidi controls, U+2028 and U+2029) \uNNNN.
 */
#ifndef DZCOMMON_ESCAPE_H
#define DZCOMMON_ESCAPE_H

#include <stddef.h>

/* The most dz_escape() makes of one byte: \xNN. */
#define DZ_ESCAPE_MAX_GROWTH 4

/*
 * src escaped into dst, and with quote_mark also '"' as \" (inside a
 * quoted value).  dst is always NUL-terminated (unless size is 0) and
 * never ends inside an escape; returns the length written.  The result
 * is valid UTF-8, and the bytes can be had back by undoing the escapes.
 */
size_t dz_escape(char *dst, size_t size, const char *src, int quote_mark);

#endif
