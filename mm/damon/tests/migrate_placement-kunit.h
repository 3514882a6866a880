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
	KUNIT_EXPECT_TRUE(test, damos_policy_allows(NULL, 0));
	for (mode = 0; mode < MPOL_MAX; mode++) {
		pol.mode = mode;
		nodes_clear(pol.nodes);
		node_set(1, pol.nodes);
		switch (mode) {
		case MPOL_BIND:
		case MPOL_PREFERRED_MANY:
			/* Only inside the nodemask. */
			KUNIT_EXPECT_TRUE_MSG(test, damos_policy_allows(&pol, 1),
					      "mode %d", mode);
			KUNIT_EXPECT_FALSE_MSG(test, damos_policy_allows(&pol, 0),
					       "mode %d", mode);
			KUNIT_EXPECT_FALSE_MSG(test, damos_policy_allows(&pol, 2),
					       "mode %d", mode);
			KUNIT_EXPECT_TRUE_MSG(test, mpol_placing(&pol),
					      "mode %d", mode);
			break;
		case MPOL_INTERLEAVE:
		case MPOL_WEIGHTED_INTERLEAVE:
			/* Left where the policy put it, even in the mask. */
			node_set(0, pol.nodes);
			KUNIT_EXPECT_FALSE_MSG(test, damos_policy_allows(&pol, 0),
					       "mode %d", mode);
			KUNIT_EXPECT_FALSE_MSG(test, damos_policy_allows(&pol, 1),
					       "mode %d", mode);
			KUNIT_EXPECT_TRUE_MSG(test, mpol_placing(&pol),
					      "mode %d", mode);
			break;
		default:
			/* MPOL_DEFAULT, MPOL_PREFERRED, MPOL_LOCAL */
			KUNIT_EXPECT_TRUE_MSG(test, damos_policy_allows(&pol, 0),
					      "mode %d", mode);
			KUNIT_EXPECT_TRUE_MSG(test, damos_policy_allows(&pol, 1),
					      "mode %d", mode);
			KUNIT_EXPECT_FALSE_MSG(test, mpol_placing(&pol),
					       "mode %d", mode);
			break;
		}
	}
	/* A bound nodemask of the upper tier only: no demotion out of it. */
	pol.mode = MPOL_BIND;
	nodes_clear(pol.nodes);
	node_set(0, pol.nodes);
	KUNIT_EXPECT_FALSE(test, damos_policy_allows(&pol, 1));
	KUNIT_EXPECT_TRUE(test, damos_policy_allows(&pol, 0));
}

/* A copy of a placing policy is counted while it lives; others are not. */
static void damos_test_placing_count(struct kunit *test)
{
	struct mempolicy bind = { .mode = MPOL_BIND };
	struct mempolicy local = { .mode = MPOL_LOCAL };
	struct mempolicy *a, *b;
	long before = atomic_long_read(&mpol_nr_placing);

	node_set(0, bind.nodes);
	a = mpol_dup(&bind);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(a));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&mpol_nr_placing), before + 1);
	KUNIT_EXPECT_TRUE(test, mpol_placing_in_use());
	b = mpol_dup(&local);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(b));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&mpol_nr_placing), before + 1);
	mpol_get(a);
	mpol_put(a);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&mpol_nr_placing), before + 1);
	mpol_put(a);
	mpol_put(b);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&mpol_nr_placing), before);
}

static struct kunit_case damos_placement_test_cases[] = {
	KUNIT_CASE(damos_test_policy_allows),
	KUNIT_CASE(damos_test_placing_count),
	{},
};

static struct kunit_suite damos_placement_test_suite = {
	.name = "damon-migrate-placement",
	.test_cases = damos_placement_test_cases,
};

kunit_test_suite(damos_placement_test_suite);

#endif /* _DAMON_MIGRATE_PLACEMENT_TEST_H */

#endif /* CONFIG_DAMON_KUNIT_TEST */
