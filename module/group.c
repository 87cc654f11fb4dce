// SPDX-License-Identifier: GPL-2.0
/*
 * dazukofs groups: creation and removal, the list every event is posted
 * to, and lookup by id for the group devices.
 *
 * A group's lifetime is its kobject's reference count: the configfs item,
 * every open group device and every event posted to it hold one.  Removal
 * (rmdir in configfs) takes it off the list at once, settles its events
 * and removes its device and sysfs directory; the memory goes with the
 * last reference.
 */

#include <linux/idr.h>
#include <linux/jump_label.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xarray.h>

#include "dazukofs.h"

/*
 * dazukofs_groups_mutex serializes group creation and removal and protects
 * dazukofs_group_ids and the writers of dazukofs_groups and
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
static DEFINE_XARRAY(dazukofs_group_ids);
/* Group ids of live groups; an id is free again once its group is removed. */
static DEFINE_IDA(dazukofs_ida);
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
 *
 * Return: the group, holding the caller's reference, or an ERR_PTR
 * (-ENOSPC when DAZUKOFS_MAX_GROUPS exist).
 */
struct dazukofs_group *dazukofs_group_create(const char *name)
{
	struct dazukofs_group *group;
	int err;

	group = kzalloc(sizeof(*group), GFP_KERNEL);
	if (!group)
		return ERR_PTR(-ENOMEM);
	strscpy(group->name, name, sizeof(group->name));
	spin_lock_init(&group->lock);
	INIT_LIST_HEAD(&group->queue);
	INIT_LIST_HEAD(&group->in_hand);
	INIT_LIST_HEAD(&group->node);
	init_waitqueue_head(&group->wq);
	INIT_DELAYED_WORK(&group->grace_work, dazukofs_grace_expire);
	/* Fail closed: a file no worker can open is not let through. */
	group->open_error_action = DAZUKOFS_DENY;
	group->max_queue = DAZUKOFS_MAX_QUEUE_DEFAULT;
	group->cache_epoch = dazukofs_new_epoch();
	group->instance = atomic64_inc_return(&dazukofs_group_instances);
	/* Fail closed: flooding the queue must not let files through. */
	group->overflow_action = DAZUKOFS_DENY;
	group->events = DAZUKOFS_EVENT_OPEN;

	group->id = ida_alloc_max(&dazukofs_ida, DAZUKOFS_MAX_GROUPS - 1,
				  GFP_KERNEL);
	if (group->id < 0) {
		err = group->id;
		kfree(group);
		return ERR_PTR(err);
	}

	/* From here on the kobject owns the group's memory. */
	err = dazukofs_sysfs_add_group(group);
	if (err)
		goto out_put;
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
	kobject_del(&group->kobj);
out_put:
	ida_free(&dazukofs_ida, group->id);
	kobject_put(&group->kobj);
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
	xa_erase(&dazukofs_group_ids, group->id);
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
	kobject_del(&group->kobj);
	ida_free(&dazukofs_ida, group->id);
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
		kobject_get(&group->kobj);
	mutex_unlock(&dazukofs_groups_mutex);
	return group;
}

void dazukofs_group_put(struct dazukofs_group *group)
{
	kobject_put(&group->kobj);
}

/* The kobject's release: the last reference to the group is gone. */
void dazukofs_group_free(struct dazukofs_group *group)
{
	kfree(group);
}
