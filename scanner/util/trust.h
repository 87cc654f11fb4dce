/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which files the scanner may take settings or programs from: those only
 * root or its own user can change (sshd's StrictModes).
 */
#ifndef DAZUKO_CLAMSCAN_TRUST_H
#define DAZUKO_CLAMSCAN_TRUST_H

#include <stddef.h>

/*
 * Is @path, and the directory its resolved form sits in, owned by root or
 * by the scanner's effective user, and writable by neither group nor
 * others?  A world-writable directory fails even when sticky: anyone may
 * put a file in it.  0, or -1 with @err naming @what, @path and why.
 */
int trust_path(const char *what, const char *path, char *err, size_t errlen);

#endif
