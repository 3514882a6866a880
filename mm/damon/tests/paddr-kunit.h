/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the physical address space operations: which folios the
 * filters of a scheme leave out.
 */
#ifdef CONFIG_DAMON_KUNIT_TEST

#ifndef _DAMON_PADDR_TEST_H
#define _DAMON_PADDR_TEST_H

#include <kunit/test.h>

static struct damos *damon_pa_test_scheme(struct kunit *test,
					  enum damos_filter_type type,
					  bool allow)
{
	struct damos_access_pattern pattern = {};
	struct damos_quota quota = {};
	struct damos_watermarks wmarks = { .metric = DAMOS_WMARK_NONE };
	struct damos_filter *f;
	struct damos *s;

	s = damon_new_scheme(&pattern, DAMOS_PAGEOUT, 0, &quota, &wmarks,
			     NUMA_NO_NODE);
	KUNIT_ASSERT_NOT_NULL(test, s);
	f = damos_new_filter(type, true, allow);
	KUNIT_ASSERT_NOT_NULL(test, f);
	damos_add_filter(s, f);
	/* What committing the scheme does. */
	damos_set_filters_default_reject(s);
	return s;
}

/* What damon_pa_pageout() appends to a scheme without a young filter. */
static void damon_pa_test_add_young_reject(struct kunit *test, struct damos *s)
{
	struct damos_filter *f = damos_new_filter(DAMOS_FILTER_TYPE_YOUNG,
						  true, false);

	KUNIT_ASSERT_NOT_NULL(test, f);
	damos_add_filter(s, f);
}

/*
 * A folio that no filter matches gets the verdict of the filters as
 * committed, also once pageout has appended its young reject filter:
 * [anon allow] leaves out a page cache or kernel folio, [anon reject]
 * takes it.  A folio that is not mapped reads young unless it is idle.
 */
static void damon_pa_test_filter_out_unmatched(struct kunit *test)
{
	struct folio *folio = folio_alloc(GFP_KERNEL, 0);
	struct damos *allow, *reject;

	KUNIT_ASSERT_NOT_NULL(test, folio);
	allow = damon_pa_test_scheme(test, DAMOS_FILTER_TYPE_ANON, true);
	reject = damon_pa_test_scheme(test, DAMOS_FILTER_TYPE_ANON, false);

	folio_set_idle(folio);
	KUNIT_EXPECT_TRUE(test, damos_pa_filter_out(allow, folio));
	KUNIT_EXPECT_FALSE(test, damos_pa_filter_out(reject, folio));

	damon_pa_test_add_young_reject(test, allow);
	damon_pa_test_add_young_reject(test, reject);
	KUNIT_EXPECT_TRUE(test, damos_pa_filter_out(allow, folio));
	KUNIT_EXPECT_FALSE(test, damos_pa_filter_out(reject, folio));
	/* The young filter matched nothing: the folio stays idle. */
	KUNIT_EXPECT_TRUE(test, folio_test_idle(folio));

	/* A young folio: the appended filter leaves it out of both. */
	folio_clear_idle(folio);
	KUNIT_EXPECT_TRUE(test, damos_pa_filter_out(reject, folio));
	folio_clear_idle(folio);
	KUNIT_EXPECT_TRUE(test, damos_pa_filter_out(allow, folio));

	damon_destroy_scheme(allow);
	damon_destroy_scheme(reject);
	folio_put(folio);
}

/*
 * The active, unmapped and hugepage_size types match what they name: with
 * one reject filter, a folio is left out exactly when it matches.
 */
static void damon_pa_test_filter_types(struct kunit *test)
{
	struct folio *small = folio_alloc(GFP_KERNEL, 0);
	struct folio *large = folio_alloc(GFP_KERNEL, 2);
	struct damos *active, *unmapped, *huge;
	struct damos_filter *f;

	KUNIT_ASSERT_NOT_NULL(test, small);
	KUNIT_ASSERT_NOT_NULL(test, large);
	active = damon_pa_test_scheme(test, DAMOS_FILTER_TYPE_ACTIVE, false);
	unmapped = damon_pa_test_scheme(test, DAMOS_FILTER_TYPE_UNMAPPED,
					false);
	huge = damon_pa_test_scheme(test, DAMOS_FILTER_TYPE_HUGEPAGE_SIZE,
				    false);
	damos_for_each_filter(f, huge)
		f->sz_range = (struct damon_size_range){
			.min = 4 * PAGE_SIZE, .max = 4 * PAGE_SIZE };

	KUNIT_EXPECT_FALSE(test, damos_pa_filter_out(active, small));
	folio_set_active(small);
	KUNIT_EXPECT_TRUE(test, damos_pa_filter_out(active, small));
	folio_clear_active(small);

	/* Neither folio is in any page table. */
	KUNIT_EXPECT_TRUE(test, damos_pa_filter_out(unmapped, small));
	KUNIT_EXPECT_TRUE(test, damos_pa_filter_out(unmapped, large));

	KUNIT_EXPECT_FALSE(test, damos_pa_filter_out(huge, small));
	KUNIT_EXPECT_TRUE(test, damos_pa_filter_out(huge, large));
	damos_for_each_filter(f, huge)
		f->sz_range.max = 2 * PAGE_SIZE;
	KUNIT_EXPECT_FALSE(test, damos_pa_filter_out(huge, large));

	damon_destroy_scheme(active);
	damon_destroy_scheme(unmapped);
	damon_destroy_scheme(huge);
	folio_put(small);
	folio_put(large);
}

static struct kunit_case damon_pa_test_cases[] = {
	KUNIT_CASE(damon_pa_test_filter_out_unmatched),
	KUNIT_CASE(damon_pa_test_filter_types),
	{},
};

static struct kunit_suite damon_pa_test_suite = {
	.name = "damon-paddr",
	.test_cases = damon_pa_test_cases,
};

kunit_test_suite(damon_pa_test_suite);

#endif /* _DAMON_PADDR_TEST_H */

#endif /* CONFIG_DAMON_KUNIT_TEST */
