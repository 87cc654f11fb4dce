// SPDX-License-Identifier: GPL-2.0
/*
 * Cgroup paths to workloads (util/workload.c): the shapes systemd, the
 * container runtimes and the kubelet make, and names users chose to look
 * like them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/cgroup_names.h"
#include "util/workload.h"

#define ID64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define POD "0b3a6c2e-1d4f-4a5b-9c8d-7e6f5a4b3c2d"
#define POD_ "0b3a6c2e_1d4f_4a5b_9c8d_7e6f5a4b3c2d"

struct shape {
	const char *path;
	const char *unit, *user_unit, *container, *runtime, *pod;
};

static const struct shape shapes[] = {
	{ "/system.slice/backup.service", "backup.service", "", "", NULL, "" },
	{ "/system.slice/run-u42.scope", "run-u42.scope", "", "", NULL, "" },
	{ "/system.slice/system-getty.slice/getty@tty1.service", "getty@tty1.service",
	  "", "", NULL, "" },
	/* a delegated unit's own cgroups name no other unit */
	{ "/system.slice/ci-runner.service/job/x.service", "ci-runner.service", "",
	  "", NULL, "" },
	{ "/user.slice/user-1000.slice/session-3.scope", "session-3.scope", "", "",
	  NULL, "" },
	{ "/user.slice/user-1000.slice/user@1000.service/app.slice/foo.service",
	  "user@1000.service", "foo.service", "", NULL, "" },
	{ "/user.slice/user-1000.slice/user@1000.service/init.scope",
	  "user@1000.service", "init.scope", "", NULL, "" },
	{ "/system.slice/docker-" ID64 ".scope", "docker-" ID64 ".scope", "", ID64,
	  "docker", "" },
	{ "/docker/" ID64, "", "", ID64, "docker", "" },
	{ "/machine.slice/libpod-" ID64 ".scope/container", "libpod-" ID64 ".scope",
	  "", ID64, "podman", "" },
	{ "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID64
	  ".scope", "user@1000.service", "libpod-" ID64 ".scope", ID64, "podman", "" },
	/* conmon is no container */
	{ "/machine.slice/libpod-conmon-" ID64 ".scope", "libpod-conmon-" ID64 ".scope",
	  "", "", NULL, "" },
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" POD_
	  ".slice/cri-containerd-" ID64 ".scope", "cri-containerd-" ID64 ".scope", "",
	  ID64, "containerd", POD },
	{ "/kubepods.slice/kubepods-pod" POD_ ".slice/crio-" ID64 ".scope",
	  "crio-" ID64 ".scope", "", ID64, "cri-o", POD },
	{ "/kubepods/besteffort/pod" POD "/" ID64, "", "", ID64, "kubernetes", POD },
	{ "/", "", "", "", NULL, "" },
	{ "", "", "", "", NULL, "" },
	{ "/init.scope", "init.scope", "", "", NULL, "" },
	/* look-alikes */
	{ "/system.slice/docker-xyz.scope", "docker-xyz.scope", "", "", NULL, "" },
	{ "/system.slice/docker-" ID64 "0.scope", "docker-" ID64 "0.scope", "", "",
	  NULL, "" },
	{ "/system.slice/docker-0123456789AB.scope", "docker-0123456789AB.scope", "",
	  "", NULL, "" },
	{ "/docker/abc", "", "", "", NULL, "" },
	{ "/other/" ID64, "", "", "", NULL, "" },
	{ "/kubepods.slice/kubepods-pod" POD ".slice", "", "", "", NULL, "" },
	{ "/kubepods-podx.slice", "", "", "", NULL, "" },
	{ "/system.slice/a b.service", "", "", "", NULL, "" },
	{ "/system.slice/a\nb.service", "", "", "", NULL, "" },
	{ "/system.slice/.service", "", "", "", NULL, "" },
	{ "/system.slice/x.socket", "", "", "", NULL, "" },
	{ "/system.slice/x.service.d", "", "", "", NULL, "" },
	{ "//system.slice//backup.service//", "backup.service", "", "", NULL, "" },
};

static void known_shapes(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		const struct shape *s = &shapes[i];
		struct workload w;
		int found = workload_parse(s->path, &w);

		if (strcmp(w.unit, s->unit) || strcmp(w.user_unit, s->user_unit) ||
		    strcmp(w.container, s->container) || strcmp(w.pod, s->pod) ||
		    (w.runtime == NULL) != (s->runtime == NULL) ||
		    (w.runtime && strcmp(w.runtime, s->runtime)))
			fail_msg("'%s': unit '%s' user '%s' container '%s' (%s) pod '%s'",
				 s->path, w.unit, w.user_unit, w.container,
				 w.runtime ? w.runtime : "-", w.pod);
		assert_int_equal(found, s->unit[0] || s->container[0] || s->pod[0]);
	}
}

/* Names at and past every bound: nothing overflows, nothing too long is taken. */
static void bounds(void **state)
{
	char path[4 * WORKLOAD_UNIT_MAX], name[2 * WORKLOAD_UNIT_MAX];
	struct workload w;

	(void)state;
	for (size_t n = 1; n < sizeof(name) - 9; n++) {
		memset(name, 'a', n);
		strcpy(name + n, ".service");
		snprintf(path, sizeof(path), "/system.slice/%s", name);
		workload_parse(path, &w);
		if (strlen(name) < WORKLOAD_UNIT_MAX)
			assert_string_equal(w.unit, name);
		else
			assert_string_equal(w.unit, "");
	}
	/* a path of nothing but slashes, and one long component */
	memset(path, '/', sizeof(path) - 1);
	path[sizeof(path) - 1] = '\0';
	assert_int_equal(workload_parse(path, &w), 0);
	memset(path, 'x', sizeof(path) - 1);
	assert_int_equal(workload_parse(path, &w), 0);
}

/* exclude_unit's and exclude_cgroup's matches */
static void path_matches(void **state)
{
	(void)state;
	assert_true(workload_path_in_unit("/system.slice/backup.service", "backup.service"));
	assert_true(workload_path_in_unit("/system.slice/backup.service/sub", "backup.service"));
	assert_true(workload_path_in_unit("/a.slice/b.slice/backup.service", "backup.service"));
	assert_true(workload_path_in_unit("/backup.service", "backup.service"));
	/* a user's delegated subtree cannot pass for a system unit */
	assert_false(workload_path_in_unit("/user.slice/user-1000.slice/user@1000.service/"
					   "backup.service", "backup.service"));
	assert_false(workload_path_in_unit("/system.slice/other.service/backup.service",
					   "backup.service"));
	assert_false(workload_path_in_unit("/system.slice/backup.service2", "backup.service"));
	assert_false(workload_path_in_unit("/system.slice/xbackup.service", "backup.service"));
	assert_false(workload_path_in_unit("/", "backup.service"));
	assert_false(workload_path_in_unit("", "backup.service"));

	assert_true(workload_path_under("/ci/runner", "/ci"));
	assert_true(workload_path_under("/ci", "/ci"));
	assert_true(workload_path_under("/ci", "/ci/"));
	assert_false(workload_path_under("/cix", "/ci"));
	assert_false(workload_path_under("/c", "/ci"));
	assert_true(workload_path_under("/anything", "/"));
}

/* /proc/PID/cgroup: the cgroup v2 line, whatever the v1 lines around it. */
static void proc_cgroup_text(void **state)
{
	char path[32];

	(void)state;
	assert_int_equal(cgroup_names_parse_proc("12:pids:/x\n0::/system.slice/a.service\n",
						 path, sizeof(path)), 0);
	assert_string_equal(path, "/system.slice/a.service");
	assert_int_equal(cgroup_names_parse_proc("0::/\n", path, sizeof(path)), 0);
	assert_string_equal(path, "/");
	assert_int_equal(cgroup_names_parse_proc("1:name=systemd:/\n", path, sizeof(path)), -1);
	assert_int_equal(cgroup_names_parse_proc("", path, sizeof(path)), -1);
	assert_int_equal(cgroup_names_parse_proc("0::relative\n", path, sizeof(path)), -1);
	assert_int_equal(cgroup_names_parse_proc("0::/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
						 path, sizeof(path)), -1);
	assert_int_equal(cgroup_names_parse_proc("10::/x\n", path, sizeof(path)), -1);
}

/* This process on the host's own cgroup2 filesystem, found twice (cached). */
static void lookup_self(void **state)
{
	struct cgroup_names *cn = cgroup_names_new();
	char path[4096], again[4096];
	struct workload w;

	(void)state;
	assert_non_null(cn);
	if (cgroup_names_lookup(cn, 0, getpid(), path, sizeof(path), &w)) {
		cgroup_names_free(cn);
		skip();	/* no cgroup2 filesystem here: the VM suites have one */
	}
	assert_int_equal(path[0], '/');
	assert_int_equal(cgroup_names_lookup(cn, 0, getpid(), again, sizeof(again), &w), 0);
	assert_string_equal(path, again);
	/* an id of no cgroup, with a pid that is not its: unknown */
	assert_int_equal(cgroup_names_lookup(cn, UINT64_MAX, getpid(), again, sizeof(again),
					     &w), -1);
	assert_string_equal(again, "");
	assert_int_equal(cgroup_names_lookup(cn, UINT64_MAX, 0, again, sizeof(again), &w), -1);
	cgroup_names_free(cn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(known_shapes),
		cmocka_unit_test(bounds),
		cmocka_unit_test(proc_cgroup_text),
		cmocka_unit_test(path_matches),
		cmocka_unit_test(lookup_self),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
