// SPDX-License-Identifier: GPL-2.0
/*
 * fanlistener: an allow-all fanotify FAN_OPEN_PERM listener, the
 * benchmark's counterpart of dzworker.
 *
 *   fanlistener MOUNTPOINT COUNTFILE
 *
 * fanotify_init(FAN_CLASS_CONTENT, O_RDONLY), then
 * fanotify_mark(FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN_PERM, AT_FDCWD,
 * MOUNTPOINT); answers every event FAN_ALLOW and closes its fd.  The number
 * of events answered is kept in COUNTFILE (8 bytes, host-endian, updated
 * just before each answer) so the runner can check that every open was seen.
 * Prints "fanlistener: ready" once the mark is in place; runs until killed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[8192] __attribute__((aligned(8)));
	volatile uint64_t *count;
	int fan, cfd;

	if (argc != 3) {
		fprintf(stderr, "usage: fanlistener MOUNTPOINT COUNTFILE\n");
		return 2;
	}
	cfd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (cfd < 0 || ftruncate(cfd, 8)) {
		perror("fanlistener: count file");
		return 1;
	}
	count = mmap(NULL, 8, PROT_READ | PROT_WRITE, MAP_SHARED, cfd, 0);
	if (count == MAP_FAILED) {
		perror("fanlistener: mmap");
		return 1;
	}
	fan = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY);
	if (fan < 0) {
		perror("fanlistener: fanotify_init");
		return 1;
	}
	if (fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN_PERM,
			  AT_FDCWD, argv[1])) {
		perror("fanlistener: fanotify_mark");
		return 1;
	}
	printf("fanlistener: ready\n");
	fflush(stdout);
	for (;;) {
		struct fanotify_event_metadata *m = (void *)buf;
		ssize_t n = read(fan, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "fanlistener: read: %s\n",
				n ? strerror(errno) : "end of file");
			return 1;
		}
		for (; FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n)) {
			struct fanotify_response r = { .fd = m->fd, .response = FAN_ALLOW };

			if (m->vers != FANOTIFY_METADATA_VERSION) {
				fprintf(stderr, "fanlistener: metadata version %d\n", m->vers);
				return 1;
			}
			/*
			 * Counted before the answer: the opener reads the count
			 * as soon as its open returns, which may be before this
			 * loop gets the CPU back after write().
			 */
			*count += 1;
			if (m->mask & FAN_OPEN_PERM &&
			    write(fan, &r, sizeof(r)) != sizeof(r)) {
				perror("fanlistener: response");
				return 1;
			}
			if (m->fd >= 0)
				close(m->fd);
		}
	}
}
