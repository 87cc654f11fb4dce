/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dazukofs: a stackable filesystem that passes every call to the directory
 * it is mounted over.  Internal declarations shared by the module's files.
 */
#ifndef _DAZUKOFS_H
#define _DAZUKOFS_H

#include <linux/atomic.h>
#include <linux/configfs.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/jump_label.h>
#include <linux/kobject.h>
#include <linux/mount.h>
#include <linux/path.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/user_namespace.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <uapi/linux/dazukofs.h>

#include "compat.h"

#define DAZUKOFS_NAME		DAZUKOFS_FS_TYPE

/**
 * struct dazukofs_sb_info - per-mount state
 * @lower: the directory the mount stacks on.  Set at mount time, constant
 *	   until the superblock dies; its references are held by the mount.
 * @remember_opt: the remember= option as given (enum dazukofs_remember);
 *		  read without a lock by show_options
 * @remember: verdicts are remembered and used for opens through the mount
 *	      (dazukofs_sb_remembers()); written under s_umount
 *
 * The lower mount's noexec and nodev carry over at mount time as the
 * superblock's SB_I_NOEXEC and SB_I_NODEV, and are followed afterwards
 * (dazukofs_lower_mnt_flags()) as is nosuid (dazukofs_lower_nosuid()).
 */
struct dazukofs_sb_info {
	struct path lower;
	u8 remember_opt;
	bool remember;
};

static inline struct dazukofs_sb_info *dazukofs_sb(const struct super_block *sb)
{
	return sb->s_fs_info;
}

/* remember=: may verdicts be remembered for opens through the mount? */
enum dazukofs_remember {
	DAZUKOFS_REMEMBER_AUTO,	/* unless the lower can change unseen */
	DAZUKOFS_REMEMBER_OFF,
	DAZUKOFS_REMEMBER_ON,
};

/*
 * Are verdicts remembered and used for opens through the mount?  Set at
 * mount, changed by a remount: a plain load.
 */
static inline bool dazukofs_sb_remembers(const struct super_block *sb)
{
	return READ_ONCE(dazukofs_sb(sb)->remember);
}

/*
 * The lower mount's flags now, not at mount time: a remount of the lower
 * (say, to noexec) applies through the mount too.  A plain load, as
 * mnt_may_suid() and path_noexec() read them.
 */
static inline int dazukofs_lower_mnt_flags(const struct super_block *sb)
{
	return READ_ONCE(dazukofs_sb(sb)->lower.mnt->mnt_flags);
}

/*
 * Do set-id bits and file capabilities on the lower take no effect?  On a
 * nosuid lower mount; and on a lower owned by a user namespace, whose
 * files only that namespace's processes may be granted privileges by
 * (mnt_may_suid()): through the mount, which the initial namespace owns,
 * they would be granted to everyone.
 */
static inline bool dazukofs_lower_nosuid(const struct super_block *sb)
{
	const struct vfsmount *lower_mnt = dazukofs_sb(sb)->lower.mnt;

	return (dazukofs_lower_mnt_flags(sb) & MNT_NOSUID) ||
	       lower_mnt->mnt_sb->s_user_ns != &init_user_ns;
}

static inline struct vfsmount *dazukofs_lower_mnt(const struct super_block *sb)
{
	return dazukofs_sb(sb)->lower.mnt;
}

static inline dazukofs_idmap_t *dazukofs_lower_idmap(const struct super_block *sb)
{
	return dazukofs_mnt_idmap(dazukofs_lower_mnt(sb));
}

/*
 * Every dazukofs dentry pins the lower dentry of the same name in d_fsdata.
 * It is set once, before the dentry becomes visible (lookup, create of a
 * tmpfile, the root), and dropped in ->d_release, so it is stable for the
 * dentry's lifetime and may be read under RCU.  It may be NULL only for a
 * dentry whose lookup failed.
 */
static inline struct dentry *dazukofs_lower_dentry(const struct dentry *dentry)
{
	return READ_ONCE(dentry->d_fsdata);
}

static inline void dazukofs_lower_path(const struct dentry *dentry,
				       struct path *lower)
{
	lower->mnt = dazukofs_lower_mnt(dentry->d_sb);
	lower->dentry = dazukofs_lower_dentry(dentry);
}

/*
 * A dazukofs inode stands for exactly one lower inode, kept in i_private
 * with a reference: hard links and every path to the same lower inode share
 * one dazukofs inode.
 */
static inline struct inode *dazukofs_lower_inode(const struct inode *inode)
{
	return inode->i_private;
}

/* The lower file an open dazukofs file reads and writes, for its lifetime. */
static inline struct file *dazukofs_lower_file(const struct file *file)
{
	return file->private_data;
}

/* Verdict latency histogram: upper bounds of the buckets, in microseconds. */
#define DAZUKOFS_LATENCY_BUCKETS 6

/**
 * struct dazukofs_stats - event counters, of one group or of all
 *
 * Lock-free: each field is updated atomically on its own.  For a group,
 * events = allowed + denied + cancelled + timeouts + open_errors +
 * overflows + waiting + in_hand when the group's lock is not held.
 *
 * @events: events posted
 * @allowed: answered allow (including those settled by the group's removal)
 * @denied: answered deny
 * @cancelled: withdrawn, queued or in hand, because the opener was killed
 * @timeouts: settled by the group's timeout_action, unanswered in time
 * @open_errors: settled by the group's open_error_action: a worker could
 *		 not open the event's file
 * @overflows: settled by the group's overflow_action because the group
 *	       had max_queue events unsettled: never queued, or taken off the
 *	       queue to make room for a uid holding fewer (close-after-write
 *	       events taken off are allowed: nobody waits for them)
 * @waiting: queued, no worker has them yet
 * @in_hand: read by a worker, not answered yet
 * @readers: open files of the group device
 * @latency_max_us: longest time from the open to an answer
 * @latency: answers per latency bucket
 * @cache_hits: opens answered from a remembered verdict, no event
 * @cache_misses: events posted to a group that has remembered a verdict
 * @cache_invalidations: remembered verdicts dropped because the file
 *			 changed (or may have)
 * @close_writes: close-after-write events posted (also in @events)
 * @close_writes_dropped: close-after-write events never posted: their
 *			  closer's uid had half the group's max_queue in
 *			  close-after-write events unsettled
 */
struct dazukofs_stats {
	atomic64_t events;
	atomic64_t allowed;
	atomic64_t denied;
	atomic64_t cancelled;
	atomic64_t timeouts;
	atomic64_t open_errors;
	atomic64_t overflows;
	atomic_t waiting;
	atomic_t in_hand;
	atomic_t readers;
	atomic64_t latency_max_us;
	atomic64_t latency[DAZUKOFS_LATENCY_BUCKETS];
	atomic64_t cache_hits;
	atomic64_t cache_misses;
	atomic64_t cache_invalidations;
	atomic64_t close_writes;
	atomic64_t close_writes_dropped;
	atomic64_t excluded;
};

/*
 * The counters of all groups together are per CPU, so that opens on
 * different CPUs share no cache line: dazukofs_global_stats is the running
 * CPU's share, updated with the same atomic operations as a group's (a
 * task that migrates meanwhile updates another CPU's share, which is as
 * good).  The sysfs files show the sum over all CPUs, and the largest
 * latency/max_us: exact at rest; while events move, a sum may be off by
 * those in flight (a gauge such as waiting may even read below zero).
 */
DECLARE_PER_CPU(struct dazukofs_stats, dazukofs_global_stats_pcpu);
#define dazukofs_global_stats (*raw_cpu_ptr(&dazukofs_global_stats_pcpu))

/**
 * struct dazukofs_uid_load - one uid's share of a group's queue
 * @node: in the group's @uid_loads, under the group's lock
 * @uid: the opener's (or closer's) own fsuid, &struct dazukofs_event's
 *	 @fsuid
 * @events: its events in the group not settled yet, waiting or in hand:
 *	    incremented under the group's lock, decremented without it
 * @close_writes: those of @events that are close-after-write events (the
 *		  same rules)
 *
 * Freed under the group's lock once idle (@events zero: no gevent points
 * to it), or with the group.
 */
struct dazukofs_uid_load {
	struct hlist_node node;
	kuid_t uid;
	atomic_t events;
	atomic_t close_writes;
};

/* Bits of a group's uid_loads hash: 16 buckets. */
#define DAZUKOFS_UID_LOAD_BITS	4
/* The buckets of a group's index of held events by id: 2^8 = 256. */
#define DAZUKOFS_HELD_BITS	8

/**
 * struct dazukofs_group - a pool of workers that must answer every event
 * @item: the group's configfs directory; its reference count is the
 *	  group's (see group.c)
 * @sysfs_dir: the group's sysfs directory (see sysfs.c)
 * @id: the group's number, N of /dev/dazukofs.N; reused after removal
 * @instance: unique among the groups of this module's lifetime; constant
 * @name: the configfs name
 * @lock: protects @queue, @in_hand, @held, @dead, @armed, @track, @workers,
 *	   @grace, @grace_end and the state, holder and open_tries of each
 *	   queued or held
 *	   &struct dazukofs_gevent
 * @queue: events no worker has taken yet, oldest first
 * @in_hand: events read by a worker and not answered
 * @dead: the group was removed: no new events, readers fail with ENODEV
 * @armed: the group takes part in events: a worker has opened its device
 *	   once, or "1" was written to its armed attribute.  Until then
 *	   events skip it, so that a group nobody could answer yet (its
 *	   daemon died between mkdir and open) holds no open.
 * @track: crash-tracked: a worker's held events go back to the queue when
 *	   its device file is released, and without workers the group is
 *	   inactive (events skip it)
 * @workers: open files of the group device
 * @grace: a grace window is open: the tracked group has no worker but
 *	   stays active until @grace_end (see dazukofs_worker_remove())
 * @grace_end: when the grace window closes (jiffies)
 * @grace_ms: how long a tracked group stays active without workers, 0 to
 *	      go inactive at once (read without the lock)
 * @grace_work: closes the grace window; cancelled, synchronously, by the
 *		group's removal
 * @timeout_ms: how long an event may wait for this group's answer, 0 for
 *		ever (read without the lock when an event is posted)
 * @timeout_action: the verdict for an event not answered in time
 * @open_error_action: the verdict for an event whose file a worker cannot
 *		       open (read without the lock when that happens)
 * @max_queue: the most events the group may have unsettled, waiting or in
 *	       hand; more overflow (read under the lock, written without)
 * @overflow_action: the verdict for an event that overflows (read under
 *		     the lock, written without)
 * @unsettled: the group's events not settled yet, waiting or in hand:
 *	       incremented under the lock when one is posted, decremented
 *	       by dazukofs_settle() without it
 * @uid_loads: each uid's share of @unsettled (&struct dazukofs_uid_load),
 *	       under the lock: a full queue makes room at the expense of
 *	       the uid holding the most (see dazukofs_post())
 * @nr_uid_loads: entries in @uid_loads (lock)
 * @wq: readers waiting for an event
 * @stats: the group's counters
 * @cache_epoch: the epoch of the group's remembered verdicts (see
 *		 verdict.c); a new one forgets them all (read without the lock)
 * @remembers: a worker has asked that a verdict be remembered (misses
 *	       are counted from then on)
 * @events: what makes events for the group, DAZUKOFS_EVENT_* bits (read
 *	    without the lock)
 * @record: the record format its readers get and its writers use,
 *	    DAZUKOFS_RECORD_V1, _V2 or _V3 (read without the lock, once per
 *	    read or write)
 * @busy_poll_us: how long an opener waiting for the group's answer, and a
 *		  reader waiting for an event, spin before they sleep; 0
 *		  never (read without the lock, see dazukofs_busy_poll())
 * @excluded: the cgroups whose processes make no event for the group, or
 *	      NULL for none (RCU; written under cgroup.c's mutex)
 * @node: entry in the RCU list of groups, dazukofs_groups (see group.c)
 * @held: the @in_hand events by event id, for the answer: O(1) with a
 *	  batch of many events held by several workers.  Last: its 2 KiB
 *	  would part @lock from the fields an event's post reads with it
 */
struct dazukofs_group {
	struct config_item item;
	struct kobject *sysfs_dir;
	int id;
	u64 instance;
	char name[DAZUKOFS_GROUP_NAME_MAX + 1];
	spinlock_t lock;	/* see above */
	struct list_head queue;
	struct list_head in_hand;
	bool dead;
	bool armed;
	bool track;
	unsigned int workers;
	bool grace;
	unsigned long grace_end;
	unsigned int grace_ms;
	struct delayed_work grace_work;
	unsigned int timeout_ms;
	int timeout_action;
	int open_error_action;
	unsigned int max_queue;
	int overflow_action;
	atomic_t unsettled;
	DECLARE_HASHTABLE(uid_loads, DAZUKOFS_UID_LOAD_BITS);
	unsigned int nr_uid_loads;
	wait_queue_head_t wq;
	struct dazukofs_stats stats;
	u64 cache_epoch;
	bool remembers;
	unsigned int events;
	unsigned int record;
	unsigned int busy_poll_us;
	struct dazukofs_cgroup_set __rcu *excluded;
	struct list_head node;
	DECLARE_HASHTABLE(held, DAZUKOFS_HELD_BITS);
};

/*
 * What a remembered verdict must match: the lower inode's change counter
 * (0 if it keeps none), its ctime, mtime and size.
 */
struct dazukofs_stamp {
	u64 iversion;
	struct timespec64 ctime;
	struct timespec64 mtime;
	loff_t size;
};

/**
 * struct dazukofs_snapshot - a file as a worker's fd found it
 * @stamp: the file's stamp then
 * @changes: the fsnotify changes counted on the file then
 * @epoch: the group's cache epoch then
 * @valid: a verdict on it may be remembered, if nothing changes
 * @racy: taken in the clock tick of the file's last change, which the
 *	  stamp may then miss, or while a page of the file was pinned for
 *	  I/O: an allow on it is not remembered
 * @deny_only: an open that writes or creates: no mark was made, so
 *	       @changes is not set, and only a deny may be remembered
 */
struct dazukofs_snapshot {
	struct dazukofs_stamp stamp;
	u64 changes;
	u64 epoch;
	bool valid;
	bool racy;
	bool deny_only;
};

struct dazukofs_verdicts;

/* A file's remembered verdicts, held during one open's lookups. */
struct dazukofs_verdict_view {
	struct dazukofs_verdicts *verdicts;
	struct dazukofs_stamp now;
};

enum dazukofs_gevent_state {
	DAZUKOFS_GE_QUEUED,
	DAZUKOFS_GE_IN_HAND,
	DAZUKOFS_GE_DONE,
};

struct dazukofs_event;

/**
 * struct dazukofs_reader - an open file of a group device: a worker
 * @group: the group, referenced for as long as the file is open
 */
struct dazukofs_reader {
	struct dazukofs_group *group;
};

/**
 * struct dazukofs_gevent - an event's place in one group
 * @node: in the group's queue or in_hand list, under the group's lock
 * @held_node: in the group's @held index while in hand (group's lock)
 * @state: where it is, under the group's lock
 * @holder: the worker that read it, while in hand (group's lock)
 * @group: the group; the event holds a reference on it
 * @load: the share of the group's queue it counts in, until settled
 * @event: the event this is part of
 * @deadline: when the group's timeout settles it (jiffies), if @timed
 * @timed: the group had a timeout when the event was posted
 * @timeout_action: the verdict then
 * @open_tries: transient failures to open the file for a worker (group's
 *		lock); at DAZUKOFS_OPEN_TRIES the open error is final
 * @snap: the file as the worker's fd found it (group's lock)
 */
struct dazukofs_gevent {
	struct list_head node;
	struct hlist_node held_node;
	enum dazukofs_gevent_state state;
	struct dazukofs_reader *holder;
	struct dazukofs_group *group;
	struct dazukofs_uid_load *load;
	struct dazukofs_event *event;
	unsigned long deadline;
	bool timed;
	int timeout_action;
	unsigned int open_tries;
	struct dazukofs_snapshot snap;
};

/*
 * Transient failures (ENFILE, ENOMEM, a signal...) to open an event's file
 * for a worker before the group's open_error_action settles it anyway.
 */
#define DAZUKOFS_OPEN_TRIES	5

/**
 * dazukofs_unhold() - a gevent leaves the in-hand state: out of @held too
 * @ge: the gevent, whatever its state; the caller changes the state and
 *	moves or removes @ge->node after this
 *
 * Every change of state away from DAZUKOFS_GE_IN_HAND goes through here,
 * so that dazukofs_answer_event() finds only held events.
 */
static inline void dazukofs_unhold(struct dazukofs_gevent *ge)
{
	lockdep_assert_held(&ge->group->lock);
	if (ge->state == DAZUKOFS_GE_IN_HAND)
		hash_del(&ge->held_node);
}

/* Groups an event has room for without an allocation of its own. */
#define DAZUKOFS_EVENT_INLINE	2

/**
 * struct dazukofs_event - one open waiting for the verdict of every group
 * @ref: the opener's, one per gevent not yet settled, one per reader
 *	  formatting it
 * @id: unique id, as the workers see it
 * @path: the lower file, which a worker's fd opens
 * @pid: the opener (thread group)
 * @uid: the opener's real uid
 * @euid: its effective uid
 * @fsuid: its filesystem uid
 * @cgroup_id: its cgroup v2 id, for format-3 records
 * @type: DAZUKOFS_EVENT_OPEN, _EXEC or _CLOSE_WRITE, for format-2 records
 * @access: the open's DAZUKOFS_ACCESS_* bits, for format-2 records
 * @start: when the open began, for the latency
 * @pending: groups that have not answered
 * @denied: a group denied
 * @close_write: a close-after-write event: nobody waits for it, and a
 *		 deny is remembered
 * @wq: the opener waits here for @pending to reach zero
 * @busy_poll_us: the longest busy_poll_us of the groups it was posted to:
 *		  how long the opener spins before it sleeps
 * @nr: number of groups
 * @ge: the event's place in each group: @ge_inline, or an array of its
 *	own when there were more than DAZUKOFS_EVENT_INLINE groups
 * @ge_inline: room for the usual few groups
 */
struct dazukofs_event {
	refcount_t ref;
	unsigned long id;
	struct path path;
	struct pid *pid;
	kuid_t uid;
	kuid_t euid;
	kuid_t fsuid;
	u64 cgroup_id;
	u8 type;
	u8 access;
	ktime_t start;
	atomic_t pending;
	bool denied;
	bool close_write;
	bool remember;
	wait_queue_head_t wq;
	unsigned int busy_poll_us;
	unsigned int nr;
	struct dazukofs_gevent *ge;
	struct dazukofs_gevent ge_inline[DAZUKOFS_EVENT_INLINE];
};

/* The largest max_queue of a group (the default is in the UAPI header). */
#define DAZUKOFS_MAX_QUEUE_MAX		1048576U

/* group.c: the list of live groups (RCU; see group.c for the rules) */
extern struct list_head dazukofs_groups;
extern unsigned int dazukofs_nr_groups;
DECLARE_STATIC_KEY_FALSE(dazukofs_have_groups);

/* event.c, wait.c, worker.c */
int dazukofs_event_init(void);
void dazukofs_event_exit(void);
int dazukofs_check_access(const struct path *lower_path,
			  const struct file *file);
bool dazukofs_close_write_wanted(void);
void dazukofs_close_write(const struct path *lower_path, bool remember);
struct dazukofs_gevent *dazukofs_take_event(struct dazukofs_reader *reader,
					    bool nonblock);
void dazukofs_worker_add(struct dazukofs_reader *reader);
void dazukofs_worker_remove(struct dazukofs_reader *reader);
void dazukofs_group_set_track(struct dazukofs_group *group, bool track);
void dazukofs_group_arm(struct dazukofs_group *group);
void dazukofs_grace_expire(struct work_struct *work);
bool dazukofs_group_active(const struct dazukofs_group *group);
void dazukofs_return_event(struct dazukofs_gevent *ge);
enum dazukofs_open_outcome {
	DAZUKOFS_OPEN_SETTLED,
	DAZUKOFS_OPEN_GONE,
	DAZUKOFS_OPEN_REQUEUED,
};

enum dazukofs_open_outcome dazukofs_open_failed(struct dazukofs_gevent *ge,
						int err);
void dazukofs_put_event(struct dazukofs_event *event);
int dazukofs_answer_event(struct dazukofs_group *group, unsigned long id,
			  int verdict, bool remember);
void dazukofs_event_snapshot(struct dazukofs_gevent *ge,
			     struct dazukofs_reader *reader);
void dazukofs_drain_group(struct dazukofs_group *group);

/* verdict.c */
int dazukofs_verdict_init(void);
void dazukofs_verdict_exit(void);
u64 dazukofs_new_epoch(void);
void dazukofs_verdict_flush(struct dazukofs_group *group);
void dazukofs_verdict_snapshot(struct dazukofs_group *group,
			       const struct path *lower,
			       struct dazukofs_snapshot *snap, bool deny_only);
bool dazukofs_verdict_store(struct dazukofs_group *group,
			    const struct path *lower,
			    const struct dazukofs_snapshot *snap, int verdict,
			    unsigned int type);
int dazukofs_verdict_mapped_shared(struct inode *inode);
bool dazukofs_verdict_view(const struct path *lower,
			   struct dazukofs_verdict_view *view);
void dazukofs_verdict_unview(struct dazukofs_verdict_view *view);
int dazukofs_verdict_lookup(struct dazukofs_verdict_view *view,
			    struct dazukofs_group *group, unsigned int kind);

/* group.c */
struct dazukofs_group *dazukofs_group_create(const char *name,
					     const struct config_item_type *type);
void dazukofs_group_destroy(struct dazukofs_group *group);
struct dazukofs_group *dazukofs_group_get_by_id(int id);
void dazukofs_group_get(struct dazukofs_group *group);
void dazukofs_group_put(struct dazukofs_group *group);
void dazukofs_group_free(struct dazukofs_group *group);
bool dazukofs_group_name_valid(const char *name);

/* dev.c */
int dazukofs_dev_init(void);
void dazukofs_dev_exit(void);
int dazukofs_dev_add(struct dazukofs_group *group);
void dazukofs_dev_remove(struct dazukofs_group *group);

/* ignore.c */
int dazukofs_ignore_init(void);
void dazukofs_ignore_exit(void);
bool dazukofs_ignored(void);

/* cgroup.c */
struct dazukofs_cgroup_set;
u64 dazukofs_current_cgroup_id(void);
bool dazukofs_cgroup_excluded(const struct dazukofs_group *group);
int dazukofs_exclude_store(struct dazukofs_group *group, const char *page,
			   size_t count);
ssize_t dazukofs_exclude_show(struct dazukofs_group *group, char *page);
void dazukofs_exclude_release(struct dazukofs_group *group);

/* configfs.c */
int dazukofs_configfs_init(void);
void dazukofs_configfs_exit(void);

/* sysfs.c */
int dazukofs_sysfs_init(void);
void dazukofs_sysfs_exit(void);
int dazukofs_sysfs_add_group(struct dazukofs_group *group);
void dazukofs_sysfs_remove_group(struct dazukofs_group *group);
void dazukofs_stats_latency(struct dazukofs_stats *stats, u64 us);

/* super.c */
extern struct file_system_type dazukofs_fs_type;

/* lowerdev.c */
#define DAZUKOFS_WHY_LEN	64
bool dazukofs_lower_changes_unseen(struct super_block *lower_sb, char *why);

/* inode.c */
struct inode *dazukofs_iget(struct super_block *sb, struct inode *lower_inode);
void dazukofs_copy_attr(struct inode *inode);
void dazukofs_copy_flags(struct inode *inode);
struct fileattr;

int dazukofs_permission(dazukofs_idmap_t *idmap, struct inode *inode,
			int mask);
int dazukofs_setattr(dazukofs_idmap_t *idmap, struct dentry *dentry,
		     struct iattr *ia);
int dazukofs_getattr(dazukofs_idmap_t *idmap, const struct path *path,
		     struct kstat *stat, u32 request_mask, unsigned int flags);
int dazukofs_fileattr_get(struct dentry *dentry, struct fileattr *fa);
int dazukofs_fileattr_set(dazukofs_idmap_t *idmap, struct dentry *dentry,
			  struct fileattr *fa);

/* dir.c */
extern const struct inode_operations dazukofs_dir_iops;

/* dentry.c */
extern const struct dentry_operations dazukofs_dops;
extern const struct dentry_operations dazukofs_ci_dops;
bool dazukofs_lower_case_insensitive(const struct dentry *lower);

/* file.c */
/* lock.c */
int dazukofs_lock(struct file *file, int cmd, struct file_lock *fl);
int dazukofs_flock(struct file *file, int cmd, struct file_lock *fl);

extern const struct file_operations dazukofs_file_fops;
extern const struct file_operations dazukofs_dir_fops;

/* xattr.c */
extern const struct xattr_handler *dazukofs_xattr_handlers[];
ssize_t dazukofs_listxattr(struct dentry *dentry, char *list, size_t size);
#ifdef DAZUKOFS_ACL_DENTRY_OPS
struct posix_acl *dazukofs_get_acl(dazukofs_idmap_t *idmap,
				   struct dentry *dentry, int type);
int dazukofs_set_acl(dazukofs_idmap_t *idmap, struct dentry *dentry,
		     struct posix_acl *acl, int type);
#define DAZUKOFS_ACL_IOPS			\
	.get_acl	= dazukofs_get_acl,	\
	.set_acl	= dazukofs_set_acl,
#else
/* ACLs travel as xattrs, through the catch-all xattr handler. */
#define DAZUKOFS_ACL_IOPS
#endif

#endif /* _DAZUKOFS_H */
