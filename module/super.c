// SPDX-License-Identifier: GPL-2.0
/*
 * dazukofs superblock: mounting over a lower directory and the
 * superblock-wide operations.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/fs_parser.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/statfs.h>
#include <linux/seq_file.h>

#include "dazukofs.h"

static void dazukofs_evict_inode(struct inode *inode)
{
	struct inode *lower_inode = dazukofs_lower_inode(inode);

	truncate_inode_pages_final(&inode->i_data);
	clear_inode(inode);
	iput(lower_inode);
}

static int dazukofs_statfs(struct dentry *dentry, struct kstatfs *buf)
{
	struct path lower;
	int err;

	dazukofs_lower_path(dentry, &lower);
	err = vfs_statfs(&lower, buf);
	if (!err)
		buf->f_type = DAZUKOFS_SUPER_MAGIC;
	return err;
}

/**
 * dazukofs_sync_fs() - make syncfs() on the mount reach the lower's data
 * @sb: the dazukofs superblock, s_umount held by the caller
 * @wait: 0 for the first, non-waiting pass of sync_filesystem()
 *
 * Dirty data lives in the lower filesystem's page cache only, so syncing
 * the mount means syncing the lower superblock (as overlayfs does for its
 * upper).  sync(2) and emergency syncs skip dazukofs (SB_I_SKIP_SYNC):
 * they walk every superblock anyway, the lower's included.  Lock order:
 * the dazukofs s_umount, then the lower's.
 *
 * Return: 0 or the lower's sync error.
 */
static int dazukofs_sync_fs(struct super_block *sb, int wait)
{
	struct super_block *lower_sb = dazukofs_lower_mnt(sb)->mnt_sb;
	int err;

	if (!wait)
		return 0;
	down_read(&lower_sb->s_umount);
	err = sync_filesystem(lower_sb);
	up_read(&lower_sb->s_umount);
	return err;
}

/* Indexed by enum dazukofs_remember, too (dazukofs_show_options()). */
static const struct constant_table dazukofs_remember_values[] = {
	{ "auto",	DAZUKOFS_REMEMBER_AUTO },
	{ "off",	DAZUKOFS_REMEMBER_OFF },
	{ "on",		DAZUKOFS_REMEMBER_ON },
	{}
};

static int dazukofs_show_options(struct seq_file *m, struct dentry *root)
{
	u8 opt = READ_ONCE(dazukofs_sb(root->d_sb)->remember_opt);

	/* The source shows as the mount's device; the default, auto, not. */
	if (opt != DAZUKOFS_REMEMBER_AUTO)
		seq_printf(m, ",remember=%s", dazukofs_remember_values[opt].name);
	return 0;
}

static const struct super_operations dazukofs_sops = {
	.statfs		= dazukofs_statfs,
	.sync_fs	= dazukofs_sync_fs,
	/*
	 * An unused dazukofs inode pins its lower inode; keeping it cached
	 * would keep an unlinked lower file's blocks allocated.
	 */
	.drop_inode	= generic_delete_inode,
	.evict_inode	= dazukofs_evict_inode,
	.show_options	= dazukofs_show_options,
};

/**
 * dazukofs_resolve_lower() - find and check the directory to stack on
 * @fc: the mount's context; fc->source names the lower directory
 * @lower: set to the lower directory, with a reference, on success
 *
 * Each refusal logs one line that says why.
 *
 * Return: 0 or a negative errno (ENOENT, ENOTDIR, EINVAL, ...).
 */
static int dazukofs_resolve_lower(struct fs_context *fc, struct path *lower)
{
	struct super_block *lower_sb;
	struct path path;
	int err;

	if (!fc->source || !*fc->source)
		return invalfc(fc, "no lower directory given");

	err = kern_path(fc->source, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &path);
	if (err) {
		errorfc(fc, "cannot use %s as lower directory: error %d",
			fc->source, err);
		return err;
	}

	lower_sb = path.dentry->d_sb;
	if (lower_sb->s_type == &dazukofs_fs_type) {
		errorfc(fc, "%s is on dazukofs: stacking on itself is refused",
			fc->source);
		err = -EINVAL;
	} else if (lower_sb->s_stack_depth >= FILESYSTEM_MAX_STACK_DEPTH) {
		errorfc(fc, "%s is stacked too deep already", fc->source);
		err = -EINVAL;
	}
	if (err)
		path_put(&path);
	else
		*lower = path;
	return err;
}

/* The mount options being parsed, for a new mount or a remount. */
struct dazukofs_fs_context {
	u8 remember;
	bool remember_set;
};

enum { DAZUKOFS_OPT_REMEMBER };

static const struct fs_parameter_spec dazukofs_fs_parameters[] = {
	fsparam_enum("remember", DAZUKOFS_OPT_REMEMBER,
		     dazukofs_remember_values),
	{}
};

/*
 * To the kernel log, not only the mount's fs_context log, which only the
 * mounter may read, and mount(8) shows only on failure.
 */
static void dazukofs_log_not_remembered(const struct path *lower,
					const char *why)
{
	char *buf = __getname();
	char *name = buf ? d_path(lower, buf, PATH_MAX) : ERR_PTR(-ENOMEM);

	pr_info("%s is on %s, which can change unseen: verdicts are not remembered (remember=on overrides)\n",
		IS_ERR(name) ? "a lower" : name, why);
	if (buf)
		__putname(buf);
}

/**
 * dazukofs_apply_remember() - decide whether the mount remembers verdicts
 * @sb: the dazukofs superblock, new or being remounted (s_umount held)
 * @fc: the mount's options
 *
 * remember=auto remembers unless the lower's bytes may change where the
 * kernel cannot see it (dazukofs_lower_changes_unseen()); it says so in
 * the log, once per mount.  Verdicts already remembered stay on the lower
 * files, for other mounts: a mount that does not remember neither uses
 * nor stores them.
 */
static void dazukofs_apply_remember(struct super_block *sb,
				    struct fs_context *fc)
{
	struct dazukofs_fs_context *ctx = fc->fs_private;
	struct dazukofs_sb_info *sbi = dazukofs_sb(sb);
	char why[DAZUKOFS_WHY_LEN];
	bool remember;

	if (fc->purpose == FS_CONTEXT_FOR_RECONFIGURE && !ctx->remember_set)
		return;
	WRITE_ONCE(sbi->remember_opt, ctx->remember);
	switch (ctx->remember) {
	case DAZUKOFS_REMEMBER_ON:
		remember = true;
		break;
	case DAZUKOFS_REMEMBER_OFF:
		remember = false;
		break;
	default:
		remember = !dazukofs_lower_changes_unseen(sbi->lower.dentry->d_sb,
							  why);
		if (!remember)
			dazukofs_log_not_remembered(&sbi->lower, why);
	}
	WRITE_ONCE(sbi->remember, remember);
}

static int dazukofs_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct dazukofs_sb_info *sbi;
	struct super_block *lower_sb;
	struct inode *root_inode;
	int err;

	sbi = kzalloc(sizeof(*sbi), GFP_KERNEL);
	if (!sbi)
		return -ENOMEM;
	sb->s_fs_info = sbi;

	err = dazukofs_resolve_lower(fc, &sbi->lower);
	if (err)
		return err;
	lower_sb = sbi->lower.dentry->d_sb;
	dazukofs_apply_remember(sb, fc);

	/* Never grant through the mount what the lower mount refuses. */
	if ((sbi->lower.mnt->mnt_flags & MNT_NOEXEC) ||
	    (lower_sb->s_iflags & SB_I_NOEXEC))
		sb->s_iflags |= SB_I_NOEXEC;
	if ((sbi->lower.mnt->mnt_flags & MNT_NODEV) ||
	    (lower_sb->s_iflags & SB_I_NODEV))
		sb->s_iflags |= SB_I_NODEV;

	sb->s_stack_depth = lower_sb->s_stack_depth + 1;
	sb->s_maxbytes = lower_sb->s_maxbytes;
	sb->s_blocksize = lower_sb->s_blocksize;
	sb->s_blocksize_bits = lower_sb->s_blocksize_bits;
	sb->s_time_gran = lower_sb->s_time_gran;
	sb->s_flags |= lower_sb->s_flags & SB_POSIXACL;
	sb->s_iflags |= SB_I_SKIP_SYNC;
	/*
	 * IMA keeps its verdict on a file by the dazukofs inode and learns of
	 * changes only from writers of that inode: a change made directly in
	 * the lower directory would leave a stale measurement or appraisal.
	 * As for FUSE, IMA measures and appraises such files again at each
	 * access (and a policy that fails unverifiable signatures fails them).
	 * overlayfs tells IMA of its real inode through ->d_real instead, but
	 * that would refuse a dazukofs mount as overlayfs's upper layer, and
	 * 6.1's IMA compares the real inode's counter with the stacked one's.
	 */
	sb->s_iflags |= SB_I_IMA_UNVERIFIABLE_SIGNATURE;
	sb->s_magic = DAZUKOFS_SUPER_MAGIC;
	sb->s_op = &dazukofs_sops;
	sb->s_xattr = dazukofs_xattr_handlers;
	sb->s_d_op = dazukofs_lower_case_insensitive(sbi->lower.dentry) ?
		     &dazukofs_ci_dops : &dazukofs_dops;

	root_inode = dazukofs_iget(sb, d_inode(sbi->lower.dentry));
	if (IS_ERR(root_inode))
		return PTR_ERR(root_inode);
	sb->s_root = d_make_root(root_inode);
	if (!sb->s_root)
		return -ENOMEM;
	sb->s_root->d_fsdata = dget(sbi->lower.dentry);
	return 0;
}

static int dazukofs_get_tree(struct fs_context *fc)
{
	return get_tree_nodev(fc, dazukofs_fill_super);
}

/*
 * remember= is the only option.  For anything else -ENOPARAM lets the VFS
 * take the source and refuse the rest with "Unknown parameter".
 */
static int dazukofs_parse_param(struct fs_context *fc,
				struct fs_parameter *param)
{
	struct dazukofs_fs_context *ctx = fc->fs_private;
	struct fs_parse_result result;
	int opt;

	opt = fs_parse(fc, dazukofs_fs_parameters, param, &result);
	if (opt < 0)
		return opt;
	if (opt == DAZUKOFS_OPT_REMEMBER) {
		ctx->remember = result.uint_32;
		ctx->remember_set = true;
	}
	return 0;
}

static int dazukofs_reconfigure(struct fs_context *fc)
{
	dazukofs_apply_remember(fc->root->d_sb, fc);
	return 0;
}

static void dazukofs_free_fc(struct fs_context *fc)
{
	kfree(fc->fs_private);
}

static const struct fs_context_operations dazukofs_context_ops = {
	.free		= dazukofs_free_fc,
	.parse_param	= dazukofs_parse_param,
	.get_tree	= dazukofs_get_tree,
	.reconfigure	= dazukofs_reconfigure,
};

static int dazukofs_init_fs_context(struct fs_context *fc)
{
	struct dazukofs_fs_context *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->remember = DAZUKOFS_REMEMBER_AUTO;
	fc->fs_private = ctx;
	fc->ops = &dazukofs_context_ops;
	return 0;
}

static void dazukofs_kill_sb(struct super_block *sb)
{
	struct dazukofs_sb_info *sbi = dazukofs_sb(sb);

	kill_anon_super(sb);
	if (sbi) {
		path_put(&sbi->lower);
		kfree(sbi);
	}
}

struct file_system_type dazukofs_fs_type = {
	.owner			= THIS_MODULE,
	.name			= DAZUKOFS_NAME,
	.init_fs_context	= dazukofs_init_fs_context,
	.parameters		= dazukofs_fs_parameters,
	.kill_sb		= dazukofs_kill_sb,
};
MODULE_ALIAS_FS(DAZUKOFS_NAME);
