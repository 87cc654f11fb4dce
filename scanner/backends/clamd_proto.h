/* SPDX-License-Identifier: GPL-2.0 */
/*
 * clamd's protocol, the pure part: what a reply means.  Commands are
 * clamd's null-terminated ones ("zFILDES\0", "zINSTREAM\0"), sent inside
 * an IDSESSION, where clamd numbers each reply with its request ("3: ").
 * See clamd(8) and ClamAV's clamd/session.c, clamd/scanner.c.
 */
#ifndef SCANNER_CLAMD_PROTO_H
#define SCANNER_CLAMD_PROTO_H

#include <stddef.h>
#include <stdint.h>

/* Longer replies are not clamd's (clamdscan allows 1024 bytes too). */
#define CLAMD_REPLY_MAX 1024

/* What a reply names: "stream: ..." (INSTREAM), "fd[N]: ..." (FILDES). */
enum clamd_request {
	CLAMD_REQ_STREAM, CLAMD_REQ_FD, CLAMD_REQ_PING, CLAMD_REQ_VERSION,
	CLAMD_REQ_RELOAD,	/* outside a session: clamd refuses it inside one */
};

enum clamd_reply_kind {
	CLAMD_REPLY_OK,		/* "...: OK": clean */
	CLAMD_REPLY_FOUND,	/* "...: NAME FOUND": text is NAME */
	CLAMD_REPLY_ERROR,	/* "... ERROR": text is clamd's reason */
	CLAMD_REPLY_SIZE_LIMIT,	/* "INSTREAM size limit exceeded. ERROR" */
	CLAMD_REPLY_PONG,	/* "PONG", to PING */
	CLAMD_REPLY_VERSION,	/* "ClamAV 1.0.7/27474/Thu Dec  3 ...", to VERSION */
	CLAMD_REPLY_RELOADING,	/* "RELOADING", to RELOAD */
	CLAMD_REPLY_UNEXPECTED,	/* anything else: text is the reply */
};

struct clamd_reply {
	enum clamd_reply_kind kind;
	char text[256];
};

/*
 * Parse one reply, buf[0..len) without its terminating NUL, to request
 * number id of a session (0: outside a session, no number expected) of
 * kind req.  Never fails: what it does not know is CLAMD_REPLY_UNEXPECTED,
 * which is never clean.
 */
void clamd_parse_reply(const char *buf, size_t len, unsigned int id,
		       enum clamd_request req, struct clamd_reply *r);

/* An INSTREAM chunk's header: its length, 4 bytes in network order. */
void clamd_chunk_header(uint32_t len, unsigned char out[4]);

const char *clamd_reply_kind_name(enum clamd_reply_kind k);

#endif
