// SPDX-License-Identifier: GPL-2.0
/*
 * DAMOS quota goal metrics on a NUMA node's memory: node_mem_used_bp and
 * node_mem_free_bp, the used and free memory of goal->nid in basis points
 * (1/10000) of the node's total memory.
 *
 * They let a scheme aim at a node's utilization: e.g. demote cold pages
 * from a DRAM node until 0.5% of it is free, or promote hot pages to it
 * until it is 99.7% used, with the quota auto-tuner finding the speed.
 */

#include <linux/damon.h>
#include <linux/mm.h>
#include <linux/nodemask.h>

/**
 * damos_node_mem_bp_of() - used or free share of a memory size, in bp
 * @total:	total size (any unit)
 * @free:	free part of @total, same unit
 * @used:	true for the used share, false for the free share
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
	return mult_frac(part, 10000, total);
}

/**
 * damos_node_mem_bp() - current value of a node_mem_{used,free}_bp goal
 * @nid:	node of the goal
 * @used:	true for node_mem_used_bp, false for node_mem_free_bp
 * @target:	target value of the goal
 *
 * A node that cannot be measured (out of range, offline, or without
 * memory) must not drive the scheme: it reports twice @target, a score the
 * quota tuner answers by shrinking the quota to its minimum, so the scheme
 * idles until the node has memory again.
 *
 * Return: the metric's current value in basis points.
 */
unsigned long damos_node_mem_bp(int nid, bool used, unsigned long target)
{
	struct sysinfo i;

	if (nid < 0 || nid >= MAX_NUMNODES || !node_state(nid, N_MEMORY))
		return target * 2;
	si_meminfo_node(&i, nid);
	if (!i.totalram)
		return target * 2;
	return damos_node_mem_bp_of(i.totalram, i.freeram, used);
}

#include "tests/node_mem_goal-kunit.h"
