// SPDX-License-Identifier: GPL-2.0
/* placeholder, replaced by the real module */
#include <linux/module.h>
static int __init dazukofs_init(void) { return 0; }
static void __exit dazukofs_exit(void) { }
module_init(dazukofs_init);
module_exit(dazukofs_exit);
MODULE_LICENSE("GPL");
