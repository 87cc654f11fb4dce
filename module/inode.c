// SPDX-License-Identifier: GPL-2.0
/*
 * dazukofs inodes: one per lower inode, with a copy of its attributes for
 * the VFS's own checks, and the inode operations on a single file (those
 * on directories are in dir.c), each of which asks the lower inode.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/fs_stack.h>
#include <linux/file.h>
#include <linux/fiemap.h>
#include <linux/fileattr.h>
#include <linux/namei.h>
#include <linux/xattr.h>

#include "dazukofs.h"

static int dazukofs_inode_test(struct inode *inode, void *lower_inode)
{
	return dazukofs_lower_inode(inode) == lower_inode;
}

static int dazukofs_inode_set(struct inode *inode, void *lower_inode)
{
	inode->i_private = lower_inode;
	ihold(lower_inode);
	return 0;
}

/*
 * The inode flags that describe the file, as overlayfs copies them.  The
 * others belong to the lower inode's own machinery (S_AUTOMOUNT would send
 * a path walk to a ->d_automount dazukofs does not have; S_IMA, S_PRIVATE,
 * S_SWAPFILE, S_DAX, S_CASEFOLD, ...) and are never copied.  Nor is
 * S_NOSEC: a stale copy (the lower's file got a capability directly) would
 * let a truncate through the mount keep it.
 */
#define DAZUKOFS_COPY_I_FLAGS \
	(S_SYNC | S_NOATIME | S_APPEND | S_IMMUTABLE | S_DIRSYNC)

static void dazukofs_copy_flags_locked(struct inode *inode)
{
	lockdep_assert_held(&inode->i_lock);
	inode_set_flags(inode, READ_ONCE(dazukofs_lower_inode(inode)->i_flags) &
			DAZUKOFS_COPY_I_FLAGS, DAZUKOFS_COPY_I_FLAGS);
}

/**
 * dazukofs_copy_flags() - refresh the inode flags that describe the file
 * @inode: the dazukofs inode
 *
 * Cheap when nothing changed (one comparison, no lock), for the open path;
 * a change is copied under i_lock, as dazukofs_copy_attr() copies.
 */
void dazukofs_copy_flags(struct inode *inode)
{
	unsigned int flags = READ_ONCE(dazukofs_lower_inode(inode)->i_flags) &
			     DAZUKOFS_COPY_I_FLAGS;

	if (likely(flags == (READ_ONCE(inode->i_flags) & DAZUKOFS_COPY_I_FLAGS)))
		return;
	spin_lock(&inode->i_lock);
	dazukofs_copy_flags_locked(inode);
	spin_unlock(&inode->i_lock);
}

/**
 * dazukofs_copy_attr() - refresh a dazukofs inode from its lower inode
 * @inode: the dazukofs inode
 *
 * getattr and permission checks always ask the lower inode; the copy serves
 * the VFS's own checks on the dazukofs inode (e.g. IS_APPEND, i_size, the
 * setuid bits at exec).  Over a nosuid lower (dazukofs_lower_nosuid()) the
 * copy has no setuid or setgid bit, so that exec through the mount grants
 * nothing; stat() still shows the lower's mode.  The flags are set atomically, under the mask
 * only: a concurrent reader never sees a flag of the lower's machinery.
 *
 * Copies run concurrently (a write, its completion on a workqueue, a path
 * walk's revalidation): under the inode's i_lock, as overlayfs copies, two
 * copies never interleave their fields (a later copy is never partly
 * overwritten by an earlier one), and i_size_write() has the serialised
 * writers it needs.  The lower's fields are read without its locks.
 */
void dazukofs_copy_attr(struct inode *inode)
{
	struct inode *lower_inode = dazukofs_lower_inode(inode);
	umode_t mode;

	spin_lock(&inode->i_lock);
	mode = READ_ONCE(lower_inode->i_mode);
	if (dazukofs_lower_nosuid(inode->i_sb)) {
		mode &= ~S_ISUID;
		/* setgid without group execute is mandatory locking, not exec */
		if (mode & 0010)
			mode &= ~S_ISGID;
	}
	inode->i_mode = mode;
	inode->i_uid = lower_inode->i_uid;
	inode->i_gid = lower_inode->i_gid;
	inode->i_rdev = lower_inode->i_rdev;
	fsstack_copy_attr_times(inode, lower_inode);
	inode->i_blkbits = lower_inode->i_blkbits;
	set_nlink(inode, READ_ONCE(lower_inode->i_nlink));
	dazukofs_copy_flags_locked(inode);
	/* Not fsstack_copy_inode_size(): it takes the lower's i_lock. */
	i_size_write(inode, i_size_read(lower_inode));
	inode->i_blocks = READ_ONCE(lower_inode->i_blocks);
	spin_unlock(&inode->i_lock);
}

static const struct inode_operations dazukofs_file_iops;
static const struct inode_operations dazukofs_symlink_iops;
static const struct inode_operations dazukofs_special_iops;

/**
 * dazukofs_iget() - find or make the dazukofs inode for a lower inode
 * @sb: the dazukofs superblock
 * @lower_inode: the lower inode; the dazukofs inode takes its own reference
 *
 * Return: the inode with a reference, or an ERR_PTR.
 */
struct inode *dazukofs_iget(struct super_block *sb, struct inode *lower_inode)
{
	struct inode *inode;

	if (lower_inode->i_sb != dazukofs_lower_mnt(sb)->mnt_sb)
		return ERR_PTR(-EXDEV);

	inode = iget5_locked(sb, (unsigned long)lower_inode, dazukofs_inode_test,
			     dazukofs_inode_set, lower_inode);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	if (!(inode->i_state & I_NEW))
		return inode;

	inode->i_ino = lower_inode->i_ino;
	inode->i_generation = lower_inode->i_generation;
	dazukofs_copy_attr(inode);

	switch (lower_inode->i_mode & S_IFMT) {
	case S_IFREG:
		inode->i_op = &dazukofs_file_iops;
		inode->i_fop = &dazukofs_file_fops;
		break;
	case S_IFDIR:
		inode->i_op = &dazukofs_dir_iops;
		inode->i_fop = &dazukofs_dir_fops;
		break;
	case S_IFLNK:
		inode->i_op = &dazukofs_symlink_iops;
		break;
	default:
		/* Devices, FIFOs and sockets are opened as the kernel's own. */
		inode->i_op = &dazukofs_special_iops;
		init_special_inode(inode, lower_inode->i_mode,
				   lower_inode->i_rdev);
		break;
	}
	unlock_new_inode(inode);
	return inode;
}

/*
 * Also the lower mount's noexec and nodev as they are now, which the VFS
 * checks only on the dazukofs mount: an exec (MAY_EXEC | MAY_OPEN) and the
 * open of a device node ask here first.
 */
int dazukofs_permission(dazukofs_idmap_t *idmap, struct inode *inode,
			int mask)
{
	if (mask & MAY_OPEN) {
		int lower_flags = dazukofs_lower_mnt_flags(inode->i_sb);

		if ((mask & MAY_EXEC) && S_ISREG(inode->i_mode) &&
		    (lower_flags & MNT_NOEXEC))
			return -EACCES;
		if ((S_ISCHR(inode->i_mode) || S_ISBLK(inode->i_mode)) &&
		    (lower_flags & MNT_NODEV))
			return -EACCES;
	}
	return inode_permission(dazukofs_lower_idmap(inode->i_sb),
				dazukofs_lower_inode(inode), mask);
}

/* What do_truncate() sends: a change of size, times and privileges only. */
#define DAZUKOFS_TRUNCATE_ATTRS	(ATTR_SIZE | ATTR_ATIME | ATTR_MTIME | \
				 ATTR_CTIME | ATTR_FILE | ATTR_OPEN | \
				 ATTR_KILL_SUID | ATTR_KILL_SGID | \
				 ATTR_KILL_PRIV | ATTR_FORCE)

/*
 * The privileges that a truncate or a chown must drop from the lower
 * inode.  The VFS asked by our inode, which a nosuid mount shows without
 * the set-id bits that make a program privileged and without file
 * capabilities (dazukofs_copy_attr(), xattr.c): ask again by the lower
 * inode, as do_truncate() and chown_common() would.  A mode set on
 * purpose (ksmbd) and a chown that asks to drop nothing (an overlayfs
 * copy-up) stay as they are.
 */
static unsigned int dazukofs_privs_to_drop(struct super_block *sb,
					   dazukofs_idmap_t *lower_idmap,
					   struct inode *lower_inode,
					   unsigned int ia_valid)
{
	unsigned int kill = 0;

	if (!dazukofs_lower_nosuid(sb) || S_ISDIR(lower_inode->i_mode))
		return 0;
	if ((ia_valid & ATTR_MODE) &&
	    !(ia_valid & (ATTR_KILL_SUID | ATTR_KILL_SGID)))
		return 0;
	/* notify_change() drops ATTR_KILL_PRIV if there is nothing to kill */
	if (ia_valid & ATTR_SIZE)
		kill |= ATTR_KILL_PRIV |
			setattr_should_drop_suidgid(lower_idmap, lower_inode);
	/* chown_common() and nfsd ask to drop setuid with every chown */
	if ((ia_valid & (ATTR_UID | ATTR_GID)) && (ia_valid & ATTR_KILL_SUID))
		kill |= setattr_should_drop_sgid(lower_idmap, lower_inode);
	return kill;
}

int dazukofs_setattr(dazukofs_idmap_t *idmap, struct dentry *dentry,
		     struct iattr *ia)
{
	struct vfsmount *lower_mnt = dazukofs_lower_mnt(dentry->d_sb);
	struct dentry *lower = dazukofs_lower_dentry(dentry);
	struct inode *lower_inode = d_inode(lower);
	struct iattr lower_ia = *ia;
	unsigned int kill;
	int err;

	if (ia->ia_valid & ATTR_FILE)
		lower_ia.ia_file = dazukofs_lower_file(ia->ia_file);

	err = mnt_want_write(lower_mnt);
	if (err)
		return err;
	inode_lock(lower_inode);
	/* Under the lower's lock: its mode is stable until notify_change(). */
	kill = dazukofs_privs_to_drop(dentry->d_sb,
				      dazukofs_mnt_idmap(lower_mnt), lower_inode,
				      ia->ia_valid);
	lower_ia.ia_valid |= kill;
	/*
	 * As do_truncate(): a truncate drops set-id bits without the right
	 * to chmod.  Nothing else, which the lower must check, goes with it.
	 */
	if ((kill & (ATTR_KILL_SUID | ATTR_KILL_SGID)) &&
	    !(ia->ia_valid & ~DAZUKOFS_TRUNCATE_ATTRS))
		lower_ia.ia_valid |= ATTR_FORCE;
	/* Let the lower filesystem work out the mode that drops set-id bits. */
	if (lower_ia.ia_valid & (ATTR_KILL_SUID | ATTR_KILL_SGID))
		lower_ia.ia_valid &= ~ATTR_MODE;
	err = notify_change(dazukofs_mnt_idmap(lower_mnt), lower, &lower_ia,
			    NULL);
	inode_unlock(lower_inode);
	mnt_drop_write(lower_mnt);
	dazukofs_copy_attr(d_inode(dentry));
	return err;
}

int dazukofs_getattr(dazukofs_idmap_t *idmap, const struct path *path,
		     struct kstat *stat, u32 request_mask,
		     unsigned int flags)
{
	struct path lower;
	int err;

	dazukofs_lower_path(path->dentry, &lower);
	err = dazukofs_vfs_getattr(&lower, stat, request_mask, flags);
	if (err)
		return err;
	/*
	 * One lower superblock's inode numbers are unique within it, so the
	 * files it reports under its own device get this mount's.  A lower
	 * that reports other devices keeps them: btrfs repeats inode numbers
	 * across subvolumes and snapshots, each under its own anonymous
	 * device, and one device for all would merge different files into
	 * one (dev, ino) pair (find sees loops, tar and du hard links).
	 */
	if (stat->dev == lower.dentry->d_sb->s_dev)
		stat->dev = path->dentry->d_sb->s_dev;
	dazukofs_copy_attr(d_inode(path->dentry));
	return 0;
}

static const char *dazukofs_get_link(struct dentry *dentry, struct inode *inode,
				     struct delayed_call *done)
{
	if (!dentry)
		return ERR_PTR(-ECHILD);
	return vfs_get_link(dazukofs_lower_dentry(dentry), done);
}

int dazukofs_fileattr_get(struct dentry *dentry, struct fileattr *fa)
{
	return vfs_fileattr_get(dazukofs_lower_dentry(dentry), fa);
}

int dazukofs_fileattr_set(dazukofs_idmap_t *idmap,
			  struct dentry *dentry, struct fileattr *fa)
{
	struct vfsmount *lower_mnt = dazukofs_lower_mnt(dentry->d_sb);
	int err;

	err = mnt_want_write(lower_mnt);
	if (err)
		return err;
	err = vfs_fileattr_set(dazukofs_mnt_idmap(lower_mnt),
			       dazukofs_lower_dentry(dentry), fa);
	mnt_drop_write(lower_mnt);
	dazukofs_copy_attr(d_inode(dentry));
	return err;
}

static int dazukofs_fiemap(struct inode *inode, struct fiemap_extent_info *fei,
			   u64 start, u64 len)
{
	struct inode *lower_inode = dazukofs_lower_inode(inode);

	if (!lower_inode->i_op->fiemap)
		return -EOPNOTSUPP;
	return lower_inode->i_op->fiemap(lower_inode, fei, start, len);
}

static const struct inode_operations dazukofs_file_iops = {
	.fiemap		= dazukofs_fiemap,
	.permission	= dazukofs_permission,
	.setattr	= dazukofs_setattr,
	.getattr	= dazukofs_getattr,
	.listxattr	= dazukofs_listxattr,
	.fileattr_get	= dazukofs_fileattr_get,
	.fileattr_set	= dazukofs_fileattr_set,
	DAZUKOFS_ACL_IOPS
};

static const struct inode_operations dazukofs_symlink_iops = {
	.get_link	= dazukofs_get_link,
	.permission	= dazukofs_permission,
	.setattr	= dazukofs_setattr,
	.getattr	= dazukofs_getattr,
	.listxattr	= dazukofs_listxattr,
};

static const struct inode_operations dazukofs_special_iops = {
	.permission	= dazukofs_permission,
	.setattr	= dazukofs_setattr,
	.getattr	= dazukofs_getattr,
	.listxattr	= dazukofs_listxattr,
	DAZUKOFS_ACL_IOPS
};
