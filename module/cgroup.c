// SPDX-License-Identifier: GPL-2.0
/*
 * Cgroups (v2): the opener's cgroup id in format-3 records, and a group's
 * excluded cgroups, whose processes and those of their descendants make no
 * event for it.
 *
 * A group's exclusions are an RCU-published array of cgroup references.
 * The open path compares the opener's ancestor at each excluded cgroup's
 * level with it (cgroup_ancestor(), one load per exclusion): no lock, no
 * allocation, and nothing at all for a group that excludes none.  A
 * reference keeps a removed cgroup's memory, but not its place: a removed
 * cgroup has no process and is no ancestor of one, so it matches nothing;
 * a read of the attribute leaves it out and drops it.
 */

#include <linux/cgroup.h>
#include <linux/ctype.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "dazukofs.h"

#ifndef CONFIG_CGROUPS
#error "dazukofs needs CONFIG_CGROUPS"
#endif

/**
 * struct dazukofs_cgroup_set - the cgroups a group excludes
 * @rcu: frees the set after the readers that may see it
 * @nr: how many
 * @cgrp: the cgroups, each holding a reference
 */
struct dazukofs_cgroup_set {
	struct rcu_head rcu;
	unsigned int nr;
	struct cgroup *cgrp[];
};

/* Serializes the writers of every group's ->excluded. */
static DEFINE_MUTEX(dazukofs_exclude_mutex);

/**
 * dazukofs_current_cgroup_id() - the current task's cgroup v2 id
 *
 * Return: the id of its cgroup in the default hierarchy, which is the
 * inode number of the cgroup's directory.
 */
u64 dazukofs_current_cgroup_id(void)
{
	u64 id;

	rcu_read_lock();
	id = cgroup_id(task_dfl_cgroup(current));
	rcu_read_unlock();
	return id;
}

/**
 * dazukofs_cgroup_excluded() - does @group exclude the current task?
 * @group: the group
 *
 * The caller holds rcu_read_lock(), which keeps the task's css_set, and
 * with it its cgroup and the cgroup's ancestors, and the group's set.
 *
 * Return: true if the task is in an excluded cgroup or below one.
 */
bool dazukofs_cgroup_excluded(const struct dazukofs_group *group)
{
	const struct dazukofs_cgroup_set *set = rcu_dereference(group->excluded);
	struct cgroup *cgrp;
	unsigned int i;

	if (likely(!set))
		return false;
	cgrp = task_dfl_cgroup(current);
	for (i = 0; i < set->nr; i++) {
		if (cgroup_ancestor(cgrp, set->cgrp[i]->level) == set->cgrp[i])
			return true;
	}
	return false;
}

static void dazukofs_cgroup_set_free(struct dazukofs_cgroup_set *set)
{
	unsigned int i;

	if (!set)
		return;
	for (i = 0; i < set->nr; i++)
		cgroup_put(set->cgrp[i]);
	kfree(set);
}

/* Publish @set as @group's; the old set goes once no reader can see it. */
static void dazukofs_cgroup_set_replace(struct dazukofs_group *group,
					struct dazukofs_cgroup_set *set)
{
	struct dazukofs_cgroup_set *old;

	lockdep_assert_held(&dazukofs_exclude_mutex);
	old = rcu_replace_pointer(group->excluded, set,
				  lockdep_is_held(&dazukofs_exclude_mutex));
	if (old) {
		synchronize_rcu();
		dazukofs_cgroup_set_free(old);
	}
}

/*
 * Removed: rmdir (cgroup_destroy_locked()) clears CSS_ONLINE of the
 * cgroup's own css at once, before the css's reference count is killed.
 */
static bool dazukofs_cgroup_gone(struct cgroup *cgrp)
{
	return !(READ_ONCE(cgrp->self.flags) & CSS_ONLINE);
}

/*
 * The cgroup one word of an exclude_cgroups write names: an id or a path
 * in the writer's cgroup namespace, resolved as bpf's and perf's cgroup
 * arguments are.  Return: the cgroup, referenced, or an ERR_PTR.
 */
static struct cgroup *dazukofs_cgroup_resolve(const char *word, size_t len)
{
	struct cgroup *cgrp;
	char *text;
	u64 id;

	text = kmemdup_nul(word, len, GFP_KERNEL);
	if (!text)
		return ERR_PTR(-ENOMEM);
	if (text[0] == '/') {
		cgrp = cgroup_get_from_path(text);
		/* a file of the cgroup2 filesystem is no cgroup either */
		if (IS_ERR(cgrp) && PTR_ERR(cgrp) == -ENOTDIR)
			cgrp = ERR_PTR(-ENOENT);
	} else if (isdigit(text[0]) && !kstrtou64(text, 10, &id)) {
		cgrp = cgroup_get_from_id(id);
	} else {
		cgrp = ERR_PTR(-EINVAL);
	}
	kfree(text);
	if (!IS_ERR(cgrp) && dazukofs_cgroup_gone(cgrp)) {
		cgroup_put(cgrp);
		cgrp = ERR_PTR(-ENOENT);
	}
	return cgrp;
}

/*
 * The text's syntax, before any word is resolved, so that malformed text
 * fails with EINVAL wherever it is: words of digits or paths from '/'.
 */
static int dazukofs_exclude_check(const char *p, const char *end)
{
	while (p < end) {
		bool path = *p == '/';

		if (isspace(*p)) {
			p++;
			continue;
		}
		for (; p < end && !isspace(*p); p++) {
			if (!path && !isdigit(*p))
				return -EINVAL;
		}
	}
	return 0;
}

/**
 * dazukofs_exclude_store() - set the cgroups @group excludes
 * @group: the group
 * @page: the attribute's text: ids or paths, separated by white space
 * @count: its length
 *
 * All or nothing: a word that fails makes the write fail, and the
 * group's list is then unchanged.  An id is digits only, not all that
 * kstrtou64() takes (a '+', a trailing newline).
 *
 * Return: 0, -EINVAL (malformed), -ENOENT (no such cgroup), -E2BIG (more
 * than DAZUKOFS_EXCLUDE_CGROUPS_MAX) or -ENOMEM.
 */
int dazukofs_exclude_store(struct dazukofs_group *group, const char *page,
			   size_t count)
{
	const char *p = page, *end = page + strnlen(page, count);
	struct dazukofs_cgroup_set *set;
	unsigned int i;
	int err = 0;

	err = dazukofs_exclude_check(page, end);
	if (err)
		return err;
	set = kzalloc(struct_size(set, cgrp, DAZUKOFS_EXCLUDE_CGROUPS_MAX),
		      GFP_KERNEL);
	if (!set)
		return -ENOMEM;
	for (;;) {
		const char *word;
		struct cgroup *cgrp;

		while (p < end && isspace(*p))
			p++;
		if (p == end)
			break;
		word = p;
		while (p < end && !isspace(*p))
			p++;
		cgrp = dazukofs_cgroup_resolve(word, p - word);
		if (IS_ERR(cgrp)) {
			err = PTR_ERR(cgrp);
			goto out;
		}
		for (i = 0; i < set->nr && set->cgrp[i] != cgrp; i++)
			;
		if (i < set->nr) {
			cgroup_put(cgrp);	/* named twice */
			continue;
		}
		if (set->nr == DAZUKOFS_EXCLUDE_CGROUPS_MAX) {
			cgroup_put(cgrp);
			err = -E2BIG;
			goto out;
		}
		set->cgrp[set->nr++] = cgrp;
	}
	mutex_lock(&dazukofs_exclude_mutex);
	dazukofs_cgroup_set_replace(group, set->nr ? set : NULL);
	mutex_unlock(&dazukofs_exclude_mutex);
	if (!set->nr)
		kfree(set);
	return 0;
out:
	dazukofs_cgroup_set_free(set);
	return err;
}

/**
 * dazukofs_exclude_show() - list the cgroups @group excludes
 * @group: the group
 * @page: the attribute's page
 *
 * Removed cgroups are left out, and dropped from the group's list if
 * memory allows.
 *
 * Return: the length of the text.
 */
ssize_t dazukofs_exclude_show(struct dazukofs_group *group, char *page)
{
	struct dazukofs_cgroup_set *set, *live = NULL;
	unsigned int i, gone = 0;
	ssize_t len = 0;

	mutex_lock(&dazukofs_exclude_mutex);
	set = rcu_dereference_protected(group->excluded,
					lockdep_is_held(&dazukofs_exclude_mutex));
	for (i = 0; set && i < set->nr; i++) {
		if (dazukofs_cgroup_gone(set->cgrp[i])) {
			gone++;
			continue;
		}
		len += sysfs_emit_at(page, len, "%llu\n",
				     cgroup_id(set->cgrp[i]));
	}
	if (gone && set->nr > gone) {
		live = kzalloc(struct_size(live, cgrp, set->nr - gone),
			       GFP_KERNEL);
		if (!live)
			goto out;
		for (i = 0; i < set->nr; i++) {
			if (dazukofs_cgroup_gone(set->cgrp[i]))
				continue;
			cgroup_get(set->cgrp[i]);
			live->cgrp[live->nr++] = set->cgrp[i];
		}
	}
	if (gone)
		dazukofs_cgroup_set_replace(group, live);
out:
	mutex_unlock(&dazukofs_exclude_mutex);
	return len;
}

/**
 * dazukofs_exclude_release() - drop a freed group's exclusions
 * @group: the group, which nothing refers to any more
 */
void dazukofs_exclude_release(struct dazukofs_group *group)
{
	dazukofs_cgroup_set_free(rcu_dereference_protected(group->excluded, 1));
}
