// SPDX-License-Identifier: GPL-2.0
/*
 * dazukofs dentries: each pins the lower dentry of the same name, and is
 * revalidated against it so that changes made directly in the lower
 * directory show through the mount.
 */

#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/rcupdate.h>
#include <linux/unicode.h>

#include "dazukofs.h"

/*
 * A name as __d_move() may be rewriting it: @len and @name read apart, so
 * that they may belong to two names.  Can @len bytes be read from @name?
 * An inline name is shorter than the inline buffer; an external one is
 * never rewritten, and the walk below stops at its NUL.
 */
static bool dazukofs_name_fits(const struct dentry *dentry,
			       const unsigned char *name, unsigned int len)
{
	return name != dentry->d_iname || len < sizeof(dentry->d_iname);
}

/**
 * dazukofs_same_name() - does the lower dentry carry the dentry's name?
 * @dentry: a dazukofs dentry
 * @lower: its lower dentry
 *
 * No lock: this runs on every path walk through the mount, in RCU mode
 * too.  A rename in either directory rewrites a name in place, under the
 * dentry's d_seq, so the comparison is retried until it read two whole
 * names, as __d_lookup_rcu() does.  A torn read must still stay inside the
 * names: the lengths are checked against the inline buffers, and the walk
 * stops at the first NUL of either (a whole dentry name holds none).
 * External names are freed only after an RCU grace period.
 *
 * Return: true if the two names are the same bytes.
 */
static bool dazukofs_same_name(struct dentry *dentry, struct dentry *lower)
{
	const unsigned char *name, *lower_name;
	unsigned int seq, lower_seq, len, i;
	bool same;

	rcu_read_lock();
	do {
		seq = read_seqcount_begin(&dentry->d_seq);
		lower_seq = read_seqcount_begin(&lower->d_seq);
		name = READ_ONCE(dentry->d_name.name);
		len = READ_ONCE(dentry->d_name.len);
		lower_name = READ_ONCE(lower->d_name.name);
		same = READ_ONCE(lower->d_name.len) == len &&
		       dazukofs_name_fits(dentry, name, len) &&
		       dazukofs_name_fits(lower, lower_name, len);
		for (i = 0; same && i < len; i++) {
			unsigned char c = READ_ONCE(name[i]);

			same = c && READ_ONCE(lower_name[i]) == c;
		}
	} while (read_seqcount_retry(&lower->d_seq, lower_seq) ||
		 read_seqcount_retry(&dentry->d_seq, seq));
	rcu_read_unlock();
	return same;
}

/*
 * Is the lower dentry still what the dazukofs dentry was made from: in the
 * parent's lower directory, under the same name (@ci: the caller compares
 * names the lower's way), with the same inode (or still negative)?  Only
 * cheap loads: this runs on every path walk through the mount, also in RCU
 * mode.
 */
static bool dazukofs_lower_current(struct dentry *dentry, struct dentry *lower,
				   bool ci)
{
	struct dentry *parent = READ_ONCE(dentry->d_parent);
	struct inode *inode = d_inode_rcu(dentry);
	struct inode *lower_inode = d_inode_rcu(lower);

	if (d_unhashed(lower))
		return false;
	if (READ_ONCE(lower->d_parent) != dazukofs_lower_dentry(parent))
		return false;
	if (inode ? lower_inode != dazukofs_lower_inode(inode) : !!lower_inode)
		return false;
	/* A case-insensitive lower's names are compared by the caller. */
	return ci || dazukofs_same_name(dentry, lower);
}

/*
 * The name check of a case-insensitive lower: by the lower's comparison,
 * under the lower dentry's lock (its name is stable there), so never in
 * RCU mode.
 */
static bool dazukofs_same_name_ci(struct dentry *dentry,
				  struct dentry *lower)
{
	bool same;

	if (!(lower->d_flags & DCACHE_OP_COMPARE))
		return dazukofs_same_name(dentry, lower);
	spin_lock(&lower->d_lock);
	same = !lower->d_op->d_compare(lower, lower->d_name.len,
				       lower->d_name.name, &dentry->d_name);
	spin_unlock(&lower->d_lock);
	return same;
}

static int dazukofs_d_revalidate(struct dentry *dentry, unsigned int flags)
{
	struct dentry *lower = dazukofs_lower_dentry(dentry);
	bool ci = dentry->d_flags & DCACHE_OP_COMPARE;
	int valid = 1;

	if (!lower)
		return 0;
	if (IS_ROOT(dentry))
		return 1;
	if (!dazukofs_lower_current(dentry, lower, ci))
		return 0;
	/* The same spelling needs no lock; another one leaves RCU mode. */
	if (ci && !dazukofs_same_name(dentry, lower)) {
		if (flags & LOOKUP_RCU)
			return -ECHILD;
		if (!dazukofs_same_name_ci(dentry, lower))
			return 0;
	}
	if (lower->d_flags & DCACHE_OP_REVALIDATE)
		valid = lower->d_op->d_revalidate(lower, flags);
	if (valid > 0 && !(flags & LOOKUP_RCU) && d_really_is_positive(dentry))
		dazukofs_copy_attr(d_inode(dentry));
	return valid;
}

static int dazukofs_d_weak_revalidate(struct dentry *dentry,
				      unsigned int flags)
{
	struct dentry *lower = dazukofs_lower_dentry(dentry);

	if (lower && (lower->d_flags & DCACHE_OP_WEAK_REVALIDATE))
		return lower->d_op->d_weak_revalidate(lower, flags);
	return 1;
}

static void dazukofs_d_release(struct dentry *dentry)
{
	dput(dentry->d_fsdata);
}

const struct dentry_operations dazukofs_dops = {
	.d_revalidate		= dazukofs_d_revalidate,
	.d_weak_revalidate	= dazukofs_d_weak_revalidate,
	.d_release		= dazukofs_d_release,
};

/*
 * A case-insensitive lower (vfat, exfat, casefold directories of ext4 and
 * others) finds one file under every spelling of its name.  Matching names
 * exactly, the dazukofs dentry cache would keep one dentry per spelling,
 * each failing revalidation against the lower's name at every walk, and a
 * directory's dentry would move between spellings.  On such a lower, names
 * are hashed and compared by the lower directory's own operations
 * (@dentry is the directory for d_hash, the candidate for d_compare; the
 * lower ones are pinned by ours, so RCU mode may use them).
 */
static int dazukofs_d_hash(const struct dentry *dentry, struct qstr *name)
{
	const struct dentry *lower = dazukofs_lower_dentry(dentry);

	if (!lower)
		return 0;
	if (lower->d_flags & DCACHE_OP_HASH)
		return lower->d_op->d_hash(lower, name);
#if IS_ENABLED(CONFIG_UNICODE)
	/*
	 * 6.1's ext4 sets its dentry operations at lookup only, so the root
	 * and reconnected directories have none: hash as it would.
	 */
	if (lower->d_sb->s_encoding) {
		const struct inode *lower_dir = d_inode_rcu(lower);

		if (lower_dir && IS_CASEFOLDED(lower_dir))
			return utf8_casefold_hash(lower->d_sb->s_encoding,
						  lower, name);
	}
#endif
	return 0;
}

static int dazukofs_d_compare(const struct dentry *dentry, unsigned int len,
			      const char *str, const struct qstr *name)
{
	const struct dentry *lower = dazukofs_lower_dentry(dentry);

	if (lower && (lower->d_flags & DCACHE_OP_COMPARE))
		return lower->d_op->d_compare(lower, len, str, name);
	return len != name->len || memcmp(str, name->name, len);
}

const struct dentry_operations dazukofs_ci_dops = {
	.d_revalidate		= dazukofs_d_revalidate,
	.d_weak_revalidate	= dazukofs_d_weak_revalidate,
	.d_hash			= dazukofs_d_hash,
	.d_compare		= dazukofs_d_compare,
	.d_release		= dazukofs_d_release,
};

/**
 * dazukofs_lower_case_insensitive() - does the lower match names its own way?
 * @lower: the lower directory a dazukofs mount stacks on
 *
 * Return: true if its dentries hash or compare names themselves (vfat,
 * exfat) or its filesystem has an encoding for casefold directories.
 */
bool dazukofs_lower_case_insensitive(const struct dentry *lower)
{
#if IS_ENABLED(CONFIG_UNICODE)
	if (lower->d_sb->s_encoding)
		return true;
#endif
	return lower->d_flags & (DCACHE_OP_HASH | DCACHE_OP_COMPARE);
}
