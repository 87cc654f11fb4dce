// SPDX-License-Identifier: GPL-2.0
/* The settings' fingerprint (fingerprint.h). */
#include <stdio.h>

#include "store/fingerprint.h"

int settings_fingerprint(const struct config *cfg, unsigned char out[SHA256_LEN])
{
	char text[512];
	int len;

	/*
	 * Text, field by field: no padding bytes, and a setting added here
	 * changes every fingerprint, as it should.
	 */
	len = snprintf(text, sizeof(text),
		       "backend=%d max_file_size=%llu max_scan_size=%llu max_recursion=%u "
		       "max_files=%u max_scan_time_ms=%u",
		       (int)cfg->backend, (unsigned long long)cfg->limits.max_file_size,
		       (unsigned long long)cfg->limits.max_scan_size, cfg->limits.max_recursion,
		       cfg->limits.max_files, cfg->limits.max_scan_time_ms);
	if (len < 0 || (size_t)len >= sizeof(text))
		return -1;
	return sha256_buffer(text, len, out);
}
