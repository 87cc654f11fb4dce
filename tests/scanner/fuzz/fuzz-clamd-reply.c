// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: clamd_parse_reply() on any bytes a clamd (or whatever
 * answers on its port) may send.  The first two bytes choose the request
 * number and kind.  Checked beyond ASan and UBSan: the text is always a
 * terminated string, and a reply parsed as clean really ends in "OK".
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/clamd_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct clamd_reply r;
	unsigned int id;
	enum clamd_request req;
	char *buf;

	if (size < 2)
		return 0;
	id = data[0] % 4;
	req = (enum clamd_request)(data[1] % 4);
	data += 2;
	size -= 2;
	/* An exact copy, so that ASan sees a read past the end. */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	memset(&r, 0xa5, sizeof(r));
	clamd_parse_reply(buf, size, id, req, &r);
	if (memchr(r.text, '\0', sizeof(r.text)) == NULL)
		abort();
	if (r.kind == CLAMD_REPLY_OK &&
	    (size < 2 || memcmp(buf + size - 2, "OK", 2)))
		abort();
	if ((unsigned int)r.kind > CLAMD_REPLY_UNEXPECTED)
		abort();
	free(buf);
	return 0;
}
