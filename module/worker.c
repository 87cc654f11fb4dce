// SPDX-License-Identifier: GPL-2.0
/*
 * The workers' side of access events: a group's readers take events from
 * its queue, answer them or fail to open their files, and are tracked as a
 * pool; when the last one is gone, the group's grace period decides
 * whether queued events wait for a new worker or are settled by the
 * group's actions.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/workqueue.h>

#include "event.h"

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
	hash_add(group->held, &ge->held_node, ge->event->id);
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
		dazukofs_unhold(ge);
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
		dazukofs_unhold(ge);
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
	hash_for_each_possible(group->held, ge, held_node, id) {
		if (ge->event->id == id) {
			found = ge;
			dazukofs_unhold(ge);
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
		dazukofs_unhold(ge);
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
		dazukofs_unhold(ge);
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
		dazukofs_unhold(ge);
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
