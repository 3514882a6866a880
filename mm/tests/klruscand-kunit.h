/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of klruscand's walk.
 */
#ifndef _MM_KLRUSCAND_KUNIT_H
#define _MM_KLRUSCAND_KUNIT_H

#include <kunit/test.h>

static unsigned int klruscand_test_nr_young;

static void klruscand_test_young(struct folio *folio)
{
	klruscand_test_nr_young++;
}

/*
 * A scan of an mm whose mmap lock is held for writing, as by a task in
 * mmap() or munmap() for as long as it likes, returns -EBUSY instead of
 * waiting: klruscand then skips that mm, and kthread_stop() never waits
 * behind the lock.  A scan that slept on the lock would never return here,
 * since this thread holds it.
 */
static void klruscand_test_write_locked(struct kunit *test)
{
	nodemask_t nodes = node_states[N_MEMORY];
	struct lru_gen_mm_walk *walk;
	struct mem_cgroup *memcg;
	struct mm_struct *mm;
	int ret;

	walk = kunit_kzalloc(test, sizeof(*walk), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, walk);
	mm = mm_alloc();
	KUNIT_ASSERT_NOT_NULL(test, mm);
	memcg = get_mem_cgroup_from_mm(mm);

	klruscand_test_nr_young = 0;
	ret = lru_gen_scan_mm(mm, memcg, &nodes, walk, klruscand_test_young);
	if (ret == -EOPNOTSUPP) {
		mem_cgroup_put(memcg);
		mmput(mm);
		kunit_skip(test, "MGLRU page-table walks are off");
	}
	/* Unlocked and empty: walked to the end, nothing young. */
	KUNIT_EXPECT_EQ(test, ret, 0);

	/* Only the lock ends it early: aging moving max_seq does not. */
	mmap_write_lock(mm);
	ret = lru_gen_scan_mm(mm, memcg, &nodes, walk, klruscand_test_young);
	mmap_write_unlock(mm);
	KUNIT_EXPECT_EQ(test, ret, -EBUSY);
	KUNIT_EXPECT_EQ(test, klruscand_test_nr_young, 0U);

	/* The walk is handed back zeroed, ready for the next mm. */
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(walk, 0, sizeof(*walk)), NULL);

	mem_cgroup_put(memcg);
	mmput(mm);
}

static struct kunit_case klruscand_test_cases[] = {
	KUNIT_CASE(klruscand_test_write_locked),
	{}
};

static struct kunit_suite klruscand_test_suite = {
	.name = "klruscand",
	.test_cases = klruscand_test_cases,
};

kunit_test_suite(klruscand_test_suite);

#endif /* _MM_KLRUSCAND_KUNIT_H */
