// SPDX-License-Identifier: GPL-2.0
/*
 * File locks through dazukofs are the lower file's locks: POSIX, OFD and
 * flock locks are taken on the lower file, so that processes using the
 * lower directly see them (and a lower with its own ->lock or ->flock,
 * such as NFS, takes them on its server).  None is ever recorded on the
 * dazukofs inode.
 *
 * A lock request names its file and its owner; both are translated to the
 * lower file for the call and put back after it (see
 * dazukofs_lock_restore() for when not), because the VFS still owns the
 * request.  Locks the
 * lower stores are copies that name the lower file, and they go with it:
 * POSIX locks at each close (dazukofs_flush()), OFD and flock locks when
 * the lower file is released, as for any file.
 *
 * Leases are refused (EINVAL): F_GETLEASE looks for a lease on the file's
 * own inode, so one taken on the lower file would be invisible through the
 * mount, and one left on the dazukofs inode would not be broken by opens
 * of the lower.
 */

#include <linux/fs.h>

#include "dazukofs.h"

/* What a lock request named before it was pointed at the lower file. */
struct dazukofs_lock_saved {
	struct file *file;
	fl_owner_t owner;
};

/*
 * Point @fl at @lower for a call, and its owner too where the dazukofs
 * file owns it (OFD and flock locks); returns what to put back.
 */
static struct dazukofs_lock_saved dazukofs_lock_to_lower(struct file *file,
							 struct file *lower,
							 struct file_lock *fl)
{
	struct dazukofs_lock_saved saved = {
		.file = *dazukofs_fl_file(fl),
		.owner = *dazukofs_fl_owner(fl),
	};

	*dazukofs_fl_file(fl) = lower;
	if (saved.owner == file)
		*dazukofs_fl_owner(fl) = lower;
	return saved;
}

/*
 * Put back what dazukofs_lock_to_lower() changed, but only where it still
 * holds the lower's values: F_GETLK answers in @fl with the conflicting
 * lock's owner (with a reference its lock manager drops when @fl is
 * freed) and no file, which must stay.  The file always goes back: the
 * VFS retries a request the lower queued (FILE_LOCK_DEFERRED) on the
 * dazukofs file, and 6.12's vfs_lock_file() warns unless the request
 * names it.  The owner of a queued request stays the lower's: it waits in
 * the lower's lists, where deadlock detection and conflicts go by owner,
 * and the retry translates to the same value again.
 */
static void dazukofs_lock_restore(struct file_lock *fl, struct file *lower,
				  const struct dazukofs_lock_saved *saved,
				  int err)
{
	if (*dazukofs_fl_file(fl) == lower)
		*dazukofs_fl_file(fl) = saved->file;
	if (err == FILE_LOCK_DEFERRED)
		return;
	if (*dazukofs_fl_owner(fl) == lower && saved->owner != lower)
		*dazukofs_fl_owner(fl) = saved->owner;
}

/**
 * dazukofs_lock() - ->lock: POSIX and OFD locks, taken on the lower file
 * @file: the dazukofs file
 * @cmd: F_GETLK, F_SETLK, F_SETLKW (also their 64-bit and OFD forms, which
 *	the VFS has turned into these) or F_CANCELLK
 * @fl: the request; owned by the caller
 *
 * Return: what the lower file's lock call returned, FILE_LOCK_DEFERRED
 * included (the VFS then waits on @fl and calls again).
 */
int dazukofs_lock(struct file *file, int cmd, struct file_lock *fl)
{
	struct file *lower = dazukofs_lower_file(file);
	struct dazukofs_lock_saved saved;
	int err;

	saved = dazukofs_lock_to_lower(file, lower, fl);
	if (IS_GETLK(cmd))
		err = vfs_test_lock(lower, fl);
	else if (cmd == F_CANCELLK)
		err = vfs_cancel_lock(lower, fl);
	else
		err = vfs_lock_file(lower, cmd, fl, NULL);
	dazukofs_lock_restore(fl, lower, &saved, err);
	return err;
}

/**
 * dazukofs_flock() - ->flock: flock(2) locks, taken on the lower file
 * @file: the dazukofs file
 * @cmd: F_SETLK or F_SETLKW (may wait)
 * @fl: the request; owned by the caller
 *
 * Return: 0 or the lower's error (EWOULDBLOCK for a conflict without
 * waiting, EINTR for a signal while waiting).
 */
int dazukofs_flock(struct file *file, int cmd, struct file_lock *fl)
{
	struct file *lower = dazukofs_lower_file(file);
	struct dazukofs_lock_saved saved;
	int err;

	saved = dazukofs_lock_to_lower(file, lower, fl);
	if (lower->f_op->flock)
		err = lower->f_op->flock(lower, cmd, fl);
	else
		err = locks_lock_file_wait(lower, fl);
	dazukofs_lock_restore(fl, lower, &saved, err);
	return err;
}
