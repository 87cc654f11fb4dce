// SPDX-License-Identifier: GPL-2.0
/* What every backend shares (backend.h). */
#include <string.h>

#include "backends/backend.h"

#define SIG_EXCEEDS_MAX_PREFIX "Heuristics.Limits.Exceeded."
#define SIG_ENCRYPTED_PREFIX "Heuristics.Encrypted."

enum scan_result backend_classify_detection(const char *name)
{
	if (!strncmp(name, SIG_EXCEEDS_MAX_PREFIX, strlen(SIG_EXCEEDS_MAX_PREFIX)))
		return SCAN_EXCEEDS_MAX;
	if (!strncmp(name, SIG_ENCRYPTED_PREFIX, strlen(SIG_ENCRYPTED_PREFIX)))
		return SCAN_ENCRYPTED;
	return SCAN_INFECTED;
}
