/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of DAMON_TIER: the schemes it builds and the ranges it
 * monitors.
 */
#ifdef CONFIG_DAMON_TIER_KUNIT_TEST

#ifndef _DAMON_TIER_TEST_H
#define _DAMON_TIER_TEST_H

#include <kunit/test.h>

static void damon_tier_test_add_range(struct kunit *test)
{
	struct damon_addr_range r[4] = {};
	int nr = 0;

	nr = damon_tier_add_range(r, nr, 100, 200);
	nr = damon_tier_add_range(r, nr, 0, 50);
	KUNIT_ASSERT_EQ(test, nr, 2);
	KUNIT_EXPECT_EQ(test, r[0].start, 0ul);
	KUNIT_EXPECT_EQ(test, r[0].end, 50ul);
	KUNIT_EXPECT_EQ(test, r[1].start, 100ul);
	/* Above the others, then one that spans the gap and touches both. */
	nr = damon_tier_add_range(r, nr, 300, 400);
	KUNIT_ASSERT_EQ(test, nr, 3);
	KUNIT_EXPECT_EQ(test, r[2].start, 300ul);
	nr = damon_tier_add_range(r, nr, 50, 100);
	KUNIT_ASSERT_EQ(test, nr, 2);
	KUNIT_EXPECT_EQ(test, r[0].start, 0ul);
	KUNIT_EXPECT_EQ(test, r[0].end, 200ul);
	KUNIT_EXPECT_EQ(test, r[1].start, 300ul);
	KUNIT_EXPECT_EQ(test, r[1].end, 400ul);
	/* A span inside another (hot-added memory of another node). */
	nr = damon_tier_add_range(r, nr, 320, 330);
	KUNIT_ASSERT_EQ(test, nr, 2);
	KUNIT_EXPECT_EQ(test, r[1].start, 300ul);
	KUNIT_EXPECT_EQ(test, r[1].end, 400ul);
	/* One that covers everything. */
	nr = damon_tier_add_range(r, nr, 0, 500);
	KUNIT_ASSERT_EQ(test, nr, 1);
	KUNIT_EXPECT_EQ(test, r[0].start, 0ul);
	KUNIT_EXPECT_EQ(test, r[0].end, 500ul);
}

/* The first goal and the n-th filter of @s. */
static struct damos_quota_goal *damon_tier_test_goal(struct damos *s)
{
	return list_first_entry_or_null(&s->quota.goals,
					struct damos_quota_goal, list);
}

static struct damos_filter *damon_tier_test_filter(struct damos *s, int n)
{
	struct damos_filter *f;

	damos_for_each_filter(f, s) {
		if (!n--)
			return f;
	}
	return NULL;
}

static void damon_tier_test_schemes(struct kunit *test)
{
	struct damon_tier_state st = {};
	struct damon_addr_range span = { 1 << 30, 2 << 30 };
	unsigned long saved_mb = quota_mb, saved_ms = quota_reset_interval_ms;
	enum damos_quota_goal_tuner saved_tuner = goal_tuner;
	struct damos_quota_goal *g;
	struct damos_filter *f;
	struct damos *s;

	quota_mb = 200;
	quota_reset_interval_ms = 1000;
	goal_tuner = DAMOS_QUOTA_GOAL_TUNER_GAP;
	KUNIT_ASSERT_EQ(test, damon_tier_read_params(&st), 0);
	/* Promotion of node 1's hot pages into node 0. */
	s = damon_tier_new_scheme(&span, 0, true, 0, &st);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_EQ(test, s->action, DAMOS_MIGRATE_HOT);
	KUNIT_EXPECT_EQ(test, s->target_nid, 0);
	KUNIT_EXPECT_EQ(test, s->pattern.min_nr_accesses, 1u);
	/* 200 MiB a second is 20 MiB a window, on every tuner. */
	KUNIT_EXPECT_EQ(test, s->quota.sz, 20ul << 20);
	/* Promotion is bounded by room, not by its gap. */
	KUNIT_EXPECT_EQ(test, s->quota.goal_tuner, DAMOS_QUOTA_GOAL_TUNER_TEMPORAL);
	KUNIT_EXPECT_EQ(test, s->quota.reset_interval,
			(unsigned long)DAMON_TIER_WINDOW_MS);
	KUNIT_EXPECT_EQ(test, s->quota.fail_charge_denom, 64u);
	g = damon_tier_test_goal(s);
	KUNIT_ASSERT_NOT_NULL(test, g);
	KUNIT_EXPECT_EQ(test, g->metric, DAMOS_QUOTA_NODE_MEM_USED_BP);
	KUNIT_EXPECT_EQ(test, g->target_value, target_used_bp);
	KUNIT_EXPECT_EQ(test, g->nid, 0);
	f = damon_tier_test_filter(s, 0);
	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_EXPECT_EQ(test, f->type, DAMOS_FILTER_TYPE_ADDR);
	KUNIT_EXPECT_FALSE(test, f->matching);
	KUNIT_EXPECT_FALSE(test, f->allow);
	KUNIT_EXPECT_EQ(test, f->addr_range.start, span.start);
	KUNIT_EXPECT_EQ(test, f->addr_range.end, span.end);
	f = damon_tier_test_filter(s, 1);
	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_EXPECT_EQ(test, f->type, DAMOS_FILTER_TYPE_YOUNG);
	KUNIT_EXPECT_TRUE(test, f->allow);
	KUNIT_EXPECT_NULL(test, damon_tier_test_filter(s, 2));
	damon_destroy_scheme(s);

	/* Demotion of node 0's cold pages into node 1, with a cgroup. */
	quota_mb = 1;
	quota_reset_interval_ms = 1UL << 20;
	KUNIT_ASSERT_EQ(test, damon_tier_read_params(&st), 0);
	st.memcg_id = BIT_ULL(40) | 7;
	s = damon_tier_new_scheme(&span, 1, false, 0, &st);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_EQ(test, s->action, DAMOS_MIGRATE_COLD);
	KUNIT_EXPECT_EQ(test, s->target_nid, 1);
	KUNIT_EXPECT_EQ(test, s->pattern.min_nr_accesses, 0u);
	/* Never less than a page a window. */
	KUNIT_EXPECT_EQ(test, s->quota.sz, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, s->quota.goal_tuner, DAMOS_QUOTA_GOAL_TUNER_GAP);
	KUNIT_EXPECT_EQ(test, s->quota.fail_charge_denom, 64u);
	g = damon_tier_test_goal(s);
	KUNIT_ASSERT_NOT_NULL(test, g);
	KUNIT_EXPECT_EQ(test, g->metric, DAMOS_QUOTA_NODE_MEM_HEADROOM_BP);
	KUNIT_EXPECT_EQ(test, g->target_value, target_free_bp);
	KUNIT_EXPECT_EQ(test, g->nid, 0);
	f = damon_tier_test_filter(s, 0);
	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_EXPECT_EQ(test, f->type, DAMOS_FILTER_TYPE_MEMCG);
	KUNIT_EXPECT_EQ(test, f->memcg_id, BIT_ULL(40) | 7);
	KUNIT_EXPECT_FALSE(test, f->allow);
	f = damon_tier_test_filter(s, 2);
	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_EXPECT_EQ(test, f->type, DAMOS_FILTER_TYPE_YOUNG);
	KUNIT_EXPECT_FALSE(test, f->allow);
	damon_destroy_scheme(s);

	/* A cgroup's promotion aims at its own use of the upper node. */
	quota_mb = 1UL << 20;
	quota_reset_interval_ms = 1;
	KUNIT_ASSERT_EQ(test, damon_tier_read_params(&st), 0);
	st.memcg_id = BIT_ULL(40) | 7;
	s = damon_tier_new_scheme(&span, 0, true, 0, &st);
	KUNIT_ASSERT_NOT_NULL(test, s);
	g = damon_tier_test_goal(s);
	KUNIT_ASSERT_NOT_NULL(test, g);
	KUNIT_EXPECT_EQ(test, g->metric, DAMOS_QUOTA_NODE_MEMCG_USED_BP);
	KUNIT_EXPECT_EQ(test, g->memcg_id, BIT_ULL(40) | 7);
	/* 1 TiB a millisecond: 100 TiB a window, no overflow. */
	KUNIT_EXPECT_EQ(test, s->quota.sz, 100ul << 40);
	damon_destroy_scheme(s);
	/* The same rate on the consist tuner, for either direction. */
	goal_tuner = DAMOS_QUOTA_GOAL_TUNER_CONSIST;
	KUNIT_ASSERT_EQ(test, damon_tier_read_params(&st), 0);
	s = damon_tier_new_scheme(&span, 1, false, 0, &st);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_EQ(test, s->quota.sz, 100ul << 40);
	KUNIT_EXPECT_EQ(test, s->quota.goal_tuner, DAMOS_QUOTA_GOAL_TUNER_CONSIST);
	damon_destroy_scheme(s);
	goal_tuner = saved_tuner;
	quota_mb = saved_mb;
	quota_reset_interval_ms = saved_ms;
}

/*
 * The counters are damon_tier_sums plus the running schemes' stats: a
 * commit that keeps a scheme's place but flips its action, and drops
 * another scheme, leaves them as they were.
 */
static void damon_tier_test_stats(struct kunit *test)
{
	struct damos_stat sums[NR_DAMON_TIER_DIRS] = {
		[DAMON_TIER_DEMOTE] = { .sz_applied = 10 },
	};
	struct damos_stat now[NR_DAMON_TIER_DIRS];
	struct damon_addr_range span = { 0, 1 << 20 };
	struct damon_ctx *c = damon_new_ctx(), *p = damon_new_ctx();
	struct damon_tier_state st = {};
	struct damos *hot, *cold, *next;

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, damon_tier_read_params(&st), 0);
	cold = damon_tier_new_scheme(&span, 1, false, 0, &st);
	hot = damon_tier_new_scheme(&span, 0, true, 0, &st);
	next = damon_tier_new_scheme(&span, 0, true, 0, &st);
	KUNIT_ASSERT_NOT_NULL(test, cold);
	KUNIT_ASSERT_NOT_NULL(test, hot);
	KUNIT_ASSERT_NOT_NULL(test, next);
	damon_add_scheme(c, cold);
	damon_add_scheme(c, hot);
	damon_add_scheme(p, next);
	cold->stat.sz_applied = 5;
	cold->stat.sz_skipped_mlock = 3;
	hot->stat.sz_applied = 4;
	hot->stat.sz_skipped_policy = 2;

	damon_tier_add_stats(c, sums, false);
	KUNIT_EXPECT_EQ(test, sums[DAMON_TIER_DEMOTE].sz_applied, 15ul);
	KUNIT_EXPECT_EQ(test, sums[DAMON_TIER_DEMOTE].sz_skipped_mlock, 3ul);
	KUNIT_EXPECT_EQ(test, sums[DAMON_TIER_PROMOTE].sz_applied, 4ul);
	KUNIT_EXPECT_EQ(test, sums[DAMON_TIER_PROMOTE].sz_skipped_policy, 2ul);
	KUNIT_ASSERT_EQ(test, damon_commit_ctx(c, p), 0);
	KUNIT_ASSERT_EQ(test, list_count_nodes(&c->schemes), 1ul);
	damon_tier_add_stats(c, sums, true);

	memcpy(now, sums, sizeof(now));
	damon_tier_add_stats(c, now, false);
	KUNIT_EXPECT_EQ(test, now[DAMON_TIER_DEMOTE].sz_applied, 15ul);
	KUNIT_EXPECT_EQ(test, now[DAMON_TIER_DEMOTE].sz_skipped_mlock, 3ul);
	KUNIT_EXPECT_EQ(test, now[DAMON_TIER_PROMOTE].sz_applied, 4ul);
	KUNIT_EXPECT_EQ(test, now[DAMON_TIER_PROMOTE].sz_skipped_policy, 2ul);
	KUNIT_EXPECT_EQ(test, now[DAMON_TIER_PROMOTE].sz_skipped_mlock, 0ul);
	damon_destroy_ctx(p);
	damon_destroy_ctx(c);
}

/* DAMON's suites make regions of bytes only while they run. */
static void damon_tier_test_page_regions(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, (unsigned long)DAMON_MIN_REGION, PAGE_SIZE);
}

static struct kunit_case damon_tier_test_cases[] = {
	KUNIT_CASE(damon_tier_test_add_range),
	KUNIT_CASE(damon_tier_test_schemes),
	KUNIT_CASE(damon_tier_test_stats),
	KUNIT_CASE(damon_tier_test_page_regions),
	{},
};

static struct kunit_suite damon_tier_test_suite = {
	.name = "damon-tier",
	.test_cases = damon_tier_test_cases,
};

kunit_test_suite(damon_tier_test_suite);

#endif /* _DAMON_TIER_TEST_H */

#endif /* CONFIG_DAMON_TIER_KUNIT_TEST */
