// SPDX-License-Identifier: GPL-2.0
/*
 * dazukofs directories: lookup and the operations that change a directory
 * (create, link, unlink, mkdir, rmdir, mknod, symlink, rename, tmpfile),
 * each repeated on the lower directory.
 *
 * Locking: the VFS holds the dazukofs directory's i_rwsem as it does for
 * any filesystem.  Before changing the lower directory, the operations take
 * write access to the lower mount (mnt_want_write(), which also holds off a
 * freeze of the lower filesystem) and then the lower directory's i_rwsem,
 * always in that order, and always after the dazukofs locks.  The lower
 * filesystem never calls back into dazukofs, so this order is never
 * reversed.
 *
 * The lower directory may be changed directly, behind dazukofs' back.
 * ->d_revalidate() notices such changes on the next path walk; an operation
 * that finds the lower dentry moved or replaced between the walk and taking
 * the lower directory's lock fails with ESTALE, which makes the VFS walk
 * again with LOOKUP_REVAL; open(O_CREAT) instead looks the name up again
 * under that lock (->atomic_open()), as its answer must be the lower's.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/audit.h>
#include <linux/fs.h>
#include <linux/fs_stack.h>
#include <linux/file.h>
#include <linux/namei.h>

#include "dazukofs.h"

/*
 * Give the dazukofs dentry the inode of its (now positive) lower dentry.
 * A lower filesystem may leave the dentry of a new object negative (the
 * dazukofs dentry is then dropped, so that the next walk looks it up) or
 * unhashed (casefold directories keep their new dentries out of the
 * dcache): the dazukofs dentry then gets the inode, for an open(O_CREAT)
 * to go on with, but is dropped as well.
 */
static int dazukofs_interpose(struct dentry *dentry, struct dentry *lower)
{
	struct inode *inode;

	if (d_really_is_negative(lower)) {
		d_drop(dentry);
		return 0;
	}
	inode = dazukofs_iget(dentry->d_sb, d_inode(lower));
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	d_instantiate(dentry, inode);
	if (d_unhashed(lower))
		d_drop(dentry);
	return 0;
}

/**
 * dazukofs_unhashed_negative_ok() - may a create use this lower dentry?
 * @dentry: the dazukofs dentry of the new name
 * @lower_dir: its lower parent, locked
 * @lower: its lower dentry, unhashed
 *
 * A casefold directory's filesystem (ext4, f2fs) keeps no negative dentry
 * in it: a lookup of a missing name leaves the dentry unhashed, and the
 * VFS creates with that dentry under the directory lock it took for the
 * lookup.  Ours was looked up before the lock, and the filesystem's index
 * would not catch a name made meanwhile (ext4 adds a second entry), so the
 * name is looked up again under the lock.  Anywhere else an unhashed lower
 * dentry was dropped: the caller returns ESTALE and the VFS walks again.
 *
 * Return: true if @lower may be created with.
 */
static bool dazukofs_unhashed_negative_ok(struct dentry *dentry,
					  struct dentry *lower_dir,
					  struct dentry *lower)
{
	struct dentry *again;
	bool missing;

	lockdep_assert_held(&d_inode(lower_dir)->i_rwsem);
	if (!d_really_is_negative(lower) || !IS_CASEFOLDED(d_inode(lower_dir)))
		return false;
	again = lookup_one(dazukofs_lower_idmap(dentry->d_sb),
			   dentry->d_name.name, lower_dir, dentry->d_name.len);
	if (IS_ERR(again))
		return false;
	missing = d_really_is_negative(again);
	dput(again);
	return missing;
}

/**
 * dazukofs_lock_lower_parent() - lock the lower directory of a dentry
 * @dentry: a dazukofs dentry whose parent directory the VFS has locked
 *
 * Takes write access to the lower mount and the lower parent's i_rwsem,
 * and checks that the lower dentry is still in that directory.
 *
 * Return: the lower parent, locked, or an ERR_PTR (ESTALE if the lower
 * dentry moved) with nothing held.
 */
static struct dentry *dazukofs_lock_lower_parent(struct dentry *dentry)
{
	struct vfsmount *lower_mnt = dazukofs_lower_mnt(dentry->d_sb);
	struct dentry *lower_dir = dazukofs_lower_dentry(dentry->d_parent);
	struct dentry *lower = dazukofs_lower_dentry(dentry);
	int err;

	err = mnt_want_write(lower_mnt);
	if (err)
		return ERR_PTR(err);
	inode_lock_nested(d_inode(lower_dir), I_MUTEX_PARENT);
	if (lower->d_parent != lower_dir ||
	    (d_unhashed(lower) &&
	     !dazukofs_unhashed_negative_ok(dentry, lower_dir, lower))) {
		inode_unlock(d_inode(lower_dir));
		mnt_drop_write(lower_mnt);
		return ERR_PTR(-ESTALE);
	}
	return lower_dir;
}

static void dazukofs_unlock_lower_parent(struct dentry *dentry,
					 struct dentry *lower_dir)
{
	inode_unlock(d_inode(lower_dir));
	mnt_drop_write(dazukofs_lower_mnt(dentry->d_sb));
}

/* Does the dazukofs dentry's inode still belong to its lower dentry? */
static bool dazukofs_lower_matches(struct dentry *dentry, struct dentry *lower)
{
	if (d_really_is_negative(dentry))
		return d_really_is_negative(lower);
	return d_inode(lower) == dazukofs_lower_inode(d_inode(dentry));
}

enum dazukofs_kind { DAZUKOFS_REG, DAZUKOFS_DIR, DAZUKOFS_LNK, DAZUKOFS_NOD };

/* What to make in the lower directory, for dazukofs_make(). */
struct dazukofs_new {
	enum dazukofs_kind kind;
	umode_t mode;
	dev_t rdev;
	bool excl;
	const char *target;
};

static int dazukofs_make(struct inode *dir, struct dentry *dentry,
			 const struct dazukofs_new *new)
{
	dazukofs_idmap_t *idmap = dazukofs_lower_idmap(dir->i_sb);
	struct dentry *lower = dazukofs_lower_dentry(dentry);
	struct dentry *lower_dir;
	struct inode *lower_dir_inode;
	int err;

	lower_dir = dazukofs_lock_lower_parent(dentry);
	if (IS_ERR(lower_dir))
		return PTR_ERR(lower_dir);
	lower_dir_inode = d_inode(lower_dir);
	/*
	 * Made in the lower since the lookup: the VFS looks again (ESTALE
	 * makes it walk with LOOKUP_REVAL) rather than fail with EEXIST.
	 * (open(O_CREAT) comes through ->atomic_open() instead.)
	 */
	if (!dazukofs_lower_matches(dentry, lower)) {
		err = -ESTALE;
		goto out;
	}

	switch (new->kind) {
	case DAZUKOFS_REG:
		err = vfs_create(idmap, lower_dir_inode, lower, new->mode,
				 new->excl);
		break;
	case DAZUKOFS_DIR:
		err = vfs_mkdir(idmap, lower_dir_inode, lower, new->mode);
		break;
	case DAZUKOFS_LNK:
		err = vfs_symlink(idmap, lower_dir_inode, lower, new->target);
		break;
	default:
		err = vfs_mknod(idmap, lower_dir_inode, lower, new->mode,
				new->rdev);
		break;
	}
	if (!err)
		err = dazukofs_interpose(dentry, lower);
	dazukofs_copy_attr(dir);
out:
	dazukofs_unlock_lower_parent(dentry, lower_dir);
	return err;
}

static int dazukofs_create(dazukofs_idmap_t *idmap, struct inode *dir,
			   struct dentry *dentry, umode_t mode, bool excl)
{
	struct dazukofs_new new = {
		.kind = DAZUKOFS_REG, .mode = mode, .excl = excl,
	};

	return dazukofs_make(dir, dentry, &new);
}

static int dazukofs_mkdir(dazukofs_idmap_t *idmap, struct inode *dir,
			  struct dentry *dentry, umode_t mode)
{
	struct dazukofs_new new = { .kind = DAZUKOFS_DIR, .mode = mode };

	return dazukofs_make(dir, dentry, &new);
}

static int dazukofs_symlink(dazukofs_idmap_t *idmap, struct inode *dir,
			    struct dentry *dentry, const char *target)
{
	struct dazukofs_new new = { .kind = DAZUKOFS_LNK, .target = target };

	return dazukofs_make(dir, dentry, &new);
}

static int dazukofs_mknod(dazukofs_idmap_t *idmap, struct inode *dir,
			  struct dentry *dentry, umode_t mode, dev_t rdev)
{
	struct dazukofs_new new = {
		.kind = DAZUKOFS_NOD, .mode = mode, .rdev = rdev,
	};

	return dazukofs_make(dir, dentry, &new);
}

static int dazukofs_link(struct dentry *old_dentry, struct inode *dir,
			 struct dentry *new_dentry)
{
	dazukofs_idmap_t *idmap = dazukofs_lower_idmap(dir->i_sb);
	struct dentry *lower_old = dazukofs_lower_dentry(old_dentry);
	struct dentry *lower_new = dazukofs_lower_dentry(new_dentry);
	struct dentry *lower_dir;
	int err;

	lower_dir = dazukofs_lock_lower_parent(new_dentry);
	if (IS_ERR(lower_dir))
		return PTR_ERR(lower_dir);
	err = -ESTALE;
	if (dazukofs_lower_matches(old_dentry, lower_old))
		err = vfs_link(lower_old, idmap, d_inode(lower_dir), lower_new,
			       NULL);
	if (!err)
		err = dazukofs_interpose(new_dentry, lower_new);
	dazukofs_copy_attr(d_inode(old_dentry));
	dazukofs_copy_attr(dir);
	dazukofs_unlock_lower_parent(new_dentry, lower_dir);
	return err;
}

static int dazukofs_unlink(struct inode *dir, struct dentry *dentry)
{
	dazukofs_idmap_t *idmap = dazukofs_lower_idmap(dir->i_sb);
	struct dentry *lower = dazukofs_lower_dentry(dentry);
	struct dentry *lower_dir;
	bool shared;
	int err;

	lower_dir = dazukofs_lock_lower_parent(dentry);
	if (IS_ERR(lower_dir))
		return PTR_ERR(lower_dir);
	/*
	 * Unhashed, the dentry gains no new users; a lookup of the name
	 * waits for the parent's lock and makes a new one.  If the unlinker
	 * is its only user, the lower dentry may turn negative (d_delete()):
	 * nothing will look at it again.  Else our own reference makes it
	 * unhashed rather than negative, for those users.  An extra reference
	 * when there is no need for one would make NFS sillyrename the file
	 * (nfs_unlink() renames a dentry in use to .nfsXXXX instead).
	 */
	spin_lock(&dentry->d_lock);
	shared = d_count(dentry) > 1;
	__d_drop(dentry);
	spin_unlock(&dentry->d_lock);
	if (shared)
		dget(lower);
	err = -ESTALE;
	if (dazukofs_lower_matches(dentry, lower)) {
		err = vfs_unlink(idmap, d_inode(lower_dir), lower, NULL);
		/*
		 * Still there (EBUSY, an LSM, a lost server...): hashed
		 * again, so that paths of its open files do not read
		 * "(deleted)".  The parent's lock kept the name free.
		 */
		if (err)
			d_rehash(dentry);
	}
	if (shared)
		dput(lower);
	dazukofs_copy_attr(d_inode(dentry));
	dazukofs_copy_attr(dir);
	dazukofs_unlock_lower_parent(dentry, lower_dir);
	return err;
}

static int dazukofs_rmdir(struct inode *dir, struct dentry *dentry)
{
	dazukofs_idmap_t *idmap = dazukofs_lower_idmap(dir->i_sb);
	struct dentry *lower = dazukofs_lower_dentry(dentry);
	struct dentry *lower_dir;
	int err;

	lower_dir = dazukofs_lock_lower_parent(dentry);
	if (IS_ERR(lower_dir))
		return PTR_ERR(lower_dir);
	/* Unhashed rather than made negative under the dentry's users. */
	dget(lower);
	err = -ESTALE;
	if (dazukofs_lower_matches(dentry, lower))
		err = vfs_rmdir(idmap, d_inode(lower_dir), lower);
	dput(lower);
	dazukofs_copy_attr(d_inode(dentry));
	dazukofs_copy_attr(dir);
	dazukofs_unlock_lower_parent(dentry, lower_dir);
	if (!err)
		d_drop(dentry);
	return err;
}

static int dazukofs_rename(dazukofs_idmap_t *idmap, struct inode *old_dir,
			   struct dentry *old_dentry, struct inode *new_dir,
			   struct dentry *new_dentry, unsigned int flags)
{
	struct vfsmount *lower_mnt = dazukofs_lower_mnt(old_dir->i_sb);
	struct dentry *lower_old = dazukofs_lower_dentry(old_dentry);
	struct dentry *lower_new = dazukofs_lower_dentry(new_dentry);
	struct dentry *lower_old_dir = dazukofs_lower_dentry(old_dentry->d_parent);
	struct dentry *lower_new_dir = dazukofs_lower_dentry(new_dentry->d_parent);
	struct renamedata rd = {};
	struct dentry *trap;
	int err;

	err = mnt_want_write(lower_mnt);
	if (err)
		return err;
	trap = lock_rename(lower_old_dir, lower_new_dir);
	if (IS_ERR(trap)) {
		err = PTR_ERR(trap);
		goto out_drop_write;
	}

	err = -ESTALE;
	if (lower_old->d_parent != lower_old_dir || d_unhashed(lower_old) ||
	    !dazukofs_lower_matches(old_dentry, lower_old))
		goto out_unlock;
	if (lower_new->d_parent != lower_new_dir ||
	    (d_unhashed(lower_new) &&
	     !dazukofs_unhashed_negative_ok(new_dentry, lower_new_dir,
					    lower_new)) ||
	    !dazukofs_lower_matches(new_dentry, lower_new))
		goto out_unlock;
	/* The VFS made these checks on dazukofs; the lower may differ. */
	err = -EINVAL;
	if (trap == lower_old)
		goto out_unlock;
	err = -ENOTEMPTY;
	if (trap == lower_new)
		goto out_unlock;

	dazukofs_rename_idmap(&rd, dazukofs_mnt_idmap(lower_mnt));
	rd.old_dir = d_inode(lower_old_dir);
	rd.old_dentry = lower_old;
	rd.new_dir = d_inode(lower_new_dir);
	rd.new_dentry = lower_new;
	rd.flags = flags;
	err = vfs_rename(&rd);

	dazukofs_copy_attr(old_dir);
	if (new_dir != old_dir)
		dazukofs_copy_attr(new_dir);
	if (d_really_is_positive(new_dentry))
		dazukofs_copy_attr(d_inode(new_dentry));
out_unlock:
	unlock_rename(lower_old_dir, lower_new_dir);
out_drop_write:
	mnt_drop_write(lower_mnt);
	return err;
}

static int dazukofs_tmpfile(dazukofs_idmap_t *idmap, struct inode *dir,
			    struct file *file, umode_t mode)
{
	struct dentry *dentry = file->f_path.dentry;
	struct vfsmount *lower_mnt = dazukofs_lower_mnt(dir->i_sb);
	struct path lower_parent = {
		.mnt = lower_mnt,
		.dentry = dazukofs_lower_dentry(dentry->d_parent),
	};
	struct file *lower_file;
	struct inode *inode;
	int err;

	err = mnt_want_write(lower_mnt);
	if (err)
		return err;
	lower_file = dazukofs_tmpfile_open(dazukofs_mnt_idmap(lower_mnt),
					   &lower_parent, mode, file->f_flags,
					   current_cred());
	mnt_drop_write(lower_mnt);
	if (IS_ERR(lower_file))
		return PTR_ERR(lower_file);

	inode = dazukofs_iget(dir->i_sb, file_inode(lower_file));
	if (IS_ERR(inode)) {
		err = PTR_ERR(inode);
		goto out;
	}
	dentry->d_fsdata = dget(lower_file->f_path.dentry);
	/* d_tmpfile() drops the link count the new inode is born with. */
	set_nlink(inode, 1);
	d_tmpfile(file, inode);
	/* Open it as any dazukofs file: through a lower file of its own. */
	err = finish_open_simple(file, 0);
out:
	fput(lower_file);
	return err;
}

/**
 * dazukofs_splice_lower() - give a dazukofs dentry in lookup its lower dentry
 * @dir: the dazukofs directory
 * @dentry: the dazukofs dentry, in lookup
 * @lower: its lower dentry, as just looked up; the reference passes to
 *	@dentry, also on error
 *
 * Return: as ->lookup(): NULL, an alias of a directory, or an ERR_PTR.
 */
static struct dentry *dazukofs_splice_lower(struct inode *dir,
					    struct dentry *dentry,
					    struct dentry *lower)
{
	struct inode *inode = NULL;

	/*
	 * An automount point (NFS crossmnt and referrals, virtiofs and SMB
	 * DFS submounts, debugfs' tracing, autofs) is refused, as overlayfs
	 * does: dazukofs does not follow mounts on the lower.
	 */
	if (unlikely(READ_ONCE(lower->d_flags) &
		     (DCACHE_NEED_AUTOMOUNT | DCACHE_MANAGE_TRANSIT))) {
		pr_notice_ratelimited("%pd is an automount point on the lower filesystem: not supported through dazukofs\n",
				      lower);
		dput(lower);
		return ERR_PTR(-EREMOTE);
	}

	dentry->d_fsdata = lower;
	if (d_really_is_positive(lower)) {
		inode = dazukofs_iget(dir->i_sb, d_inode(lower));
		if (IS_ERR(inode))
			return ERR_CAST(inode);
	}
	return d_splice_alias(inode, dentry);
}

/**
 * dazukofs_spelled_otherwise() - drop a negative lower dentry of another name
 * @lower: a lower dentry, just looked up
 * @name: the name it was looked up by
 *
 * A case-insensitive lower finds a negative dentry of another spelling
 * of the name, and exfat keeps it for a lookup that is not a create (its
 * d_revalidate drops those only when told that a create follows, which a
 * lookup of ours cannot tell it): made with that dentry, a new file or
 * directory would take the other spelling.  Such a dentry is unhashed, so
 * that a lookup again makes one of @name.
 *
 * Return: true if @lower was unhashed and must be looked up again.
 */
static bool dazukofs_spelled_otherwise(struct dentry *lower,
				       const struct qstr *name)
{
	bool otherwise;

	/* Only a lower that compares names its own way finds another. */
	if (!(READ_ONCE(lower->d_flags) & DCACHE_OP_COMPARE) ||
	    d_really_is_positive(lower))
		return false;
	/* The name of a dentry changes only under its d_lock. */
	spin_lock(&lower->d_lock);
	otherwise = d_really_is_negative(lower) &&
		    (lower->d_name.len != name->len ||
		     memcmp(lower->d_name.name, name->name, name->len));
	spin_unlock(&lower->d_lock);
	if (otherwise)
		d_invalidate(lower);
	return otherwise;
}

/*
 * Look @dentry's name up in the lower directory (@locked: with its i_rwsem
 * held), not settling for a negative dentry of another spelling.
 */
static struct dentry *dazukofs_lookup_lower(struct dentry *dentry,
					    bool locked)
{
	dazukofs_idmap_t *idmap = dazukofs_lower_idmap(dentry->d_sb);
	struct dentry *lower_dir = dazukofs_lower_dentry(dentry->d_parent);
	const struct qstr *name = &dentry->d_name;
	struct dentry *lower;
	int tries;

	for (tries = 0; ; tries++) {
		lower = locked ?
			lookup_one(idmap, name->name, lower_dir, name->len) :
			lookup_one_unlocked(idmap, name->name, lower_dir,
					    name->len);
		if (IS_ERR(lower) || tries ||
		    !dazukofs_spelled_otherwise(lower, name))
			return lower;
		dput(lower);
	}
}

static struct dentry *dazukofs_lookup(struct inode *dir, struct dentry *dentry,
				      unsigned int flags)
{
	struct dentry *lower = dazukofs_lookup_lower(dentry, false);

	if (IS_ERR(lower))
		return ERR_CAST(lower);
	return dazukofs_splice_lower(dir, dentry, lower);
}

/**
 * dazukofs_relookup() - a new dazukofs dentry for a name the lower changed
 * @dir: the dazukofs directory, locked by the VFS for an open(O_CREAT)
 * @stale: the dazukofs dentry of the name, hashed, bound to a lower dentry
 *	that no longer is the name's (a file made, or the name made anew)
 * @lower: the name's lower dentry now, looked up under the lower
 *	directory's lock; the reference passes on, also on error
 *
 * As nfs_atomic_open() does, @stale is unhashed and a dentry in lookup
 * takes its place, so that nothing changes under @stale's other users.
 * With the parent locked for writing no other lookup of the name can be
 * under way, so the new dentry is always ours to set up.
 *
 * Return: the new dentry (or the directory alias it led to), with a
 * reference, or an ERR_PTR.
 */
static struct dentry *dazukofs_relookup(struct inode *dir,
					struct dentry *stale,
					struct dentry *lower)
{
	DECLARE_WAIT_QUEUE_HEAD_ONSTACK(wq);
	struct dentry *dentry, *alias;

	lockdep_assert_held_write(&dir->i_rwsem);
	d_drop(stale);
	dentry = d_alloc_parallel(stale->d_parent, &stale->d_name, &wq);
	if (IS_ERR(dentry)) {
		dput(lower);
		return dentry;
	}
	if (WARN_ON_ONCE(!d_in_lookup(dentry))) {
		dput(lower);
		dput(dentry);
		return ERR_PTR(-ESTALE);
	}
	alias = dazukofs_splice_lower(dir, dentry, lower);
	d_lookup_done(dentry);
	/* An error, or a directory's alias, takes the new dentry's place. */
	if (alias) {
		dput(dentry);
		return alias;
	}
	return dentry;
}

/*
 * Can the lower's negative dentry @lower be stale under its parent's lock:
 * has the name been made where this kernel cannot see it?  Only on a lower
 * that revalidates its dentries and keeps its files elsewhere (NFS, CIFS,
 * FUSE, 9p): local filesystems revalidate for other reasons (vfat's and
 * casefold's spellings, encryption keys), and a negative dentry of theirs
 * is the truth while the directory is locked.
 */
static bool dazukofs_may_be_made_elsewhere(const struct dentry *lower)
{
	return d_really_is_negative(lower) &&
	       (READ_ONCE(lower->d_flags) & DCACHE_OP_REVALIDATE) &&
	       !(lower->d_sb->s_type->fs_flags & FS_REQUIRES_DEV);
}

/**
 * dazukofs_create_open() - create, or open what the lower has
 * @dir: the dazukofs directory, locked for writing by the VFS
 * @dentry: the name's dazukofs dentry: in lookup, or hashed and negative
 * @file: the file being opened
 * @open_flags: its flags, O_CREAT among them
 * @mode: the mode of a new file
 *
 * Called with write access to the lower mount, which it gives back.  The
 * name is looked up under the lower directory's lock, so the lower's
 * answer is the one given: a file made in the lower since @dentry was
 * looked up is opened as an existing file (the VFS checks O_EXCL,
 * permissions and O_TRUNC on it), and a missing one is created, without
 * the ESTALE a create from a stale lookup would need.  The open itself is
 * left to the VFS, as after ->create(): it waits for the verdict on the
 * file, which must not happen under the directory's lock.
 *
 * A network or FUSE lower trusts a negative dentry for as long as it
 * caches the directory, also for a file its server has made since: such a
 * dentry is dropped and the name looked up afresh, so that the server's
 * file is opened as an existing one (O_TRUNC applied), as the lower's own
 * open(O_CREAT) does.  A file the server makes between that lookup and the
 * create still counts as created (the create opens it; NFSv3's own open
 * does the same).
 *
 * Return: 0 with the dentry to open set in @file, or an errno.
 */
static int dazukofs_create_open(struct inode *dir, struct dentry *dentry,
				struct file *file, unsigned int open_flags,
				umode_t mode)
{
	dazukofs_idmap_t *idmap = dazukofs_lower_idmap(dir->i_sb);
	struct dentry *lower_dir = dazukofs_lower_dentry(dentry->d_parent);
	/* A dentry of ours to hand to the VFS in place of @dentry. */
	struct dentry *own = NULL;
	struct dentry *lower;
	int err = 0;

	inode_lock_nested(d_inode(lower_dir), I_MUTEX_PARENT);
	lower = dazukofs_lookup_lower(dentry, true);
	if (!IS_ERR(lower) && dazukofs_may_be_made_elsewhere(lower)) {
		d_drop(lower);
		dput(lower);
		lower = dazukofs_lookup_lower(dentry, true);
	}
	if (IS_ERR(lower)) {
		err = PTR_ERR(lower);
		goto out_unlock;
	}
	if (d_in_lookup(dentry)) {
		own = dazukofs_splice_lower(dir, dentry, lower);
	} else if (lower != dazukofs_lower_dentry(dentry) ||
		   d_really_is_positive(lower)) {
		own = dazukofs_relookup(dir, dentry, lower);
	} else {
		dput(lower);
	}
	if (IS_ERR(own)) {
		err = PTR_ERR(own);
		own = NULL;
		goto out_unlock;
	}
	if (own)
		dentry = own;
	if (d_really_is_positive(dentry))
		goto out_unlock;

	lower = dazukofs_lower_dentry(dentry);
	audit_inode_child(dir, dentry, AUDIT_TYPE_CHILD_CREATE);
	err = vfs_create(idmap, d_inode(lower_dir), lower, mode,
			 open_flags & O_EXCL);
	if (!err)
		err = dazukofs_interpose(dentry, lower);
	/* One the lower left negative is refused (ENOENT) as after ->create(). */
	if (!err && d_really_is_positive(dentry))
		file->f_mode |= FMODE_CREATED;
	dazukofs_copy_attr(dir);
out_unlock:
	dazukofs_unlock_lower_parent(dentry, lower_dir);
	if (err) {
		dput(own);
		return err;
	}
	return finish_no_open(file, own);
}

/*
 * Only open(O_CREAT) needs more than ->lookup(): the VFS calls this also
 * for a plain open of a name not in the dcache, with the directory locked
 * shared.
 */
static int dazukofs_atomic_open(struct inode *dir, struct dentry *dentry,
				struct file *file, unsigned int open_flags,
				umode_t mode)
{
	struct dentry *alias = NULL;
	int err = 0;

	if (open_flags & O_CREAT) {
		err = mnt_want_write(dazukofs_lower_mnt(dir->i_sb));
		if (!err)
			return dazukofs_create_open(dir, dentry, file,
						    open_flags, mode);
		/* A read-only lower still opens the files it has. */
	}
	if (d_in_lookup(dentry)) {
		alias = dazukofs_lookup(dir, dentry, 0);
		if (IS_ERR(alias))
			return PTR_ERR(alias);
		if (alias)
			dentry = alias;
	}
	if (err && d_really_is_negative(dentry))
		return err;
	return finish_no_open(file, alias);
}

const struct inode_operations dazukofs_dir_iops = {
	.lookup		= dazukofs_lookup,
	.atomic_open	= dazukofs_atomic_open,
	.create		= dazukofs_create,
	.link		= dazukofs_link,
	.unlink		= dazukofs_unlink,
	.symlink	= dazukofs_symlink,
	.mkdir		= dazukofs_mkdir,
	.rmdir		= dazukofs_rmdir,
	.mknod		= dazukofs_mknod,
	.rename		= dazukofs_rename,
	.tmpfile	= dazukofs_tmpfile,
	.permission	= dazukofs_permission,
	.setattr	= dazukofs_setattr,
	.getattr	= dazukofs_getattr,
	.listxattr	= dazukofs_listxattr,
	.fileattr_get	= dazukofs_fileattr_get,
	.fileattr_set	= dazukofs_fileattr_set,
	DAZUKOFS_ACL_IOPS
};
