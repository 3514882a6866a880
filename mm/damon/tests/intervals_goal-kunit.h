/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the monitoring intervals auto-tuning.
 */
#ifdef CONFIG_DAMON_KUNIT_TEST

#ifndef _DAMON_INTERVALS_GOAL_TEST_H
#define _DAMON_INTERVALS_GOAL_TEST_H

#include <kunit/test.h>

/* 4% of the events, every 3 aggregations, 5 ms to 10 s. */
static const struct damon_intervals_goal damon_test_igoal = {
	.access_bp = 400,
	.aggrs = 3,
	.min_sample_us = 5000,
	.max_sample_us = 10000000,
};

static void damon_test_intervals_goal_valid(struct kunit *test)
{
	struct damon_attrs a = {
		.sample_interval = 5000,
		.aggr_interval = 100000,
		.intervals_goal = damon_test_igoal,
	};
	struct damon_intervals_goal *g = &a.intervals_goal;

	KUNIT_EXPECT_TRUE(test, damon_intervals_goal_valid(&a));
	/* Any access ratio is taken. */
	g->access_bp = 0;
	KUNIT_EXPECT_TRUE(test, damon_intervals_goal_valid(&a));
	g->access_bp = 10000;
	KUNIT_EXPECT_TRUE(test, damon_intervals_goal_valid(&a));
	g->min_sample_us = 0;
	KUNIT_EXPECT_TRUE(test, damon_intervals_goal_valid(&a));
	/* An empty range, or one without the starting interval, is not. */
	g->min_sample_us = g->max_sample_us + 1;
	KUNIT_EXPECT_FALSE(test, damon_intervals_goal_valid(&a));
	g->min_sample_us = a.sample_interval + 1;
	KUNIT_EXPECT_FALSE(test, damon_intervals_goal_valid(&a));
	g->min_sample_us = a.sample_interval;
	KUNIT_EXPECT_TRUE(test, damon_intervals_goal_valid(&a));
	g->min_sample_us = 1000;
	g->max_sample_us = a.sample_interval - 1;
	KUNIT_EXPECT_FALSE(test, damon_intervals_goal_valid(&a));
	g->min_sample_us = a.sample_interval;
	g->max_sample_us = a.sample_interval;
	KUNIT_EXPECT_TRUE(test, damon_intervals_goal_valid(&a));
	/* Off: whatever the rest says, as damo writes all zeroes. */
	*g = (struct damon_intervals_goal){};
	KUNIT_EXPECT_TRUE(test, damon_intervals_goal_valid(&a));
	g->min_sample_us = 10;
	g->max_sample_us = 1;
	KUNIT_EXPECT_TRUE(test, damon_intervals_goal_valid(&a));
}

static void damon_test_intervals_tune_step(struct kunit *test)
{
	const struct damon_intervals_goal *g = &damon_test_igoal;
	struct damon_intervals_goal zero_bp = damon_test_igoal;
	/* 4% of 1,000,000 possible events is 40,000. */
	const u64 max = 1000000;

	zero_bp.access_bp = 0;

	/* Nothing seen: double.  Exactly the goal: keep. */
	KUNIT_EXPECT_EQ(test, damon_intervals_tune_sample_us(10000, 0, max, g),
			20000);
	KUNIT_EXPECT_EQ(test,
			damon_intervals_tune_sample_us(10000, 40000, max, g),
			10000);
	/*
	 * Half the goal: 1.5x.  A quarter above it: 0.75x, mapped onto
	 * [1/2, 1] as 0.875x.  Three quarters above: 0.625x.
	 */
	KUNIT_EXPECT_EQ(test,
			damon_intervals_tune_sample_us(10000, 20000, max, g),
			15000);
	KUNIT_EXPECT_EQ(test,
			damon_intervals_tune_sample_us(10000, 50000, max, g),
			8750);
	KUNIT_EXPECT_EQ(test,
			damon_intervals_tune_sample_us(20000, 70000, max, g),
			12500);
	/* At least half the interval, however many events. */
	KUNIT_EXPECT_EQ(test, damon_intervals_tune_sample_us(20000, max, max, g),
			10000);
	/* Held within [min_sample_us, max_sample_us]. */
	KUNIT_EXPECT_EQ(test, damon_intervals_tune_sample_us(6000, max, max, g),
			5000);
	KUNIT_EXPECT_EQ(test,
			damon_intervals_tune_sample_us(8000000, 0, max, g),
			10000000);
	KUNIT_EXPECT_EQ(test, damon_intervals_tune_sample_us(1000, 0, 0, g),
			5000);
	/*
	 * Nothing could be seen, or nothing is wanted (access_bp 0): one
	 * event is wanted, so none seen doubles and two or more halve.
	 */
	KUNIT_EXPECT_EQ(test, damon_intervals_tune_sample_us(7000, 0, 0, g),
			14000);
	KUNIT_EXPECT_EQ(test, damon_intervals_tune_sample_us(7000, 0, max,
							     &zero_bp), 14000);
	KUNIT_EXPECT_EQ(test, damon_intervals_tune_sample_us(20000, 2, max,
							     &zero_bp), 10000);
	/* Huge counts do not overflow. */
	KUNIT_EXPECT_EQ(test,
			damon_intervals_tune_sample_us(10000, 0, U64_MAX / 2, g),
			20000);
	KUNIT_EXPECT_EQ(test,
			damon_intervals_tune_sample_us(10000, U64_MAX / 2,
						       U64_MAX / 2, g),
			5000);
}

static void damon_test_intervals_tiny_step(struct kunit *test)
{
	struct damon_intervals_goal g = damon_test_igoal;

	g.min_sample_us = 1;
	/* 1 us * 1.25 rounds back to 1: still grows. */
	KUNIT_EXPECT_EQ(test, damon_intervals_tune_sample_us(1, 30, 1000, &g),
			2);
	/* Never down to 0 us, even with min_sample_us 0. */
	g.min_sample_us = 0;
	KUNIT_EXPECT_EQ(test, damon_intervals_tune_sample_us(1, 1000, 1000, &g),
			1);
	KUNIT_EXPECT_EQ(test, damon_intervals_tune_sample_us(0, 0, 1000, &g),
			1);
}

static void damon_test_intervals_next_attrs(struct kunit *test)
{
	struct damon_ctx *ctx = damon_new_ctx();
	struct damon_attrs attrs;
	struct damon_target *t;
	struct damon_region *r;
	int i;

	if (!ctx)
		kunit_skip(test, "ctx alloc fail");
	t = damon_new_target();
	if (!t) {
		damon_destroy_ctx(ctx);
		kunit_skip(test, "target alloc fail");
	}
	damon_add_target(ctx, t);
	r = damon_new_region(0, 100 * PAGE_SIZE);
	if (!r) {
		damon_destroy_ctx(ctx);
		kunit_skip(test, "region alloc fail");
	}
	damon_add_region(r, t);
	ctx->attrs.sample_interval = 5000;
	ctx->attrs.aggr_interval = 100000;
	ctx->attrs.intervals_goal = damon_test_igoal;

	/* Idle memory: nothing changes before the third aggregation. */
	for (i = 0; i < 2; i++) {
		damon_intervals_account(ctx);
		KUNIT_EXPECT_FALSE(test, damon_intervals_next_attrs(ctx, &attrs));
	}
	damon_intervals_account(ctx);
	KUNIT_EXPECT_TRUE(test, damon_intervals_next_attrs(ctx, &attrs));
	KUNIT_EXPECT_EQ(test, attrs.sample_interval, 10000);
	KUNIT_EXPECT_EQ(test, attrs.aggr_interval, 200000);
	KUNIT_EXPECT_EQ(test, attrs.intervals_goal.aggrs, 3);
	KUNIT_EXPECT_EQ(test, ctx->intervals_tune_aggrs, 0);
	KUNIT_EXPECT_EQ(test, ctx->intervals_access_events, 0);

	/* Accessed in every sample: halve, down to the minimum. */
	ctx->attrs.sample_interval = 8000;
	ctx->attrs.aggr_interval = 160000;
	r->nr_accesses = 20;
	for (i = 0; i < 3; i++)
		damon_intervals_account(ctx);
	KUNIT_EXPECT_TRUE(test, damon_intervals_next_attrs(ctx, &attrs));
	KUNIT_EXPECT_EQ(test, attrs.sample_interval, 5000);
	KUNIT_EXPECT_EQ(test, attrs.aggr_interval, 100000);

	/* At the minimum already: nothing to change. */
	ctx->attrs.sample_interval = 5000;
	ctx->attrs.aggr_interval = 100000;
	for (i = 0; i < 3; i++)
		damon_intervals_account(ctx);
	KUNIT_EXPECT_FALSE(test, damon_intervals_next_attrs(ctx, &attrs));

	/* aggrs 0: off. */
	ctx->attrs.intervals_goal.aggrs = 0;
	r->nr_accesses = 0;
	for (i = 0; i < 5; i++)
		damon_intervals_account(ctx);
	KUNIT_EXPECT_FALSE(test, damon_intervals_next_attrs(ctx, &attrs));

	damon_destroy_ctx(ctx);
}

static struct kunit_case damon_intervals_goal_test_cases[] = {
	KUNIT_CASE(damon_test_intervals_goal_valid),
	KUNIT_CASE(damon_test_intervals_tune_step),
	KUNIT_CASE(damon_test_intervals_tiny_step),
	KUNIT_CASE(damon_test_intervals_next_attrs),
	{},
};

static struct kunit_suite damon_intervals_goal_test_suite = {
	.name = "damon-intervals-goal",
	.test_cases = damon_intervals_goal_test_cases,
};

kunit_test_suite(damon_intervals_goal_test_suite);

#endif /* _DAMON_INTERVALS_GOAL_TEST_H */

#endif /* CONFIG_DAMON_KUNIT_TEST */
