// SPDX-License-Identifier: GPL-2.0
/*
 * Compile-test probes of the kernel API, one per DAZUKOFS_HAVE_* macro.
 *
 * Never built into the module: module/Kbuild compiles this file once per
 * probe, with the kernel's own flags and -DPROBE_<NAME>, and defines
 * DAZUKOFS_HAVE_<NAME> when that compiles.  A probe uses the feature the
 * way module/compat.h does, so that the answer cannot come from a comment
 * or a stale declaration in a header.
 */
#include <linux/fs.h>
#include <linux/fsnotify_backend.h>
#include <linux/mount.h>
#include <linux/splice.h>
#include <linux/stat.h>

#if defined(PROBE_BACKING_FILE_USER_FILE) || defined(PROBE_BACKING_FILE_RW) || \
	defined(PROBE_BACKING_FILE_MMAP) || defined(PROBE_BACKING_FILE_SPLICE)
#include <linux/backing-file.h>
#include <linux/mm_types.h>
#endif
#if defined(PROBE_FILE_LOCK_CORE)
#include <linux/filelock.h>
#endif
#if defined(PROBE_VM_FLAGS_CLEAR)
#include <linux/mm.h>
#endif

#ifdef PROBE_SANITY
/* Compiles everywhere: if it does not, the probes themselves are broken. */
int dazukofs_probe(struct file *file);
int dazukofs_probe(struct file *file)
{
	return !!file_inode(file);
}
#endif

#ifdef PROBE_MNT_IDMAP
/* v6.3 "fs: port to struct mnt_idmap" */
struct mnt_idmap *dazukofs_probe(struct vfsmount *mnt);
struct mnt_idmap *dazukofs_probe(struct vfsmount *mnt)
{
	return mnt_idmap(mnt);
}
#endif

#ifdef PROBE_ITER_WRITE_FREEZE
/* v6.7 "fs: move file_start_write() into vfs_iter_write()" */
void dazukofs_probe(struct file *file);
void dazukofs_probe(struct file *file)
{
	file_write_not_started(file);
}
#endif

#ifdef PROBE_COPY_SPLICE_READ
/* v6.5 "splice: Remove generic_file_splice_read()" */
ssize_t (*dazukofs_probe)(struct file *in, loff_t *ppos,
			  struct pipe_inode_info *pipe, size_t len,
			  unsigned int flags) = copy_splice_read;
#endif

#ifdef PROBE_KERNEL_TMPFILE_OPEN
/* v6.2 "fs: rename vfs_tmpfile_open() to kernel_tmpfile_open()" */
struct file *dazukofs_probe(struct mnt_idmap *idmap, const struct path *parent,
			    umode_t mode, int open_flag, const struct cred *cred);
struct file *dazukofs_probe(struct mnt_idmap *idmap, const struct path *parent,
			    umode_t mode, int open_flag, const struct cred *cred)
{
	return kernel_tmpfile_open(idmap, parent, mode, open_flag, cred);
}
#endif

#ifdef PROBE_GET_INODE_ACL
/* v6.2 "fs: rename current get acl method" */
const struct inode_operations dazukofs_probe = { .get_inode_acl = NULL };
#endif

#ifdef PROBE_INODE_GET_CTIME
/* v6.6 "fs: add ctime accessors infrastructure" */
struct timespec64 dazukofs_probe(const struct inode *inode);
struct timespec64 dazukofs_probe(const struct inode *inode)
{
	return inode_get_ctime(inode);
}
#endif

#ifdef PROBE_INODE_GET_MTIME
/* v6.7 "fs: add accessors for mtime" */
struct timespec64 dazukofs_probe(const struct inode *inode);
struct timespec64 dazukofs_probe(const struct inode *inode)
{
	return inode_get_mtime(inode);
}
#endif

#ifdef PROBE_FIND_INODE_MARK
/* v6.8 "fsnotify: create helpers to get sb and connp from object" */
struct fsnotify_mark *dazukofs_probe(struct inode *inode,
				     struct fsnotify_group *group);
struct fsnotify_mark *dazukofs_probe(struct inode *inode,
				     struct fsnotify_group *group)
{
	return fsnotify_find_inode_mark(inode, group);
}
#endif

#ifdef PROBE_BACKING_FILE_USER_FILE
/*
 * v6.8 "fs: factor out backing_file_{read,write}_iter() helpers" moved
 * backing_file_open() (v6.6) to <linux/backing-file.h>; Debian's 6.12.117
 * carries a later change that passes it the user file, not its path.
 */
struct file *dazukofs_probe(const struct file *user_file,
			    const struct path *real_path);
struct file *dazukofs_probe(const struct file *user_file,
			    const struct path *real_path)
{
	return backing_file_open(user_file, O_RDONLY, real_path,
				 current_cred());
}
#endif

#ifdef PROBE_BACKING_FILE_RW
/*
 * v6.8 "fs: factor out backing_file_{read,write}_iter() helpers", in the
 * form Debian's 6.12 has: the callbacks take the user file.  Later kernels
 * pass end_write the kiocb instead; they get module/backing.c.
 */
static void dazukofs_probe_end_write(struct file *user_file, loff_t pos,
				     ssize_t ret)
{
}

ssize_t dazukofs_probe(struct file *lower, struct kiocb *iocb,
		       struct iov_iter *iter);
ssize_t dazukofs_probe(struct file *lower, struct kiocb *iocb,
		       struct iov_iter *iter)
{
	struct backing_file_ctx ctx = {
		.cred = current_cred(),
		.user_file = iocb->ki_filp,
		.end_write = dazukofs_probe_end_write,
	};

	return backing_file_write_iter(lower, iter, iocb, iocb->ki_flags,
				       &ctx);
}
#endif

#ifdef PROBE_BACKING_FILE_MMAP
/* v6.8 "fs: factor out backing_file_mmap() helper", user-file callbacks */
static void dazukofs_probe_accessed(struct file *user_file)
{
}

int dazukofs_probe(struct file *lower, struct vm_area_struct *vma);
int dazukofs_probe(struct file *lower, struct vm_area_struct *vma)
{
	struct backing_file_ctx ctx = {
		.cred = current_cred(),
		.user_file = vma->vm_file,
		.accessed = dazukofs_probe_accessed,
	};

	return backing_file_mmap(lower, vma, &ctx);
}
#endif

#ifdef PROBE_VM_FLAGS_CLEAR
/* v6.3 "mm: introduce vma->vm_flags wrapper functions" */
void dazukofs_probe(struct vm_area_struct *vma);
void dazukofs_probe(struct vm_area_struct *vma)
{
	vm_flags_clear(vma, VM_MAYEXEC);
}
#endif

#ifdef PROBE_BACKING_FILE_SPLICE
/* v6.8 "fs: factor out backing_file_splice_{read,write}() helpers" */
ssize_t dazukofs_probe(struct file *lower, struct file *user_file,
		       struct pipe_inode_info *pipe);
ssize_t dazukofs_probe(struct file *lower, struct file *user_file,
		       struct pipe_inode_info *pipe)
{
	struct backing_file_ctx ctx = {
		.cred = current_cred(),
		.user_file = user_file,
	};
	loff_t pos = 0;

	return backing_file_splice_read(lower, &pos, pipe, 1, 0, &ctx);
}
#endif

#ifdef PROBE_FILE_LOCK_CORE
/* v6.9 "filelock: split common fields into struct file_lock_core" */
struct file **dazukofs_probe(struct file_lock *fl);
struct file **dazukofs_probe(struct file_lock *fl)
{
	return &fl->c.flc_file;
}
#endif

#ifdef PROBE_STATX_CHANGE_COOKIE
/* v6.3 "vfs: plumb i_version handling into struct kstat" */
u64 dazukofs_probe(const struct kstat *stat);
u64 dazukofs_probe(const struct kstat *stat)
{
	return stat->result_mask & STATX_CHANGE_COOKIE ? stat->change_cookie : 0;
}
#endif

#ifdef PROBE_SPLICE_COPY_FILE_RANGE
/* v6.8 "fs: use splice_copy_file_range() inline helper" */
long dazukofs_probe(struct file *in, struct file *out);
long dazukofs_probe(struct file *in, struct file *out)
{
	return splice_copy_file_range(in, 0, out, 0, 1);
}
#endif

#ifdef PROBE_GETATTR_NOSEC
/* v6.7 "fs: Add AT_GETATTR_NOSEC" */
int dazukofs_probe(const struct path *path, struct kstat *stat);
int dazukofs_probe(const struct path *path, struct kstat *stat)
{
	return vfs_getattr_nosec(path, stat, STATX_BASIC_STATS,
				 AT_GETATTR_NOSEC);
}
#endif

#ifdef PROBE_FMODE_FSNOTIFY_NONE
/* v6.14 "fsnotify: opt-in for permission events at file open time" */
bool dazukofs_probe(const struct file *file);
bool dazukofs_probe(const struct file *file)
{
	return FMODE_FSNOTIFY_NONE(file->f_mode);
}
#endif

#ifdef PROBE_FSNOTIFY_GROUP_NOFS
/* 6.1: a group asks for a reclaim-safe lock; gone by 6.12, where all are */
struct fsnotify_group *dazukofs_probe(const struct fsnotify_ops *ops);
struct fsnotify_group *dazukofs_probe(const struct fsnotify_ops *ops)
{
	return fsnotify_alloc_group(ops, FSNOTIFY_GROUP_NOFS);
}
#endif

#ifdef PROBE_IOCB_DIO_CALLER_COMP
/* v6.6 "fs: add IOCB flags related to passing back dio completions" */
bool dazukofs_probe(const struct kiocb *iocb);
bool dazukofs_probe(const struct kiocb *iocb)
{
	return iocb->ki_flags & IOCB_DIO_CALLER_COMP;
}
#endif
