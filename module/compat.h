/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernel versions dazukofs builds for (Debian 12's
 * 6.1 and 6.12), in one place.
 *
 * Debian backports API changes into its stable kernels, so the version
 * number is not trusted: Kbuild probes the kernel headers and defines the
 * DAZUKOFS_HAVE_* macros used here (see module/Kbuild).  Each shim names the
 * upstream change; Documentation/filesystems/porting.rst has the details.
 * Every wrapper carries a dazukofs_ prefix so that it never collides with a
 * kernel function of the same purpose.
 */
#ifndef _DAZUKOFS_COMPAT_H
#define _DAZUKOFS_COMPAT_H

#include <linux/fsnotify.h>
#include <linux/fsnotify_backend.h>

#include <linux/fcntl.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mount.h>
#include <linux/iversion.h>
#include <linux/splice.h>
#include <linux/stat.h>

#if defined(DAZUKOFS_HAVE_BACKING_FILE_USER_FILE) || \
	defined(DAZUKOFS_HAVE_BACKING_FILE_RW) || \
	defined(DAZUKOFS_HAVE_BACKING_FILE_MMAP) || \
	defined(DAZUKOFS_HAVE_BACKING_FILE_SPLICE)
#include <linux/backing-file.h>
#endif
#ifdef DAZUKOFS_HAVE_FILE_LOCK_CORE
#include <linux/filelock.h>
#endif

/*
 * v6.3 "fs: port to struct mnt_idmap": inode operations and the vfs_*()
 * helpers take a struct mnt_idmap instead of a struct user_namespace.
 */
#ifdef DAZUKOFS_HAVE_MNT_IDMAP
#define dazukofs_idmap_t struct mnt_idmap

static inline dazukofs_idmap_t *dazukofs_mnt_idmap(const struct vfsmount *mnt)
{
	return mnt_idmap(mnt);
}

static inline void dazukofs_rename_idmap(struct renamedata *rd,
					 dazukofs_idmap_t *idmap)
{
	rd->old_mnt_idmap = idmap;
	rd->new_mnt_idmap = idmap;
}
#else
#define dazukofs_idmap_t struct user_namespace

static inline dazukofs_idmap_t *dazukofs_mnt_idmap(const struct vfsmount *mnt)
{
	return mnt_user_ns(mnt);
}

static inline void dazukofs_rename_idmap(struct renamedata *rd,
					 dazukofs_idmap_t *idmap)
{
	rd->old_mnt_userns = idmap;
	rd->new_mnt_userns = idmap;
}
#endif

/*
 * v6.7 "fs: move file_start_write() into vfs_iter_write()": before it, the
 * caller held freeze protection of the target's superblock.
 */
static inline ssize_t dazukofs_vfs_iter_write(struct file *file,
					      struct iov_iter *iter,
					      loff_t *pos, rwf_t flags)
{
#ifdef DAZUKOFS_HAVE_ITER_WRITE_FREEZE
	return vfs_iter_write(file, iter, pos, flags);
#else
	ssize_t ret;

	file_start_write(file);
	ret = vfs_iter_write(file, iter, pos, flags);
	file_end_write(file);
	return ret;
#endif
}

/*
 * v6.5 "splice: Remove generic_file_splice_read()": copy_splice_read() is
 * the generic replacement.  Both read through ->read_iter, i.e. through the
 * lower file.
 */
#ifdef DAZUKOFS_HAVE_COPY_SPLICE_READ
#define dazukofs_read_iter_splice_read copy_splice_read
#else
#define dazukofs_read_iter_splice_read generic_file_splice_read
#endif

/* v6.2 "fs: rename vfs_tmpfile_open() to kernel_tmpfile_open()" */
static inline struct file *dazukofs_tmpfile_open(dazukofs_idmap_t *idmap,
						 const struct path *parent,
						 umode_t mode, int open_flag,
						 const struct cred *cred)
{
#ifdef DAZUKOFS_HAVE_KERNEL_TMPFILE_OPEN
	return kernel_tmpfile_open(idmap, parent, mode, open_flag, cred);
#else
	return vfs_tmpfile_open(idmap, parent, mode, open_flag, cred);
#endif
}

/*
 * v6.2 "fs: rename current get acl method" / "fs: add new get acl method":
 * POSIX ACLs no longer travel as xattrs; ->get_acl and ->set_acl take the
 * dentry and the VFS routes system.posix_acl_* to them.  Before that, the
 * catch-all xattr handler forwards ACL xattrs like any other.
 */
#ifdef DAZUKOFS_HAVE_GET_INODE_ACL
#define DAZUKOFS_ACL_DENTRY_OPS 1
#endif

/*
 * v6.7 "fs: Add AT_GETATTR_NOSEC": vfs_getattr() has done the security
 * check and says so to ->getattr, which must then not ask again.
 */
#ifdef DAZUKOFS_HAVE_GETATTR_NOSEC
#define DAZUKOFS_GETATTR_NOSEC AT_GETATTR_NOSEC
#else
#define DAZUKOFS_GETATTR_NOSEC 0
#endif

static inline int dazukofs_vfs_getattr(const struct path *path,
				       struct kstat *stat, u32 request_mask,
				       unsigned int flags)
{
	if (flags & DAZUKOFS_GETATTR_NOSEC)
		return vfs_getattr_nosec(path, stat, request_mask, flags);
	return vfs_getattr(path, stat, request_mask, flags);
}

/*
 * Does @file make no fsnotify events at all, as fanotify's event fds and
 * the fds dazukofs hands to its workers?  v6.14 "fsnotify: opt-in for
 * permission events at file open time" (in Debian's 6.12) added
 * FMODE_NONOTIFY_PERM: FMODE_NONOTIFY alone still means no events, but
 * both bits, which an ordinary open gets while the filesystem has
 * permission watchers, only mean no pre-content events.  Before it,
 * FMODE_NONOTIFY alone existed.  Both set it from __FMODE_NONOTIFY in the
 * open flags (OPEN_FMODE()).
 */
static inline bool dazukofs_file_nonotify(const struct file *file)
{
#ifdef DAZUKOFS_HAVE_FMODE_FSNOTIFY_NONE
	return FMODE_FSNOTIFY_NONE(file->f_mode);
#else
	return file->f_mode & FMODE_NONOTIFY;
#endif
}

/*
 * The inode's timestamps: v6.6 "fs: add ctime accessors infrastructure"
 * (also in Debian's 6.1) and v6.7 "fs: add infrastructure for multigrain
 * timestamps"' accessors for mtime; before, plain fields.
 */
#ifdef DAZUKOFS_HAVE_INODE_GET_CTIME
#define dazukofs_inode_ctime inode_get_ctime
#else
static inline struct timespec64 dazukofs_inode_ctime(const struct inode *inode)
{
	return inode->i_ctime;
}
#endif

#ifdef DAZUKOFS_HAVE_INODE_GET_MTIME
#define dazukofs_inode_mtime inode_get_mtime
#else
static inline struct timespec64 dazukofs_inode_mtime(const struct inode *inode)
{
	return inode->i_mtime;
}
#endif

/*
 * An fsnotify group's mark on an inode, with a reference: v6.8 "fsnotify:
 * create helpers to get sb and connp from object" made fsnotify_find_mark()
 * take the object and added fsnotify_find_inode_mark().
 */
#ifdef DAZUKOFS_HAVE_FIND_INODE_MARK
#define dazukofs_find_inode_mark fsnotify_find_inode_mark
#else
static inline struct fsnotify_mark *
dazukofs_find_inode_mark(struct inode *inode, struct fsnotify_group *group)
{
	return fsnotify_find_mark(&inode->i_fsnotify_marks, group);
}
#endif

/*
 * Our fsnotify group's marks are destroyed from inode eviction, in
 * reclaim: its lock must not recurse into the filesystem.  6.1's groups
 * ask for that with FSNOTIFY_GROUP_NOFS; 6.12's all lock that way and the
 * flag is gone.
 */
#ifdef DAZUKOFS_HAVE_FSNOTIFY_GROUP_NOFS
#define DAZUKOFS_FSNOTIFY_GROUP_FLAGS FSNOTIFY_GROUP_NOFS
#else
#define DAZUKOFS_FSNOTIFY_GROUP_FLAGS 0
#endif

/*
 * The lower file a dazukofs file does its I/O through.  Where the kernel
 * has backing files (v6.6 "fs: use backing_file container for internal
 * files with a user path"; Debian's 6.12 has the later form that takes the
 * user file), it is one: /proc/PID/maps shows the dazukofs path of a
 * mapping, and it does not count against file-max (FMODE_NOACCOUNT).
 * Elsewhere, as on 6.1, a plain open of the lower path.
 */
static inline struct file *dazukofs_open_backing(const struct file *user_file,
						 int flags,
						 const struct path *real_path,
						 const struct cred *cred)
{
#ifdef DAZUKOFS_HAVE_BACKING_FILE_USER_FILE
	return backing_file_open(user_file, flags, real_path, cred);
#else
	return dentry_open(real_path, flags, cred);
#endif
}

/*
 * v6.8 "fs: factor out backing_file_{read,write}_iter() helpers", in the
 * form whose callbacks take the user file (Debian's 6.12): read and write
 * through the lower file, and an asynchronous kiocb (aio, io_uring) stays
 * asynchronous: it is cloned onto the lower file and completed from the
 * lower's completion.  Elsewhere (6.1) module/backing.c does the same, the
 * way overlayfs did before the helpers.
 */
#ifdef DAZUKOFS_HAVE_BACKING_FILE_RW
#define dazukofs_backing_ctx backing_file_ctx
#define dazukofs_backing_read_iter backing_file_read_iter
#define dazukofs_backing_write_iter backing_file_write_iter

static inline int dazukofs_backing_init(void)
{
	return 0;
}

static inline void dazukofs_backing_exit(void)
{
}
#else
struct dazukofs_backing_ctx {
	const struct cred *cred;
	struct file *user_file;
	void (*accessed)(struct file *user_file);
	void (*end_write)(struct file *user_file, loff_t pos, ssize_t ret);
};

ssize_t dazukofs_backing_read_iter(struct file *file, struct iov_iter *iter,
				   struct kiocb *iocb, int flags,
				   struct dazukofs_backing_ctx *ctx);
ssize_t dazukofs_backing_write_iter(struct file *file, struct iov_iter *iter,
				    struct kiocb *iocb, int flags,
				    struct dazukofs_backing_ctx *ctx);
int dazukofs_backing_init(void);
void dazukofs_backing_exit(void);
#endif

/*
 * v6.8 "fs: factor out backing_file_splice_{read,write}() helpers": the
 * lower file splices its own pages into the pipe, with no copy, as a
 * splice from the lower does.  Elsewhere (6.1) the dazukofs file splices
 * through its ->read_iter, a copy.
 */
#if defined(DAZUKOFS_HAVE_BACKING_FILE_SPLICE) && \
	defined(DAZUKOFS_HAVE_BACKING_FILE_USER_FILE) && \
	defined(DAZUKOFS_HAVE_BACKING_FILE_RW)
#define dazukofs_backing_splice_read backing_file_splice_read
#else
static inline ssize_t
dazukofs_backing_splice_read(struct file *lower, loff_t *ppos,
			     struct pipe_inode_info *pipe, size_t len,
			     unsigned int flags,
			     struct dazukofs_backing_ctx *ctx)
{
	return dazukofs_read_iter_splice_read(ctx->user_file, ppos, pipe, len,
					      flags);
}
#endif

/*
 * v6.8 "fs: factor out backing_file_mmap() helper": the lower file is
 * mapped in the dazukofs file's place, and an LSM that knows backing files
 * checks that mapping too (security_mmap_backing_file(), which Debian's
 * 6.12 has).  It takes a backing file and the read/write helpers' ctx.
 * Elsewhere (6.1) the same steps by hand; that kernel has no such hook.
 */
#if defined(DAZUKOFS_HAVE_BACKING_FILE_MMAP) && \
	defined(DAZUKOFS_HAVE_BACKING_FILE_USER_FILE) && \
	defined(DAZUKOFS_HAVE_BACKING_FILE_RW)
#define dazukofs_backing_mmap backing_file_mmap
#else
static inline int dazukofs_backing_mmap(struct file *lower,
					struct vm_area_struct *vma,
					struct dazukofs_backing_ctx *ctx)
{
	int err;

	if (!lower->f_op->mmap)
		return -ENODEV;
	vma_set_file(vma, lower);
	err = call_mmap(lower, vma);
	if (ctx->accessed)
		ctx->accessed(ctx->user_file);
	return err;
}
#endif

/* v6.3 "mm: introduce vma->vm_flags wrapper functions" */
static inline void dazukofs_vm_flags_clear(struct vm_area_struct *vma,
					   vm_flags_t flags)
{
#ifdef DAZUKOFS_HAVE_VM_FLAGS_CLEAR
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

/*
 * v6.6 "fs: add IOCB flags related to passing back dio completions": an
 * issuer may ask to complete a direct write itself, which a stacked file
 * cannot pass on (its lower completion is not the issuer's).
 */
#ifdef DAZUKOFS_HAVE_IOCB_DIO_CALLER_COMP
#define DAZUKOFS_IOCB_UNSTACKABLE IOCB_DIO_CALLER_COMP
#else
#define DAZUKOFS_IOCB_UNSTACKABLE 0
#endif

/*
 * The lower superblock's freeze protection for an asynchronous write, held
 * from its submission to its completion.  v6.7 "fs: move file_start_write()
 * into vfs_iter_write()" made vfs_iocb_iter_write() take it (and drop it
 * when the write did not queue); before, the caller did both.  The
 * completion drops it in any case.
 */
static inline void dazukofs_iocb_start_write(struct kiocb *iocb)
{
#ifndef DAZUKOFS_HAVE_ITER_WRITE_FREEZE
	struct super_block *sb = file_inode(iocb->ki_filp)->i_sb;

	sb_start_write(sb);
	/* Held past the return to user space: lockdep must not see it. */
	__sb_writers_release(sb, SB_FREEZE_WRITE);
#endif
}

static inline void dazukofs_iocb_end_write(struct kiocb *iocb)
{
	struct super_block *sb = file_inode(iocb->ki_filp)->i_sb;

	/* Inherited from the submitting task. */
	__sb_writers_acquired(sb, SB_FREEZE_WRITE);
	sb_end_write(sb);
}

/* A write that did not queue: dazukofs_iocb_start_write() undone. */
static inline void dazukofs_iocb_write_returned(struct kiocb *iocb)
{
#ifndef DAZUKOFS_HAVE_ITER_WRITE_FREEZE
	dazukofs_iocb_end_write(iocb);
#endif
}

/*
 * v6.3 "vfs: plumb i_version handling into struct kstat": getattr reports
 * a file's change counter, also where the filesystem keeps it apart from
 * i_version's machinery (NFS's change attribute).  Before that, only
 * i_version, read so that the next change moves it on.
 */
#ifdef DAZUKOFS_HAVE_STATX_CHANGE_COOKIE
#define DAZUKOFS_STATX_CHANGE_COOKIE	STATX_CHANGE_COOKIE
#else
#define DAZUKOFS_STATX_CHANGE_COOKIE	0
#endif

static inline u64 dazukofs_change_cookie(const struct kstat *stat,
					 struct inode *inode)
{
#ifdef DAZUKOFS_HAVE_STATX_CHANGE_COOKIE
	if (stat->result_mask & STATX_CHANGE_COOKIE)
		return stat->change_cookie;
#endif
	return IS_I_VERSION(inode) ? inode_query_iversion(inode) : 0;
}

/*
 * The file and owner of a lock request: v6.9 "filelock: split common
 * fields into struct file_lock_core" moved them into fl->c.
 */
#ifdef DAZUKOFS_HAVE_FILE_LOCK_CORE
static inline struct file **dazukofs_fl_file(struct file_lock *fl)
{
	return &fl->c.flc_file;
}

static inline fl_owner_t *dazukofs_fl_owner(struct file_lock *fl)
{
	return &fl->c.flc_owner;
}
#else
static inline struct file **dazukofs_fl_file(struct file_lock *fl)
{
	return &fl->fl_file;
}

static inline fl_owner_t *dazukofs_fl_owner(struct file_lock *fl)
{
	return &fl->fl_owner;
}
#endif

/*
 * The VFS's own copy by splicing, for a ->copy_file_range that cannot do
 * better: v6.8 "fs: use splice_copy_file_range() inline helper" replaced
 * generic_copy_file_range().
 */
static inline ssize_t dazukofs_splice_copy(struct file *in, loff_t pos_in,
					   struct file *out, loff_t pos_out,
					   size_t len, unsigned int flags)
{
#ifdef DAZUKOFS_HAVE_SPLICE_COPY_FILE_RANGE
	return splice_copy_file_range(in, pos_in, out, pos_out, len);
#else
	return generic_copy_file_range(in, pos_in, out, pos_out, len, flags);
#endif
}

/*
 * v6.7 "fs: move file_start_write() into vfs_iter_write()" also made
 * iter_file_splice_write() call ->write_iter directly, without the
 * fsnotify event vfs_iter_write() sends: a splice into the lower through
 * its ->splice_write must send it itself.  Before, the write did.
 */
static inline void dazukofs_spliced_into(struct file *lower)
{
#ifdef DAZUKOFS_HAVE_ITER_WRITE_FREEZE
	fsnotify_modify(lower);
#endif
}

#endif /* _DAZUKOFS_COMPAT_H */
