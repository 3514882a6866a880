// SPDX-License-Identifier: GPL-2.0
/*
 * DAMON sysfs: monitoring_attrs/intervals/intervals_goal/, the goal of the
 * monitoring intervals auto-tuning (&struct damon_intervals_goal).
 *
 * Each file takes any unsigned number but access_bp, which takes at most
 * 10000: damo writes all four files, zero included, also when the tuning is
 * off.  Whether the four make a valid goal is checked when the kdamond is
 * turned on or committed.
 */

#include <linux/kstrtox.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "sysfs-intervals-goal.h"

static struct damon_intervals_goal *to_goal(struct kobject *kobj)
{
	return &container_of(kobj, struct damon_sysfs_intervals_goal,
			     kobj)->goal;
}

static ssize_t damon_sysfs_igoal_show(unsigned long v, char *buf)
{
	return sysfs_emit(buf, "%lu\n", v);
}

static ssize_t damon_sysfs_igoal_store(unsigned long *v, unsigned long max,
				       const char *buf, size_t count)
{
	unsigned long nr;
	int err = kstrtoul(buf, 0, &nr);

	if (err)
		return err;
	if (nr > max)
		return -EINVAL;
	*v = nr;
	return count;
}

static ssize_t access_bp_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	return damon_sysfs_igoal_show(to_goal(kobj)->access_bp, buf);
}

static ssize_t access_bp_store(struct kobject *kobj,
			       struct kobj_attribute *attr, const char *buf,
			       size_t count)
{
	return damon_sysfs_igoal_store(&to_goal(kobj)->access_bp, 10000, buf,
				       count);
}

static ssize_t aggrs_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	return damon_sysfs_igoal_show(to_goal(kobj)->aggrs, buf);
}

static ssize_t aggrs_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	return damon_sysfs_igoal_store(&to_goal(kobj)->aggrs, ULONG_MAX, buf,
				       count);
}

static ssize_t min_sample_us_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	return damon_sysfs_igoal_show(to_goal(kobj)->min_sample_us, buf);
}

static ssize_t min_sample_us_store(struct kobject *kobj,
				   struct kobj_attribute *attr,
				   const char *buf, size_t count)
{
	return damon_sysfs_igoal_store(&to_goal(kobj)->min_sample_us,
				       ULONG_MAX, buf, count);
}

static ssize_t max_sample_us_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	return damon_sysfs_igoal_show(to_goal(kobj)->max_sample_us, buf);
}

static ssize_t max_sample_us_store(struct kobject *kobj,
				   struct kobj_attribute *attr,
				   const char *buf, size_t count)
{
	return damon_sysfs_igoal_store(&to_goal(kobj)->max_sample_us,
				       ULONG_MAX, buf, count);
}

static void damon_sysfs_intervals_goal_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct damon_sysfs_intervals_goal, kobj));
}

static struct kobj_attribute damon_sysfs_igoal_access_bp_attr =
		__ATTR_RW_MODE(access_bp, 0600);

static struct kobj_attribute damon_sysfs_igoal_aggrs_attr =
		__ATTR_RW_MODE(aggrs, 0600);

static struct kobj_attribute damon_sysfs_igoal_min_sample_us_attr =
		__ATTR_RW_MODE(min_sample_us, 0600);

static struct kobj_attribute damon_sysfs_igoal_max_sample_us_attr =
		__ATTR_RW_MODE(max_sample_us, 0600);

static struct attribute *damon_sysfs_intervals_goal_attrs[] = {
	&damon_sysfs_igoal_access_bp_attr.attr,
	&damon_sysfs_igoal_aggrs_attr.attr,
	&damon_sysfs_igoal_min_sample_us_attr.attr,
	&damon_sysfs_igoal_max_sample_us_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(damon_sysfs_intervals_goal);

static const struct kobj_type damon_sysfs_intervals_goal_ktype = {
	.release = damon_sysfs_intervals_goal_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = damon_sysfs_intervals_goal_groups,
};

/**
 * damon_sysfs_intervals_goal_add() - create an ``intervals_goal`` directory
 * @parent:	the ``intervals`` directory's kobject
 *
 * The goal starts off (all zero).
 *
 * Return: the directory, or NULL on allocation failure.
 */
struct damon_sysfs_intervals_goal *
damon_sysfs_intervals_goal_add(struct kobject *parent)
{
	struct damon_sysfs_intervals_goal *g = kzalloc(sizeof(*g), GFP_KERNEL);

	if (!g)
		return NULL;
	if (kobject_init_and_add(&g->kobj, &damon_sysfs_intervals_goal_ktype,
				 parent, "intervals_goal")) {
		kobject_put(&g->kobj);
		return NULL;
	}
	return g;
}

/**
 * damon_sysfs_intervals_goal_put() - remove an ``intervals_goal`` directory
 * @g:	the directory, or NULL
 */
void damon_sysfs_intervals_goal_put(struct damon_sysfs_intervals_goal *g)
{
	if (g)
		kobject_put(&g->kobj);
}
