// SPDX-License-Identifier: GPL-2.0
/* The scanner's clock (clock.h). */
#include <time.h>

#include "util/clock.h"

uint64_t scanner_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}
