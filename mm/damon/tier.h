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

/* At most this many pieces of System RAM are monitored. */
#define DAMON_TIER_MAX_RANGES	128

/**
 * struct damon_tier_range - a piece of one node's online System RAM
 * @start:	start physical address
 * @end:	end physical address
 * @nid:	the node the piece belongs to
 */
struct damon_tier_range {
	unsigned long start;
	unsigned long end;
	int nid;
};

/**
 * struct damon_tier_topo - the nodes with memory, in node id order
 * @nr_nodes:	number of valid entries of @nodes
 * @nodes:	the nodes
 * @nr_ranges:	number of valid entries of @ranges, or -E2BIG if the
 *		System RAM comes in more pieces than @ranges holds
 * @ranges:	the online System RAM, in address order, adjacent pieces
 *		of one node merged
 *
 * A node's span (@nodes[].start to .end) may hold holes and other nodes'
 * memory (memory hot-added to a node above another's); @ranges is what
 * is monitored, and what of a span belongs to another node is filtered
 * out of the span's schemes.
 */
struct damon_tier_topo {
	int nr_nodes;
	struct damon_tier_node nodes[MAX_NUMNODES];
	int nr_ranges;
	struct damon_tier_range ranges[DAMON_TIER_MAX_RANGES];
};

/**
 * struct damon_tier_params - a copy of the module parameters
 * @target_used_bp:		promotion goal on the upper node, bp
 * @target_free_bp:		demotion goal on the upper node, bp
 * @quota_mb:			quota per scheme and interval, MiB
 * @quota_reset_interval_ms:	quota interval, ms
 * @respect_placement:		keep memory policies, cpusets and mlock
 * @goal_tuner:			the schemes' quota goal tuner
 * @tlb_flush_ms:		least ms between TLB flushes after sampling,
 *				0 for none
 * @attrs:			monitoring attributes, intervals goal included
 * @memcg:			only one memory cgroup's pages are moved
 * @memcg_id:			that cgroup, if @memcg (0 once it is gone)
 * @memcg_cgid:			its cgroup_id(), which is never reused
 */
struct damon_tier_params {
	unsigned long target_used_bp;
	unsigned long target_free_bp;
	unsigned long quota_mb;
	unsigned long quota_reset_interval_ms;
	bool respect_placement;
	enum damos_quota_goal_tuner goal_tuner;
	unsigned long tlb_flush_ms;
	struct damon_attrs attrs;
	bool memcg;
	unsigned short memcg_id;
	u64 memcg_cgid;
};

/**
 * struct damon_tier_pace - exchange state of one upper node
 * @lead:	bytes demotion keeps free above its goal for promotion
 * @backoff:	log2 of the passes demotion rests: one more for each ask
 *		that did not make the room asked for, 0 once a pass moves
 *		enough
 * @next_lead:	jiffies before which no lead is kept while @backoff is set
 * @promoted:	bytes promoted into the node in this aggregation interval
 * @promoted_last: bytes promoted into the node in the last one
 * @finding:	whether promotion found something to move when it last had
 *		room
 * @asked:	bytes of room the last pass asked demotion for, 0 for none
 * @made:	bytes demotion moved in the last pass that asked it for room
 * @hot_below:	whether the last pass promoted into the node, or DAMON saw
 *		at least a probe of accessed memory below it
 *
 * Only the kdamond uses it, before each apply pass.
 */
struct damon_tier_pace {
	unsigned long lead;
	unsigned int backoff;
	unsigned long next_lead;
	unsigned long promoted;
	unsigned long promoted_last;
	unsigned long asked;
	unsigned long made;
	bool finding;
	bool hot_below;
};

bool damon_tier_params_valid(const struct damon_tier_params *p);
void damon_tier_read_topo(struct damon_tier_topo *topo);
bool damon_tier_room_first(const struct damon_tier_topo *topo, int nid);
int damon_tier_build(struct damon_ctx *c, struct damon_target *t,
		     const struct damon_tier_topo *topo,
		     const struct damon_tier_params *p);
unsigned long damon_tier_same_pass(struct damon_tier_pace *x,
				   unsigned long asked, unsigned long down,
				   unsigned long probe, bool room_first);
unsigned long damon_tier_next_lead(struct damon_tier_pace *x,
				   unsigned long up, unsigned long down,
				   unsigned long hot, unsigned long probe,
				   unsigned long cap, unsigned long now,
				   unsigned long pass);

#endif /* _MM_DAMON_TIER_H */
