// SPDX-License-Identifier: GPL-2.0
/* The open-file limit and the room it leaves for events (fdlimit.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "util/fdlimit.h"

long fdlimit_raise(char *err, size_t errlen)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl)) {
		snprintf(err, errlen, "getrlimit(RLIMIT_NOFILE): %s", strerror(errno));
		return -1;
	}
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl)) {
			snprintf(err, errlen, "setrlimit(RLIMIT_NOFILE, %llu): %s",
				 (unsigned long long)rl.rlim_max, strerror(errno));
			return -1;
		}
	}
	/* RLIM_INFINITY cannot be the open-file limit; keep the type's range. */
	return rl.rlim_cur > (rlim_t)1 << 30 ? 1L << 30 : (long)rl.rlim_cur;
}

static long fdlimit_reserve(unsigned int workers)
{
	return FDLIMIT_RESERVE + (long)workers * FDLIMIT_RESERVE_PER_WORKER;
}

long fdlimit_needed(unsigned int workers)
{
	return fdlimit_reserve(workers) + (workers ? workers : 1);
}

unsigned int fdlimit_events(long soft, unsigned int workers)
{
	long room = soft - fdlimit_reserve(workers);

	if (soft < fdlimit_needed(workers))
		return 0;
	return room > FDLIMIT_EVENTS_MAX ? FDLIMIT_EVENTS_MAX : (unsigned int)room;
}
