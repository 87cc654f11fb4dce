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
#include <linux/ktime.h>
#include <linux/pid.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/deadline.h>
#include <linux/sched/rt.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "dazukofs.h"

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
static void dazukofs_settle(struct dazukofs_gevent *ge, int verdict)
{
	dazukofs_unaccount(ge);
	dazukofs_settle_unaccounted(ge, verdict);
}

static void dazukofs_count_answer(struct dazukofs_stats *stats, int verdict,
				  u64 us)
{
	atomic64_inc(verdict == DAZUKOFS_DENY ? &stats->denied
					      : &stats->allowed);
	dazukofs_stats_latency(stats, us);
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
	event->start = ktime_get();
	init_waitqueue_head(&event->wq);
	return event;
}

/* A gevent that was QUEUED or IN_HAND left its group's lists: uncount it. */
static void dazukofs_count_out(struct dazukofs_group *group,
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

/**
 * dazukofs_busy_poll() - spin a while for a condition before sleeping on it
 * @us: how long, in microseconds; 0 returns false at once
 * @done: the condition, lock-free
 * @arg: its argument
 *
 * Socket busy polling's trade (net.core.busy_read), opt-in per group: a
 * worker that answers within microseconds answers before the waiter's
 * sleep and wake-up would be over, so the waiter spends CPU time to save
 * them.  The spin ends early when another task wants the CPU or a signal
 * is pending; the caller then waits as usual.  Real-time and deadline
 * tasks never spin: the worker they wait for may be queued behind them on
 * the same CPU, where need_resched() would not tell.
 *
 * Return: true if @done became true.
 */
static __always_inline bool dazukofs_busy_poll(unsigned int us,
					       bool (*done)(void *), void *arg)
{
	u64 end;

	if (!us || rt_task(current) || dl_task(current))
		return false;
	end = local_clock() + (u64)us * NSEC_PER_USEC;
	do {
		if (done(arg))
			return true;
		if (need_resched() || signal_pending(current))
			return false;
		cpu_relax();
	} while (local_clock() < end);
	return done(arg);
}

/* Acquire, as dazukofs_wait() reads it: @denied may be read next. */
static bool dazukofs_event_answered(void *event)
{
	return !atomic_read_acquire(&((struct dazukofs_event *)event)->pending);
}

/* Jiffies until the first timeout among the event's unsettled parts. */
static long dazukofs_next_timeout(struct dazukofs_event *event)
{
	long next = MAX_SCHEDULE_TIMEOUT;
	unsigned int i;

	for (i = 0; i < event->nr; i++) {
		struct dazukofs_gevent *ge = &event->ge[i];
		long left;

		if (!ge->timed || READ_ONCE(ge->state) == DAZUKOFS_GE_DONE)
			continue;
		left = time_after(ge->deadline, jiffies) ?
		       (long)(ge->deadline - jiffies) : 0;
		next = min(next, left);
	}
	return next;
}

/* Settle, by their groups' timeout_action, the parts past their deadline. */
static void dazukofs_expire(struct dazukofs_event *event)
{
	unsigned int i;

	for (i = 0; i < event->nr; i++) {
		struct dazukofs_gevent *ge = &event->ge[i];
		struct dazukofs_group *group = ge->group;
		enum dazukofs_gevent_state was;

		if (!ge->timed || time_before(jiffies, ge->deadline))
			continue;
		spin_lock(&group->lock);
		was = ge->state;
		if (was != DAZUKOFS_GE_DONE) {
			list_del(&ge->node);
			ge->state = DAZUKOFS_GE_DONE;
			ge->holder = NULL;
		}
		spin_unlock(&group->lock);
		if (was == DAZUKOFS_GE_DONE)
			continue;
		dazukofs_count_out(group, was);
		atomic64_inc(&group->stats.timeouts);
		atomic64_inc(&dazukofs_global_stats.timeouts);
		dazukofs_settle(ge, ge->timeout_action);
	}
}

/*
 * wait_event_killable_timeout() for the verdict, but freezable too, as
 * fanotify's permission wait is (wait_event_state() with TASK_KILLABLE |
 * TASK_FREEZABLE): an opener waiting for a worker does not keep suspend
 * or hibernation from freezing tasks.  Freezing and thawing is a spurious
 * wake-up for the loop, which checks the condition and the time left.
 * Return: as wait_event_killable_timeout().
 */
static long dazukofs_wait_verdict(struct dazukofs_event *event, long timeout)
{
	might_sleep();
	if (!atomic_read(&event->pending))
		return timeout ? timeout : 1;
	return ___wait_event(event->wq,
			     ___wait_cond_timeout(!atomic_read(&event->pending)),
			     (TASK_KILLABLE | TASK_FREEZABLE), 0, timeout,
			     __ret = schedule_timeout(__ret));
}

/*
 * Wait for every group's answer.  Only SIGKILL ends the wait early: an
 * open must not fail because of an unrelated signal.  Groups with a
 * timeout are settled here, by the opener, when it runs out.
 */
static int dazukofs_wait(struct dazukofs_event *event)
{
	dazukofs_busy_poll(event->busy_poll_us, dazukofs_event_answered, event);
	for (;;) {
		long left = dazukofs_wait_verdict(event,
						  dazukofs_next_timeout(event));

		if (left < 0)
			return -EINTR;
		/*
		 * Acquire: the caller's read of @denied comes after this read
		 * of zero; pairs with the fully ordered atomic_dec_and_test()
		 * of the last dazukofs_settle(), which wrote @denied before.
		 */
		if (!atomic_read_acquire(&event->pending))
			return 0;
		dazukofs_expire(event);
	}
}

/* Does an access of @kind (DAZUKOFS_EVENT_* bits) make an event for @group? */
static bool dazukofs_group_wants(const struct dazukofs_group *group,
				 unsigned int kind)
{
	return READ_ONCE(group->events) & kind;
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
 * global lock.  A process holding /dev/dazukofs.ign makes no events.
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
	if (dazukofs_ignored())
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
		if (dazukofs_group_wants(group, DAZUKOFS_EVENT_CLOSE_WRITE)) {
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

/* Lock-free: has a reader of @group something to take, or to fail with? */
static bool dazukofs_may_take(struct dazukofs_group *group)
{
	return !list_empty_careful(&group->queue) || READ_ONCE(group->dead);
}

static bool dazukofs_may_take_poll(void *group)
{
	return dazukofs_may_take(group);
}

/**
 * dazukofs_take_event() - hand the oldest waiting event to a worker
 * @reader: the worker
 * @nonblock: fail with EAGAIN instead of waiting
 *
 * The event moves to the group's in_hand list at once, so that it is
 * answerable and settled by the group's removal like any held event.
 *
 * Return: the gevent, with a reference on its event for the caller, or an
 * ERR_PTR: -EAGAIN, -ERESTARTSYS (a signal), -ENODEV (group removed).
 */
struct dazukofs_gevent *dazukofs_take_event(struct dazukofs_reader *reader,
					    bool nonblock)
{
	struct dazukofs_group *group = reader->group;
	unsigned int busy_poll_us = READ_ONCE(group->busy_poll_us);
	struct dazukofs_gevent *ge;
	bool more;
	int err;

	spin_lock(&group->lock);
	while (list_empty(&group->queue) && !group->dead) {
		spin_unlock(&group->lock);
		if (nonblock)
			return ERR_PTR(-EAGAIN);
		/*
		 * Once per read: a reader that lost the event it spun for to
		 * another sleeps at once.
		 */
		if (!dazukofs_busy_poll(busy_poll_us, dazukofs_may_take_poll,
					group)) {
			/* Exclusive: one posted event wakes one reader. */
			err = wait_event_interruptible_exclusive(group->wq,
								 dazukofs_may_take(group));
			if (err)
				return ERR_PTR(err);
		}
		busy_poll_us = 0;
		spin_lock(&group->lock);
	}
	if (group->dead) {
		spin_unlock(&group->lock);
		return ERR_PTR(-ENODEV);
	}
	ge = list_first_entry(&group->queue, struct dazukofs_gevent, node);
	list_move_tail(&ge->node, &group->in_hand);
	ge->state = DAZUKOFS_GE_IN_HAND;
	ge->holder = reader;
	/* A view taken by an earlier holder says nothing of this one's fd. */
	ge->snap.valid = false;
	refcount_inc(&ge->event->ref);
	more = !list_empty(&group->queue);
	spin_unlock(&group->lock);
	/*
	 * Pass the wake-up on: the wake-ups of the events still queued may
	 * have gone to readers that found the queue empty meanwhile, or to
	 * none (several returned at once, a reader that took another's).
	 */
	if (more)
		wake_up(&group->wq);

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
		ge->holder = NULL;
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

/* Errors that say nothing about the file: the open may work next time. */
static bool dazukofs_open_error_transient(int err)
{
	switch (err) {
	case -ENFILE:
	case -EMFILE:
	case -ENOMEM:
	case -EAGAIN:
	case -EINTR:
	case -ERESTARTSYS:
	case -ERESTARTNOINTR:
	case -ERESTARTNOHAND:
		return true;
	default:
		return false;
	}
}

/**
 * dazukofs_open_failed() - a worker could not open the file of an event
 * @ge: from dazukofs_take_event()
 * @err: the negative errno of the open
 *
 * A permanent error (EACCES from an LSM or a FUSE or NFS lower, EIO,
 * ESTALE, ENOKEY, ...) would fail again for every worker: the group's part
 * of the event is settled at once by the group's open_error_action and
 * counted in open_errors.  A transient error (ENFILE, ENOMEM, a signal)
 * puts the event back at the tail of the queue, behind the events that
 * waited after it, and settles it the same way after DAZUKOFS_OPEN_TRIES
 * such failures.  Either way no event stalls the queue.
 *
 * The caller keeps its reference on the event, to put when done with it.
 *
 * Return: DAZUKOFS_OPEN_SETTLED if the group's part was settled now, by
 * open_error_action (a format-2 reader reports the error);
 * DAZUKOFS_OPEN_GONE if it was settled meanwhile, by an answer, a timeout
 * or the group's removal (the caller goes on with the next event);
 * DAZUKOFS_OPEN_REQUEUED if it was queued again (the caller fails with
 * @err).
 */
enum dazukofs_open_outcome dazukofs_open_failed(struct dazukofs_gevent *ge,
						int err)
{
	struct dazukofs_group *group = ge->group;
	struct dazukofs_event *event = ge->event;
	bool transient = dazukofs_open_error_transient(err);
	enum dazukofs_gevent_state was;
	int action;

	spin_lock(&group->lock);
	was = ge->state;
	if (was == DAZUKOFS_GE_IN_HAND) {
		ge->holder = NULL;
		if (transient && ++ge->open_tries < DAZUKOFS_OPEN_TRIES) {
			list_move_tail(&ge->node, &group->queue);
			ge->state = DAZUKOFS_GE_QUEUED;
		} else {
			list_del(&ge->node);
			ge->state = DAZUKOFS_GE_DONE;
			transient = false;
		}
	}
	spin_unlock(&group->lock);

	if (was != DAZUKOFS_GE_IN_HAND)
		return DAZUKOFS_OPEN_GONE;
	atomic_dec(&group->stats.in_hand);
	atomic_dec(&dazukofs_global_stats.in_hand);
	if (transient) {
		atomic_inc(&group->stats.waiting);
		atomic_inc(&dazukofs_global_stats.waiting);
		wake_up(&group->wq);
		return DAZUKOFS_OPEN_REQUEUED;
	}

	action = READ_ONCE(group->open_error_action);
	pr_notice_ratelimited("group %s: cannot open the file of event %lu (error %d): %s\n",
			      group->name, event->id, -err,
			      action == DAZUKOFS_DENY ? "denied" : "allowed");
	atomic64_inc(&group->stats.open_errors);
	atomic64_inc(&dazukofs_global_stats.open_errors);
	/* The reference from dazukofs_take_event() outlives the settling. */
	dazukofs_settle(ge, action);
	return DAZUKOFS_OPEN_SETTLED;
}

/**
 * dazukofs_event_snapshot() - note the file as the worker's new fd finds it
 * @ge: an event @reader holds, whose file was just opened for it
 * @reader: the worker
 *
 * For dazukofs_answer_event(): a verdict is remembered only if the file
 * did not change from now until the answer.
 */
void dazukofs_event_snapshot(struct dazukofs_gevent *ge,
			     struct dazukofs_reader *reader)
{
	struct dazukofs_group *group = ge->group;
	struct dazukofs_event *event = ge->event;
	struct dazukofs_snapshot snap = {};

	/*
	 * No mark yet for a file an open writes or creates (else every
	 * create made one and tore it down at the unlink): only a deny on it
	 * may be remembered.  An allow would be of little use: no verdict is
	 * used while the file is open for writing, the writer's close forgets
	 * them, and a new file's view is nearly always racy.
	 */
	if (event->remember)
		dazukofs_verdict_snapshot(group, &event->path, &snap,
					  !event->close_write &&
					  (event->access &
					   (DAZUKOFS_ACCESS_WRITE |
					    DAZUKOFS_ACCESS_CREATE)));
	spin_lock(&group->lock);
	if (ge->state == DAZUKOFS_GE_IN_HAND && ge->holder == reader)
		ge->snap = snap;
	spin_unlock(&group->lock);
}

/**
 * dazukofs_answer_event() - a worker's verdict on an event it holds
 * @group: the group answering
 * @id: the event id
 * @verdict: DAZUKOFS_ALLOW or DAZUKOFS_DENY
 * @remember: keep the verdict for later opens of the unchanged file
 *
 * Any worker of the group may answer, not only the one that read it.  A
 * verdict to remember is kept only if the file did not change since the
 * worker's fd was opened (see dazukofs_verdict_store()); it applies to
 * this open either way.
 *
 * Return: 0, -ENOENT if the group holds no such event (unknown, already
 * answered, timed out, or not read yet), -ENODEV if the group was removed.
 */
int dazukofs_answer_event(struct dazukofs_group *group, unsigned long id,
			  int verdict, bool remember)
{
	struct dazukofs_gevent *ge, *found = NULL;
	struct dazukofs_snapshot snap;

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
			ge->holder = NULL;
			snap = ge->snap;
			break;
		}
	}
	spin_unlock(&group->lock);
	if (!found)
		return -ENOENT;

	/* A file found bad at its close stays bad until it changes. */
	if (found->event->close_write && verdict == DAZUKOFS_DENY)
		remember = true;
	if (remember) {
		if (!READ_ONCE(group->remembers))
			WRITE_ONCE(group->remembers, true);
		/* Before settling: the gevent keeps the event alive. */
		dazukofs_verdict_store(group, &found->event->path, &snap,
				       verdict, found->event->type);
	}

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

/*
 * Under the group's lock: does the group take part in events?  A tracked
 * group without workers does only during its grace window.
 */
bool dazukofs_group_active(const struct dazukofs_group *group)
{
	lockdep_assert_held(&group->lock);
	return group->armed &&
	       (!group->track || group->workers || group->grace);
}

/*
 * Under the group's lock, for a tracked group left without workers: take
 * its waiting events off the queue, to be settled as allowed.
 */
static int dazukofs_deactivate_locked(struct dazukofs_group *group,
				      struct list_head *settle)
{
	struct dazukofs_gevent *ge;
	int n = 0;

	lockdep_assert_held(&group->lock);
	list_for_each_entry(ge, &group->queue, node) {
		ge->state = DAZUKOFS_GE_DONE;
		n++;
	}
	list_splice_init(&group->queue, settle);
	return n;
}

static void dazukofs_settle_skipped(struct dazukofs_group *group,
				    struct list_head *settle, int n)
{
	struct dazukofs_gevent *ge, *next;

	if (!n)
		return;
	atomic_sub(n, &group->stats.waiting);
	atomic_sub(n, &dazukofs_global_stats.waiting);
	atomic64_add(n, &group->stats.allowed);
	list_for_each_entry_safe(ge, next, settle, node) {
		list_del(&ge->node);
		dazukofs_settle(ge, DAZUKOFS_ALLOW);
	}
}

/**
 * dazukofs_worker_add() - a worker opened the group device
 * @reader: the worker
 *
 * The group is armed from now on.  A worker that comes back during a grace
 * window closes it: the events that waited are its to take.
 */
void dazukofs_worker_add(struct dazukofs_reader *reader)
{
	struct dazukofs_group *group = reader->group;

	spin_lock(&group->lock);
	group->workers++;
	group->armed = true;
	if (group->grace) {
		group->grace = false;
		/* If it runs already it finds no window open. */
		cancel_delayed_work(&group->grace_work);
	}
	spin_unlock(&group->lock);
}

/*
 * Under the group's lock, for a tracked group whose last worker left: keep
 * it active for its grace_ms, if any.  Return: true if a window opened.
 */
static bool dazukofs_grace_start(struct dazukofs_group *group)
{
	unsigned int grace_ms = READ_ONCE(group->grace_ms);
	unsigned long delay;

	lockdep_assert_held(&group->lock);
	if (group->dead || !group->armed || !group->track || group->workers ||
	    !grace_ms)
		return false;
	delay = msecs_to_jiffies(grace_ms);
	group->grace = true;
	group->grace_end = jiffies + delay;
	mod_delayed_work(system_wq, &group->grace_work, delay);
	return true;
}

/**
 * dazukofs_grace_expire() - the grace window of a group passed
 * @work: the group's grace_work
 *
 * If no worker came back, the group goes inactive as it would have when
 * its last worker left: its waiting events count as allowed.  The group's
 * removal cancels this work synchronously after marking the group dead,
 * so the group outlives it.
 */
void dazukofs_grace_expire(struct work_struct *work)
{
	struct dazukofs_group *group = container_of(to_delayed_work(work),
						    struct dazukofs_group,
						    grace_work);
	LIST_HEAD(settle);
	int skipped = 0;

	spin_lock(&group->lock);
	if (group->dead || !group->grace) {
		spin_unlock(&group->lock);
		return;
	}
	if (time_before(jiffies, group->grace_end)) {
		/* Woken early: wait for the rest of the window. */
		mod_delayed_work(system_wq, &group->grace_work,
				 group->grace_end - jiffies);
		spin_unlock(&group->lock);
		return;
	}
	group->grace = false;
	if (!dazukofs_group_active(group))
		skipped = dazukofs_deactivate_locked(group, &settle);
	spin_unlock(&group->lock);
	dazukofs_settle_skipped(group, &settle, skipped);
}

/**
 * dazukofs_worker_remove() - a worker's device file is released
 * @reader: the worker
 *
 * Close, exit, crash or kill: in a tracked group the events it held go
 * back to the front of the queue, in the order it took them, for another
 * worker; if it was the last worker, the group goes inactive and its
 * waiting events count as allowed - unless the group has a grace_ms: then
 * it stays active that long, its events waiting for a worker to come back
 * (dazukofs_grace_expire() ends the window).  In an untracked group they
 * stay in hand, answerable by any worker (the 2009 semantics).
 */
void dazukofs_worker_remove(struct dazukofs_reader *reader)
{
	struct dazukofs_group *group = reader->group;
	struct dazukofs_gevent *ge, *next;
	LIST_HEAD(settle);
	int returned = 0, skipped = 0;

	spin_lock(&group->lock);
	group->workers--;
	list_for_each_entry_safe_reverse(ge, next, &group->in_hand, node) {
		if (ge->holder != reader)
			continue;
		ge->holder = NULL;
		if (!group->track)
			continue;
		list_move(&ge->node, &group->queue);
		ge->state = DAZUKOFS_GE_QUEUED;
		returned++;
	}
	if (!group->workers)
		dazukofs_grace_start(group);
	if (!dazukofs_group_active(group))
		skipped = dazukofs_deactivate_locked(group, &settle);
	spin_unlock(&group->lock);

	atomic_sub(returned, &group->stats.in_hand);
	atomic_sub(returned, &dazukofs_global_stats.in_hand);
	atomic_add(returned, &group->stats.waiting);
	atomic_add(returned, &dazukofs_global_stats.waiting);
	if (returned)
		wake_up(&group->wq);
	dazukofs_settle_skipped(group, &settle, skipped);
}

/**
 * dazukofs_group_arm() - let a group take part in events before any worker
 * @group: the group
 *
 * The 2009 semantics, on request: events queue for the group from now on,
 * also while no worker has opened its device yet.
 */
void dazukofs_group_arm(struct dazukofs_group *group)
{
	spin_lock(&group->lock);
	group->armed = true;
	spin_unlock(&group->lock);
}

/*
 * Under the group's lock, for a group tracked from now on: the events
 * left in hand by workers that went away while it was untracked (no
 * holder) go back to the front of the queue, in the order they were
 * taken, as dazukofs_worker_remove() does for a tracked group.  Return:
 * how many.
 */
static int dazukofs_requeue_orphans_locked(struct dazukofs_group *group)
{
	struct dazukofs_gevent *ge, *next;
	int n = 0;

	lockdep_assert_held(&group->lock);
	list_for_each_entry_safe_reverse(ge, next, &group->in_hand, node) {
		if (ge->holder)
			continue;
		list_move(&ge->node, &group->queue);
		ge->state = DAZUKOFS_GE_QUEUED;
		n++;
	}
	return n;
}

/**
 * dazukofs_group_set_track() - turn crash tracking on or off
 * @group: the group
 * @track: the new setting
 *
 * Switching it on returns to the queue the held events whose worker went
 * away while the group was untracked: a tracked group has no orphans.  A
 * group tracked from now on with no worker goes inactive at once, its
 * waiting events (those too) settled as allowed, unless a grace window is
 * still open (tracking was switched off and on during it): then the
 * window's end decides.  Switching it off orphans nothing: held events
 * keep their workers.
 */
void dazukofs_group_set_track(struct dazukofs_group *group, bool track)
{
	LIST_HEAD(settle);
	int returned = 0, skipped = 0;

	spin_lock(&group->lock);
	if (track && !group->track && !group->dead)
		returned = dazukofs_requeue_orphans_locked(group);
	group->track = track;
	if (!group->dead && !dazukofs_group_active(group))
		skipped = dazukofs_deactivate_locked(group, &settle);
	spin_unlock(&group->lock);

	atomic_sub(returned, &group->stats.in_hand);
	atomic_sub(returned, &dazukofs_global_stats.in_hand);
	atomic_add(returned, &group->stats.waiting);
	atomic_add(returned, &dazukofs_global_stats.waiting);
	if (returned && !skipped)
		wake_up(&group->wq);
	dazukofs_settle_skipped(group, &settle, skipped);
}
