/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of DAMOS allow filters: the verdict for unmatched memory.
 */
#ifdef CONFIG_DAMON_KUNIT_TEST

#ifndef _DAMON_FILTER_ALLOW_TEST_H
#define _DAMON_FILTER_ALLOW_TEST_H

#include <kunit/test.h>

static void damos_test_add(struct kunit *test, struct damos *s,
			   enum damos_filter_type type, bool allow)
{
	struct damos_filter *f = damos_new_filter(type, true);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->allow = allow;
	damos_add_filter(s, f);
}

static void damos_test_filters_default_reject(struct kunit *test)
{
	struct damos_access_pattern pattern = {};
	struct damos_quota quota = {};
	struct damos_watermarks wmarks = { .metric = DAMOS_WMARK_NONE };
	struct damos *s;

	s = damon_new_scheme(&pattern, DAMOS_STAT, 0, &quota, &wmarks,
			     NUMA_NO_NODE);
	KUNIT_ASSERT_NOT_NULL(test, s);

	/* No filter: everything allowed, at both layers. */
	KUNIT_EXPECT_FALSE(test, damos_filters_default_reject(s, false));
	KUNIT_EXPECT_FALSE(test, damos_filters_default_reject(s, true));

	/* damo's promotion recipe: "allow young" rejects the rest. */
	damos_test_add(test, s, DAMOS_FILTER_TYPE_YOUNG, true);
	KUNIT_EXPECT_TRUE(test, damos_filters_default_reject(s, true));
	KUNIT_EXPECT_FALSE(test, damos_filters_default_reject(s, false));

	/* Ending with a reject filter: the rest is allowed. */
	damos_test_add(test, s, DAMOS_FILTER_TYPE_ANON, false);
	KUNIT_EXPECT_FALSE(test, damos_filters_default_reject(s, true));

	/* A core allow filter leaves unmatched memory to the ops filters. */
	damos_test_add(test, s, DAMOS_FILTER_TYPE_ADDR, true);
	KUNIT_EXPECT_FALSE(test, damos_filters_default_reject(s, false));
	damon_destroy_scheme(s);

	/* Core filters alone: the last core filter decides. */
	s = damon_new_scheme(&pattern, DAMOS_STAT, 0, &quota, &wmarks,
			     NUMA_NO_NODE);
	KUNIT_ASSERT_NOT_NULL(test, s);
	damos_test_add(test, s, DAMOS_FILTER_TYPE_TARGET, true);
	KUNIT_EXPECT_TRUE(test, damos_filters_default_reject(s, false));
	damos_test_add(test, s, DAMOS_FILTER_TYPE_ADDR, false);
	KUNIT_EXPECT_FALSE(test, damos_filters_default_reject(s, false));
	damon_destroy_scheme(s);
}

static void damos_test_filter_for_ops(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, damos_filter_for_ops(DAMOS_FILTER_TYPE_ANON));
	KUNIT_EXPECT_TRUE(test, damos_filter_for_ops(DAMOS_FILTER_TYPE_MEMCG));
	KUNIT_EXPECT_TRUE(test, damos_filter_for_ops(DAMOS_FILTER_TYPE_YOUNG));
	KUNIT_EXPECT_FALSE(test, damos_filter_for_ops(DAMOS_FILTER_TYPE_ADDR));
	KUNIT_EXPECT_FALSE(test, damos_filter_for_ops(DAMOS_FILTER_TYPE_TARGET));
}

static struct kunit_case damos_filter_allow_test_cases[] = {
	KUNIT_CASE(damos_test_filters_default_reject),
	KUNIT_CASE(damos_test_filter_for_ops),
	{},
};

static struct kunit_suite damos_filter_allow_test_suite = {
	.name = "damon-filter-allow",
	.test_cases = damos_filter_allow_test_cases,
};

kunit_test_suite(damos_filter_allow_test_suite);

#endif /* _DAMON_FILTER_ALLOW_TEST_H */

#endif /* CONFIG_DAMON_KUNIT_TEST */
