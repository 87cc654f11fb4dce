/* SPDX-License-Identifier: GPL-2.0 */
/* dazuko-clamscan store stats|clear: the verdict store, for the admin. */
#ifndef SCANNER_STORE_COMMAND_H
#define SCANNER_STORE_COMMAND_H

/* argv[0] is "store".  Returns the exit status. */
int store_command_main(int argc, char **argv);

#endif
