/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DAMON sysfs: the monitoring intervals auto-tuning goal directory.
 */
#ifndef _MM_DAMON_SYSFS_INTERVALS_GOAL_H
#define _MM_DAMON_SYSFS_INTERVALS_GOAL_H

#include <linux/damon.h>
#include <linux/kobject.h>

/**
 * struct damon_sysfs_intervals_goal - an ``intervals_goal`` directory
 * @kobj:	its kobject
 * @goal:	the values written to its files, checked when committed
 *
 * Each store writes one field of @goal without a lock, as every DAMON sysfs
 * input file does; @goal is read, under damon_sysfs_lock, only when the
 * configuration is committed, and judged as a whole there.
 */
struct damon_sysfs_intervals_goal {
	struct kobject kobj;
	struct damon_intervals_goal goal;
};

struct damon_sysfs_intervals_goal *
damon_sysfs_intervals_goal_add(struct kobject *parent);
void damon_sysfs_intervals_goal_put(struct damon_sysfs_intervals_goal *g);

#endif /* _MM_DAMON_SYSFS_INTERVALS_GOAL_H */
