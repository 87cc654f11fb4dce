// SPDX-License-Identifier: GPL-2.0
/*
 * fs-restrict: a dazukofs mount never grants what its lower refuses.
 *
 * Run as root in the VM with the module loaded: fs-restrict WORKDIR
 * Each test mounts its own tmpfs lower under WORKDIR and a dazukofs over
 * it at a second directory, and unmounts both at the end:
 *   - append-only and immutable set directly on the lower, after the
 *     dazukofs inode was cached, hold through the mount at once;
 *   - nosuid, nodev, noexec of the lower mount hold through the mount,
 *     for setuid bits and file capabilities, device nodes, execve and
 *     PROT_EXEC mappings (each with a control over a lower without the
 *     restriction, so that the test can tell the check works);
 *   - over a nosuid lower, whose set-id bits and file capabilities the
 *     dazukofs inode hides, truncate, chown and write by an unprivileged
 *     user still drop them from the lower file, as on the lower itself;
 *   - nosuid, nodev and noexec set on (or cleared from) the lower mount
 *     by a remount after the dazukofs mount was made hold at once;
 *   - a lower owned by a user namespace grants no set-id bits or file
 *     capabilities through the mount;
 *   - an automount point on the lower (debugfs' "tracing") is refused
 *     with EREMOTE instead of reaching a NULL ->d_automount.
 *
 * Internal mode: fs-restrict --whoami prints "euid=N capeff=HEX" (run by
 * the tests as a setuid or file-capability binary).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <sched.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#define NOBODY 65534

static const char *workdir;

struct stack {
	char lower[512];
	char upper[512];
};

static void path_of(char *buf, size_t size, const char *dir, const char *name)
{
	int n = snprintf(buf, size, "%s/%s", dir, name);

	assert_true(n > 0 && (size_t)n < size);
}

/* A tmpfs lower mounted with @flags and a dazukofs over it. */
static void stack_mount(struct stack *s, const char *tag, unsigned long flags)
{
	char name[64];

	snprintf(name, sizeof(name), "%s-lower", tag);
	path_of(s->lower, sizeof(s->lower), workdir, name);
	snprintf(name, sizeof(name), "%s-upper", tag);
	path_of(s->upper, sizeof(s->upper), workdir, name);
	assert_true(mkdir(s->lower, 0755) == 0 || errno == EEXIST);
	assert_true(mkdir(s->upper, 0755) == 0 || errno == EEXIST);
	assert_int_equal(mount("fs-restrict", s->lower, "tmpfs", flags,
			       "mode=0755,size=64m"), 0);
	assert_int_equal(mount(s->lower, s->upper, "dazukofs", 0, NULL), 0);
}

static void stack_umount(struct stack *s)
{
	assert_int_equal(umount(s->upper), 0);
	assert_int_equal(umount(s->lower), 0);
}

static void write_file(const char *path, const char *data, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, strlen(data)), (ssize_t)strlen(data));
	assert_int_equal(close(fd), 0);
}

static void read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, size - 1);
	assert_true(n >= 0);
	buf[n] = '\0';
	assert_int_equal(close(fd), 0);
}

static void set_lower_flags(const char *path, int flags)
{
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(ioctl(fd, FS_IOC_SETFLAGS, &flags), 0);
	assert_int_equal(close(fd), 0);
}

/* Make the dazukofs inode exist, with the flags the lower has now. */
static void cache_inode(const char *path)
{
	struct stat st;
	char buf[64];

	assert_int_equal(stat(path, &st), 0);
	read_file(path, buf, sizeof(buf));
}

static void copy_self(const char *to, mode_t mode)
{
	int in = open("/proc/self/exe", O_RDONLY);
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0700);
	char buf[65536];
	ssize_t n;

	assert_true(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, n), n);
	assert_int_equal(n, 0);
	assert_int_equal(close(in), 0);
	assert_int_equal(close(out), 0);
	assert_int_equal(chown(to, 0, 0), 0);
	/* after chown, which clears the setuid bit */
	assert_int_equal(chmod(to, mode), 0);
}

/*
 * Run @path --whoami as nobody.  Return: its exit status (0 when it ran),
 * 126 + errno info in *exec_errno if execve failed; *euid and *capeff from
 * its output.
 */
static int run_as_nobody(const char *path, unsigned int *euid,
			 unsigned long long *capeff, int *exec_errno)
{
	int out[2], err[2];
	char buf[128] = "";
	ssize_t n;
	pid_t pid;
	int status;

	assert_int_equal(pipe(out), 0);
	assert_int_equal(pipe2(err, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int e;

		dup2(out[1], STDOUT_FILENO);
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(125);
		execl(path, path, "--whoami", (char *)NULL);
		e = errno;
		if (write(err[1], &e, sizeof(e)) != sizeof(e))
			_exit(124);
		_exit(126);
	}
	close(out[1]);
	close(err[1]);
	*exec_errno = 0;
	if (read(err[0], exec_errno, sizeof(*exec_errno)) != sizeof(*exec_errno))
		*exec_errno = 0;
	n = read(out[0], buf, sizeof(buf) - 1);
	if (n > 0)
		buf[n] = '\0';
	close(out[0]);
	close(err[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 0)
		assert_int_equal(sscanf(buf, "euid=%u capeff=%llx", euid, capeff), 2);
	return WEXITSTATUS(status);
}

static int whoami(void)
{
	char line[256];
	unsigned long long capeff = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &capeff) == 1)
			break;
	fclose(f);
	printf("euid=%u capeff=%llx\n", geteuid(), capeff);
	return 0;
}

/* chattr +a on the lower after the dazukofs inode was cached. */
static void test_append_only_current(void **state)
{
	struct stack s;
	char lower[600], upper[600], buf[64];
	int fd;

	(void)state;
	stack_mount(&s, "append", 0);
	path_of(lower, sizeof(lower), s.lower, "log");
	path_of(upper, sizeof(upper), s.upper, "log");
	write_file(lower, "abc", 0644);
	cache_inode(upper);
	set_lower_flags(lower, FS_APPEND_FL);

	errno = 0;
	assert_int_equal(open(upper, O_WRONLY), -1);
	assert_int_equal(errno, EPERM);
	errno = 0;
	assert_int_equal(open(upper, O_RDWR | O_TRUNC), -1);
	assert_int_equal(errno, EPERM);

	fd = open(upper, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "d", 1), 1);
	/* Nor may the file drop O_APPEND, as on the lower itself. */
	errno = 0;
	assert_int_equal(fcntl(fd, F_SETFL, 0), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(close(fd), 0);
	read_file(lower, buf, sizeof(buf));
	assert_int_equal(strncmp(buf, "abcd", 4), 0);

	set_lower_flags(lower, 0);
	stack_umount(&s);
}

/* chattr +i on the lower after the dazukofs inode was cached. */
static void test_immutable_current(void **state)
{
	struct stack s;
	char lower[600], upper[600], buf[64];

	(void)state;
	stack_mount(&s, "immutable", 0);
	path_of(lower, sizeof(lower), s.lower, "conf");
	path_of(upper, sizeof(upper), s.upper, "conf");
	write_file(lower, "abc", 0644);
	cache_inode(upper);
	set_lower_flags(lower, FS_IMMUTABLE_FL);

	errno = 0;
	assert_int_equal(open(upper, O_WRONLY), -1);
	assert_int_equal(errno, EPERM);
	errno = 0;
	assert_int_equal(truncate(upper, 0), -1);
	assert_int_equal(errno, EPERM);
	errno = 0;
	assert_int_equal(unlink(upper), -1);
	assert_int_equal(errno, EPERM);
	read_file(lower, buf, sizeof(buf));
	assert_string_equal(buf, "abc");

	set_lower_flags(lower, 0);
	stack_umount(&s);
}

/* The setuid bit and file capabilities of a binary, through the mount. */
static void check_suid(unsigned long lower_flags, int expect_privileged)
{
	/* VFS_CAP_REVISION_2, CAP_DAC_OVERRIDE permitted and effective */
	struct vfs_cap_data caps = {
		.magic_etc = VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE,
		.data = { { .permitted = 1u << CAP_DAC_OVERRIDE } },
	};
	struct stack s;
	char lower[600], upper[600];
	unsigned long long capeff;
	unsigned int euid;
	int exec_errno;

	stack_mount(&s, expect_privileged ? "suid" : "nosuid", lower_flags);

	path_of(lower, sizeof(lower), s.lower, "suid");
	path_of(upper, sizeof(upper), s.upper, "suid");
	copy_self(lower, 04755);
	assert_int_equal(run_as_nobody(upper, &euid, &capeff, &exec_errno), 0);
	assert_int_equal(euid, expect_privileged ? 0 : NOBODY);

	path_of(lower, sizeof(lower), s.lower, "fcaps");
	path_of(upper, sizeof(upper), s.upper, "fcaps");
	copy_self(lower, 0755);
	assert_int_equal(setxattr(lower, "security.capability", &caps,
				  XATTR_CAPS_SZ_2, 0), 0);
	assert_int_equal(run_as_nobody(upper, &euid, &capeff, &exec_errno), 0);
	assert_int_equal(euid, NOBODY);
	if (expect_privileged)
		assert_true(capeff & (1ull << CAP_DAC_OVERRIDE));
	else
		assert_int_equal(capeff, 0);

	stack_umount(&s);
}

static void test_suid_control(void **state)
{
	(void)state;
	check_suid(0, 1);
}

static void test_nosuid(void **state)
{
	(void)state;
	check_suid(MS_NOSUID, 0);
}

enum setid_op { SETID_TRUNCATE, SETID_FTRUNCATE, SETID_OTRUNC, SETID_CHOWN,
		SETID_WRITE, SETID_CHMOD };

/*
 * Do @op on @path as the user and group @uid (root keeps its
 * capabilities).  Return: 0, or the errno it failed with.
 */
static int setid_op_as(uid_t uid, const char *path, enum setid_op op)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		int fd, err = 0;

		if (setgroups(0, NULL) || setgid(uid) || setuid(uid))
			_exit(125);
		switch (op) {
		case SETID_TRUNCATE:
			err = truncate(path, 1) ? errno : 0;
			break;
		case SETID_FTRUNCATE:
			fd = open(path, O_WRONLY);
			if (fd < 0 || ftruncate(fd, 1))
				err = errno;
			break;
		case SETID_OTRUNC:
			fd = open(path, O_WRONLY | O_TRUNC);
			err = fd < 0 ? errno : 0;
			break;
		case SETID_CHOWN:
			err = chown(path, (uid_t)-1, NOBODY) ? errno : 0;
			break;
		case SETID_WRITE:
			fd = open(path, O_WRONLY);
			if (fd < 0 || write(fd, "x", 1) != 1)
				err = errno;
			break;
		case SETID_CHMOD:
			err = chmod(path, 06775) ? errno : 0;
			break;
		}
		_exit(err);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/*
 * A nosuid lower: the dazukofs inode shows neither the set-id bits that
 * make a program privileged nor file capabilities, so the VFS, judging by
 * it, would ask to drop none.  Each operation by an unprivileged user
 * must leave the lower file as the same operation on the lower itself
 * does: set-id bits and capabilities dropped, also from a setuid-root
 * file that anyone may write (which only the drop may change).  And
 * nothing more is dropped or allowed than on the lower: a chmod that sets
 * the bits on purpose keeps them, root's truncate keeps them (CAP_FSETID),
 * a setgid file without group execute keeps its bit for a member of its
 * group, and a chown by a user who may not is refused.
 */
static void test_nosuid_drops_setid(void **state)
{
	static const struct {
		const char *name;
		enum setid_op op;
		uid_t owner, by;
		mode_t mode, after;
		bool caps;
		int err;
	} cases[] = {
		/* name, op, owner, by, mode, after, caps, err */
		{ "truncate", SETID_TRUNCATE, NOBODY, NOBODY, 06775, 0775, false, 0 },
		{ "ftruncate", SETID_FTRUNCATE, NOBODY, NOBODY, 06775, 0775, false, 0 },
		{ "o_trunc", SETID_OTRUNC, NOBODY, NOBODY, 06775, 0775, false, 0 },
		{ "chown", SETID_CHOWN, NOBODY, NOBODY, 06775, 0775, false, 0 },
		{ "write", SETID_WRITE, NOBODY, NOBODY, 06775, 0775, false, 0 },
		{ "root-truncate", SETID_TRUNCATE, 0, NOBODY, 06777, 0777, false, 0 },
		{ "root-o_trunc", SETID_OTRUNC, 0, NOBODY, 06777, 0777, false, 0 },
		{ "caps-truncate", SETID_TRUNCATE, 0, NOBODY, 0777, 0777, true, 0 },
		{ "caps-o_trunc", SETID_OTRUNC, 0, NOBODY, 0777, 0777, true, 0 },
		{ "chmod-keeps", SETID_CHMOD, NOBODY, NOBODY, 0775, 06775, false, 0 },
		{ "by-root-truncate-keeps", SETID_TRUNCATE, NOBODY, 0, 06775, 06775,
		  false, 0 },
		{ "by-root-chown", SETID_CHOWN, NOBODY, 0, 06775, 0775, false, 0 },
		{ "sgid-noexec-truncate-keeps", SETID_TRUNCATE, NOBODY, NOBODY,
		  02664, 02664, false, 0 },
		{ "chown-not-owner", SETID_CHOWN, 0, NOBODY, 06775, 06775, false,
		  EPERM },
	};
	struct vfs_cap_data caps = {
		.magic_etc = VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE,
		.data = { { .permitted = 1u << CAP_DAC_OVERRIDE } },
	};
	char lower[600], upper[600], name[64], buf[64];
	struct stack s;
	mode_t mode[2];
	bool has_caps[2];
	struct stat st;
	size_t i;
	int through;

	(void)state;
	stack_mount(&s, "setid", MS_NOSUID);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (through = 0; through < 2; through++) {
			snprintf(name, sizeof(name), "%s-%d", cases[i].name,
				 through);
			path_of(lower, sizeof(lower), s.lower, name);
			path_of(upper, sizeof(upper), s.upper, name);
			write_file(lower, "data", 0644);
			assert_int_equal(chown(lower, cases[i].owner,
					       cases[i].owner), 0);
			assert_int_equal(chmod(lower, cases[i].mode), 0);
			if (cases[i].caps)
				assert_int_equal(setxattr(lower, "security.capability",
							  &caps, XATTR_CAPS_SZ_2,
							  0), 0);
			assert_int_equal(setid_op_as(cases[i].by,
						     through ? upper : lower,
						     cases[i].op), cases[i].err);
			assert_int_equal(stat(lower, &st), 0);
			mode[through] = st.st_mode & 07777;
			has_caps[through] = getxattr(lower, "security.capability",
						     buf, sizeof(buf)) > 0;
		}
		print_message("%s: on the lower %04o%s, through the mount %04o%s\n",
			      cases[i].name, mode[0], has_caps[0] ? " caps" : "",
			      mode[1], has_caps[1] ? " caps" : "");
		/* the controls: the kernel drops them on the lower */
		assert_int_equal(mode[0], cases[i].after);
		assert_false(has_caps[0]);
		assert_int_equal(mode[1], mode[0]);
		assert_false(has_caps[1]);
	}
	stack_umount(&s);
}

static void check_dev(unsigned long lower_flags, int expect_open)
{
	struct stack s;
	char lower[600], upper[600];
	int fd;

	stack_mount(&s, expect_open ? "dev" : "nodev", lower_flags);
	path_of(lower, sizeof(lower), s.lower, "null");
	path_of(upper, sizeof(upper), s.upper, "null");
	assert_int_equal(mknod(lower, S_IFCHR | 0666, makedev(1, 3)), 0);
	errno = 0;
	fd = open(upper, O_RDWR);
	if (expect_open) {
		assert_true(fd >= 0);
		assert_int_equal(close(fd), 0);
	} else {
		assert_int_equal(fd, -1);
		assert_int_equal(errno, EACCES);
	}
	stack_umount(&s);
}

static void test_dev_control(void **state)
{
	(void)state;
	check_dev(0, 1);
}

static void test_nodev(void **state)
{
	(void)state;
	check_dev(MS_NODEV, 0);
}

static void check_exec(unsigned long lower_flags, int expect_exec)
{
	struct stack s;
	char lower[600], upper[600];
	unsigned long long capeff;
	unsigned int euid;
	int exec_errno, fd, status;
	void *map;

	stack_mount(&s, expect_exec ? "exec" : "noexec", lower_flags);
	path_of(lower, sizeof(lower), s.lower, "prog");
	path_of(upper, sizeof(upper), s.upper, "prog");
	copy_self(lower, 0755);

	status = run_as_nobody(upper, &euid, &capeff, &exec_errno);
	if (expect_exec) {
		assert_int_equal(status, 0);
	} else {
		assert_int_equal(status, 126);
		assert_int_equal(exec_errno, EACCES);
	}

	fd = open(upper, O_RDONLY);
	assert_true(fd >= 0);
	errno = 0;
	map = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (expect_exec) {
		assert_true(map != MAP_FAILED);
		assert_int_equal(munmap(map, 4096), 0);
	} else {
		assert_true(map == MAP_FAILED);
		assert_int_equal(errno, EPERM);
	}
	assert_int_equal(close(fd), 0);
	stack_umount(&s);
}

static void test_exec_control(void **state)
{
	(void)state;
	check_exec(0, 1);
}

static void test_noexec(void **state)
{
	(void)state;
	check_exec(MS_NOEXEC, 0);
}

/* Change the lower mount's own flags (a bind remount), as an admin would. */
static void remount_lower(struct stack *s, unsigned long flags)
{
	assert_int_equal(mount(NULL, s->lower, NULL,
			       MS_REMOUNT | MS_BIND | flags, NULL), 0);
}

/*
 * nosuid, nodev and noexec set on the lower mount after the dazukofs mount
 * was made, and after its inodes were cached, hold through it at once;
 * cleared again, they stop holding.
 */
static void test_lower_remount_followed(void **state)
{
	struct stack s;
	char suid[600], dev[600], prog[600], path[600];
	unsigned long long capeff;
	unsigned int euid;
	int exec_errno, fd;
	void *map;

	(void)state;
	stack_mount(&s, "remount", 0);
	path_of(path, sizeof(path), s.lower, "suid");
	copy_self(path, 04755);
	path_of(suid, sizeof(suid), s.upper, "suid");
	path_of(path, sizeof(path), s.lower, "null");
	assert_int_equal(mknod(path, S_IFCHR | 0666, makedev(1, 3)), 0);
	path_of(dev, sizeof(dev), s.upper, "null");
	path_of(path, sizeof(path), s.lower, "prog");
	copy_self(path, 0755);
	path_of(prog, sizeof(prog), s.upper, "prog");

	/* Before: everything works, and every inode is cached. */
	assert_int_equal(run_as_nobody(suid, &euid, &capeff, &exec_errno), 0);
	assert_int_equal(euid, 0);
	fd = open(dev, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(close(fd), 0);
	assert_int_equal(run_as_nobody(prog, &euid, &capeff, &exec_errno), 0);

	remount_lower(&s, MS_NOSUID);
	assert_int_equal(run_as_nobody(suid, &euid, &capeff, &exec_errno), 0);
	assert_int_equal(euid, NOBODY);

	remount_lower(&s, MS_NOSUID | MS_NODEV);
	errno = 0;
	assert_int_equal(open(dev, O_RDWR), -1);
	assert_int_equal(errno, EACCES);

	remount_lower(&s, MS_NOSUID | MS_NODEV | MS_NOEXEC);
	assert_int_equal(run_as_nobody(prog, &euid, &capeff, &exec_errno), 126);
	assert_int_equal(exec_errno, EACCES);
	fd = open(prog, O_RDONLY);
	assert_true(fd >= 0);
	errno = 0;
	map = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	assert_true(map == MAP_FAILED);
	assert_int_equal(errno, EPERM);
	/* Nor may a mapping made without PROT_EXEC gain it. */
	map = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	assert_true(map != MAP_FAILED);
	errno = 0;
	assert_int_equal(mprotect(map, 4096, PROT_READ | PROT_EXEC), -1);
	assert_int_equal(errno, EACCES);
	assert_int_equal(munmap(map, 4096), 0);
	assert_int_equal(close(fd), 0);

	remount_lower(&s, 0);
	assert_int_equal(run_as_nobody(suid, &euid, &capeff, &exec_errno), 0);
	assert_int_equal(euid, 0);
	fd = open(dev, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(close(fd), 0);
	stack_umount(&s);
}

/*
 * A tmpfs made by the root of a user namespace (its superblock owned by
 * that namespace), as a detached mount: its fd, taken from the child that
 * made it.  The child maps its root to ours, so its files belong to root.
 * Return: the fd, or -1 if the kernel has no user namespaces.
 */
static int userns_tmpfs_fd(void)
{
	int go[2], back[2], fd, pidfd, status, err = 0;
	char map[64], c;
	pid_t pid;

	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(back), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fs, mnt;

		close(go[1]);
		close(back[0]);
		if (unshare(CLONE_NEWUSER))
			err = errno;
		if (write(back[1], &err, sizeof(err)) != sizeof(err) || err ||
		    read(go[0], &c, 1) != 1 || unshare(CLONE_NEWNS))
			_exit(1);
		fs = syscall(SYS_fsopen, "tmpfs", 0);
		if (fs < 0 || syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE,
				      NULL, NULL, 0))
			_exit(2);
		mnt = syscall(SYS_fsmount, fs, 0, 0);
		if (mnt < 0 || write(back[1], &mnt, sizeof(mnt)) != sizeof(mnt) ||
		    read(go[0], &c, 1) != 1)
			_exit(3);
		_exit(0);
	}
	/* Only the child writes back and reads go: a read sees it die. */
	close(go[0]);
	close(back[1]);
	assert_int_equal(read(back[0], &err, sizeof(err)), sizeof(err));
	if (err) {
		assert_int_equal(waitpid(pid, &status, 0), pid);
		close(go[1]);
		close(back[0]);
		/* A kernel without CONFIG_USER_NS (the debug kernel) */
		assert_int_equal(err, EINVAL);
		return -1;
	}
	snprintf(map, sizeof(map), "/proc/%d/uid_map", pid);
	fd = open(map, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "0 0 1", 5), 5);
	assert_int_equal(close(fd), 0);
	snprintf(map, sizeof(map), "/proc/%d/gid_map", pid);
	fd = open(map, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "0 0 1", 5), 5);
	assert_int_equal(close(fd), 0);
	assert_int_equal(write(go[1], "g", 1), 1);
	assert_int_equal(read(back[0], &fd, sizeof(fd)), sizeof(fd));
	pidfd = syscall(SYS_pidfd_open, pid, 0);
	assert_true(pidfd >= 0);
	fd = syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	assert_true(fd >= 0);
	assert_int_equal(write(go[1], "d", 1), 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(pidfd);
	close(go[1]);
	close(back[0]);
	return fd;
}

/*
 * A lower owned by a user namespace grants set-id bits and file
 * capabilities only to that namespace's processes: through the mount,
 * which the initial namespace owns, it grants neither.
 */
static void test_userns_lower_nosuid(void **state)
{
	/* VFS_CAP_REVISION_2, CAP_DAC_OVERRIDE permitted and effective */
	struct vfs_cap_data caps = {
		.magic_etc = VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE,
		.data = { { .permitted = 1u << CAP_DAC_OVERRIDE } },
	};
	char lower[64], upper[512], path[600];
	unsigned long long capeff;
	unsigned int euid;
	int exec_errno, mnt;

	(void)state;
	mnt = userns_tmpfs_fd();
	if (mnt < 0)
		skip();
	snprintf(lower, sizeof(lower), "/proc/self/fd/%d", mnt);
	path_of(upper, sizeof(upper), workdir, "userns-upper");
	assert_true(mkdir(upper, 0755) == 0 || errno == EEXIST);
	assert_int_equal(chmod(lower, 0755), 0);
	path_of(path, sizeof(path), lower, "suid");
	copy_self(path, 04755);
	path_of(path, sizeof(path), lower, "fcaps");
	copy_self(path, 0755);
	assert_int_equal(setxattr(path, "security.capability", &caps,
				  XATTR_CAPS_SZ_2, 0), 0);
	assert_int_equal(mount(lower, upper, "dazukofs", 0, NULL), 0);

	path_of(path, sizeof(path), upper, "suid");
	assert_int_equal(run_as_nobody(path, &euid, &capeff, &exec_errno), 0);
	assert_int_equal(euid, NOBODY);
	path_of(path, sizeof(path), upper, "fcaps");
	assert_int_equal(run_as_nobody(path, &euid, &capeff, &exec_errno), 0);
	assert_int_equal(capeff, 0);

	assert_int_equal(umount(upper), 0);
	assert_int_equal(close(mnt), 0);
}

/*
 * debugfs' "tracing" is an automount point (of tracefs).  Through the
 * mount it is refused, never followed through a NULL ->d_automount.
 */
static void test_automount_refused(void **state)
{
	char lower[512], upper[512], path[600];
	struct stat st;
	int fd;

	(void)state;
	path_of(lower, sizeof(lower), workdir, "debugfs");
	path_of(upper, sizeof(upper), workdir, "debugfs-upper");
	assert_true(mkdir(lower, 0755) == 0 || errno == EEXIST);
	assert_true(mkdir(upper, 0755) == 0 || errno == EEXIST);
	assert_int_equal(mount("debugfs", lower, "debugfs", 0, NULL), 0);
	path_of(path, sizeof(path), lower, "tracing");
	if (lstat(path, &st)) {
		assert_int_equal(umount(lower), 0);
		skip();
	}
	assert_int_equal(mount(lower, upper, "dazukofs", 0, NULL), 0);

	path_of(path, sizeof(path), upper, "tracing");
	errno = 0;
	fd = open(path, O_RDONLY | O_DIRECTORY);
	assert_int_equal(fd, -1);
	assert_int_equal(errno, EREMOTE);
	path_of(path, sizeof(path), upper, "tracing/trace");
	errno = 0;
	assert_int_equal(stat(path, &st), -1);
	assert_int_equal(errno, EREMOTE);
	/* The rest of the mount works. */
	fd = open(upper, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	assert_int_equal(close(fd), 0);

	assert_int_equal(umount(upper), 0);
	assert_int_equal(umount(lower), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_append_only_current),
		cmocka_unit_test(test_immutable_current),
		cmocka_unit_test(test_suid_control),
		cmocka_unit_test(test_nosuid),
		cmocka_unit_test(test_nosuid_drops_setid),
		cmocka_unit_test(test_dev_control),
		cmocka_unit_test(test_nodev),
		cmocka_unit_test(test_exec_control),
		cmocka_unit_test(test_noexec),
		cmocka_unit_test(test_lower_remount_followed),
		cmocka_unit_test(test_userns_lower_nosuid),
		cmocka_unit_test(test_automount_refused),
	};

	if (argc == 2 && !strcmp(argv[1], "--whoami"))
		return whoami();
	if (argc != 2 || argv[1][0] != '/') {
		fprintf(stderr, "usage: fs-restrict WORKDIR (absolute; as root, dazukofs loaded)\n");
		return 2;
	}
	workdir = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
