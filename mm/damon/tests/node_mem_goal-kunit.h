/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the node_mem_{used,free}_bp quota goal metrics.
 */
#ifdef CONFIG_DAMON_KUNIT_TEST

#ifndef _DAMON_NODE_MEM_GOAL_TEST_H
#define _DAMON_NODE_MEM_GOAL_TEST_H

#include <kunit/test.h>

static void damos_test_node_mem_bp_of(struct kunit *test)
{
	/* 1 GiB node in 4 KiB pages, a quarter free. */
	KUNIT_EXPECT_EQ(test, damos_node_mem_bp_of(262144, 65536, true), 7500);
	KUNIT_EXPECT_EQ(test, damos_node_mem_bp_of(262144, 65536, false), 2500);
	/* 99.7% used. */
	KUNIT_EXPECT_EQ(test, damos_node_mem_bp_of(10000, 30, true), 9970);
	KUNIT_EXPECT_EQ(test, damos_node_mem_bp_of(10000, 30, false), 30);
	/* Empty and full nodes. */
	KUNIT_EXPECT_EQ(test, damos_node_mem_bp_of(1000, 1000, true), 0);
	KUNIT_EXPECT_EQ(test, damos_node_mem_bp_of(1000, 0, true), 10000);
	/* Free above total (racy counters) is clamped. */
	KUNIT_EXPECT_EQ(test, damos_node_mem_bp_of(1000, 1200, false), 10000);
	/* Zero total must not divide by zero. */
	KUNIT_EXPECT_EQ(test, damos_node_mem_bp_of(0, 0, true), 0);
	KUNIT_EXPECT_EQ(test, damos_node_mem_bp_of(0, 5, false), 0);
	/* Large nodes (1 TiB in pages) do not overflow. */
	KUNIT_EXPECT_EQ(test, damos_node_mem_bp_of(1UL << 28, 1UL << 27, true),
			5000);
	/* Nor do counts near the top of a 32-bit unsigned long (16 GiB). */
	KUNIT_EXPECT_EQ(test, damos_node_mem_bp_of(U32_MAX & ~3U,
						   U32_MAX / 4, true), 7500);
	KUNIT_EXPECT_EQ(test, damos_node_mem_bp_of(U32_MAX & ~3U,
						   U32_MAX / 4, false), 2500);
}

/* Unmeasurable nodes read as unused, mainline's values. */
static void damos_test_node_mem_bp_invalid_node(struct kunit *test)
{
	unsigned long used, free;

	if (!IS_ENABLED(CONFIG_NUMA)) {
		/* Without NUMA every node metric reads 0. */
		KUNIT_EXPECT_EQ(test, damos_node_mem_bp(0, true), 0);
		KUNIT_EXPECT_EQ(test, damos_node_mem_bp(0, false), 0);
		return;
	}
	KUNIT_EXPECT_EQ(test, damos_node_mem_bp(-1, true), 0);
	KUNIT_EXPECT_EQ(test, damos_node_mem_bp(-1, false), 10000);
	KUNIT_EXPECT_EQ(test, damos_node_mem_bp(MAX_NUMNODES, true), 0);
	KUNIT_EXPECT_EQ(test, damos_node_mem_bp(MAX_NUMNODES, false), 10000);
	/* A real node with memory: both shares, adding up to the whole. */
	used = damos_node_mem_bp(first_memory_node, true);
	free = damos_node_mem_bp(first_memory_node, false);
	KUNIT_EXPECT_GT(test, used, 0);
	KUNIT_EXPECT_LE(test, abs((long)(used + free) - 10000), 50);
}

/*
 * node_memcg_*_bp: an invalid node or a cgroup id no cgroup has reads as
 * unused (mainline's values); the root cgroup holds the memory in use.
 */
static void damos_test_node_memcg_bp(struct kunit *test)
{
	int nid = first_memory_node;
	unsigned long used, free;
	u64 root;

	if (!IS_ENABLED(CONFIG_NUMA)) {
		KUNIT_EXPECT_EQ(test, damos_node_memcg_bp(0, 1, true), 0);
		KUNIT_EXPECT_EQ(test, damos_node_memcg_bp(0, 1, false), 0);
		return;
	}
	KUNIT_EXPECT_EQ(test, damos_node_memcg_bp(-1, 1, true), 0);
	KUNIT_EXPECT_EQ(test, damos_node_memcg_bp(MAX_NUMNODES, 1, false),
			10000);
	KUNIT_EXPECT_EQ(test, damos_node_memcg_bp(nid, U64_MAX, true), 0);
	KUNIT_EXPECT_EQ(test, damos_node_memcg_bp(nid, U64_MAX, false),
			10000);
	if (mem_cgroup_disabled() || !root_mem_cgroup)
		kunit_skip(test, "memory cgroups are disabled");
	root = damon_memcg_id(root_mem_cgroup);
	used = damos_node_memcg_bp(nid, root, true);
	free = damos_node_memcg_bp(nid, root, false);
	KUNIT_EXPECT_LE(test, used, 10000);
	/* Both are read from the same counters a moment apart. */
	KUNIT_EXPECT_LE(test, abs((long)(used + free) - 10000), 50);
	/* Ids are 64-bit: one that differs above bit 31 is another cgroup. */
	KUNIT_EXPECT_EQ(test, damos_node_memcg_bp(nid, root | BIT_ULL(40), false),
			10000);
}

static struct kunit_case damos_node_mem_goal_test_cases[] = {
	KUNIT_CASE(damos_test_node_mem_bp_of),
	KUNIT_CASE(damos_test_node_mem_bp_invalid_node),
	KUNIT_CASE(damos_test_node_memcg_bp),
	{},
};

static struct kunit_suite damos_node_mem_goal_test_suite = {
	.name = "damon-node-mem-goal",
	.test_cases = damos_node_mem_goal_test_cases,
};

kunit_test_suite(damos_node_mem_goal_test_suite);

#endif /* _DAMON_NODE_MEM_GOAL_TEST_H */

#endif /* CONFIG_DAMON_KUNIT_TEST */
