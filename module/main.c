// SPDX-License-Identifier: GPL-2.0
/*
 * dazukofs: a stackable filesystem for on-access file scanning.
 * Module initialisation and teardown.
 */

#include <linux/fs.h>
#include <linux/module.h>

#include "dazukofs.h"

static int __init dazukofs_init(void)
{
	int err;

	err = dazukofs_backing_init();
	if (err)
		return err;
	err = dazukofs_event_init();
	if (err)
		goto out_backing;
	err = dazukofs_verdict_init();
	if (err)
		goto out_event;
	err = dazukofs_sysfs_init();
	if (err)
		goto out_verdict;
	err = dazukofs_dev_init();
	if (err)
		goto out_sysfs;
	err = dazukofs_ignore_init();
	if (err)
		goto out_dev;
	err = dazukofs_configfs_init();
	if (err)
		goto out_ignore;
	err = register_filesystem(&dazukofs_fs_type);
	if (err)
		goto out_configfs;
	return 0;

out_configfs:
	dazukofs_configfs_exit();
out_ignore:
	dazukofs_ignore_exit();
out_dev:
	dazukofs_dev_exit();
out_sysfs:
	dazukofs_sysfs_exit();
out_verdict:
	dazukofs_verdict_exit();
out_event:
	dazukofs_event_exit();
out_backing:
	dazukofs_backing_exit();
	return err;
}

/* configfs pins the module while a group exists, so none is left here. */
static void __exit dazukofs_exit(void)
{
	unregister_filesystem(&dazukofs_fs_type);
	dazukofs_configfs_exit();
	dazukofs_ignore_exit();
	dazukofs_dev_exit();
	dazukofs_sysfs_exit();
	dazukofs_verdict_exit();
	dazukofs_event_exit();
	dazukofs_backing_exit();
}

module_init(dazukofs_init);
module_exit(dazukofs_exit);

MODULE_DESCRIPTION("DazukoFS: stackable filesystem for on-access file scanning");
MODULE_LICENSE("GPL");
