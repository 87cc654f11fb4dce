// SPDX-License-Identifier: GPL-2.0
/*
 * Can the bytes of a lower filesystem change behind the kernel's back?
 *
 * A remembered verdict holds while the lower file is unchanged, and every
 * change the kernel makes reaches the lower filesystem: its fsnotify
 * events, its stamp (verdict.c).  Some block devices are served by
 * someone else: a loop device reads a file that its owner may rewrite
 * (udisks sets one up for an unprivileged user's image), an NBD or ublk
 * device a userspace server, an RBD device a Ceph cluster that other
 * clients write.  Once the page cache lets go of a file's pages, its next
 * read finds whatever the server now says, and no event or stamp tells.
 *
 * So by default (remember=auto) nothing is remembered on a lower whose
 * block device is one of those, or a device-mapper or md device built on
 * one: followed down the "slaves" links that such devices keep, as
 * lsblk does.  Nor on a filesystem that needs a block device but shows
 * none (btrfs, erofs over a file), nor on a stacked one (overlayfs): what
 * lies below cannot be seen.
 *
 * Not recognised: iSCSI, Fibre Channel and other shared disks (to the
 * kernel, SCSI disks like any other), DRBD, a virtual machine's disk as
 * its host may change it.  Root or the disk group writing a mounted block
 * device is out of scope.  Checked at mount and at remount: a
 * device-mapper table reloaded onto a loop device later is not seen.
 */

#include <linux/blkdev.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/kernfs.h>
#include <linux/major.h>

#include "dazukofs.h"

/* Deeper stacks of devices are not followed: nothing is remembered. */
#define DAZUKOFS_DEV_STACK_MAX	8

/* A disk whose contents are served by someone other than this kernel. */
static bool dazukofs_disk_served(const struct gendisk *disk)
{
	return disk->major == LOOP_MAJOR || disk->major == NBD_MAJOR ||
	       !strncmp(disk->disk_name, "ublkb", 5) ||
	       !strncmp(disk->disk_name, "rbd", 3);
}

struct dazukofs_dev_walk {
	struct kernfs_node *slaves;	/* the holder disk's "slaves" directory */
	int depth;
	char *why;			/* DAZUKOFS_WHY_LEN bytes */
	bool found;
};

static bool dazukofs_disk_unsafe(struct gendisk *disk, int depth, char *why);

#ifdef CONFIG_BLOCK_HOLDER_DEPRECATED
/* class_for_each_device() callback: is @dev a slave of the walk's disk? */
static int dazukofs_check_slave(struct device *dev, void *data)
{
	struct dazukofs_dev_walk *walk = data;
	struct kernfs_node *link;

	link = kernfs_find_and_get(walk->slaves, dev_name(dev));
	if (!link)
		return 0;
	kernfs_put(link);
	walk->found = dazukofs_disk_unsafe(dev_to_bdev(dev)->bd_disk,
					   walk->depth + 1, walk->why);
	return walk->found;
}

/*
 * The devices a device-mapper or md disk is built on: each has a link in
 * the disk's "slaves" directory, named as the device is.  A module cannot
 * list a kernfs directory, so every block device is looked up there: once
 * per mount.
 */
static bool dazukofs_slaves_unsafe(struct gendisk *disk, int depth, char *why)
{
	struct dazukofs_dev_walk walk = { .depth = depth, .why = why };

	if (!disk->slave_dir)
		return false;
	walk.slaves = disk->slave_dir->sd;
	/* Every block device is in the class of the disk's own device. */
	class_for_each_device(disk_to_dev(disk)->class, NULL, &walk,
			      dazukofs_check_slave);
	return walk.found;
}
#else
/* Without holder links (not on Debian), stacked devices are not followed. */
static bool dazukofs_slaves_unsafe(struct gendisk *disk, int depth, char *why)
{
	return false;
}
#endif

/*
 * Is @disk served elsewhere, or built on such a disk?  If so, @why names
 * that disk, for the log.
 */
static bool dazukofs_disk_unsafe(struct gendisk *disk, int depth, char *why)
{
	if (dazukofs_disk_served(disk)) {
		snprintf(why, DAZUKOFS_WHY_LEN, "%s", disk->disk_name);
		return true;
	}
	if (depth >= DAZUKOFS_DEV_STACK_MAX) {
		snprintf(why, DAZUKOFS_WHY_LEN, "%s, a stack too deep to follow",
			 disk->disk_name);
		return true;
	}
	return dazukofs_slaves_unsafe(disk, depth, why);
}

/**
 * dazukofs_lower_changes_unseen() - may the lower's bytes change unseen?
 * @lower_sb: the lower filesystem's superblock
 * @why: DAZUKOFS_WHY_LEN bytes: what the lower is on, for the log, if so
 *
 * See the top of this file.  May sleep: walks the block devices.
 *
 * Return: true if verdicts on the lower's files should not be remembered.
 */
bool dazukofs_lower_changes_unseen(struct super_block *lower_sb, char *why)
{
	if (lower_sb->s_bdev)
		return dazukofs_disk_unsafe(lower_sb->s_bdev->bd_disk, 0, why);
	if (lower_sb->s_stack_depth) {
		snprintf(why, DAZUKOFS_WHY_LEN, "%s, whose layers cannot be seen",
			 lower_sb->s_type->name);
		return true;
	}
	if (lower_sb->s_type->fs_flags & FS_REQUIRES_DEV) {
		snprintf(why, DAZUKOFS_WHY_LEN, "%s, whose devices cannot be seen",
			 lower_sb->s_type->name);
		return true;
	}
	return false;
}
