/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dazukofs: a stackable filesystem that passes every call to the directory
 * it is mounted over.  Internal declarations shared by the module's files.
 */
#ifndef _DAZUKOFS_H
#define _DAZUKOFS_H

#include <linux/fs.h>
#include <linux/dcache.h>
#include <linux/mount.h>
#include <linux/path.h>

#include "compat.h"

#define DAZUKOFS_NAME		"dazukofs"
/* "dazu" in ASCII; reported as f_type by statfs */
#define DAZUKOFS_SUPER_MAGIC	0x64617a75

/**
 * struct dazukofs_sb_info - per-mount state
 * @lower: the directory the mount stacks on.  Set at mount time, constant
 *	   until the superblock dies; its references are held by the mount.
 */
struct dazukofs_sb_info {
	struct path lower;
};

static inline struct dazukofs_sb_info *dazukofs_sb(const struct super_block *sb)
{
	return sb->s_fs_info;
}

static inline struct vfsmount *dazukofs_lower_mnt(const struct super_block *sb)
{
	return dazukofs_sb(sb)->lower.mnt;
}

static inline dazukofs_idmap_t *dazukofs_lower_idmap(const struct super_block *sb)
{
	return dazukofs_mnt_idmap(dazukofs_lower_mnt(sb));
}

/*
 * Every dazukofs dentry pins the lower dentry of the same name in d_fsdata.
 * It is set once, before the dentry becomes visible (lookup, create of a
 * tmpfile, the root), and dropped in ->d_release, so it is stable for the
 * dentry's lifetime and may be read under RCU.  It may be NULL only for a
 * dentry whose lookup failed.
 */
static inline struct dentry *dazukofs_lower_dentry(const struct dentry *dentry)
{
	return READ_ONCE(dentry->d_fsdata);
}

static inline void dazukofs_lower_path(const struct dentry *dentry,
				       struct path *lower)
{
	lower->mnt = dazukofs_lower_mnt(dentry->d_sb);
	lower->dentry = dazukofs_lower_dentry(dentry);
}

/*
 * A dazukofs inode stands for exactly one lower inode, kept in i_private
 * with a reference: hard links and every path to the same lower inode share
 * one dazukofs inode.
 */
static inline struct inode *dazukofs_lower_inode(const struct inode *inode)
{
	return inode->i_private;
}

/* The lower file an open dazukofs file reads and writes, for its lifetime. */
static inline struct file *dazukofs_lower_file(const struct file *file)
{
	return file->private_data;
}

/* super.c */
extern struct file_system_type dazukofs_fs_type;

/* inode.c */
struct inode *dazukofs_iget(struct super_block *sb, struct inode *lower_inode);
void dazukofs_copy_attr(struct inode *inode);
extern const struct inode_operations dazukofs_dir_iops;

/* dentry.c */
extern const struct dentry_operations dazukofs_dops;

/* file.c */
extern const struct file_operations dazukofs_file_fops;
extern const struct file_operations dazukofs_dir_fops;

/* xattr.c */
extern const struct xattr_handler *dazukofs_xattr_handlers[];
ssize_t dazukofs_listxattr(struct dentry *dentry, char *list, size_t size);
#ifdef DAZUKOFS_ACL_DENTRY_OPS
struct posix_acl *dazukofs_get_acl(dazukofs_idmap_t *idmap,
				   struct dentry *dentry, int type);
int dazukofs_set_acl(dazukofs_idmap_t *idmap, struct dentry *dentry,
		     struct posix_acl *acl, int type);
#define DAZUKOFS_ACL_IOPS			\
	.get_acl	= dazukofs_get_acl,	\
	.set_acl	= dazukofs_set_acl,
#else
/* ACLs travel as xattrs, through the catch-all xattr handler. */
#define DAZUKOFS_ACL_IOPS
#endif

#endif /* _DAZUKOFS_H */
