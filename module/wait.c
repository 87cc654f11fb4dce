// SPDX-License-Identifier: GPL-2.0
/*
 * The opener's wait for the verdict of its event: killable and freezable,
 * never ended by other signals, and bounded by the groups' timeouts, which
 * the opener itself enforces when they run out (no timer per event).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/wait.h>

#include "event.h"

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
			dazukofs_unhold(ge);
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
 * fanotify's permission wait is (TASK_KILLABLE | TASK_FREEZABLE): an opener
 * waiting for a worker does not keep suspend or hibernation from freezing
 * tasks.  The kernel has no such wait with a timeout, hence the loop.
 * Freezing and thawing is a spurious wake-up for it, which checks the
 * condition and the time left.
 * Return: as wait_event_killable_timeout(): the jiffies left (at least 1)
 * once nothing is pending, 0 when @timeout ran out, -ERESTARTSYS on a
 * fatal signal.
 */
static long dazukofs_wait_verdict(struct dazukofs_event *event, long timeout)
{
	struct wait_queue_entry wait;
	long left = timeout;

	might_sleep();
	if (!atomic_read(&event->pending))
		return left ? left : 1;
	init_wait_entry(&wait, 0);
	for (;;) {
		long intr = prepare_to_wait_event(&event->wq, &wait,
						  TASK_KILLABLE |
						  TASK_FREEZABLE);

		if (!atomic_read(&event->pending)) {
			left = left ? left : 1;
			break;
		}
		if (!left)
			break;
		if (intr) {
			left = intr;
			break;
		}
		left = schedule_timeout(left);
	}
	finish_wait(&event->wq, &wait);
	return left;
}

/*
 * Wait for every group's answer.  Only SIGKILL ends the wait early: an
 * open must not fail because of an unrelated signal.  Groups with a
 * timeout are settled here, by the opener, when it runs out.
 */
int dazukofs_wait(struct dazukofs_event *event)
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
