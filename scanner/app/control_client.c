// SPDX-License-Identifier: GPL-2.0
/*
 * dazuko-clamscan status|reload: the control socket's client, a program
 * of its own inside the scanner's binary; it needs the socket's path
 * (config) and the status printer, nothing of the scanning core.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <json-c/json.h>

#include "app/control_client.h"
#include "config/config.h"
#include "control/control.h"
#include "control/status.h"

static void client_usage(FILE *out)
{
	fprintf(out,
"Usage: dazuko-clamscan status [--json] [-c FILE] [--socket PATH]\n"
"       dazuko-clamscan reload [-c FILE] [--socket PATH]\n"
"Ask the running scanner, over its control socket, for its state (status)\n"
"or to reload its signatures and wait until it has (reload).\n"
"\n"
"  -j, --json         status: print the state as JSON\n"
"  -s, --socket PATH  the control socket (default: control_socket of the\n"
"                     config file, " CONTROL_DEFAULT_SOCKET ")\n"
"  -c, --config FILE  the config file that names the socket\n"
"                     (default " CONFIG_DEFAULT_PATH ")\n"
"  -h, --help         this text\n"
"\n"
"Exit status: 0 done; 1 the scanner answered that it failed or refused\n"
"(a reload that failed: its error); 2 bad usage; 3 cannot connect (not\n"
"running?); 4 protocol error.  See dazuko-clamscan(8).\n");
}

/* The socket to use: --socket, else the config file's control_socket. */
static int client_socket(const char *given, const char *conf, int conf_given,
			 char *out, size_t outlen)
{
	struct config cfg;
	char err[CONFIG_ERR_MAX];
	int rc = 0;

	if (given) {
		if (given[0] != '/' || strlen(given) >= outlen) {
			fprintf(stderr, "dazuko-clamscan: --socket '%s': not an absolute path of at most %zu bytes\n",
				given, outlen - 1);
			return -1;
		}
		snprintf(out, outlen, "%s", given);
		return 0;
	}
	config_init(&cfg);
	if (config_load_file(&cfg, conf, conf_given, err, sizeof(err))) {
		fprintf(stderr, "dazuko-clamscan: %s\n", err);
		rc = -1;
	} else if (!cfg.control_socket) {
		fprintf(stderr, "dazuko-clamscan: control_socket is off in %s; give --socket PATH\n",
			conf);
		rc = -1;
	} else {
		snprintf(out, outlen, "%s", cfg.control_socket);
	}
	config_free(&cfg);
	return rc;
}

/* The answer: a JSON object with "ok"; NULL (and a message) if not. */
static json_object *client_read_answer(int fd, const char *path)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	json_object *o, *ok;
	ssize_t n;

	if (!buf) {
		fprintf(stderr, "dazuko-clamscan: out of memory\n");
		return NULL;
	}
	for (;;) {
		if (len + 1 == cap) {
			char *nb;

			if (cap >= CONTROL_ANSWER_MAX) {
				fprintf(stderr, "dazuko-clamscan: %s: the answer is longer than %u bytes\n",
					path, CONTROL_ANSWER_MAX);
				free(buf);
				return NULL;
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				fprintf(stderr, "dazuko-clamscan: out of memory\n");
				free(buf);
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		/* the scanner closed with our request unread: the answer came first */
		if (n < 0 && errno == ECONNRESET && len)
			break;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			fprintf(stderr, "dazuko-clamscan: %s: no answer within %d s (is the scanner still loading its signatures?)\n",
				path, CONTROL_STATUS_TIMEOUT_S);
			free(buf);
			return NULL;
		}
		if (n < 0) {
			fprintf(stderr, "dazuko-clamscan: %s: reading the answer: %s\n", path,
				strerror(errno));
			free(buf);
			return NULL;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	buf[len] = 0;
	if (!len) {
		fprintf(stderr, "dazuko-clamscan: %s: the scanner closed the connection without an answer\n",
			path);
		free(buf);
		return NULL;
	}
	o = json_tokener_parse(buf);
	free(buf);
	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "ok", &ok) ||
	    !json_object_is_type(ok, json_type_boolean)) {
		fprintf(stderr, "dazuko-clamscan: %s: the answer is not a JSON object with \"ok\"\n",
			path);
		json_object_put(o);
		return NULL;
	}
	return o;
}

static const char *get_str(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string) ?
	       json_object_get_string(v) : NULL;
}

/*
 * reload as systemd's ExecReload= without a socket to ask (control_socket
 * off, another config, the socket gone): signal the main process as the
 * unit did before there was a socket, rather than fail the reload.
 * systemd gives its control processes MAINPID.  Return: 1 if signalled.
 */
static int reload_by_signal(const char *why)
{
	const char *env = getenv("MAINPID");
	char *end;
	long pid;

	if (!env || !*env)
		return 0;
	errno = 0;
	pid = strtol(env, &end, 10);
	if (errno || *end || pid <= 1)
		return 0;
	if (kill((pid_t)pid, SIGHUP)) {
		fprintf(stderr, "dazuko-clamscan reload: %s; SIGHUP to MAINPID %ld: %s\n", why,
			pid, strerror(errno));
		return 0;
	}
	fprintf(stderr, "dazuko-clamscan reload: %s; sent SIGHUP to MAINPID %ld instead (the reload is not waited for)\n",
		why, pid);
	return 1;
}

int control_client_main(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "socket", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = argv[0], *sock = NULL, *conf = CONFIG_DEFAULT_PATH, *msg;
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int json = 0, conf_given = 0, c, fd, status = 0;
	char req[CONTROL_REQUEST_MAX];
	json_object *o, *ok;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+js:c:h", longs, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 's':
			sock = optarg;
			break;
		case 'c':
			conf = optarg;
			conf_given = 1;
			break;
		case 'h':
			client_usage(stdout);
			return CONTROL_EXIT_OK;
		default:
			fprintf(stderr, "dazuko-clamscan %s: bad option '%s' or its argument is missing (see --help)\n",
				cmd, argv[optind - 1]);
			return CONTROL_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "dazuko-clamscan %s: unexpected argument '%s' (see --help)\n",
			cmd, argv[optind]);
		return CONTROL_EXIT_USAGE;
	}
	if (json && strcmp(cmd, "status")) {
		fprintf(stderr, "dazuko-clamscan %s: --json is for status\n", cmd);
		return CONTROL_EXIT_USAGE;
	}
	if (client_socket(sock, conf, conf_given, addr.sun_path, sizeof(addr.sun_path))) {
		if (!strcmp(cmd, "reload") && reload_by_signal("no control socket to ask"))
			return CONTROL_EXIT_OK;
		return CONTROL_EXIT_USAGE;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		int err = errno;

		fprintf(stderr, "dazuko-clamscan %s: cannot connect to %s: %s (is the scanner running, with this control_socket?)\n",
			cmd, addr.sun_path, strerror(err));
		if (fd >= 0)
			close(fd);
		if (!strcmp(cmd, "reload") && (err == ENOENT || err == ECONNREFUSED) &&
		    reload_by_signal("the control socket does not answer"))
			return CONTROL_EXIT_OK;
		return CONTROL_EXIT_CONNECT;
	}
	/* status answers at once once the scanner serves; a reload may take minutes */
	if (!strcmp(cmd, "status")) {
		struct timeval tv = { .tv_sec = CONTROL_STATUS_TIMEOUT_S };

		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	snprintf(req, sizeof(req), "%s\n", cmd);
	/* a refusal (not root) may come before the request is read: it says why */
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) != (ssize_t)strlen(req) &&
	    errno != EPIPE && errno != ECONNRESET) {
		fprintf(stderr, "dazuko-clamscan %s: %s: sending the request: %s\n", cmd,
			addr.sun_path, strerror(errno));
		close(fd);
		return CONTROL_EXIT_PROTOCOL;
	}
	o = client_read_answer(fd, addr.sun_path);
	close(fd);
	if (!o)
		return CONTROL_EXIT_PROTOCOL;
	json_object_object_get_ex(o, "ok", &ok);
	if (!json_object_get_boolean(ok)) {
		msg = get_str(o, "error");
		fprintf(stderr, "dazuko-clamscan %s: %s\n", cmd, msg ? msg : "failed (no reason given)");
		status = CONTROL_EXIT_FAILED;
	} else if (json) {
		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							      JSON_C_TO_STRING_NOSLASHESCAPE));
	} else if (!strcmp(cmd, "status")) {
		status_print(stdout, o);
	} else {
		msg = get_str(o, "message");
		printf("%s\n", msg ? msg : "done");
	}
	json_object_put(o);
	return status;
}
