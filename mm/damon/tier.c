// SPDX-License-Identifier: GPL-2.0
/*
 * DAMON-based memory tiering (DAMON_TIER).
 *
 * Keeps hot data in the upper memory tiers and moves cold data down, with
 * no thresholds to tune: per tier boundary, one scheme demotes cold pages
 * of an upper node aiming at a small free headroom on it
 * (node_mem_free_bp), and one promotes hot pages of a lower node aiming at
 * a high utilization of the upper node (node_mem_used_bp).  The schemes
 * select DAMON's "temporal" quota goal tuner (whole quota while the goal is
 * unmet, nothing once it is met); before every apply pass the module sets
 * their goals and quotas from the upper node's free memory and from what
 * the last pass moved, so that demotion makes room as fast as promotion
 * fills it (see "Pacing" below).
 *
 * The topology comes from the memory tiers: every node with a demotion
 * target gets a migrate_cold scheme toward it, every node below the top
 * tier a migrate_hot scheme toward its nearest upper-tier node.  The
 * online System RAM is monitored (paddr), on auto-tuned monitoring
 * intervals; schemes are kept to their node by address filters: its span,
 * less what of it belongs to other nodes (memory hot-added above another
 * node's).  When the node layout or the online memory changes the module
 * rebuilds everything from the committed parameters instead of acting on
 * stale ranges.
 */

#define pr_fmt(fmt) "damon-tier: " fmt

#include <linux/damon.h>
#include <linux/gfp.h>
#include <linux/ioport.h>
#include <linux/memory_hotplug.h>
#include <linux/kstrtox.h>
#include <linux/memcontrol.h>
#include <linux/memory-tiers.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <asm/tlbflush.h>

#include "modules-common.h"
#include "tier.h"

#ifdef MODULE_PARAM_PREFIX
#undef MODULE_PARAM_PREFIX
#endif
#define MODULE_PARAM_PREFIX "damon_tier."

/*
 * The schemes apply every 100 ms, whatever the aggregation interval the
 * auto-tuning reaches: the module paces each pass.
 */
#define DAMON_TIER_APPLY_INTERVAL_US	100000

/* Bytes a scheme tries and fails to move count 1/this of its quota. */
#define DAMON_TIER_FAIL_CHARGE_DENOM	16
/*
 * The same for demotion.  The kernel's own memory reads as the coldest
 * (never young), and on a node with much of it (KASAN's shadow, the
 * memmap) a few probes of quota must get past all of it in a pass.
 */
#define DAMON_TIER_DEMOTE_FAIL_CHARGE_DENOM	1024

/*
 * Enable or disable DAMON_TIER.  Also settable at boot: damon_tier.enabled=Y.
 */
static bool enabled __read_mostly;

/*
 * The parameters below take effect when DAMON_TIER is enabled, or when Y is
 * written to commit_inputs while it runs; it reads back N once they are
 * applied.  A value out of its range is refused with EINVAL when written;
 * values that do not go together (sample_interval above aggr_interval,
 * min_nr_regions above max_nr_regions, an intervals goal that cannot run)
 * make the Y written to enabled or commit_inputs fail with EINVAL, and
 * nothing changes.
 */

/* The upper node's used memory that promotion aims at, in bp (1..10000). */
static unsigned long target_used_bp __read_mostly = 9970;

/* The upper node's free memory that demotion aims at, in bp (1..10000). */
static unsigned long target_free_bp __read_mostly = 50;

/*
 * Keep interleaved, bound, cpuset-confined and mlocked memory where its
 * users put it (Y, the default): the schemes' respect_placement.  N moves
 * it like any other memory.
 */
static bool respect_placement __read_mostly = true;
module_param(respect_placement, bool, 0600);

/*
 * The memory cgroup whose pages DAMON_TIER moves, as its path from the
 * cgroup2 mount point ("/workload"); empty (the default) for every page.
 * Resolved when DAMON_TIER is enabled or its inputs committed, which fail
 * with EINVAL if no memory cgroup has the path.  Its promotion then aims
 * the cgroup at target_used_bp of each upper node (node_memcg_used_bp);
 * demotion still keeps the node's target_free_bp free, moving only the
 * cgroup's cold pages.  At most DAMON_TIER_MEMCG_PATH_MAX bytes.  Read
 * and written under the module parameter lock.
 */
static char *memcg_path = "";

#define DAMON_TIER_MEMCG_PATH_MAX	1024

static int damon_tier_memcg_path_set(const char *val,
				     const struct kernel_param *kp)
{
	int err;

	if (strnlen(val, DAMON_TIER_MEMCG_PATH_MAX + 1) >
	    DAMON_TIER_MEMCG_PATH_MAX)
		return -EINVAL;
	/* A copy, or at boot the command line's own string. */
	err = param_set_charp(val, kp);
	if (!err && slab_is_available())
		memcg_path[strcspn(memcg_path, "\n")] = '\0';
	return err;
}

static const struct kernel_param_ops damon_tier_memcg_path_ops = {
	.set = damon_tier_memcg_path_set,
	.get = param_get_charp,
	.free = param_free_charp,
};

module_param_cb(memcg_path, &damon_tier_memcg_path_ops, &memcg_path, 0600);

/*
 * The cgroup2 id of memory cgroup @id: unlike memcg ids, never given to
 * another cgroup once its cgroup is gone.  0 if there is none.
 */
static u64 damon_tier_memcg_cgid(unsigned short id)
{
	u64 cgid = 0;
#ifdef CONFIG_MEMCG
	struct mem_cgroup *memcg;

	rcu_read_lock();
	memcg = mem_cgroup_from_id(id);
	if (memcg)
		cgid = cgroup_id(memcg->css.cgroup);
	rcu_read_unlock();
#endif
	return cgid;
}

/*
 * The quota goal tuner the schemes select, by the name the DAMON sysfs
 * interface uses for it.
 */
static enum damos_quota_goal_tuner goal_tuner __read_mostly =
	DAMOS_QUOTA_GOAL_TUNER_TEMPORAL;

/* Most MiB each scheme migrates per quota_reset_interval_ms (>= 1). */
static unsigned long quota_mb __read_mostly = 200;

/*
 * Interval in milliseconds (>= 1) that quota_mb is per; also how often a
 * changed node layout is looked for.
 */
static unsigned long quota_reset_interval_ms __read_mostly = 1000;

/*
 * Least milliseconds between flushes of every CPU's TLB, each right after
 * DAMON cleared the accessed bits it samples; 0 for none (at most 2^20,
 * and only 0 where DAMON_TIER_TLB_FLUSH is not set).  DAMON clears them
 * without a flush: a CPU that keeps a page's translation cached does not
 * set the bit again, so hot memory the TLBs cover (a small hot set, huge
 * pages) looks idle until its entries are evicted, to the monitor and to
 * the page-level young check alike.  While no upper node sees hot memory
 * below, the flushes space out to a second (damon_tier_flush_interval_ms()).
 */
#define DAMON_TIER_MAX_TLB_FLUSH_MS \
	(IS_ENABLED(CONFIG_DAMON_TIER_TLB_FLUSH) ? 1UL << 20 : 0)
static unsigned long tlb_flush_ms __read_mostly =
	IS_ENABLED(CONFIG_DAMON_TIER_TLB_FLUSH) ? 200 : 0;

/* TLB flushes since the last enable (read-only). */
static unsigned long nr_tlb_flushes;
module_param(nr_tlb_flushes, ulong, 0400);

/*
 * Monitoring attributes: the sampling and aggregation intervals (us) the
 * auto-tuning starts from, the limits on the number of regions, and the
 * intervals goal (see the admin guide).
 */
static struct damon_attrs damon_tier_mon_attrs = {
	.sample_interval = 5000,
	.aggr_interval = 100000,
	.ops_update_interval = 0,
	/*
	 * Merging never makes a region larger than 1/50 of the monitored
	 * memory, so that rarely seen hot memory is not averaged into large
	 * cold regions: the schemes apply every 100 ms, and after each pass
	 * DAMON merges neighbours not yet sampled apart.
	 */
	.min_nr_regions = 50,
	.max_nr_regions = 200,
	.intervals_goal = {
		.access_bp = 2000,
		.aggrs = 3,
		.min_sample_us = 5000,
		.max_sample_us = 200000,
	},
};

/*
 * Bytes promoted (migrate_hot) and demoted (migrate_cold) since the last
 * enable: this module's own moves.  pgpromote_damon and pgdemote_damon
 * count every DAMOS migration, of any DAMON user, since boot.
 */
static unsigned long bytes_promoted;
module_param(bytes_promoted, ulong, 0400);
static unsigned long bytes_demoted;
module_param(bytes_demoted, ulong, 0400);

/*
 * Bytes the schemes chose but left where they were since the last enable,
 * because a memory policy or a cpuset of the memory's users forbids the
 * move, or because the memory is mlocked and would be demoted.
 */
static unsigned long bytes_skipped_policy;
module_param(bytes_skipped_policy, ulong, 0400);
static unsigned long bytes_skipped_cpuset;
module_param(bytes_skipped_cpuset, ulong, 0400);
static unsigned long bytes_skipped_mlock;
module_param(bytes_skipped_mlock, ulong, 0400);

/* Number of schemes of the running context (read-only). */
static unsigned long nr_schemes;
module_param(nr_schemes, ulong, 0400);

/* Number of DAMON regions at the last aggregation (read-only). */
static unsigned long nr_regions;
module_param(nr_regions, ulong, 0400);

/* The sampling and aggregation intervals in use, us (read-only). */
static unsigned long sample_interval_us;
module_param(sample_interval_us, ulong, 0400);
static unsigned long aggr_interval_us;
module_param(aggr_interval_us, ulong, 0400);

/*
 * ctx, the running topology and the last-seen stats are touched by
 * parameter callbacks (serialized by the kernel's module parameter lock)
 * and by the kdamond's callbacks; the latter only run while the former
 * wait in damon_stop() or are not running, since damon_start() and
 * damon_stop() are only called from the "enabled" callback.
 */
static struct damon_ctx *ctx;
static struct damon_tier_topo damon_tier_running_topo;
static struct damon_tier_params damon_tier_running_params;
static struct damos_stat damon_tier_last_stat[DAMON_TIER_MAX_SCHEMES];
/* What each scheme had tried and moved at the last pacing. */
static struct damos_stat damon_tier_pace_stat[DAMON_TIER_MAX_SCHEMES];
static unsigned long damon_tier_next_topo_check;
/*
 * When the last TLB flush was, jiffies; when a pacing last saw hot memory
 * below an upper node, jiffies (see damon_tier_quiet()); whether none has
 * for DAMON_TIER_QUIET_MS; and the shift damon_tier_flush_interval_ms()
 * spaces the flushes out by: 0 until then, one more after each flush from
 * then on.  Serialized as ctx above: the kdamond's callbacks use them,
 * damon_tier_apply_parameters() resets them.
 */
static unsigned long damon_tier_last_tlb_flush;
static unsigned long damon_tier_last_hot;
static bool damon_tier_flush_quiet;
static unsigned int damon_tier_flush_shift;

/*
 * The parameters a commit applies: taken when Y is written to
 * commit_inputs or enabled, after checking them, so that the kdamond only
 * ever applies values that were committed.  damon_tier_commit_lock guards
 * them and commit_inputs against the kdamond.
 */
static DEFINE_MUTEX(damon_tier_commit_lock);
static struct damon_tier_params damon_tier_committed;
static bool commit_inputs __read_mostly;

static int damon_tier_param_set_bounded(const char *val,
					const struct kernel_param *kp,
					unsigned long min, unsigned long max)
{
	unsigned long v;
	int err = kstrtoul(val, 0, &v);

	if (err)
		return -EINVAL;
	if (v < min || v > max)
		return -EINVAL;
	*(unsigned long *)kp->arg = v;
	return 0;
}

static int damon_tier_bp_set(const char *val, const struct kernel_param *kp)
{
	return damon_tier_param_set_bounded(val, kp, 1, 10000);
}

static int damon_tier_bp0_set(const char *val, const struct kernel_param *kp)
{
	return damon_tier_param_set_bounded(val, kp, 0, 10000);
}

static int damon_tier_positive_set(const char *val,
				   const struct kernel_param *kp)
{
	/*
	 * At most 2^20 ms (about 17 minutes): the interval is also how often
	 * a changed node layout is looked for.
	 */
	return damon_tier_param_set_bounded(val, kp, 1, 1UL << 20);
}

static int damon_tier_tlb_flush_ms_set(const char *val,
				       const struct kernel_param *kp)
{
	return damon_tier_param_set_bounded(val, kp, 0,
					    DAMON_TIER_MAX_TLB_FLUSH_MS);
}

static int damon_tier_quota_mb_set(const char *val,
				   const struct kernel_param *kp)
{
	/* Its bytes must fit an unsigned long, on 32-bit too. */
	return damon_tier_param_set_bounded(val, kp, 1,
					    min(1UL << 20, ULONG_MAX >> 20));
}

static int damon_tier_us_set(const char *val, const struct kernel_param *kp)
{
	return damon_tier_param_set_bounded(val, kp, 1, ULONG_MAX);
}

static int damon_tier_any_set(const char *val, const struct kernel_param *kp)
{
	return damon_tier_param_set_bounded(val, kp, 0, ULONG_MAX);
}

static int damon_tier_nr_regions_set(const char *val,
				     const struct kernel_param *kp)
{
	/* DAMON needs at least three regions. */
	return damon_tier_param_set_bounded(val, kp, 3, ULONG_MAX);
}

/* Indexed by enum damos_quota_goal_tuner. */
static const char * const damon_tier_goal_tuner_names[] = {
	"consist",
	"temporal",
};

static int damon_tier_goal_tuner_set(const char *val,
				     const struct kernel_param *kp)
{
	int i = sysfs_match_string(damon_tier_goal_tuner_names, val);

	if (i < 0)
		return -EINVAL;
	goal_tuner = i;
	return 0;
}

static int damon_tier_goal_tuner_get(char *buf, const struct kernel_param *kp)
{
	return sprintf(buf, "%s\n", damon_tier_goal_tuner_names[goal_tuner]);
}

static const struct kernel_param_ops damon_tier_goal_tuner_ops = {
	.set = damon_tier_goal_tuner_set,
	.get = damon_tier_goal_tuner_get,
};

module_param_cb(goal_tuner, &damon_tier_goal_tuner_ops, NULL, 0600);

#define DAMON_TIER_PARAM_OPS(name)					\
static const struct kernel_param_ops damon_tier_##name##_ops = {	\
	.set = damon_tier_##name##_set,					\
	.get = param_get_ulong,						\
}

DAMON_TIER_PARAM_OPS(bp);
DAMON_TIER_PARAM_OPS(bp0);
DAMON_TIER_PARAM_OPS(positive);
DAMON_TIER_PARAM_OPS(tlb_flush_ms);
DAMON_TIER_PARAM_OPS(quota_mb);
DAMON_TIER_PARAM_OPS(us);
DAMON_TIER_PARAM_OPS(any);
DAMON_TIER_PARAM_OPS(nr_regions);

module_param_cb(target_used_bp, &damon_tier_bp_ops, &target_used_bp, 0600);
module_param_cb(target_free_bp, &damon_tier_bp_ops, &target_free_bp, 0600);
module_param_cb(quota_mb, &damon_tier_quota_mb_ops, &quota_mb, 0600);
module_param_cb(quota_reset_interval_ms, &damon_tier_positive_ops,
		&quota_reset_interval_ms, 0600);
module_param_cb(tlb_flush_ms, &damon_tier_tlb_flush_ms_ops, &tlb_flush_ms,
		0600);
module_param_cb(sample_interval, &damon_tier_us_ops,
		&damon_tier_mon_attrs.sample_interval, 0600);
module_param_cb(aggr_interval, &damon_tier_us_ops,
		&damon_tier_mon_attrs.aggr_interval, 0600);
module_param_cb(min_nr_regions, &damon_tier_nr_regions_ops,
		&damon_tier_mon_attrs.min_nr_regions, 0600);
module_param_cb(max_nr_regions, &damon_tier_nr_regions_ops,
		&damon_tier_mon_attrs.max_nr_regions, 0600);
module_param_cb(intervals_goal_access_bp, &damon_tier_bp0_ops,
		&damon_tier_mon_attrs.intervals_goal.access_bp, 0600);
module_param_cb(intervals_goal_aggrs, &damon_tier_any_ops,
		&damon_tier_mon_attrs.intervals_goal.aggrs, 0600);
module_param_cb(intervals_goal_min_sample_us, &damon_tier_any_ops,
		&damon_tier_mon_attrs.intervals_goal.min_sample_us, 0600);
module_param_cb(intervals_goal_max_sample_us, &damon_tier_any_ops,
		&damon_tier_mon_attrs.intervals_goal.max_sample_us, 0600);

/**
 * damon_tier_params_valid() - do parameters make a context that can run
 * @p:	the parameters
 *
 * Return: true if damon_tier_build() can build from @p.
 */
bool damon_tier_params_valid(const struct damon_tier_params *p)
{
	const struct damon_attrs *a = &p->attrs;

	return p->target_used_bp && p->target_used_bp <= 10000 &&
		p->target_free_bp && p->target_free_bp <= 10000 &&
		p->quota_mb && p->quota_mb <= ULONG_MAX >> 20 &&
		p->quota_reset_interval_ms &&
		p->tlb_flush_ms <= DAMON_TIER_MAX_TLB_FLUSH_MS &&
		a->sample_interval && a->sample_interval <= a->aggr_interval &&
		a->min_nr_regions >= 3 &&
		a->min_nr_regions <= a->max_nr_regions &&
		damon_intervals_goal_valid(a);
}

/*
 * The parameters as written now.  Fails with -EINVAL if they cannot run,
 * memcg_path naming no memory cgroup included.
 */
static int damon_tier_params_now(struct damon_tier_params *p)
{
	int err;

	p->target_used_bp = target_used_bp;
	p->target_free_bp = target_free_bp;
	p->quota_mb = quota_mb;
	p->quota_reset_interval_ms = quota_reset_interval_ms;
	p->respect_placement = respect_placement;
	p->goal_tuner = goal_tuner;
	p->tlb_flush_ms = tlb_flush_ms;
	p->attrs = damon_tier_mon_attrs;
	p->memcg = memcg_path && *memcg_path;
	p->memcg_id = 0;
	p->memcg_cgid = 0;
	if (!damon_tier_params_valid(p))
		return -EINVAL;
	if (p->memcg) {
		err = damon_memcg_path_to_id(memcg_path, &p->memcg_id);
		if (err)
			return err;
		p->memcg_cgid = damon_tier_memcg_cgid(p->memcg_id);
	}
	return 0;
}

/* The closest node of @lower; the lowest id among equally close ones. */
static int damon_tier_closest(int nid, const nodemask_t *lower)
{
	int n, best = NUMA_NO_NODE;

	for_each_node_mask(n, *lower) {
		if (best == NUMA_NO_NODE ||
		    node_distance(nid, n) < node_distance(nid, best))
			best = n;
	}
	return best;
}

/*
 * Owners are looked up once per block of this many pages, and page by page
 * in a block whose first and last pages are not both online on one node:
 * firmware may put a node boundary inside a memory section.
 */
#define DAMON_TIER_RAM_STEP	MAX_ORDER_NR_PAGES

/* Add the online pages of a System RAM resource to @arg's ranges. */
static int damon_tier_add_ram(struct resource *res, void *arg)
{
	struct damon_tier_topo *topo = arg;
	unsigned long pfn = PHYS_PFN(res->start);
	unsigned long end_pfn = PHYS_PFN(res->end + 1);
	struct damon_tier_range *last;
	struct page *page, *tail;
	unsigned long next;
	int nid;

	for (; pfn < end_pfn; pfn = next) {
		next = min(ALIGN(pfn + 1, DAMON_TIER_RAM_STEP), end_pfn);
		page = pfn_to_online_page(pfn);
		tail = pfn_to_online_page(next - 1);
		if (page != tail && (!page || !tail ||
				     page_to_nid(page) != page_to_nid(tail)))
			next = pfn + 1;
		if (!page)
			continue;
		nid = page_to_nid(page);
		last = topo->nr_ranges > 0 ?
			&topo->ranges[topo->nr_ranges - 1] : NULL;
		if (last && last->end == PFN_PHYS(pfn) && last->nid == nid) {
			last->end = PFN_PHYS(next);
			continue;
		}
		if (topo->nr_ranges >= DAMON_TIER_MAX_RANGES) {
			topo->nr_ranges = -E2BIG;
			return -E2BIG;
		}
		/* Field by field: the topology is compared with memcmp(). */
		last = &topo->ranges[topo->nr_ranges++];
		last->start = PFN_PHYS(pfn);
		last->end = PFN_PHYS(next);
		last->nid = nid;
	}
	return 0;
}

/**
 * damon_tier_read_topo() - read the node layout from the memory tiers
 * @topo:	filled with every node that has memory
 *
 * A node's demotion target is the closest node of the next lower tiers
 * (the lowest id among equally close ones, so that the layout reads the
 * same every time).  Its promotion target is the closest node of which it
 * is a demotion candidate (an upper-tier node); on equal distance the node
 * with more tiers below it (the faster one) wins, so hot pages climb
 * straight to the top tier.  The ranges are the online System RAM, each
 * piece attributed to the node its pages are on.
 */
void damon_tier_read_topo(struct damon_tier_topo *topo)
{
	nodemask_t lower, best_lower;
	int nid, up, best;

	memset(topo, 0, sizeof(*topo));
	/* Spans and online sections that agree with each other. */
	get_online_mems();
	for_each_node_state(nid, N_MEMORY) {
		struct damon_tier_node *n = &topo->nodes[topo->nr_nodes];
		pg_data_t *pgdat = NODE_DATA(nid);

		n->nid = nid;
		n->start = PFN_PHYS(pgdat->node_start_pfn);
		n->end = PFN_PHYS(pgdat_end_pfn(pgdat));
		node_get_allowed_targets(pgdat, &lower);
		n->demote_to = damon_tier_closest(nid, &lower);
		best = NUMA_NO_NODE;
		for_each_node_state(up, N_MEMORY) {
			node_get_allowed_targets(NODE_DATA(up), &lower);
			if (!node_isset(nid, lower))
				continue;
			if (best == NUMA_NO_NODE ||
			    node_distance(nid, up) < node_distance(nid, best) ||
			    (node_distance(nid, up) == node_distance(nid, best) &&
			     nodes_weight(lower) > nodes_weight(best_lower))) {
				best = up;
				best_lower = lower;
			}
		}
		n->promote_to = best;
		/* A node without pages has no range to monitor: skip it. */
		if (n->end > n->start)
			topo->nr_nodes++;
	}
	walk_system_ram_res(0, U64_MAX, topo, damon_tier_add_ram);
	put_online_mems();
}

/**
 * damon_tier_room_first() - whether DAMON reaches a node before its lower nodes
 * @topo:	node layout
 * @nid:	a node of @topo
 *
 * DAMON applies the schemes region by region in address order.  When all
 * of @nid's System RAM lies below that of every node promoting into it,
 * what @nid's demotion frees in an apply pass is free before promotion
 * into @nid looks in the same pass.
 *
 * Return: true if so; false if any piece of a node promoting into @nid
 * starts below the end of a piece of @nid, or if no node promotes into it.
 */
bool damon_tier_room_first(const struct damon_tier_topo *topo, int nid)
{
	unsigned long upper_end = 0, lower_start = ULONG_MAX;
	const struct damon_tier_range *r;
	int i, j;

	for (i = 0; i < topo->nr_ranges; i++) {
		r = &topo->ranges[i];
		if (r->nid == nid) {
			upper_end = max(upper_end, r->end);
			continue;
		}
		for (j = 0; j < topo->nr_nodes; j++) {
			if (topo->nodes[j].nid == r->nid &&
			    topo->nodes[j].promote_to == nid)
				lower_start = min(lower_start, r->start);
		}
	}
	return lower_start != ULONG_MAX && upper_end <= lower_start;
}

static int damon_tier_add_filters(struct damos *s,
				  const struct damon_tier_topo *topo,
				  const struct damon_tier_node *n, bool hot,
				  const struct damon_tier_params *p)
{
	const struct damon_tier_range *r;
	struct damos_filter *f;
	int i;

	/* Only the cgroup's pages, if one is set: reject the others. */
	if (p->memcg) {
		f = damos_new_filter(DAMOS_FILTER_TYPE_MEMCG, false, false);
		if (!f)
			return -ENOMEM;
		f->memcg_id = p->memcg_id;
		damos_add_filter(s, f);
	}

	/* Act only on this node's range: reject everything outside. */
	f = damos_new_filter(DAMOS_FILTER_TYPE_ADDR, false, false);
	if (!f)
		return -ENOMEM;
	f->addr_range.start = n->start;
	f->addr_range.end = n->end;
	damos_add_filter(s, f);

	/* And other nodes' memory inside it. */
	for (i = 0; i < topo->nr_ranges; i++) {
		r = &topo->ranges[i];
		if (r->nid == n->nid || r->end <= n->start ||
		    r->start >= n->end)
			continue;
		f = damos_new_filter(DAMOS_FILTER_TYPE_ADDR, true, false);
		if (!f)
			return -ENOMEM;
		f->addr_range.start = r->start;
		f->addr_range.end = r->end;
		damos_add_filter(s, f);
	}

	/* Promote only pages found young; never demote young ones. */
	f = damos_new_filter(DAMOS_FILTER_TYPE_YOUNG, true, hot);
	if (!f)
		return -ENOMEM;
	damos_add_filter(s, f);
	return 0;
}

static struct damos *damon_tier_new_scheme(const struct damon_tier_topo *topo,
					   const struct damon_tier_node *n,
					   bool hot,
					   const struct damon_tier_params *p)
{
	/*
	 * Demotion also looks into regions accessed up to 10% of the samples:
	 * hot pages promoted into a node spread over its address range, and
	 * with coarse regions every region holding one would be out of reach
	 * with a strict 0.  The young filter keeps the hot pages themselves.
	 */
	struct damos_access_pattern pattern = {
		.min_sz_region = PAGE_SIZE,
		.max_sz_region = ULONG_MAX,
		.min_nr_accesses = hot ? 1 : 0,
		.max_nr_accesses = hot ? UINT_MAX :
			damon_max_nr_accesses(&p->attrs) / 10,
		.min_age_region = 0,
		.max_age_region = UINT_MAX,
	};
	struct damos_quota quota = {
		/*
		 * Paced per pass (see damon_tier_pace()): a window shorter
		 * than a pass makes every pass start one.
		 */
		.reset_interval = DAMON_TIER_APPLY_INTERVAL_US / 2000,
		/*
		 * The pacing sets the size before every pass; the pass that
		 * follows a commit, before it could, moves a page at most.
		 */
		.sz = p->goal_tuner == DAMOS_QUOTA_GOAL_TUNER_TEMPORAL ?
			PAGE_SIZE : p->quota_mb << 20,
		.goal_tuner = p->goal_tuner,
		/*
		 * Promote the hottest first, demote the coldest first.  Not
		 * by age: memory nothing can move (the kernel's own) is the
		 * oldest, and the score threshold would then leave a small
		 * quota nothing else to look at.
		 */
		.weight_sz = 0,
		.weight_nr_accesses = 100,
		.weight_age = 0,
		/*
		 * Memory that cannot move (the kernel's own, pages found not
		 * young) costs little: the quota is what moves.
		 */
		.fail_charge_num = 1,
		.fail_charge_denom = hot ? DAMON_TIER_FAIL_CHARGE_DENOM :
			DAMON_TIER_DEMOTE_FAIL_CHARGE_DENOM,
	};
	struct damos_watermarks wmarks = { .metric = DAMOS_WMARK_NONE };
	struct damos_quota_goal *goal;
	struct damos *s;

	s = damon_new_scheme(&pattern,
			     hot ? DAMOS_MIGRATE_HOT : DAMOS_MIGRATE_COLD,
			     DAMON_TIER_APPLY_INTERVAL_US, &quota, &wmarks,
			     hot ? n->promote_to : n->demote_to);
	if (!s)
		return NULL;
	s->respect_placement = p->respect_placement;
	if (hot)
		goal = damos_new_quota_goal(p->memcg ?
					    DAMOS_QUOTA_NODE_MEMCG_USED_BP :
					    DAMOS_QUOTA_NODE_MEM_USED_BP,
					    p->target_used_bp);
	else
		goal = damos_new_quota_goal(DAMOS_QUOTA_NODE_MEM_FREE_BP,
					    p->target_free_bp);
	if (!goal)
		goto fail;
	/* Both aim at the upper node: the destination, or the source. */
	goal->nid = hot ? n->promote_to : n->nid;
	goal->memcg_id = p->memcg_id;
	damos_add_quota_goal(&s->quota, goal);
	if (damon_tier_add_filters(s, topo, n, hot, p))
		goto fail;
	return s;
fail:
	damon_destroy_scheme(s);
	return NULL;
}

/**
 * damon_tier_build() - set up a context for a topology
 * @c:		a fresh paddr context with no schemes
 * @t:		the only target of @c
 * @topo:	node layout
 * @p:		parameters
 *
 * Adds one migrate_cold scheme per node with a demotion target and one
 * migrate_hot scheme per node with a promotion target, and monitors the
 * System RAM of @topo's ranges.  A flat topology gets no scheme.
 *
 * Return: 0, or a negative error code (-EINVAL for invalid @p or a layout
 * without memory, -E2BIG for System RAM in too many pieces).
 */
int damon_tier_build(struct damon_ctx *c, struct damon_target *t,
		     const struct damon_tier_topo *topo,
		     const struct damon_tier_params *p)
{
	struct damon_attrs attrs = p->attrs;
	struct damon_addr_range *ranges;
	struct damos *s;
	int i, hot, err;

	if (topo->nr_ranges < 0)
		return topo->nr_ranges;
	if (!damon_tier_params_valid(p) || !topo->nr_nodes || !topo->nr_ranges)
		return -EINVAL;
	ranges = kmalloc_array(topo->nr_ranges, sizeof(*ranges), GFP_KERNEL);
	if (!ranges)
		return -ENOMEM;

	err = -ENOMEM;
	for (i = 0; i < topo->nr_nodes; i++) {
		const struct damon_tier_node *n = &topo->nodes[i];

		for (hot = 0; hot <= 1; hot++) {
			if ((hot ? n->promote_to : n->demote_to) == NUMA_NO_NODE)
				continue;
			s = damon_tier_new_scheme(topo, n, hot, p);
			if (!s)
				goto out;
			damon_add_scheme(c, s);
		}
	}
	for (i = 0; i < topo->nr_ranges; i++) {
		ranges[i].start = topo->ranges[i].start;
		ranges[i].end = topo->ranges[i].end;
	}

	err = damon_set_regions(t, ranges, topo->nr_ranges);
	if (!err)
		err = damon_set_attrs(c, &attrs);
out:
	kfree(ranges);
	return err;
}

static unsigned long damon_tier_nr_schemes(struct damon_ctx *c)
{
	unsigned long nr = 0;
	struct damos *s;

	damon_for_each_scheme(s, c)
		nr++;
	return nr;
}

/* Pacing state of each upper node; only the kdamond uses it. */
static struct damon_tier_pace damon_tier_paces[MAX_NUMNODES];
/*
 * The nodes of damon_tier_running_topo that damon_tier_room_first() holds
 * for; set with it.
 */
static nodemask_t damon_tier_room_first_nodes;

/*
 * Take the stats of the schemes from position @from on as the point the
 * counters and the pacing count from.  A commit keeps the schemes at the
 * positions both the old and the new list have, stats included, and
 * creates the others with zeroed stats: only those need a new baseline,
 * and the kept ones go on counting from theirs.
 */
static void damon_tier_sync_stats(struct damon_ctx *c, int from)
{
	struct damos *s;
	int i = 0;

	damon_for_each_scheme(s, c) {
		if (i >= DAMON_TIER_MAX_SCHEMES)
			break;
		if (i >= from) {
			damon_tier_pace_stat[i] = s->stat;
			damon_tier_last_stat[i] = s->stat;
		}
		i++;
	}
}

/* Build a fresh context from parameters @p and commit it. */
static int damon_tier_apply_parameters(const struct damon_tier_params *p)
{
	struct damon_ctx *param_ctx;
	struct damon_target *param_target;
	struct damon_tier_topo *topo;
	int err, j;

	topo = kvmalloc(sizeof(*topo), GFP_KERNEL);
	if (!topo)
		return -ENOMEM;
	damon_tier_read_topo(topo);

	/*
	 * Committing keeps the running schemes' quota tuning state, which
	 * setting them directly would reset.
	 */
	err = damon_modules_new_paddr_ctx_target(&param_ctx, &param_target);
	if (err)
		goto out;
	err = damon_tier_build(param_ctx, param_target, topo, p);
	if (!err) {
		int kept = damon_tier_nr_schemes(ctx);

		err = damon_commit_ctx(ctx, param_ctx);
		/* Even a failed commit may have added some schemes. */
		damon_tier_sync_stats(ctx, kept);
	}
	if (!err) {
		/* Nodes may have changed roles: pace them from scratch. */
		if (memcmp(&damon_tier_running_topo, topo, sizeof(*topo)))
			memset(damon_tier_paces, 0, sizeof(damon_tier_paces));
		memcpy(&damon_tier_running_topo, topo, sizeof(*topo));
		nodes_clear(damon_tier_room_first_nodes);
		for (j = 0; j < topo->nr_nodes; j++) {
			if (damon_tier_room_first(topo, topo->nodes[j].nid))
				node_set(topo->nodes[j].nid,
					 damon_tier_room_first_nodes);
		}
		damon_tier_running_params = *p;
		/*
		 * The next sample flushes and a new interval counts from
		 * there, not from the old flush; the quiet wait starts over.
		 */
		damon_tier_last_tlb_flush = jiffies -
			msecs_to_jiffies(p->tlb_flush_ms);
		damon_tier_last_hot = jiffies;
		damon_tier_flush_quiet = false;
		damon_tier_flush_shift = 0;
		WRITE_ONCE(nr_schemes, damon_tier_nr_schemes(param_ctx));
	}
	damon_destroy_ctx(param_ctx);
out:
	kvfree(topo);
	return err;
}

/* Scratch copy for damon_tier_topo_changed(); only the kdamond uses it. */
static struct damon_tier_topo damon_tier_topo_now;

static bool damon_tier_topo_changed(void)
{
	damon_tier_read_topo(&damon_tier_topo_now);
	return memcmp(&damon_tier_topo_now, &damon_tier_running_topo,
		      sizeof(damon_tier_topo_now)) != 0;
}

/* Add what a counter of a scheme grew by since it was last seen. */
static void damon_tier_count(unsigned long *total, unsigned long cur,
			     unsigned long *last)
{
	/* Modular: a counter that wrapped (32-bit) still counts right. */
	unsigned long delta = cur - *last;

	*last = cur;
	if (delta)
		WRITE_ONCE(*total, *total + delta);
}

/*
 * Pacing of the exchange between a node of an upper tier and the nodes
 * below it.  The schemes select the "temporal" goal tuner: in each quota
 * window a scheme moves at most its quota while its goal is unmet, nothing
 * once it is met.  The windows are one apply pass long, and before each
 * pass the module sets every scheme's goal and quota from the upper node's
 * free memory and from what the last pass moved:
 *
 * - promotion fills the room there is: the upper node's free memory above
 *   its floor (each zone's high watermark, boost included, and what lower
 *   zones keep back from movable allocations), and aims at target_used_bp
 *   but not past the floor: migrations allocate without reclaim, and
 *   filling past the floor only wakes kswapd;
 * - demotion keeps target_free_bp free, at least the floor, and while hot
 *   memory waits below a full upper node a lead on top, for promotion to
 *   fill: twice what promotion moved in the last pass plus a probe.  The
 *   lead doubles per pass while promotion keeps up and shrinks to nothing
 *   once it finds nothing to move, so that the exchange ends with little
 *   free memory that nothing hot fills;
 * - DAMON applies the schemes in address order: where the upper node's
 *   memory comes first (damon_tier_room_first()), promotion also takes
 *   the room demotion makes in the same pass, as much as demotion made
 *   when last asked and at most four probes (damon_tier_same_pass()),
 *   which is how far below the floor a demotion that stops making room
 *   can leave the node; elsewhere it takes that room in the next pass;
 * - when accessed memory shows below and there is no room, a probe lead
 *   makes room for it; leads that move nothing back off exponentially, so
 *   that a goal that cannot be reached (no room below, memory that may not
 *   move) costs next to nothing;
 * - promotion takes the hottest regions first, and every accessed region
 *   in turn once what it has just emptied holds the top ranks
 *   (damon_tier_rank_promotion()).
 *
 * Pages demotion frees go to the per-CPU lists of the kdamond's CPU, where
 * the node's free page count and watermark checks do not see them (the
 * kdamond's own promotions in the same pass allocate from those lists
 * first): that CPU's lists are drained after each pass that demoted, so
 * that the next reading sees the room.  Promotion's allocations take free
 * pages to the lists in batches too: before demotion asks for room, lists
 * holding more than half a probe are drained, so that demotion does not
 * make room that is already there.
 */

/* The probe lead: 1/DAMON_TIER_PROBE_SHARE of the upper node. */
#define DAMON_TIER_PROBE_SHARE	1024
/* The most demotion leads by, in probes. */
#define DAMON_TIER_LEAD_PROBES	4
/* The room kept while accessed memory shows below, in probes. */
#define DAMON_TIER_READY_PROBES	2
/*
 * Promotion takes turns after moving this many probes in this or the last
 * aggregation interval (see damon_tier_take_turns()).
 */
#define DAMON_TIER_TURNS_PROBES	4
/* At most 2^this passes between leads that move nothing. */
#define DAMON_TIER_MAX_BACKOFF	6
/* Passes the pacing waits for an apply pass to take its settings. */
#define DAMON_TIER_PACE_WAIT_PASSES	3
/*
 * TLB flushes space out once no upper node has seen hot memory below for
 * this long, ms: an exchange's tail can pause for a few seconds.
 */
#define DAMON_TIER_QUIET_MS	5000
/*
 * The longest time between TLB flushes while nothing shows below, ms, and
 * a shift that reaches it from any tlb_flush_ms.
 */
#define DAMON_TIER_QUIET_FLUSH_MS	1000UL
#define DAMON_TIER_MAX_FLUSH_SHIFT	10U

static unsigned long damon_tier_last_pace;
/*
 * Whether a scheme was applied to a region since the last pacing (tried:
 * the page filters and the migration may still move nothing): set by the
 * kdamond's before_damos_apply(), read and cleared by its pacing.
 */
static bool damon_tier_applied;

/*
 * Free memory of the upper node the allocator keeps for itself, in bp of
 * the node (read-only): the largest of the upper nodes'.
 */
static unsigned long free_floor_bp;
module_param(free_floor_bp, ulong, 0400);

/* Milliseconds between leads while they move nothing (read-only). */
static unsigned long backoff_ms;
module_param(backoff_ms, ulong, 0400);

/*
 * The free pages of @nid that a migration cannot get: each zone's high
 * watermark (boost included) and what it keeps back from movable
 * allocations, at most the zone's pages.
 */
static unsigned long damon_tier_floor_pages(int nid)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	unsigned long pages = 0;
	int z;

	for (z = 0; z < MAX_NR_ZONES; z++) {
		struct zone *zone = &pgdat->node_zones[z];

		if (!populated_zone(zone))
			continue;
		pages += min(zone_managed_pages(zone),
			     high_wmark_pages(zone) +
			     zone->lowmem_reserve[MAX_NR_ZONES - 1]);
	}
	return pages;
}

/* Free pages of @nid on the per-CPU lists, which NR_FREE_PAGES misses. */
static unsigned long damon_tier_pcp_pages(int nid)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	unsigned long pages = 0;
	int z, cpu;

	for (z = 0; z < MAX_NR_ZONES; z++) {
		struct zone *zone = &pgdat->node_zones[z];

		if (!populated_zone(zone))
			continue;
		for_each_online_cpu(cpu)
			pages += READ_ONCE(per_cpu_ptr(zone->per_cpu_pageset,
						       cpu)->count);
	}
	return pages;
}

/*
 * Give the pages on this CPU's lists of @nid's zones back to the node: the
 * pages demotion freed or promotion's allocations took there, where the
 * node's free count and the allocator's watermark checks miss them.  Those
 * that other CPUs' lists hold (the kdamond moved, or other tasks freed
 * them) only when they come to more than @pages: draining every CPU's
 * lists takes each list's lock and the zone's from here, under a mutex
 * that direct reclaim's own drain skips while it is held.
 */
static void damon_tier_drain(int nid, unsigned long pages)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	bool all;
	int z;

	/* The kdamond may run anywhere: drain the CPU it runs on now. */
	migrate_disable();
	for (z = 0; z < MAX_NR_ZONES; z++) {
		if (populated_zone(&pgdat->node_zones[z]))
			drain_local_pages(&pgdat->node_zones[z]);
	}
	migrate_enable();
	all = damon_tier_pcp_pages(nid) > pages;
	for (z = 0; all && z < MAX_NR_ZONES; z++) {
		if (populated_zone(&pgdat->node_zones[z]))
			drain_all_pages(&pgdat->node_zones[z]);
	}
}

/* The goal of scheme @s: its only one. */
static struct damos_quota_goal *damon_tier_goal(struct damos *s)
{
	struct damos_quota *q = &s->quota;
	struct damos_quota_goal *g;

	damos_for_each_quota_goal(g, q)
		return g;
	return NULL;
}

/* Accessed bytes DAMON sees in [@start, @end), weighted by access rate. */
static unsigned long damon_tier_hot_bytes(struct damon_ctx *c,
					  unsigned long start, unsigned long end)
{
	unsigned long max_bp = damon_max_nr_accesses(&c->attrs) * 10000UL;
	unsigned long hot = 0, lo, hi;
	struct damon_target *t;
	struct damon_region *r;

	if (!max_bp)
		return 0;
	damon_for_each_target(t, c) {
		damon_for_each_region(r, t) {
			lo = max(r->ar.start, start);
			hi = min(r->ar.end, end);
			if (lo >= hi || !r->nr_accesses_bp)
				continue;
			hot += mult_frac(hi - lo, min_t(unsigned long,
					 r->nr_accesses_bp, max_bp), max_bp);
		}
	}
	return hot;
}

/*
 * Bytes the schemes of upper node @nid moved since the last pacing, bytes
 * its promotion schemes tried to, and of those the bytes their users'
 * policies or cpusets keep where they are.
 */
static void damon_tier_moved(struct damon_ctx *c, int nid, unsigned long *up,
			     unsigned long *tried_up, unsigned long *refused_up,
			     unsigned long *down)
{
	struct damos_quota_goal *g;
	struct damos_stat *last;
	struct damos *s;
	int k = 0;

	*up = 0;
	*tried_up = 0;
	*refused_up = 0;
	*down = 0;
	damon_for_each_scheme(s, c) {
		if (k >= DAMON_TIER_MAX_SCHEMES)
			break;
		last = &damon_tier_pace_stat[k++];
		g = damon_tier_goal(s);
		if (!g || g->nid != nid)
			continue;
		if (s->action == DAMOS_MIGRATE_HOT) {
			*up += s->stat.sz_applied - last->sz_applied;
			*tried_up += s->stat.sz_tried - last->sz_tried;
			*refused_up += s->stat.sz_skipped_policy -
				last->sz_skipped_policy +
				s->stat.sz_skipped_cpuset -
				last->sz_skipped_cpuset;
		} else {
			*down += s->stat.sz_applied - last->sz_applied;
		}
		*last = s->stat;
	}
}

/**
 * damon_tier_next_lead() - the lead demotion keeps for promotion
 * @x:		the upper node's exchange state
 * @up:		bytes promoted into the node in the last pass
 * @down:	bytes demoted from the node in the last pass
 * @hot:	accessed bytes DAMON sees below the node
 * @probe:	the probe lead, bytes
 * @cap:	the most a scheme may move in a pass, bytes
 * @now:	jiffies
 * @pass:	jiffies per pass
 *
 * Return: the lead for the next pass, bytes.
 */
unsigned long damon_tier_next_lead(struct damon_tier_pace *x,
				   unsigned long up, unsigned long down,
				   unsigned long hot, unsigned long probe,
				   unsigned long cap, unsigned long now,
				   unsigned long pass)
{
	/*
	 * Half of what was asked, at most half a probe, is room made.  Less
	 * is a trickle (a few pages freed beside memory that cannot move):
	 * it must neither end a backoff nor restart asks that each look
	 * across all of that memory.
	 */
	unsigned long enough = max(min(x->asked ? x->asked : probe, probe) / 2,
				   PAGE_SIZE);
	unsigned long moved = size_add(down, up);

	if (x->asked && moved < enough) {
		x->backoff = min(x->backoff + 1, DAMON_TIER_MAX_BACKOFF);
		x->next_lead = now + (pass << x->backoff);
	} else if (moved >= enough) {
		x->backoff = 0;
		x->next_lead = now;
	}
	if (x->backoff && time_before(now, x->next_lead))
		return 0;
	/* A wait that ran out must not come back when jiffies wrap. */
	if (x->backoff)
		x->next_lead = now;
	/*
	 * While promotion finds hot memory: twice what it moved, but at
	 * most a few probes (more while DAMON sees that much hot memory
	 * below), since at the end of an exchange the last lead stays
	 * empty.  While accessed memory only shows below: a little room,
	 * ready for when its pages are seen young.
	 */
	if (up)
		return min3(cap, 2 * up + probe,
			    clamp(hot, DAMON_TIER_LEAD_PROBES * probe,
				  DAMON_TIER_LEAD_PROBES * 4 * probe));
	if (hot)
		return min(cap, DAMON_TIER_READY_PROBES * probe);
	return 0;
}

/**
 * damon_tier_same_pass() - room promotion takes in the pass demotion makes it
 * @x:		the upper node's exchange state
 * @asked:	bytes of room demotion is asked for in this pass, 0 for none
 * @down:	bytes demoted from the node in the last pass
 * @probe:	the probe lead, bytes
 * @room_first:	whether DAMON reaches the node's memory before that of the
 *		nodes promoting into it (damon_tier_room_first())
 *
 * DAMON applies the schemes region by region in address order, so where
 * @room_first holds, the room demotion makes in a pass is free before
 * promotion looks in that pass.  Promotion may take it then, up to what
 * demotion made when it was last asked and at most DAMON_TIER_LEAD_PROBES
 * probes: a demotion that makes less than that in a pass leaves the node
 * short by the difference, never by more, until the next pass makes up
 * for it or stops asking.  Records @asked, and what demotion made of the
 * last ask.
 *
 * Return: bytes of @asked promotion may take in this pass.
 */
unsigned long damon_tier_same_pass(struct damon_tier_pace *x,
				   unsigned long asked, unsigned long down,
				   unsigned long probe, bool room_first)
{
	if (x->asked)
		x->made = down;
	x->asked = asked;
	if (!room_first)
		return 0;
	return min3(asked, x->made, DAMON_TIER_LEAD_PROBES * probe);
}

/*
 * Whether promotion should rank every accessed region alike next pass, for
 * upper node exchange @x with probe lead @probe (bytes), only one memory
 * cgroup's pages moving if @memcg.  DAMOS admits the best-ranked regions
 * up to the quota in region bytes, and promotion's quota is about the room
 * there is: it goes to the hottest few regions.  Regions promotion has just
 * emptied keep their access rate until it decays (up to an aggregation
 * interval), so once it has moved a few probes and then finds nothing, the
 * top ranks are what it emptied and the rest of the hot memory ranks
 * below: every accessed region then takes its turn.  With a cgroup, another
 * cgroup's hot memory can hold the top ranks for good: turns whenever
 * promotion finds nothing.
 */
static bool damon_tier_take_turns(const struct damon_tier_pace *x,
				  unsigned long probe, bool memcg)
{
	if (x->finding)
		return false;
	return memcg || size_add(x->promoted, x->promoted_last) >=
		DAMON_TIER_TURNS_PROBES * probe;
}

/*
 * Rank promotion's regions for the next pass of upper node exchange @x:
 * the hottest first, or every accessed region alike while it takes turns
 * (damon_tier_take_turns()).  While promotion finds hot pages, or takes
 * turns after an exchange, pages it finds not young are charged at
 * 1/DAMON_TIER_FAIL_CHARGE_DENOM, so that a pass looks past them; up to
 * that many times its quota.  Otherwise they are charged in full, which
 * bounds what it looks at to the room there is.  With a cgroup the turns
 * are charged in full too: its filter rejects the other cgroups' pages
 * before any access check, so that its turns cost little anyway.
 */
static void damon_tier_rank_promotion(struct damos_quota *q,
				      const struct damon_tier_pace *x,
				      unsigned long probe, bool memcg)
{
	bool turns = damon_tier_take_turns(x, probe, memcg);

	q->weight_nr_accesses = turns ? 0 : 100;
	q->fail_charge_denom = (x->finding || (turns && !memcg)) ?
		DAMON_TIER_FAIL_CHARGE_DENOM : 0;
}

/* @pages in bytes, at most @max bytes: no overflow on 32-bit. */
static unsigned long damon_tier_bytes(unsigned long pages, unsigned long max)
{
	return min(pages, max >> PAGE_SHIFT) << PAGE_SHIFT;
}

/*
 * Set the goals and quotas of upper node @nid's schemes for a pass of
 * @pass_us.  Node sizes are in pages: bytes of a node overflow an
 * unsigned long on 32-bit.  Returns the node's free floor, in bp.
 */
static unsigned long damon_tier_pace_node(struct damon_ctx *c, int nid,
					  const struct damon_tier_params *p,
					  unsigned long now,
					  unsigned long pass_us)
{
	struct damon_tier_pace *x = &damon_tier_paces[nid];
	const struct damon_tier_range *r;
	unsigned long up, tried_up, refused_up, down, hot = 0, total, free;
	unsigned long floor, room, made, asked;
	unsigned long want, fill_to, lead, bp;
	unsigned long probe, half_probe, cap, floor_bp;
	struct damos_quota_goal *g;
	bool resting, short_of;
	struct sysinfo i;
	struct damos *s;
	int j, k;

	damon_tier_moved(c, nid, &up, &tried_up, &refused_up, &down);
	x->hot_below = false;
	damos_node_meminfo(nid, &i);
	if (!i.totalram)
		return 0;
	if (down) {
		damon_tier_drain(nid, i.totalram / DAMON_TIER_PROBE_SHARE);
		damos_node_meminfo(nid, &i);
	}
	total = i.totalram;
	free = min(i.freeram, total);
	floor = min(damon_tier_floor_pages(nid), total);
	floor_bp = damos_node_mem_bp_of(total, floor, false);
	/* quota_mb per quota_reset_interval_ms, for the time of one pass. */
	cap = min_t(u64, ULONG_MAX,
		    mul_u64_u64_div_u64((u64)p->quota_mb << 20, pass_us,
					(u64)p->quota_reset_interval_ms *
					USEC_PER_MSEC));
	cap = max_t(unsigned long, PAGE_SIZE, ALIGN_DOWN(cap, PAGE_SIZE));
	probe = max_t(unsigned long, PAGE_SIZE,
		      damon_tier_bytes(total / DAMON_TIER_PROBE_SHARE, cap));
	/*
	 * Promotion stops a probe above the floor, demotion starts below it:
	 * allocations do not stop exactly where asked, and without the gap
	 * the two would trade pages at the floor.
	 */
	fill_to = min(total, floor + (probe >> PAGE_SHIFT));

	for (j = 0; j < damon_tier_running_topo.nr_nodes; j++) {
		const struct damon_tier_node *n =
			&damon_tier_running_topo.nodes[j];

		if (n->promote_to != nid)
			continue;
		/* The node's own pieces: its span may hold other nodes'. */
		for (k = 0; k < damon_tier_running_topo.nr_ranges; k++) {
			r = &damon_tier_running_topo.ranges[k];
			if (r->nid == n->nid)
				hot += damon_tier_hot_bytes(c, r->start, r->end);
		}
	}
	/*
	 * Whether TLB flushes are still wanted: before the pages just
	 * promoted are taken out, which can hide what is left below for an
	 * aggregation interval or more.
	 */
	x->hot_below = up || hot >= probe;
	/*
	 * An access rate is a moving sum over an aggregation interval: the
	 * pages promoted within the last one still count below.
	 */
	x->promoted = size_add(x->promoted, up);
	hot -= min(hot, size_add(x->promoted, x->promoted_last / 2));
	/*
	 * Promotion finds hot memory if one in DAMON_TIER_FAIL_CHARGE_DENOM
	 * of the bytes it looked at moved, when it had room for them.  Hot
	 * memory a policy or cpuset keeps below does not count against it:
	 * past it is where the rest of the hot memory is.
	 */
	if (tried_up)
		x->finding = up && up >= (tried_up - min(refused_up, tried_up)) /
			DAMON_TIER_FAIL_CHARGE_DENOM;
	/* Whole pages: DAMOS splits a region where a quota ends. */
	lead = damon_tier_next_lead(x, up, down, hot, probe, cap, now,
				    usecs_to_jiffies(pass_us));
	x->lead = ALIGN_DOWN(lead, PAGE_SIZE);

	/* Free pages demotion keeps: its goal, at least the floor, and a lead. */
	want = min(total, mult_frac(total, max(p->target_free_bp, floor_bp),
				    10000) + (x->lead >> PAGE_SHIFT));
	resting = x->backoff && time_before(now, x->next_lead);
	half_probe = (probe >> PAGE_SHIFT) / 2;
	/* A goal met in whole bp asks for nothing. */
	short_of = damos_node_mem_bp_of(total, want, false) >
		   damos_node_mem_bp_of(total, free, false);
	/*
	 * Free pages left from the batches promotion's allocations took wait
	 * on the CPUs' lists, where the node's free count misses them: give
	 * them back before demotion asks, or it makes room for them again,
	 * and once the exchange ends the kernel returns them to a node that
	 * is then freer than asked.
	 */
	if (short_of && !resting &&
	    damon_tier_pcp_pages(nid) > half_probe) {
		damon_tier_drain(nid, half_probe);
		damos_node_meminfo(nid, &i);
		free = min(i.freeram, total);
		short_of = damos_node_mem_bp_of(total, want, false) >
			   damos_node_mem_bp_of(total, free, false);
	}
	/*
	 * Room to ask demotion for, at least a probe while anything is
	 * missing: with the failures it meets charged at 1/1024 a probe
	 * reaches across the node, past memory that cannot move (kernel
	 * memory, mlocked pages), where a few pages of quota would stop
	 * inside it.
	 */
	asked = short_of && !resting ?
		max(damon_tier_bytes(want - free, cap), PAGE_SIZE) : 0;
	/* Pages of that room promotion may take in the same pass. */
	made = damon_tier_same_pass(x, asked, down, probe,
				    node_isset(nid, damon_tier_room_first_nodes));
	made = min(made >> PAGE_SHIFT, fill_to);
	room = free + made > fill_to ? free + made - fill_to : 0;
	damon_for_each_scheme(s, c) {
		g = damon_tier_goal(s);
		if (!g || g->nid != nid)
			continue;
		if (s->action == DAMOS_MIGRATE_HOT) {
			bp = damos_node_mem_bp_of(total, fill_to - made, true);
			/*
			 * 0 is no goal at all: keep at least 1 bp.  A
			 * cgroup's share is its own goal; the node's room
			 * limits it through the quota below.
			 */
			g->target_value = damos_quota_goal_has_memcg(g) ?
				p->target_used_bp :
				max(1UL, min(p->target_used_bp, bp));
			damon_tier_rank_promotion(&s->quota, x, probe,
						  p->memcg);
			s->quota.sz = clamp(damon_tier_bytes(room, cap),
					    PAGE_SIZE, cap);
		} else if (resting) {
			/* Backing off: demotion rests, its goal met. */
			g->target_value = 1;
			s->quota.sz = PAGE_SIZE;
		} else {
			bp = damos_node_mem_bp_of(total, want, false);
			g->target_value = max(1UL, bp);
			s->quota.sz = x->asked ?
				clamp(max(x->asked, probe), PAGE_SIZE, cap) :
				PAGE_SIZE;
		}
	}
	return floor_bp;
}

/*
 * How long an apply pass is: DAMON applies the schemes every
 * apply_interval_us / sample_interval samples, and at most every sample.
 */
static unsigned long damon_tier_pass_us(struct damon_ctx *c)
{
	unsigned long sample_us = max(c->attrs.sample_interval, 1UL);

	return max(DAMON_TIER_APPLY_INTERVAL_US / sample_us, 1UL) * sample_us;
}

/*
 * Whether to pace at @now, jiffies: @wait after the last pacing at @last
 * (0: none yet), and once an apply pass took the last pacing's settings
 * (@applied).  DAMON applies the schemes on counted samples, the pacing
 * runs on jiffies: pacing again before a pass applied would replace
 * settings unused, and an ask for room that no pass tried would count as
 * one that failed.  A pass that found no region to apply to sets no flag:
 * after DAMON_TIER_PACE_WAIT_PASSES passes of @pass, pace without it.
 */
static bool damon_tier_pace_due(unsigned long now, unsigned long last,
				bool applied, unsigned long wait,
				unsigned long pass)
{
	if (!last)
		return true;
	if (time_before(now, last + wait))
		return false;
	return applied ||
		!time_before(now, last + DAMON_TIER_PACE_WAIT_PASSES * pass);
}

/**
 * damon_tier_quiet() - whether no hot memory has shown below for a while
 * @now:	jiffies
 * @hot:	whether a pacing at @now saw hot memory below an upper node
 * @last_hot:	when one last did, jiffies; updated
 *
 * Once DAMON_TIER_QUIET_MS have passed, @last_hot is kept that far behind
 * @now: however long the quiet lasts, it never falls half the jiffies
 * range behind, where it would read as recent again.
 *
 * Return: whether DAMON_TIER_QUIET_MS have passed since @last_hot.
 */
static bool damon_tier_quiet(unsigned long now, bool hot,
			     unsigned long *last_hot)
{
	const unsigned long quiet = msecs_to_jiffies(DAMON_TIER_QUIET_MS);

	if (hot) {
		*last_hot = now;
		return false;
	}
	if (time_before(now, *last_hot + quiet))
		return false;
	*last_hot = now - quiet;
	return true;
}

/*
 * Before each apply pass: pace every upper node's exchange, and keep the
 * TLB flushes at tlb_flush_ms until none of them has seen hot memory below
 * for DAMON_TIER_QUIET_MS.  On the "consist" tuner the schemes run on
 * their goals alone, unpaced, for comparison, and the flushes never space
 * out.
 */
static void damon_tier_pace(struct damon_ctx *c)
{
	struct damon_tier_params *p = &damon_tier_running_params;
	unsigned long pass_us = damon_tier_pass_us(c);
	unsigned long now = jiffies;
	unsigned long floor_bp = 0;
	unsigned int backoff = 0;
	bool hot = false;
	int j;

	/* Unpaced, never quiet: a commit reset the flushes' state. */
	if (p->goal_tuner != DAMOS_QUOTA_GOAL_TUNER_TEMPORAL)
		return;
	/* Half a sample early: samples take at least their interval. */
	if (!damon_tier_pace_due(now, damon_tier_last_pace, damon_tier_applied,
				 usecs_to_jiffies(pass_us -
						  c->attrs.sample_interval / 2),
				 usecs_to_jiffies(pass_us)))
		return;
	damon_tier_last_pace = now;
	damon_tier_applied = false;
	for (j = 0; j < damon_tier_running_topo.nr_nodes; j++) {
		const struct damon_tier_node *n =
			&damon_tier_running_topo.nodes[j];

		if (n->demote_to == NUMA_NO_NODE)
			continue;
		floor_bp = max(floor_bp, damon_tier_pace_node(c, n->nid, p, now,
							      pass_us));
		backoff = max(backoff, damon_tier_paces[n->nid].backoff);
		hot |= damon_tier_paces[n->nid].hot_below;
	}
	damon_tier_flush_quiet = damon_tier_quiet(now, hot,
						  &damon_tier_last_hot);
	if (!damon_tier_flush_quiet)
		damon_tier_flush_shift = 0;
	WRITE_ONCE(free_floor_bp, floor_bp);
	WRITE_ONCE(backoff_ms, backoff ? (pass_us / USEC_PER_MSEC) << backoff :
		   0);
}

/**
 * damon_tier_flush_interval_ms() - the least time between two TLB flushes
 * @base:	tlb_flush_ms, 0 for no flushes
 * @shift:	log2 of the multiple of @base (up to
 *		DAMON_TIER_MAX_FLUSH_SHIFT counts)
 *
 * A flush is for hot memory below that DAMON does not see: once nothing
 * has shown below for a while, the flushes space out, doubling up to
 * DAMON_TIER_QUIET_FLUSH_MS (never below @base).  A new hot set then
 * still shows in the sample after a flush, and once anything of it is
 * promoted the flushes are back at @base.
 *
 * Return: the interval in milliseconds, 0 if @base is.
 */
static unsigned long damon_tier_flush_interval_ms(unsigned long base,
						  unsigned int shift)
{
	unsigned long cap = max(base, DAMON_TIER_QUIET_FLUSH_MS);

	if (!base)
		return 0;
	/* base <= 2^20: no overflow on 32-bit. */
	return min(base << min(shift, DAMON_TIER_MAX_FLUSH_SHIFT), cap);
}

/*
 * Called right after DAMON cleared the accessed bits of a sample: flush
 * every CPU's TLB, at most every damon_tier_flush_interval_ms(), so that
 * the first access to each of those pages in this sample walks the page
 * table and sets the bit again.  Later samples until the next flush see
 * only the pages whose entries were evicted meanwhile, as without flushes.
 */
static void damon_tier_flush_tlb(const struct damon_tier_params *p)
{
	unsigned long ms = damon_tier_flush_interval_ms(p->tlb_flush_ms,
						       damon_tier_flush_shift);
	unsigned long now = jiffies;

	/* Where the flush is not built, tlb_flush_ms is always 0. */
	if (!ms || time_before(now, damon_tier_last_tlb_flush +
			       msecs_to_jiffies(ms)))
		return;
	damon_tier_last_tlb_flush = now;
	if (damon_tier_flush_quiet &&
	    damon_tier_flush_shift < DAMON_TIER_MAX_FLUSH_SHIFT)
		damon_tier_flush_shift++;
#ifdef CONFIG_DAMON_TIER_TLB_FLUSH
	flush_tlb_all();
#endif
	WRITE_ONCE(nr_tlb_flushes, nr_tlb_flushes + 1);
}

/*
 * Flush TLBs after a sample's accessed bits were cleared; count what the
 * schemes moved and left alone; show the intervals in use.
 */
static int damon_tier_after_sampling(struct damon_ctx *c)
{
	struct damos_stat *last;
	struct damos *s;
	int i = 0;

	damon_tier_flush_tlb(&damon_tier_running_params);

	damon_for_each_scheme(s, c) {
		if (i >= DAMON_TIER_MAX_SCHEMES)
			break;
		last = &damon_tier_last_stat[i++];
		damon_tier_count(s->action == DAMOS_MIGRATE_HOT ?
				 &bytes_promoted : &bytes_demoted,
				 s->stat.sz_applied, &last->sz_applied);
		damon_tier_count(&bytes_skipped_policy,
				 s->stat.sz_skipped_policy,
				 &last->sz_skipped_policy);
		damon_tier_count(&bytes_skipped_cpuset,
				 s->stat.sz_skipped_cpuset,
				 &last->sz_skipped_cpuset);
		damon_tier_count(&bytes_skipped_mlock, s->stat.sz_skipped_mlock,
				 &last->sz_skipped_mlock);
	}
	WRITE_ONCE(sample_interval_us, c->attrs.sample_interval);
	WRITE_ONCE(aggr_interval_us, c->attrs.aggr_interval);
	damon_tier_pace(c);
	return 0;
}

/* A scheme is about to be applied: the pass took the pacing's settings. */
static int damon_tier_before_apply(struct damon_ctx *c,
				   struct damon_target *t,
				   struct damon_region *r, struct damos *s)
{
	damon_tier_applied = true;
	return 0;
}

static int damon_tier_after_aggregation(struct damon_ctx *c)
{
	struct damon_tier_params p;
	struct damon_target *t;
	unsigned long nr = 0;
	bool commit, check;
	int err, nid;

	damon_for_each_target(t, c)
		nr += damon_nr_regions(t);
	WRITE_ONCE(nr_regions, nr);
	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		damon_tier_paces[nid].promoted_last =
			damon_tier_paces[nid].promoted;
		damon_tier_paces[nid].promoted = 0;
	}

	mutex_lock(&damon_tier_commit_lock);
	p = damon_tier_committed;
	commit = commit_inputs;
	commit_inputs = false;
	mutex_unlock(&damon_tier_commit_lock);
	/*
	 * Look for node changes once per quota interval: until then the old
	 * ranges are only stale, not unsafe (paddr skips offline pages).
	 */
	check = time_after_eq(jiffies, damon_tier_next_topo_check);
	if (check)
		damon_tier_next_topo_check = jiffies +
			msecs_to_jiffies(p.quota_reset_interval_ms);
	/*
	 * The cgroup is gone, and its memcg id may go to another one: move
	 * nothing (no page is of memcg id 0) until a path is committed.
	 */
	if (check && p.memcg && p.memcg_id &&
	    damon_tier_memcg_cgid(p.memcg_id) != p.memcg_cgid) {
		mutex_lock(&damon_tier_commit_lock);
		if (damon_tier_committed.memcg_cgid == p.memcg_cgid)
			damon_tier_committed.memcg_id = 0;
		mutex_unlock(&damon_tier_commit_lock);
		p.memcg_id = 0;
		commit = true;
	}
	if (commit || (check && damon_tier_topo_changed())) {
		err = damon_tier_apply_parameters(&p);
		/* Keep running the previous schemes if it fails. */
		if (err)
			pr_warn_ratelimited("cannot apply parameters: %d\n", err);
	}
	return 0;
}

static int damon_tier_commit_inputs_store(const char *val,
					  const struct kernel_param *kp)
{
	struct damon_tier_params p;
	bool want;
	int err = kstrtobool(val, &want);

	if (err)
		return err;
	if (!want)
		return 0;
	err = damon_tier_params_now(&p);
	if (err)
		return err;
	/* Applied by the kdamond; an idle module takes them when enabled. */
	mutex_lock(&damon_tier_commit_lock);
	damon_tier_committed = p;
	commit_inputs = ctx && damon_is_running(ctx);
	mutex_unlock(&damon_tier_commit_lock);
	return 0;
}

static const struct kernel_param_ops commit_inputs_param_ops = {
	.set = damon_tier_commit_inputs_store,
	.get = param_get_bool,
};

module_param_cb(commit_inputs, &commit_inputs_param_ops, &commit_inputs,
		0600);

static int damon_tier_turn(bool on)
{
	struct damon_tier_params p;
	int err;

	if (!on) {
		err = damon_stop(&ctx, 1);
		if (!err)
			WRITE_ONCE(nr_regions, 0);
		return err;
	}

	err = damon_tier_params_now(&p);
	if (err)
		return err;
	err = damon_tier_apply_parameters(&p);
	if (err)
		return err;
	/* The kdamond is not running: no need for the lock. */
	damon_tier_committed = p;
	commit_inputs = false;
	WRITE_ONCE(bytes_promoted, 0);
	WRITE_ONCE(bytes_demoted, 0);
	WRITE_ONCE(bytes_skipped_policy, 0);
	WRITE_ONCE(bytes_skipped_cpuset, 0);
	WRITE_ONCE(bytes_skipped_mlock, 0);
	damon_tier_next_topo_check = jiffies;
	WRITE_ONCE(nr_tlb_flushes, 0);
	/*
	 * The schemes of an earlier run keep their stats: count from what
	 * they have done so far.
	 */
	damon_tier_sync_stats(ctx, 0);
	memset(damon_tier_paces, 0, sizeof(damon_tier_paces));
	damon_tier_last_pace = 0;
	return damon_start(&ctx, 1, true);
}

static int damon_tier_enabled_store(const char *val,
				    const struct kernel_param *kp)
{
	bool want;
	int err;

	err = kstrtobool(val, &want);
	if (err)
		return err;

	/* Before init (kernel command line): init turns it on. */
	if (!ctx) {
		enabled = want;
		return 0;
	}
	if (damon_is_running(ctx) == want) {
		enabled = want;
		return 0;
	}
	err = damon_tier_turn(want);
	if (!err)
		enabled = want;
	return err;
}

static int damon_tier_enabled_load(char *buffer,
				   const struct kernel_param *kp)
{
	return sprintf(buffer, "%c\n",
		       ctx && damon_is_running(ctx) ? 'Y' : 'N');
}

static const struct kernel_param_ops enabled_param_ops = {
	.set = damon_tier_enabled_store,
	.get = damon_tier_enabled_load,
};

module_param_cb(enabled, &enabled_param_ops, &enabled, 0600);
MODULE_PARM_DESC(enabled, "Enable or disable DAMON_TIER (default: disabled)");

static int damon_tier_kdamond_pid_store(const char *val,
					const struct kernel_param *kp)
{
	/* Read-only, but the kernel command line could write it. */
	return 0;
}

static int damon_tier_kdamond_pid_load(char *buffer,
				       const struct kernel_param *kp)
{
	int pid = -1;

	if (ctx) {
		pid = damon_kdamond_pid(ctx);
		if (pid < 0)
			pid = -1;
	}
	return sprintf(buffer, "%d\n", pid);
}

static const struct kernel_param_ops kdamond_pid_param_ops = {
	.set = damon_tier_kdamond_pid_store,
	.get = damon_tier_kdamond_pid_load,
};

/* PID of the kdamond while enabled, else -1. */
module_param_cb(kdamond_pid, &kdamond_pid_param_ops, NULL, 0400);

static int __init damon_tier_init(void)
{
	struct damon_target *target;
	int err;

	err = damon_modules_new_paddr_ctx_target(&ctx, &target);
	if (err)
		return err;
	ctx->callback.after_sampling = damon_tier_after_sampling;
	ctx->callback.after_aggregation = damon_tier_after_aggregation;
	ctx->callback.before_damos_apply = damon_tier_before_apply;

	/* "enabled" may have been set on the kernel command line. */
	if (enabled) {
		err = damon_tier_turn(true);
		if (err)
			enabled = false;
	}
	return err;
}

/* After memory_tier_late_init(): the tiers must exist. */
late_initcall_sync(damon_tier_init);

#include "tests/tier-kunit.h"
