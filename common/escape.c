// SPDX-License-Identifier: GPL-2.0
/*
 * The one escaping rule for text users control (file names, command
 * names, cgroup names) on its way to a log line or a terminal: see
 * <dzcommon/escape.h>.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <dzcommon/escape.h>

/* The length of the valid UTF-8 sequence at s that is no C1 control, or 0. */
static size_t utf8_printable(const unsigned char *s)
{
	uint32_t cp, min;
	size_t n;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2; cp = s[0] & 0x1f; min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3; cp = s[0] & 0x0f; min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4; cp = s[0] & 0x07; min = 0x10000;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
	    cp <= 0x9f)
		return 0;
	return n;
}

/*
 * Characters that reorder or break the text around them where it is shown
 * (Trojan Source, CVE-2021-42574): bidi embeddings, overrides, isolates
 * and marks, and the Unicode line and paragraph separators.
 */
static int reorders_text(uint32_t cp)
{
	return cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
	       cp == 0x2028 || cp == 0x2029;
}

/* The code point of the valid n-byte UTF-8 sequence at s. */
static uint32_t utf8_decode(const unsigned char *s, size_t n)
{
	uint32_t cp = n == 2 ? s[0] & 0x1f : n == 3 ? s[0] & 0x0f : s[0] & 0x07;

	for (size_t i = 1; i < n; i++)
		cp = cp << 6 | (s[i] & 0x3f);
	return cp;
}

size_t dz_escape(char *dst, size_t size, const char *src, int quote_mark)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t len = 0;

	if (!size)
		return 0;
	while (*s) {
		char esc[DZ_ESCAPE_MAX_GROWTH + 3];
		const char *out = esc;
		size_t in = 1, n;

		switch (*s) {
		case '\\': strcpy(esc, "\\\\"); break;
		case '\n': strcpy(esc, "\\n"); break;
		case '\t': strcpy(esc, "\\t"); break;
		case '\r': strcpy(esc, "\\r"); break;
		case '"':
			if (quote_mark)
				strcpy(esc, "\\\"");
			else
				out = (const char *)s;
			break;
		default:
			if (*s >= 0x20 && *s < 0x7f)
				out = (const char *)s;
			else if (*s >= 0x80 && (in = utf8_printable(s)) &&
				 !reorders_text(utf8_decode(s, in)))
				out = (const char *)s;
			else if (in > 1)
				snprintf(esc, sizeof(esc), "\\u%04x",
					 (unsigned int)utf8_decode(s, in));
			else
				snprintf(esc, sizeof(esc), "\\x%02x", *s), in = 1;
		}
		n = out == esc ? strlen(esc) : in;
		if (len + n >= size)
			break;
		memcpy(dst + len, out, n);
		len += n;
		s += in;
	}
	dst[len] = 0;
	return len;
}
