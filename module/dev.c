// SPDX-License-Identifier: GPL-2.0
/*
 * dazukofs group devices: /dev/dazukofs.N hands group N's events to the
 * processes that read it and takes their answers.
 */

#include <linux/capability.h>
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/pid.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/uidgid.h>

#include "dazukofs.h"
#include "protocol.h"

static dev_t dazukofs_devt;
static struct cdev dazukofs_cdev;

static struct class dazukofs_class = {
	.name = DAZUKOFS_NAME,
};

/*
 * A worker gets an open file for every access through every dazukofs
 * mount, may refuse any of them and holds their openers until it answers:
 * what fanotify's permission events give, and fanotify_init() asks for
 * CAP_SYS_ADMIN.  CAP_DAC_READ_SEARCH would cover the reading only.  The
 * check is the module's, in the initial user namespace, whatever the
 * node's mode: a loosened udev rule must not hand this to a user.
 */
static int dazukofs_dev_open(struct inode *inode, struct file *file)
{
	struct dazukofs_reader *reader;
	struct dazukofs_group *group;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
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

/*
 * The event's lower file, for a worker.  Opening it makes no dazukofs
 * event.  Like fanotify's event fds it makes no fsnotify events either, so
 * that a listener on the lower does not see (or wait for) the scan, and
 * reading it leaves the atime alone.
 */
static struct file *dazukofs_event_open(struct dazukofs_event *event)
{
	return dentry_open(&event->path,
			   O_RDONLY | O_LARGEFILE | O_NOATIME | __FMODE_NONOTIFY,
			   current_cred());
}

/**
 * dazukofs_read_event() - hand one event to a worker in record format 1
 * @reader: the worker
 * @nonblock: fail with EAGAIN rather than wait
 * @buf: the reader's buffer
 * @count: its size
 *
 * "id=N\nfd=F\npid=P\n".  The fd is installed only once the record has
 * reached the reader.  When the reader's buffer is too small or bad, the
 * event goes back to the front of the queue.  When the event's file
 * cannot be opened for the reader, dazukofs_open_failed() settles it by
 * the group's open_error_action and the read goes on with the next event,
 * or (a transient error) queues it again at the tail and the read fails
 * with the error: an event never blocks those behind it.
 *
 * Return: the length of the record, or a negative errno.
 */
static ssize_t dazukofs_read_event(struct dazukofs_reader *reader,
				   bool nonblock, char __user *buf,
				   size_t count)
{
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
	ge = dazukofs_take_event(reader, nonblock);
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

	event_file = dazukofs_event_open(ge->event);
	if (IS_ERR(event_file)) {
		err = PTR_ERR(event_file);
		if (dazukofs_open_failed(ge, err) != DAZUKOFS_OPEN_REQUEUED) {
			dazukofs_put_event(ge->event);
			cond_resched();
			goto again;
		}
		dazukofs_put_event(ge->event);
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

/*
 * A format-2 or -3 record of @event: who opened the file how, and which
 * file it is, as the worker's fd (or -errno, @fd) finds it.
 */
static void dazukofs_record_fill(struct dazukofs_proto_record *rec,
				 unsigned int format,
				 const struct dazukofs_event *event, int fd)
{
	struct user_namespace *ns = current_user_ns();
	struct inode *inode = d_inode(event->path.dentry);
	struct kstat stat;

	rec->format = format;
	rec->id = event->id;
	rec->fd = fd;
	rec->pid = pid_vnr(event->pid);
	rec->uid = from_kuid_munged(ns, event->uid);
	rec->euid = from_kuid_munged(ns, event->euid);
	rec->fsuid = from_kuid_munged(ns, event->fsuid);
	rec->type = event->type;
	rec->access = event->access;
	/*
	 * What stat() would say: btrfs subvolumes have a st_dev of their own,
	 * and a worker that keys a cache on (dev, ino) must not mix them up.
	 */
	if (vfs_getattr_nosec(&event->path, &stat, STATX_INO | STATX_SIZE |
			      DAZUKOFS_STATX_CHANGE_COOKIE, AT_STATX_DONT_SYNC)) {
		stat.result_mask = 0;
		stat.dev = inode->i_sb->s_dev;
		stat.ino = inode->i_ino;
		stat.size = i_size_read(inode);
	}
	rec->dev_major = MAJOR(stat.dev);
	rec->dev_minor = MINOR(stat.dev);
	rec->ino = stat.ino;
	rec->size = max_t(loff_t, stat.size, 0);
	rec->change = dazukofs_change_cookie(&stat, inode);
	rec->cgroup = event->cgroup_id;
}

/* Format @rec into @text; the record always fits. */
static int dazukofs_record_format(char *text,
				  const struct dazukofs_proto_record *rec)
{
	int len = dazukofs_proto_format_record(text, DAZUKOFS_RECORD3_MAX, rec);

	return WARN_ON_ONCE(len < 0) ? -EINVAL : len;
}

/*
 * The errno a format-2 record reports for a failed open: dentry_open()
 * passes some of the kernel's own codes through (an NFSv4 lower's
 * EOPENSTALE, a signal's ERESTART*), which mean nothing to userspace.
 */
static int dazukofs_user_errno(int err)
{
	switch (err) {
	case -EOPENSTALE:
		return -ESTALE;
	case -ERESTARTSYS:
	case -ERESTARTNOINTR:
	case -ERESTARTNOHAND:
	case -ERESTART_RESTARTBLOCK:
		return -EINTR;
	default:
		/* the rest of the kernel's own range (512 and up) */
		return err <= -ERESTARTSYS ? -EIO : err;
	}
}

/**
 * dazukofs_read_record() - hand one event to a worker in record format 2 or 3
 * @reader: the worker
 * @format: DAZUKOFS_RECORD_V2 or DAZUKOFS_RECORD_V3
 * @nonblock: fail with EAGAIN rather than wait
 * @buf: where the record goes, with room for the format's longest record
 *
 * As dazukofs_read_event(), except that an event whose file cannot be
 * opened, and which open_error_action settled, is reported with fd
 * -errno instead of being passed over.
 *
 * Return: the length of the record, or a negative errno.
 */
static ssize_t dazukofs_read_record(struct dazukofs_reader *reader,
				    unsigned int format, bool nonblock,
				    char __user *buf)
{
	struct dazukofs_proto_record rec;
	char text[DAZUKOFS_RECORD3_MAX];
	struct dazukofs_gevent *ge;
	struct file *event_file;
	int fd, len;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0)
		return fd;
again:
	ge = dazukofs_take_event(reader, nonblock);
	if (IS_ERR(ge)) {
		put_unused_fd(fd);
		return PTR_ERR(ge);
	}
	event_file = dazukofs_event_open(ge->event);
	if (IS_ERR(event_file)) {
		int err = PTR_ERR(event_file);
		enum dazukofs_open_outcome outcome;

		outcome = dazukofs_open_failed(ge, err);
		if (outcome == DAZUKOFS_OPEN_GONE) {
			dazukofs_put_event(ge->event);
			cond_resched();
			goto again;
		}
		put_unused_fd(fd);
		if (outcome == DAZUKOFS_OPEN_REQUEUED) {
			dazukofs_put_event(ge->event);
			return err;
		}
		/* Settled by open_error_action: the record says why. */
		dazukofs_record_fill(&rec, format, ge->event,
				     dazukofs_user_errno(err));
		dazukofs_put_event(ge->event);
		len = dazukofs_record_format(text, &rec);
		/* Settled either way: a lost report loses no verdict. */
		if (len > 0 && copy_to_user(buf, text, len))
			return -EFAULT;
		return len;
	}
	dazukofs_event_snapshot(ge, reader);
	dazukofs_record_fill(&rec, format, ge->event, fd);
	len = dazukofs_record_format(text, &rec);
	if (len < 0 || copy_to_user(buf, text, len)) {
		fput(event_file);
		dazukofs_return_event(ge);
		put_unused_fd(fd);
		return len < 0 ? len : -EFAULT;
	}
	fd_install(fd, event_file);
	dazukofs_put_event(ge->event);
	return len;
}

/*
 * Formats 2 and 3: up to @count / the format's longest record records,
 * which always fit, at most DAZUKOFS_RECORD_BATCH_MAX, waiting for the
 * first only.  The reader's buffer size is its batch.
 */
static ssize_t dazukofs_read_records(struct dazukofs_reader *reader,
				     unsigned int format, bool nonblock,
				     char __user *buf, size_t count)
{
	size_t unit = format == DAZUKOFS_RECORD_V3 ? DAZUKOFS_RECORD3_MAX :
						     DAZUKOFS_RECORD_MAX;
	size_t batch = min_t(size_t, count / unit, DAZUKOFS_RECORD_BATCH_MAX);
	size_t done = 0, i;
	ssize_t len;

	if (!batch)
		return -EINVAL;
	for (i = 0; i < batch; i++) {
		if (done && fatal_signal_pending(current))
			break;
		len = dazukofs_read_record(reader, format, nonblock || done,
					   buf + done);
		if (len < 0)
			return done ? done : len;
		done += len;
	}
	return done;
}

static ssize_t dazukofs_dev_read(struct file *file, char __user *buf,
				 size_t count, loff_t *ppos)
{
	struct dazukofs_reader *reader = file->private_data;
	unsigned int format = READ_ONCE(reader->group->record);
	bool nonblock = file->f_flags & O_NONBLOCK;

	if (format != DAZUKOFS_RECORD_V1)
		return dazukofs_read_records(reader, format, nonblock, buf,
					     count);
	return dazukofs_read_event(reader, nonblock, buf, count);
}

/* Format 1: exactly one answer. */
static ssize_t dazukofs_write_answer(struct dazukofs_reader *reader,
				     const char __user *buf, size_t count)
{
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

/*
 * Format 2: answers one per line, taken in order up to the first that
 * fails; the bytes of those taken, or the first one's error.
 */
static ssize_t dazukofs_write_answers(struct dazukofs_reader *reader,
				      const char __user *buf, size_t count)
{
	char text[DAZUKOFS_RESPONSE_MAX];
	size_t done = 0;
	int err = 0;

	while (done < count) {
		size_t chunk = min(count - done, sizeof(text)), len;
		unsigned long id;
		int verdict, remember;

		if (copy_from_user(text, buf + done, chunk)) {
			err = -EFAULT;
			break;
		}
		len = dazukofs_proto_line_len(text, chunk);
		/* A line longer than any answer is no answer. */
		if (text[len - 1] != '\n' && done + len < count) {
			err = -EINVAL;
			break;
		}
		if (dazukofs_proto_parse_response(text, len, &id, &verdict,
						  &remember)) {
			err = -EINVAL;
			break;
		}
		err = dazukofs_answer_event(reader->group, id, verdict,
					    remember);
		if (err)
			break;
		done += len;
	}
	return done ? done : err;
}

static ssize_t dazukofs_dev_write(struct file *file, const char __user *buf,
				  size_t count, loff_t *ppos)
{
	struct dazukofs_reader *reader = file->private_data;

	/* Formats 2 and 3 take the same answers. */
	if (READ_ONCE(reader->group->record) != DAZUKOFS_RECORD_V1)
		return dazukofs_write_answers(reader, buf, count);
	return dazukofs_write_answer(reader, buf, count);
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
