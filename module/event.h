/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the three files of access events share, and nothing else includes:
 * event.c (an event's life, and posting it to the groups' queues), wait.c
 * (the opener's wait for the verdict) and worker.c (the workers' side:
 * taking and answering events, and tracking the pool with its grace).
 */
#ifndef _DAZUKOFS_EVENT_H
#define _DAZUKOFS_EVENT_H

#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/deadline.h>
#include <linux/sched/rt.h>
#include <linux/sched/signal.h>

#include "dazukofs.h"

void dazukofs_settle(struct dazukofs_gevent *ge, int verdict);
void dazukofs_count_out(struct dazukofs_group *group,
			enum dazukofs_gevent_state was);
int dazukofs_wait(struct dazukofs_event *event);

static inline void dazukofs_count_answer(struct dazukofs_stats *stats,
					 int verdict, u64 us)
{
	atomic64_inc(verdict == DAZUKOFS_DENY ? &stats->denied
					      : &stats->allowed);
	dazukofs_stats_latency(stats, us);
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

#endif /* _DAZUKOFS_EVENT_H */
