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
 *
 * node_mem_headroom_bp is the node's free memory above what the page
 * allocator keeps for itself: the room migrations into the node can use.
 * Since every such metric is a share of one node's memory, the "gap" goal
 * tuner turns the distance to its target into bytes.
 */

#include <linux/damon.h>
#include <linux/math64.h>
#include <linux/memory_hotplug.h>
#include <linux/mmzone.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ops-common.h"

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

#ifdef CONFIG_MEMCG
/*
 * The memory cgroup of cgroup id @id, with a reference; NULL if it is gone
 * or has no memory controller of its own any more (its parent's is not
 * it).  cgroup_get_from_id() knows the cgroup2 hierarchy only: with the
 * memory controller on a v1 hierarchy, whose ids can be a v2 cgroup's too,
 * look among the memory cgroups.
 */
static struct mem_cgroup *damon_memcg_get(u64 id)
{
	struct cgroup_subsys_state *css;
	struct mem_cgroup *memcg;
	struct cgroup *cgrp;

	if (!cgroup_subsys_on_dfl(memory_cgrp_subsys)) {
		for (memcg = mem_cgroup_iter(NULL, NULL, NULL); memcg;
		     memcg = mem_cgroup_iter(NULL, memcg, NULL)) {
			if (damon_memcg_id(memcg) == id &&
			    mem_cgroup_tryget(memcg)) {
				mem_cgroup_iter_break(NULL, memcg);
				return memcg;
			}
		}
		return NULL;
	}
	cgrp = cgroup_get_from_id(id);
	if (IS_ERR(cgrp))
		return NULL;
	css = cgroup_get_e_css(cgrp, &memory_cgrp_subsys);
	if (css && css->cgroup != cgrp) {
		css_put(css);
		css = NULL;
	}
	cgroup_put(cgrp);
	return css ? mem_cgroup_from_css(css) : NULL;
}
#endif

/**
 * damos_node_memcg_bp() - current value of a node_memcg_{used,free}_bp goal
 * @nid:	node of the goal
 * @memcg_id:	cgroup of the goal (its cgroup_id())
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
unsigned long damos_node_memcg_bp(int nid, u64 memcg_id, bool used)
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
	memcg = damon_memcg_get(memcg_id);
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
 * damos_node_room_pages() - free pages of a node that migrations into it can use
 * @nid:	the node, which has memory
 *
 * Each zone's free pages above its reserve for movable allocations (its high
 * watermark, boost included, what it keeps back from allocations that could
 * use higher zones, and its high-order atomic reserve), and the free pages on
 * this CPU's lists of the
 * zone, which a migration running here allocates first, once the zone is
 * above its watermarks: where the pages a migration out of the node just
 * freed wait.  Other CPUs' lists are not counted, as the allocator's
 * watermark checks do not count them.  Under the memory hotplug lock, which
 * keeps the lists from being freed.
 *
 * Return: the number of pages.
 */
unsigned long damos_node_room_pages(int nid)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	unsigned long pages = 0, free, reserve;
	int z;

	/*
	 * May wait for a whole memory offline; the caller holds no isolated
	 * folio.  The CPU may change under us: the count is a hint.
	 */
	get_online_mems();
	for (z = 0; z < MAX_NR_ZONES; z++) {
		struct zone *zone = &pgdat->node_zones[z];

		if (!managed_zone(zone))
			continue;
		free = zone_page_state(zone, NR_FREE_PAGES);
		/* As migrate_balanced_pgdat() has zone_watermark_ok() see it. */
		reserve = high_wmark_pages(zone) +
			zone->lowmem_reserve[ZONE_MOVABLE] +
			READ_ONCE(zone->nr_reserved_highatomic);
		/* Below its watermarks, the allocator skips the zone. */
		if (free <= reserve)
			continue;
		pages += free - reserve +
			READ_ONCE(raw_cpu_ptr(zone->per_cpu_pageset)->count);
	}
	put_online_mems();
	return pages;
}

/**
 * damos_node_headroom_bp() - current value of a node_mem_headroom_bp goal
 * @nid:	node of the goal
 *
 * The node's free memory that migrations into it can use without taking
 * it below its watermarks (damos_node_room_pages()), in basis points of its
 * memory.  A node that cannot be measured reads as 10000, as an empty
 * node reads in node_mem_free_bp; without CONFIG_NUMA, 0.
 *
 * Return: the metric's current value in basis points.
 */
unsigned long damos_node_headroom_bp(int nid)
{
	struct sysinfo i;

	if (!IS_ENABLED(CONFIG_NUMA))
		return 0;
	if (nid < 0 || nid >= MAX_NUMNODES || !node_state(nid, N_MEMORY))
		return 10000;
	damos_node_meminfo(nid, &i);
	if (!i.totalram)
		return 10000;
	return damos_node_mem_bp_of(i.totalram, damos_node_room_pages(nid),
				    false);
}

/**
 * damos_quota_goal_gap_bytes() - bytes between a goal's value and its target
 * @goal:	a goal, its current value measured
 *
 * For a goal measured in shares of a node's memory, the bytes that moving
 * memory into or out of the node must make up for @goal to be met.
 *
 * Return: the bytes, 0 if @goal is met, ULONG_MAX if it does not measure a
 * node or the node cannot be measured.
 */
unsigned long damos_quota_goal_gap_bytes(struct damos_quota_goal *goal)
{
	struct sysinfo i;
	u64 pages;

	if (!damos_quota_goal_has_node(goal) || !IS_ENABLED(CONFIG_NUMA))
		return ULONG_MAX;
	if (goal->current_value >= goal->target_value)
		return 0;
	if (goal->nid < 0 || goal->nid >= MAX_NUMNODES ||
	    !node_state(goal->nid, N_MEMORY))
		return ULONG_MAX;
	damos_node_meminfo(goal->nid, &i);
	/*
	 * No gap is wider than the node.  Rounded up: a gap of less than a
	 * page still wants a page.
	 */
	pages = div64_u64((u64)min(goal->target_value - goal->current_value,
				   10000UL) * i.totalram + 9999, 10000);
	return min_t(u64, ULONG_MAX, pages << PAGE_SHIFT);
}

/**
 * damon_memcg_path_to_id() - the memory cgroup of a path
 * @path:	path from the cgroup2 mount point, e.g. "/workload"; a
 *		trailing newline is ignored
 * @id:		set to the cgroup's cgroup_id() if found
 *
 * For DAMOS memcg filters and node_memcg goals, which hold cgroups by id.
 * Cgroups being removed are skipped.
 *
 * Return: 0, -EINVAL if @path is NULL or no memory cgroup has it, or
 * -ENOMEM.
 */
int damon_memcg_path_to_id(const char *path, u64 *id)
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
			*id = damon_memcg_id(memcg);
			mem_cgroup_iter_break(NULL, memcg);
			break;
		}
	}
	kfree(buf);
	return found ? 0 : -EINVAL;
}

#include "tests/node_mem_goal-kunit.h"
