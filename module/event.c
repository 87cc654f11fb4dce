// SPDX-License-Identifier: GPL-2.0
/*
 * dazukofs access events: an open of a regular file waits until every
 * group has answered, and fails with EPERM if any group denied.
 *
 * An event is one object from a slab cache with room for its place in a
 * few groups (struct dazukofs_gevent), and an array of its own beside it
 * when there are more groups.  The opener posts it to every group it finds
 * walking the list of groups under rcu_read_lock(); a group's removal
 * takes it off the list and waits for an RCU grace period before it
 * drains, so a group being removed either gets the event before it drains
 * or never sees it.  From then on each gevent moves, under
 * its group's lock, from the group's queue to the hands of a worker and
 * then out (DONE), by an answer, by a timeout, by the group's removal, by
 * the worker failing to open the file (dazukofs_open_failed()), or by the
 * opener giving up when killed, queued or in hand.  A worker that cannot
 * take an event puts it back in the queue: at the front if the fault is
 * the worker's, at the tail if the open failed transiently.  Whoever sets
 * DONE settles the gevent, exactly once.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/pid.h>
#include <linux/rculist.h>
#include <linux/slab.h>

#include "event.h"

DEFINE_PER_CPU(struct dazukofs_stats, dazukofs_global_stats_pcpu);

static atomic64_t dazukofs_next_event_id = ATOMIC64_INIT(0);

/* Every event comes from here, whatever the number of groups. */
static struct kmem_cache *dazukofs_event_cache;

int dazukofs_event_init(void)
{
	dazukofs_event_cache = KMEM_CACHE(dazukofs_event, 0);
	return dazukofs_event_cache ? 0 : -ENOMEM;
}

/* No event is left: the filesystem is unregistered, no group exists. */
void dazukofs_event_exit(void)
{
	kmem_cache_destroy(dazukofs_event_cache);
}

void dazukofs_put_event(struct dazukofs_event *event)
{
	unsigned int i;

	if (!refcount_dec_and_test(&event->ref))
		return;
	for (i = 0; i < event->nr; i++)
		dazukofs_group_put(event->ge[i].group);
	path_put(&event->path);
	put_pid(event->pid);
	if (event->ge != event->ge_inline)
		kfree(event->ge);
	kmem_cache_free(dazukofs_event_cache, event);
}

/* A gevent settled: it no longer counts in its group's queue. */
static void dazukofs_unaccount(struct dazukofs_gevent *ge)
{
	struct dazukofs_uid_load *load = ge->load;

	atomic_dec(&ge->group->unsettled);
	if (ge->event->close_write)
		atomic_dec(&load->close_writes);
	/*
	 * Release, and the last access: the load may be freed once this
	 * reaches zero (dazukofs_uid_loads_prune()).
	 */
	atomic_dec_return_release(&load->events);
}

/* dazukofs_settle() for a gevent already unaccounted. */
static void dazukofs_settle_unaccounted(struct dazukofs_gevent *ge,
					int verdict)
{
	struct dazukofs_event *event = ge->event;

	if (verdict == DAZUKOFS_DENY)
		WRITE_ONCE(event->denied, true);
	/*
	 * Fully ordered: the write of @denied comes before the count
	 * reaches zero; pairs with atomic_read_acquire() in dazukofs_wait().
	 */
	if (atomic_dec_and_test(&event->pending))
		wake_up(&event->wq);
	/* The gevent's own reference kept @event alive for the wake-up. */
	dazukofs_put_event(event);
}

/*
 * Settle one group's part of an event.  The caller has taken the gevent
 * off its group's lists and set it DONE under the group's lock.
 */
void dazukofs_settle(struct dazukofs_gevent *ge, int verdict)
{
	dazukofs_unaccount(ge);
	dazukofs_settle_unaccounted(ge, verdict);
}

/*
 * An event with room for @nr groups: inline for the usual few, else in an
 * array of its own.  Charged to the opener's memory cgroup.
 */
static struct dazukofs_event *dazukofs_alloc_event(const struct path *lower,
						   unsigned int nr)
{
	/*
	 * The task's own uids, as /proc/PID/status shows them: not the
	 * credentials a kernel service opens with on its behalf (overlayfs
	 * opens its real files as the mounter).
	 */
	const struct cred *cred = current_real_cred();
	struct dazukofs_event *event;

	event = kmem_cache_zalloc(dazukofs_event_cache, GFP_KERNEL_ACCOUNT);
	if (!event)
		return NULL;
	event->ge = event->ge_inline;
	if (nr > DAZUKOFS_EVENT_INLINE) {
		event->ge = kcalloc(nr, sizeof(*event->ge), GFP_KERNEL_ACCOUNT);
		if (!event->ge) {
			kmem_cache_free(dazukofs_event_cache, event);
			return NULL;
		}
	}
	refcount_set(&event->ref, 1);
	event->id = (unsigned long)atomic64_inc_return(&dazukofs_next_event_id);
	event->path = *lower;
	path_get(&event->path);
	event->pid = get_pid(task_tgid(current));
	event->uid = cred->uid;
	event->euid = cred->euid;
	event->fsuid = cred->fsuid;
	event->cgroup_id = dazukofs_current_cgroup_id();
	event->start = ktime_get();
	init_waitqueue_head(&event->wq);
	return event;
}

/* A gevent that was QUEUED or IN_HAND left its group's lists: uncount it. */
void dazukofs_count_out(struct dazukofs_group *group,
			enum dazukofs_gevent_state was)
{
	if (was == DAZUKOFS_GE_QUEUED) {
		atomic_dec(&group->stats.waiting);
		atomic_dec(&dazukofs_global_stats.waiting);
	} else {
		atomic_dec(&group->stats.in_hand);
		atomic_dec(&dazukofs_global_stats.in_hand);
	}
}

/*
 * The opener was killed: withdraw every part not settled yet, queued or in
 * a worker's hands.  Nobody waits for the verdict any more, so nothing
 * may keep the event, and with it the lower path, alive: a worker's later
 * answer finds no such event (ENOENT).
 */
static void dazukofs_withdraw(struct dazukofs_event *event)
{
	unsigned int i;

	for (i = 0; i < event->nr; i++) {
		struct dazukofs_gevent *ge = &event->ge[i];
		struct dazukofs_group *group = ge->group;
		enum dazukofs_gevent_state was;

		spin_lock(&group->lock);
		was = ge->state;
		if (was != DAZUKOFS_GE_DONE) {
			dazukofs_unhold(ge);
			list_del(&ge->node);
			ge->state = DAZUKOFS_GE_DONE;
			ge->holder = NULL;
		}
		spin_unlock(&group->lock);
		if (was == DAZUKOFS_GE_DONE)
			continue;
		dazukofs_count_out(group, was);
		atomic64_inc(&group->stats.cancelled);
		dazukofs_settle(ge, DAZUKOFS_ALLOW);
	}
}

/*
 * @group has max_queue events unsettled: settle its part of @event at
 * once, by its overflow_action, without queueing it.
 */
static void dazukofs_overflow(struct dazukofs_event *event,
			      struct dazukofs_group *group, int action)
{
	if (action == DAZUKOFS_DENY)
		WRITE_ONCE(event->denied, true);
	atomic64_inc(&group->stats.events);
	atomic64_inc(&group->stats.overflows);
	atomic64_inc(&dazukofs_global_stats.overflows);
	pr_warn_ratelimited("group %s: %u events unsettled, max_queue reached: event %lu %s\n",
			    group->name, READ_ONCE(group->max_queue), event->id,
			    action == DAZUKOFS_DENY ? "denied" : "allowed");
}

/* Idle uid loads a group keeps for reuse before it frees them. */
#define DAZUKOFS_UID_LOADS_KEPT	64

/* Under the group's lock: free the loads of uids that have no event. */
static void dazukofs_uid_loads_prune(struct dazukofs_group *group)
{
	struct dazukofs_uid_load *load;
	struct hlist_node *tmp;
	int bkt;

	lockdep_assert_held(&group->lock);
	hash_for_each_safe(group->uid_loads, bkt, tmp, load, node) {
		/* Acquire: pairs with the release in dazukofs_unaccount(). */
		if (atomic_read_acquire(&load->events))
			continue;
		hash_del(&load->node);
		group->nr_uid_loads--;
		kfree(load);
	}
}

/*
 * Under the group's lock: @uid's share of the group's queue, made if it
 * has none.  Posts run under RCU and this lock, so it is made without
 * sleeping, once per uid while the uid has events (or while it is among
 * the DAZUKOFS_UID_LOADS_KEPT kept).  Return: the load, NULL for no memory.
 */
static struct dazukofs_uid_load *
dazukofs_uid_load_get(struct dazukofs_group *group, kuid_t uid)
{
	struct dazukofs_uid_load *load;

	lockdep_assert_held(&group->lock);
	hash_for_each_possible(group->uid_loads, load, node, __kuid_val(uid))
		if (uid_eq(load->uid, uid))
			return load;
	if (group->nr_uid_loads >= DAZUKOFS_UID_LOADS_KEPT)
		dazukofs_uid_loads_prune(group);
	load = kzalloc(sizeof(*load), GFP_NOWAIT | __GFP_ACCOUNT | __GFP_NOWARN);
	if (!load)
		return NULL;
	load->uid = uid;
	hash_add(group->uid_loads, &load->node, __kuid_val(uid));
	group->nr_uid_loads++;
	return load;
}

/**
 * dazukofs_make_room() - a full queue evicts from the uid holding the most
 * @group: a group with max_queue events unsettled, its lock held
 * @load: the share of the uid whose event finds the queue full
 *
 * As fq_codel drops from its fattest flow, the overflow falls on the uid
 * holding the most events: when that is @load's uid (or no uid holds
 * more), its new event overflows; otherwise the fattest uid's newest
 * waiting event is taken off the queue to make room, unaccounted here so
 * that the group never holds more than max_queue.  Events in a worker's
 * hands are not taken back: with all of the fattest uid's there, the new
 * event overflows.  A walk of the loads and the queue, on overflow only.
 *
 * Return: the gevent taken off (DONE, for dazukofs_settle_unaccounted()),
 * or NULL if the new event overflows.
 */
static struct dazukofs_gevent *
dazukofs_make_room(struct dazukofs_group *group, struct dazukofs_uid_load *load)
{
	struct dazukofs_uid_load *fattest = load, *l;
	struct dazukofs_gevent *ge;
	int bkt;

	lockdep_assert_held(&group->lock);
	hash_for_each(group->uid_loads, bkt, l, node)
		if (atomic_read(&l->events) > atomic_read(&fattest->events))
			fattest = l;
	if (fattest == load)
		return NULL;
	list_for_each_entry_reverse(ge, &group->queue, node) {
		if (ge->load != fattest)
			continue;
		list_del(&ge->node);
		ge->state = DAZUKOFS_GE_DONE;
		dazukofs_unaccount(ge);
		return ge;
	}
	return NULL;
}

/*
 * A gevent dazukofs_make_room() took off the queue: settled by the group's
 * overflow_action, or allowed if nobody waits for it (a close).
 */
static void dazukofs_evicted(struct dazukofs_gevent *ge)
{
	struct dazukofs_group *group = ge->group;
	int action = READ_ONCE(group->overflow_action);

	atomic_dec(&group->stats.waiting);
	atomic_dec(&dazukofs_global_stats.waiting);
	atomic64_inc(&group->stats.overflows);
	atomic64_inc(&dazukofs_global_stats.overflows);
	pr_warn_ratelimited("group %s: max_queue reached: event %lu of uid %u, which holds the most, %s to make room\n",
			    group->name, ge->event->id,
			    from_kuid(&init_user_ns, ge->load->uid),
			    ge->event->close_write ? "dropped" :
			    action == DAZUKOFS_DENY ? "denied" : "allowed");
	dazukofs_settle_unaccounted(ge, ge->event->close_write ?
				    DAZUKOFS_ALLOW : action);
}

/*
 * Queue @event for @group, unless the group is inactive, or settle the
 * group's part at once if the group has max_queue events unsettled and
 * the event's uid holds the most of them.
 * Return: true if it overflowed.
 */
static bool dazukofs_post(struct dazukofs_event *event,
			  struct dazukofs_group *group)
{
	struct dazukofs_gevent *ge = &event->ge[event->nr];
	unsigned int timeout_ms = READ_ONCE(group->timeout_ms);
	unsigned int max_queue = READ_ONCE(group->max_queue);
	struct dazukofs_gevent *evicted = NULL;
	struct dazukofs_uid_load *load;
	bool full;

	ge->group = group;
	ge->event = event;
	ge->state = DAZUKOFS_GE_QUEUED;
	/* Only an opener enforces timeouts: nobody waits for a close. */
	ge->timed = timeout_ms != 0 && !event->close_write;
	ge->deadline = jiffies + msecs_to_jiffies(timeout_ms);
	ge->timeout_action = READ_ONCE(group->timeout_action);

	spin_lock(&group->lock);
	if (!dazukofs_group_active(group)) {
		spin_unlock(&group->lock);
		return false;
	}
	load = dazukofs_uid_load_get(group, event->fsuid);
	full = atomic_read(&group->unsettled) >= max_queue;
	/*
	 * A uid's closes may fill half the queue at most, so that a burst of
	 * writes does not make its own opens overflow, and a close makes no
	 * room for itself.  A close not posted costs no safety: the file's
	 * next open is an event as usual.
	 */
	if (event->close_write &&
	    (!load || full ||
	     atomic_read(&load->close_writes) >= max_queue / 2)) {
		spin_unlock(&group->lock);
		atomic64_inc(&group->stats.close_writes_dropped);
		atomic64_inc(&dazukofs_global_stats.close_writes_dropped);
		return false;
	}
	/*
	 * Posters are serialized by the lock, and settling only lowers the
	 * count: the group never has more than max_queue events unsettled.
	 */
	if (load && full)
		evicted = dazukofs_make_room(group, load);
	if (!load || (full && !evicted)) {
		int action = READ_ONCE(group->overflow_action);

		spin_unlock(&group->lock);
		dazukofs_overflow(event, group, action);
		return true;
	}
	atomic_inc(&group->unsettled);
	atomic_inc(&load->events);
	if (event->close_write)
		atomic_inc(&load->close_writes);
	ge->load = load;
	/* Counted before a worker can see it: it may answer at once. */
	dazukofs_group_get(group);
	refcount_inc(&event->ref);
	atomic_inc(&event->pending);
	event->nr++;
	list_add_tail(&ge->node, &group->queue);
	spin_unlock(&group->lock);
	if (evicted)
		dazukofs_evicted(evicted);
	event->busy_poll_us = max(event->busy_poll_us,
				  READ_ONCE(group->busy_poll_us));

	atomic64_inc(&group->stats.events);
	atomic_inc(&group->stats.waiting);
	atomic_inc(&dazukofs_global_stats.waiting);
	if (event->close_write) {
		atomic64_inc(&group->stats.close_writes);
		atomic64_inc(&dazukofs_global_stats.close_writes);
	} else if (READ_ONCE(group->remembers)) {
		atomic64_inc(&group->stats.cache_misses);
		atomic64_inc(&dazukofs_global_stats.cache_misses);
	}
	wake_up(&group->wq);
	return false;
}

/* Does an access of @kind (DAZUKOFS_EVENT_* bits) make an event for @group? */
static bool dazukofs_group_wants(const struct dazukofs_group *group,
				 unsigned int kind)
{
	return READ_ONCE(group->events) & kind;
}

/* @group excludes the accessing task: an access it wants is counted. */
static void dazukofs_count_excluded(struct dazukofs_group *group,
				    unsigned int kind)
{
	if (!dazukofs_group_wants(group, kind))
		return;
	atomic64_inc(&group->stats.excluded);
	atomic64_inc(&dazukofs_global_stats.excluded);
}

/*
 * Does every group that wants an access of @kind exclude the current
 * task's cgroup?  Then the access is spared before anything is allocated
 * or looked up, and counted in each group's "excluded": a workload the
 * groups leave alone pays a walk of the few groups, as an open with no
 * group pays.  False also when no group wants it (the usual path then
 * finds that out).
 */
static bool dazukofs_excluded_by_all(unsigned int kind)
{
	unsigned int seen = 0, now = READ_ONCE(dazukofs_nr_groups);
	struct dazukofs_group *group;
	bool any = false;

	rcu_read_lock();
	list_for_each_entry_rcu(group, &dazukofs_groups, node) {
		if (seen++ == now)
			break;
		if (!dazukofs_group_wants(group, kind))
			continue;
		if (!dazukofs_cgroup_excluded(group)) {
			rcu_read_unlock();
			return false;
		}
		any = true;
	}
	if (any) {
		seen = 0;
		list_for_each_entry_rcu(group, &dazukofs_groups, node) {
			if (seen++ == now)
				break;
			if (dazukofs_cgroup_excluded(group))
				dazukofs_count_excluded(group, kind);
		}
	}
	rcu_read_unlock();
	return any;
}

/*
 * Do the verdicts remembered on the file settle the open?  A group's deny
 * does, also for a group that takes no events of @kind (a file found
 * infected when it was written stays denied); allows do if every group
 * that wants the open has one.  Each verdict found counts as a hit of its
 * group: if the open needs events after all, those groups get none.
 *
 * Return: 0 (allowed), -EPERM (a group denied), or -ENOENT.
 */
static int dazukofs_remembered(struct dazukofs_verdict_view *view,
			       unsigned int kind)
{
	unsigned int seen = 0, now = READ_ONCE(dazukofs_nr_groups);
	struct dazukofs_group *group;
	int ret = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(group, &dazukofs_groups, node) {
		int verdict;

		if (seen++ == now)
			break;
		if (dazukofs_cgroup_excluded(group)) {
			dazukofs_count_excluded(group, kind);
			continue;
		}
		verdict = dazukofs_verdict_lookup(view, group, kind);
		if (verdict < 0) {
			if (dazukofs_group_wants(group, kind))
				ret = -ENOENT;
			continue;
		}
		atomic64_inc(&group->stats.cache_hits);
		atomic64_inc(&dazukofs_global_stats.cache_hits);
		if (verdict == DAZUKOFS_DENY) {
			ret = -EPERM;
			break;
		}
	}
	rcu_read_unlock();
	return ret;
}

/* How an open accesses its file, as format-2 records tell it. */
static unsigned int dazukofs_open_access(const struct file *file)
{
	/* ->open() comes before the VFS clears O_TRUNC from f_flags. */
	return (file->f_mode & FMODE_READ ? DAZUKOFS_ACCESS_READ : 0) |
	       (file->f_mode & FMODE_WRITE ? DAZUKOFS_ACCESS_WRITE : 0) |
	       (file->f_flags & O_TRUNC ? DAZUKOFS_ACCESS_TRUNC : 0) |
	       (file->f_mode & FMODE_CREATED ? DAZUKOFS_ACCESS_CREATE : 0);
}

/*
 * An event for the file, posted to every group that wants an access of
 * @kind and has no verdict for it in @view (NULL: none looked up).  Groups
 * made since the walk began may miss it: they came after the access.
 * @remember: whether the mount remembers verdicts (dazukofs_sb_remembers()):
 * if not, the workers' answers are not stored either.
 *
 * Return: the event, with the caller's reference (@event->nr is 0 if no
 * group took it), or NULL for no memory.  *@overflowed tells whether a
 * group settled its part at once for want of room.
 */
static struct dazukofs_event *dazukofs_post_all(const struct path *lower_path,
						unsigned int kind,
						unsigned int access,
						bool remember,
						struct dazukofs_verdict_view *view,
						bool *overflowed)
{
	unsigned int nr = READ_ONCE(dazukofs_nr_groups), now, seen = 0;
	struct dazukofs_event *event;
	struct dazukofs_group *group;

	*overflowed = false;
	for (;;) {
		event = dazukofs_alloc_event(lower_path, max(nr, 1U));
		if (!event)
			return NULL;
		event->close_write = kind == DAZUKOFS_EVENT_CLOSE_WRITE;
		/* The most specific kind names the event. */
		if (kind & DAZUKOFS_EVENT_CLOSE_WRITE)
			event->type = DAZUKOFS_EVENT_CLOSE_WRITE;
		else if (kind & DAZUKOFS_EVENT_EXEC)
			event->type = DAZUKOFS_EVENT_EXEC;
		else
			event->type = DAZUKOFS_EVENT_OPEN;
		event->access = access;
		event->remember = remember;
		rcu_read_lock();
		/*
		 * Read again inside the read-side section: a group whose
		 * removal was counted here is not on the list any more.
		 */
		now = READ_ONCE(dazukofs_nr_groups);
		if (now <= nr)
			break;
		/* Groups were made meanwhile: make room for them too. */
		rcu_read_unlock();
		dazukofs_put_event(event);
		nr = now;
	}
	list_for_each_entry_rcu(group, &dazukofs_groups, node) {
		/*
		 * Every group counted in @now comes first: groups are added
		 * at the tail, and counted before they are added.
		 */
		if (seen++ == now)
			break;
		if (!dazukofs_group_wants(group, kind))
			continue;
		if (dazukofs_cgroup_excluded(group)) {
			/* dazukofs_remembered() counted it if it saw @view */
			if (!view)
				dazukofs_count_excluded(group, kind);
			continue;
		}
		if (view) {
			/* Counted as hits by dazukofs_remembered(). */
			int verdict = dazukofs_verdict_lookup(view, group,
							      kind);

			if (verdict == DAZUKOFS_DENY)
				WRITE_ONCE(event->denied, true);
			if (verdict >= 0)
				continue;
		}
		*overflowed |= dazukofs_post(event, group);
	}
	rcu_read_unlock();
	return event;
}

/**
 * dazukofs_check_access() - ask every group whether an open may proceed
 * @lower_path: the lower file being opened
 * @file: the dazukofs file being opened, for how (read, write, exec...)
 *
 * The open path of every regular file on every mount: with no group it
 * costs one patched jump (a static key), and with groups it takes no
 * global lock.  A process holding /dev/dazukofs.ign makes no events, nor
 * one in a cgroup every interested group excludes.
 * Groups with a verdict remembered on the unchanged file get no event,
 * nor do groups whose event mask leaves this open out.
 *
 * Return: 0 to allow, -EPERM if a group denied, -EINTR if killed,
 * -ENOMEM.
 */
int dazukofs_check_access(const struct path *lower_path,
			  const struct file *file)
{
	unsigned int kind = DAZUKOFS_EVENT_OPEN |
			    (file->f_flags & __FMODE_EXEC ?
			     DAZUKOFS_EVENT_EXEC : 0);
	struct dazukofs_verdict_view view;
	struct dazukofs_event *event;
	bool overflowed, remember, remembered;
	int err;

	if (!static_branch_unlikely(&dazukofs_have_groups))
		return 0;
	if (dazukofs_ignored() || dazukofs_excluded_by_all(kind))
		return 0;

	remember = dazukofs_sb_remembers(file_inode(file)->i_sb);
	remembered = remember && dazukofs_verdict_view(lower_path, &view);
	if (remembered) {
		err = dazukofs_remembered(&view, kind);
		if (err != -ENOENT) {
			dazukofs_verdict_unview(&view);
			return err;
		}
	}
	event = dazukofs_post_all(lower_path, kind, dazukofs_open_access(file),
				  remember, remembered ? &view : NULL,
				  &overflowed);
	if (remembered)
		dazukofs_verdict_unview(&view);
	if (!event)
		return -ENOMEM;

	if (!event->nr && !overflowed && !READ_ONCE(event->denied)) {
		/* Every group is inactive, uninterested or remembered "allow". */
		dazukofs_put_event(event);
		return 0;
	}
	atomic64_inc(&dazukofs_global_stats.events);
	err = dazukofs_wait(event);
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
 * dazukofs_close_write_wanted() - should a writable file's close be posted?
 *
 * The release of every writable dazukofs file asks: a walk of the few
 * groups under RCU, nothing when there is none.
 */
bool dazukofs_close_write_wanted(void)
{
	struct dazukofs_group *group;
	bool wanted = false;

	if (!static_branch_unlikely(&dazukofs_have_groups))
		return false;
	if (dazukofs_ignored())
		return false;
	rcu_read_lock();
	list_for_each_entry_rcu(group, &dazukofs_groups, node) {
		if (dazukofs_group_wants(group, DAZUKOFS_EVENT_CLOSE_WRITE) &&
		    !dazukofs_cgroup_excluded(group)) {
			wanted = true;
			break;
		}
	}
	rcu_read_unlock();
	return wanted;
}

/**
 * dazukofs_close_write() - a file written through a mount was closed
 * @lower_path: the lower file, whose open file was released already
 * @remember: whether the mount it was written through remembers verdicts
 *
 * Post a close-after-write event to every group that wants one, unless
 * the file still has writers: the last of them posts it when it closes
 * (if it wrote through a mount; else the next open is an event as
 * usual).  Nobody waits for the verdict.  A deny is remembered, so that
 * the next open is denied without a scan; an allow only if the worker
 * asks.  A verdict already remembered does not spare the event: closing
 * a writable file made the lower filesystem report a change, which
 * forgot it.
 */
void dazukofs_close_write(const struct path *lower_path, bool remember)
{
	struct dazukofs_event *event;
	bool overflowed;

	if (atomic_read(&d_inode(lower_path->dentry)->i_writecount) > 0)
		return;
	event = dazukofs_post_all(lower_path, DAZUKOFS_EVENT_CLOSE_WRITE,
				  DAZUKOFS_ACCESS_WRITE, remember, NULL,
				  &overflowed);
	if (!event) {
		pr_warn_ratelimited("no memory for a close-after-write event; the file is scanned when opened\n");
		return;
	}
	dazukofs_put_event(event);
}
