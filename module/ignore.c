// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/dazukofs.ign: a process that holds it open makes no access events,
 * so a scanner can read its signatures and write its logs on a dazukofs
 * mount without waiting on itself.
 *
 * The exemption belongs to the process (all its threads) that opened the
 * device, for as long as that process has the open file in its fd table:
 * it ends when the process closes its last fd for it, or exits.  A child
 * that inherits the fd across fork() is not exempt, and its copy does not
 * prolong the parent's exemption; across execve() the exemption stays
 * while the fd stays open (it is not O_CLOEXEC unless asked).
 */

#include <linux/capability.h>
#include <linux/fdtable.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "dazukofs.h"

/*
 * dazukofs_ignore_lock serializes the writers of dazukofs_ignore_list and
 * the entries' @listed.  The open path reads the list under
 * rcu_read_lock() only: an entry taken off it is freed an RCU grace
 * period later, together with its reference on @tgid.
 */
static DEFINE_SPINLOCK(dazukofs_ignore_lock);
static LIST_HEAD(dazukofs_ignore_list);
/* Entries in the list; read without the lock as the open path's shortcut. */
static atomic_t dazukofs_nr_ignored = ATOMIC_INIT(0);

/**
 * struct dazukofs_ignore - an exemption, one per open of the device
 * @node: in dazukofs_ignore_list while @listed (RCU list)
 * @tgid: the process exempt
 * @listed: on the list (dazukofs_ignore_lock): flush and release may
 *	    both end the exemption, only the first takes it off
 * @rcu: frees the entry after the readers that may still see it
 */
struct dazukofs_ignore {
	struct list_head node;
	struct pid *tgid;
	bool listed;
	struct rcu_head rcu;
};

/**
 * dazukofs_ignored() - is the current process exempt from events?
 *
 * Lock-free: the open path of every file runs it while a scanner holds
 * the device open.
 *
 * Return: true if it holds /dev/dazukofs.ign open.
 */
bool dazukofs_ignored(void)
{
	struct pid *tgid = task_tgid(current);
	struct dazukofs_ignore *ign;
	bool found = false;

	if (!atomic_read(&dazukofs_nr_ignored))
		return false;
	rcu_read_lock();
	list_for_each_entry_rcu(ign, &dazukofs_ignore_list, node) {
		if (ign->tgid == tgid) {
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/*
 * The holder's accesses skip every group: that is a way past the policy,
 * granted as the group devices are (see dazukofs_dev_open()), whatever
 * the node's mode.
 */
static int dazukofs_ignore_open(struct inode *inode, struct file *file)
{
	struct dazukofs_ignore *ign;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	ign = kzalloc(sizeof(*ign), GFP_KERNEL);
	if (!ign)
		return -ENOMEM;
	ign->tgid = get_pid(task_tgid(current));
	spin_lock(&dazukofs_ignore_lock);
	list_add_rcu(&ign->node, &dazukofs_ignore_list);
	ign->listed = true;
	atomic_inc(&dazukofs_nr_ignored);
	spin_unlock(&dazukofs_ignore_lock);
	file->private_data = ign;
	return stream_open(inode, file);
}

/* End the exemption (once: flush and release may both get here). */
static void dazukofs_ignore_end(struct dazukofs_ignore *ign)
{
	spin_lock(&dazukofs_ignore_lock);
	if (ign->listed) {
		list_del_rcu(&ign->node);
		ign->listed = false;
		atomic_dec(&dazukofs_nr_ignored);
	}
	spin_unlock(&dazukofs_ignore_lock);
}

/* After a grace period: no reader compares against @tgid any more. */
static void dazukofs_ignore_free(struct rcu_head *rcu)
{
	struct dazukofs_ignore *ign = container_of(rcu, struct dazukofs_ignore,
						   rcu);

	put_pid(ign->tgid);
	kfree(ign);
}

static int dazukofs_ignore_same_file(const void *file, struct file *f,
				     unsigned int fd)
{
	return f == file;
}

/*
 * Every close() of an fd for the file: when the owning process lets go of
 * its last one, its exemption ends, even if a child still holds a copy.
 */
static int dazukofs_ignore_flush(struct file *file, fl_owner_t id)
{
	struct dazukofs_ignore *ign = file->private_data;
	struct files_struct *files = current->files;

	if (task_tgid(current) != ign->tgid)
		return 0;
	if (files && iterate_fd(files, 0, dazukofs_ignore_same_file, file))
		return 0;
	dazukofs_ignore_end(ign);
	return 0;
}

static int dazukofs_ignore_release(struct inode *inode, struct file *file)
{
	struct dazukofs_ignore *ign = file->private_data;

	dazukofs_ignore_end(ign);
	call_rcu(&ign->rcu, dazukofs_ignore_free);
	return 0;
}

static const struct file_operations dazukofs_ignore_fops = {
	.owner		= THIS_MODULE,
	.open		= dazukofs_ignore_open,
	.flush		= dazukofs_ignore_flush,
	.release	= dazukofs_ignore_release,
};

static struct miscdevice dazukofs_ignore_dev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= DAZUKOFS_NAME ".ign",
	.fops	= &dazukofs_ignore_fops,
	.mode	= 0600,
};

int dazukofs_ignore_init(void)
{
	return misc_register(&dazukofs_ignore_dev);
}

void dazukofs_ignore_exit(void)
{
	misc_deregister(&dazukofs_ignore_dev);
	/* dazukofs_ignore_free() is module code: let it run first. */
	rcu_barrier();
}
