// SPDX-License-Identifier: GPL-2.0
/*
 * dzworker: an allow-all dazukofs group worker for the benchmark.
 *
 *   dzworker GROUP_ID THREADS
 *
 * Each thread opens /dev/dazukofs.GROUP_ID (one worker of the group each),
 * then loops: read one event record, parse it with the module's own
 * dazukofs_proto_parse_event(), close the event's fd, answer "id=N r=0".
 * Prints "dzworker: ready" once every thread holds the device open; runs
 * until killed (SIGTERM).  Any protocol error ends the process with
 * status 1, so the runner notices a crashed or failing worker.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "protocol.h"
#include <uapi/linux/dazukofs.h>

static void *work(void *arg)
{
	int dev = (int)(long)arg;
	char rec[DAZUKOFS_EVENT_MAX + 1], ans[DAZUKOFS_RESPONSE_MAX];

	for (;;) {
		struct dazukofs_proto_event ev;
		ssize_t n = read(dev, rec, sizeof(rec) - 1);
		int len;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "dzworker: read: %s\n",
				n ? strerror(errno) : "end of file");
			exit(1);
		}
		if (dazukofs_proto_parse_event(rec, (size_t)n, &ev)) {
			fprintf(stderr, "dzworker: bad record '%.*s'\n", (int)n, rec);
			exit(1);
		}
		len = dazukofs_proto_format_response(ans, sizeof(ans), ev.id,
						     DAZUKOFS_ALLOW, 0);
		if (len < 0 || write(dev, ans, (size_t)len) != len) {
			fprintf(stderr, "dzworker: answer %lu: %s\n", ev.id,
				strerror(errno));
			exit(1);
		}
		/* After the answer, as fanlistener: the opener need not wait for it. */
		close(ev.fd);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	char path[64];
	int i, n;

	if (argc != 3 || (n = atoi(argv[2])) < 1 || n > 64) {
		fprintf(stderr, "usage: dzworker GROUP_ID THREADS(1-64)\n");
		return 2;
	}
	snprintf(path, sizeof(path), DAZUKOFS_DEV_PREFIX "%s", argv[1]);
	for (i = 0; i < n; i++) {
		int dev = open(path, O_RDWR | O_CLOEXEC);

		if (dev < 0) {
			fprintf(stderr, "dzworker: open %s: %s\n", path, strerror(errno));
			return 1;
		}
		if (pthread_create(&t[i], NULL, work, (void *)(long)dev)) {
			fprintf(stderr, "dzworker: pthread_create failed\n");
			return 1;
		}
	}
	printf("dzworker: ready\n");
	fflush(stdout);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
