// SPDX-License-Identifier: GPL-2.0
/*
 * dazukofs files: each open dazukofs file owns an open lower file and does
 * all I/O through it.  File data is cached once, in the lower inode's page
 * cache; mmap maps the lower file itself, so writes through a shared
 * mapping, read()/write() and changes made directly to the lower file all
 * see the same pages.
 */

#include <linux/fs.h>
#include <linux/fs_stack.h>
#include <linux/fscrypt.h>
#include <linux/fsverity.h>
#include <linux/fadvise.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/uio.h>

#include "dazukofs.h"

/* fcntl(F_SETFL) may change these on the dazukofs file after open. */
#define DAZUKOFS_SETFL_MASK (O_APPEND | O_NONBLOCK | O_NDELAY | O_DIRECT)

/*
 * Bring the lower file's status flags in line with the dazukofs file's.
 * Called before each I/O: a change by fcntl(F_SETFL) is rare, so the fast
 * path is one comparison.
 */
static int dazukofs_sync_flags(struct file *file, struct file *lower)
{
	unsigned int flags = READ_ONCE(file->f_flags) & DAZUKOFS_SETFL_MASK;
	int err;

	if (likely(flags == (READ_ONCE(lower->f_flags) & DAZUKOFS_SETFL_MASK)))
		return 0;
	/* fcntl() checked the dazukofs inode, which may lag behind. */
	if (!(flags & O_APPEND) && IS_APPEND(file_inode(lower)))
		return -EPERM;
	if ((flags & O_DIRECT) && !(lower->f_mode & FMODE_CAN_ODIRECT))
		return -EINVAL;
	if (lower->f_op->check_flags) {
		err = lower->f_op->check_flags(flags);
		if (err)
			return err;
	}
	spin_lock(&lower->f_lock);
	lower->f_flags = (lower->f_flags & ~DAZUKOFS_SETFL_MASK) | flags;
	lower->f_iocb_flags = iocb_flags(lower);
	spin_unlock(&lower->f_lock);
	return 0;
}

/*
 * may_open() checked append-only on the dazukofs inode, whose copy of the
 * flags a chattr made directly on the lower may have left behind (an RCU
 * path walk does not refresh it), and dentry_open() does not check the
 * lower inode.  Check the lower's own flags the way may_open() does.
 * Immutable needs no check here: ->permission asks the lower inode.
 */
static int dazukofs_may_open_lower(const struct inode *lower_inode,
				   const struct file *file)
{
	if (!IS_APPEND(lower_inode))
		return 0;
	if ((file->f_mode & FMODE_WRITE) && !(file->f_flags & O_APPEND))
		return -EPERM;
	if (file->f_flags & O_TRUNC)
		return -EPERM;
	return 0;
}

/*
 * Before any open of a dazukofs file: the flags refreshed (fcntl(F_SETFL)
 * checks IS_APPEND on this inode) and checked against the lower's.
 */
static int dazukofs_open_check(struct inode *inode, struct file *file,
			       const struct path *lower_path)
{
	/*
	 * An exec reads the set-id bits from our inode next: copy them as
	 * the lower mount's nosuid says now (dazukofs_copy_attr()).
	 */
	if (file->f_flags & __FMODE_EXEC)
		dazukofs_copy_attr(inode);
	else
		dazukofs_copy_flags(inode);
	return dazukofs_may_open_lower(d_inode(lower_path->dentry), file);
}

/* Open the lower file that the dazukofs file does its I/O through. */
static int dazukofs_open_lower(struct file *file, const struct path *lower_path)
{
	/* Creation and truncation were done through the inode operations. */
	int flags = file->f_flags & ~(O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC);
	struct file *lower;

	/*
	 * 6.1's overlayfs opens the files of its upper layer with
	 * FMODE_NONOTIFY, under its own path.  A lower file opened for
	 * writing that way would change with no fsnotify event: the lower's
	 * watchers, the verdict cache's mark among them, would not hear of
	 * it.  (A fanotify listener's own fd keeps it: under our path.)
	 */
	if ((file->f_mode & FMODE_WRITE) &&
	    file->f_path.dentry->d_sb != file_inode(file)->i_sb)
		flags &= ~__FMODE_NONOTIFY;
	lower = dazukofs_open_backing(file, flags, lower_path, current_cred());
	if (IS_ERR(lower))
		return PTR_ERR(lower);

	file->private_data = lower;
	/*
	 * Never FMODE_BUF_RASYNC: io_uring's buffered retry hands the kiocb
	 * a wait queue entry that a clone onto the lower file does not carry.
	 */
	file->f_mode |= lower->f_mode & (FMODE_CAN_ODIRECT | FMODE_NOWAIT);
	return 0;
}

/*
 * file_dentry(), not f_path: 6.1's overlayfs opens a file of its lower
 * layer under its own path (open_with_fake_path()), so f_path may be an
 * overlayfs dentry when dazukofs is an overlayfs lower layer.
 */
static int dazukofs_open(struct inode *inode, struct file *file)
{
	struct path lower_path;
	int err;

	dazukofs_lower_path(file_dentry(file), &lower_path);
	err = dazukofs_open_check(inode, file, &lower_path);
	if (err)
		return err;
	return dazukofs_open_lower(file, &lower_path);
}

/*
 * Regular files: every open is an access event first.  Only an open that
 * makes no fsnotify events under dazukofs's own path is exempt (a worker's
 * or a fanotify listener's fd).  6.1's overlayfs opens the files of its
 * lower layer with FMODE_NONOTIFY under its own path, on behalf of its
 * opener: that open is checked, or an overlayfs stacked on the mount
 * would let every file through unscanned.
 */
static int dazukofs_file_open(struct inode *inode, struct file *file)
{
	struct path lower_path;
	int err;

	dazukofs_lower_path(file_dentry(file), &lower_path);
	/* No event for an open that the lower's flags refuse anyway. */
	err = dazukofs_open_check(inode, file, &lower_path);
	if (err)
		return err;
	if (!dazukofs_file_nonotify(file) ||
	    file->f_path.dentry->d_sb != inode->i_sb) {
		err = dazukofs_check_access(&lower_path, file);
		if (err)
			return err;
	}
	err = dazukofs_open_lower(file, &lower_path);
	if (err || !(file->f_flags & __FMODE_EXEC))
		return err;
	/*
	 * exec denies writers of the dazukofs inode only.  Deny those of the
	 * lower inode as well, for as long as this file lives (an mm's
	 * exe_file holds it), so that a running program cannot be changed
	 * through the lower path, and one open for writing there cannot be
	 * run: ETXTBSY both ways, as on the lower itself.
	 */
	err = deny_write_access(dazukofs_lower_file(file));
	if (err) {
		fput(dazukofs_lower_file(file));
		file->private_data = NULL;
	}
	return err;
}

/*
 * A close-after-write event to post once the lower file is released.  It
 * holds the dazukofs mount, and so the superblock and this module: the
 * closer's last mntput() may come before the work runs.
 */
struct dazukofs_closed_write {
	struct callback_head work;
	struct path lower_path;
	struct vfsmount *mnt;
};

static void dazukofs_closed_write_post(struct callback_head *work)
{
	struct dazukofs_closed_write *cw =
		container_of(work, struct dazukofs_closed_write, work);
	struct vfsmount *mnt = cw->mnt;

	dazukofs_close_write(&cw->lower_path,
			     dazukofs_sb_remembers(mnt->mnt_sb));
	path_put(&cw->lower_path);
	kfree(cw);
	/* A last reference is dropped later, in a task or delayed work. */
	mntput(mnt);
}

/*
 * Release the lower file of a writable dazukofs file, then post the close
 * to the groups that want it.  The event must come after the lower file's
 * own release, which drops its write access: a worker whose fd finds the
 * file still open for writing could not have its verdict remembered (see
 * dazukofs_verdict_snapshot()).  fput() releases in a task work of the
 * closer; task works run last in, first out, so ours, added before,
 * runs after it.  A kernel thread may release at once.  A lower file
 * that outlives this (a shared mapping holds it) still has its writer
 * when the close is posted: dazukofs_close_write() leaves it to the next
 * open.
 */
static void dazukofs_release_written(struct file *file, struct file *lower)
{
	struct dazukofs_closed_write *cw;

	cw = kmalloc(sizeof(*cw), GFP_KERNEL);
	if (!cw) {
		/* The next open of the file is an event as usual. */
		fput(lower);
		return;
	}
	cw->lower_path = lower->f_path;
	path_get(&cw->lower_path);
	cw->mnt = mntget(file->f_path.mnt);
	if (current->flags & PF_KTHREAD) {
		__fput_sync(lower);
		dazukofs_closed_write_post(&cw->work);
		return;
	}
	init_task_work(&cw->work, dazukofs_closed_write_post);
	if (task_work_add(current, &cw->work, TWA_RESUME)) {
		/* Exiting: no task work; the release is deferred too. */
		fput(lower);
		dazukofs_closed_write_post(&cw->work);
		return;
	}
	fput(lower);
}

static int dazukofs_release(struct inode *inode, struct file *file)
{
	struct file *lower = dazukofs_lower_file(file);

	if (file->f_flags & __FMODE_EXEC)
		allow_write_access(lower);

	if ((file->f_mode & FMODE_WRITE) && dazukofs_close_write_wanted())
		dazukofs_release_written(file, lower);
	else
		fput(lower);
	return 0;
}

static void dazukofs_file_accessed(struct file *file)
{
	fsstack_copy_attr_atime(file_inode(file),
				file_inode(dazukofs_lower_file(file)));
}

/* What reading, splicing from or mapping @file does on its lower file. */
static struct dazukofs_backing_ctx dazukofs_read_ctx(struct file *file)
{
	return (struct dazukofs_backing_ctx) {
		.cred = current_cred(),
		.user_file = file,
		.accessed = dazukofs_file_accessed,
	};
}

/* Also run from a workqueue, for an asynchronous write once complete. */
static void dazukofs_file_end_write(struct file *file, loff_t pos,
				    ssize_t ret)
{
	dazukofs_copy_attr(file_inode(file));
}

static ssize_t dazukofs_read_iter(struct kiocb *iocb, struct iov_iter *iter)
{
	struct file *file = iocb->ki_filp;
	struct file *lower = dazukofs_lower_file(file);
	struct dazukofs_backing_ctx ctx = dazukofs_read_ctx(file);
	ssize_t ret;

	if (!iov_iter_count(iter))
		return 0;
	ret = dazukofs_sync_flags(file, lower);
	if (ret)
		return ret;
	return dazukofs_backing_read_iter(lower, iter, iocb, iocb->ki_flags,
					  &ctx);
}

/*
 * Under the dazukofs inode's lock, as overlayfs writes: removing the
 * setuid bits of the dazukofs file needs it.  So writes to one file
 * through the mount are serialised even where the lower would run direct
 * overwrites side by side, and a chmod waits for a write in progress.  A
 * nowait write does not wait for the lock (io_uring then retries from a
 * worker).
 */
static ssize_t dazukofs_write_iter(struct kiocb *iocb, struct iov_iter *iter)
{
	struct file *file = iocb->ki_filp;
	struct inode *inode = file_inode(file);
	struct file *lower = dazukofs_lower_file(file);
	struct dazukofs_backing_ctx ctx = {
		.cred = current_cred(),
		.user_file = file,
		.end_write = dazukofs_file_end_write,
	};
	ssize_t ret;

	if (!iov_iter_count(iter))
		return 0;
	if (iocb->ki_flags & IOCB_NOWAIT) {
		if (!inode_trylock(inode))
			return -EAGAIN;
	} else {
		inode_lock(inode);
	}
	/* The mode that file_remove_privs() looks at. */
	dazukofs_copy_attr(inode);
	ret = dazukofs_sync_flags(file, lower);
	if (!ret)
		ret = dazukofs_backing_write_iter(lower, iter, iocb,
						  iocb->ki_flags, &ctx);
	inode_unlock(inode);
	return ret;
}

/*
 * The dazukofs file's position is the truth (the VFS serialises seeks and
 * I/O on it); the lower file answers from it, which also gives SEEK_DATA,
 * SEEK_HOLE and directory cookies the lower filesystem's meaning.
 */
static loff_t dazukofs_llseek(struct file *file, loff_t offset, int whence)
{
	struct file *lower = dazukofs_lower_file(file);
	loff_t ret;

	lower->f_pos = file->f_pos;
	ret = vfs_llseek(lower, offset, whence);
	file->f_pos = lower->f_pos;
	return ret;
}

static int dazukofs_fsync(struct file *file, loff_t start, loff_t end,
			  int datasync)
{
	return vfs_fsync_range(dazukofs_lower_file(file), start, end, datasync);
}

static int dazukofs_flush(struct file *file, fl_owner_t id)
{
	struct file *lower = dazukofs_lower_file(file);
	int err = 0;

	if (!lower)
		return 0;
	if (lower->f_op->flush)
		err = lower->f_op->flush(lower, id);
	/* The close drops the closer's POSIX locks, which are the lower's. */
	locks_remove_posix(lower, id);
	return err;
}

/* splice(2) and sendfile(2) from a dazukofs file, through its lower file. */
static ssize_t dazukofs_splice_read(struct file *in, loff_t *ppos,
				    struct pipe_inode_info *pipe, size_t len,
				    unsigned int flags)
{
	struct file *lower = dazukofs_lower_file(in);
	struct dazukofs_backing_ctx ctx = dazukofs_read_ctx(in);
	ssize_t ret;

	/* O_DIRECT decides how the lower splices. */
	ret = dazukofs_sync_flags(in, lower);
	if (ret)
		return ret;
	return dazukofs_backing_splice_read(lower, ppos, pipe, len, flags,
					    &ctx);
}

/* From here on the mapping is the lower file's own. */
static int dazukofs_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct dazukofs_backing_ctx ctx = dazukofs_read_ctx(file);
	struct inode *lower_inode = file_inode(dazukofs_lower_file(file));

	/* The lower mount's noexec now: do_mmap() looked only at ours. */
	if (dazukofs_lower_mnt_flags(file_inode(file)->i_sb) & MNT_NOEXEC) {
		if (vma->vm_flags & VM_EXEC)
			return -EPERM;
		/* Nor PROT_EXEC by a later mprotect(). */
		dazukofs_vm_flags_clear(vma, VM_MAYEXEC);
	}
	/* Shared and writable, now or after an mprotect(): see verdict.c. */
	if ((vma->vm_flags & (VM_SHARED | VM_MAYWRITE)) ==
	    (VM_SHARED | VM_MAYWRITE)) {
		int err = dazukofs_verdict_mapped_shared(lower_inode);

		if (err)
			return err;
	}

	return dazukofs_backing_mmap(dazukofs_lower_file(file), vma, &ctx);
}

static long dazukofs_fallocate(struct file *file, int mode, loff_t offset,
			       loff_t len)
{
	struct file *lower = dazukofs_lower_file(file);
	long ret;

	ret = vfs_fallocate(lower, mode, offset, len);
	dazukofs_copy_attr(file_inode(file));
	return ret;
}

static int dazukofs_fadvise(struct file *file, loff_t offset, loff_t len,
			    int advice)
{
	return vfs_fadvise(dazukofs_lower_file(file), offset, len, advice);
}

/*
 * splice(2), sendfile(2) and the splice fallback of copy_file_range(2)
 * into a dazukofs file.  The lower filesystem's freeze protection must be
 * taken before the pipe lock, the order of a direct splice into the lower
 * (do_splice() takes it before ->splice_write locks the pipe).  The generic
 * iter_file_splice_write() on the dazukofs file would take it under the
 * pipe lock, in ->write_iter: an ABBA against a direct splice that a
 * freeze of the lower turns into a deadlock.  fs/backing-file.c and
 * overlayfs order it this way too.  Not backing_file_splice_write(): it
 * refuses a lower without ->splice_write, and posts no FS_MODIFY on the
 * lower file, which a remembered verdict's mark counts.
 */
static ssize_t dazukofs_splice_write(struct pipe_inode_info *pipe,
				     struct file *out, loff_t *ppos,
				     size_t len, unsigned int flags)
{
	struct file *lower = dazukofs_lower_file(out);
	ssize_t ret;

	/* Nothing splices into such a lower directly: no order to keep. */
	if (!lower->f_op->splice_write)
		return iter_file_splice_write(pipe, out, ppos, len, flags);
	ret = dazukofs_sync_flags(out, lower);
	if (ret)
		return ret;
	file_start_write(lower);
	ret = lower->f_op->splice_write(pipe, lower, ppos, len, flags);
	file_end_write(lower);
	if (ret > 0)
		dazukofs_spliced_into(lower);
	dazukofs_copy_attr(file_inode(out));
	return ret;
}

/*
 * copy_file_range(2) between dazukofs files (the VFS calls this only when
 * both are: the same ->copy_file_range): the lower files copy, so that a
 * lower which shares extents or copies on its server (NFS, CIFS) still
 * does, and a copy the lower cannot do falls back to its own splice.
 */
static ssize_t dazukofs_copy_file_range(struct file *in, loff_t pos_in,
					struct file *out, loff_t pos_out,
					size_t len, unsigned int flags)
{
	struct file *lower_out = dazukofs_lower_file(out);
	ssize_t ret;

	ret = dazukofs_sync_flags(out, lower_out);
	if (ret)
		return ret;
	ret = vfs_copy_file_range(dazukofs_lower_file(in), pos_in,
				  lower_out, pos_out, len, flags);
	/*
	 * The VFS does not fall back once a ->copy_file_range exists; some
	 * lowers refuse where a copy by splicing works (overlayfs, files of
	 * two layers): splice through the dazukofs files then.
	 */
	if (ret == -EXDEV || ret == -EOPNOTSUPP)
		ret = dazukofs_splice_copy(in, pos_in, out, pos_out, len, flags);
	dazukofs_copy_attr(file_inode(out));
	return ret;
}

/*
 * FICLONE, FICLONERANGE and FIDEDUPERANGE between dazukofs files of one
 * mount (the VFS checks the superblock): the lower files share extents.
 * The mask is overlayfs's: REMAP_FILE_CAN_SHORTEN, from the clone attempt
 * of vfs_copy_file_range(), never reaches here because a dazukofs file has
 * a ->copy_file_range, which the VFS prefers.
 */
static loff_t dazukofs_remap_file_range(struct file *in, loff_t pos_in,
					struct file *out, loff_t pos_out,
					loff_t len, unsigned int remap_flags)
{
	struct file *lower_in = dazukofs_lower_file(in);
	struct file *lower_out = dazukofs_lower_file(out);
	loff_t ret;

	if (remap_flags & ~(REMAP_FILE_DEDUP | REMAP_FILE_ADVISORY))
		return -EINVAL;
	ret = dazukofs_sync_flags(out, lower_out);
	if (ret)
		return ret;
	if (remap_flags & REMAP_FILE_DEDUP)
		ret = vfs_dedupe_file_range_one(lower_in, pos_in, lower_out,
						pos_out, len, remap_flags);
	else
		ret = vfs_clone_file_range(lower_in, pos_in, lower_out,
					   pos_out, len, remap_flags);
	dazukofs_copy_attr(file_inode(out));
	return ret;
}

/**
 * dazukofs_ioctl_forwarded() - may an ioctl pass to the lower file?
 * @cmd: the command, as userspace passed it
 * @compat: from a 32-bit task (->compat_ioctl)
 *
 * The generic ioctls (FS_IOC_GETFLAGS, FS_IOC_FSGETXATTR, FIEMAP, FICLONE,
 * FIFREEZE, ...) never get here: the VFS answers them through the dazukofs
 * inode and file operations.  Of the lower filesystem's own, only those
 * that read or change the file itself pass.  The rest could act on the
 * lower superblock beyond what a mount of it was meant to allow, or take
 * the file descriptor of another dazukofs file as one of the lower
 * filesystem's own (btrfs's snapshot and send ioctls, ext4's
 * EXT4_IOC_MOVE_EXT); they get ENOTTY, as from a filesystem that does not
 * know them.
 *
 * Return: true if @cmd is forwarded.
 */
static bool dazukofs_ioctl_forwarded(unsigned int cmd, bool compat)
{
	switch (cmd) {
	case FS_IOC_GETFSLABEL:
	case FS_IOC_GET_ENCRYPTION_POLICY:
	case FS_IOC_GET_ENCRYPTION_POLICY_EX:
	case FS_IOC_GET_ENCRYPTION_PWSALT:
	case FS_IOC_GET_ENCRYPTION_KEY_STATUS:
	case FS_IOC_GET_ENCRYPTION_NONCE:
	case FS_IOC_ENABLE_VERITY:
	case FS_IOC_MEASURE_VERITY:
	case FS_IOC_READ_VERITY_METADATA:
		return true;
	/* The 32-bit numbers differ: the argument is an int, not a long. */
	case FS_IOC_GETVERSION:
	case FS_IOC_SETVERSION:
		return !compat;
	case FS_IOC32_GETVERSION:
	case FS_IOC32_SETVERSION:
		return compat;
	}
	return false;
}

/*
 * Forwarded ioctls that write to the file or the lower superblock: the
 * lower filesystem checks only that its own mount is writable, so the
 * dazukofs mount's read-only state is checked here.
 */
static bool dazukofs_ioctl_writes(unsigned int cmd)
{
	switch (cmd) {
	case FS_IOC_ENABLE_VERITY:
	case FS_IOC_SETVERSION:
	case FS_IOC32_SETVERSION:
	case FS_IOC_GET_ENCRYPTION_PWSALT:	/* may create the salt */
		return true;
	}
	return false;
}

static long dazukofs_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg, bool compat)
{
	struct file *lower = dazukofs_lower_file(file);
	bool writes = dazukofs_ioctl_writes(cmd);
	long ret;

	if (!dazukofs_ioctl_forwarded(cmd, compat))
		return -ENOTTY;
	if (compat ? !lower->f_op->compat_ioctl : !lower->f_op->unlocked_ioctl)
		return -ENOTTY;
	ret = compat ? security_file_ioctl_compat(lower, cmd, arg) :
		       security_file_ioctl(lower, cmd, arg);
	if (ret)
		return ret;
	if (writes) {
		ret = mnt_want_write_file(file);
		if (ret)
			return ret;
	}
	if (compat)
		ret = lower->f_op->compat_ioctl(lower, cmd, arg);
	else
		ret = lower->f_op->unlocked_ioctl(lower, cmd, arg);
	if (writes)
		mnt_drop_write_file(file);
	dazukofs_copy_attr(file_inode(file));
	return ret;
}

static long dazukofs_unlocked_ioctl(struct file *file, unsigned int cmd,
				    unsigned long arg)
{
	return dazukofs_ioctl(file, cmd, arg, false);
}

#ifdef CONFIG_COMPAT
/* The lower's ->compat_ioctl converts the pointer in @arg itself. */
static long dazukofs_compat_ioctl(struct file *file, unsigned int cmd,
				  unsigned long arg)
{
	return dazukofs_ioctl(file, cmd, arg, true);
}
#else
#define dazukofs_compat_ioctl NULL
#endif

const struct file_operations dazukofs_file_fops = {
	.open		= dazukofs_file_open,
	.release	= dazukofs_release,
	.llseek		= dazukofs_llseek,
	.read_iter	= dazukofs_read_iter,
	.write_iter	= dazukofs_write_iter,
	.fsync		= dazukofs_fsync,
	.flush		= dazukofs_flush,
	.lock		= dazukofs_lock,
	.flock		= dazukofs_flock,
	.setlease	= simple_nosetlease,
	.mmap		= dazukofs_mmap,
	.fallocate	= dazukofs_fallocate,
	.fadvise	= dazukofs_fadvise,
	.unlocked_ioctl	= dazukofs_unlocked_ioctl,
	.compat_ioctl	= dazukofs_compat_ioctl,
	.splice_read	= dazukofs_splice_read,
	.splice_write	= dazukofs_splice_write,
	.copy_file_range = dazukofs_copy_file_range,
	.remap_file_range = dazukofs_remap_file_range,
};

/*
 * Directories: iterate the lower directory from the dazukofs file's
 * position, so entries, d_type, inode numbers and cookies are the lower's.
 */
static int dazukofs_iterate_shared(struct file *file, struct dir_context *ctx)
{
	struct file *lower = dazukofs_lower_file(file);

	lower->f_pos = ctx->pos;
	return iterate_dir(lower, ctx);
}

const struct file_operations dazukofs_dir_fops = {
	.open		= dazukofs_open,
	.release	= dazukofs_release,
	.flush		= dazukofs_flush,
	.lock		= dazukofs_lock,
	.flock		= dazukofs_flock,
	.llseek		= dazukofs_llseek,
	.read		= generic_read_dir,
	.iterate_shared	= dazukofs_iterate_shared,
	.fsync		= dazukofs_fsync,
	.unlocked_ioctl	= dazukofs_unlocked_ioctl,
	.compat_ioctl	= dazukofs_compat_ioctl,
};
