// SPDX-License-Identifier: GPL-2.0
/*
 * dazukofs groups in configfs: mkdir /sys/kernel/config/dazukofs/NAME
 * makes a group, rmdir removes it, and its attributes are the group's
 * settings.  To add an attribute, define its show (and store) below and
 * list it in dazukofs_group_attrs.
 */

#include <linux/configfs.h>
#include <linux/ctype.h>
#include <linux/module.h>

#include "dazukofs.h"
#include "protocol.h"

static struct dazukofs_group *to_dazukofs_group(struct config_item *item)
{
	return container_of(item, struct dazukofs_group, item);
}

static ssize_t dazukofs_group_id_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n", to_dazukofs_group(item)->id);
}
CONFIGFS_ATTR_RO(dazukofs_group_, id);

/* What DAZUKOFS_IOC_GROUP_IDENT reports on the device: see the UAPI. */
static ssize_t dazukofs_group_instance_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%llu\n", to_dazukofs_group(item)->instance);
}
CONFIGFS_ATTR_RO(dazukofs_group_, instance);

/*
 * "0" or "1": crash tracking (see dazukofs_worker_remove()).  Default 1:
 * see dazukofs_group_create().
 */
static ssize_t dazukofs_group_track_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n", READ_ONCE(to_dazukofs_group(item)->track));
}

static ssize_t dazukofs_group_track_store(struct config_item *item,
					  const char *page, size_t count)
{
	bool track;

	if (kstrtobool(page, &track) || !(sysfs_streq(page, "0") ||
					  sysfs_streq(page, "1")))
		return -EINVAL;
	dazukofs_group_set_track(to_dazukofs_group(item), track);
	return count;
}
CONFIGFS_ATTR(dazukofs_group_, track);

/*
 * An unsigned attribute of the group, from @min to @max.  Written and read
 * once with WRITE_ONCE/READ_ONCE: its users take no lock, each reads the
 * value once per use.
 */
static ssize_t dazukofs_uint_show(char *page, const unsigned int *value)
{
	return sysfs_emit(page, "%u\n", READ_ONCE(*value));
}

static ssize_t dazukofs_uint_store(unsigned int *value, unsigned int min,
				   unsigned int max, const char *page,
				   size_t count)
{
	unsigned int n;

	if (kstrtouint(page, 10, &n) || n < min || n > max)
		return -EINVAL;
	WRITE_ONCE(*value, n);
	return count;
}

/*
 * Milliseconds an event may wait for this group; 0 waits for ever, at
 * most DAZUKOFS_TIMEOUT_MS_MAX.
 */
static ssize_t dazukofs_group_timeout_ms_show(struct config_item *item,
					      char *page)
{
	return dazukofs_uint_show(page, &to_dazukofs_group(item)->timeout_ms);
}

static ssize_t dazukofs_group_timeout_ms_store(struct config_item *item,
					       const char *page, size_t count)
{
	return dazukofs_uint_store(&to_dazukofs_group(item)->timeout_ms, 0,
				   DAZUKOFS_TIMEOUT_MS_MAX, page, count);
}
CONFIGFS_ATTR(dazukofs_group_, timeout_ms);

/*
 * Milliseconds a tracked group stays active after its last worker left,
 * for a restarted daemon to take over its events; 0 (the default) makes it
 * inactive at once, at most DAZUKOFS_GRACE_MS_MAX.  A change applies from
 * the next window on.
 */
static ssize_t dazukofs_group_grace_ms_show(struct config_item *item,
					    char *page)
{
	return dazukofs_uint_show(page, &to_dazukofs_group(item)->grace_ms);
}

static ssize_t dazukofs_group_grace_ms_store(struct config_item *item,
					     const char *page, size_t count)
{
	return dazukofs_uint_store(&to_dazukofs_group(item)->grace_ms, 0,
				   DAZUKOFS_GRACE_MS_MAX, page, count);
}
CONFIGFS_ATTR(dazukofs_group_, grace_ms);

/*
 * The most events the group may have unsettled, waiting for a worker or in
 * a worker's hands; an event beyond is settled at once by overflow_action
 * (see dazukofs_post()).  1 to DAZUKOFS_MAX_QUEUE_MAX.
 */
static ssize_t dazukofs_group_max_queue_show(struct config_item *item,
					     char *page)
{
	return dazukofs_uint_show(page, &to_dazukofs_group(item)->max_queue);
}

static ssize_t dazukofs_group_max_queue_store(struct config_item *item,
					      const char *page, size_t count)
{
	return dazukofs_uint_store(&to_dazukofs_group(item)->max_queue, 1,
				   DAZUKOFS_MAX_QUEUE_MAX, page, count);
}
CONFIGFS_ATTR(dazukofs_group_, max_queue);

/* An action attribute's value: "allow" or "deny". */
static ssize_t dazukofs_action_show(char *page, const int *action)
{
	return sysfs_emit(page, "%s\n",
			  READ_ONCE(*action) == DAZUKOFS_DENY ?
			  DAZUKOFS_ACTION_NAME_DENY : DAZUKOFS_ACTION_NAME_ALLOW);
}

/* Set an action attribute from "allow" or "deny"; else -EINVAL. */
static ssize_t dazukofs_action_store(int *action, const char *page,
				     size_t count)
{
	if (sysfs_streq(page, DAZUKOFS_ACTION_NAME_ALLOW))
		WRITE_ONCE(*action, DAZUKOFS_ALLOW);
	else if (sysfs_streq(page, DAZUKOFS_ACTION_NAME_DENY))
		WRITE_ONCE(*action, DAZUKOFS_DENY);
	else
		return -EINVAL;
	return count;
}

/* "allow" or "deny": the verdict for an event not answered in time. */
static ssize_t dazukofs_group_timeout_action_show(struct config_item *item,
						  char *page)
{
	return dazukofs_action_show(page,
				    &to_dazukofs_group(item)->timeout_action);
}

static ssize_t dazukofs_group_timeout_action_store(struct config_item *item,
						   const char *page,
						   size_t count)
{
	return dazukofs_action_store(&to_dazukofs_group(item)->timeout_action,
				     page, count);
}
CONFIGFS_ATTR(dazukofs_group_, timeout_action);

/*
 * "allow" or "deny" (the default): the verdict for an event whose file a
 * worker cannot open (see dazukofs_open_failed()).
 */
static ssize_t dazukofs_group_open_error_action_show(struct config_item *item,
						     char *page)
{
	return dazukofs_action_show(page,
				    &to_dazukofs_group(item)->open_error_action);
}

static ssize_t dazukofs_group_open_error_action_store(struct config_item *item,
						      const char *page,
						      size_t count)
{
	return dazukofs_action_store(&to_dazukofs_group(item)->open_error_action,
				     page, count);
}
CONFIGFS_ATTR(dazukofs_group_, open_error_action);

/*
 * "allow" or "deny" (the default): the verdict for an event that finds
 * max_queue events of the group unsettled.
 */
static ssize_t dazukofs_group_overflow_action_show(struct config_item *item,
						   char *page)
{
	return dazukofs_action_show(page,
				    &to_dazukofs_group(item)->overflow_action);
}

static ssize_t dazukofs_group_overflow_action_store(struct config_item *item,
						    const char *page,
						    size_t count)
{
	return dazukofs_action_store(&to_dazukofs_group(item)->overflow_action,
				     page, count);
}
CONFIGFS_ATTR(dazukofs_group_, overflow_action);

/*
 * "0" until the group takes part in events: once a worker opens its
 * device, or "1" is written here (an untracked group's events then queue
 * before any worker, as in 2009; a tracked one stays inactive until a
 * worker comes).  Only "1" may be written: a group cannot be disarmed.
 */
static ssize_t dazukofs_group_armed_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n", READ_ONCE(to_dazukofs_group(item)->armed));
}

static ssize_t dazukofs_group_armed_store(struct config_item *item,
					  const char *page, size_t count)
{
	if (!sysfs_streq(page, "1"))
		return -EINVAL;
	dazukofs_group_arm(to_dazukofs_group(item));
	return count;
}
CONFIGFS_ATTR(dazukofs_group_, armed);

/*
 * Write "1" to forget every verdict the group's workers asked to be
 * remembered (after new signatures, say).  Opens already past the cache
 * keep theirs.
 */
static ssize_t dazukofs_group_flush_store(struct config_item *item,
					  const char *page, size_t count)
{
	if (!sysfs_streq(page, "1"))
		return -EINVAL;
	dazukofs_verdict_flush(to_dazukofs_group(item));
	return count;
}
CONFIGFS_ATTR_WO(dazukofs_group_, flush);

/*
 * What makes events for the group: "open", "exec", "close_write",
 * separated by blanks, at least one.  Default "open".  A change applies
 * to accesses from then on; remembered verdicts stay valid.
 */
static ssize_t dazukofs_group_events_show(struct config_item *item, char *page)
{
	unsigned int events = READ_ONCE(to_dazukofs_group(item)->events);
	unsigned int bit;
	ssize_t len = 0;

	for (bit = 1; bit & DAZUKOFS_EVENT_ALL; bit <<= 1) {
		if (!(events & bit))
			continue;
		len += sysfs_emit_at(page, len, "%s%s", len ? " " : "",
				     dazukofs_proto_event_name(bit));
	}
	len += sysfs_emit_at(page, len, "\n");
	return len;
}

static ssize_t dazukofs_group_events_store(struct config_item *item,
					   const char *page, size_t count)
{
	const char *p = page, *end = page + count;
	unsigned int events = 0;

	for (;;) {
		const char *word;
		unsigned int bit;

		while (p < end && isspace(*p))
			p++;
		if (p == end)
			break;
		word = p;
		while (p < end && *p && !isspace(*p))
			p++;
		bit = dazukofs_proto_event_type(word, p - word);
		if (!bit)
			return -EINVAL;
		events |= bit;
	}
	if (!events)
		return -EINVAL;
	WRITE_ONCE(to_dazukofs_group(item)->events, events);
	return count;
}
CONFIGFS_ATTR(dazukofs_group_, events);

/*
 * The record format of the group's device: "1" (the default, the 2009
 * text, one event per read), "2" (one line per event, with the opener's
 * uids, the access, the file's identity; batched reads and writes) or "3"
 * (format 2 and the opener's cgroup).  A
 * change applies to the next read or write; events in hand may be
 * answered in either format.
 */
static ssize_t dazukofs_group_record_show(struct config_item *item, char *page)
{
	return dazukofs_uint_show(page, &to_dazukofs_group(item)->record);
}

static ssize_t dazukofs_group_record_store(struct config_item *item,
					   const char *page, size_t count)
{
	unsigned int record;

	if (kstrtouint(page, 10, &record) || record < DAZUKOFS_RECORD_V1 ||
	    record > DAZUKOFS_RECORD_V3)
		return -EINVAL;
	WRITE_ONCE(to_dazukofs_group(item)->record, record);
	return count;
}
CONFIGFS_ATTR(dazukofs_group_, record);

/*
 * Microseconds an opener waiting for the group's answer, and a reader
 * waiting for an event, spin before they sleep (see dazukofs_busy_poll());
 * 0 (the default) never, at most DAZUKOFS_BUSY_POLL_US_MAX.  Applies to
 * events posted, and reads begun, from then on.
 */
static ssize_t dazukofs_group_busy_poll_us_show(struct config_item *item,
						char *page)
{
	return dazukofs_uint_show(page, &to_dazukofs_group(item)->busy_poll_us);
}

static ssize_t dazukofs_group_busy_poll_us_store(struct config_item *item,
						 const char *page, size_t count)
{
	return dazukofs_uint_store(&to_dazukofs_group(item)->busy_poll_us, 0,
				   DAZUKOFS_BUSY_POLL_US_MAX, page, count);
}
CONFIGFS_ATTR(dazukofs_group_, busy_poll_us);

/*
 * The cgroups whose processes make no event for the group: see
 * DAZUKOFS_EXCLUDE_CGROUPS_MAX in the UAPI header and cgroup.c.
 */
static ssize_t dazukofs_group_exclude_cgroups_show(struct config_item *item,
						   char *page)
{
	return dazukofs_exclude_show(to_dazukofs_group(item), page);
}

static ssize_t dazukofs_group_exclude_cgroups_store(struct config_item *item,
						    const char *page,
						    size_t count)
{
	int err = dazukofs_exclude_store(to_dazukofs_group(item), page, count);

	return err ? err : count;
}
CONFIGFS_ATTR(dazukofs_group_, exclude_cgroups);

static struct configfs_attribute *dazukofs_group_attrs[] = {
	&dazukofs_group_attr_events,
	&dazukofs_group_attr_record,
	&dazukofs_group_attr_id,
	&dazukofs_group_attr_instance,
	&dazukofs_group_attr_armed,
	&dazukofs_group_attr_track,
	&dazukofs_group_attr_grace_ms,
	&dazukofs_group_attr_timeout_ms,
	&dazukofs_group_attr_timeout_action,
	&dazukofs_group_attr_open_error_action,
	&dazukofs_group_attr_max_queue,
	&dazukofs_group_attr_overflow_action,
	&dazukofs_group_attr_busy_poll_us,
	&dazukofs_group_attr_exclude_cgroups,
	&dazukofs_group_attr_flush,
	NULL,
};

/* The last reference to the group is gone. */
static void dazukofs_group_item_release(struct config_item *item)
{
	dazukofs_group_free(to_dazukofs_group(item));
}

static struct configfs_item_operations dazukofs_group_item_ops = {
	.release	= dazukofs_group_item_release,
};

static const struct config_item_type dazukofs_group_type = {
	.ct_item_ops	= &dazukofs_group_item_ops,
	.ct_attrs	= dazukofs_group_attrs,
	.ct_owner	= THIS_MODULE,
};

static struct config_item *dazukofs_make_group_item(struct config_group *parent,
						    const char *name)
{
	struct dazukofs_group *group;

	if (!dazukofs_group_name_valid(name))
		return ERR_PTR(-EINVAL);
	group = dazukofs_group_create(name, &dazukofs_group_type);
	if (IS_ERR(group))
		return ERR_CAST(group);
	return &group->item;
}

static void dazukofs_drop_group_item(struct config_group *parent,
				     struct config_item *item)
{
	dazukofs_group_destroy(to_dazukofs_group(item));
	config_item_put(item);
}

static struct configfs_group_operations dazukofs_root_group_ops = {
	.make_item	= dazukofs_make_group_item,
	.drop_item	= dazukofs_drop_group_item,
};

static const struct config_item_type dazukofs_root_type = {
	.ct_group_ops	= &dazukofs_root_group_ops,
	.ct_owner	= THIS_MODULE,
};

static struct configfs_subsystem dazukofs_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf	= DAZUKOFS_NAME,
			.ci_type	= &dazukofs_root_type,
		},
	},
};

int dazukofs_configfs_init(void)
{
	config_group_init(&dazukofs_subsys.su_group);
	mutex_init(&dazukofs_subsys.su_mutex);
	return configfs_register_subsystem(&dazukofs_subsys);
}

void dazukofs_configfs_exit(void)
{
	configfs_unregister_subsystem(&dazukofs_subsys);
}
