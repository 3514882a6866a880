// SPDX-License-Identifier: GPL-2.0
/*
 * kpromoted: promotion of hot folios from lower memory tiers.
 *
 * Sources of access information report folios of lower-tier nodes they saw
 * accessed (kpromoted_record_access()): klruscand's MGLRU page-table walks
 * today; NUMA-balancing hint faults or hardware access samples can report
 * the same way.  Each report updates a per-PFN record: a folio seen
 * accessed at least "threshold" times within "window_ms" of its first
 * report becomes a candidate, and the kpromoted thread migrates candidates
 * to the nearest top-tier node (or the node a source named), no faster
 * than "promote_rate_limit_MBps", and only while that node has free
 * memory above its high watermark.  When it has none, kswapd is woken on
 * it.  With /sys/kernel/mm/numa/demotion_enabled set, kswapd then
 * balances that node up to the promo watermark, as NUMA balancing's
 * memory tiering mode has it do for every node, until it gets there, and
 * is woken after each batch while free memory is below it: reclaim
 * demotes the coldest memory there and makes room beside the promotions.
 *
 * The records live in a set-associative table of fixed size, allocated
 * when the first source starts: a power of two of 16-byte records (12 on
 * 32-bit), one per four to eight pages of the lower-tier memory present
 * then (at most 1 MiB per GiB), at least 16384 and at most 4194304
 * records (256 KiB to 64 MiB).  A report that finds its set full of
 * records still inside their window is not recorded, so a hot set larger
 * than the table is taken in turns instead of thrashing it.  Candidates
 * wait in a bounded queue; a record leaves the table when it becomes one.
 *
 * A candidate moves only where its users' memory policies and cpusets
 * allow (folio_placement_check(), shared with DAMOS migrations); one they
 * keep below is ignored for KPROMOTED_REFUSE_WINDOWS windows, so that it
 * does not crowd out the others (its record can give way when a new
 * folio needs the slot).  Candidates migrate in batches, one TLB
 * flush per batch.
 */

#define pr_fmt(fmt) "kpromoted: " fmt

#include <linux/debugfs.h>
#include <linux/freezer.h>
#include <linux/folio_placement.h>
#include <linux/hash.h>
#include <linux/kfifo.h>
#include <linux/kobject.h>
#include <linux/kpromoted.h>
#include <linux/kthread.h>
#include <linux/memcontrol.h>
#include <linux/memory-tiers.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/mm_inline.h>
#include <linux/mmzone.h>
#include <linux/nodemask.h>
#include <linux/sizes.h>
#include <linux/sysfs.h>
#include <linux/time.h>
#include <linux/vmstat.h>

#include "internal.h"

#define KPROMOTED_WAYS		8
#define KPROMOTED_NR_LOCKS	64
#define KPROMOTED_MIN_RECS	SZ_16K
#define KPROMOTED_MAX_RECS	SZ_4M
#define KPROMOTED_FIFO_LEN	16384
/* Folios migrated per migrate_pages() call */
#define KPROMOTED_BATCH		32
/* Windows for which a folio its users keep below is not a candidate */
#define KPROMOTED_REFUSE_WINDOWS	8
/* A record's count while its folio is refused */
#define KPROMOTED_REFUSED	U8_MAX
/* How often the thread looks again while candidates wait, and when idle. */
#define KPROMOTED_BACKLOG_MS	100
#define KPROMOTED_IDLE_MS	1000

/**
 * struct kpromoted_rec - accesses reported for one folio
 * @key:	its PFN plus one; 0 marks a free slot
 * @start:	jiffies (low 32 bits) when its window began
 * @nid:	the node a source asked it to move to, or NUMA_NO_NODE
 * @count:	reports within the window, saturating
 */
struct kpromoted_rec {
	unsigned long key;
	u32 start;
	s16 nid;
	u8 count;
};

/**
 * struct kpromoted_table - the records, in sets of KPROMOTED_WAYS
 * @recs:	the records of set i at [i * KPROMOTED_WAYS]
 * @bits:	log2 of the number of sets
 * @locks:	set i is protected by locks[i % KPROMOTED_NR_LOCKS]
 */
struct kpromoted_table {
	struct kpromoted_rec *recs;
	unsigned int bits;
	spinlock_t locks[KPROMOTED_NR_LOCKS];	/* see @locks above */
};

/**
 * struct kpromoted_cand - a folio to promote
 * @pfn:	a PFN of the folio when it was reported
 * @when:	jiffies (low 32 bits) when it became a candidate
 * @nid:	the node a source asked for, or NUMA_NO_NODE
 */
struct kpromoted_cand {
	unsigned long pfn;
	u32 when;
	int nid;
};

/* What kpromoted_table_record() did, for the counters. */
#define KPR_EXISTS	BIT(0)	/* the folio had a record */
#define KPR_ADDED	BIT(1)	/* it got a new one */
#define KPR_COLD	BIT(2)	/* a record ended below the threshold */
#define KPR_CANDIDATE	BIT(3)	/* the folio became a candidate */
#define KPR_FULL	BIT(4)	/* no room in its set: not recorded */

/* Tunables, written whole through sysfs, read with READ_ONCE(). */
static unsigned int kpromoted_rate_mbps = 256;
static unsigned int kpromoted_window_ms = 4000;
static unsigned int kpromoted_threshold = 2;

/*
 * kpromoted_mutex serialises kpromoted_get()/kpromoted_put(), the only
 * writers of kpromoted_users (kpromoted_active() reads it without the
 * lock).  Reporters read kpromoted_tbl under RCU and queue into
 * kpromoted_fifo inside the same read-side section, so once
 * kpromoted_put() cleared the pointer and waited for a grace period
 * nothing touches either; the kpromoted thread is the fifo's only reader,
 * writers take kpromoted_fifo_lock.
 */
static DEFINE_MUTEX(kpromoted_mutex);
static unsigned int kpromoted_users;
static struct kpromoted_table __rcu *kpromoted_tbl;
static struct task_struct *kpromoted_thread;
static struct kpromoted_batch *kpromoted_batch_buf;
static DECLARE_KFIFO_PTR(kpromoted_fifo, struct kpromoted_cand);
static DEFINE_SPINLOCK(kpromoted_fifo_lock);
static DECLARE_WAIT_QUEUE_HEAD(kpromoted_wait);

/* The number of records for @lower_pages pages of lower-tier memory. */
static unsigned long kpromoted_nr_recs(unsigned long lower_pages)
{
	unsigned long nr = clamp(lower_pages / 4, KPROMOTED_MIN_RECS,
				 KPROMOTED_MAX_RECS);

	return rounddown_pow_of_two(nr);
}

static struct kpromoted_table *kpromoted_table_alloc(unsigned long nr_recs)
{
	struct kpromoted_table *t = kzalloc(sizeof(*t), GFP_KERNEL);
	int i;

	if (!t)
		return NULL;
	t->recs = kvcalloc(nr_recs, sizeof(*t->recs), GFP_KERNEL);
	if (!t->recs) {
		kfree(t);
		return NULL;
	}
	t->bits = ilog2(nr_recs / KPROMOTED_WAYS);
	for (i = 0; i < KPROMOTED_NR_LOCKS; i++)
		spin_lock_init(&t->locks[i]);
	return t;
}

static void kpromoted_table_free(struct kpromoted_table *t)
{
	if (!t)
		return;
	kvfree(t->recs);
	kfree(t);
}

/*
 * The age of a window that began at @start.  @now is read before the set's
 * lock is taken, so a window another CPU began meanwhile may start a tick
 * or so after it: that reads as age 0, not as a wrapped, huge age.
 */
static u32 kpromoted_age(u32 now, u32 start)
{
	u32 age = now - start;

	return age > U32_MAX - HZ ? 0 : age;
}

/*
 * Whether record @r may give its slot to another folio at @now: a free
 * slot, a window that has passed, or a refused folio (it is only reported
 * again, and refused again, if it loses its slot).
 */
static bool kpromoted_rec_expired(const struct kpromoted_rec *r, u32 now,
				  u32 window)
{
	return !r->key || r->count == KPROMOTED_REFUSED ||
	       kpromoted_age(now, r->start) > window;
}

/*
 * Record an access to @pfn at @now.  A record whose window (@window
 * jiffies) has passed starts a new one; a folio reported @threshold times
 * within one window leaves the table and is returned in @cand.  A new
 * folio takes a free slot of its set, else the expired record with the
 * oldest window; with neither it is not recorded.  Never evicting a live
 * record keeps a hot set larger than the table from thrashing it: the
 * folios recorded first become candidates and make room for the rest.
 */
static unsigned int kpromoted_table_record(struct kpromoted_table *t,
					   unsigned long pfn, int nid, u32 now,
					   u32 window, unsigned int threshold,
					   struct kpromoted_cand *cand)
{
	unsigned long set = hash_long(pfn, t->bits);
	struct kpromoted_rec *recs = t->recs + set * KPROMOTED_WAYS;
	struct kpromoted_rec *r = NULL, *victim = NULL;
	spinlock_t *lock = &t->locks[set % KPROMOTED_NR_LOCKS];
	unsigned int ret;
	int i;

	spin_lock(lock);
	for (i = 0; i < KPROMOTED_WAYS; i++) {
		struct kpromoted_rec *s = &recs[i];

		if (s->key == pfn + 1) {
			r = s;
			break;
		}
		/* A free slot, else the expired record with the oldest window. */
		if (!kpromoted_rec_expired(s, now, window))
			continue;
		if (!victim || (victim->key &&
				(!s->key || time_before32(s->start, victim->start))))
			victim = s;
	}
	if (r && r->count == KPROMOTED_REFUSED &&
	    kpromoted_age(now, r->start) <= KPROMOTED_REFUSE_WINDOWS * window) {
		spin_unlock(lock);
		return KPR_EXISTS;
	}
	if (!r && !victim) {
		spin_unlock(lock);
		return KPR_FULL;
	}
	if (r) {
		ret = KPR_EXISTS;
		if (r->count == KPROMOTED_REFUSED) {
			r->start = now;
			r->count = 0;
		} else if (kpromoted_age(now, r->start) > window) {
			if (r->count < threshold)
				ret |= KPR_COLD;
			r->start = now;
			r->count = 0;
		}
	} else {
		r = victim;
		ret = KPR_ADDED;
		if (r->key && r->count < threshold)
			ret |= KPR_COLD;
		r->key = pfn + 1;
		r->start = now;
		r->count = 0;
		r->nid = NUMA_NO_NODE;
	}
	if (r->count < KPROMOTED_REFUSED - 1)
		r->count++;
	if (nid != NUMA_NO_NODE)
		r->nid = nid;
	if (r->count >= threshold) {
		cand->pfn = pfn;
		cand->when = now;
		cand->nid = r->nid;
		r->key = 0;
		ret |= KPR_CANDIDATE;
	}
	spin_unlock(lock);
	return ret;
}

/* Mark @pfn refused at @now: its reports are ignored for a while. */
static void kpromoted_table_refuse(struct kpromoted_table *t,
				   unsigned long pfn, u32 now)
{
	unsigned long set = hash_long(pfn, t->bits);
	struct kpromoted_rec *recs = t->recs + set * KPROMOTED_WAYS;
	struct kpromoted_rec *r = NULL;
	spinlock_t *lock = &t->locks[set % KPROMOTED_NR_LOCKS];
	int i;

	spin_lock(lock);
	for (i = 0; i < KPROMOTED_WAYS; i++) {
		if (recs[i].key == pfn + 1 || !recs[i].key) {
			r = &recs[i];
			if (recs[i].key)
				break;
		}
	}
	/* In a full set it gives way to the others: it is tried again. */
	if (r) {
		r->key = pfn + 1;
		r->start = now;
		r->count = KPROMOTED_REFUSED;
		r->nid = NUMA_NO_NODE;
	}
	spin_unlock(lock);
}

/**
 * kpromoted_record_access() - report an access to a folio
 * @pfn:	a PFN of the folio
 * @nid:	the node it should move to (the accessing CPU's, if known),
 *		or NUMA_NO_NODE for the nearest top-tier node
 * @src:	who saw the access
 *
 * Context: process context, any locks but ones taken from interrupts;
 * does not sleep.  Does nothing while
 * no source has started kpromoted (kpromoted_get()).
 */
void kpromoted_record_access(unsigned long pfn, int nid,
			     enum kpromoted_src src)
{
	struct kpromoted_table *t;
	struct kpromoted_cand cand;
	struct page *page;
	unsigned int ret;

	count_vm_event(KPROMOTED_RECORDED_ACCESSES);
	count_vm_event(src == KPROMOTED_SRC_HWHINT ?
		       KPROMOTED_RECORDED_HWHINTS :
		       KPROMOTED_RECORDED_PGTSCANS);
	/* An offline section's memmap may be poisoned: no node to read. */
	page = pfn_to_online_page(pfn);
	if (!page)
		return;
	if (node_is_toptier(page_to_nid(page))) {
		count_vm_event(KPROMOTED_RECORD_TOPTIER);
		return;
	}

	rcu_read_lock();
	t = rcu_dereference(kpromoted_tbl);
	if (!t)
		goto out;
	ret = kpromoted_table_record(t, pfn, nid, jiffies,
				     msecs_to_jiffies(READ_ONCE(kpromoted_window_ms)),
				     READ_ONCE(kpromoted_threshold), &cand);
	if (ret & KPR_FULL)
		goto out;
	count_vm_event(ret & KPR_EXISTS ? KPROMOTED_RECORD_EXISTS :
		       KPROMOTED_RECORD_ADDED);
	if (ret & KPR_COLD)
		count_vm_event(KPROMOTED_MIG_COLD_NOT_ACCESSED);
	if (ret & KPR_CANDIDATE) {
		if (kfifo_in_spinlocked(&kpromoted_fifo, &cand, 1,
					&kpromoted_fifo_lock))
			count_vm_event(KPROMOTED_MIG_CANDIDATE);
		else
			count_vm_event(KPROMOTED_MIG_DROPPED);
	}
out:
	rcu_read_unlock();
}

/**
 * kpromoted_kick() - let kpromoted look at its candidates now
 *
 * For a source that just finished a round of reports.
 */
void kpromoted_kick(void)
{
	wake_up_interruptible(&kpromoted_wait);
}

/*
 * Add to @tokens (pages) what @ms milliseconds at @mbps allow; a tenth of
 * a second's worth at most.  @tokens may be negative: a large folio may
 * overdraw, and the debt is paid first.
 */
static long kpromoted_refill(long tokens, unsigned int ms, unsigned int mbps)
{
	u64 rate = (u64)mbps << (20 - PAGE_SHIFT);
	s64 cap = max_t(u64, rate / 10, 1);
	s64 next = tokens + div_u64(rate * ms, MSEC_PER_SEC);

	return min(next, cap);
}

/* The top-tier node a folio on @src goes to. */
static int kpromoted_target(int src, int hint)
{
	int nid, best = NUMA_NO_NODE;

	if (hint != NUMA_NO_NODE && node_state(hint, N_MEMORY) &&
	    node_is_toptier(hint))
		return hint;
	for_each_node_state(nid, N_MEMORY) {
		if (!node_is_toptier(nid))
			continue;
		if (best == NUMA_NO_NODE ||
		    node_distance(src, nid) < node_distance(src, best))
			best = nid;
	}
	return best;
}

/*
 * Nodes where a promotion found too little free memory and woke kswapd,
 * which balances them to the promo watermark until it got there
 * (kswapd_keeps_promo_room()).  Bits are set and cleared atomically, by
 * the kpromoted thread and by kswapd or any allocating task.
 */
static nodemask_t kpromoted_room_wanted;

static void kpromoted_want_room(int nid)
{
	/* Without demotion kswapd keeps the high watermark anyway. */
	if (!numa_demotion_enabled || node_isset(nid, kpromoted_room_wanted))
		return;
	node_set(nid, kpromoted_room_wanted);
	/* Seen by a kswapd checking pgdat_balanced() as it goes to sleep. */
	smp_mb__after_atomic();
}

/**
 * kpromoted_wants_room() - whether kpromoted asked kswapd for room on a node
 * @nid:	the node
 *
 * Context: any; a lockless read, for kswapd's watermark choice.
 * Return: true if kpromoted runs and a promotion to @nid found less free
 * memory than it needed since the node was last balanced at the promo
 * watermark.
 */
bool kpromoted_wants_room(int nid)
{
	return kpromoted_active() && node_isset(nid, kpromoted_room_wanted);
}

/**
 * kpromoted_room_made() - the promo watermark of a node is met
 * @nid:	the node
 *
 * Called by reclaim whenever it finds @nid balanced at the promo
 * watermark: kswapd goes back to the high watermark there until a
 * promotion asks again.
 *
 * Context: any.
 */
void kpromoted_room_made(int nid)
{
	/* Balance checks are frequent: do not dirty the line for nothing. */
	if (node_isset(nid, kpromoted_room_wanted))
		node_clear(nid, kpromoted_room_wanted);
}

/* The highest zone of @nid with managed pages, where kswapd is woken. */
static struct zone *kpromoted_top_zone(int nid)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	int z;

	for (z = pgdat->nr_zones - 1; z >= 0; z--)
		if (managed_zone(pgdat->node_zones + z))
			return pgdat->node_zones + z;
	return NULL;
}

/*
 * Whether @nid has @nr pages free above a zone's high watermark; if not,
 * kswapd is woken there to make room (it demotes when demotion is on).
 */
static bool kpromoted_room(int nid, unsigned int nr, unsigned int order)
{
	struct zone *top = kpromoted_top_zone(nid);
	struct zone *zone;
	int z;

	if (!top)
		return false;
	for (z = zone_idx(top); z >= 0; z--) {
		zone = NODE_DATA(nid)->node_zones + z;
		if (managed_zone(zone) &&
		    zone_watermark_ok(zone, 0, high_wmark_pages(zone) + nr,
				      ZONE_MOVABLE, 0))
			return true;
	}
	kpromoted_want_room(nid);
	wakeup_kswapd(top, 0, order, ZONE_MOVABLE);
	return false;
}

static struct folio *kpromoted_alloc(struct folio *src, unsigned long nid)
{
	unsigned int order = folio_order(src);
	gfp_t gfp = __GFP_THISNODE;

	/* Take only free memory: making room is reclaim's job. */
	if (order)
		gfp |= GFP_TRANSHUGE_LIGHT;
	else
		gfp |= GFP_HIGHUSER_MOVABLE | __GFP_NOMEMALLOC |
		       __GFP_NORETRY | __GFP_NOWARN;
	gfp &= ~__GFP_RECLAIM;
	return __folio_alloc_node(gfp, order, nid);
}

/**
 * struct kpromoted_batch - folios isolated for one migrate_pages() call
 * @folios:	the isolated folios, bound for @nid
 * @nid:	their target node
 * @nr:		how many there are
 * @nr_pages:	their pages
 * @folio:	each one, to tell afterwards which moved
 * @pages:	each one's number of pages
 * @memcg:	each one's memory cgroup, referenced, for its counters
 *
 * Owned by the kpromoted thread.  One call per batch: migrate_pages()
 * unmaps a batch with one TLB flush.
 */
struct kpromoted_batch {
	struct list_head folios;
	int nid;
	unsigned int nr;
	unsigned long nr_pages;
	struct folio *folio[KPROMOTED_BATCH];
	unsigned int pages[KPROMOTED_BATCH];
	struct mem_cgroup *memcg[KPROMOTED_BATCH];
};

/*
 * After a batch, have kswapd make more room on @nid while the next one
 * uses what is left, once free memory is below the promo watermark.
 */
static void kpromoted_refill_room(int nid)
{
	struct zone *top = kpromoted_top_zone(nid);

	if (top && !zone_watermark_ok(top, 0, promo_wmark_pages(top),
				      ZONE_MOVABLE, 0)) {
		kpromoted_want_room(nid);
		wakeup_kswapd(top, 0, 0, ZONE_MOVABLE);
	}
}

static void kpromoted_flush(struct kpromoted_batch *b)
{
	unsigned int nr_succeeded = 0, i;
	struct folio *folio;

	if (!b->nr)
		return;
	migrate_pages(&b->folios, kpromoted_alloc, NULL, b->nid, MIGRATE_ASYNC,
		      MR_KPROMOTED, &nr_succeeded);
	/* What did not move is back on the list. */
	list_for_each_entry(folio, &b->folios, lru) {
		for (i = 0; i < b->nr; i++) {
			if (b->folio[i] == folio)
				b->folio[i] = NULL;
		}
		count_vm_event(KPROMOTED_MIG_DROPPED);
	}
	putback_movable_pages(&b->folios);
	for (i = 0; i < b->nr; i++) {
		/* A moved folio is gone: only its pointer is compared. */
		if (b->folio[i]) {
			count_vm_event(KPROMOTED_MIG_PROMOTED);
			mod_lruvec_state(mem_cgroup_lruvec(b->memcg[i],
							   NODE_DATA(b->nid)),
					 PGPROMOTE_SUCCESS, b->pages[i]);
		}
		mem_cgroup_put(b->memcg[i]);
	}
	kpromoted_refill_room(b->nid);
	b->nr = 0;
	b->nr_pages = 0;
}

/*
 * Remember that @pfn's users keep it where it is, so that its reports are
 * ignored for a while instead of making it a candidate again and again.
 */
static void kpromoted_refuse(unsigned long pfn)
{
	struct kpromoted_table *t;

	rcu_read_lock();
	t = rcu_dereference(kpromoted_tbl);
	if (t)
		kpromoted_table_refuse(t, pfn, jiffies);
	rcu_read_unlock();
}

enum kpromoted_step {
	KPROMOTED_NEXT,		/* done with this candidate */
	KPROMOTED_FLUSH,	/* migrate the batch first, then try it again */
	KPROMOTED_WAIT,		/* no room on its target: later */
};

/* Add candidate @c's folio to @b, charging @tokens. */
static enum kpromoted_step kpromoted_take(const struct kpromoted_cand *c,
					  struct kpromoted_batch *b,
					  long *tokens)
{
	struct page *page = pfn_to_online_page(c->pfn);
	enum vm_event_item ev = KPROMOTED_MIG_DROPPED;
	enum kpromoted_step step = KPROMOTED_NEXT;
	unsigned int nr;
	struct folio *folio;
	int src, dst;

	if (!page)
		goto count_non_lru;
	folio = page_folio(page);
	if (!folio_try_get(folio))
		goto count_non_lru;
	/* It may have been freed, split or isolated since it was seen. */
	if (unlikely(page_folio(page) != folio || !folio_test_lru(folio)))
		goto put_non_lru;
	src = folio_nid(folio);
	if (node_is_toptier(src)) {
		ev = KPROMOTED_MIG_RIGHT_NODE;
		goto put;
	}
	if ((u32)jiffies - c->when >
	    msecs_to_jiffies(READ_ONCE(kpromoted_window_ms))) {
		ev = KPROMOTED_MIG_COLD_OLD;
		goto put;
	}
	/*
	 * Folios migration would fail on or split: dirty page cache, which
	 * not every file system moves asynchronously, and partly mapped
	 * large folios.
	 */
	if ((folio_is_file_lru(folio) && folio_test_dirty(folio)) ||
	    (folio_test_large(folio) && folio_test_partially_mapped(folio)))
		goto put;
	dst = kpromoted_target(src, c->nid);
	if (dst == NUMA_NO_NODE)
		goto put;
	nr = folio_nr_pages(folio);
	if (b->nr && (dst != b->nid || b->nr == KPROMOTED_BATCH)) {
		step = KPROMOTED_FLUSH;
		goto put_quiet;
	}
	if (!kpromoted_room(dst, b->nr_pages + nr, folio_order(folio))) {
		step = b->nr ? KPROMOTED_FLUSH : KPROMOTED_WAIT;
		goto put_quiet;
	}
	switch (folio_placement_check(folio, dst, false)) {
	case FOLIO_PLACEMENT_OK:
		break;
	case FOLIO_PLACEMENT_BUSY:
		goto put;
	default:
		kpromoted_refuse(c->pfn);
		goto put;
	}
	if (!folio_isolate_lru(folio))
		goto put;
	node_stat_mod_folio(folio, NR_ISOLATED_ANON + folio_is_file_lru(folio),
			    nr);
	b->nid = dst;
	b->folio[b->nr] = folio;
	b->pages[b->nr] = nr;
	b->memcg[b->nr] = get_mem_cgroup_from_folio(folio);
	b->nr++;
	b->nr_pages += nr;
	list_add_tail(&folio->lru, &b->folios);
	*tokens -= nr;
	/* The isolation holds a reference of its own. */
	folio_put(folio);
	return KPROMOTED_NEXT;
put_non_lru:
	folio_put(folio);
count_non_lru:
	count_vm_event(KPROMOTED_MIG_NON_LRU);
	return step;
put:
	count_vm_event(ev);
put_quiet:
	folio_put(folio);
	return step;
}

static int kpromoted_fn(void *data)
{
	struct kpromoted_batch *b = data;
	unsigned long last = jiffies;
	struct kpromoted_cand c;
	bool pending = false;
	long tokens = 0;

	set_freezable();
	while (!kthread_should_stop()) {
		bool backlog = pending || !kfifo_is_empty(&kpromoted_fifo);
		unsigned long now;

		wait_event_freezable_timeout(kpromoted_wait,
					     kthread_should_stop() ||
					     (!backlog && !kfifo_is_empty(&kpromoted_fifo)),
					     msecs_to_jiffies(backlog ? KPROMOTED_BACKLOG_MS :
							      KPROMOTED_IDLE_MS));
		now = jiffies;
		tokens = kpromoted_refill(tokens, jiffies_to_msecs(now - last),
					  READ_ONCE(kpromoted_rate_mbps));
		last = now;
		while (tokens > 0 && !kthread_should_stop()) {
			enum kpromoted_step step;

			if (!pending && !kfifo_out(&kpromoted_fifo, &c, 1))
				break;
			step = kpromoted_take(&c, b, &tokens);
			pending = step != KPROMOTED_NEXT;
			if (step == KPROMOTED_FLUSH)
				kpromoted_flush(b);
			else if (step == KPROMOTED_WAIT)
				break;
			cond_resched();
		}
		kpromoted_flush(b);
	}
	return 0;
}

static int kpromoted_start(void)
{
	unsigned long lower_pages = 0;
	struct kpromoted_table *t;
	int nid, err;

	for_each_node_state(nid, N_MEMORY)
		if (!node_is_toptier(nid))
			lower_pages += node_present_pages(nid);
	t = kpromoted_table_alloc(kpromoted_nr_recs(lower_pages));
	if (!t)
		return -ENOMEM;
	err = kfifo_alloc(&kpromoted_fifo, KPROMOTED_FIFO_LEN, GFP_KERNEL);
	if (err)
		goto free_table;
	kpromoted_batch_buf = kzalloc(sizeof(*kpromoted_batch_buf), GFP_KERNEL);
	if (!kpromoted_batch_buf) {
		err = -ENOMEM;
		goto free_fifo;
	}
	INIT_LIST_HEAD(&kpromoted_batch_buf->folios);
	kpromoted_thread = kthread_run(kpromoted_fn, kpromoted_batch_buf,
				       "kpromoted");
	if (IS_ERR(kpromoted_thread)) {
		err = PTR_ERR(kpromoted_thread);
		kpromoted_thread = NULL;
		goto free_batch;
	}
	rcu_assign_pointer(kpromoted_tbl, t);
	return 0;
free_batch:
	kfree(kpromoted_batch_buf);
	kpromoted_batch_buf = NULL;
free_fifo:
	kfifo_free(&kpromoted_fifo);
free_table:
	kpromoted_table_free(t);
	return err;
}

static void kpromoted_stop(void)
{
	struct kpromoted_table *t = rcu_dereference_protected(kpromoted_tbl,
				lockdep_is_held(&kpromoted_mutex));
	int nid;

	RCU_INIT_POINTER(kpromoted_tbl, NULL);
	synchronize_rcu();
	kthread_stop(kpromoted_thread);
	kpromoted_thread = NULL;
	/* No request outlives the thread that made it. */
	for_each_node_mask(nid, kpromoted_room_wanted)
		kpromoted_room_made(nid);
	kfree(kpromoted_batch_buf);
	kpromoted_batch_buf = NULL;
	kfifo_free(&kpromoted_fifo);
	kpromoted_table_free(t);
}

/**
 * kpromoted_get() - a source starts reporting
 *
 * The first user allocates the records and starts the kpromoted thread.
 *
 * Context: process context; may sleep.
 * Return: 0, or -ENOMEM or the error of starting the thread, with nothing
 * changed.
 */
int kpromoted_get(void)
{
	int err = 0;

	mutex_lock(&kpromoted_mutex);
	if (!kpromoted_users)
		err = kpromoted_start();
	if (!err)
		WRITE_ONCE(kpromoted_users, kpromoted_users + 1);
	mutex_unlock(&kpromoted_mutex);
	return err;
}

/**
 * kpromoted_put() - a source stops reporting
 *
 * The last user stops the thread and frees the records; candidates still
 * queued are dropped.
 *
 * Context: process context; may sleep.
 */
void kpromoted_put(void)
{
	mutex_lock(&kpromoted_mutex);
	if (!WARN_ON_ONCE(!kpromoted_users)) {
		WRITE_ONCE(kpromoted_users, kpromoted_users - 1);
		if (!kpromoted_users)
			kpromoted_stop();
	}
	mutex_unlock(&kpromoted_mutex);
}

/**
 * kpromoted_active() - whether a source has kpromoted running
 *
 * Context: any; a lockless read, for kswapd's watermark choice.
 * Return: true between a first kpromoted_get() and the last kpromoted_put().
 */
bool kpromoted_active(void)
{
	return READ_ONCE(kpromoted_users);
}

/**
 * struct kpromoted_attr - a sysfs file of one unsigned tunable
 * @attr:	the file
 * @val:	the tunable
 * @min:	the lowest value it takes
 * @max:	the highest value it takes
 */
struct kpromoted_attr {
	struct kobj_attribute attr;
	unsigned int *val;
	unsigned int min;
	unsigned int max;
};

static ssize_t kpromoted_attr_show(struct kobject *kobj,
				   struct kobj_attribute *attr, char *buf)
{
	struct kpromoted_attr *a = container_of(attr, struct kpromoted_attr, attr);

	return sysfs_emit(buf, "%u\n", READ_ONCE(*a->val));
}

static ssize_t kpromoted_attr_store(struct kobject *kobj,
				    struct kobj_attribute *attr,
				    const char *buf, size_t count)
{
	struct kpromoted_attr *a = container_of(attr, struct kpromoted_attr, attr);
	unsigned int v;

	if (kstrtouint(buf, 10, &v) || v < a->min || v > a->max)
		return -EINVAL;
	WRITE_ONCE(*a->val, v);
	return count;
}

#define KPROMOTED_ATTR(_name, _val, _min, _max) {			\
	.attr = {							\
		.attr = { .name = _name, .mode = 0644 },		\
		.show = kpromoted_attr_show,				\
		.store = kpromoted_attr_store,				\
	},								\
	.val = _val,							\
	.min = _min,							\
	.max = _max,							\
}

static struct kpromoted_attr kpromoted_files[] = {
	KPROMOTED_ATTR("promote_rate_limit_MBps", &kpromoted_rate_mbps, 1, SZ_1M),
	KPROMOTED_ATTR("window_ms", &kpromoted_window_ms, 100, 600000),
	KPROMOTED_ATTR("threshold", &kpromoted_threshold, 1, KPROMOTED_REFUSED - 1),
};

static struct attribute *kpromoted_attrs[] = {
	&kpromoted_files[0].attr.attr,
	&kpromoted_files[1].attr.attr,
	&kpromoted_files[2].attr.attr,
	NULL,
};

static const struct attribute_group kpromoted_group = {
	.attrs = kpromoted_attrs,
};

#ifdef CONFIG_DEBUG_FS
/*
 * A PFN written to <debugfs>/kpromoted/inject_hwhint is reported as a
 * hardware access sample of it would be: a stand-in for samplers yet to
 * come, and a way to test reports of any PFN (a hole, an offlined block).
 */
static int kpromoted_inject_hwhint(void *data, u64 pfn)
{
	if (pfn > ULONG_MAX)
		return -EINVAL;
	kpromoted_record_access(pfn, NUMA_NO_NODE, KPROMOTED_SRC_HWHINT);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(kpromoted_inject_fops, NULL, kpromoted_inject_hwhint,
			 "%llu\n");

static void __init kpromoted_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("kpromoted", NULL);

	debugfs_create_file_unsafe("inject_hwhint", 0200, dir, NULL,
				   &kpromoted_inject_fops);
}
#else
static inline void kpromoted_debugfs_init(void)
{
}
#endif

static int __init kpromoted_init(void)
{
	struct kobject *kobj = kobject_create_and_add("kpromoted", mm_kobj);
	int err;

	if (!kobj)
		return -ENOMEM;
	err = sysfs_create_group(kobj, &kpromoted_group);
	if (err) {
		pr_err("cannot create its sysfs files: %d\n", err);
		kobject_put(kobj);
		return err;
	}
	kpromoted_debugfs_init();
	return 0;
}
subsys_initcall(kpromoted_init);

#ifdef CONFIG_KPROMOTED_KUNIT_TEST
#include "tests/kpromoted-kunit.h"
#endif
