/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the "exchange" quota goal tuner: window quotas from the
 * node memory goals, and the pacing of each pass.
 */
#ifdef CONFIG_DAMON_KUNIT_TEST

#ifndef _DAMOS_GOAL_TUNER_EXCHANGE_TEST_H
#define _DAMOS_GOAL_TUNER_EXCHANGE_TEST_H

#include <kunit/test.h>

/* 99.7% used, 0.5% free, a 200 MiB quota. */
static const struct damos_xchg_goals damos_xchg_test_goals = {
	.used_bp = 9970,
	.free_bp = 50,
	.quota = 200UL << 20,
};

#define MB(x)	((unsigned long)(x) << 20)

/*
 * Quota of a scheme for a 1000 MiB upper node with goals 99.7% used and
 * 0.5% free (997 MiB used, 5 MiB free), a 200 MiB quota and a floor of
 * @floor_mb; sizes in MiB.
 */
static unsigned long damos_xchg_test_quota_floor(bool fill,
						 unsigned long free_mb,
						 unsigned long floor_mb,
						 unsigned long hot_mb,
						 unsigned long promoted_mb,
						 unsigned long *xchg)
{
	struct damos_xchg_node u = {
		.total = MB(1000),
		.free = MB(free_mb),
		.floor = MB(floor_mb),
		.hot_below = MB(hot_mb),
		.promoted = MB(promoted_mb),
	};

	return damos_xchg_quota_bytes(fill, &u, &damos_xchg_test_goals, xchg);
}

/* The same with a 1 MiB floor, below both goals. */
static unsigned long damos_xchg_test_quota(bool fill, unsigned long free_mb,
					   unsigned long hot_mb,
					   unsigned long promoted_mb)
{
	return damos_xchg_test_quota_floor(fill, free_mb, 1, hot_mb,
					   promoted_mb, NULL);
}

static void damos_xchg_test_quota_room_deficit(struct kunit *test)
{
	struct damos_xchg_node empty = { };

	/* 20 MiB free: promotion may fill 17 MiB, demotion idles. */
	KUNIT_EXPECT_EQ(test, damos_xchg_test_quota(true, 20, 0, 0), MB(17));
	KUNIT_EXPECT_EQ(test, damos_xchg_test_quota(false, 20, 0, 0), 0);
	/* 1 MiB free: demotion frees 4 MiB, promotion idles. */
	KUNIT_EXPECT_EQ(test, damos_xchg_test_quota(false, 1, 0, 0), MB(4));
	KUNIT_EXPECT_EQ(test, damos_xchg_test_quota(true, 1, 0, 0), 0);
	/* An empty node: promotion capped at the quota. */
	KUNIT_EXPECT_EQ(test, damos_xchg_test_quota(true, 1000, 0, 0),
			MB(200));
	/* Free above total (racy reads) and a zero-sized node stay sane. */
	KUNIT_EXPECT_EQ(test, damos_xchg_test_quota(false, 2000, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, damos_xchg_quota_bytes(true, &empty,
						     &damos_xchg_test_goals,
						     NULL), 0);
	/* Room only above the floor: 20 MiB free, 18 MiB floor. */
	KUNIT_EXPECT_EQ(test,
			damos_xchg_test_quota_floor(true, 20, 18, 0, 0, NULL),
			MB(2));
	/* A floor above the free goal alone does not make demotion run. */
	KUNIT_EXPECT_EQ(test,
			damos_xchg_test_quota_floor(false, 6, 8, 0, 0, NULL),
			0);
}

/* 4 MiB free (99.6% used): 1 MiB of room, 1 MiB short of the free goal. */
static void damos_xchg_test_quota_exchange(struct kunit *test)
{
	/* min(quota / 16, node / 256) */
	unsigned long probe = MB(1000) / 256, xchg;

	/* Hot memory below, nothing promoted yet: one probe each. */
	KUNIT_EXPECT_EQ(test, damos_xchg_test_quota(false, 4, 64, 0),
			MB(1) + probe);
	KUNIT_EXPECT_EQ(test, damos_xchg_test_quota(true, 4, 64, 0),
			MB(1) + probe);
	/* Promotion moved 10 MiB last time: exchange twice that + a probe ... */
	KUNIT_EXPECT_EQ(test, damos_xchg_test_quota(false, 4, 64, 10),
			MB(21) + probe);
	/* ... but not more than what waits below beyond the room ... */
	KUNIT_EXPECT_EQ(test, damos_xchg_test_quota(false, 4, 8, 10), MB(8));
	/* ... nor more than the quota. */
	KUNIT_EXPECT_EQ(test, damos_xchg_test_quota(true, 4, 900, 199),
			MB(200));
	/*
	 * Room for a probe while promotion keeps moving: the room, and the
	 * exchange on top (pacing holds demotion back until the room is
	 * used) ...
	 */
	KUNIT_EXPECT_EQ(test, damos_xchg_test_quota(true, 20, 64, 10),
			MB(37) + probe);
	KUNIT_EXPECT_EQ(test, damos_xchg_test_quota(false, 20, 64, 10),
			MB(20) + probe);
	/* ... no more than waits below beyond the room ... */
	KUNIT_EXPECT_EQ(test, damos_xchg_test_quota(false, 20, 25, 10), MB(8));
	/* ... and nothing below that the room does not take. */
	KUNIT_EXPECT_EQ(test, damos_xchg_test_quota(true, 20, 17, 10), MB(17));
	KUNIT_EXPECT_EQ(test, damos_xchg_test_quota(false, 20, 17, 10), 0);
	/* Room for a probe but nothing promoted: hot memory cannot move. */
	KUNIT_EXPECT_EQ(test, damos_xchg_test_quota(true, 20, 64, 0), MB(17));
	KUNIT_EXPECT_EQ(test, damos_xchg_test_quota(false, 20, 64, 0), 0);
	/* The exchange part is reported separately. */
	KUNIT_EXPECT_EQ(test,
			damos_xchg_test_quota_floor(false, 4, 1, 64, 10, &xchg),
			MB(21) + probe);
	KUNIT_EXPECT_EQ(test, xchg, MB(20) + probe);
	/* Nothing hot below: only the free goal, however full the node. */
	KUNIT_EXPECT_EQ(test, damos_xchg_test_quota(false, 4, 0, 10), MB(1));
	/*
	 * A boosted floor of 20 MiB: 22 MiB free leaves 2 MiB of room,
	 * less than a probe, so the node exchanges ...
	 */
	KUNIT_EXPECT_EQ(test,
			damos_xchg_test_quota_floor(true, 22, 20, 64, 0, &xchg),
			MB(2) + probe);
	KUNIT_EXPECT_EQ(test, xchg, probe);
	/* ... and below it demotion first brings free up to the floor. */
	KUNIT_EXPECT_EQ(test,
			damos_xchg_test_quota_floor(false, 12, 20, 64, 0, NULL),
			MB(8) + probe);
}

/* Pacing within an interval, same node; sizes in MiB. */
static unsigned long damos_xchg_test_pass_promoted(bool fill,
						   unsigned long free_mb,
						   unsigned long floor_mb,
						   unsigned long hot_mb,
						   unsigned long promoted_mb,
						   bool exchange)
{
	struct damos_xchg_node u = {
		.total = MB(1000),
		.free = MB(free_mb),
		.floor = MB(floor_mb),
		.hot_below = MB(hot_mb),
		.promoted = MB(promoted_mb),
	};

	return damos_xchg_pass_bytes(fill, &u, &damos_xchg_test_goals,
				     exchange);
}

/* The same while promotion keeps moving (10 MiB lately). */
static unsigned long damos_xchg_test_pass(bool fill, unsigned long free_mb,
					  unsigned long floor_mb,
					  unsigned long hot_mb, bool exchange)
{
	return damos_xchg_test_pass_promoted(fill, free_mb, floor_mb, hot_mb, 20,
					 exchange);
}

static void damos_xchg_test_pass_pacing(struct kunit *test)
{
	unsigned long probe = MB(1000) / 256;
	struct damos_xchg_node u = {
		.total = MB(1000),
		.free = MB(6),
		.floor = MB(6),
		.hot_below = MB(64),
	};

	/* Promotion uses what is free above the floor, nothing below it. */
	KUNIT_EXPECT_EQ(test, damos_xchg_test_pass(true, 9, 2, 0, true),
			MB(7));
	KUNIT_EXPECT_EQ(test, damos_xchg_test_pass(true, 2, 3, 0, true), 0);
	/* Not exchanging: demotion only up to the 5 MiB free goal. */
	KUNIT_EXPECT_EQ(test, damos_xchg_test_pass(false, 3, 2, 64, false),
			MB(2));
	/*
	 * Exchanging: a lead of eight probes over the floor, half of it per
	 * pass, after what is missing below the floor ...
	 */
	KUNIT_EXPECT_EQ(test, damos_xchg_test_pass(false, 1, 6, 64, true),
			MB(5) + 4 * probe);
	KUNIT_EXPECT_EQ(test, damos_xchg_test_pass(false, 6, 6, 64, true),
			4 * probe);
	u.promoted = MB(20);
	u.free = MB(6) + 5 * probe;
	KUNIT_EXPECT_EQ(test, damos_xchg_pass_bytes(false, &u,
						    &damos_xchg_test_goals,
						    true), 3 * probe);
	u.free = MB(6) + 8 * probe;
	KUNIT_EXPECT_EQ(test, damos_xchg_pass_bytes(false, &u,
						    &damos_xchg_test_goals,
						    true), 0);
	/* ... but no more than half the hot memory below ... */
	KUNIT_EXPECT_EQ(test, damos_xchg_test_pass(false, 6, 6, 2, true),
			MB(1) / 2);
	/* ... and never below the free goal. */
	KUNIT_EXPECT_EQ(test, damos_xchg_test_pass(false, 0, 1, 0, true),
			MB(5));
	/* Enough free already: wait. */
	KUNIT_EXPECT_EQ(test, damos_xchg_test_pass(false, 40, 6, 64, true),
			0);
	/* Nothing promoted yet: a seed of a quarter probe over the floor. */
	KUNIT_EXPECT_EQ(test,
			damos_xchg_test_pass_promoted(false, 6, 6, 64, 0, true),
			probe / 8);
	KUNIT_EXPECT_EQ(test,
			damos_xchg_test_pass_promoted(false, 1, 6, 64, 0, true),
			MB(5) + probe / 8);
	/* Promotion moved 1 MiB lately: lead by twice that ... */
	KUNIT_EXPECT_EQ(test,
			damos_xchg_test_pass_promoted(false, 6, 6, 64, 1, true),
			MB(1));
	KUNIT_EXPECT_EQ(test,
			damos_xchg_test_pass_promoted(false, 7, 6, 64, 1, true),
			MB(1));
	KUNIT_EXPECT_EQ(test,
			damos_xchg_test_pass_promoted(false, 8, 6, 64, 1, true),
			0);
	/* ... and a few stray pages: lead by the seed. */
	u.free = MB(6);
	u.promoted = 16 * PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, damos_xchg_pass_bytes(false, &u,
						    &damos_xchg_test_goals,
						    true), probe / 8);
	/* Never beyond eight probes, nor half the accessed bytes. */
	KUNIT_EXPECT_EQ(test,
			damos_xchg_test_pass_promoted(false, 6, 6, 64, 100, true),
			4 * probe);
	KUNIT_EXPECT_EQ(test,
			damos_xchg_test_pass_promoted(false, 6, 6, 8, 100, true),
			MB(2));
	/* ... and promotion is not held back by it. */
	KUNIT_EXPECT_EQ(test,
			damos_xchg_test_pass_promoted(true, 9, 2, 64, 0, true),
			MB(7));
}

/* Byte counts that do not fit unsigned long saturate or scale. */
static void damos_xchg_test_overflow(struct kunit *test)
{
	struct damos_xchg_goals g = damos_xchg_test_goals;
	struct damos_xchg_node u = {
		.total = MB(1000),
		.free = MB(4),
		.floor = MB(1),
		.hot_below = ULONG_MAX,
		.promoted = ULONG_MAX / 2 + 1,
	};
	unsigned long half = ULONG_MAX / 2 + 1, xchg;
	/* Pages: nearly 2^(BITS_PER_LONG - 1) bytes, divisible by 250. */
	unsigned long big = 1000UL << (BITS_PER_LONG - 11);
	unsigned int shift;

	KUNIT_EXPECT_EQ(test, damos_xchg_shl_sat(half, 1), ULONG_MAX);
	KUNIT_EXPECT_EQ(test, damos_xchg_shl_sat(half - 1, 1), ULONG_MAX - 1);
	KUNIT_EXPECT_EQ(test, damos_xchg_shl_sat(MB(3), 2), MB(12));
	KUNIT_EXPECT_EQ(test, damos_xchg_add_sat(half, half), ULONG_MAX);
	KUNIT_EXPECT_EQ(test, damos_xchg_add_sat(MB(1), MB(2)), MB(3));
	/*
	 * No quota size (ULONG_MAX): promotion that moved over half of
	 * unsigned long exchanges all that waits below, not a wrapped sum.
	 */
	g.quota = ULONG_MAX;
	damos_xchg_quota_bytes(false, &u, &g, &xchg);
	KUNIT_EXPECT_EQ(test, xchg, ULONG_MAX - MB(1));
	/* Nodes of more bytes than unsigned long holds are scaled down. */
	KUNIT_EXPECT_EQ(test, damos_xchg_node_shift(1), 0);
	KUNIT_EXPECT_EQ(test, damos_xchg_node_shift(ULONG_MAX >> PAGE_SHIFT),
			0);
	KUNIT_EXPECT_EQ(test,
			damos_xchg_node_shift((ULONG_MAX >> PAGE_SHIFT) + 1),
			1);
	KUNIT_EXPECT_EQ(test, damos_xchg_node_shift(ULONG_MAX), PAGE_SHIFT);
	KUNIT_EXPECT_EQ(test, damos_xchg_node_bytes(ULONG_MAX / 4,
						    PAGE_SHIFT - 1),
			ULONG_MAX / 2 - 1);
	KUNIT_EXPECT_EQ(test, damos_xchg_node_bytes(256, 0), 256 * PAGE_SIZE);
	/* Scaled, a node 99.6% used still reads 99.6% used. */
	shift = damos_xchg_node_shift(big);
	KUNIT_EXPECT_EQ(test, shift, PAGE_SHIFT - 1);
	KUNIT_EXPECT_EQ(test,
			damos_node_mem_bp_of(damos_xchg_node_bytes(big, shift),
					     damos_xchg_node_bytes(big / 250,
								   shift),
					     true), 9960);
}

static void damos_xchg_test_recent(struct kunit *test)
{
	struct damos_quota_exchange x = { };

	/* Aggregation intervals of 20 samples, from sample 1000 on. */
	damos_xchg_note_moved(&x, MB(8), 1000, 20);
	KUNIT_EXPECT_EQ(test, x.recent_start, 1000);
	KUNIT_EXPECT_EQ(test, damos_xchg_recent(&x, 1000, 20), MB(8));
	damos_xchg_note_moved(&x, MB(4), 1010, 20);
	KUNIT_EXPECT_EQ(test, damos_xchg_recent(&x, 1019, 20), MB(12));
	/* 12 MiB moved in [1000, 1020) fade out over the next 20 samples. */
	KUNIT_EXPECT_EQ(test, damos_xchg_recent(&x, 1025, 20), MB(9));
	KUNIT_EXPECT_EQ(test, damos_xchg_recent(&x, 1039, 20), MB(12) / 20);
	KUNIT_EXPECT_EQ(test, damos_xchg_recent(&x, 1040, 20), 0);
	/* A pass in the next stretch moves 2 MiB: the last one fades. */
	damos_xchg_note_moved(&x, MB(2), 1030, 20);
	KUNIT_EXPECT_EQ(test, x.recent_start, 1020);
	KUNIT_EXPECT_EQ(test, x.recent_last, MB(12));
	KUNIT_EXPECT_EQ(test, damos_xchg_recent(&x, 1030, 20),
			MB(2) + MB(6));
	/* Nothing for two stretches: all forgotten, a new stretch starts. */
	damos_xchg_note_moved(&x, 0, 1100, 20);
	KUNIT_EXPECT_EQ(test, x.recent_start, 1100);
	KUNIT_EXPECT_EQ(test, damos_xchg_recent(&x, 1100, 20), 0);
	/* A new scheme's zeroed state counts nothing. */
	memset(&x, 0, sizeof(x));
	KUNIT_EXPECT_EQ(test, damos_xchg_recent(&x, 5000, 20), 0);
}

#undef MB

static struct kunit_case damos_xchg_test_cases[] = {
	KUNIT_CASE(damos_xchg_test_recent),
	KUNIT_CASE(damos_xchg_test_quota_room_deficit),
	KUNIT_CASE(damos_xchg_test_quota_exchange),
	KUNIT_CASE(damos_xchg_test_pass_pacing),
	KUNIT_CASE(damos_xchg_test_overflow),
	{},
};

static struct kunit_suite damos_xchg_test_suite = {
	.name = "damon-goal-tuner-exchange",
	.test_cases = damos_xchg_test_cases,
};

kunit_test_suite(damos_xchg_test_suite);

#endif /* _DAMOS_GOAL_TUNER_EXCHANGE_TEST_H */

#endif /* CONFIG_DAMON_KUNIT_TEST */
