/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of DAMON_TIER: schemes built for 2-tier, 3-tier and flat
 * layouts, and parameter validation.
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

	KUNIT_ASSERT_NOT_NULL(test, topo);
	topo->nr_nodes = nr;
	memcpy(topo->nodes, nodes, nr * sizeof(*nodes));
	return topo;
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
	KUNIT_EXPECT_EQ(test, s->quota.sz, 200UL << 20);
	KUNIT_EXPECT_EQ(test, s->quota.reset_interval, 1000);
	/* Ranked by access frequency, never by age (reset by each look). */
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
	static const struct damon_tier_node nodes[] = {
		{ 0, 0x0, 0x40000000, 1, NUMA_NO_NODE },
		{ 1, 0x40000000, 0x80000000, NUMA_NO_NODE, 0 },
	};
	struct damon_tier_topo *topo = damon_tier_test_topo(test, nodes, 2);
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
	struct damon_tier_params bad[] = {
		{ 0, 50, 200, 1000 }, { 10001, 50, 200, 1000 },
		{ 9970, 0, 200, 1000 }, { 9970, 10001, 200, 1000 },
		{ 9970, 50, 0, 1000 }, { 9970, 50, 200, 0 },
	};
	struct damon_ctx *c;
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		c = damon_tier_test_ctx(test);
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
}

#define MB(x)	((unsigned long)(x) << 20)

/*
 * Quota of a scheme for a 1000 MiB upper node with goals 99.7% used and
 * 0.5% free (997 MiB used, 5 MiB free), a 200 MiB quota and a floor of
 * @floor_mb; sizes in MiB.
 */
static unsigned long damon_tier_test_quota_floor(bool hot,
						 unsigned long free_mb,
						 unsigned long floor_mb,
						 unsigned long hot_mb,
						 unsigned long promoted_mb,
						 unsigned long *xchg)
{
	struct damon_tier_upper u = {
		.total = MB(1000),
		.free = MB(free_mb),
		.floor = MB(floor_mb),
		.hot_below = MB(hot_mb),
		.promoted = MB(promoted_mb),
	};

	return damon_tier_quota_bytes(hot, &u, &damon_tier_test_params, xchg);
}

/* The same with a 1 MiB floor, below both goals. */
static unsigned long damon_tier_test_quota(bool hot, unsigned long free_mb,
					   unsigned long hot_mb,
					   unsigned long promoted_mb)
{
	return damon_tier_test_quota_floor(hot, free_mb, 1, hot_mb,
					   promoted_mb, NULL);
}

static void damon_tier_test_quota_room_deficit(struct kunit *test)
{
	struct damon_tier_upper empty = { };

	/* 20 MiB free: promotion may fill 17 MiB, demotion idles. */
	KUNIT_EXPECT_EQ(test, damon_tier_test_quota(true, 20, 0, 0), MB(17));
	KUNIT_EXPECT_EQ(test, damon_tier_test_quota(false, 20, 0, 0), 0);
	/* 1 MiB free: demotion frees 4 MiB, promotion idles. */
	KUNIT_EXPECT_EQ(test, damon_tier_test_quota(false, 1, 0, 0), MB(4));
	KUNIT_EXPECT_EQ(test, damon_tier_test_quota(true, 1, 0, 0), 0);
	/* An empty node: promotion capped at the quota. */
	KUNIT_EXPECT_EQ(test, damon_tier_test_quota(true, 1000, 0, 0),
			MB(200));
	/* Free above total (racy reads) and a zero-sized node stay sane. */
	KUNIT_EXPECT_EQ(test, damon_tier_test_quota(false, 2000, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, damon_tier_quota_bytes(true, &empty,
						     &damon_tier_test_params,
						     NULL), 0);
	/* Room only above the floor: 20 MiB free, 18 MiB floor. */
	KUNIT_EXPECT_EQ(test,
			damon_tier_test_quota_floor(true, 20, 18, 0, 0, NULL),
			MB(2));
	/* A floor above the free goal alone does not make demotion run. */
	KUNIT_EXPECT_EQ(test,
			damon_tier_test_quota_floor(false, 6, 8, 0, 0, NULL),
			0);
}

/* 4 MiB free (99.6% used): 1 MiB of room, 1 MiB short of the free goal. */
static void damon_tier_test_quota_exchange(struct kunit *test)
{
	/* min(quota / 16, node / 256) */
	unsigned long probe = MB(1000) / 256, xchg;

	/* Hot memory below, nothing promoted yet: one probe each. */
	KUNIT_EXPECT_EQ(test, damon_tier_test_quota(false, 4, 64, 0),
			MB(1) + probe);
	KUNIT_EXPECT_EQ(test, damon_tier_test_quota(true, 4, 64, 0),
			MB(1) + probe);
	/* Promotion moved 10 MiB last time: exchange twice that + a probe ... */
	KUNIT_EXPECT_EQ(test, damon_tier_test_quota(false, 4, 64, 10),
			MB(21) + probe);
	/* ... but not more than what waits below beyond the room ... */
	KUNIT_EXPECT_EQ(test, damon_tier_test_quota(false, 4, 8, 10), MB(8));
	/* ... nor more than the quota. */
	KUNIT_EXPECT_EQ(test, damon_tier_test_quota(true, 4, 900, 199),
			MB(200));
	/*
	 * Room for a probe while promotion keeps moving: the room, and the
	 * exchange on top (pacing holds demotion back until the room is
	 * used) ...
	 */
	KUNIT_EXPECT_EQ(test, damon_tier_test_quota(true, 20, 64, 10),
			MB(37) + probe);
	KUNIT_EXPECT_EQ(test, damon_tier_test_quota(false, 20, 64, 10),
			MB(20) + probe);
	/* ... no more than waits below beyond the room ... */
	KUNIT_EXPECT_EQ(test, damon_tier_test_quota(false, 20, 25, 10), MB(8));
	/* ... and nothing below that the room does not take. */
	KUNIT_EXPECT_EQ(test, damon_tier_test_quota(true, 20, 17, 10), MB(17));
	KUNIT_EXPECT_EQ(test, damon_tier_test_quota(false, 20, 17, 10), 0);
	/* Room for a probe but nothing promoted: hot memory cannot move. */
	KUNIT_EXPECT_EQ(test, damon_tier_test_quota(true, 20, 64, 0), MB(17));
	KUNIT_EXPECT_EQ(test, damon_tier_test_quota(false, 20, 64, 0), 0);
	/* The exchange part is reported separately. */
	KUNIT_EXPECT_EQ(test,
			damon_tier_test_quota_floor(false, 4, 1, 64, 10, &xchg),
			MB(21) + probe);
	KUNIT_EXPECT_EQ(test, xchg, MB(20) + probe);
	/* Nothing hot below: only the free goal, however full the node. */
	KUNIT_EXPECT_EQ(test, damon_tier_test_quota(false, 4, 0, 10), MB(1));
	/*
	 * A boosted floor of 20 MiB: 22 MiB free leaves 2 MiB of room,
	 * less than a probe, so the node exchanges ...
	 */
	KUNIT_EXPECT_EQ(test,
			damon_tier_test_quota_floor(true, 22, 20, 64, 0, &xchg),
			MB(2) + probe);
	KUNIT_EXPECT_EQ(test, xchg, probe);
	/* ... and below it demotion first brings free up to the floor. */
	KUNIT_EXPECT_EQ(test,
			damon_tier_test_quota_floor(false, 12, 20, 64, 0, NULL),
			MB(8) + probe);
}

/* Pacing within an interval, same node; sizes in MiB. */
static unsigned long damon_tier_test_pass_promoted(bool hot,
						   unsigned long free_mb,
						   unsigned long floor_mb,
						   unsigned long hot_mb,
						   unsigned long promoted_mb,
						   bool exchange)
{
	struct damon_tier_upper u = {
		.total = MB(1000),
		.free = MB(free_mb),
		.floor = MB(floor_mb),
		.hot_below = MB(hot_mb),
		.promoted = MB(promoted_mb),
	};

	return damon_tier_pass_bytes(hot, &u, &damon_tier_test_params,
				     exchange);
}

/* The same while promotion keeps moving (10 MiB lately). */
static unsigned long damon_tier_test_pass(bool hot, unsigned long free_mb,
					  unsigned long floor_mb,
					  unsigned long hot_mb, bool exchange)
{
	return damon_tier_test_pass_promoted(hot, free_mb, floor_mb, hot_mb, 20,
					 exchange);
}

static void damon_tier_test_pass_pacing(struct kunit *test)
{
	unsigned long probe = MB(1000) / 256;
	struct damon_tier_upper u = {
		.total = MB(1000),
		.free = MB(6),
		.floor = MB(6),
		.hot_below = MB(64),
	};

	/* Promotion uses what is free above the floor, nothing below it. */
	KUNIT_EXPECT_EQ(test, damon_tier_test_pass(true, 9, 2, 0, true),
			MB(7));
	KUNIT_EXPECT_EQ(test, damon_tier_test_pass(true, 2, 3, 0, true), 0);
	/* Not exchanging: demotion only up to the 5 MiB free goal. */
	KUNIT_EXPECT_EQ(test, damon_tier_test_pass(false, 3, 2, 64, false),
			MB(2));
	/*
	 * Exchanging: a lead of eight probes over the floor, half of it per
	 * pass, after what is missing below the floor ...
	 */
	KUNIT_EXPECT_EQ(test, damon_tier_test_pass(false, 1, 6, 64, true),
			MB(5) + 4 * probe);
	KUNIT_EXPECT_EQ(test, damon_tier_test_pass(false, 6, 6, 64, true),
			4 * probe);
	u.promoted = MB(20);
	u.free = MB(6) + 5 * probe;
	KUNIT_EXPECT_EQ(test, damon_tier_pass_bytes(false, &u,
						    &damon_tier_test_params,
						    true), 3 * probe);
	u.free = MB(6) + 8 * probe;
	KUNIT_EXPECT_EQ(test, damon_tier_pass_bytes(false, &u,
						    &damon_tier_test_params,
						    true), 0);
	/* ... but no more than half the hot memory below ... */
	KUNIT_EXPECT_EQ(test, damon_tier_test_pass(false, 6, 6, 2, true),
			MB(1) / 2);
	/* ... and never below the free goal. */
	KUNIT_EXPECT_EQ(test, damon_tier_test_pass(false, 0, 1, 0, true),
			MB(5));
	/* Enough free already: wait. */
	KUNIT_EXPECT_EQ(test, damon_tier_test_pass(false, 40, 6, 64, true),
			0);
	/* Nothing promoted yet: a seed of a quarter probe over the floor. */
	KUNIT_EXPECT_EQ(test,
			damon_tier_test_pass_promoted(false, 6, 6, 64, 0, true),
			probe / 8);
	KUNIT_EXPECT_EQ(test,
			damon_tier_test_pass_promoted(false, 1, 6, 64, 0, true),
			MB(5) + probe / 8);
	/* Promotion moved 1 MiB lately: lead by twice that ... */
	KUNIT_EXPECT_EQ(test,
			damon_tier_test_pass_promoted(false, 6, 6, 64, 1, true),
			MB(1));
	KUNIT_EXPECT_EQ(test,
			damon_tier_test_pass_promoted(false, 7, 6, 64, 1, true),
			MB(1));
	KUNIT_EXPECT_EQ(test,
			damon_tier_test_pass_promoted(false, 8, 6, 64, 1, true),
			0);
	/* ... and a few stray pages: lead by the seed. */
	u.free = MB(6);
	u.promoted = 16 * PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, damon_tier_pass_bytes(false, &u,
						    &damon_tier_test_params,
						    true), probe / 8);
	/* Never beyond eight probes, nor half the accessed bytes. */
	KUNIT_EXPECT_EQ(test,
			damon_tier_test_pass_promoted(false, 6, 6, 64, 100, true),
			4 * probe);
	KUNIT_EXPECT_EQ(test,
			damon_tier_test_pass_promoted(false, 6, 6, 8, 100, true),
			MB(2));
	/* ... and promotion is not held back by it. */
	KUNIT_EXPECT_EQ(test,
			damon_tier_test_pass_promoted(true, 9, 2, 64, 0, true),
			MB(7));
}

#undef MB

static struct kunit_case damon_tier_test_cases[] = {
	KUNIT_CASE(damon_tier_test_two_tiers),
	KUNIT_CASE(damon_tier_test_three_tiers),
	KUNIT_CASE(damon_tier_test_flat),
	KUNIT_CASE(damon_tier_test_bad_params),
	KUNIT_CASE(damon_tier_test_read_topo),
	KUNIT_CASE(damon_tier_test_quota_room_deficit),
	KUNIT_CASE(damon_tier_test_quota_exchange),
	KUNIT_CASE(damon_tier_test_pass_pacing),
	{},
};

static struct kunit_suite damon_tier_test_suite = {
	.name = "damon-tier",
	.test_cases = damon_tier_test_cases,
};

kunit_test_suite(damon_tier_test_suite);

#endif /* _DAMON_TIER_TEST_H */

#endif /* CONFIG_DAMON_TIER_KUNIT_TEST */
