// SPDX-License-Identifier: GPL-2.0
/*
 * dazukofs counters in sysfs: /sys/fs/dazukofs/ holds the counters of all
 * groups together, /sys/fs/dazukofs/groups/NAME/ those of one group.  One
 * plain decimal per file.
 *
 * The counters are root's only (0400): sampled by anyone, they would show
 * when other users open, write and re-open files on the mounts, which
 * fanotify shows only to CAP_SYS_ADMIN.  A group's id and whether it is
 * active say nothing about anyone's files and stay world-readable.
 */

#include <linux/kobject.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "dazukofs.h"

static struct kobject *dazukofs_root_kobj;
static struct kobject *dazukofs_groups_kobj;

/*
 * A group's sysfs directory.  It holds no reference to the group: the
 * group removes it (kobject_del() waits for the attribute callbacks that
 * run) before it lets its own reference go, so @group outlives every
 * callback; the kobject's count keeps only this small struct.
 */
struct dazukofs_group_dir {
	struct kobject kobj;
	struct dazukofs_group *group;
};

static struct dazukofs_group *dazukofs_kobj_group(struct kobject *kobj)
{
	return container_of(kobj, struct dazukofs_group_dir, kobj)->group;
}

/* Upper bounds of the latency buckets in µs; the last bucket is the rest. */
static const u64 dazukofs_latency_bounds[DAZUKOFS_LATENCY_BUCKETS - 1] = {
	100, 1000, 10000, 100000, 1000000,
};

/**
 * dazukofs_stats_latency() - count an answer's latency
 * @stats: the counters to update
 * @us: microseconds from the open to the answer
 */
void dazukofs_stats_latency(struct dazukofs_stats *stats, u64 us)
{
	s64 max = atomic64_read(&stats->latency_max_us);
	int i;

	while ((s64)us > max) {
		s64 seen = atomic64_cmpxchg(&stats->latency_max_us, max, us);

		if (seen == max)
			break;
		max = seen;
	}
	for (i = 0; i < DAZUKOFS_LATENCY_BUCKETS - 1; i++) {
		if (us <= dazukofs_latency_bounds[i])
			break;
	}
	atomic64_inc(&stats->latency[i]);
}

struct dazukofs_stat_attr {
	struct kobj_attribute attr;
	size_t offset;
	bool wide;	/* atomic64_t, else atomic_t */
};

static long long dazukofs_stat_read(const struct dazukofs_stats *stats,
				    const struct dazukofs_stat_attr *sa)
{
	const void *field = (const char *)stats + sa->offset;

	if (sa->wide)
		return atomic64_read(field);
	return atomic_read(field);
}

/* A counter of all groups: the sum of the CPUs' shares, or the largest. */
static long long dazukofs_global_stat(const struct dazukofs_stat_attr *sa)
{
	bool max = sa->offset == offsetof(struct dazukofs_stats,
					  latency_max_us);
	long long v = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		long long x = dazukofs_stat_read(per_cpu_ptr(&dazukofs_global_stats_pcpu,
							     cpu), sa);

		v = max ? max(v, x) : v + x;
	}
	return v;
}

static ssize_t dazukofs_stat_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	struct dazukofs_stat_attr *sa =
		container_of(attr, struct dazukofs_stat_attr, attr);
	long long v;

	if (kobj == dazukofs_root_kobj)
		v = dazukofs_global_stat(sa);
	else
		v = dazukofs_stat_read(&dazukofs_kobj_group(kobj)->stats, sa);
	return sysfs_emit(buf, "%lld\n", v);
}

#define DAZUKOFS_STAT_ATTR(_name, _field, _wide)			\
	static struct dazukofs_stat_attr dazukofs_stat_##_name = {	\
		.attr = __ATTR(_name, 0400, dazukofs_stat_show, NULL),	\
		.offset = offsetof(struct dazukofs_stats, _field),	\
		.wide = _wide,						\
	}

DAZUKOFS_STAT_ATTR(events, events, true);
DAZUKOFS_STAT_ATTR(allowed, allowed, true);
DAZUKOFS_STAT_ATTR(denied, denied, true);
DAZUKOFS_STAT_ATTR(cancelled, cancelled, true);
DAZUKOFS_STAT_ATTR(timeouts, timeouts, true);
DAZUKOFS_STAT_ATTR(open_errors, open_errors, true);
DAZUKOFS_STAT_ATTR(overflows, overflows, true);
DAZUKOFS_STAT_ATTR(waiting, waiting, false);
DAZUKOFS_STAT_ATTR(in_hand, in_hand, false);
DAZUKOFS_STAT_ATTR(readers, readers, false);
DAZUKOFS_STAT_ATTR(cache_hits, cache_hits, true);
DAZUKOFS_STAT_ATTR(cache_misses, cache_misses, true);
DAZUKOFS_STAT_ATTR(cache_invalidations, cache_invalidations, true);
DAZUKOFS_STAT_ATTR(close_writes, close_writes, true);
DAZUKOFS_STAT_ATTR(close_writes_dropped, close_writes_dropped, true);
DAZUKOFS_STAT_ATTR(excluded, excluded, true);

static struct attribute *dazukofs_stat_attrs[] = {
	&dazukofs_stat_events.attr.attr,
	&dazukofs_stat_allowed.attr.attr,
	&dazukofs_stat_denied.attr.attr,
	&dazukofs_stat_cancelled.attr.attr,
	&dazukofs_stat_timeouts.attr.attr,
	&dazukofs_stat_open_errors.attr.attr,
	&dazukofs_stat_overflows.attr.attr,
	&dazukofs_stat_waiting.attr.attr,
	&dazukofs_stat_in_hand.attr.attr,
	&dazukofs_stat_readers.attr.attr,
	&dazukofs_stat_cache_hits.attr.attr,
	&dazukofs_stat_cache_misses.attr.attr,
	&dazukofs_stat_cache_invalidations.attr.attr,
	&dazukofs_stat_close_writes.attr.attr,
	&dazukofs_stat_close_writes_dropped.attr.attr,
	&dazukofs_stat_excluded.attr.attr,
	NULL,
};

static const struct attribute_group dazukofs_stat_group = {
	.attrs = dazukofs_stat_attrs,
};

DAZUKOFS_STAT_ATTR(max_us, latency_max_us, true);
DAZUKOFS_STAT_ATTR(le_100us, latency[0], true);
DAZUKOFS_STAT_ATTR(le_1ms, latency[1], true);
DAZUKOFS_STAT_ATTR(le_10ms, latency[2], true);
DAZUKOFS_STAT_ATTR(le_100ms, latency[3], true);
DAZUKOFS_STAT_ATTR(le_1s, latency[4], true);
DAZUKOFS_STAT_ATTR(gt_1s, latency[5], true);

static struct attribute *dazukofs_latency_attrs[] = {
	&dazukofs_stat_max_us.attr.attr,
	&dazukofs_stat_le_100us.attr.attr,
	&dazukofs_stat_le_1ms.attr.attr,
	&dazukofs_stat_le_10ms.attr.attr,
	&dazukofs_stat_le_100ms.attr.attr,
	&dazukofs_stat_le_1s.attr.attr,
	&dazukofs_stat_gt_1s.attr.attr,
	NULL,
};

static const struct attribute_group dazukofs_latency_group = {
	.name = "latency",
	.attrs = dazukofs_latency_attrs,
};

static const struct attribute_group *dazukofs_stat_groups[] = {
	&dazukofs_stat_group,
	&dazukofs_latency_group,
	NULL,
};

static ssize_t id_show(struct kobject *kobj, struct kobj_attribute *attr,
		       char *buf)
{
	return sysfs_emit(buf, "%d\n", dazukofs_kobj_group(kobj)->id);
}

static struct kobj_attribute dazukofs_group_id_attr = __ATTR_RO(id);

/*
 * 0 while the group is not armed or, tracked, has no worker and no grace
 * window open: events skip it.
 */
static ssize_t active_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	struct dazukofs_group *group = dazukofs_kobj_group(kobj);
	bool active;

	spin_lock(&group->lock);
	active = dazukofs_group_active(group);
	spin_unlock(&group->lock);
	return sysfs_emit(buf, "%d\n", active);
}

static struct kobj_attribute dazukofs_group_active_attr = __ATTR_RO(active);

static struct attribute *dazukofs_group_attrs[] = {
	&dazukofs_group_id_attr.attr,
	&dazukofs_group_active_attr.attr,
	NULL,
};

static const struct attribute_group dazukofs_group_info = {
	.attrs = dazukofs_group_attrs,
};

static const struct attribute_group *dazukofs_group_groups[] = {
	&dazukofs_stat_group,
	&dazukofs_latency_group,
	&dazukofs_group_info,
	NULL,
};

static void dazukofs_group_kobj_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct dazukofs_group_dir, kobj));
}

static const struct kobj_type dazukofs_group_ktype = {
	.release	= dazukofs_group_kobj_release,
	.sysfs_ops	= &kobj_sysfs_ops,
	.default_groups	= dazukofs_group_groups,
};

/**
 * dazukofs_sysfs_add_group() - give a new group its sysfs directory
 * @group: the group
 *
 * Return: 0 or a negative errno.
 */
int dazukofs_sysfs_add_group(struct dazukofs_group *group)
{
	struct dazukofs_group_dir *dir;
	int err;

	dir = kzalloc(sizeof(*dir), GFP_KERNEL);
	if (!dir)
		return -ENOMEM;
	dir->group = group;
	err = kobject_init_and_add(&dir->kobj, &dazukofs_group_ktype,
				   dazukofs_groups_kobj, "%s", group->name);
	if (err) {
		kobject_put(&dir->kobj);
		return err;
	}
	group->sysfs_dir = &dir->kobj;
	return 0;
}

/**
 * dazukofs_sysfs_remove_group() - remove a group's sysfs directory
 * @group: a group that dazukofs_sysfs_add_group() gave one
 *
 * Its files are gone, and none of their callbacks runs, when this returns.
 */
void dazukofs_sysfs_remove_group(struct dazukofs_group *group)
{
	kobject_del(group->sysfs_dir);
	kobject_put(group->sysfs_dir);
	group->sysfs_dir = NULL;
}

int dazukofs_sysfs_init(void)
{
	int err;

	dazukofs_root_kobj = kobject_create_and_add(DAZUKOFS_NAME, fs_kobj);
	if (!dazukofs_root_kobj)
		return -ENOMEM;
	err = sysfs_create_groups(dazukofs_root_kobj, dazukofs_stat_groups);
	if (err)
		goto out_root;
	dazukofs_groups_kobj = kobject_create_and_add("groups",
						      dazukofs_root_kobj);
	if (!dazukofs_groups_kobj) {
		err = -ENOMEM;
		goto out_groups;
	}
	return 0;

out_groups:
	sysfs_remove_groups(dazukofs_root_kobj, dazukofs_stat_groups);
out_root:
	kobject_put(dazukofs_root_kobj);
	return err;
}

void dazukofs_sysfs_exit(void)
{
	kobject_put(dazukofs_groups_kobj);
	sysfs_remove_groups(dazukofs_root_kobj, dazukofs_stat_groups);
	kobject_put(dazukofs_root_kobj);
}
