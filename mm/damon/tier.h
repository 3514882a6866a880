/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DAMON_TIER internals shared with its KUnit tests.
 */
#ifndef _MM_DAMON_TIER_H
#define _MM_DAMON_TIER_H

#include <linux/damon.h>
#include <linux/numa.h>

/* At most one migrate_cold and one migrate_hot scheme per node. */
#define DAMON_TIER_MAX_SCHEMES	(2 * MAX_NUMNODES)

/**
 * struct damon_tier_node - one memory node as DAMON_TIER sees it
 * @nid:	node id
 * @start:	start of the node's physical address range
 * @end:	end of the node's physical address range
 * @demote_to:	node cold pages go to, or NUMA_NO_NODE
 * @promote_to:	node hot pages go to, or NUMA_NO_NODE (top tier)
 */
struct damon_tier_node {
	int nid;
	unsigned long start;
	unsigned long end;
	int demote_to;
	int promote_to;
};

/**
 * struct damon_tier_topo - the nodes with memory, in node id order
 * @nr_nodes:	number of valid entries of @nodes
 * @nodes:	the nodes
 */
struct damon_tier_topo {
	int nr_nodes;
	struct damon_tier_node nodes[MAX_NUMNODES];
};

/**
 * struct damon_tier_params - validated copy of the module parameters
 * @target_used_bp:		promotion goal on the upper node, bp
 * @target_free_bp:		demotion goal on the upper node, bp
 * @quota_mb:			quota per scheme and interval, MiB
 * @quota_reset_interval_ms:	quota interval, ms
 */
struct damon_tier_params {
	unsigned long target_used_bp;
	unsigned long target_free_bp;
	unsigned long quota_mb;
	unsigned long quota_reset_interval_ms;
};

/**
 * struct damon_tier_upper - an upper node, as the quota tuning sees it
 * @total:	the node's memory, bytes
 * @free:	its free memory, bytes
 * @floor:	its zones' low watermarks (boost included), bytes: DAMOS
 *		migrations allocate without reclaim, so this free memory is
 *		out of promotion's reach
 * @hot_below:	bytes of accessed regions on the nodes promoting into it
 * @promoted:	bytes promoted into it in the last quota interval (for
 *		damon_tier_pass_bytes(): in the last and the current one)
 */
struct damon_tier_upper {
	unsigned long total;
	unsigned long free;
	unsigned long floor;
	unsigned long hot_below;
	unsigned long promoted;
};

void damon_tier_read_topo(struct damon_tier_topo *topo);
int damon_tier_build(struct damon_ctx *c, struct damon_target *t,
		     const struct damon_tier_topo *topo,
		     const struct damon_tier_params *p);
unsigned long damon_tier_quota_bytes(bool hot,
				     const struct damon_tier_upper *u,
				     const struct damon_tier_params *p,
				     unsigned long *exchange);
unsigned long damon_tier_pass_bytes(bool hot,
				    const struct damon_tier_upper *u,
				    const struct damon_tier_params *p,
				    bool exchange);

#endif /* _MM_DAMON_TIER_H */
