// SPDX-License-Identifier: GPL-2.0
/*
 * dazukofs group devices: /dev/dazukofs.N hands group N's events to the
 * processes that read it and takes their answers.
 */

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/pid.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "dazukofs.h"
#include "protocol.h"

static dev_t dazukofs_devt;
static struct cdev dazukofs_cdev;

static struct class dazukofs_class = {
	.name = DAZUKOFS_NAME,
};

static int dazukofs_dev_open(struct inode *inode, struct file *file)
{
	struct dazukofs_reader *reader;
	struct dazukofs_group *group;

	group = dazukofs_group_get_by_id(iminor(inode));
	if (!group)
		return -ENXIO;
	reader = kzalloc(sizeof(*reader), GFP_KERNEL);
	if (!reader) {
		dazukofs_group_put(group);
		return -ENOMEM;
	}
	reader->group = group;
	file->private_data = reader;
	dazukofs_worker_add(reader);
	atomic_inc(&group->stats.readers);
	atomic_inc(&dazukofs_global_stats.readers);
	return stream_open(inode, file);
}

static int dazukofs_dev_release(struct inode *inode, struct file *file)
{
	struct dazukofs_reader *reader = file->private_data;

	dazukofs_worker_remove(reader);
	atomic_dec(&reader->group->stats.readers);
	atomic_dec(&dazukofs_global_stats.readers);
	dazukofs_group_put(reader->group);
	kfree(reader);
	return 0;
}

/**
 * dazukofs_dev_read() - hand one event to a worker
 * @file: an open group device
 * @buf: the reader's buffer
 * @count: its size
 * @ppos: unused (a stream)
 *
 * One event per read: "id=N\nfd=F\npid=P\n".  The fd is installed only
 * once the record has reached the reader.  When the reader's buffer is too
 * small or bad, the event goes back to the front of the queue.  When the
 * event's file cannot be opened for the reader, dazukofs_open_failed()
 * settles it by the group's open_error_action and the read goes on with
 * the next event, or (a transient error) queues it again at the tail and
 * the read fails with the error: an event never blocks those behind it.
 *
 * Return: the length of the record, or a negative errno.
 */
static ssize_t dazukofs_dev_read(struct file *file, char __user *buf,
				 size_t count, loff_t *ppos)
{
	struct dazukofs_reader *reader = file->private_data;
	struct dazukofs_proto_event record;
	char text[DAZUKOFS_EVENT_MAX];
	struct dazukofs_gevent *ge;
	struct file *event_file;
	int fd, len;
	ssize_t err;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0)
		return fd;
again:
	ge = dazukofs_take_event(reader, file->f_flags & O_NONBLOCK);
	if (IS_ERR(ge)) {
		put_unused_fd(fd);
		return PTR_ERR(ge);
	}

	record.id = ge->event->id;
	record.fd = fd;
	record.pid = pid_vnr(ge->event->pid);
	len = dazukofs_proto_format_event(text, sizeof(text), &record);
	err = -EINVAL;
	if (len < 0 || len > count)
		goto out_return;

	/*
	 * The lower file: opening it makes no dazukofs event.  Like
	 * fanotify's event fds it makes no fsnotify events either, so that a
	 * listener on the lower does not see (or wait for) the scan, and
	 * reading it leaves the atime alone.
	 */
	event_file = dentry_open(&ge->event->path,
				 O_RDONLY | O_LARGEFILE | O_NOATIME |
				 __FMODE_NONOTIFY, current_cred());
	if (IS_ERR(event_file)) {
		err = PTR_ERR(event_file);
		if (dazukofs_open_failed(ge, err)) {
			cond_resched();
			goto again;
		}
		put_unused_fd(fd);
		return err;
	}
	dazukofs_event_snapshot(ge, reader);
	if (copy_to_user(buf, text, len)) {
		fput(event_file);
		err = -EFAULT;
		goto out_return;
	}
	fd_install(fd, event_file);
	dazukofs_put_event(ge->event);
	return len;

out_return:
	dazukofs_return_event(ge);
	put_unused_fd(fd);
	return err;
}

static ssize_t dazukofs_dev_write(struct file *file, const char __user *buf,
				  size_t count, loff_t *ppos)
{
	struct dazukofs_reader *reader = file->private_data;
	char text[DAZUKOFS_RESPONSE_MAX];
	unsigned long id;
	int verdict, remember, err;

	if (count > sizeof(text))
		return -EINVAL;
	if (copy_from_user(text, buf, count))
		return -EFAULT;
	if (dazukofs_proto_parse_response(text, count, &id, &verdict,
					  &remember))
		return -EINVAL;
	err = dazukofs_answer_event(reader->group, id, verdict, remember);
	return err ? err : count;
}

static __poll_t dazukofs_dev_poll(struct file *file, poll_table *wait)
{
	struct dazukofs_reader *reader = file->private_data;
	struct dazukofs_group *group = reader->group;
	__poll_t mask = EPOLLOUT | EPOLLWRNORM;

	poll_wait(file, &group->wq, wait);
	if (READ_ONCE(group->dead))
		return mask | EPOLLERR | EPOLLHUP;
	if (!list_empty_careful(&group->queue))
		mask |= EPOLLIN | EPOLLRDNORM;
	return mask;
}

/*
 * DAZUKOFS_IOC_GROUP_IDENT: the group this file is bound to, which stays
 * so after an rmdir, unlike the group number behind the device's name.
 */
static long dazukofs_dev_ioctl(struct file *file, unsigned int cmd,
			       unsigned long arg)
{
	struct dazukofs_reader *reader = file->private_data;
	struct dazukofs_group *group = reader->group;
	struct dazukofs_group_ident ident = {
		.instance = group->instance,
		.id = group->id,
		.removed = READ_ONCE(group->dead),
	};

	if (cmd != DAZUKOFS_IOC_GROUP_IDENT)
		return -ENOTTY;
	BUILD_BUG_ON(sizeof(ident.name) <= DAZUKOFS_GROUP_NAME_MAX);
	strscpy(ident.name, group->name, sizeof(ident.name));
	if (copy_to_user((void __user *)arg, &ident, sizeof(ident)))
		return -EFAULT;
	return 0;
}

static const struct file_operations dazukofs_dev_fops = {
	.owner		= THIS_MODULE,
	.open		= dazukofs_dev_open,
	.release	= dazukofs_dev_release,
	.read		= dazukofs_dev_read,
	.write		= dazukofs_dev_write,
	.poll		= dazukofs_dev_poll,
	.unlocked_ioctl	= dazukofs_dev_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

/**
 * dazukofs_dev_add() - create /dev/dazukofs.N for a new group
 * @group: the group, with its id set
 *
 * Return: 0 or a negative errno.
 */
int dazukofs_dev_add(struct dazukofs_group *group)
{
	struct device *dev;

	dev = device_create(&dazukofs_class, NULL,
			    MKDEV(MAJOR(dazukofs_devt), group->id), NULL,
			    DAZUKOFS_NAME ".%d", group->id);
	return PTR_ERR_OR_ZERO(dev);
}

void dazukofs_dev_remove(struct dazukofs_group *group)
{
	device_destroy(&dazukofs_class,
		       MKDEV(MAJOR(dazukofs_devt), group->id));
}

int dazukofs_dev_init(void)
{
	int err;

	err = alloc_chrdev_region(&dazukofs_devt, 0, DAZUKOFS_MAX_GROUPS,
				  DAZUKOFS_NAME);
	if (err)
		return err;
	cdev_init(&dazukofs_cdev, &dazukofs_dev_fops);
	dazukofs_cdev.owner = THIS_MODULE;
	err = cdev_add(&dazukofs_cdev, dazukofs_devt, DAZUKOFS_MAX_GROUPS);
	if (err)
		goto out_region;
	err = class_register(&dazukofs_class);
	if (err)
		goto out_cdev;
	return 0;

out_cdev:
	cdev_del(&dazukofs_cdev);
out_region:
	unregister_chrdev_region(dazukofs_devt, DAZUKOFS_MAX_GROUPS);
	return err;
}

void dazukofs_dev_exit(void)
{
	class_unregister(&dazukofs_class);
	cdev_del(&dazukofs_cdev);
	unregister_chrdev_region(dazukofs_devt, DAZUKOFS_MAX_GROUPS);
}
