// SPDX-License-Identifier: GPL-2.0
/* fs-passthrough: xattrs, POSIX ACLs, permissions, locks, inode flags. */
#include "fsp.h"

#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <linux/fs.h>

/* ---- xattrs ---- */

static size_t sorted_list(const char *path, char *out, size_t cap)
{
	char buf[4096];
	const char *names[128];
	size_t n = 0, pos = 0;
	ssize_t len = OK(llistxattr(path, buf, sizeof(buf)));

	for (ssize_t off = 0; off < len; off += strlen(buf + off) + 1)
		names[n++] = buf + off;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			const char *t = names[j];

			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	out[0] = 0;
	for (size_t i = 0; i < n; i++)
		pos += snprintf(out + pos, cap - pos, "%s,", names[i]);
	return n;
}

/* Full set/get/list/remove round trip in namespace ns ("user" ...). */
static void xattr_roundtrip(const char *ns)
{
	char n1[64], n2[64], n3[64], buf[256], la[2048], lu[2048];
	struct res rl, ru;

	snprintf(n1, sizeof(n1), "%s.dazukofs_a", ns);
	snprintf(n2, sizeof(n2), "%s.dazukofs_b", ns);
	put_str(L("probe"), "p");
	put_str(L("f"), "f");
	rl = RES(setxattr(L("probe"), n1, "v", 1, 0));
	if (rl.err) {
		/* the lower refuses: the mount must refuse the same way */
		ru = RES(setxattr(U("f"), n1, "v", 1, 0));
		assert_same_res(rl, ru);
		assert_same_res(RES(getxattr(L("f"), n1, buf, sizeof(buf))),
				RES(getxattr(U("f"), n1, buf, sizeof(buf))));
		print_message("lower has no %s xattrs (%s); mount agrees\n",
			      ns, strerrorname_np(rl.err));
		return;
	}
	OK(setxattr(U("f"), n1, "value-one", 9, 0));
	assert_int_equal(getxattr(L("f"), n1, buf, sizeof(buf)), 9);
	assert_memory_equal(buf, "value-one", 9);
	OK(setxattr(L("f"), n2, "two\0bin", 7, 0));
	assert_int_equal(getxattr(U("f"), n2, buf, sizeof(buf)), 7);
	assert_memory_equal(buf, "two\0bin", 7);
	assert_int_equal(getxattr(U("f"), n2, NULL, 0), 7);
	sorted_list(L("f"), la, sizeof(la));
	sorted_list(U("f"), lu, sizeof(lu));
	assert_string_equal(la, lu);
	assert_non_null(strstr(lu, n1));
	assert_non_null(strstr(lu, n2));
	/* flags */
	assert_errno(setxattr(U("f"), n1, "x", 1, XATTR_CREATE), EEXIST);
	snprintf(n3, sizeof(n3), "%s.dazukofs_none", ns);
	assert_errno(setxattr(U("f"), n3, "x", 1, XATTR_REPLACE), ENODATA);
	OK(setxattr(U("f"), n1, "replaced", 8, XATTR_REPLACE));
	assert_int_equal(getxattr(L("f"), n1, buf, sizeof(buf)), 8);
	assert_memory_equal(buf, "replaced", 8);
	/* empty value */
	OK(setxattr(U("f"), n1, "", 0, 0));
	assert_int_equal(getxattr(L("f"), n1, buf, sizeof(buf)), 0);
	/* remove through the mount and through the lower */
	OK(removexattr(U("f"), n1));
	assert_errno(getxattr(L("f"), n1, buf, sizeof(buf)), ENODATA);
	assert_errno(getxattr(U("f"), n1, buf, sizeof(buf)), ENODATA);
	OK(removexattr(L("f"), n2));
	assert_errno(getxattr(U("f"), n2, buf, sizeof(buf)), ENODATA);
	assert_errno(removexattr(U("f"), n2), ENODATA);
	/* on a directory, through an fd */
	OK(mkdir(L("d"), 0755));
	{
		int fd = OK(open(U("d"), O_RDONLY | O_DIRECTORY));

		OK(fsetxattr(fd, n1, "dirval", 6, 0));
		assert_int_equal(fgetxattr(fd, n1, buf, sizeof(buf)), 6);
		close(fd);
	}
	assert_int_equal(getxattr(L("d"), n1, buf, sizeof(buf)), 6);
	assert_memory_equal(buf, "dirval", 6);
}

void test_xattr_user(void **state)
{
	(void)state;
	xattr_roundtrip("user");
}

void test_xattr_trusted(void **state)
{
	(void)state;
	if (!fsp_is_root)
		skip();
	xattr_roundtrip("trusted");
}

void test_xattr_security(void **state)
{
	(void)state;
	if (!fsp_is_root)
		skip();
	xattr_roundtrip("security");
}

void test_xattr_errors(void **state)
{
	char buf[64], small[2];
	const char *ns = "user";

	(void)state;
	put_str(L("f"), "x");
	if (setxattr(L("f"), "user.probe", "v", 1, 0)) {
		if (!fsp_is_root)
			skip();
		ns = "trusted";
	}
	snprintf(buf, sizeof(buf), "%s.long", ns);
	if (setxattr(L("f"), buf, "0123456789", 10, 0)) {
		/* NFS on 6.1: neither namespace */
		int err = errno;

		assert_errno(setxattr(U("f"), buf, "0123456789", 10, 0), err);
		print_message("lower has no user or trusted xattrs (%s); mount agrees\n",
			      strerrorname_np(err));
		return;
	}
	assert_errno(getxattr(U("f"), buf, small, sizeof(small)), ERANGE);
	assert_int_equal(getxattr(U("f"), buf, NULL, 0), 10);
	assert_errno(listxattr(U("f"), small, sizeof(small)), ERANGE);
	assert_same_res(RES(listxattr(L("f"), NULL, 0)),
			RES(listxattr(U("f"), NULL, 0)));
	snprintf(buf, sizeof(buf), "%s.missing", ns);
	assert_errno(getxattr(U("f"), buf, small, sizeof(small)), ENODATA);
	assert_errno(getxattr(U("nofile"), buf, small, sizeof(small)), ENOENT);
	assert_same_res(RES(getxattr(L("f"), "bogusns.x", small, 2)),
			RES(getxattr(U("f"), "bogusns.x", small, 2)));
	assert_same_res(RES(setxattr(L("f"), "bogusns.x", "v", 1, 0)),
			RES(setxattr(U("f"), "bogusns.x", "v", 1, 0)));
}

/* ---- POSIX ACLs (system.posix_acl_*), blobs built by hand ---- */

#define ACL_USER_OBJ 0x01
#define ACL_USER 0x02
#define ACL_GROUP_OBJ 0x04
#define ACL_GROUP 0x08
#define ACL_MASK 0x10
#define ACL_OTHER 0x20
#define ACL_UNDEF 0xffffffffu

struct acl_ent { uint16_t tag, perm; uint32_t id; } __attribute__((packed));
struct acl_blob { uint32_t version; struct acl_ent e[5]; } __attribute__((packed));

/* user::rw- user:65534:<uperm> group::r-- mask::<uperm|r> other::--- */
static struct acl_blob make_acl(unsigned uperm)
{
	struct acl_blob b = {
		.version = 2,
		.e = {
			{ ACL_USER_OBJ, 6, ACL_UNDEF },
			{ ACL_USER, uperm, 65534 },
			{ ACL_GROUP_OBJ, 4, ACL_UNDEF },
			{ ACL_MASK, uperm | 4, ACL_UNDEF },
			{ ACL_OTHER, 0, ACL_UNDEF },
		},
	};
	return b;
}

static bool lower_has_acls(void)
{
	struct acl_blob b = make_acl(4);

	put_str(L("aclprobe"), "");
	if (setxattr(L("aclprobe"), "system.posix_acl_access", &b, sizeof(b), 0)) {
		print_message("lower has no POSIX ACLs (%s)\n", strerror(errno));
		return false;
	}
	return true;
}

void test_acl_access(void **state)
{
	struct acl_blob b = make_acl(4), got;
	struct stat st;

	(void)state;
	put_str(L("f"), "x");
	OK(chmod(L("f"), 0600));
	if (!lower_has_acls()) {
		assert_same_res(RES(setxattr(L("f"), "system.posix_acl_access",
					     &b, sizeof(b), 0)),
				RES(setxattr(U("f"), "system.posix_acl_access",
					     &b, sizeof(b), 0)));
		return;
	}
	OK(setxattr(U("f"), "system.posix_acl_access", &b, sizeof(b), 0));
	assert_int_equal(getxattr(L("f"), "system.posix_acl_access", &got,
				  sizeof(got)), sizeof(b));
	assert_memory_equal(&got, &b, sizeof(b));
	memset(&got, 0, sizeof(got));
	assert_int_equal(getxattr(U("f"), "system.posix_acl_access", &got,
				  sizeof(got)), sizeof(b));
	assert_memory_equal(&got, &b, sizeof(b));
	/* the group bits of the mode are the mask */
	OK(stat(L("f"), &st));
	assert_int_equal(st.st_mode & 0777, 0640);
	OK(stat(U("f"), &st));
	assert_int_equal(st.st_mode & 0777, 0640);
	/* chmod through the mount updates the mask */
	OK(chmod(U("f"), 0660));
	assert_int_equal(getxattr(L("f"), "system.posix_acl_access", &got,
				  sizeof(got)), sizeof(b));
	assert_int_equal(got.e[3].tag, ACL_MASK);
	assert_int_equal(got.e[3].perm, 6);
	/* set via lower, seen via mount; removal */
	b = make_acl(6);
	OK(setxattr(L("f"), "system.posix_acl_access", &b, sizeof(b), 0));
	assert_int_equal(getxattr(U("f"), "system.posix_acl_access", &got,
				  sizeof(got)), sizeof(b));
	assert_int_equal(got.e[1].perm, 6);
	OK(removexattr(U("f"), "system.posix_acl_access"));
	assert_errno(getxattr(L("f"), "system.posix_acl_access", &got,
			      sizeof(got)), ENODATA);
	/* an invalid blob is refused like the lower refuses it */
	b.version = 3;
	assert_same_res(RES(setxattr(L("f"), "system.posix_acl_access",
				     &b, sizeof(b), 0)),
			RES(setxattr(U("f"), "system.posix_acl_access",
				     &b, sizeof(b), 0)));
}

void test_acl_default_inherited(void **state)
{
	struct acl_blob b = make_acl(6), got;
	struct stat st;
	int fd;

	(void)state;
	if (!lower_has_acls())
		skip();
	OK(mkdir(L("d"), 0755));
	OK(setxattr(U("d"), "system.posix_acl_default", &b, sizeof(b), 0));
	assert_int_equal(getxattr(L("d"), "system.posix_acl_default", &got,
				  sizeof(got)), sizeof(b));
	fd = OK(open(U("d/new"), O_CREAT | O_WRONLY, 0666));
	close(fd);
	OK(mkdir(U("d/sub"), 0777));
	/* umask is ignored when a default ACL exists */
	assert_int_equal(getxattr(L("d/new"), "system.posix_acl_access", &got,
				  sizeof(got)), sizeof(b));
	assert_int_equal(got.e[1].tag, ACL_USER);
	assert_int_equal(got.e[1].id, 65534);
	assert_int_equal(got.e[1].perm, 6);
	OK(stat(L("d/new"), &st));
	assert_int_equal(st.st_mode & 0777, 0660);
	assert_int_equal(getxattr(L("d/sub"), "system.posix_acl_default", &got,
				  sizeof(got)), sizeof(b));
	OK(stat(U("d/new"), &st));
	assert_int_equal(st.st_mode & 0777, 0660);
}

static const char *acl_path;

static int nobody_reads(void *arg)
{
	char buf[16];
	int fd;

	(void)arg;
	fd = open(acl_path, O_RDONLY);
	CHK(fd >= 0);
	CHK(read(fd, buf, sizeof(buf)) == 6 && !memcmp(buf, "secret", 6));
	close(fd);
	CHK(open(acl_path, O_WRONLY) == -1 && errno == EACCES);
	return 0;
}

static int nobody_denied(void *arg)
{
	(void)arg;
	CHK(open(acl_path, O_RDONLY) == -1 && errno == EACCES);
	return 0;
}

void test_acl_permission(void **state)
{
	struct acl_blob b = make_acl(4);

	(void)state;
	if (!fsp_is_root)
		skip();
	if (!lower_has_acls())
		skip();
	put_str(L("f"), "secret");
	OK(chmod(L("f"), 0600));
	acl_path = U("f");
	run_as_nobody(nobody_denied, NULL);
	OK(setxattr(U("f"), "system.posix_acl_access", &b, sizeof(b), 0));
	run_as_nobody(nobody_reads, NULL);
	acl_path = L("f");
	run_as_nobody(nobody_reads, NULL);
	/* removing the ACL in the lower takes the permission away */
	OK(removexattr(L("f"), "system.posix_acl_access"));
	OK(chmod(L("f"), 0600));
	acl_path = U("f");
	run_as_nobody(nobody_denied, NULL);
}

/* ---- permissions as an unprivileged user ---- */

struct perm_arg { const char *lp, *up; };

static int child_private(void *arg)
{
	struct perm_arg *a = arg;
	int el, eu;

	CHK(open(a->lp, O_RDONLY) == -1);
	el = errno;
	CHK(open(a->up, O_RDONLY) == -1);
	eu = errno;
	CHK(el == EACCES && eu == EACCES);
	CHK(open(a->up, O_WRONLY | O_TRUNC) == -1 && errno == EACCES);
	CHK(access(a->up, R_OK) == -1 && errno == EACCES);
	CHK(truncate(a->up, 0) == -1 && errno == EACCES);
	return 0;
}

void test_perm_private_file(void **state)
{
	struct perm_arg a;
	struct stat st;

	(void)state;
	FSP_NEEDS_POSIX();
	put_str(L("f"), "root only");
	OK(chmod(L("f"), 0600));
	a.lp = L("f");
	a.up = U("f");
	run_as_nobody(child_private, &a);
	OK(stat(L("f"), &st));
	assert_int_equal(st.st_size, 9);
}

static int child_readable(void *arg)
{
	struct perm_arg *a = arg;
	char buf[32];
	int fd = open(a->up, O_RDONLY);

	CHK(fd >= 0);
	CHK(read(fd, buf, sizeof(buf)) == 8 && !memcmp(buf, "readable", 8));
	close(fd);
	CHK(access(a->up, R_OK) == 0);
	CHK(access(a->up, W_OK) == -1 && errno == EACCES);
	CHK(open(a->up, O_WRONLY) == -1 && errno == EACCES);
	CHK(open(a->up, O_RDWR) == -1 && errno == EACCES);
	CHK(unlink(a->up) == -1 && errno == EACCES); /* dir is 0755 root */
	CHK(chmod(a->up, 0777) == -1 && errno == EPERM);
	return 0;
}

void test_perm_readable_file(void **state)
{
	struct perm_arg a;

	(void)state;
	put_str(L("f"), "readable");
	OK(chmod(L("f"), 0644));
	a.lp = L("f");
	a.up = U("f");
	run_as_nobody(child_readable, &a);
	assert_content(L("f"), "readable");
}

static int child_noexec(void *arg)
{
	struct perm_arg *a = arg;
	struct stat st;
	char p[4200];

	snprintf(p, sizeof(p), "%s/noexec/f", a->lp);
	CHK(stat(p, &st) == -1 && errno == EACCES);
	snprintf(p, sizeof(p), "%s/noexec/f", a->up);
	CHK(stat(p, &st) == -1 && errno == EACCES);
	CHK(open(p, O_RDONLY) == -1 && errno == EACCES);
	snprintf(p, sizeof(p), "%s/noexec", a->up);
	CHK(stat(p, &st) == 0);
	/* r without x: names listable through the lower and the mount alike */
	snprintf(p, sizeof(p), "%s/exec/f", a->up);
	CHK(stat(p, &st) == 0 && st.st_size == 1);
	snprintf(p, sizeof(p), "%s/noread", a->up);
	CHK(open(p, O_RDONLY | O_DIRECTORY) == -1 && errno == EACCES);
	snprintf(p, sizeof(p), "%s/noread/f", a->up);
	CHK(stat(p, &st) == 0);
	return 0;
}

void test_perm_dir_noexec(void **state)
{
	struct perm_arg a;

	(void)state;
	FSP_NEEDS_POSIX();
	OK(mkdir(L("noexec"), 0755));
	put_str(L("noexec/f"), "x");
	OK(chmod(L("noexec"), 0666));
	OK(mkdir(L("exec"), 0755));
	put_str(L("exec/f"), "x");
	OK(mkdir(L("noread"), 0755));
	put_str(L("noread/f"), "x");
	OK(chmod(L("noread"), 0711));
	a.lp = L(".");
	a.up = U(".");
	run_as_nobody(child_noexec, &a);
}

static int child_sticky(void *arg)
{
	struct perm_arg *a = arg;
	char p[4200], q[4200];
	int fd;

	snprintf(p, sizeof(p), "%s/tmp/rootfile", a->up);
	CHK(unlink(p) == -1 && errno == EPERM);
	snprintf(q, sizeof(q), "%s/tmp/renamed", a->up);
	CHK(rename(p, q) == -1 && errno == EPERM);
	snprintf(p, sizeof(p), "%s/tmp/rootfile", a->lp);
	CHK(unlink(p) == -1 && errno == EPERM);
	/* own file: create, rename, unlink */
	snprintf(p, sizeof(p), "%s/tmp/mine", a->up);
	fd = open(p, O_CREAT | O_EXCL | O_WRONLY, 0644);
	CHK(fd >= 0);
	close(fd);
	CHK(rename(p, q) == 0);
	CHK(unlink(q) == 0);
	return 0;
}

void test_perm_sticky_dir(void **state)
{
	struct perm_arg a;
	struct stat st;

	(void)state;
	FSP_NEEDS_POSIX();
	OK(mkdir(L("tmp"), 0755));
	OK(chmod(L("tmp"), 01777));
	put_str(L("tmp/rootfile"), "r");
	OK(chmod(L("tmp/rootfile"), 0666));
	a.lp = L(".");
	a.up = U(".");
	run_as_nobody(child_sticky, &a);
	OK(stat(L("tmp/rootfile"), &st));
	assert_false(path_exists(L("tmp/mine")));
	assert_false(path_exists(L("tmp/renamed")));
}

/* ---- locks ---- */

void test_flock_(void **state)
{
	int a, b;

	(void)state;
	put_str(L("f"), "lock");
	a = OK(open(U("f"), O_RDWR));
	b = OK(open(U("f"), O_RDWR));
	OK(flock(a, LOCK_EX));
	assert_errno(flock(b, LOCK_EX | LOCK_NB), EWOULDBLOCK);
	assert_errno(flock(b, LOCK_SH | LOCK_NB), EWOULDBLOCK);
	OK(flock(a, LOCK_UN));
	OK(flock(b, LOCK_SH | LOCK_NB));
	OK(flock(a, LOCK_SH | LOCK_NB));
	assert_errno(flock(a, LOCK_EX | LOCK_NB), EWOULDBLOCK);
	close(b);
	OK(flock(a, LOCK_EX | LOCK_NB));
	close(a);
}

void test_posix_locks(void **state)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = 0, .l_len = 100 };
	int fd, go[2], done[2], status;
	pid_t pid, me = getpid();
	char c;

	(void)state;
	put_str(L("f"), "posix locks");
	fd = OK(open(U("f"), O_RDWR));
	OK(fcntl(fd, F_SETLK, &fl));
	OK(pipe(go));
	OK(pipe(done));
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		const char *p = U("f");
		int cfd = open(p, O_RDWR);
		struct flock c1 = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
				    .l_start = 50, .l_len = 10 };

		CHK(cfd >= 0);
		CHK(fcntl(cfd, F_SETLK, &c1) == -1 &&
		    (errno == EAGAIN || errno == EACCES));
		CHK(fcntl(cfd, F_GETLK, &c1) == 0);
		CHK(c1.l_type == F_WRLCK && c1.l_pid == me);
		CHK(c1.l_start == 0 && c1.l_len == 100);
		/* outside the locked range: fine */
		c1 = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET,
				     .l_start = 200, .l_len = 10 };
		CHK(fcntl(cfd, F_SETLK, &c1) == 0);
		CHK(write(done[1], "1", 1) == 1);
		CHK(read(go[0], &c, 1) == 1);
		c1 = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET,
				     .l_start = 50, .l_len = 10 };
		CHK(fcntl(cfd, F_SETLK, &c1) == 0);
		_exit(0);
	}
	assert_int_equal(read(done[0], &c, 1), 1);
	/* the parent sees the child's lock */
	fl = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET,
			     .l_start = 200, .l_len = 1 };
	OK(fcntl(fd, F_GETLK, &fl));
	assert_int_equal(fl.l_type, F_WRLCK);
	assert_int_equal(fl.l_pid, pid);
	fl = (struct flock){ .l_type = F_UNLCK, .l_whence = SEEK_SET,
			     .l_start = 0, .l_len = 0 };
	OK(fcntl(fd, F_SETLK, &fl));
	assert_int_equal(write(go[1], "g", 1), 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(fd);
	close(go[0]); close(go[1]); close(done[0]); close(done[1]);
}

void test_ofd_locks(void **state)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = 0, .l_len = 10 };
	struct flock lower_fl;
	int a, b, c;

	(void)state;
	put_str(L("f"), "ofd locks here");
	a = OK(open(U("f"), O_RDWR));
	b = OK(open(U("f"), O_RDWR));
	c = OK(open(L("f"), O_RDWR));
	OK(fcntl(a, F_OFD_SETLK, &fl));
	fl = (struct flock){ .l_type = F_RDLCK, .l_whence = SEEK_SET,
			     .l_start = 5, .l_len = 1 };
	assert_errno(fcntl(b, F_OFD_SETLK, &fl), EAGAIN);
	fl = (struct flock){ .l_type = F_RDLCK, .l_whence = SEEK_SET,
			     .l_start = 5, .l_len = 1 };
	lower_fl = fl;
	OK(fcntl(b, F_OFD_GETLK, &fl));
	/* the lower's own view of the same lock (NFS names a pid; others -1) */
	OK(fcntl(c, F_OFD_GETLK, &lower_fl));
	close(c);
	assert_int_equal(fl.l_type, F_WRLCK);
	assert_int_equal(lower_fl.l_type, F_WRLCK);
	assert_int_equal(fl.l_pid, lower_fl.l_pid);
	assert_int_equal(fl.l_start, 0);
	assert_int_equal(fl.l_len, 10);
	/* same description: no conflict with itself */
	fl = (struct flock){ .l_type = F_RDLCK, .l_whence = SEEK_SET,
			     .l_start = 0, .l_len = 5 };
	OK(fcntl(a, F_OFD_SETLK, &fl));
	close(a);
	fl = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET,
			     .l_start = 0, .l_len = 10 };
	OK(fcntl(b, F_OFD_SETLK, &fl));
	close(b);
}

/* ---- inode flags ---- */

void test_ioctl_flags(void **state)
{
	int fl, fu, xl = 0, xu = 0;
	struct res rl, ru;

	(void)state;
	put_str(L("a"), "x");
	put_str(L("b"), "x");
	fl = OK(open(L("a"), O_RDONLY));
	fu = OK(open(U("b"), O_RDONLY));
	rl = RES(ioctl(fl, FS_IOC_GETFLAGS, &xl));
	ru = RES(ioctl(fu, FS_IOC_GETFLAGS, &xu));
	assert_same_res(rl, ru);
	if (rl.err) {
		print_message("lower has no FS_IOC_GETFLAGS (%s)\n",
			      strerrorname_np(rl.err));
		close(fl);
		close(fu);
		return;
	}
	assert_int_equal(xl, xu);
	xl |= FS_NOATIME_FL;
	xu |= FS_NOATIME_FL;
	rl = RES(ioctl(fl, FS_IOC_SETFLAGS, &xl));
	ru = RES(ioctl(fu, FS_IOC_SETFLAGS, &xu));
	assert_same_res(rl, ru);
	if (!rl.err) {
		int chk = 0, lfd = OK(open(L("b"), O_RDONLY));

		OK(ioctl(lfd, FS_IOC_GETFLAGS, &chk));
		close(lfd);
		assert_true(chk & FS_NOATIME_FL);
		OK(ioctl(fu, FS_IOC_GETFLAGS, &chk));
		assert_true(chk & FS_NOATIME_FL);
	}
	if (fsp_is_root) {
		xu |= FS_APPEND_FL;
		xl |= FS_APPEND_FL;
		rl = RES(ioctl(fl, FS_IOC_SETFLAGS, &xl));
		ru = RES(ioctl(fu, FS_IOC_SETFLAGS, &xu));
		assert_same_res(rl, ru);
		if (!rl.err) {
			int w;

			/* append-only set via the mount binds the lower */
			assert_errno(open(L("b"), O_WRONLY), EPERM);
			assert_errno(open(U("b"), O_WRONLY | O_TRUNC), EPERM);
			assert_errno(unlink(U("b")), EPERM);
			w = OK(open(U("b"), O_WRONLY | O_APPEND));
			assert_int_equal(write(w, "y", 1), 1);
			close(w);
			assert_content(L("b"), "xy");
			xu &= ~FS_APPEND_FL;
			xl &= ~FS_APPEND_FL;
			OK(ioctl(fu, FS_IOC_SETFLAGS, &xu));
			OK(ioctl(fl, FS_IOC_SETFLAGS, &xl));
			w = OK(open(L("b"), O_WRONLY));
			close(w);
		}
	}
	close(fl);
	close(fu);
}

/* In a child: the parent's POSIX write lock on L("f") is seen there. */
static int child_sees_posix_lock(pid_t parent)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = 0, .l_len = 10 };
	int fd = open(L("f"), O_RDWR);

	CHK(fd >= 0);
	CHK(fcntl(fd, F_SETLK, &fl) == -1 && (errno == EAGAIN || errno == EACCES));
	CHK(fcntl(fd, F_GETLK, &fl) == 0);
	CHK(fl.l_type == F_WRLCK && fl.l_pid == parent);
	return 0;
}

/* In a child: nobody holds a POSIX lock on L("f") any more. */
static int child_can_posix_lock(pid_t parent)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = 0, .l_len = 10 };
	int fd = open(L("f"), O_RDWR);

	(void)parent;
	CHK(fd >= 0);
	CHK(fcntl(fd, F_SETLK, &fl) == 0);
	return 0;
}

/* In a child: F_SETLKW through the mount waits for the parent's lock. */
static int child_setlkw_through_mount(pid_t parent)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = 0, .l_len = 10 };
	int fd = open(U("f"), O_RDWR);

	(void)parent;
	CHK(fd >= 0);
	CHK(fcntl(fd, F_SETLKW, &fl) == 0);
	close(fd);
	return 0;
}

/* Is a lock request waiting (a "->" line in /proc/locks)? */
static bool lock_waiter_queued(void)
{
	char line[256];
	bool found = false;
	FILE *f = fopen("/proc/locks", "re");

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "->") != NULL;
	fclose(f);
	return found;
}

/* In a child: F_GETLK through the mount sees the parent's lower lock. */
static int child_getlk_through_mount(pid_t parent)
{
	struct flock fl = { .l_type = F_RDLCK, .l_whence = SEEK_SET,
			    .l_start = 5, .l_len = 1 };
	int fd = open(U("f"), O_RDWR);

	CHK(fd >= 0);
	CHK(fcntl(fd, F_GETLK, &fl) == 0);
	CHK(fl.l_type == F_WRLCK && fl.l_pid == parent);
	CHK(fl.l_start == 0 && fl.l_len == 10);
	/* Nothing is left held: the same call, again. */
	fl = (struct flock){ .l_type = F_RDLCK, .l_whence = SEEK_SET,
			     .l_start = 5, .l_len = 1 };
	CHK(fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type == F_WRLCK);
	close(fd);
	return 0;
}

static int child_status(int (*fn)(pid_t), pid_t arg)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(fn(arg));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/*
 * Locks taken through the mount are the lower file's: a process using the
 * lower sees them, and the other way round; a close releases them.
 */
void test_locks_are_the_lowers(void **state)
{
	struct flock wr = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = 0, .l_len = 10 };
	struct flock rd = { .l_type = F_RDLCK, .l_whence = SEEK_SET,
			    .l_start = 5, .l_len = 1 };
	int up, low;

	(void)state;
	put_str(L("f"), "locked through the mount");

	/* POSIX: another process on the lower sees it; a close drops it. */
	up = OK(open(U("f"), O_RDWR));
	OK(fcntl(up, F_SETLK, &wr));
	assert_int_equal(child_status(child_sees_posix_lock, getpid()), 0);
	close(up);
	assert_int_equal(child_status(child_can_posix_lock, getpid()), 0);

	/* OFD: open file descriptions of the mount and the lower conflict. */
	up = OK(open(U("f"), O_RDWR));
	low = OK(open(L("f"), O_RDWR));
	OK(fcntl(up, F_OFD_SETLK, &wr));
	assert_errno(fcntl(low, F_OFD_SETLK, &rd), EAGAIN);
	close(up);
	rd = (struct flock){ .l_type = F_RDLCK, .l_whence = SEEK_SET,
			     .l_start = 5, .l_len = 1 };
	OK(fcntl(low, F_OFD_SETLK, &rd));
	up = OK(open(U("f"), O_RDWR));
	assert_errno(fcntl(up, F_OFD_SETLK, &wr), EAGAIN);
	wr = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET,
			     .l_start = 0, .l_len = 10 };
	OK(fcntl(up, F_OFD_GETLK, &wr));
	assert_int_equal(wr.l_type, F_RDLCK);
	close(up);
	close(low);

	/* F_GETLK through the mount reports a lock taken on the lower. */
	low = OK(open(L("f"), O_RDWR));
	wr = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET,
			     .l_start = 0, .l_len = 10 };
	OK(fcntl(low, F_SETLK, &wr));
	assert_int_equal(child_status(child_getlk_through_mount, getpid()), 0);
	close(low);

	/* F_SETLKW through the mount waits on the lower lock, then gets it. */
	low = OK(open(L("f"), O_RDWR));
	wr = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET,
			     .l_start = 0, .l_len = 10 };
	OK(fcntl(low, F_SETLK, &wr));
	{
		struct timespec pause = { 0, 10 * 1000 * 1000 };
		int status, i;
		pid_t pid;

		fflush(NULL);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0)
			_exit(child_setlkw_through_mount(0));
		for (i = 0; i < 3000 && !lock_waiter_queued(); i++)
			nanosleep(&pause, NULL);
		assert_true(lock_waiter_queued());
		close(low);	/* releases the lock: the child's wait ends */
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}

	/* flock, also on a directory: the same, both ways. */
	up = OK(open(U("."), O_RDONLY | O_DIRECTORY));
	low = OK(open(L("."), O_RDONLY | O_DIRECTORY));
	OK(flock(up, LOCK_EX));
	assert_errno(flock(low, LOCK_SH | LOCK_NB), EWOULDBLOCK);
	close(up);
	OK(flock(low, LOCK_SH | LOCK_NB));
	close(low);

	up = OK(open(U("f"), O_RDWR));
	low = OK(open(L("f"), O_RDWR));
	OK(flock(up, LOCK_EX));
	assert_errno(flock(low, LOCK_SH | LOCK_NB), EWOULDBLOCK);
	close(up);
	OK(flock(low, LOCK_EX | LOCK_NB));
	up = OK(open(U("f"), O_RDWR));
	assert_errno(flock(up, LOCK_SH | LOCK_NB), EWOULDBLOCK);
	close(low);
	OK(flock(up, LOCK_SH | LOCK_NB));
	close(up);
}

/*
 * A lease through the mount is refused: one on the dazukofs inode would
 * not be broken by opens of the lower.  The lower itself grants it.
 */
void test_lease_refused(void **state)
{
	int fd;

	(void)state;
	put_str(L("f"), "leased");
	fd = OK(open(L("f"), O_RDONLY));
	if (fcntl(fd, F_SETLEASE, F_RDLCK)) {
		/* NFS grants one only with a delegation */
		print_message("lower refuses a lease (%s)\n",
			      strerrorname_np(errno));
	} else {
		OK(fcntl(fd, F_SETLEASE, F_UNLCK));
	}
	close(fd);
	fd = OK(open(U("f"), O_RDONLY));
	assert_errno(fcntl(fd, F_SETLEASE, F_RDLCK), EINVAL);
	close(fd);
}
