/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of kpromoted's access records and rate limit.
 */
#ifndef _MM_KPROMOTED_KUNIT_H
#define _MM_KPROMOTED_KUNIT_H

#include <kunit/test.h>

#define KPT_WINDOW	100

static struct kpromoted_table *kpt_table(struct kunit *test)
{
	struct kpromoted_table *t = kpromoted_table_alloc(KPROMOTED_MIN_RECS);

	KUNIT_ASSERT_NOT_NULL(test, t);
	return t;
}

static unsigned int kpt_record(struct kpromoted_table *t, unsigned long pfn,
			       u32 now, unsigned int threshold,
			       struct kpromoted_cand *c)
{
	return kpromoted_table_record(t, pfn, NUMA_NO_NODE, now, KPT_WINDOW,
				      threshold, c);
}

static void kpromoted_test_nr_recs(struct kunit *test)
{
	/* A quarter of the pages, a power of two, within the bounds. */
	KUNIT_EXPECT_EQ(test, kpromoted_nr_recs(0), KPROMOTED_MIN_RECS);
	KUNIT_EXPECT_EQ(test, kpromoted_nr_recs(262144), 65536UL);
	KUNIT_EXPECT_EQ(test, kpromoted_nr_recs(3 * 262144), 131072UL);
	KUNIT_EXPECT_EQ(test, kpromoted_nr_recs(ULONG_MAX), KPROMOTED_MAX_RECS);
	/* At most 64 MiB of records, 1 MiB per GiB of lower-tier memory. */
	KUNIT_EXPECT_LE(test, sizeof(struct kpromoted_rec), 16UL);
	KUNIT_EXPECT_LE(test, kpromoted_nr_recs(262144) * 16, 1UL << 20);
}

static void kpromoted_test_threshold(struct kunit *test)
{
	struct kpromoted_table *t = kpt_table(test);
	struct kpromoted_cand c = { };

	KUNIT_EXPECT_EQ(test, kpt_record(t, 100, 0, 2, &c), KPR_ADDED);
	KUNIT_EXPECT_EQ(test, kpt_record(t, 100, 10, 2, &c),
			KPR_EXISTS | KPR_CANDIDATE);
	KUNIT_EXPECT_EQ(test, c.pfn, 100UL);
	KUNIT_EXPECT_EQ(test, c.when, 10U);
	KUNIT_EXPECT_EQ(test, c.nid, NUMA_NO_NODE);
	/* A candidate leaves the table: the next report starts afresh. */
	KUNIT_EXPECT_EQ(test, kpt_record(t, 100, 20, 2, &c), KPR_ADDED);

	/* Three reports for a threshold of three. */
	KUNIT_EXPECT_EQ(test, kpt_record(t, 300, 0, 3, &c), KPR_ADDED);
	KUNIT_EXPECT_EQ(test, kpt_record(t, 300, 1, 3, &c), KPR_EXISTS);
	KUNIT_EXPECT_EQ(test, kpt_record(t, 300, 2, 3, &c),
			KPR_EXISTS | KPR_CANDIDATE);
	/* A threshold of one promotes on the first report. */
	KUNIT_EXPECT_EQ(test, kpt_record(t, 400, 5, 1, &c),
			KPR_ADDED | KPR_CANDIDATE);
	KUNIT_EXPECT_EQ(test, c.pfn, 400UL);
	kpromoted_table_free(t);
}

static void kpromoted_test_window(struct kunit *test)
{
	struct kpromoted_table *t = kpt_table(test);
	struct kpromoted_cand c = { };

	KUNIT_EXPECT_EQ(test, kpt_record(t, 200, 0, 2, &c), KPR_ADDED);
	/* The window has passed: cold, and a new window begins. */
	KUNIT_EXPECT_EQ(test, kpt_record(t, 200, KPT_WINDOW + 1, 2, &c),
			KPR_EXISTS | KPR_COLD);
	KUNIT_EXPECT_EQ(test, kpt_record(t, 200, 2 * KPT_WINDOW + 1, 2, &c),
			KPR_EXISTS | KPR_CANDIDATE);
	KUNIT_EXPECT_EQ(test, c.when, (u32)(2 * KPT_WINDOW + 1));

	/* jiffies wrapping inside a window. */
	KUNIT_EXPECT_EQ(test, kpt_record(t, 500, U32_MAX - 5, 2, &c),
			KPR_ADDED);
	KUNIT_EXPECT_EQ(test, kpt_record(t, 500, 10, 2, &c),
			KPR_EXISTS | KPR_CANDIDATE);
	kpromoted_table_free(t);
}

static void kpromoted_test_nid(struct kunit *test)
{
	struct kpromoted_table *t = kpt_table(test);
	struct kpromoted_cand c = { };

	KUNIT_EXPECT_EQ(test, kpromoted_table_record(t, 600, 0, 0, KPT_WINDOW,
						     2, &c), KPR_ADDED);
	/* The last node a source named is kept. */
	KUNIT_EXPECT_EQ(test, kpromoted_table_record(t, 600, NUMA_NO_NODE, 1,
						     KPT_WINDOW, 2, &c),
			KPR_EXISTS | KPR_CANDIDATE);
	KUNIT_EXPECT_EQ(test, c.nid, 0);
	kpromoted_table_free(t);
}

static void kpromoted_test_full_set(struct kunit *test)
{
	struct kpromoted_table *t = kpt_table(test);
	unsigned long pfns[KPROMOTED_WAYS + 2], pfn;
	struct kpromoted_cand c = { };
	unsigned long set = hash_long(1, t->bits);
	int n = 0, i;

	/* KPROMOTED_WAYS + 2 PFNs of one set. */
	for (pfn = 1; n < ARRAY_SIZE(pfns); pfn++)
		if (hash_long(pfn, t->bits) == set)
			pfns[n++] = pfn;
	for (i = 0; i < KPROMOTED_WAYS; i++)
		KUNIT_EXPECT_EQ(test, kpt_record(t, pfns[i], i, 2, &c),
				KPR_ADDED);
	/* Full of records inside their window: not recorded, none evicted. */
	KUNIT_EXPECT_EQ(test, kpt_record(t, pfns[KPROMOTED_WAYS], 20, 2, &c),
			KPR_FULL);
	KUNIT_EXPECT_EQ(test, kpt_record(t, pfns[1], 21, 2, &c),
			KPR_EXISTS | KPR_CANDIDATE);
	KUNIT_EXPECT_EQ(test, c.pfn, pfns[1]);
	/* pfns[1] left a free slot, which the next new folio takes. */
	KUNIT_EXPECT_EQ(test, kpt_record(t, pfns[KPROMOTED_WAYS], 22, 2, &c),
			KPR_ADDED);
	KUNIT_EXPECT_EQ(test, kpt_record(t, pfns[KPROMOTED_WAYS + 1], 23, 2,
					 &c), KPR_FULL);
	/* pfns[0]'s window has passed: it goes, seen once; pfns[2]'s has not. */
	KUNIT_EXPECT_EQ(test, kpt_record(t, pfns[KPROMOTED_WAYS + 1],
					 KPT_WINDOW + 1, 2, &c),
			KPR_ADDED | KPR_COLD);
	KUNIT_EXPECT_EQ(test, kpt_record(t, pfns[2], KPT_WINDOW + 2, 2, &c),
			KPR_EXISTS | KPR_CANDIDATE);
	KUNIT_EXPECT_EQ(test, kpt_record(t, pfns[0], KPT_WINDOW + 3, 2, &c),
			KPR_ADDED);
	kpromoted_table_free(t);
}

static void kpromoted_test_refused(struct kunit *test)
{
	struct kpromoted_table *t = kpt_table(test);
	struct kpromoted_cand c = { };
	u32 later = KPROMOTED_REFUSE_WINDOWS * KPT_WINDOW;

	kpromoted_table_refuse(t, 700, 0);
	/* Ignored while refused, even at a threshold of one. */
	KUNIT_EXPECT_EQ(test, kpt_record(t, 700, 10, 1, &c), KPR_EXISTS);
	KUNIT_EXPECT_EQ(test, kpt_record(t, 700, later, 1, &c), KPR_EXISTS);
	/* Then it starts over. */
	KUNIT_EXPECT_EQ(test, kpt_record(t, 700, later + 1, 2, &c), KPR_EXISTS);
	KUNIT_EXPECT_EQ(test, kpt_record(t, 700, later + 2, 2, &c),
			KPR_EXISTS | KPR_CANDIDATE);
	/* Refusing a folio that has a record turns that record. */
	KUNIT_EXPECT_EQ(test, kpt_record(t, 800, 0, 2, &c), KPR_ADDED);
	kpromoted_table_refuse(t, 800, 1);
	KUNIT_EXPECT_EQ(test, kpt_record(t, 800, 2, 2, &c), KPR_EXISTS);
	KUNIT_EXPECT_EQ(test, kpt_record(t, 800, 3, 2, &c), KPR_EXISTS);
	kpromoted_table_free(t);
}

static void kpromoted_test_refill(struct kunit *test)
{
	/* 1 MB/s is 256 pages/s: a tenth of a second's worth at most. */
	KUNIT_EXPECT_EQ(test, kpromoted_refill(0, 1000, 1), 25L);
	KUNIT_EXPECT_EQ(test, kpromoted_refill(0, 40, 1), 10L);
	/* 256 MB/s for 10 ms: 655 pages. */
	KUNIT_EXPECT_EQ(test, kpromoted_refill(0, 10, 256), 655L);
	KUNIT_EXPECT_EQ(test, kpromoted_refill(0, 100000, 256), 6553L);
	/* A debt is paid before anything is spent. */
	KUNIT_EXPECT_EQ(test, kpromoted_refill(-512, 100, 1), -487L);
	/* No overflow at the largest rate over a long time. */
	KUNIT_EXPECT_EQ(test, kpromoted_refill(0, UINT_MAX, 1048576),
			(long)((1048576ULL << 8) / 10));
}

/*
 * kswapd balances a node to the promo watermark only once a promotion
 * asked for room there, only while demotion can make it, and only until
 * the node got there; never after kpromoted stopped.
 */
static void kpromoted_test_room_request(struct kunit *test)
{
	bool demotion = numa_demotion_enabled;
	int nid = first_memory_node;
	int err;

	if (sysctl_numa_balancing_mode & NUMA_BALANCING_MEMORY_TIERING)
		kunit_skip(test, "NUMA balancing's tiering mode is on");
	/* A running kpromoted and its requests steer the real kswapd. */
	if (kpromoted_active())
		kunit_skip(test, "kpromoted runs");
	err = kpromoted_get();
	if (err)
		kunit_skip(test, "kpromoted cannot start: %d", err);
	numa_demotion_enabled = true;

	KUNIT_EXPECT_FALSE(test, kswapd_keeps_promo_room(nid));
	kpromoted_want_room(nid);
	KUNIT_EXPECT_TRUE(test, kswapd_keeps_promo_room(nid));
	numa_demotion_enabled = false;
	KUNIT_EXPECT_FALSE(test, kswapd_keeps_promo_room(nid));
	/* No request is made while demotion is off. */
	kpromoted_room_made(nid);
	kpromoted_want_room(nid);
	KUNIT_EXPECT_FALSE(test, node_isset(nid, kpromoted_room_wanted));
	numa_demotion_enabled = true;
	kpromoted_room_made(nid);
	KUNIT_EXPECT_FALSE(test, kswapd_keeps_promo_room(nid));

	kpromoted_want_room(nid);
	kpromoted_put();
	KUNIT_EXPECT_FALSE(test, kswapd_keeps_promo_room(nid));
	KUNIT_EXPECT_FALSE(test, node_isset(nid, kpromoted_room_wanted));
	numa_demotion_enabled = demotion;
}

static struct kunit_case kpromoted_test_cases[] = {
	KUNIT_CASE(kpromoted_test_nr_recs),
	KUNIT_CASE(kpromoted_test_threshold),
	KUNIT_CASE(kpromoted_test_window),
	KUNIT_CASE(kpromoted_test_nid),
	KUNIT_CASE(kpromoted_test_full_set),
	KUNIT_CASE(kpromoted_test_refused),
	KUNIT_CASE(kpromoted_test_refill),
	KUNIT_CASE(kpromoted_test_room_request),
	{},
};

static struct kunit_suite kpromoted_test_suite = {
	.name = "kpromoted",
	.test_cases = kpromoted_test_cases,
};

kunit_test_suite(kpromoted_test_suite);

#endif /* _MM_KPROMOTED_KUNIT_H */
