// SPDX-License-Identifier: GPL-2.0
/*
 * The verdict cache.  A worker may ask that its verdict on a file be
 * remembered ("remember" in its answer); later opens of the unchanged file
 * then get that verdict without an event for the worker's group.
 *
 * The verdicts on a file live in a mark of our own fsnotify group on the
 * lower inode.  The mark pins nothing (FSNOTIFY_MARK_FLAG_NO_IREF): it goes
 * with the inode, so the cache is bounded by the inode cache.  Every change
 * to the file, through a dazukofs mount or on the lower directly, reaches
 * the mark as an fsnotify event (modify, attrib, close of a writer) that
 * drops the file's verdicts.  A verdict must also match the file's stamp --
 * i_version where the lower keeps one, ctime, mtime and size -- which
 * catches changes by writers that make no fsnotify events.
 *
 * Writes through a shared writable mapping change neither the stamp nor
 * anything else while the mapping lives (and on tmpfs not even then), so
 * no verdict is stored or used while the file is open for writing, which
 * such a mapping keeps it; the close of the last such file is an event.
 * A page pinned for I/O can still be written after that close: no allow
 * is remembered while a page of the file is pinned.  A page reference that
 * is not a pin cannot be told apart: no allow is remembered on a file that
 * was mapped shared and writable through a mount while its inode is cached
 * (dazukofs_verdict_mapped_shared()).
 * Timestamps come from a coarse clock: a change made within the tick in
 * which a worker's view of the file was taken may leave the stamp as it
 * was, so an allow on such a view is never remembered (git's "racily
 * clean" rule); a deny is, as a stale deny lets nothing through.
 *
 * Each group has a cache epoch, unique among all groups ever made; a
 * verdict belongs to the group whose current epoch it carries.  Flushing
 * a group's verdicts gives it a new epoch, O(1); the old verdicts are never
 * matched again and are overwritten in time.
 *
 * Remote lowers (NFS, FUSE, 9p, ...) change behind the kernel's back:
 * nothing is remembered for them.  Nor, unless the mount says remember=on,
 * for lowers on block devices that can (lowerdev.c); such a mount's opens
 * neither use nor store verdicts (event->remember).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/fsnotify_backend.h>
#include <linux/iversion.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/rculist.h>
#include <linux/slab.h>

#include "dazukofs.h"

/* Verdicts kept per file: one per group, for the usual few groups. */
#define DAZUKOFS_VERDICT_SLOTS	4

/* The fsnotify events that may mean the file's content or rights changed. */
#define DAZUKOFS_VERDICT_EVENTS	(FS_MODIFY | FS_ATTRIB | FS_CLOSE_WRITE)

struct dazukofs_verdict {
	u64 epoch;		/* 0: empty */
	struct dazukofs_stamp stamp;
	bool deny;
	u8 serves;		/* an allow: what it answers, see below */
};

/*
 * The accesses that a remembered allow answers, by the event it was given
 * for (the table in Documentation/filesystems/dazukofs.rst): an exec's
 * allow answers later execs and opens; an open's, and a close's after a
 * write, only opens, for a policy may allow reading what it would not let
 * run.  A deny answers every access.
 */
static u8 dazukofs_allow_serves(unsigned int type)
{
	return type == DAZUKOFS_EVENT_EXEC ?
	       DAZUKOFS_EVENT_OPEN | DAZUKOFS_EVENT_EXEC : DAZUKOFS_EVENT_OPEN;
}

/* What an access of @kind (DAZUKOFS_EVENT_* bits) needs an allow to serve. */
static u8 dazukofs_access_needs(unsigned int kind)
{
	return kind & DAZUKOFS_EVENT_EXEC ? DAZUKOFS_EVENT_EXEC
					  : DAZUKOFS_EVENT_OPEN;
}

/**
 * struct dazukofs_verdicts - the remembered verdicts on one lower inode
 * @fsn: our fsnotify mark on the inode
 * @node: in dazukofs_verdict_marks until the mark is being freed; that
 *	  list holds the reference fsnotify_init_mark() gave
 * @lock: protects @changes, @mapped_shared, @next and @slot
 * @changes: fsnotify events seen that may mean a change
 * @mapped_shared: the file was mapped shared and writable through a mount
 *		   (dazukofs_verdict_mapped_shared()): no allow is stored
 * @next: the slot to overwrite when none is free or the group's
 * @slot: the verdicts
 */
struct dazukofs_verdicts {
	struct fsnotify_mark fsn;
	struct list_head node;
	spinlock_t lock;	/* see above */
	u64 changes;
	bool mapped_shared;
	unsigned int next;
	struct dazukofs_verdict slot[DAZUKOFS_VERDICT_SLOTS];
};

static struct fsnotify_group *dazukofs_fsn_group;
static struct kmem_cache *dazukofs_verdicts_cache;

/* Every live mark, so that the module's exit can destroy them all. */
static LIST_HEAD(dazukofs_verdict_marks);
static DEFINE_SPINLOCK(dazukofs_verdict_marks_lock);

/* Epochs handed out so far: each group's is unique, never 0. */
static atomic64_t dazukofs_epochs = ATOMIC64_INIT(0);

/* No verdict was ever remembered: opens skip the cache altogether. */
static DEFINE_STATIC_KEY_FALSE(dazukofs_verdicts_used);

u64 dazukofs_new_epoch(void)
{
	return (u64)atomic64_inc_return(&dazukofs_epochs);
}

static struct dazukofs_verdicts *to_verdicts(struct fsnotify_mark *mark)
{
	return container_of(mark, struct dazukofs_verdicts, fsn);
}

/* For the groups whose verdicts an event dropped: count them. */
static void dazukofs_count_invalidations(const u64 *epochs, unsigned int n)
{
	struct dazukofs_group *group;
	unsigned int i;

	rcu_read_lock();
	list_for_each_entry_rcu(group, &dazukofs_groups, node) {
		u64 epoch = READ_ONCE(group->cache_epoch);

		for (i = 0; i < n; i++) {
			if (epochs[i] != epoch)
				continue;
			atomic64_inc(&group->stats.cache_invalidations);
			atomic64_inc(&dazukofs_global_stats.cache_invalidations);
		}
	}
	rcu_read_unlock();
}

/* The file may have changed: forget every verdict on it. */
static void dazukofs_verdicts_forget(struct dazukofs_verdicts *v,
				     bool mapped_shared)
{
	u64 dropped[DAZUKOFS_VERDICT_SLOTS];
	unsigned int i, n = 0;

	spin_lock(&v->lock);
	v->changes++;
	v->mapped_shared |= mapped_shared;
	for (i = 0; i < DAZUKOFS_VERDICT_SLOTS; i++) {
		if (!v->slot[i].epoch)
			continue;
		dropped[n++] = v->slot[i].epoch;
		v->slot[i].epoch = 0;
	}
	spin_unlock(&v->lock);
	if (n)
		dazukofs_count_invalidations(dropped, n);
}

static int dazukofs_verdict_event(struct fsnotify_mark *mark, u32 mask,
				  struct inode *inode, struct inode *dir,
				  const struct qstr *name, u32 cookie)
{
	dazukofs_verdicts_forget(to_verdicts(mark), false);
	return 0;
}

/*
 * The mark is being destroyed (its inode is evicted, or the module goes):
 * drop the list's reference, unless the module's exit took it over.
 */
static void dazukofs_verdict_freeing(struct fsnotify_mark *mark,
				     struct fsnotify_group *group)
{
	struct dazukofs_verdicts *v = to_verdicts(mark);
	bool listed;

	spin_lock(&dazukofs_verdict_marks_lock);
	listed = !list_empty(&v->node);
	list_del_init(&v->node);
	spin_unlock(&dazukofs_verdict_marks_lock);
	if (listed)
		fsnotify_put_mark(mark);
}

static void dazukofs_verdict_free(struct fsnotify_mark *mark)
{
	kmem_cache_free(dazukofs_verdicts_cache, to_verdicts(mark));
}

static const struct fsnotify_ops dazukofs_verdict_ops = {
	.handle_inode_event	= dazukofs_verdict_event,
	.freeing_mark		= dazukofs_verdict_freeing,
	.free_mark		= dazukofs_verdict_free,
};

int dazukofs_verdict_init(void)
{
	dazukofs_verdicts_cache = KMEM_CACHE(dazukofs_verdicts, 0);
	if (!dazukofs_verdicts_cache)
		return -ENOMEM;
	dazukofs_fsn_group = fsnotify_alloc_group(&dazukofs_verdict_ops,
						  DAZUKOFS_FSNOTIFY_GROUP_FLAGS);
	if (IS_ERR(dazukofs_fsn_group)) {
		kmem_cache_destroy(dazukofs_verdicts_cache);
		return PTR_ERR(dazukofs_fsn_group);
	}
	return 0;
}

/* No dazukofs mount and no group is left; lower inodes may still be. */
void dazukofs_verdict_exit(void)
{
	struct dazukofs_verdicts *v;

	for (;;) {
		spin_lock(&dazukofs_verdict_marks_lock);
		v = list_first_entry_or_null(&dazukofs_verdict_marks,
					     struct dazukofs_verdicts, node);
		if (v)
			list_del_init(&v->node);
		spin_unlock(&dazukofs_verdict_marks_lock);
		if (!v)
			break;
		/* The list's reference is ours now: @v stays valid. */
		fsnotify_destroy_mark(&v->fsn, dazukofs_fsn_group);
		fsnotify_put_mark(&v->fsn);
	}
	fsnotify_put_group(dazukofs_fsn_group);
	/* The marks are freed by fsnotify's reaper: wait for it. */
	fsnotify_wait_marks_destroyed();
	kmem_cache_destroy(dazukofs_verdicts_cache);
}

/* The mark on @inode, with a reference, made if @create and missing. */
static struct dazukofs_verdicts *dazukofs_verdicts_get(struct inode *inode,
						       bool create)
{
	struct dazukofs_verdicts *v;
	struct fsnotify_mark *mark;
	int err;

	mark = dazukofs_find_inode_mark(inode, dazukofs_fsn_group);
	if (mark || !create)
		return mark ? to_verdicts(mark) : NULL;

	v = kmem_cache_zalloc(dazukofs_verdicts_cache, GFP_KERNEL);
	if (!v)
		return NULL;
	fsnotify_init_mark(&v->fsn, dazukofs_fsn_group);
	v->fsn.mask = DAZUKOFS_VERDICT_EVENTS;
	v->fsn.flags |= FSNOTIFY_MARK_FLAG_NO_IREF;
	spin_lock_init(&v->lock);
	INIT_LIST_HEAD(&v->node);
	spin_lock(&dazukofs_verdict_marks_lock);
	list_add(&v->node, &dazukofs_verdict_marks);
	spin_unlock(&dazukofs_verdict_marks_lock);
	err = fsnotify_add_inode_mark(&v->fsn, inode, 0);
	if (err) {
		/* -EEXIST: another worker's mark came first; use that one. */
		spin_lock(&dazukofs_verdict_marks_lock);
		list_del_init(&v->node);
		spin_unlock(&dazukofs_verdict_marks_lock);
		fsnotify_put_mark(&v->fsn);
	}
	mark = dazukofs_find_inode_mark(inode, dazukofs_fsn_group);
	return mark ? to_verdicts(mark) : NULL;
}

static void dazukofs_verdicts_put(struct dazukofs_verdicts *v)
{
	fsnotify_put_mark(&v->fsn);
}

/*
 * May a verdict on this file be stored or used at all?  Not for a remote
 * lower (their dentries revalidate; 9p's do not without a cache mode, yet
 * its server changes files behind our back), and not while anyone has the
 * file open for writing.
 */
static bool dazukofs_verdict_possible(const struct dentry *lower)
{
	return d_is_reg(lower) &&
	       !(lower->d_flags & (DCACHE_OP_REVALIDATE |
				   DCACHE_OP_WEAK_REVALIDATE)) &&
	       lower->d_sb->s_magic != V9FS_MAGIC &&
	       atomic_read(&d_inode(lower)->i_writecount) <= 0;
}

/*
 * Is a page of the file pinned for I/O (FOLL_PIN: io_uring's registered
 * buffers; on 6.12 also most direct I/O)?  A pinned page outlives the
 * mapping and the file it was pinned through: it can be written after
 * every writer has closed the file, with no fsnotify event and no change
 * of the stamp.  A pin made later needs a writable mapping, that is a
 * writer, whose close the mark counts.  "Maybe": a false positive only
 * keeps an allow from being remembered.  DAX files keep no pages here.
 */
static bool dazukofs_pages_pinned(struct address_space *mapping)
{
	XA_STATE(xas, &mapping->i_pages, 0);
	struct folio *folio;
	bool pinned = false;
	pgoff_t next;

	if (IS_DAX(mapping->host))
		return true;
	rcu_read_lock();
	xas_for_each(&xas, folio, ULONG_MAX) {
		if (xas_retry(&xas, folio))
			continue;
		next = xas.xa_index + 1;
		/* A swapped-out or evicted page: reclaim never takes a pinned one. */
		if (!xa_is_value(folio)) {
			/* As the page cache's lookups: a reference, then recheck. */
			if (!folio_try_get(folio)) {
				xas_reset(&xas);
				continue;
			}
			if (unlikely(folio != xas_reload(&xas))) {
				folio_put(folio);
				xas_reset(&xas);
				continue;
			}
			pinned = folio_maybe_dma_pinned(folio);
			next = folio_next_index(folio);
			folio_put(folio);
			if (pinned)
				break;
		}
		/*
		 * Resume after what was checked, not with xas_pause(), which
		 * before v6.13 could skip past entries from within a large
		 * folio.
		 */
		if (need_resched()) {
			xas_set(&xas, next);
			rcu_read_unlock();
			cond_resched();
			rcu_read_lock();
		}
	}
	rcu_read_unlock();
	return pinned;
}

/**
 * dazukofs_verdict_mapped_shared() - the file is being mapped shared, writable
 * @inode: the lower inode
 *
 * Called for a mapping through a mount that is shared and may write
 * (VM_SHARED and VM_MAYWRITE: mprotect() can make it writable later).  A
 * page reference taken through it that is not a pin (FOLL_GET: all direct
 * I/O on 6.1, NFS's and ceph's on 6.12) cannot be told from the page
 * cache's own, and it may write into the page long after the mapping and
 * every writer of the file are gone, with no event and no change of the
 * stamp.  So no allow is remembered on the file while its inode stays in
 * memory: the mark, which lives as long, keeps the fact.  Reading every
 * page's count at each event would cost what the file's size does, and
 * could not tell such a reference from a per-CPU LRU batch's.
 *
 * Return: 0, or -ENOMEM: no mark, so the mapping must be refused.
 */
int dazukofs_verdict_mapped_shared(struct inode *inode)
{
	struct dazukofs_verdicts *v = dazukofs_verdicts_get(inode, true);

	if (!v)
		return -ENOMEM;
	dazukofs_verdicts_forget(v, true);
	dazukofs_verdicts_put(v);
	return 0;
}

static void dazukofs_take_stamp(struct inode *inode,
				struct dazukofs_stamp *stamp, bool query)
{
	stamp->iversion = 0;
	if (IS_I_VERSION(inode))
		stamp->iversion = query ? inode_query_iversion(inode)
					: inode_peek_iversion(inode);
	stamp->ctime = dazukofs_inode_ctime(inode);
	stamp->mtime = dazukofs_inode_mtime(inode);
	stamp->size = i_size_read(inode);
}

static bool dazukofs_stamp_eq(const struct dazukofs_stamp *a,
			      const struct dazukofs_stamp *b)
{
	return a->iversion == b->iversion && a->size == b->size &&
	       timespec64_equal(&a->ctime, &b->ctime) &&
	       timespec64_equal(&a->mtime, &b->mtime);
}

/**
 * dazukofs_verdict_snapshot() - note the file's state as a worker gets it
 * @group: the worker's group
 * @lower: the event's lower file, just opened for the worker
 * @snap: filled in; @snap->valid says whether a verdict may be stored
 * @deny_only: take no view: only a deny may be stored
 *
 * Called after the worker's fd is opened, before it can read anything:
 * the verdict is about the file as it is now, and is remembered only if
 * nothing changed until the answer.  Makes the file's mark, so that a
 * change in between is seen.  With @deny_only, the stamp alone: no mark
 * is made (only a deny can be stored, which makes it), so a change that
 * leaves the stamp as it was goes unseen, which can only keep a deny too
 * long.
 */
void dazukofs_verdict_snapshot(struct dazukofs_group *group,
			       const struct path *lower,
			       struct dazukofs_snapshot *snap, bool deny_only)
{
	struct inode *inode = d_inode(lower->dentry);
	struct dazukofs_verdicts *v = NULL;
	bool mapped_shared = false;
	struct timespec64 now;

	snap->valid = false;
	snap->deny_only = deny_only;
	if (!dazukofs_verdict_possible(lower->dentry))
		return;
	if (!deny_only) {
		v = dazukofs_verdicts_get(inode, true);
		if (!v)
			return;
	}
	snap->epoch = READ_ONCE(group->cache_epoch);
	/* The count first: a change after it is either counted or stamped. */
	if (v) {
		spin_lock(&v->lock);
		snap->changes = v->changes;
		mapped_shared = v->mapped_shared;
		spin_unlock(&v->lock);
	}
	dazukofs_take_stamp(inode, &snap->stamp, true);
	now = current_time(inode);
	snap->valid = dazukofs_verdict_possible(lower->dentry);
	/*
	 * A pin that is there now may write while the worker reads, and go
	 * before the answer: no allow on this view.  After the count: a pin
	 * made later needs a writer, whose close the mark counts.
	 */
	snap->racy = mapped_shared ||
		     timespec64_compare(&snap->stamp.ctime, &now) >= 0 ||
		     timespec64_compare(&snap->stamp.mtime, &now) >= 0 ||
		     (!deny_only && snap->valid &&
		      dazukofs_pages_pinned(inode->i_mapping));
	if (v)
		dazukofs_verdicts_put(v);
}

/**
 * dazukofs_verdict_store() - remember a group's verdict on a file
 * @group: the group that answered
 * @lower: the event's lower file
 * @snap: from dazukofs_verdict_snapshot() for the worker's fd
 * @verdict: DAZUKOFS_ALLOW or DAZUKOFS_DENY
 * @type: the event's DAZUKOFS_EVENT_* type: which later accesses an allow
 *	  answers (dazukofs_allow_serves()); allows on the same view add up
 *
 * Stored only if the file is as it was when the worker's fd was opened
 * (its stamp, and the changes its mark counted if one was made then),
 * nobody has it open for writing, the group was not flushed since, and,
 * for an allow, the view was not taken in the tick of the file's last
 * change and was not @snap->deny_only: else the answer holds for this
 * open only.
 *
 * Return: true if the verdict was stored.
 */
bool dazukofs_verdict_store(struct dazukofs_group *group,
			    const struct path *lower,
			    const struct dazukofs_snapshot *snap, int verdict,
			    unsigned int type)
{
	bool deny = verdict == DAZUKOFS_DENY;
	u8 serves = deny ? 0 : dazukofs_allow_serves(type);
	struct inode *inode = d_inode(lower->dentry);
	struct dazukofs_verdict *slot = NULL;
	struct dazukofs_stamp now;
	struct dazukofs_verdicts *v;
	unsigned int i;

	if (!snap->valid || snap->epoch != READ_ONCE(group->cache_epoch))
		return false;
	/*
	 * A racy view may miss a change in its tick: an allow might be
	 * about content the file no longer has.  A deny may be remembered:
	 * at worst it stays until the file's next change.
	 */
	if ((snap->racy || snap->deny_only) && verdict != DAZUKOFS_DENY)
		return false;
	/* Also pinned since the view?  A pin made after this needs a writer. */
	if (verdict != DAZUKOFS_DENY && dazukofs_pages_pinned(inode->i_mapping))
		return false;
	v = dazukofs_verdicts_get(inode, snap->deny_only);
	if (!v)
		return false;
	dazukofs_take_stamp(inode, &now, false);
	spin_lock(&v->lock);
	/* Without a mark at the snapshot, no changes were counted. */
	if ((snap->deny_only || v->changes == snap->changes) &&
	    (deny || !v->mapped_shared) &&
	    dazukofs_stamp_eq(&now, &snap->stamp) &&
	    dazukofs_verdict_possible(lower->dentry)) {
		for (i = 0; i < DAZUKOFS_VERDICT_SLOTS && !slot; i++) {
			if (v->slot[i].epoch == snap->epoch)
				slot = &v->slot[i];
		}
		for (i = 0; i < DAZUKOFS_VERDICT_SLOTS && !slot; i++) {
			if (!v->slot[i].epoch)
				slot = &v->slot[i];
		}
		if (!slot)
			slot = &v->slot[v->next++ % DAZUKOFS_VERDICT_SLOTS];
		/* An open's allow does not take back an exec's. */
		if (!deny && slot->epoch == snap->epoch && !slot->deny &&
		    dazukofs_stamp_eq(&slot->stamp, &snap->stamp))
			serves |= slot->serves;
		slot->epoch = snap->epoch;
		slot->stamp = snap->stamp;
		slot->deny = deny;
		slot->serves = serves;
	}
	spin_unlock(&v->lock);
	dazukofs_verdicts_put(v);
	if (slot && !static_key_enabled(&dazukofs_verdicts_used))
		static_branch_enable(&dazukofs_verdicts_used);
	return slot;
}

/**
 * dazukofs_verdict_view() - look at a file's verdicts, for an open
 * @lower: the lower file being opened
 * @view: filled in if the return is true; release with
 *	  dazukofs_verdict_unview()
 *
 * Return: whether the file has verdicts that may be used now.
 */
bool dazukofs_verdict_view(const struct path *lower,
			   struct dazukofs_verdict_view *view)
{
	struct inode *inode = d_inode(lower->dentry);

	if (!static_branch_unlikely(&dazukofs_verdicts_used))
		return false;
	if (!dazukofs_verdict_possible(lower->dentry))
		return false;
	view->verdicts = dazukofs_verdicts_get(inode, false);
	if (!view->verdicts)
		return false;
	dazukofs_take_stamp(inode, &view->now, false);
	return true;
}

void dazukofs_verdict_unview(struct dazukofs_verdict_view *view)
{
	dazukofs_verdicts_put(view->verdicts);
}

/**
 * dazukofs_verdict_lookup() - a group's remembered verdict on an access
 * @view: from dazukofs_verdict_view()
 * @group: the group
 * @kind: the access, DAZUKOFS_EVENT_OPEN with or without _EXEC
 *
 * A verdict whose stamp no longer matches the file is dropped (a change
 * that made no fsnotify event) and counted as an invalidation.  An allow
 * that does not serve @kind stays, for the accesses it serves.
 *
 * Return: DAZUKOFS_ALLOW, DAZUKOFS_DENY, or -ENOENT if there is none for
 * @kind.
 */
int dazukofs_verdict_lookup(struct dazukofs_verdict_view *view,
			    struct dazukofs_group *group, unsigned int kind)
{
	struct dazukofs_verdicts *v = view->verdicts;
	u64 epoch = READ_ONCE(group->cache_epoch);
	int verdict = -ENOENT;
	bool stale = false;
	unsigned int i;

	spin_lock(&v->lock);
	for (i = 0; i < DAZUKOFS_VERDICT_SLOTS; i++) {
		struct dazukofs_verdict *slot = &v->slot[i];

		if (slot->epoch != epoch)
			continue;
		if (dazukofs_stamp_eq(&slot->stamp, &view->now)) {
			if (slot->deny)
				verdict = DAZUKOFS_DENY;
			else if (slot->serves & dazukofs_access_needs(kind))
				verdict = DAZUKOFS_ALLOW;
		} else {
			slot->epoch = 0;
			stale = true;
		}
		break;
	}
	spin_unlock(&v->lock);
	if (stale) {
		atomic64_inc(&group->stats.cache_invalidations);
		atomic64_inc(&dazukofs_global_stats.cache_invalidations);
	}
	return verdict;
}

/* Forget every verdict of @group, in O(1): a new epoch. */
void dazukofs_verdict_flush(struct dazukofs_group *group)
{
	WRITE_ONCE(group->cache_epoch, dazukofs_new_epoch());
}
