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
#include <linux/math64.h>
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
	/* In 64 bits: part * 10000 overflows 32 bits from 430k pages. */
	if (part <= div64_u64(U64_MAX, 10000))
		return div64_u64((u64)part * 10000, total);
	/* Beyond 2^50 pages (64-bit only): a precision of 1/2^50 is enough. */
	return min_t(u64, div64_u64(part, div64_u64(total, 10000)), 10000);
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
	damos_node_meminfo(nid, &i);
	if (!i.totalram)
		return target * 2;
	return damos_node_mem_bp_of(i.totalram, i.freeram, used);
}

#include "tests/node_mem_goal-kunit.h"
