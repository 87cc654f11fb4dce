/* SPDX-License-Identifier: GPL-2.0 */
/* The scanner's one clock for deadlines and durations: monotonic. */
#ifndef SCANNER_CLOCK_H
#define SCANNER_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in microseconds. */
uint64_t scanner_now_us(void);

#endif
