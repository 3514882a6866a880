/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of DAMON_TIER: schemes built for 2-tier, 3-tier and flat
 * layouts, parameter validation, and the lead that paces an exchange.
 */
#ifdef CONFIG_DAMON_TIER_KUNIT_TEST

#ifndef _DAMON_TIER_TEST_H
#define _DAMON_TIER_TEST_H

#include <kunit/test.h>

static const struct damon_tier_params damon_tier_test_params = {
	.target_used_bp = 9970,
	.target_free_bp = 50,
	.quota_mb = 200,
	.quota_reset_interval_ms = 1000,
	.respect_placement = true,
	.goal_tuner = DAMOS_QUOTA_GOAL_TUNER_TEMPORAL,
	.tlb_flush_ms = IS_ENABLED(CONFIG_DAMON_TIER_TLB_FLUSH) ? 200 : 0,
	.attrs = {
		.sample_interval = 5000,
		.aggr_interval = 100000,
		.min_nr_regions = 10,
		.max_nr_regions = 200,
		.intervals_goal = { 400, 3, 5000, 10000000 },
	},
};

static struct damon_target *damon_tier_test_target;

static struct damon_ctx *damon_tier_test_ctx(struct kunit *test)
{
	struct damon_ctx *c = damon_new_ctx();

	KUNIT_ASSERT_NOT_NULL(test, c);
	damon_tier_test_target = damon_new_target();
	KUNIT_ASSERT_NOT_NULL(test, damon_tier_test_target);
	damon_add_target(c, damon_tier_test_target);
	return c;
}

/* A topology on the heap: struct damon_tier_topo is too big for the stack. */
static struct damon_tier_topo *damon_tier_test_topo(struct kunit *test,
						    const struct damon_tier_node *nodes,
						    int nr)
{
	struct damon_tier_topo *topo = kunit_kzalloc(test, sizeof(*topo),
						     GFP_KERNEL);

	int i;

	KUNIT_ASSERT_NOT_NULL(test, topo);
	topo->nr_nodes = nr;
	memcpy(topo->nodes, nodes, nr * sizeof(*nodes));
	/* Each node's span is all System RAM, unless the test says else. */
	for (i = 0; i < nr; i++)
		topo->ranges[i] = (struct damon_tier_range){
			nodes[i].start, nodes[i].end, nodes[i].nid };
	topo->nr_ranges = nr;
	return topo;
}

/* node0 (1 GiB) demotes to node1 (1 GiB), which promotes to node0. */
static struct damon_tier_topo *damon_tier_test_two_nodes(struct kunit *test)
{
	static const struct damon_tier_node nodes[] = {
		{ 0, 0x0, 0x40000000, 1, NUMA_NO_NODE },
		{ 1, 0x40000000, 0x80000000, NUMA_NO_NODE, 0 },
	};

	return damon_tier_test_topo(test, nodes, 2);
}

static int damon_tier_test_build(struct damon_ctx *c,
				 const struct damon_tier_topo *topo,
				 const struct damon_tier_params *p)
{
	return damon_tier_build(c, damon_tier_test_target, topo, p);
}

/* Expect scheme @s to migrate @hot pages of [start, end) to @dest. */
static void damon_tier_expect_scheme(struct kunit *test, struct damos *s,
				     bool hot, int dest, int goal_nid,
				     unsigned long start, unsigned long end)
{
	struct damos_quota *q = &s->quota;
	struct damos_quota_goal *g;
	struct damos_filter *f;
	int nr_goals = 0, i = 0;

	KUNIT_EXPECT_EQ(test, s->action,
			hot ? DAMOS_MIGRATE_HOT : DAMOS_MIGRATE_COLD);
	KUNIT_EXPECT_EQ(test, s->target_nid, dest);
	/* A page until the first pacing sets it. */
	KUNIT_EXPECT_EQ(test, s->quota.sz, PAGE_SIZE);
	/* On the temporal tuner, a window per 100 ms pass. */
	KUNIT_EXPECT_EQ(test, s->quota.reset_interval, 50);
	KUNIT_EXPECT_EQ(test, s->quota.goal_tuner,
			DAMOS_QUOTA_GOAL_TUNER_TEMPORAL);
	KUNIT_EXPECT_EQ(test, s->apply_interval_us, 100000);
	KUNIT_EXPECT_TRUE(test, s->respect_placement);
	/* Failed bytes cost 1/16 of the quota, 1/1024 for demotion. */
	KUNIT_EXPECT_EQ(test, s->quota.fail_charge_num, 1);
	KUNIT_EXPECT_EQ(test, s->quota.fail_charge_denom,
			hot ? DAMON_TIER_FAIL_CHARGE_DENOM :
			DAMON_TIER_DEMOTE_FAIL_CHARGE_DENOM);
	/* Ranked by access frequency, not by age. */
	KUNIT_EXPECT_GT(test, s->quota.weight_nr_accesses, 0);
	KUNIT_EXPECT_EQ(test, s->quota.weight_age, 0);
	KUNIT_EXPECT_EQ(test, s->quota.weight_sz, 0);
	damos_for_each_quota_goal(g, q) {
		nr_goals++;
		KUNIT_EXPECT_EQ(test, g->metric, hot ?
				DAMOS_QUOTA_NODE_MEM_USED_BP :
				DAMOS_QUOTA_NODE_MEM_FREE_BP);
		KUNIT_EXPECT_EQ(test, g->target_value, hot ? 9970 : 50);
		KUNIT_EXPECT_EQ(test, g->nid, goal_nid);
	}
	KUNIT_EXPECT_EQ(test, nr_goals, 1);
	damos_for_each_filter(f, s) {
		if (i == 0) {
			/* Reject everything outside the node's range. */
			KUNIT_EXPECT_EQ(test, f->type, DAMOS_FILTER_TYPE_ADDR);
			KUNIT_EXPECT_FALSE(test, f->matching);
			KUNIT_EXPECT_FALSE(test, f->allow);
			KUNIT_EXPECT_EQ(test, f->addr_range.start, start);
			KUNIT_EXPECT_EQ(test, f->addr_range.end, end);
		} else {
			/* Promote only young pages, never demote them. */
			KUNIT_EXPECT_EQ(test, f->type, DAMOS_FILTER_TYPE_YOUNG);
			KUNIT_EXPECT_TRUE(test, f->matching);
			KUNIT_EXPECT_EQ(test, f->allow, hot);
		}
		i++;
	}
	KUNIT_EXPECT_EQ(test, i, 2);
}

static int damon_tier_test_nr_schemes(struct damon_ctx *c)
{
	struct damos *s;
	int nr = 0;

	damon_for_each_scheme(s, c)
		nr++;
	return nr;
}

static void damon_tier_test_two_tiers(struct kunit *test)
{
	struct damon_tier_topo *topo = damon_tier_test_two_nodes(test);
	struct damon_ctx *c = damon_tier_test_ctx(test);
	struct damos *s, *schemes[2];
	int i = 0;

	KUNIT_ASSERT_EQ(test, damon_tier_test_build(c, topo,
						    &damon_tier_test_params), 0);
	KUNIT_ASSERT_EQ(test, damon_tier_test_nr_schemes(c), 2);
	damon_for_each_scheme(s, c)
		schemes[i++] = s;
	/* node0: demote cold to node1, aiming node0's free memory. */
	damon_tier_expect_scheme(test, schemes[0], false, 1, 0, 0, 0x40000000);
	/* node1: promote hot to node0, aiming node0's used memory. */
	damon_tier_expect_scheme(test, schemes[1], true, 0, 0, 0x40000000,
				 0x80000000);
	/* Both node ranges are monitored. */
	KUNIT_EXPECT_EQ(test, damon_nr_regions(damon_tier_test_target), 2);
	damon_destroy_ctx(c);
}

/*
 * memcg_path: every scheme first rejects pages of other cgroups;
 * promotion aims at the cgroup's share of the upper node, demotion still
 * at the node's free memory.
 */
static void damon_tier_test_memcg(struct kunit *test)
{
	struct damon_tier_topo *topo = damon_tier_test_two_nodes(test);
	struct damon_ctx *c = damon_tier_test_ctx(test);
	struct damon_tier_params p = damon_tier_test_params;
	struct damos_quota *q;
	struct damos_quota_goal *g;
	struct damos_filter *f;
	struct damos *s;
	int nr = 0;

	p.memcg = true;
	p.memcg_id = 42;
	KUNIT_ASSERT_EQ(test, damon_tier_test_build(c, topo, &p), 0);
	damon_for_each_scheme(s, c) {
		nr++;
		damos_for_each_filter(f, s) {
			KUNIT_EXPECT_EQ(test, f->type, DAMOS_FILTER_TYPE_MEMCG);
			KUNIT_EXPECT_FALSE(test, f->matching);
			KUNIT_EXPECT_FALSE(test, f->allow);
			KUNIT_EXPECT_EQ(test, f->memcg_id, 42);
			break;
		}
		q = &s->quota;
		damos_for_each_quota_goal(g, q) {
			KUNIT_EXPECT_EQ(test, g->nid, 0);
			if (s->action == DAMOS_MIGRATE_HOT) {
				KUNIT_EXPECT_EQ(test, g->metric,
						DAMOS_QUOTA_NODE_MEMCG_USED_BP);
				KUNIT_EXPECT_EQ(test, g->memcg_id, 42);
			} else {
				KUNIT_EXPECT_EQ(test, g->metric,
						DAMOS_QUOTA_NODE_MEM_FREE_BP);
			}
		}
	}
	KUNIT_EXPECT_EQ(test, nr, 2);
	damon_destroy_ctx(c);
}

/*
 * respect_placement=N reaches every scheme, through the parameters as an
 * enable or a commit reads them.
 */
static void damon_tier_test_no_placement(struct kunit *test)
{
	struct damon_tier_topo *topo = damon_tier_test_two_nodes(test);
	struct damon_ctx *c = damon_tier_test_ctx(test);
	struct damon_tier_params p;
	struct damos *s;
	int err, nr = 0;
	bool saved;

	/* As a write to a parameter file would, under the parameter lock. */
	kernel_param_lock(THIS_MODULE);
	saved = respect_placement;
	respect_placement = false;
	err = damon_tier_params_now(&p);
	respect_placement = saved;
	kernel_param_unlock(THIS_MODULE);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_ASSERT_EQ(test, damon_tier_test_build(c, topo, &p), 0);
	damon_for_each_scheme(s, c) {
		nr++;
		KUNIT_EXPECT_FALSE(test, s->respect_placement);
	}
	KUNIT_EXPECT_EQ(test, nr, 2);
	damon_destroy_ctx(c);
}

static void damon_tier_test_three_tiers(struct kunit *test)
{
	static const struct damon_tier_node nodes[] = {
		{ 0, 0x0, 0x1000000, 1, NUMA_NO_NODE },
		{ 1, 0x1000000, 0x2000000, 2, 0 },
		{ 2, 0x2000000, 0x3000000, NUMA_NO_NODE, 0 },
	};
	struct damon_tier_topo *topo = damon_tier_test_topo(test, nodes, 3);
	struct damon_ctx *c = damon_tier_test_ctx(test);
	struct damos *s, *schemes[4];
	int i = 0;

	KUNIT_ASSERT_EQ(test, damon_tier_test_build(c, topo,
						    &damon_tier_test_params), 0);
	KUNIT_ASSERT_EQ(test, damon_tier_test_nr_schemes(c), 4);
	damon_for_each_scheme(s, c)
		schemes[i++] = s;
	damon_tier_expect_scheme(test, schemes[0], false, 1, 0, 0, 0x1000000);
	damon_tier_expect_scheme(test, schemes[1], false, 2, 1, 0x1000000,
				 0x2000000);
	damon_tier_expect_scheme(test, schemes[2], true, 0, 0, 0x1000000,
				 0x2000000);
	damon_tier_expect_scheme(test, schemes[3], true, 0, 0, 0x2000000,
				 0x3000000);
	KUNIT_EXPECT_EQ(test, damon_nr_regions(damon_tier_test_target), 3);
	damon_destroy_ctx(c);
}

/*
 * Memory hot-added to node1 above node2's: node1's span holds node2's
 * memory, which node1's schemes filter out, and each piece is monitored.
 */
static void damon_tier_test_interleaved_spans(struct kunit *test)
{
	static const struct damon_tier_node nodes[] = {
		{ 0, 0x0, 0x1000000, 1, NUMA_NO_NODE },
		{ 1, 0x1000000, 0x4000000, 2, 0 },
		{ 2, 0x2000000, 0x3000000, NUMA_NO_NODE, 0 },
	};
	static const struct damon_tier_range ranges[] = {
		{ 0x1000, 0x9f000, 0 },
		{ 0x100000, 0x1000000, 0 },
		{ 0x1000000, 0x2000000, 1 },
		{ 0x2000000, 0x3000000, 2 },
		{ 0x3000000, 0x4000000, 1 },
	};
	struct damon_tier_topo *topo = damon_tier_test_topo(test, nodes, 3);
	struct damon_ctx *c = damon_tier_test_ctx(test);
	struct damon_region *r;
	struct damos_filter *f;
	struct damos *s;
	int i = 0, nr_filters;

	memcpy(topo->ranges, ranges, sizeof(ranges));
	topo->nr_ranges = ARRAY_SIZE(ranges);
	KUNIT_ASSERT_EQ(test, damon_tier_test_build(c, topo,
						    &damon_tier_test_params), 0);
	KUNIT_ASSERT_EQ(test, damon_tier_test_nr_schemes(c), 4);
	/* The pieces, holes left out. */
	damon_for_each_region(r, damon_tier_test_target) {
		KUNIT_ASSERT_LT(test, i, (int)ARRAY_SIZE(ranges));
		KUNIT_EXPECT_EQ(test, r->ar.start, ranges[i].start);
		KUNIT_EXPECT_EQ(test, r->ar.end, ranges[i].end);
		i++;
	}
	KUNIT_EXPECT_EQ(test, i, (int)ARRAY_SIZE(ranges));
	damon_for_each_scheme(s, c) {
		bool node1;

		/* The first filter holds the scheme's node's span. */
		f = list_first_entry(&s->filters, struct damos_filter, list);
		node1 = f->addr_range.start == 0x1000000;
		nr_filters = 0;
		damos_for_each_filter(f, s) {
			nr_filters++;
			if (node1 && nr_filters == 2) {
				/* node2's piece inside node1's span. */
				KUNIT_EXPECT_EQ(test, f->type,
						DAMOS_FILTER_TYPE_ADDR);
				KUNIT_EXPECT_TRUE(test, f->matching);
				KUNIT_EXPECT_FALSE(test, f->allow);
				KUNIT_EXPECT_EQ(test, f->addr_range.start,
						0x2000000UL);
				KUNIT_EXPECT_EQ(test, f->addr_range.end,
						0x3000000UL);
			}
		}
		/* Span, young, and node2's piece for node1's schemes. */
		KUNIT_EXPECT_EQ(test, nr_filters, node1 ? 3 : 2);
	}
	damon_destroy_ctx(c);

	/* Too many pieces: refused, not truncated. */
	topo->nr_ranges = -E2BIG;
	c = damon_tier_test_ctx(test);
	KUNIT_EXPECT_EQ(test, damon_tier_test_build(c, topo,
						    &damon_tier_test_params), -E2BIG);
	KUNIT_EXPECT_EQ(test, damon_tier_test_nr_schemes(c), 0);
	damon_destroy_ctx(c);
}

/*
 * Whether an upper node's memory lies below that of the nodes promoting
 * into it, on a chain node2 -> node1 -> node0: a piece of node0 above
 * node2's does not matter to node1, a piece of node1 inside node0's span
 * puts node0 out of order, and touching pieces are in order.
 */
static void damon_tier_test_room_first(struct kunit *test)
{
	static const struct damon_tier_node nodes[] = {
		{ 0, 0x0, 0x1000000, 1, NUMA_NO_NODE },
		{ 1, 0x1000000, 0x2000000, 2, 0 },
		{ 2, 0x2000000, 0x3000000, NUMA_NO_NODE, 1 },
	};
	struct damon_tier_topo *topo = damon_tier_test_topo(test, nodes, 3);

	KUNIT_EXPECT_TRUE(test, damon_tier_room_first(topo, 0));
	KUNIT_EXPECT_TRUE(test, damon_tier_room_first(topo, 1));
	/* Nothing promotes into the lowest node. */
	KUNIT_EXPECT_FALSE(test, damon_tier_room_first(topo, 2));

	/* Memory hot-added to node0 above node2's. */
	topo->ranges[3] = (struct damon_tier_range){ 0x3000000, 0x3100000, 0 };
	topo->nr_ranges = 4;
	KUNIT_EXPECT_FALSE(test, damon_tier_room_first(topo, 0));
	KUNIT_EXPECT_TRUE(test, damon_tier_room_first(topo, 1));

	/* A piece of node1 inside node0's span. */
	topo->ranges[3] = (struct damon_tier_range){ 0x800000, 0x900000, 1 };
	KUNIT_EXPECT_FALSE(test, damon_tier_room_first(topo, 0));
	KUNIT_EXPECT_TRUE(test, damon_tier_room_first(topo, 1));

	topo->nr_ranges = 3;
	KUNIT_EXPECT_TRUE(test, damon_tier_room_first(topo, 0));

	/* Two nodes promoting into node0: the second one decides too. */
	topo->nodes[2].promote_to = 0;
	KUNIT_EXPECT_TRUE(test, damon_tier_room_first(topo, 0));
	KUNIT_EXPECT_FALSE(test, damon_tier_room_first(topo, 1));
	topo->ranges[0] = (struct damon_tier_range){ 0x3000000, 0x4000000, 0 };
	topo->ranges[1] = (struct damon_tier_range){ 0x4000000, 0x5000000, 1 };
	KUNIT_EXPECT_FALSE(test, damon_tier_room_first(topo, 0));
}

/*
 * The room promotion takes in the pass demotion makes it: none before a
 * demotion made any, then what the last ask made, at most four probes,
 * none after an ask that made nothing, and none out of address order.
 */
static void damon_tier_test_same_pass(struct kunit *test)
{
	const unsigned long p = 1 << 20;
	struct damon_tier_pace x = {};

	/* The first ask: nothing made yet. */
	KUNIT_EXPECT_EQ(test, damon_tier_same_pass(&x, 3 * p, 0, p, true), 0UL);
	KUNIT_EXPECT_EQ(test, x.asked, 3 * p);
	/* It made 3 probes; this pass asks for 2. */
	KUNIT_EXPECT_EQ(test, damon_tier_same_pass(&x, 2 * p, 3 * p, p, true),
			2 * p);
	/* It made 2; this pass asks for 9: 2. */
	KUNIT_EXPECT_EQ(test, damon_tier_same_pass(&x, 9 * p, 2 * p, p, true),
			2 * p);
	/* It made 9; this pass asks for 12: at most 4 probes. */
	KUNIT_EXPECT_EQ(test, damon_tier_same_pass(&x, 12 * p, 9 * p, p, true),
			4 * p);
	/* No ask: what the last one made (7 probes) is kept for the next. */
	KUNIT_EXPECT_EQ(test, damon_tier_same_pass(&x, 0, 7 * p, p, true), 0UL);
	KUNIT_EXPECT_EQ(test, damon_tier_same_pass(&x, 3 * p, 5 * p, p, true),
			3 * p);
	KUNIT_EXPECT_EQ(test, x.made, 7 * p);
	/* That ask made nothing: promotion waits for the room. */
	KUNIT_EXPECT_EQ(test, damon_tier_same_pass(&x, 3 * p, 0, p, true), 0UL);
	KUNIT_EXPECT_EQ(test, x.made, 0UL);
	/* Out of address order: never, though the ask is recorded. */
	KUNIT_EXPECT_EQ(test, damon_tier_same_pass(&x, 5 * p, 3 * p, p, false),
			0UL);
	KUNIT_EXPECT_EQ(test, x.made, 3 * p);
	KUNIT_EXPECT_EQ(test, x.asked, 5 * p);
}

static void damon_tier_test_flat(struct kunit *test)
{
	static const struct damon_tier_node nodes[] = {
		{ 0, 0x0, 0x1000000, NUMA_NO_NODE, NUMA_NO_NODE },
		{ 1, 0x1000000, 0x2000000, NUMA_NO_NODE, NUMA_NO_NODE },
	};
	struct damon_tier_topo *topo = damon_tier_test_topo(test, nodes, 2);
	struct damon_ctx *c = damon_tier_test_ctx(test);

	KUNIT_ASSERT_EQ(test, damon_tier_test_build(c, topo,
						    &damon_tier_test_params), 0);
	KUNIT_EXPECT_EQ(test, damon_tier_test_nr_schemes(c), 0);
	damon_destroy_ctx(c);
}

static void damon_tier_test_bad_params(struct kunit *test)
{
	static const struct damon_tier_node nodes[] = {
		{ 0, 0x0, 0x1000000, 1, NUMA_NO_NODE },
		{ 1, 0x1000000, 0x2000000, NUMA_NO_NODE, 0 },
	};
	struct damon_tier_topo *topo = damon_tier_test_topo(test, nodes, 2);
	struct damon_tier_topo *empty = damon_tier_test_topo(test, nodes, 0);
	const int nr_bad = 13;
	struct damon_tier_params *bad = kunit_kcalloc(test, nr_bad,
						      sizeof(*bad), GFP_KERNEL);
	struct damon_ctx *c;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, bad);
	for (i = 0; i < nr_bad; i++)
		bad[i] = damon_tier_test_params;
	bad[0].target_used_bp = 0;
	bad[1].target_used_bp = 10001;
	bad[2].target_free_bp = 0;
	bad[3].target_free_bp = 10001;
	bad[4].quota_mb = 0;
	bad[5].quota_reset_interval_ms = 0;
	bad[6].attrs.sample_interval = 200000;	/* above aggr_interval */
	bad[7].attrs.sample_interval = 0;
	bad[8].attrs.min_nr_regions = 2;
	bad[9].attrs.max_nr_regions = 9;	/* below min_nr_regions */
	bad[10].attrs.sample_interval = 4000;	/* below min_sample_us */
	bad[11].attrs.intervals_goal.min_sample_us = 20000000;
	bad[12].tlb_flush_ms = (1UL << 20) + 1;
	KUNIT_EXPECT_TRUE(test, damon_tier_params_valid(&damon_tier_test_params));
	if (IS_ENABLED(CONFIG_DAMON_TIER_TLB_FLUSH)) {
		struct damon_tier_params most = damon_tier_test_params;

		most.tlb_flush_ms = 1UL << 20;
		KUNIT_EXPECT_TRUE(test, damon_tier_params_valid(&most));
	}

	for (i = 0; i < nr_bad; i++) {
		c = damon_tier_test_ctx(test);
		KUNIT_EXPECT_FALSE_MSG(test, damon_tier_params_valid(&bad[i]),
				       "params %d", i);
		KUNIT_EXPECT_EQ_MSG(test, damon_tier_test_build(c, topo, &bad[i]),
				    -EINVAL, "params %d", i);
		KUNIT_EXPECT_EQ(test, damon_tier_test_nr_schemes(c), 0);
		damon_destroy_ctx(c);
	}
	/* No node with memory: nothing to monitor. */
	c = damon_tier_test_ctx(test);
	KUNIT_EXPECT_EQ(test, damon_tier_test_build(c, empty,
						    &damon_tier_test_params), -EINVAL);
	damon_destroy_ctx(c);
}

/* The real layout: every node has a range, targets are real nodes. */
static void damon_tier_test_read_topo(struct kunit *test)
{
	struct damon_tier_topo *topo = kunit_kzalloc(test, sizeof(*topo),
						     GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, topo);
	damon_tier_read_topo(topo);
	KUNIT_EXPECT_GE(test, topo->nr_nodes, 1);
	for (i = 0; i < topo->nr_nodes; i++) {
		struct damon_tier_node *n = &topo->nodes[i];

		KUNIT_EXPECT_LT(test, n->start, n->end);
		KUNIT_EXPECT_TRUE(test, node_state(n->nid, N_MEMORY));
		KUNIT_EXPECT_NE(test, n->demote_to, n->nid);
		KUNIT_EXPECT_NE(test, n->promote_to, n->nid);
		if (n->promote_to != NUMA_NO_NODE)
			KUNIT_EXPECT_TRUE(test,
					  node_state(n->promote_to, N_MEMORY));
	}
	/* System RAM in address order, each piece inside its node's span. */
	KUNIT_EXPECT_GE(test, topo->nr_ranges, topo->nr_nodes);
	for (i = 0; i < topo->nr_ranges; i++) {
		struct damon_tier_range *r = &topo->ranges[i];
		pg_data_t *pgdat = NODE_DATA(r->nid);

		KUNIT_EXPECT_LT(test, r->start, r->end);
		if (i)
			KUNIT_EXPECT_LE(test, topo->ranges[i - 1].end,
					r->start);
		KUNIT_EXPECT_GE(test, r->start,
				PFN_PHYS(pgdat->node_start_pfn));
		KUNIT_EXPECT_LE(test, r->end, PFN_PHYS(pgdat_end_pfn(pgdat)));
	}
}

/*
 * The lead: twice what promotion moved plus a probe, at most
 * DAMON_TIER_LEAD_PROBES probes (up to four times that while DAMON sees
 * that much hot memory below) and the pass's cap.
 */
static void damon_tier_test_lead_follows_promotion(struct kunit *test)
{
	struct damon_tier_pace x = {};
	const unsigned long probe = 1 << 20, cap = 40 << 20;

	KUNIT_EXPECT_EQ(test, damon_tier_next_lead(&x, 1 << 20, 0, 0, probe,
						   cap, 1000, 10),
			3UL << 20);
	KUNIT_EXPECT_EQ(test, damon_tier_next_lead(&x, 3 << 20, 0, 20 << 20,
						   probe, cap, 1000, 10),
			7UL << 20);
	/* Up to four times as far while DAMON sees that much hot below. */
	KUNIT_EXPECT_EQ(test, damon_tier_next_lead(&x, 10 << 20, 0, 100 << 20,
						   probe, cap, 1000, 10),
			4 * DAMON_TIER_LEAD_PROBES * probe);
	KUNIT_EXPECT_EQ(test, damon_tier_next_lead(&x, 10 << 20, 0, 9 << 20,
						   probe, cap, 1000, 10),
			9UL << 20);
	KUNIT_EXPECT_EQ(test, damon_tier_next_lead(&x, 7 << 20, 1 << 20, 0,
						   probe, cap, 1000, 10),
			DAMON_TIER_LEAD_PROBES * probe);
	KUNIT_EXPECT_EQ(test, damon_tier_next_lead(&x, 7 << 20, 0, 0, probe,
						   2 << 20, 1000, 10),
			2UL << 20);
	KUNIT_EXPECT_EQ(test, x.backoff, 0U);
}

/* Nothing moved: a little room while accessed memory shows, else none. */
static void damon_tier_test_lead_ready(struct kunit *test)
{
	struct damon_tier_pace x = {};
	const unsigned long probe = 1 << 20;

	KUNIT_EXPECT_EQ(test, damon_tier_next_lead(&x, 0, 0, 1, probe,
						   40 << 20, 1000, 10),
			DAMON_TIER_READY_PROBES * probe);
	KUNIT_EXPECT_EQ(test, damon_tier_next_lead(&x, 0, 0, 0, probe,
						   40 << 20, 1000, 10), 0UL);
	KUNIT_EXPECT_EQ(test, damon_tier_next_lead(&x, 0, 0, 1, probe,
						   probe, 1000, 10), probe);
}

/*
 * Every accessed region takes its turn once promotion, after moving at
 * least DAMON_TIER_TURNS_PROBES probes in this or the last aggregation,
 * finds nothing; with a cgroup whenever it finds nothing; never while it
 * finds hot pages.
 */
static void damon_tier_test_take_turns(struct kunit *test)
{
	const unsigned long probe = 1 << 20;
	struct damon_tier_pace x = {};

	KUNIT_EXPECT_FALSE(test, damon_tier_take_turns(&x, probe, false));
	KUNIT_EXPECT_TRUE(test, damon_tier_take_turns(&x, probe, true));
	x.promoted = DAMON_TIER_TURNS_PROBES * probe - PAGE_SIZE;
	KUNIT_EXPECT_FALSE(test, damon_tier_take_turns(&x, probe, false));
	x.promoted_last = PAGE_SIZE;
	KUNIT_EXPECT_TRUE(test, damon_tier_take_turns(&x, probe, false));
	x.promoted = 0;
	x.promoted_last = DAMON_TIER_TURNS_PROBES * probe;
	KUNIT_EXPECT_TRUE(test, damon_tier_take_turns(&x, probe, false));
	/* No overflow: a counter at its limit still takes turns. */
	x.promoted = ULONG_MAX;
	KUNIT_EXPECT_TRUE(test, damon_tier_take_turns(&x, probe, false));
	x.finding = true;
	KUNIT_EXPECT_FALSE(test, damon_tier_take_turns(&x, probe, false));
	KUNIT_EXPECT_FALSE(test, damon_tier_take_turns(&x, probe, true));
}

/*
 * Promotion's ranking and fail charge: hottest first at the low charge
 * while it finds hot pages; every region alike at the low charge while it
 * takes turns after an exchange, charged in full with a cgroup; hottest
 * first charged in full otherwise.
 */
static void damon_tier_test_rank_promotion(struct kunit *test)
{
	const unsigned long probe = 1 << 20;
	struct damon_tier_pace x = { .finding = true };
	const unsigned int low = DAMON_TIER_FAIL_CHARGE_DENOM;
	struct damos_quota q = {};

	damon_tier_rank_promotion(&q, &x, probe, false);
	KUNIT_EXPECT_EQ(test, q.weight_nr_accesses, 100U);
	KUNIT_EXPECT_EQ(test, q.fail_charge_denom, low);
	damon_tier_rank_promotion(&q, &x, probe, true);
	KUNIT_EXPECT_EQ(test, q.weight_nr_accesses, 100U);
	KUNIT_EXPECT_EQ(test, q.fail_charge_denom, low);

	x.finding = false;
	damon_tier_rank_promotion(&q, &x, probe, false);
	KUNIT_EXPECT_EQ(test, q.weight_nr_accesses, 100U);
	KUNIT_EXPECT_EQ(test, q.fail_charge_denom, 0U);
	damon_tier_rank_promotion(&q, &x, probe, true);
	KUNIT_EXPECT_EQ(test, q.weight_nr_accesses, 0U);
	KUNIT_EXPECT_EQ(test, q.fail_charge_denom, 0U);

	x.promoted = DAMON_TIER_TURNS_PROBES * probe;
	damon_tier_rank_promotion(&q, &x, probe, false);
	KUNIT_EXPECT_EQ(test, q.weight_nr_accesses, 0U);
	KUNIT_EXPECT_EQ(test, q.fail_charge_denom, low);
	damon_tier_rank_promotion(&q, &x, probe, true);
	KUNIT_EXPECT_EQ(test, q.weight_nr_accesses, 0U);
	KUNIT_EXPECT_EQ(test, q.fail_charge_denom, 0U);
}

/*
 * Room asked for and not made backs off for 2, 4, ... passes, at most
 * 2^DAMON_TIER_MAX_BACKOFF; half of what was asked, at most half a probe,
 * moved ends it.
 */
static void damon_tier_test_lead_backs_off(struct kunit *test)
{
	struct damon_tier_pace x = {};
	const unsigned long probe = 1 << 20, cap = 40 << 20, pass = 10;
	unsigned long now = 1000;
	int i;

	x.asked = probe;
	KUNIT_EXPECT_EQ(test, damon_tier_next_lead(&x, 0, 0, 1, probe, cap,
						   now, pass), 0UL);
	KUNIT_EXPECT_EQ(test, x.backoff, 1U);
	KUNIT_EXPECT_EQ(test, x.next_lead, now + 2 * pass);
	/* Still backing off, and asking nothing: no lead, no more backoff. */
	x.asked = 0;
	KUNIT_EXPECT_EQ(test, damon_tier_next_lead(&x, 0, 0, 1, probe, cap,
						   now + pass, pass), 0UL);
	KUNIT_EXPECT_EQ(test, x.backoff, 1U);
	KUNIT_EXPECT_EQ(test, damon_tier_next_lead(&x, 0, 0, 1, probe, cap,
						   now + 2 * pass, pass),
			DAMON_TIER_READY_PROBES * probe);
	/* A wait that ran out cannot come back when jiffies wrap. */
	KUNIT_EXPECT_EQ(test, damon_tier_next_lead(&x, 0, 0, 1, probe, cap,
						   now + 3 * pass, pass),
			DAMON_TIER_READY_PROBES * probe);
	KUNIT_EXPECT_EQ(test, x.next_lead, now + 3 * pass);
	for (i = 0; i < DAMON_TIER_MAX_BACKOFF + 3; i++) {
		x.asked = probe;
		damon_tier_next_lead(&x, 0, 0, 1, probe, cap, now, pass);
	}
	KUNIT_EXPECT_EQ(test, x.backoff, (unsigned int)DAMON_TIER_MAX_BACKOFF);
	KUNIT_EXPECT_EQ(test, x.next_lead,
			now + (pass << DAMON_TIER_MAX_BACKOFF));
	/* A trickle: still backing off, no lead, asked or not. */
	x.asked = probe;
	now += pass << DAMON_TIER_MAX_BACKOFF;
	KUNIT_EXPECT_EQ(test, damon_tier_next_lead(&x, PAGE_SIZE, PAGE_SIZE, 1,
						   probe, cap, now, pass), 0UL);
	KUNIT_EXPECT_EQ(test, x.backoff, (unsigned int)DAMON_TIER_MAX_BACKOFF);
	x.asked = 0;
	KUNIT_EXPECT_EQ(test, damon_tier_next_lead(&x, 2 * PAGE_SIZE, 0, 1,
						   probe, cap, now + pass, pass),
			0UL);
	KUNIT_EXPECT_EQ(test, x.backoff, (unsigned int)DAMON_TIER_MAX_BACKOFF);
	/* Demotion made room: the lead is back at once. */
	x.asked = probe;
	KUNIT_EXPECT_EQ(test, damon_tier_next_lead(&x, 0, 1 << 20, 1, probe,
						   cap, now, pass),
			DAMON_TIER_READY_PROBES * probe);
	KUNIT_EXPECT_EQ(test, x.backoff, 0U);
}

/*
 * An ask met is no reason to back off: a shortfall smaller than a probe
 * made up in full, and on a node whose probe is the whole per-pass cap,
 * a cap's worth less a page (what failures charged at 1/1024 leave).
 */
static void damon_tier_test_lead_met_ask(struct kunit *test)
{
	struct damon_tier_pace x = {};
	const unsigned long probe = 1 << 20, pass = 10;

	x.asked = 8 * PAGE_SIZE;
	damon_tier_next_lead(&x, 0, 8 * PAGE_SIZE, 1, probe, 40 << 20, 1000,
			     pass);
	KUNIT_EXPECT_EQ(test, x.backoff, 0U);
	x.asked = probe;
	damon_tier_next_lead(&x, 0, probe - PAGE_SIZE, 1, probe, probe, 1000,
			     pass);
	KUNIT_EXPECT_EQ(test, x.backoff, 0U);
}

/*
 * The schemes' byte counters wrap on 32-bit after 4 GiB: what was moved
 * since the last look still counts, and the pacing does not mistake the
 * wrap for a new scheme counting from zero.
 */
static void damon_tier_test_moved_wraps(struct kunit *test)
{
	struct damon_tier_topo *topo = damon_tier_test_two_nodes(test);
	struct damon_ctx *c = damon_tier_test_ctx(test);
	unsigned long up, tried, refused, down, total = 0, last;
	struct damos *s, *schemes[2];
	int i = 0;

	KUNIT_ASSERT_EQ(test, damon_tier_test_build(c, topo,
						    &damon_tier_test_params), 0);
	damon_for_each_scheme(s, c)
		schemes[i++] = s;
	damon_tier_sync_stats(c, 0);
	/* Demotion moved 5 pages; promotion's counters wrapped. */
	schemes[0]->stat.sz_applied = 5 * PAGE_SIZE;
	damon_tier_pace_stat[1].sz_applied = ULONG_MAX - PAGE_SIZE + 1;
	damon_tier_pace_stat[1].sz_tried = ULONG_MAX - 2 * PAGE_SIZE + 1;
	schemes[1]->stat.sz_applied = PAGE_SIZE;
	schemes[1]->stat.sz_tried = 3 * PAGE_SIZE;
	damon_tier_moved(c, 0, &up, &tried, &refused, &down);
	KUNIT_EXPECT_EQ(test, up, 2 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, tried, 5 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, refused, 0UL);
	KUNIT_EXPECT_EQ(test, down, 5 * PAGE_SIZE);
	/* The next look counts from there. */
	damon_tier_moved(c, 0, &up, &tried, &refused, &down);
	KUNIT_EXPECT_EQ(test, up + tried + down, 0UL);

	last = ULONG_MAX - PAGE_SIZE + 1;
	damon_tier_count(&total, 2 * PAGE_SIZE, &last);
	KUNIT_EXPECT_EQ(test, total, 3 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, last, 2 * PAGE_SIZE);

	memset(damon_tier_pace_stat, 0, sizeof(damon_tier_pace_stat));
	memset(damon_tier_last_stat, 0, sizeof(damon_tier_last_stat));
	damon_destroy_ctx(c);
}

/*
 * The pacing waits its wait, and then for an apply pass to have taken its
 * settings, or for a few passes when none applied.
 */
static void damon_tier_test_pace_due(struct kunit *test)
{
	const unsigned long wait = 95, pass = 100, last = 1000;

	KUNIT_EXPECT_TRUE(test, damon_tier_pace_due(7, 0, false, wait, pass));
	KUNIT_EXPECT_FALSE(test, damon_tier_pace_due(last + 94, last, true,
						     wait, pass));
	KUNIT_EXPECT_TRUE(test, damon_tier_pace_due(last + 95, last, true,
						    wait, pass));
	KUNIT_EXPECT_FALSE(test, damon_tier_pace_due(last + 95, last, false,
						     wait, pass));
	KUNIT_EXPECT_FALSE(test, damon_tier_pace_due(last + 299, last, false,
						     wait, pass));
	KUNIT_EXPECT_TRUE(test, damon_tier_pace_due(last + 300, last, false,
						    wait, pass));
	/* Across a jiffies wrap. */
	KUNIT_EXPECT_FALSE(test, damon_tier_pace_due(ULONG_MAX - 10,
						     ULONG_MAX - 50, true,
						     wait, pass));
	KUNIT_EXPECT_FALSE(test, damon_tier_pace_due(49, ULONG_MAX - 50, false,
						     wait, pass));
	KUNIT_EXPECT_TRUE(test, damon_tier_pace_due(49, ULONG_MAX - 50, true,
						    wait, pass));
}

/*
 * TLB flushes space out from tlb_flush_ms, doubling up to a second, while
 * nothing shows below; never closer than tlb_flush_ms, none if it is 0.
 */
static void damon_tier_test_flush_interval(struct kunit *test)
{
	const unsigned int max_shift = DAMON_TIER_MAX_FLUSH_SHIFT;
	static const unsigned long ms[] = {200, 400, 800, 1000, 1000};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ms); i++)
		KUNIT_EXPECT_EQ(test, damon_tier_flush_interval_ms(200, i),
				ms[i]);
	KUNIT_EXPECT_EQ(test, damon_tier_flush_interval_ms(1, 0), 1UL);
	KUNIT_EXPECT_EQ(test, damon_tier_flush_interval_ms(1, 9), 512UL);
	KUNIT_EXPECT_EQ(test, damon_tier_flush_interval_ms(1, max_shift),
			DAMON_TIER_QUIET_FLUSH_MS);
	/* Past the largest shift, and from the largest tlb_flush_ms. */
	KUNIT_EXPECT_EQ(test, damon_tier_flush_interval_ms(1, UINT_MAX),
			DAMON_TIER_QUIET_FLUSH_MS);
	KUNIT_EXPECT_EQ(test, damon_tier_flush_interval_ms(1UL << 20,
							   max_shift),
			1UL << 20);
	KUNIT_EXPECT_EQ(test, damon_tier_flush_interval_ms(2000, 3), 2000UL);
	KUNIT_EXPECT_EQ(test, damon_tier_flush_interval_ms(0, 0), 0UL);
	KUNIT_EXPECT_EQ(test, damon_tier_flush_interval_ms(0, 5), 0UL);
}

/*
 * Quiet once DAMON_TIER_QUIET_MS passed with no hot memory below, at once
 * not quiet when some shows; still quiet across a jiffies wrap, however
 * long ago hot memory last showed.
 */
static void damon_tier_test_quiet(struct kunit *test)
{
	const unsigned long quiet = msecs_to_jiffies(DAMON_TIER_QUIET_MS);
	unsigned long last = 0, now = 1000;

	KUNIT_EXPECT_FALSE(test, damon_tier_quiet(now, true, &last));
	KUNIT_EXPECT_EQ(test, last, now);
	KUNIT_EXPECT_FALSE(test, damon_tier_quiet(now + quiet - 1, false,
						  &last));
	KUNIT_EXPECT_EQ(test, last, now);
	KUNIT_EXPECT_TRUE(test, damon_tier_quiet(now + quiet, false, &last));
	now += 10 * quiet;
	KUNIT_EXPECT_TRUE(test, damon_tier_quiet(now, false, &last));
	KUNIT_EXPECT_EQ(test, last, now - quiet);
	KUNIT_EXPECT_FALSE(test, damon_tier_quiet(now + 1, true, &last));
	KUNIT_EXPECT_FALSE(test, damon_tier_quiet(now + 2, false, &last));

	/* Quiet before a wrap stays quiet after it, kept a wait behind. */
	last = ULONG_MAX - 2 * quiet;
	KUNIT_EXPECT_TRUE(test, damon_tier_quiet(ULONG_MAX - quiet / 2, false,
						 &last));
	KUNIT_EXPECT_TRUE(test, damon_tier_quiet(quiet / 2, false, &last));
	KUNIT_EXPECT_EQ(test, last, quiet / 2 - quiet);
	/* Hot memory just before a wrap: not quiet just after it. */
	KUNIT_EXPECT_FALSE(test, damon_tier_quiet(ULONG_MAX - 1, true, &last));
	KUNIT_EXPECT_FALSE(test, damon_tier_quiet(quiet / 2, false, &last));
	KUNIT_EXPECT_TRUE(test, damon_tier_quiet(quiet, false, &last));
}

/*
 * The regions the module's kdamond gets are whole pages, also in a kernel
 * built with DAMON's core KUnit suite, which shrinks the core's minimum
 * region size only while it runs: byte-sized regions made demotion stall
 * on such kernels.
 */
static void damon_tier_test_page_regions(struct kunit *test)
{
	struct damon_addr_range range = {
		.start = PAGE_SIZE + 1,
		.end = 3 * PAGE_SIZE - 1,
	};
	struct damon_target *t = damon_new_target();
	struct damon_region *r;

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, damon_set_regions(t, &range, 1), 0);
	KUNIT_ASSERT_EQ(test, damon_nr_regions(t), 1U);
	r = damon_first_region(t);
	KUNIT_EXPECT_EQ(test, r->ar.start, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, r->ar.end, 3 * PAGE_SIZE);
	damon_free_target(t);
}

static struct kunit_case damon_tier_test_cases[] = {
	KUNIT_CASE(damon_tier_test_two_tiers),
	KUNIT_CASE(damon_tier_test_memcg),
	KUNIT_CASE(damon_tier_test_no_placement),
	KUNIT_CASE(damon_tier_test_three_tiers),
	KUNIT_CASE(damon_tier_test_interleaved_spans),
	KUNIT_CASE(damon_tier_test_room_first),
	KUNIT_CASE(damon_tier_test_same_pass),
	KUNIT_CASE(damon_tier_test_flat),
	KUNIT_CASE(damon_tier_test_bad_params),
	KUNIT_CASE(damon_tier_test_read_topo),
	KUNIT_CASE(damon_tier_test_lead_follows_promotion),
	KUNIT_CASE(damon_tier_test_lead_ready),
	KUNIT_CASE(damon_tier_test_take_turns),
	KUNIT_CASE(damon_tier_test_rank_promotion),
	KUNIT_CASE(damon_tier_test_lead_backs_off),
	KUNIT_CASE(damon_tier_test_lead_met_ask),
	KUNIT_CASE(damon_tier_test_moved_wraps),
	KUNIT_CASE(damon_tier_test_page_regions),
	KUNIT_CASE(damon_tier_test_pace_due),
	KUNIT_CASE(damon_tier_test_flush_interval),
	KUNIT_CASE(damon_tier_test_quiet),
	{},
};

static struct kunit_suite damon_tier_test_suite = {
	.name = "damon-tier",
	.test_cases = damon_tier_test_cases,
};

kunit_test_suite(damon_tier_test_suite);

#endif /* _DAMON_TIER_TEST_H */

#endif /* CONFIG_DAMON_TIER_KUNIT_TEST */
