/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Turn the calling process (a test's child, running as root) into an
 * unprivileged one, for the tests of who may open the group and ignore
 * devices (events-test, tracking).
 */
#ifndef BECOME_NOBODY_H
#define BECOME_NOBODY_H

#include <grp.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>

#define NOBODY_ID 65534

/*
 * Become nobody (uid and gid 65534, no supplementary groups) with
 * CAP_SYS_ADMIN alone, the capability set that systemd's
 * AmbientCapabilities=CAP_SYS_ADMIN leaves a non-root service with
 * (@sys_admin), or with no capability.  Return: 0, or -1 with errno set.
 */
static inline int become_nobody(bool sys_admin)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct caps[2] = { { 0 } };

	if (prctl(PR_SET_KEEPCAPS, sys_admin ? 1 : 0, 0, 0, 0) ||
	    setgroups(0, NULL) ||
	    setresgid(NOBODY_ID, NOBODY_ID, NOBODY_ID) ||
	    setresuid(NOBODY_ID, NOBODY_ID, NOBODY_ID))
		return -1;
	caps[0].permitted = sys_admin ? 1U << CAP_SYS_ADMIN : 0;
	caps[0].effective = caps[0].permitted;
	return syscall(SYS_capset, &hdr, caps) ? -1 : 0;
}

#endif
