// SPDX-License-Identifier: GPL-2.0
/*
 * DAMOS quota goal metrics on a NUMA node's memory: node_mem_used_bp and
 * node_mem_free_bp, the used and free memory of goal->nid in basis points
 * (1/10000) of the node's total memory.
 *
 * They let a scheme aim at a node's utilization: e.g. demote cold pages
 * from a DRAM node until 0.5% of it is free, or promote hot pages to it
 * until it is 99.7% used, with the quota auto-tuner finding the speed.
 *
 * node_memcg_used_bp and node_memcg_free_bp do the same for one cgroup's
 * share of the node: the cgroup's LRU pages on the node, and the rest of
 * the node, in basis points of the node's total memory.
 * Their cgroup, as memcg filters', is named by path and held by id.
 */

#include <linux/damon.h>
#include <linux/math64.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/string.h>

/**
 * damos_node_mem_bp_of() - used or free share of a memory size, in bp
 * @total:	total size (any unit)
 * @free:	free part of @total, same unit
 * @used:	true for the used share, false for the free share
 *
 * Exact up to 2^50 units of @total, more than any machine's pages.
 *
 * Return: the share in basis points, or 0 if @total is 0.
 */
unsigned long damos_node_mem_bp_of(unsigned long total, unsigned long free,
				   bool used)
{
	unsigned long part;

	if (!total)
		return 0;
	free = min(free, total);
	part = used ? total - free : free;
	/*
	 * In 64 bits: part * 10000 overflows 32 bits from 430k pages, and
	 * no machine has the 2^50 pages it would take to overflow 64.
	 */
	return div64_u64((u64)part * 10000, total);
}

/**
 * damos_node_meminfo() - total and free memory of a node
 * @nid:	the node, which has memory
 * @i:		filled in (totalram and freeram, in pages)
 *
 * Without CONFIG_NUMA the only node is the whole machine.
 */
void damos_node_meminfo(int nid, struct sysinfo *i)
{
#ifdef CONFIG_NUMA
	si_meminfo_node(i, nid);
#else
	si_meminfo(i);
#endif
}

/**
 * damos_node_mem_bp() - current value of a node_mem_{used,free}_bp goal
 * @nid:	node of the goal
 * @used:	true for node_mem_used_bp, false for node_mem_free_bp
 *
 * A node that cannot be measured (out of range, offline, or without
 * memory) reads as unused: 0 used, 10000 free.  Without CONFIG_NUMA both
 * metrics read 0.  These are mainline's values, which DAMON users of other
 * kernels expect.
 *
 * Return: the metric's current value in basis points.
 */
unsigned long damos_node_mem_bp(int nid, bool used)
{
	struct sysinfo i;

	if (!IS_ENABLED(CONFIG_NUMA))
		return 0;
	if (nid < 0 || nid >= MAX_NUMNODES || !node_state(nid, N_MEMORY))
		return used ? 0 : 10000;
	damos_node_meminfo(nid, &i);
	/* All of a node's memory can be reserved: nothing to measure. */
	if (!i.totalram)
		return used ? 0 : 10000;
	return damos_node_mem_bp_of(i.totalram, i.freeram, used);
}

/**
 * damos_node_memcg_bp() - current value of a node_memcg_{used,free}_bp goal
 * @nid:	node of the goal
 * @memcg_id:	cgroup of the goal (mem_cgroup_id())
 * @used:	true for node_memcg_used_bp, false for node_memcg_free_bp
 *
 * The cgroup's memory on the node is its anonymous and file LRU pages
 * there, its descendants' included, as memory.numa_stat counts them; the
 * free share is the rest of the node, memory of other cgroups included.
 * A node without memory or a cgroup that is gone reads as unused: 0 used,
 * 10000 free.  Without CONFIG_NUMA both metrics read 0, as
 * damos_node_mem_bp() does.
 *
 * Return: the metric's current value in basis points.
 */
unsigned long damos_node_memcg_bp(int nid, unsigned short memcg_id,
				  bool used)
{
#ifdef CONFIG_MEMCG
	struct mem_cgroup *memcg;
	unsigned long pages;
	struct lruvec *lruvec;
	struct sysinfo i;

	if (!IS_ENABLED(CONFIG_NUMA))
		return 0;
	if (nid < 0 || nid >= MAX_NUMNODES || !node_state(nid, N_MEMORY))
		goto unused;
	rcu_read_lock();
	memcg = mem_cgroup_from_id(memcg_id);
	if (memcg && !mem_cgroup_tryget(memcg))
		memcg = NULL;
	rcu_read_unlock();
	if (!memcg)
		goto unused;
	mem_cgroup_flush_stats(memcg);
	lruvec = mem_cgroup_lruvec(memcg, NODE_DATA(nid));
	pages = lruvec_page_state(lruvec, NR_ACTIVE_ANON) +
		lruvec_page_state(lruvec, NR_INACTIVE_ANON) +
		lruvec_page_state(lruvec, NR_ACTIVE_FILE) +
		lruvec_page_state(lruvec, NR_INACTIVE_FILE);
	mem_cgroup_put(memcg);
	damos_node_meminfo(nid, &i);
	if (!i.totalram)
		goto unused;
	return damos_node_mem_bp_of(i.totalram,
				    i.totalram - min(pages, i.totalram), used);
unused:
#endif
	return used ? 0 : 10000;
}

/**
 * damon_memcg_path_to_id() - the memory cgroup of a path
 * @path:	path from the cgroup2 mount point, e.g. "/workload"; a
 *		trailing newline is ignored
 * @id:		set to the cgroup's mem_cgroup_id() if found
 *
 * For DAMOS memcg filters and node_memcg goals, which hold cgroups by id.
 * Cgroups being removed are skipped.
 *
 * Return: 0, -EINVAL if @path is NULL or no memory cgroup has it, or
 * -ENOMEM.
 */
int damon_memcg_path_to_id(const char *path, unsigned short *id)
{
	struct mem_cgroup *memcg;
	bool found = false;
	char *buf;

	if (!path)
		return -EINVAL;
	buf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (memcg = mem_cgroup_iter(NULL, NULL, NULL); memcg;
	     memcg = mem_cgroup_iter(NULL, memcg, NULL)) {
		if (!mem_cgroup_id(memcg))
			continue;
#ifdef CONFIG_MEMCG
		cgroup_path(memcg->css.cgroup, buf, PATH_MAX);
		found = sysfs_streq(buf, path);
#endif
		if (found) {
			*id = mem_cgroup_id(memcg);
			mem_cgroup_iter_break(NULL, memcg);
			break;
		}
	}
	kfree(buf);
	return found ? 0 : -EINVAL;
}

#include "tests/node_mem_goal-kunit.h"
