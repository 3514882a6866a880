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
	struct damos_filter *f = damos_new_filter(type, true, allow);

	KUNIT_ASSERT_NOT_NULL(test, f);
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

/* A scheme kept to [1 MiB, 2 MiB) by a reject-the-rest address filter. */
static void damos_test_core_filters_reject(struct kunit *test)
{
	struct damos_access_pattern pattern = {};
	struct damos_quota quota = {};
	struct damos_watermarks wmarks = { .metric = DAMOS_WMARK_NONE };
	struct damon_ctx *c = damon_new_ctx();
	struct damon_target *t = damon_new_target();
	struct damon_region *in, *out, *cut;
	struct damos_filter *f;
	struct damos *s;

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, t);
	damon_add_target(c, t);
	in = damon_new_region(0x100000, 0x180000);
	out = damon_new_region(0x200000, 0x300000);
	cut = damon_new_region(0x080000, 0x140000);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_ASSERT_NOT_NULL(test, cut);
	damon_add_region(cut, t);
	damon_add_region(in, t);
	damon_add_region(out, t);
	s = damon_new_scheme(&pattern, DAMOS_MIGRATE_COLD, 0, &quota, &wmarks,
			     NUMA_NO_NODE);
	KUNIT_ASSERT_NOT_NULL(test, s);

	/* No filter: nothing rejected. */
	damos_set_filters_default_reject(s);
	KUNIT_EXPECT_FALSE(test, damos_core_filters_reject(c, t, out, s));

	f = damos_new_filter(DAMOS_FILTER_TYPE_ADDR, false, false);
	KUNIT_ASSERT_NOT_NULL(test, f);
	f->addr_range.start = 0x100000;
	f->addr_range.end = 0x200000;
	damos_add_filter(s, f);
	damos_set_filters_default_reject(s);
	KUNIT_EXPECT_FALSE(test, damos_core_filters_reject(c, t, in, s));
	KUNIT_EXPECT_TRUE(test, damos_core_filters_reject(c, t, out, s));
	/* Cut by the boundary: kept (apply time splits it), and not split. */
	KUNIT_EXPECT_FALSE(test, damos_core_filters_reject(c, t, cut, s));
	KUNIT_EXPECT_EQ(test, damon_nr_regions(t), 3);

	/* The same range as an allow filter: the rest is rejected as well. */
	f->matching = true;
	f->allow = true;
	damos_set_filters_default_reject(s);
	KUNIT_EXPECT_FALSE(test, damos_core_filters_reject(c, t, in, s));
	KUNIT_EXPECT_TRUE(test, damos_core_filters_reject(c, t, out, s));

	/* A target filter for another target rejects everything here. */
	f->type = DAMOS_FILTER_TYPE_TARGET;
	f->target_idx = 1;
	KUNIT_EXPECT_TRUE(test, damos_core_filters_reject(c, t, in, s));
	f->target_idx = 0;
	KUNIT_EXPECT_FALSE(test, damos_core_filters_reject(c, t, in, s));

	damon_destroy_scheme(s);
	damon_destroy_ctx(c);
}

/*
 * The verdict across the two layers: [core filter, page filter] with
 * each matching or not.
 */
static void damos_test_filters_two_layers(struct kunit *test)
{
	struct damos_access_pattern pattern = {};
	struct damos_quota quota = {};
	struct damos_watermarks wmarks = { .metric = DAMOS_WMARK_NONE };
	struct damos_filter *addr;
	struct damos *s;

	s = damon_new_scheme(&pattern, DAMOS_STAT, 0, &quota, &wmarks,
			     NUMA_NO_NODE);
	KUNIT_ASSERT_NOT_NULL(test, s);
	/* [addr allow R, young reject] */
	damos_test_add(test, s, DAMOS_FILTER_TYPE_ADDR, true);
	addr = list_first_entry(&s->filters, struct damos_filter, list);
	damos_test_add(test, s, DAMOS_FILTER_TYPE_YOUNG, false);
	damos_set_filters_default_reject(s);

	/* In R: allowed by the core, the young filter is not consulted. */
	KUNIT_EXPECT_FALSE(test, damos_core_filters_verdict(s, addr));
	KUNIT_EXPECT_TRUE(test, s->core_filters_allowed);
	/* Outside R: left to the page filters, which then decide. */
	KUNIT_EXPECT_FALSE(test, damos_core_filters_verdict(s, NULL));
	KUNIT_EXPECT_FALSE(test, s->core_filters_allowed);
	KUNIT_EXPECT_FALSE(test, damos_filters_default_reject(s, true));

	/* [addr reject R, young allow]: R is out whatever the page is. */
	addr->allow = false;
	list_last_entry(&s->filters, struct damos_filter, list)->allow = true;
	damos_set_filters_default_reject(s);
	KUNIT_EXPECT_TRUE(test, damos_core_filters_verdict(s, addr));
	KUNIT_EXPECT_FALSE(test, s->core_filters_allowed);
	/* Outside R: young pages allowed, the others rejected. */
	KUNIT_EXPECT_FALSE(test, damos_core_filters_verdict(s, NULL));
	KUNIT_EXPECT_TRUE(test, damos_filters_default_reject(s, true));
	damon_destroy_scheme(s);

	/* [addr allow R] alone: the rest is rejected by the core. */
	s = damon_new_scheme(&pattern, DAMOS_STAT, 0, &quota, &wmarks,
			     NUMA_NO_NODE);
	KUNIT_ASSERT_NOT_NULL(test, s);
	damos_test_add(test, s, DAMOS_FILTER_TYPE_ADDR, true);
	damos_set_filters_default_reject(s);
	KUNIT_EXPECT_TRUE(test, damos_core_filters_verdict(s, NULL));
	damon_destroy_scheme(s);
}

/*
 * The default verdicts are those of the filters as committed: paddr's
 * pageout appends a young reject filter for its own use, which must not
 * turn [anon allow] into "allow what no filter matched" (file pages
 * would then be paged out).
 */
static void damos_test_filters_default_reject_kept(struct kunit *test)
{
	struct damos_access_pattern pattern = {};
	struct damos_quota quota = {};
	struct damos_watermarks wmarks = { .metric = DAMOS_WMARK_NONE };
	struct damos *s;

	s = damon_new_scheme(&pattern, DAMOS_PAGEOUT, 0, &quota, &wmarks,
			     NUMA_NO_NODE);
	KUNIT_ASSERT_NOT_NULL(test, s);
	damos_test_add(test, s, DAMOS_FILTER_TYPE_ANON, true);
	damos_set_filters_default_reject(s);
	KUNIT_EXPECT_TRUE(test, s->ops_filters_default_reject);
	KUNIT_EXPECT_FALSE(test, s->core_filters_default_reject);
	/* What damon_pa_pageout() does: the verdict stays. */
	damos_test_add(test, s, DAMOS_FILTER_TYPE_YOUNG, false);
	KUNIT_EXPECT_TRUE(test, s->ops_filters_default_reject);
	damon_destroy_scheme(s);
}

static struct kunit_case damos_filter_allow_test_cases[] = {
	KUNIT_CASE(damos_test_filters_two_layers),
	KUNIT_CASE(damos_test_filters_default_reject),
	KUNIT_CASE(damos_test_core_filters_reject),
	KUNIT_CASE(damos_test_filter_for_ops),
	KUNIT_CASE(damos_test_filters_default_reject_kept),
	{},
};

static struct kunit_suite damos_filter_allow_test_suite = {
	.name = "damon-filter-allow",
	.test_cases = damos_filter_allow_test_cases,
};

kunit_test_suite(damos_filter_allow_test_suite);

#endif /* _DAMON_FILTER_ALLOW_TEST_H */

#endif /* CONFIG_DAMON_KUNIT_TEST */
