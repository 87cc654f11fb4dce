/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --import-clamd-conf: a clamd.conf's on-access, engine, database and
 * logging options as dazuko-clamscan settings.
 */
#ifndef SCANNER_CLAMDCONF_H
#define SCANNER_CLAMDCONF_H

#include <stdio.h>

/*
 * Read clamd.conf at path; print the equivalent settings (clamscan.conf
 * lines) on out and, one line each, "FILE:LINE: Option: why" on notes
 * for what is not mapped.  Each value is checked as the scanner would
 * read it.  0, or -1 if the file cannot be read (message on notes).
 */
int clamdconf_import(const char *path, FILE *out, FILE *notes);
/* The same from an open stream, path naming it in notes (the fuzzer's). */
void clamdconf_import_stream(FILE *f, const char *path, FILE *out, FILE *notes);

#endif
