/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control socket: a local AF_UNIX stream socket on which root asks the
 * running scanner for its state (status) or for a reload that it waits
 * for (reload).  One request per connection: a line "status\n" or
 * "reload\n" of at most CONTROL_REQUEST_MAX bytes; the answer is one JSON
 * object and a newline, then the scanner closes the connection.  Every
 * answer has "ok" (boolean); "error" (string) when ok is false.
 */
#ifndef SCANNER_CONTROL_H
#define SCANNER_CONTROL_H

#include <stddef.h>

#include <json-c/json.h>

#define CONTROL_REQUEST_MAX 64
/* a client's request, and the scanner's sending of its answer */
#define CONTROL_IO_TIMEOUT_MS 2000
/* reload requests waiting at once (more are refused) */
#define CONTROL_RELOAD_WAITERS 16
/* How long status waits for its answer (the scanner serves the socket once its signatures are loaded). */
#define CONTROL_STATUS_TIMEOUT_S 10
/* the client's limit on an answer */
#define CONTROL_ANSWER_MAX (16U << 20)

/* The exit codes of `dazuko-clamscan status|reload`. */
enum control_exit {
	CONTROL_EXIT_OK = 0,
	CONTROL_EXIT_FAILED = 1,	/* the scanner answered: it failed or refused */
	CONTROL_EXIT_USAGE = 2,		/* bad options, no socket configured */
	CONTROL_EXIT_CONNECT = 3,	/* not running, or the socket is not usable */
	CONTROL_EXIT_PROTOCOL = 4,	/* no answer, or one that is no JSON object */
};

struct control_ops {
	/* The scanner's state (status.h); NULL if out of memory.  Control thread. */
	json_object *(*status)(void *ctx);
	/*
	 * A reload asked on fd: the callee owns fd and answers it with
	 * control_answer() when the reload is done.  Control thread.
	 */
	void (*reload)(void *ctx, int fd);
};

struct control;

/*
 * Bind the socket at path (the directory must exist, be ours or root's and
 * writable by nobody else; a stale socket is replaced, a live one is an
 * error).  is_default: path is the default one, and a missing
 * directory (the scanner run outside its unit) means no socket, with a
 * notice, rather than an error.  NULL with err[0] == 0: no socket.
 */
struct control *control_open(const char *path, int is_default,
			     const struct control_ops *ops, void *ctx,
			     char *err, size_t errlen);
/* Serve it from a thread of its own. -1 with a message. */
int control_start(struct control *c, char *err, size_t errlen);
/* Stop the thread, close and remove the socket. NULL: nothing. */
void control_close(struct control *c);

/*
 * Send o (consumed) as the answer on fd and close fd.  nonblock: from the
 * control loop, which must not wait on a client.
 */
void control_answer(int fd, json_object *o, int nonblock);
/* {"ok": false, "error": msg}, the same way. */
void control_answer_error(int fd, const char *msg, int nonblock);

#endif
