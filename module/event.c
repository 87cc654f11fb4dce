// SPDX-License-Identifier: GPL-2.0
/*
 * dazukofs access events: an open of a regular file waits until every
 * group has answered, and fails with EPERM if any group denied.
 *
 * An event is one allocation: the event and its place in each group
 * (struct dazukofs_gevent).  The opener posts it to every group under
 * dazukofs_groups_rwsem, so a group being removed either gets the event
 * before it drains or never sees it.  From then on each gevent moves, under
 * its group's lock, from the group's queue to the hands of a worker and
 * then out (DONE), by an answer, by the group's removal, or, while still
 * queued, by the opener giving up when killed.  Whoever sets DONE settles
 * the gevent, exactly once.
 */

#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "dazukofs.h"

struct dazukofs_stats dazukofs_global_stats;

static atomic64_t dazukofs_next_event_id = ATOMIC64_INIT(0);

void dazukofs_put_event(struct dazukofs_event *event)
{
	unsigned int i;

	if (!refcount_dec_and_test(&event->ref))
		return;
	for (i = 0; i < event->nr; i++)
		dazukofs_group_put(event->ge[i].group);
	path_put(&event->path);
	put_pid(event->pid);
	kfree(event);
}

/*
 * Settle one group's part of an event.  The caller has taken the gevent
 * off its group's lists and set it DONE under the group's lock.
 */
static void dazukofs_settle(struct dazukofs_gevent *ge, int verdict)
{
	struct dazukofs_event *event = ge->event;

	if (verdict == DAZUKOFS_DENY)
		WRITE_ONCE(event->denied, true);
	/* Fully ordered: the opener sees @denied once it sees zero. */
	if (atomic_dec_and_test(&event->pending))
		wake_up(&event->wq);
	/* The gevent's own reference kept @event alive for the wake-up. */
	dazukofs_put_event(event);
}

static void dazukofs_count_answer(struct dazukofs_stats *stats, int verdict,
				  u64 us)
{
	atomic64_inc(verdict == DAZUKOFS_DENY ? &stats->denied :
						&stats->allowed);
	dazukofs_stats_latency(stats, us);
}

static struct dazukofs_event *dazukofs_alloc_event(const struct path *lower,
						    unsigned int nr)
{
	struct dazukofs_event *event;

	event = kzalloc(struct_size(event, ge, nr), GFP_KERNEL);
	if (!event)
		return NULL;
	refcount_set(&event->ref, 1);
	event->id = (unsigned long)atomic64_inc_return(&dazukofs_next_event_id);
	event->path = *lower;
	path_get(&event->path);
	event->pid = get_pid(task_tgid(current));
	event->start = ktime_get();
	init_waitqueue_head(&event->wq);
	return event;
}

/* The opener was killed: withdraw what no worker has taken yet. */
static void dazukofs_withdraw(struct dazukofs_event *event)
{
	unsigned int i;

	for (i = 0; i < event->nr; i++) {
		struct dazukofs_gevent *ge = &event->ge[i];
		struct dazukofs_group *group = ge->group;
		bool withdrawn = false;

		spin_lock(&group->lock);
		if (ge->state == DAZUKOFS_GE_QUEUED) {
			list_del(&ge->node);
			ge->state = DAZUKOFS_GE_DONE;
			withdrawn = true;
		}
		spin_unlock(&group->lock);
		if (!withdrawn)
			continue;
		atomic_dec(&group->stats.waiting);
		atomic_dec(&dazukofs_global_stats.waiting);
		atomic64_inc(&group->stats.cancelled);
		dazukofs_settle(ge, DAZUKOFS_ALLOW);
	}
}

/**
 * dazukofs_check_access() - ask every group whether an open may proceed
 * @lower_path: the lower file being opened
 *
 * The open path of every regular file on every mount: with no group it
 * costs one load.  Waits killably (only SIGKILL ends the wait: an open
 * must not fail because of an unrelated signal).
 *
 * Return: 0 to allow, -EPERM if a group denied, -EINTR if killed,
 * -ENOMEM.
 */
int dazukofs_check_access(const struct path *lower_path)
{
	struct dazukofs_event *event;
	struct dazukofs_group *group;
	unsigned int nr;
	int err;

	if (likely(!READ_ONCE(dazukofs_nr_groups)))
		return 0;

	down_read(&dazukofs_groups_rwsem);
	nr = dazukofs_nr_groups;
	if (!nr) {
		up_read(&dazukofs_groups_rwsem);
		return 0;
	}
	event = dazukofs_alloc_event(lower_path, nr);
	if (!event) {
		up_read(&dazukofs_groups_rwsem);
		return -ENOMEM;
	}
	list_for_each_entry(group, &dazukofs_groups, node) {
		struct dazukofs_gevent *ge = &event->ge[event->nr++];

		kobject_get(&group->kobj);
		refcount_inc(&event->ref);
		ge->group = group;
		ge->event = event;
		ge->state = DAZUKOFS_GE_QUEUED;
		atomic_inc(&event->pending);
		atomic64_inc(&group->stats.events);
		atomic_inc(&group->stats.waiting);
		atomic_inc(&dazukofs_global_stats.waiting);
		spin_lock(&group->lock);
		list_add_tail(&ge->node, &group->queue);
		spin_unlock(&group->lock);
		wake_up(&group->wq);
	}
	up_read(&dazukofs_groups_rwsem);
	atomic64_inc(&dazukofs_global_stats.events);

	err = wait_event_killable(event->wq, !atomic_read(&event->pending));
	if (err) {
		dazukofs_withdraw(event);
		atomic64_inc(&dazukofs_global_stats.cancelled);
	} else {
		err = READ_ONCE(event->denied) ? -EPERM : 0;
		dazukofs_count_answer(&dazukofs_global_stats,
				      err ? DAZUKOFS_DENY : DAZUKOFS_ALLOW,
				      ktime_us_delta(ktime_get(), event->start));
	}
	dazukofs_put_event(event);
	return err;
}

/**
 * dazukofs_take_event() - hand the oldest waiting event to a worker
 * @group: the worker's group
 * @nonblock: fail with EAGAIN instead of waiting
 *
 * The event moves to the group's in_hand list at once, so that it is
 * answerable and settled by the group's removal like any held event.
 *
 * Return: the gevent, with a reference on its event for the caller, or an
 * ERR_PTR: -EAGAIN, -ERESTARTSYS (a signal), -ENODEV (group removed).
 */
struct dazukofs_gevent *dazukofs_take_event(struct dazukofs_group *group,
					    bool nonblock)
{
	struct dazukofs_gevent *ge;
	int err;

	spin_lock(&group->lock);
	while (list_empty(&group->queue) && !group->dead) {
		spin_unlock(&group->lock);
		if (nonblock)
			return ERR_PTR(-EAGAIN);
		err = wait_event_interruptible(group->wq,
					       !list_empty_careful(&group->queue) ||
					       READ_ONCE(group->dead));
		if (err)
			return ERR_PTR(err);
		spin_lock(&group->lock);
	}
	if (group->dead) {
		spin_unlock(&group->lock);
		return ERR_PTR(-ENODEV);
	}
	ge = list_first_entry(&group->queue, struct dazukofs_gevent, node);
	list_move_tail(&ge->node, &group->in_hand);
	ge->state = DAZUKOFS_GE_IN_HAND;
	refcount_inc(&ge->event->ref);
	spin_unlock(&group->lock);

	atomic_dec(&group->stats.waiting);
	atomic_inc(&group->stats.in_hand);
	atomic_dec(&dazukofs_global_stats.waiting);
	atomic_inc(&dazukofs_global_stats.in_hand);
	return ge;
}

/**
 * dazukofs_return_event() - give back an event a worker could not take
 * @ge: from dazukofs_take_event(); its event reference is dropped
 *
 * The event goes to the front of the queue, for the next worker, unless
 * it was settled meanwhile.
 */
void dazukofs_return_event(struct dazukofs_gevent *ge)
{
	struct dazukofs_group *group = ge->group;
	bool returned = false;

	spin_lock(&group->lock);
	if (ge->state == DAZUKOFS_GE_IN_HAND) {
		list_move(&ge->node, &group->queue);
		ge->state = DAZUKOFS_GE_QUEUED;
		returned = true;
	}
	spin_unlock(&group->lock);
	if (returned) {
		atomic_inc(&group->stats.waiting);
		atomic_dec(&group->stats.in_hand);
		atomic_inc(&dazukofs_global_stats.waiting);
		atomic_dec(&dazukofs_global_stats.in_hand);
		wake_up(&group->wq);
	}
	dazukofs_put_event(ge->event);
}

/**
 * dazukofs_answer_event() - a worker's verdict on an event it holds
 * @group: the group answering
 * @id: the event id
 * @verdict: DAZUKOFS_ALLOW or DAZUKOFS_DENY
 *
 * Return: 0, -ENOENT if the group holds no such event (unknown, already
 * answered, or not read yet), -ENODEV if the group was removed.
 */
int dazukofs_answer_event(struct dazukofs_group *group, unsigned long id,
			  int verdict)
{
	struct dazukofs_gevent *ge, *found = NULL;

	spin_lock(&group->lock);
	if (group->dead) {
		spin_unlock(&group->lock);
		return -ENODEV;
	}
	list_for_each_entry(ge, &group->in_hand, node) {
		if (ge->event->id == id) {
			found = ge;
			list_del(&ge->node);
			ge->state = DAZUKOFS_GE_DONE;
			break;
		}
	}
	spin_unlock(&group->lock);
	if (!found)
		return -ENOENT;

	atomic_dec(&group->stats.in_hand);
	atomic_dec(&dazukofs_global_stats.in_hand);
	dazukofs_count_answer(&group->stats, verdict,
			      ktime_us_delta(ktime_get(), found->event->start));
	dazukofs_settle(found, verdict);
	return 0;
}

/**
 * dazukofs_drain_group() - settle everything a removed group holds
 * @group: the group, already off the list of groups
 *
 * Its waiting and held events count as allowed by it; its readers wake
 * up and fail with ENODEV.
 */
void dazukofs_drain_group(struct dazukofs_group *group)
{
	struct dazukofs_gevent *ge, *next;
	LIST_HEAD(settle);
	int waiting = 0, in_hand = 0;

	spin_lock(&group->lock);
	group->dead = true;
	list_for_each_entry(ge, &group->queue, node) {
		ge->state = DAZUKOFS_GE_DONE;
		waiting++;
	}
	list_for_each_entry(ge, &group->in_hand, node) {
		ge->state = DAZUKOFS_GE_DONE;
		in_hand++;
	}
	list_splice_init(&group->queue, &settle);
	list_splice_init(&group->in_hand, &settle);
	spin_unlock(&group->lock);
	wake_up_all(&group->wq);

	atomic_sub(waiting, &group->stats.waiting);
	atomic_sub(in_hand, &group->stats.in_hand);
	atomic_sub(waiting, &dazukofs_global_stats.waiting);
	atomic_sub(in_hand, &dazukofs_global_stats.in_hand);
	atomic64_add(waiting + in_hand, &group->stats.allowed);
	/* The opener may free the event once settled: no list walk after. */
	list_for_each_entry_safe(ge, next, &settle, node) {
		list_del(&ge->node);
		dazukofs_settle(ge, DAZUKOFS_ALLOW);
	}
}
