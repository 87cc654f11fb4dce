// SPDX-License-Identifier: GPL-2.0
/*
 * dazukofs extended attributes and POSIX ACLs: every name is passed to the
 * lower inode, with the lower's permission checks, so a mount supports
 * exactly what its lower filesystem supports.
 */

#include <linux/fs.h>
#include <linux/posix_acl.h>
#include <linux/posix_acl_xattr.h>
#include <linux/xattr.h>

#include "dazukofs.h"

static int dazukofs_xattr_get(const struct xattr_handler *handler,
			      struct dentry *dentry, struct inode *inode,
			      const char *name, void *buffer, size_t size)
{
	/*
	 * Over a nosuid lower, file capabilities take no effect, as on the
	 * lower itself: exec reads them through here.
	 */
	if (dazukofs_lower_nosuid(dentry->d_sb) &&
	    !strcmp(name, XATTR_NAME_CAPS))
		return -ENODATA;
	return vfs_getxattr(dazukofs_lower_idmap(dentry->d_sb),
			    dazukofs_lower_dentry(dentry), name, buffer, size);
}

static int dazukofs_xattr_set(const struct xattr_handler *handler,
			      dazukofs_idmap_t *idmap, struct dentry *dentry,
			      struct inode *inode, const char *name,
			      const void *value, size_t size, int flags)
{
	struct vfsmount *lower_mnt = dazukofs_lower_mnt(dentry->d_sb);
	struct dentry *lower = dazukofs_lower_dentry(dentry);
	int err;

	err = mnt_want_write(lower_mnt);
	if (err)
		return err;
	if (value)
		err = vfs_setxattr(dazukofs_mnt_idmap(lower_mnt), lower, name,
				   value, size, flags);
	else
		err = vfs_removexattr(dazukofs_mnt_idmap(lower_mnt), lower,
				      name);
	mnt_drop_write(lower_mnt);
	dazukofs_copy_attr(d_inode(dentry));
	return err;
}

static const struct xattr_handler dazukofs_xattr_handler = {
	.prefix	= "",	/* every name */
	.get	= dazukofs_xattr_get,
	.set	= dazukofs_xattr_set,
};

const struct xattr_handler *dazukofs_xattr_handlers[] = {
	&dazukofs_xattr_handler,
	NULL,
};

ssize_t dazukofs_listxattr(struct dentry *dentry, char *list, size_t size)
{
	return vfs_listxattr(dazukofs_lower_dentry(dentry), list, size);
}

#ifdef DAZUKOFS_ACL_DENTRY_OPS
static const char *dazukofs_acl_name(int type)
{
	return type == ACL_TYPE_ACCESS ? XATTR_NAME_POSIX_ACL_ACCESS :
					 XATTR_NAME_POSIX_ACL_DEFAULT;
}

struct posix_acl *dazukofs_get_acl(dazukofs_idmap_t *idmap,
				   struct dentry *dentry, int type)
{
	struct posix_acl *acl;

	/*
	 * Never cache the ACL in the dazukofs inode: it may be changed
	 * directly on the lower inode.
	 */
	forget_cached_acl(d_inode(dentry), type);
	acl = vfs_get_acl(dazukofs_lower_idmap(dentry->d_sb),
			  dazukofs_lower_dentry(dentry), dazukofs_acl_name(type));
	if (acl == ERR_PTR(-ENODATA))
		return NULL;
	return acl;
}

int dazukofs_set_acl(dazukofs_idmap_t *idmap, struct dentry *dentry,
		     struct posix_acl *acl, int type)
{
	struct vfsmount *lower_mnt = dazukofs_lower_mnt(dentry->d_sb);
	struct dentry *lower = dazukofs_lower_dentry(dentry);
	int err;

	err = mnt_want_write(lower_mnt);
	if (err)
		return err;
	if (acl)
		err = vfs_set_acl(dazukofs_mnt_idmap(lower_mnt), lower,
				  dazukofs_acl_name(type), acl);
	else
		err = vfs_remove_acl(dazukofs_mnt_idmap(lower_mnt), lower,
				     dazukofs_acl_name(type));
	mnt_drop_write(lower_mnt);
	dazukofs_copy_attr(d_inode(dentry));
	return err;
}
#endif
