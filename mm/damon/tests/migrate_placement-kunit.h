/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the placement check of DAMOS migrations: the memory
 * policy verdict for every policy mode.
 */
#ifdef CONFIG_DAMON_KUNIT_TEST

#ifndef _DAMON_MIGRATE_PLACEMENT_TEST_H
#define _DAMON_MIGRATE_PLACEMENT_TEST_H

#include <kunit/test.h>

static void damos_test_policy_allows(struct kunit *test)
{
	struct mempolicy pol = { };
	int mode;

	/* No policy, and the modes that let the kernel pick any node. */
	KUNIT_EXPECT_TRUE(test, folio_placement_mpol_allows(NULL, 0));
	for (mode = 0; mode < MPOL_MAX; mode++) {
		pol.mode = mode;
		nodes_clear(pol.nodes);
		node_set(1, pol.nodes);
		switch (mode) {
		case MPOL_BIND:
			/* Only inside the nodemask. */
			KUNIT_EXPECT_TRUE_MSG(test, folio_placement_mpol_allows(&pol, 1),
					      "mode %d", mode);
			KUNIT_EXPECT_FALSE_MSG(test, folio_placement_mpol_allows(&pol, 0),
					       "mode %d", mode);
			KUNIT_EXPECT_FALSE_MSG(test, folio_placement_mpol_allows(&pol, 2),
					       "mode %d", mode);
			break;
		case MPOL_INTERLEAVE:
		case MPOL_WEIGHTED_INTERLEAVE:
			/* Left where the policy put it, even in the mask. */
			node_set(0, pol.nodes);
			KUNIT_EXPECT_FALSE_MSG(test, folio_placement_mpol_allows(&pol, 0),
					       "mode %d", mode);
			KUNIT_EXPECT_FALSE_MSG(test, folio_placement_mpol_allows(&pol, 1),
					       "mode %d", mode);
			break;
		default:
			/* Default, local and both preferences. */
			KUNIT_EXPECT_TRUE_MSG(test, folio_placement_mpol_allows(&pol, 0),
					      "mode %d", mode);
			KUNIT_EXPECT_TRUE_MSG(test, folio_placement_mpol_allows(&pol, 1),
					      "mode %d", mode);
			break;
		}
	}
	/* A bound nodemask of the upper tier only: no demotion out of it. */
	pol.mode = MPOL_BIND;
	nodes_clear(pol.nodes);
	node_set(0, pol.nodes);
	KUNIT_EXPECT_FALSE(test, folio_placement_mpol_allows(&pol, 1));
	KUNIT_EXPECT_TRUE(test, folio_placement_mpol_allows(&pol, 0));
}

static struct kunit_case damos_placement_test_cases[] = {
	KUNIT_CASE(damos_test_policy_allows),
	{},
};

static struct kunit_suite damos_placement_test_suite = {
	.name = "damon-migrate-placement",
	.test_cases = damos_placement_test_cases,
};

kunit_test_suite(damos_placement_test_suite);

#endif /* _DAMON_MIGRATE_PLACEMENT_TEST_H */

#endif /* CONFIG_DAMON_KUNIT_TEST */
