/* SPDX-License-Identifier: GPL-2.0 */
/* dazuko-clamscan status|reload (app/control_client.c). */
#ifndef SCANNER_CONTROL_CLIENT_H
#define SCANNER_CONTROL_CLIENT_H

/*
 * argv[0] is "status" or "reload": ask the running scanner over its
 * control socket; the exit status (dazuko-clamscan(8)).
 */
int control_client_main(int argc, char **argv);

#endif
