// SPDX-License-Identifier: GPL-2.0
/*
 * Reads and writes of a dazukofs file through its lower file, for kernels
 * without the backing_file_{read,write}_iter() helpers that compat.h uses
 * where it can (6.1).  The same contract as fs/backing-file.c's:
 *
 * An asynchronous kiocb (aio, io_uring) on the dazukofs file is cloned onto
 * the lower file and submitted there, so that the submitter returns as soon
 * as the lower has queued the I/O; the lower's completion completes the
 * dazukofs kiocb.  Serving it synchronously instead would make io_submit()
 * and io_uring_enter() wait for the device.
 *
 * Lifetime: a struct dazukofs_aio holds a reference to the lower file and
 * two references of its own, the submitter's (dropped when the lower
 * returned from the submission) and the completion's (dropped when it has
 * run), whichever comes last frees it.
 */
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/workqueue.h>

#include "dazukofs.h"

#ifndef DAZUKOFS_HAVE_BACKING_FILE_RW

struct dazukofs_aio {
	struct kiocb iocb;		/* on the lower file */
	refcount_t ref;
	struct kiocb *orig_iocb;	/* on the dazukofs file */
	bool is_write;
	void (*end_write)(struct file *user_file, loff_t pos, ssize_t ret);
	struct work_struct work;
	long res;
};

static struct kmem_cache *dazukofs_aio_cache;
/*
 * Write completions run here, not in the lower's completion context (an
 * interrupt, for a direct write): end_write copies the lower's attributes.
 */
static struct workqueue_struct *dazukofs_aio_wq;

/* The per-call flags a synchronous lower I/O can take (RWF_* = IOCB_*). */
#define DAZUKOFS_IOCB_MASK \
	(IOCB_NOWAIT | IOCB_HIPRI | IOCB_DSYNC | IOCB_SYNC | IOCB_APPEND)

static rwf_t dazukofs_iocb_to_rwf(int flags)
{
	return (__force rwf_t)(flags & DAZUKOFS_IOCB_MASK);
}

static void dazukofs_aio_put(struct dazukofs_aio *aio)
{
	if (refcount_dec_and_test(&aio->ref)) {
		fput(aio->iocb.ki_filp);
		kmem_cache_free(dazukofs_aio_cache, aio);
	}
}

static void dazukofs_aio_cleanup(struct dazukofs_aio *aio, long res)
{
	struct kiocb *orig_iocb = aio->orig_iocb;

	if (aio->end_write)
		aio->end_write(orig_iocb->ki_filp, aio->iocb.ki_pos, res);
	orig_iocb->ki_pos = aio->iocb.ki_pos;
	dazukofs_aio_put(aio);
}

static void dazukofs_aio_complete(struct kiocb *iocb, long res)
{
	struct dazukofs_aio *aio = container_of(iocb, struct dazukofs_aio, iocb);
	struct kiocb *orig_iocb = aio->orig_iocb;

	if (aio->is_write)
		dazukofs_iocb_end_write(iocb);
	dazukofs_aio_cleanup(aio, res);
	orig_iocb->ki_complete(orig_iocb, res);
}

static void dazukofs_aio_complete_work(struct work_struct *work)
{
	struct dazukofs_aio *aio = container_of(work, struct dazukofs_aio, work);

	dazukofs_aio_complete(&aio->iocb, aio->res);
}

static void dazukofs_aio_queue_completion(struct kiocb *iocb, long res)
{
	struct dazukofs_aio *aio = container_of(iocb, struct dazukofs_aio, iocb);

	aio->res = res;
	INIT_WORK(&aio->work, dazukofs_aio_complete_work);
	queue_work(dazukofs_aio_wq, &aio->work);
}

/* A clone of @iocb on @file, which it pins, with both references taken. */
static struct dazukofs_aio *dazukofs_aio_alloc(struct kiocb *iocb,
					       struct file *file)
{
	struct dazukofs_aio *aio;

	aio = kmem_cache_zalloc(dazukofs_aio_cache, GFP_KERNEL);
	if (!aio)
		return NULL;
	aio->orig_iocb = iocb;
	kiocb_clone(&aio->iocb, iocb, get_file(file));
	refcount_set(&aio->ref, 2);
	return aio;
}

/**
 * dazukofs_backing_read_iter() - read a dazukofs file through its lower file
 * @file: the lower file
 * @iter: the destination
 * @iocb: the dazukofs file's kiocb
 * @flags: @iocb's flags to pass on
 * @ctx: the dazukofs file, the credentials to read with, the atime update
 *
 * Return: the bytes read, -EIOCBQUEUED if an asynchronous @iocb was queued
 * (completed later through its ki_complete), or a negative errno.
 */
ssize_t dazukofs_backing_read_iter(struct file *file, struct iov_iter *iter,
				   struct kiocb *iocb, int flags,
				   struct dazukofs_backing_ctx *ctx)
{
	const struct cred *old_cred;
	struct dazukofs_aio *aio;
	ssize_t ret;

	if (!iov_iter_count(iter))
		return 0;
	if ((iocb->ki_flags & IOCB_DIRECT) &&
	    !(file->f_mode & FMODE_CAN_ODIRECT))
		return -EINVAL;

	old_cred = override_creds(ctx->cred);
	if (is_sync_kiocb(iocb)) {
		ret = vfs_iter_read(file, iter, &iocb->ki_pos,
				    dazukofs_iocb_to_rwf(flags));
	} else {
		ret = -ENOMEM;
		aio = dazukofs_aio_alloc(iocb, file);
		if (aio) {
			aio->iocb.ki_complete = dazukofs_aio_complete;
			ret = vfs_iocb_iter_read(file, &aio->iocb, iter);
			dazukofs_aio_put(aio);
			if (ret != -EIOCBQUEUED)
				dazukofs_aio_cleanup(aio, ret);
		}
	}
	revert_creds(old_cred);

	if (ctx->accessed)
		ctx->accessed(ctx->user_file);
	return ret;
}

/**
 * dazukofs_backing_write_iter() - write a dazukofs file through its lower file
 * @file: the lower file
 * @iter: the source
 * @iocb: the dazukofs file's kiocb
 * @flags: @iocb's flags to pass on
 * @ctx: the dazukofs file, the credentials to write with, the attribute
 *	 update once written (run from a workqueue for a queued write)
 *
 * The caller holds the dazukofs inode's lock: removing the setuid bits
 * changes its mode.
 *
 * Return: the bytes written, -EIOCBQUEUED if an asynchronous @iocb was
 * queued, or a negative errno.
 */
ssize_t dazukofs_backing_write_iter(struct file *file, struct iov_iter *iter,
				    struct kiocb *iocb, int flags,
				    struct dazukofs_backing_ctx *ctx)
{
	const struct cred *old_cred;
	struct dazukofs_aio *aio;
	ssize_t ret;

	lockdep_assert_held(&file_inode(ctx->user_file)->i_rwsem);

	if (!iov_iter_count(iter))
		return 0;
	ret = file_remove_privs(ctx->user_file);
	if (ret)
		return ret;
	if ((iocb->ki_flags & IOCB_DIRECT) &&
	    !(file->f_mode & FMODE_CAN_ODIRECT))
		return -EINVAL;
	flags &= ~DAZUKOFS_IOCB_UNSTACKABLE;

	old_cred = override_creds(ctx->cred);
	if (is_sync_kiocb(iocb)) {
		ret = dazukofs_vfs_iter_write(file, iter, &iocb->ki_pos,
					      dazukofs_iocb_to_rwf(flags));
		if (ctx->end_write)
			ctx->end_write(ctx->user_file, iocb->ki_pos, ret);
	} else {
		ret = -ENOMEM;
		aio = dazukofs_aio_alloc(iocb, file);
		if (aio) {
			aio->is_write = true;
			aio->end_write = ctx->end_write;
			aio->iocb.ki_flags = flags;
			aio->iocb.ki_complete = dazukofs_aio_queue_completion;
			dazukofs_iocb_start_write(&aio->iocb);
			ret = vfs_iocb_iter_write(file, &aio->iocb, iter);
			if (ret != -EIOCBQUEUED)
				dazukofs_iocb_write_returned(&aio->iocb);
			dazukofs_aio_put(aio);
			if (ret != -EIOCBQUEUED)
				dazukofs_aio_cleanup(aio, ret);
		}
	}
	revert_creds(old_cred);
	return ret;
}

int dazukofs_backing_init(void)
{
	dazukofs_aio_cache = KMEM_CACHE(dazukofs_aio, SLAB_HWCACHE_ALIGN);
	if (!dazukofs_aio_cache)
		return -ENOMEM;
	dazukofs_aio_wq = alloc_workqueue("dazukofs_aio", WQ_MEM_RECLAIM, 0);
	if (!dazukofs_aio_wq) {
		kmem_cache_destroy(dazukofs_aio_cache);
		return -ENOMEM;
	}
	return 0;
}

/* Only once every dazukofs file is gone: no completion can still come. */
void dazukofs_backing_exit(void)
{
	destroy_workqueue(dazukofs_aio_wq);
	kmem_cache_destroy(dazukofs_aio_cache);
}

#endif /* !DAZUKOFS_HAVE_BACKING_FILE_RW */
