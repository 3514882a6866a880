// SPDX-License-Identifier: GPL-2.0
/*
 * klruscand: finds hot folios on lower memory tiers with MGLRU's
 * page-table walk and reports them to kpromoted.
 *
 * Every scan_interval_ms the klruscand thread walks the page tables of
 * each process once, for all lower-tier nodes together, with
 * lru_gen_scan_mm(): the walk MGLRU's aging does, which clears the accessed
 * bits it finds on folios of those nodes and moves the folios to the
 * youngest generation of their node as aging would, so reclaim keeps what
 * it learns.  Each such young folio is reported to kpromoted, which
 * promotes the ones seen accessed often enough: once for each run of young
 * entries that map it one after another, so a large folio counts once but
 * a folio mapped at two places counts twice.
 * Folios in mlocked, hugetlb and special VMAs are never walked, as in
 * aging.  Only the folios charged to the memory cgroup of an mm (its
 * owner's) are looked at, as in aging: page cache another cgroup was
 * charged for is not reported.
 *
 * A scan that reports nothing doubles the wait before the next one, up to
 * KLRUSCAND_MAX_IDLE_SHIFT doublings: once the hot memory is on the top
 * tier, walking every page table at the full rate finds nothing to
 * promote.  A scan that reports folios of KLRUSCAND_TRICKLE pages or more
 * returns to scan_interval_ms; so does a pass while MGLRU is disabled, so
 * that the first scan after it comes back is not delayed.  A scan that
 * reports fewer, a trickle (other processes' pages going up and down once
 * the top tier is full), is followed by one scan after scan_interval_ms,
 * so that the folios it saw are seen again within kpromoted's window, and
 * then by the wait it would have had; a trickle in that second scan too
 * doubles the wait as a scan that reports nothing does.
 *
 * A walk never waits for an mm's mmap lock: an mm whose lock stays busy
 * for a few tries is left for the next scan (lru_gen_scan_mm(); the
 * klruscand_mm_skipped vm event counts them), so that stopping klruscand
 * never waits behind a user's mmap() or munmap().
 *
 * klruscand promotes only while it holds the top tier's claim
 * (mm/tier_promoter.c): enabling it fails with -EBUSY while DAMON_TIER is
 * enabled or NUMA balancing's memory tiering mode is on, and its scans
 * stop while that mode is turned on later.
 *
 * While MGLRU is disabled at run time (/sys/kernel/mm/lru_gen/enabled),
 * the generations it would update do not exist: klruscand stays enabled
 * and skips its scans until MGLRU is enabled again; the same while MGLRU's
 * page-table walks are off (its 0x0002 capability).
 */

#define pr_fmt(fmt) "klruscand: " fmt

#include <linux/freezer.h>
#include <linux/kobject.h>
#include <linux/kpromoted.h>
#include <linux/kthread.h>
#include <linux/memcontrol.h>
#include <linux/memory-tiers.h>
#include <linux/mm.h>
#include <linux/mm_inline.h>
#include <linux/mmzone.h>
#include <linux/nodemask.h>
#include <linux/oom.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/tier_promoter.h>

/* mms pinned at a time while walking */
#define KLRUSCAND_BATCH		32
/* at most 4 * scan_interval_ms between scans that find nothing */
#define KLRUSCAND_MAX_IDLE_SHIFT	2
/* reported folios of fewer pages than this in a scan (1 MiB) are a trickle */
#define KLRUSCAND_TRICKLE	256

static unsigned int klruscand_interval_ms = 2000;

/* klruscand_mutex protects klruscand_thread and klruscand_walk. */
static DEFINE_MUTEX(klruscand_mutex);
static struct task_struct *klruscand_thread;
static struct lru_gen_mm_walk *klruscand_walk;
static DECLARE_WAIT_QUEUE_HEAD(klruscand_wait);

/*
 * Only the klruscand thread uses these.  The folio reported last: a large
 * folio's PTEs come one after another.  Pages of the folios reported in
 * this scan.
 */
static struct folio *klruscand_last;
static unsigned long klruscand_reported;

static void klruscand_young(struct folio *folio)
{
	if (folio == klruscand_last)
		return;
	klruscand_last = folio;
	klruscand_reported += folio_nr_pages(folio);
	kpromoted_record_access(folio_pfn(folio), NUMA_NO_NODE,
				KPROMOTED_SRC_PGTSCAN);
}

/*
 * Pin the mms of up to KLRUSCAND_BATCH processes from thread group id
 * *@next on, in pid order, and move *@next past them.
 */
static int klruscand_next_mms(int *next, struct mm_struct **mms)
{
	int n = 0;

	rcu_read_lock();
	while (n < KLRUSCAND_BATCH) {
		struct pid *pid = find_ge_pid(*next, &init_pid_ns);
		struct task_struct *task;
		struct mm_struct *mm;

		if (!pid)
			break;
		*next = pid_nr(pid) + 1;
		task = pid_task(pid, PIDTYPE_TGID);
		if (!task || (task->flags & PF_KTHREAD))
			continue;
		/* Any thread's: the leader may have exited before the others. */
		task = find_lock_task_mm(task);
		if (!task)
			continue;
		mm = task->mm;
		mmget(mm);
		task_unlock(task);
		mms[n++] = mm;
	}
	rcu_read_unlock();
	return n;
}

/*
 * Walk every mm once for all lower-tier nodes; false if MGLRU was
 * disabled, there is no lower tier or NUMA balancing's tiering mode
 * promotes, and nothing could be learned.
 */
static bool klruscand_scan(struct lru_gen_mm_walk *walk)
{
	struct mm_struct *mms[KLRUSCAND_BATCH];
	nodemask_t lower = NODE_MASK_NONE;
	int nid, i, n, next = 1;

	for_each_node_state(nid, N_MEMORY)
		if (!node_is_toptier(nid))
			node_set(nid, lower);
	if (nodes_empty(lower) || !lru_gen_enabled() ||
	    !tier_promoter_may_promote(TIER_PROMOTER_KLRUSCAND))
		return false;

	do {
		n = klruscand_next_mms(&next, mms);
		for (i = 0; i < n; i++) {
			struct mem_cgroup *memcg;

			if (kthread_should_stop() || !lru_gen_enabled()) {
				mmput(mms[i]);
				continue;
			}
			memcg = get_mem_cgroup_from_mm(mms[i]);
			klruscand_last = NULL;
			/* on -EBUSY the next scan tries again */
			if (lru_gen_scan_mm(mms[i], memcg, &lower, walk,
					    klruscand_young) == -EBUSY)
				count_vm_event(KLRUSCAND_MM_SKIPPED);
			mem_cgroup_put(memcg);
			mmput(mms[i]);
			cond_resched();
		}
	} while (n == KLRUSCAND_BATCH && !kthread_should_stop() &&
		 lru_gen_enabled());
	/* Cut short by MGLRU going off: nothing to judge the pace by. */
	return lru_gen_enabled();
}

static int klruscand_fn(void *data)
{
	struct lru_gen_mm_walk *walk = data;
	unsigned int idle = 0, shift;
	bool confirm = false;

	set_freezable();
	while (!kthread_should_stop()) {
		unsigned long start = jiffies;
		long left;

		klruscand_reported = 0;
		if (!klruscand_scan(walk) ||
		    klruscand_reported >= KLRUSCAND_TRICKLE) {
			idle = 0;
			confirm = false;
		} else if (!klruscand_reported || confirm) {
			idle = min(idle + 1, KLRUSCAND_MAX_IDLE_SHIFT);
			confirm = false;
		} else {
			/* A trickle: look once more within kpromoted's window. */
			confirm = true;
		}
		shift = confirm ? 0 : idle;
		kpromoted_kick();
		left = start +
		       (msecs_to_jiffies(READ_ONCE(klruscand_interval_ms)) << shift) -
		       jiffies;
		if (left > 0)
			wait_event_freezable_timeout(klruscand_wait,
						     kthread_should_stop(), left);
	}
	return 0;
}

/* Start (@on) or stop klruscand and kpromoted; no change if it fails. */
static int klruscand_set(bool on)
{
	struct task_struct *thread;
	int err = 0;

	mutex_lock(&klruscand_mutex);
	if (on == !!klruscand_thread)
		goto out;
	if (!on) {
		kthread_stop(klruscand_thread);
		WRITE_ONCE(klruscand_thread, NULL);
		kfree(klruscand_walk);
		klruscand_walk = NULL;
		kpromoted_put();
		tier_promoter_release(TIER_PROMOTER_KLRUSCAND);
		goto out;
	}
	err = tier_promoter_claim(TIER_PROMOTER_KLRUSCAND);
	if (err)
		goto out;
	klruscand_walk = kzalloc(sizeof(*klruscand_walk), GFP_KERNEL);
	if (!klruscand_walk) {
		err = -ENOMEM;
		goto release;
	}
	err = kpromoted_get();
	if (err)
		goto free_walk;
	thread = kthread_run(klruscand_fn, klruscand_walk, "klruscand");
	if (IS_ERR(thread)) {
		err = PTR_ERR(thread);
		kpromoted_put();
		goto free_walk;
	}
	WRITE_ONCE(klruscand_thread, thread);
	goto out;
free_walk:
	kfree(klruscand_walk);
	klruscand_walk = NULL;
release:
	tier_promoter_release(TIER_PROMOTER_KLRUSCAND);
out:
	mutex_unlock(&klruscand_mutex);
	return err;
}

static ssize_t enabled_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%d\n", !!READ_ONCE(klruscand_thread));
}

static ssize_t enabled_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	unsigned int v;
	int err;

	if (kstrtouint(buf, 10, &v) || v > 1)
		return -EINVAL;
	err = klruscand_set(v);
	return err ? err : count;
}

static ssize_t scan_interval_ms_show(struct kobject *kobj,
				     struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(klruscand_interval_ms));
}

static ssize_t scan_interval_ms_store(struct kobject *kobj,
				      struct kobj_attribute *attr,
				      const char *buf, size_t count)
{
	unsigned int v;

	if (kstrtouint(buf, 10, &v) || v < 100 || v > 60000)
		return -EINVAL;
	WRITE_ONCE(klruscand_interval_ms, v);
	return count;
}

static struct kobj_attribute klruscand_enabled_attr = __ATTR_RW(enabled);
static struct kobj_attribute klruscand_interval_attr =
	__ATTR_RW(scan_interval_ms);

static struct attribute *klruscand_attrs[] = {
	&klruscand_enabled_attr.attr,
	&klruscand_interval_attr.attr,
	NULL,
};

static const struct attribute_group klruscand_group = {
	.attrs = klruscand_attrs,
};

static int __init klruscand_init(void)
{
	struct kobject *kobj = kobject_create_and_add("klruscand", mm_kobj);
	int err;

	if (!kobj)
		return -ENOMEM;
	err = sysfs_create_group(kobj, &klruscand_group);
	if (err) {
		pr_err("cannot create its sysfs files: %d\n", err);
		kobject_put(kobj);
	}
	return err;
}
subsys_initcall(klruscand_init);

#ifdef CONFIG_KLRUSCAND_KUNIT_TEST
#include "tests/klruscand-kunit.h"
#endif
