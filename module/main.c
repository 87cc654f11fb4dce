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
	return register_filesystem(&dazukofs_fs_type);
}

static void __exit dazukofs_exit(void)
{
	unregister_filesystem(&dazukofs_fs_type);
}

module_init(dazukofs_init);
module_exit(dazukofs_exit);

MODULE_DESCRIPTION("DazukoFS: stackable filesystem for on-access file scanning");
MODULE_LICENSE("GPL");
