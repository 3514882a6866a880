// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of tier-weighted MPOL_INTERLEAVE (mm/tier_interleave.c).
 *
 * The sequence functions take the per-node weights as an argument, so each
 * case builds a layout of its own (nodes need not exist) and checks the
 * exact node sequence of both allocator paths.  The bulk allocator's case
 * runs on the machine's nodes 0 and 1 and sets their tiers' weights.
 */

#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/mempolicy.h>
#include <linux/nodemask.h>
#include <linux/sched.h>
#include <linux/sched/task.h>

#include "tier_interleave.h"

#define SEQ_MAX	64

/* Nodes given by the offset path for indexes 0..n-1. */
static void offset_seq(const nodemask_t *nodes, const u8 *w, int n, int *out)
{
	int i;

	for (i = 0; i < n; i++)
		out[i] = tier_il_nid(nodes, i, w);
}

/* Nodes given by the process path from a fresh task state. */
static void process_seq(const nodemask_t *nodes, const u8 *w, int n, int *out)
{
	short prev = MAX_NUMNODES - 1;
	u8 left = 0;
	int i;

	for (i = 0; i < n; i++)
		out[i] = tier_il_next(nodes, &prev, &left, w);
}

static void expect_both(struct kunit *test, const nodemask_t *nodes,
			const u8 *w, const int *expect, int n)
{
	int got[SEQ_MAX];
	int i;

	offset_seq(nodes, w, n, got);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, got[i], expect[i], "offset index %d", i);
	process_seq(nodes, w, n, got);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, got[i], expect[i], "process step %d", i);
}

/* DRAM node 0 at weight 5, CXL node 1 at weight 1. */
static void tier_il_two_tiers(struct kunit *test)
{
	nodemask_t nodes = NODE_MASK_NONE;
	u8 w[MAX_NUMNODES] = { [0] = 5, [1] = 1 };
	static const int expect[] = { 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1 };

	node_set(0, nodes);
	node_set(1, nodes);
	expect_both(test, &nodes, w, expect, ARRAY_SIZE(expect));
}

/* Three tiers at 4:2:1. */
static void tier_il_three_tiers(struct kunit *test)
{
	nodemask_t nodes = NODE_MASK_NONE;
	u8 w[MAX_NUMNODES] = { [0] = 4, [1] = 2, [2] = 1 };
	static const int expect[] = { 0, 0, 0, 0, 1, 1, 2, 0, 0, 0, 0, 1, 1, 2 };

	node_set(0, nodes);
	node_set(1, nodes);
	node_set(2, nodes);
	expect_both(test, &nodes, w, expect, ARRAY_SIZE(expect));
}

/*
 * Two DRAM nodes (0, 2) at 3 and two CXL nodes (1, 3) at 1; the task
 * interleaves over nodes 1 and 2 only: weights still come from the tiers.
 */
static void tier_il_subset(struct kunit *test)
{
	nodemask_t nodes = NODE_MASK_NONE;
	u8 w[MAX_NUMNODES] = { [0] = 3, [1] = 1, [2] = 3, [3] = 1 };
	static const int expect[] = { 1, 2, 2, 2, 1, 2, 2, 2 };

	node_set(1, nodes);
	node_set(2, nodes);
	expect_both(test, &nodes, w, expect, ARRAY_SIZE(expect));
}

/* A mask within one tier: equal weights give runs of that weight. */
static void tier_il_one_tier(struct kunit *test)
{
	nodemask_t nodes = NODE_MASK_NONE;
	u8 w[MAX_NUMNODES] = { [0] = 5, [1] = 2, [2] = 2 };
	static const int expect[] = { 1, 1, 2, 2, 1, 1, 2, 2 };

	node_set(1, nodes);
	node_set(2, nodes);
	expect_both(test, &nodes, w, expect, ARRAY_SIZE(expect));
}

static void tier_il_single_node(struct kunit *test)
{
	nodemask_t nodes = NODE_MASK_NONE;
	u8 w[MAX_NUMNODES] = { [0] = 7, [1] = 3 };
	static const int expect[] = { 1, 1, 1, 1, 1, 1, 1, 1 };

	node_set(1, nodes);
	expect_both(test, &nodes, w, expect, ARRAY_SIZE(expect));
}

/* 100:1 and 100:100: every window of sum(weights) indexes is exact. */
static void tier_il_max_weights(struct kunit *test)
{
	nodemask_t nodes = NODE_MASK_NONE;
	u8 w[MAX_NUMNODES] = { [0] = TIER_IL_WEIGHT_MAX, [1] = 1 };
	int count[2], start, i, nid;

	node_set(0, nodes);
	node_set(1, nodes);
	for (start = 0; start < 300; start += 37) {
		count[0] = 0;
		count[1] = 0;
		for (i = start; i < start + 101; i++) {
			nid = tier_il_nid(&nodes, i, w);
			KUNIT_ASSERT_TRUE(test, nid == 0 || nid == 1);
			count[nid]++;
		}
		KUNIT_EXPECT_EQ(test, count[0], 100);
		KUNIT_EXPECT_EQ(test, count[1], 1);
	}
	w[1] = TIER_IL_WEIGHT_MAX;
	KUNIT_EXPECT_EQ(test, tier_il_nid(&nodes, 99, w), 0);
	KUNIT_EXPECT_EQ(test, tier_il_nid(&nodes, 100, w), 1);
	KUNIT_EXPECT_EQ(test, tier_il_nid(&nodes, 199, w), 1);
	KUNIT_EXPECT_EQ(test, tier_il_nid(&nodes, 200, w), 0);
}

/*
 * Weight change mid-cycle: a lowered weight cuts the run in progress to
 * the new weight, a raised one applies from the node's next run, and the
 * task state stays valid throughout.
 */
static void tier_il_weight_change(struct kunit *test)
{
	nodemask_t nodes = NODE_MASK_NONE;
	u8 w[MAX_NUMNODES] = { [0] = 5, [1] = 1 };
	short prev = MAX_NUMNODES - 1;
	u8 left = 0;
	static const int expect[] = {
		0, 0,		/* two of five pages on node 0 */
		0, 0, 1,	/* weight now 2: run cut to two more */
		0, 0, 1,	/* 2:1 from here */
		0, 0, 0, 1, 1, 1, /* 3:3 */
	};
	int i;

	node_set(0, nodes);
	node_set(1, nodes);
	for (i = 0; i < ARRAY_SIZE(expect); i++) {
		if (i == 2)
			w[0] = 2;
		if (i == 8) {
			w[0] = 3;
			w[1] = 3;
		}
		KUNIT_EXPECT_EQ_MSG(test, tier_il_next(&nodes, &prev, &left, w),
				    expect[i], "step %d", i);
		KUNIT_EXPECT_LT(test, left, w[prev]);
	}
}

/* il_prev pointing outside the mask (cpuset rebind, fork): never used. */
static void tier_il_stale_state(struct kunit *test)
{
	nodemask_t nodes = NODE_MASK_NONE;
	u8 w[MAX_NUMNODES] = { [0] = 2, [1] = 1, [2] = 2, [5] = 4 };
	short prev = 5;
	u8 left = 3;

	node_set(0, nodes);
	node_set(2, nodes);
	KUNIT_EXPECT_EQ(test, tier_il_next(&nodes, &prev, &left, w), 0);
	KUNIT_EXPECT_EQ(test, prev, 0);
	KUNIT_EXPECT_EQ(test, left, 1);
	KUNIT_EXPECT_EQ(test, tier_il_next(&nodes, &prev, &left, w), 0);
	KUNIT_EXPECT_EQ(test, tier_il_next(&nodes, &prev, &left, w), 2);

	/* An empty mask reports MAX_NUMNODES and leaves the state alone. */
	nodes_clear(nodes);
	prev = 2;
	left = 1;
	KUNIT_EXPECT_EQ(test, tier_il_next(&nodes, &prev, &left, w),
			MAX_NUMNODES);
	KUNIT_EXPECT_EQ(test, prev, 2);
	KUNIT_EXPECT_EQ(test, left, 1);
}

/* The base kernel's interleave_nid(): the (ilx % n)'th node of the mask. */
static int plain_il_nid(const nodemask_t *nodes, pgoff_t ilx)
{
	unsigned int target, nnodes = nodes_weight(*nodes);
	int i, nid;

	if (!nnodes)
		return NUMA_NO_NODE;
	target = ilx % nnodes;
	nid = first_node(*nodes);
	for (i = 0; i < target; i++)
		nid = next_node(nid, *nodes);
	return nid;
}

/* All weights 1: exactly the base kernel's round robin, on both paths. */
static void tier_il_weight_one_is_round_robin(struct kunit *test)
{
	u8 w[MAX_NUMNODES];
	nodemask_t nodes;
	short prev = MAX_NUMNODES - 1;
	int masks[] = { 0x1, 0x3, 0x5, 0xb, 0xf, 0x1a };
	int m, i, nid, rr;

	memset(w, 1, sizeof(w));
	for (m = 0; m < ARRAY_SIZE(masks); m++) {
		nodes_clear(nodes);
		for (i = 0; i < 8; i++)
			if (masks[m] & (1 << i))
				node_set(i, nodes);
		for (i = 0; i < 40; i++)
			KUNIT_EXPECT_EQ(test, tier_il_nid(&nodes, i, w),
					plain_il_nid(&nodes, i));
		/* interleave_nodes(): next_node_in(il_prev) every time. */
		for (i = 0; i < 40; i++) {
			short p = prev;
			u8 left = 0;

			rr = next_node_in(prev, nodes);
			nid = tier_il_next(&nodes, &p, &left, w);
			KUNIT_EXPECT_EQ(test, nid, rr);
			KUNIT_EXPECT_EQ(test, left, 0);
			prev = p;
		}
	}
}

static void tier_il_parse(struct kunit *test)
{
	static const char * const bad[] = {
		"", " ", "\n", "5", "5 1 1", "0 1", "1 0", "101 1", "1 101",
		"-1 1", "a b", "5 x", "5,1", "5 1x", "4294967297 1",
		"99999999999999999999 1", "5\t1\t3", "+ 1",
	};
	unsigned int top = 77, low = 77;
	int i;

	KUNIT_EXPECT_EQ(test, tier_il_parse_pair("5 1\n", &top, &low), 0);
	KUNIT_EXPECT_EQ(test, top, 5);
	KUNIT_EXPECT_EQ(test, low, 1);
	KUNIT_EXPECT_EQ(test, tier_il_parse_pair("  100\t100 ", &top, &low), 0);
	KUNIT_EXPECT_EQ(test, top, 100);
	KUNIT_EXPECT_EQ(test, low, 100);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		top = 77;
		low = 77;
		KUNIT_EXPECT_EQ_MSG(test, tier_il_parse_pair(bad[i], &top, &low),
				    -EINVAL, "input \"%s\"", bad[i]);
		KUNIT_EXPECT_EQ(test, top, 77);
		KUNIT_EXPECT_EQ(test, low, 77);
	}
}

#define PERF_LOOKUPS	24000

/*
 * Per-lookup cost of the node choice, for make bench: the base round robin
 * against the tier-weighted offset and process paths at 5:1, over masks of
 * 2, 4 and 8 nodes (the upper half of each at weight 5).  Page-fault times
 * under emulation vary by far more than this lookup costs, so the bench
 * measures it here, in one boot with the faults.  Reported as one JSON
 * object per mask size, in picoseconds per lookup; what it asserts is that
 * every path gives each node its exact share over the measured indexes.
 */
static void tier_il_lookup_cost(struct kunit *test)
{
	u64 t0, plain, offset, process;
	unsigned int count[8], i;
	u8 w[MAX_NUMNODES];
	nodemask_t nodes;
	short prev;
	u8 left;
	int k, n;

	for (k = 2; k <= 8; k *= 2) {
		nodes_clear(nodes);
		memset(w, 1, sizeof(w));
		for (n = 0; n < k; n++) {
			node_set(n, nodes);
			w[n] = n < k / 2 ? 5 : 1;
		}

		memset(count, 0, sizeof(count));
		t0 = ktime_get_ns();
		for (i = 0; i < PERF_LOOKUPS; i++)
			count[plain_il_nid(&nodes, i) & 7]++;
		plain = ktime_get_ns() - t0;
		for (n = 0; n < k; n++)
			KUNIT_EXPECT_EQ(test, count[n] * k, PERF_LOOKUPS);

		memset(count, 0, sizeof(count));
		t0 = ktime_get_ns();
		for (i = 0; i < PERF_LOOKUPS; i++)
			count[tier_il_nid(&nodes, i, w) & 7]++;
		offset = ktime_get_ns() - t0;
		/* 24000 indexes: whole windows of 3 * k for k = 2, 4, 8. */
		for (n = 0; n < k; n++)
			KUNIT_EXPECT_EQ(test, count[n] * 3 * k,
					PERF_LOOKUPS * (n < k / 2 ? 5 : 1));

		memset(count, 0, sizeof(count));
		prev = MAX_NUMNODES - 1;
		left = 0;
		t0 = ktime_get_ns();
		for (i = 0; i < PERF_LOOKUPS; i++)
			count[tier_il_next(&nodes, &prev, &left, w) & 7]++;
		process = ktime_get_ns() - t0;
		for (n = 0; n < k; n++)
			KUNIT_EXPECT_EQ(test, count[n] * 3 * k,
					PERF_LOOKUPS * (n < k / 2 ? 5 : 1));

		kunit_info(test,
			   "{\"case\": \"lookup\", \"nodes\": %d, \"plain_ps\": %llu, \"tier_offset_ps\": %llu, \"tier_process_ps\": %llu}\n",
			   k, div_u64(plain * 1000, PERF_LOOKUPS),
			   div_u64(offset * 1000, PERF_LOOKUPS),
			   div_u64(process * 1000, PERF_LOOKUPS));
	}
}

/*
 * Memory hotplug: a node that moves to another tier takes that tier's
 * weight, a node in no tier has weight 1, and a tier keeps its weight
 * while it has no node.  This drives the hook of mm/memory-tiers.c with a
 * node id that is not possible here and tier ids far above any real one
 * (ids grow with abstract distance / 1024), so no allocation sees them;
 * the two tier entries stay behind at weight 1.
 */
static void tier_il_node_changes_tier(struct kunit *test)
{
	const int a = 1 << 20, b = a + 1;
	bool was_weighted = tier_interleave_active();
	int nid;

	for (nid = MAX_NUMNODES - 1; nid >= 0; nid--)
		if (!node_possible(nid))
			break;
	if (nid < 0)
		kunit_skip(test, "every node id is possible");

	KUNIT_EXPECT_EQ(test, tier_interleave_set_tier_weight(a, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, tier_interleave_set_tier_weight(a, 101), -EINVAL);
	KUNIT_ASSERT_EQ(test, tier_interleave_set_tier_weight(a, 6), 0);
	KUNIT_ASSERT_EQ(test, tier_interleave_set_tier_weight(b, 2), 0);

	tier_interleave_set_node_tier(nid, a);
	KUNIT_EXPECT_EQ(test, READ_ONCE(tier_il_node_weight[nid]), 6);
	KUNIT_EXPECT_TRUE(test, tier_interleave_active());
	tier_interleave_set_node_tier(nid, b);
	KUNIT_EXPECT_EQ(test, READ_ONCE(tier_il_node_weight[nid]), 2);
	tier_interleave_set_node_tier(nid, -1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(tier_il_node_weight[nid]),
			TIER_IL_WEIGHT_MIN);
	/* Tier a had no node meanwhile: it kept its weight. */
	tier_interleave_set_node_tier(nid, a);
	KUNIT_EXPECT_EQ(test, READ_ONCE(tier_il_node_weight[nid]), 6);
	/* A weight change reaches the node at once. */
	KUNIT_EXPECT_EQ(test, tier_interleave_set_tier_weight(a, 3), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(tier_il_node_weight[nid]), 3);

	tier_interleave_set_node_tier(nid, -1);
	tier_interleave_set_tier_weight(a, TIER_IL_WEIGHT_MIN);
	tier_interleave_set_tier_weight(b, TIER_IL_WEIGHT_MIN);
	KUNIT_EXPECT_EQ(test, tier_interleave_active(), was_weighted);
}

/*
 * Allocates @nr pages with the bulk allocator under @pol as the task's
 * policy, from a fresh interleave state if @fresh (as set_mempolicy()
 * leaves it) or from where the last call left it, and counts them on
 * nodes 0 and 1.  Return: the number allocated.
 */
static int tier_il_bulk_split(struct mempolicy *pol, struct page **pages,
			      int nr, bool fresh, int *on)
{
	struct mempolicy *old;
	unsigned long n, i;

	mpol_get(pol);
	task_lock(current);
	old = current->mempolicy;
	current->mempolicy = pol;
	if (fresh) {
		current->il_prev = MAX_NUMNODES - 1;
		current->il_weight = 0;
	}
	task_unlock(current);

	memset(pages, 0, nr * sizeof(*pages));
	n = alloc_pages_bulk_array_mempolicy(GFP_HIGHUSER_MOVABLE, nr, pages);

	task_lock(current);
	current->mempolicy = old;
	task_unlock(current);
	mpol_put(pol);

	on[0] = 0;
	on[1] = 0;
	for (i = 0; i < n; i++) {
		if (page_to_nid(pages[i]) <= 1)
			on[page_to_nid(pages[i])]++;
		__free_page(pages[i]);
	}
	return n;
}

/* Pages on nodes 0 and 1 of the next @nr steps of the process path. */
static void tier_il_seq_split(const nodemask_t *nodes, const u8 *w,
			      short *prev, u8 *left, int nr, int *on)
{
	int i;

	on[0] = 0;
	on[1] = 0;
	for (i = 0; i < nr; i++)
		on[tier_il_next(nodes, prev, left, w)]++;
}

#define BULK_FIRST	61
#define BULK_NEXT	7

/*
 * The bulk allocator (vmalloc's path for order-0 pages) under
 * MPOL_INTERLEAVE over nodes 0 and 1 of two tiers at 3:2: 61 pages from
 * a fresh state, then 7 more from where they left off, land as the
 * page-at-a-time process path would place the same 68 pages; at 1:1 the
 * base round robin halves 60.  Runs on the machine's own nodes (so only
 * where nodes 0 and 1 have memory in two tiers) and sets their tiers'
 * weights back to what they were, as explicit weights.
 */
static void tier_il_bulk_alloc(struct kunit *test)
{
#ifdef CONFIG_TMPFS
	char policy[] = "interleave:0-1";
	u8 w[MAX_NUMNODES] = { [0] = 3, [1] = 2 };
	nodemask_t nodes = NODE_MASK_NONE;
	int t0, t1, on[2], want[2];
	short prev = MAX_NUMNODES - 1;
	struct mempolicy *pol;
	struct page **pages;
	u8 w0, w1, left = 0;

	if (!node_state(0, N_MEMORY) || !node_state(1, N_MEMORY))
		kunit_skip(test, "needs memory on nodes 0 and 1");
	t0 = tier_interleave_node_tier(0);
	t1 = tier_interleave_node_tier(1);
	if (t0 < 0 || t1 < 0 || t0 == t1)
		kunit_skip(test, "nodes 0 and 1 are not in two tiers");
	node_set(0, nodes);
	node_set(1, nodes);
	pages = kunit_kcalloc(test, BULK_FIRST, sizeof(*pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	KUNIT_ASSERT_EQ(test, mpol_parse_str(policy, &pol), 0);

	w0 = READ_ONCE(tier_il_node_weight[0]);
	w1 = READ_ONCE(tier_il_node_weight[1]);
	if (!tier_interleave_set_tier_weight(t0, 3) &&
	    !tier_interleave_set_tier_weight(t1, 2)) {
		KUNIT_EXPECT_TRUE(test, tier_interleave_active());
		KUNIT_EXPECT_EQ(test, tier_il_bulk_split(pol, pages, BULK_FIRST,
							 true, on),
				BULK_FIRST);
		tier_il_seq_split(&nodes, w, &prev, &left, BULK_FIRST, want);
		KUNIT_EXPECT_EQ(test, on[0], want[0]);
		KUNIT_EXPECT_EQ(test, on[1], want[1]);
		KUNIT_EXPECT_EQ(test, tier_il_bulk_split(pol, pages, BULK_NEXT,
							 false, on),
				BULK_NEXT);
		tier_il_seq_split(&nodes, w, &prev, &left, BULK_NEXT, want);
		KUNIT_EXPECT_EQ(test, on[0], want[0]);
		KUNIT_EXPECT_EQ(test, on[1], want[1]);
	} else {
		KUNIT_FAIL(test, "could not set the tier weights");
	}
	if (!tier_interleave_set_tier_weight(t0, 1) &&
	    !tier_interleave_set_tier_weight(t1, 1)) {
		KUNIT_EXPECT_EQ(test, tier_il_bulk_split(pol, pages, 60, true,
							 on), 60);
		KUNIT_EXPECT_EQ(test, on[0], 30);
		KUNIT_EXPECT_EQ(test, on[1], 30);
	} else {
		KUNIT_FAIL(test, "could not set the tier weights");
	}
	KUNIT_EXPECT_EQ(test, tier_interleave_set_tier_weight(t0, w0), 0);
	KUNIT_EXPECT_EQ(test, tier_interleave_set_tier_weight(t1, w1), 0);
	mpol_put(pol);
#else
	kunit_skip(test, "mpol_parse_str() needs CONFIG_TMPFS");
#endif
}

struct bw_case {
	unsigned int n;
	unsigned int bw[4];
	u8 weights[4];
};

/*
 * The reduction of bandwidths to weights: the HMAT figures of the test
 * machines (MB/s), entries without data, an entry too slow to count, and
 * bandwidths whose sum overflows 32 bits.
 */
static void tier_il_weights_from_bw(struct kunit *test)
{
	static const struct bw_case cases[] = {
		{ 2, { 10240, 5120 }, { 21, 10 } },		/* 2tier */
		{ 3, { 10240, 5120, 2048 }, { 6, 3, 1 } },	/* 3tier */
		{ 3, { 10240, 5120, 5120 }, { 2, 1, 1 } },	/* 2cxl */
		{ 2, { 10240, 10240 }, { 1, 1 } },
		{ 2, { 0, 7 }, { 1, 32 } },
		{ 3, { 0, 0, 0 }, { 1, 1, 1 } },
		{ 2, { 1000, 1 }, { 31, 1 } },
		{ 1, { 4096 }, { 1 } },
		{ 2, { UINT_MAX, UINT_MAX }, { 1, 1 } },
		{ 3, { UINT_MAX, UINT_MAX / 2, 0 }, { 21, 10, 1 } },
	};
	u8 w[4];
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(w, 0xff, sizeof(w));
		interleave_weights_from_bw(cases[i].bw, w, cases[i].n);
		KUNIT_EXPECT_MEMEQ_MSG(test, w, cases[i].weights, cases[i].n,
				       "case %d", i);
		/* Entries past @n are left alone. */
		if (cases[i].n < ARRAY_SIZE(w))
			KUNIT_EXPECT_EQ(test, w[cases[i].n], 0xff);
	}
	interleave_weights_from_bw(NULL, NULL, 0);
}

static struct kunit_case tier_il_cases[] = {
	KUNIT_CASE(tier_il_two_tiers),
	KUNIT_CASE(tier_il_three_tiers),
	KUNIT_CASE(tier_il_subset),
	KUNIT_CASE(tier_il_one_tier),
	KUNIT_CASE(tier_il_single_node),
	KUNIT_CASE(tier_il_max_weights),
	KUNIT_CASE(tier_il_weight_change),
	KUNIT_CASE(tier_il_stale_state),
	KUNIT_CASE(tier_il_weight_one_is_round_robin),
	KUNIT_CASE(tier_il_parse),
	KUNIT_CASE(tier_il_node_changes_tier),
	KUNIT_CASE(tier_il_weights_from_bw),
	KUNIT_CASE(tier_il_bulk_alloc),
	KUNIT_CASE_SLOW(tier_il_lookup_cost),
	{}
};

static struct kunit_suite tier_il_suite = {
	.name = "tier_interleave",
	.test_cases = tier_il_cases,
};

kunit_test_suite(tier_il_suite);

MODULE_DESCRIPTION("KUnit tests for tier-weighted interleave");
MODULE_LICENSE("GPL");
