// SPDX-License-Identifier: GPL-2.0
/*
 * dazukofs groups: creation and removal, the list every event is posted
 * to, and lookup by id for the group devices.
 *
 * A group's lifetime is the reference count of its configfs item, the one
 * count it has: configfs's link to the directory, every open group device
 * and every event posted to it hold a reference.  Removal (rmdir in
 * configfs) takes it off the list at once, settles its events and removes
 * its device and sysfs directory; the memory goes with the last reference.
 */

#include <linux/configfs.h>
#include <linux/jump_label.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xarray.h>

#include "dazukofs.h"

/*
 * dazukofs_groups_mutex serializes group creation and removal and protects
 * the entries of dazukofs_group_ids and the writers of dazukofs_groups and
 * dazukofs_nr_groups.  The open path takes no lock: it walks
 * dazukofs_groups under rcu_read_lock() (an RCU list), reads
 * dazukofs_nr_groups without the mutex to size an event, and tests
 * dazukofs_have_groups, a static key enabled while any group exists.
 * dazukofs_nr_groups never counts fewer groups than an open can find on
 * the list: a group is counted before it is added, and uncounted only an
 * RCU grace period after it is taken off (dazukofs_check_access()).
 */
static DEFINE_MUTEX(dazukofs_groups_mutex);
LIST_HEAD(dazukofs_groups);
unsigned int dazukofs_nr_groups;
DEFINE_STATIC_KEY_FALSE(dazukofs_have_groups);
/*
 * Group id -> group, and the allocator of the ids: an id is reserved (a
 * NULL entry, which an allocating xarray keeps as taken) from creation
 * until the group's device is gone, and maps to the group only while
 * devices may open it.
 */
static DEFINE_XARRAY_ALLOC(dazukofs_group_ids);
/* Counts group creations: a group's instance, never reused while loaded. */
static atomic64_t dazukofs_group_instances = ATOMIC64_INIT(0);

/**
 * dazukofs_group_name_valid() - check a group name
 * @name: the name given to mkdir
 *
 * Return: true for 1 to DAZUKOFS_GROUP_NAME_MAX characters of
 * [A-Za-z0-9_-].
 */
bool dazukofs_group_name_valid(const char *name)
{
	size_t len = strnlen(name, DAZUKOFS_GROUP_NAME_MAX + 1);
	size_t i;

	if (len == 0 || len > DAZUKOFS_GROUP_NAME_MAX)
		return false;
	for (i = 0; i < len; i++) {
		char c = name[i];

		/* ASCII only: the kernel's isalnum() takes Latin-1 letters. */
		if (!(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') &&
		    !(c >= '0' && c <= '9') && c != '_' && c != '-')
			return false;
	}
	return true;
}

/**
 * dazukofs_group_create() - make a group and start posting events to it
 * @name: a valid group name
 * @type: the type of the group's configfs item
 *
 * Return: the group, its item holding the caller's reference, or an
 * ERR_PTR (-ENOSPC when DAZUKOFS_MAX_GROUPS exist).
 */
struct dazukofs_group *dazukofs_group_create(const char *name,
					     const struct config_item_type *type)
{
	struct dazukofs_group *group;
	u32 id;
	int err;

	group = kzalloc(sizeof(*group), GFP_KERNEL);
	if (!group)
		return ERR_PTR(-ENOMEM);
	strscpy(group->name, name, sizeof(group->name));
	spin_lock_init(&group->lock);
	INIT_LIST_HEAD(&group->queue);
	INIT_LIST_HEAD(&group->in_hand);
	hash_init(group->held);
	hash_init(group->uid_loads);
	INIT_LIST_HEAD(&group->node);
	init_waitqueue_head(&group->wq);
	INIT_DELAYED_WORK(&group->grace_work, dazukofs_grace_expire);
	/* Fail closed: a file no worker can open is not let through. */
	group->open_error_action = DAZUKOFS_OPEN_ERROR_ACTION_DEFAULT;
	/*
	 * Fail open when the daemon dies, as fanotify does: a worker's held
	 * events go to another worker, and with none left no open waits.
	 * Writing 0 to track brings back 2009's wait for a new worker.
	 */
	group->track = DAZUKOFS_TRACK_DEFAULT;
	group->timeout_ms = DAZUKOFS_TIMEOUT_MS_DEFAULT;
	group->timeout_action = DAZUKOFS_TIMEOUT_ACTION_DEFAULT;
	group->grace_ms = DAZUKOFS_GRACE_MS_DEFAULT;
	group->busy_poll_us = DAZUKOFS_BUSY_POLL_US_DEFAULT;
	group->max_queue = DAZUKOFS_MAX_QUEUE_DEFAULT;
	group->cache_epoch = dazukofs_new_epoch();
	group->instance = atomic64_inc_return(&dazukofs_group_instances);
	/* Fail closed: flooding the queue must not let files through. */
	group->overflow_action = DAZUKOFS_OVERFLOW_ACTION_DEFAULT;
	group->events = DAZUKOFS_EVENTS_DEFAULT;
	group->record = DAZUKOFS_RECORD_DEFAULT;

	/* From here on the item's reference count owns the group's memory. */
	config_item_init_type_name(&group->item, name, type);

	err = xa_alloc(&dazukofs_group_ids, &id, NULL,
		       XA_LIMIT(0, DAZUKOFS_MAX_GROUPS - 1), GFP_KERNEL);
	if (err) {
		if (err == -EBUSY)
			err = -ENOSPC;
		goto out_put;
	}
	group->id = id;
	err = dazukofs_sysfs_add_group(group);
	if (err)
		goto out_id;
	err = dazukofs_dev_add(group);
	if (err)
		goto out_del;

	/* Before the group is on the list: opens look for groups from now. */
	static_branch_inc(&dazukofs_have_groups);
	mutex_lock(&dazukofs_groups_mutex);
	err = xa_err(xa_store(&dazukofs_group_ids, group->id, group,
			      GFP_KERNEL));
	if (!err) {
		/*
		 * Counted before it is on the list, and at the tail: an open
		 * finds the groups its count covers before any newer one.
		 */
		WRITE_ONCE(dazukofs_nr_groups, dazukofs_nr_groups + 1);
		list_add_tail_rcu(&group->node, &dazukofs_groups);
	}
	mutex_unlock(&dazukofs_groups_mutex);
	if (err) {
		static_branch_dec(&dazukofs_have_groups);
		goto out_dev;
	}
	return group;

out_dev:
	dazukofs_dev_remove(group);
out_del:
	dazukofs_sysfs_remove_group(group);
out_id:
	xa_erase(&dazukofs_group_ids, group->id);
out_put:
	config_item_put(&group->item);
	return ERR_PTR(err);
}

/**
 * dazukofs_group_destroy() - remove a group
 * @group: a group from dazukofs_group_create(); the caller keeps its
 *	   reference
 *
 * No new event reaches the group after this; its pending events count as
 * allowed by it.
 */
void dazukofs_group_destroy(struct dazukofs_group *group)
{
	mutex_lock(&dazukofs_groups_mutex);
	list_del_rcu(&group->node);
	/* Devices open it no more; the id stays taken until its device goes. */
	xa_store(&dazukofs_group_ids, group->id, NULL, GFP_KERNEL);
	/*
	 * Every open that found the group on the list has posted to it once
	 * this returns; later ones do not find it.  So the group either gets
	 * an event before it drains or never sees it, and no open walks past
	 * it when its memory goes.  Uncounted only then: an open that reads
	 * the smaller count cannot find the group any more.
	 */
	synchronize_rcu();
	WRITE_ONCE(dazukofs_nr_groups, dazukofs_nr_groups - 1);
	mutex_unlock(&dazukofs_groups_mutex);
	static_branch_dec(&dazukofs_have_groups);

	dazukofs_drain_group(group);
	/*
	 * The group is dead: nobody queues its grace work any more.  Wait
	 * for a running one, so that none outlives the group.
	 */
	cancel_delayed_work_sync(&group->grace_work);
	dazukofs_dev_remove(group);
	dazukofs_sysfs_remove_group(group);
	xa_erase(&dazukofs_group_ids, group->id);
}

/**
 * dazukofs_group_get_by_id() - find a live group
 * @id: the group id
 *
 * Return: the group with a reference, or NULL.
 */
struct dazukofs_group *dazukofs_group_get_by_id(int id)
{
	struct dazukofs_group *group;

	mutex_lock(&dazukofs_groups_mutex);
	group = xa_load(&dazukofs_group_ids, id);
	if (group)
		dazukofs_group_get(group);
	mutex_unlock(&dazukofs_groups_mutex);
	return group;
}

void dazukofs_group_get(struct dazukofs_group *group)
{
	config_item_get(&group->item);
}

void dazukofs_group_put(struct dazukofs_group *group)
{
	config_item_put(&group->item);
}

/* The item's release: the last reference to the group is gone. */
void dazukofs_group_free(struct dazukofs_group *group)
{
	struct dazukofs_uid_load *load;
	struct hlist_node *tmp;
	int bkt;

	/* No event refers to the group any more, nor to its loads. */
	hash_for_each_safe(group->uid_loads, bkt, tmp, load, node)
		kfree(load);
	dazukofs_exclude_release(group);
	kfree(group);
}
