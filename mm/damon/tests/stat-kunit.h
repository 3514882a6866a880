/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of DAMON_STAT's idle time percentiles and monitored range.
 */
#ifdef CONFIG_DAMON_STAT_KUNIT_TEST

#ifndef _DAMON_STAT_TEST_H
#define _DAMON_STAT_TEST_H

#include <kunit/test.h>

static void damon_stat_test_percentiles(struct kunit *test)
{
	/* Half the bytes idle 100 ms, a quarter hot, a quarter just idle. */
	struct damon_stat_region rs[] = {
		{ .idle_ms = 100, .sz = 50 },
		{ .idle_ms = -20, .sz = 25 },
		{ .idle_ms = 0, .sz = 25 },
	};
	long *pcts = kunit_kcalloc(test, DAMON_STAT_NR_PERCENTILES,
				   sizeof(*pcts), GFP_KERNEL);
	int p;

	KUNIT_ASSERT_NOT_NULL(test, pcts);
	damon_stat_percentiles(rs, ARRAY_SIZE(rs), pcts);
	for (p = 0; p <= 25; p++)
		KUNIT_EXPECT_EQ(test, pcts[p], -20);
	for (p = 26; p <= 50; p++)
		KUNIT_EXPECT_EQ(test, pcts[p], 0);
	for (p = 51; p <= 100; p++)
		KUNIT_EXPECT_EQ(test, pcts[p], 100);
}

static void damon_stat_test_percentiles_edges(struct kunit *test)
{
	struct damon_stat_region one = { .idle_ms = 7, .sz = 4096 };
	struct damon_stat_region big[] = {
		{ .idle_ms = 3, .sz = ULONG_MAX / 2 },
		{ .idle_ms = 1, .sz = ULONG_MAX / 2 },
	};
	long *pcts = kunit_kcalloc(test, DAMON_STAT_NR_PERCENTILES,
				   sizeof(*pcts), GFP_KERNEL);
	int p;

	KUNIT_ASSERT_NOT_NULL(test, pcts);
	/* No memory: all zero, not stale values. */
	for (p = 0; p < DAMON_STAT_NR_PERCENTILES; p++)
		pcts[p] = 42;
	damon_stat_percentiles(NULL, 0, pcts);
	for (p = 0; p < DAMON_STAT_NR_PERCENTILES; p++)
		KUNIT_EXPECT_EQ(test, pcts[p], 0);

	damon_stat_percentiles(&one, 1, pcts);
	for (p = 0; p < DAMON_STAT_NR_PERCENTILES; p++)
		KUNIT_EXPECT_EQ(test, pcts[p], 7);

	/* Sizes near the address space do not overflow the byte counts. */
	damon_stat_percentiles(big, ARRAY_SIZE(big), pcts);
	KUNIT_EXPECT_EQ(test, pcts[0], 1);
	KUNIT_EXPECT_EQ(test, pcts[50], 1);
	KUNIT_EXPECT_EQ(test, pcts[51], 3);
	KUNIT_EXPECT_EQ(test, pcts[100], 3);
}

/* The range runs from the first resource's start to the last one's end. */
static void damon_stat_test_system_ram(struct kunit *test)
{
	struct resource res[] = {
		DEFINE_RES_MEM(0x1000UL, 0x9e000UL),
		DEFINE_RES_MEM(0x100000UL, 0x3ff00000UL),
		DEFINE_RES_MEM(0x80000000UL, 0x40000000UL),
	};
	struct resource zero = DEFINE_RES_MEM(0UL, 0x1000UL);
	struct damon_addr_range range = {};
	int i;

	for (i = 0; i < ARRAY_SIZE(res); i++) {
		KUNIT_EXPECT_EQ(test, damon_stat_system_ram_fn(&res[i], &range),
				0);
		KUNIT_EXPECT_EQ(test, range.start, 0x1000ul);
		KUNIT_EXPECT_EQ(test, range.end,
				(unsigned long)res[i].end + 1);
	}
	/* Memory from address 0 on. */
	range = (struct damon_addr_range){};
	damon_stat_system_ram_fn(&zero, &range);
	damon_stat_system_ram_fn(&res[2], &range);
	KUNIT_EXPECT_EQ(test, range.start, 0ul);
	KUNIT_EXPECT_EQ(test, range.end, 0xc0000000ul);
}

static struct kunit_case damon_stat_test_cases[] = {
	KUNIT_CASE(damon_stat_test_percentiles),
	KUNIT_CASE(damon_stat_test_percentiles_edges),
	KUNIT_CASE(damon_stat_test_system_ram),
	{},
};

static struct kunit_suite damon_stat_test_suite = {
	.name = "damon-stat",
	.test_cases = damon_stat_test_cases,
};

kunit_test_suite(damon_stat_test_suite);

#endif /* _DAMON_STAT_TEST_H */

#endif /* CONFIG_DAMON_STAT_KUNIT_TEST */
