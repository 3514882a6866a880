// SPDX-License-Identifier: GPL-2.0
/*
 * DAMON-based memory tiering (DAMON_TIER).
 *
 * Keeps hot data in the upper memory tiers and moves cold data down, with
 * no thresholds to tune: per tier boundary, one scheme demotes cold pages
 * of an upper node aiming at a small free headroom on it
 * (node_mem_free_bp), and one promotes hot pages of a lower node aiming at
 * a high utilization of the upper node (node_mem_used_bp).  The module
 * turns the goals into bytes to move per quota_reset_interval_ms (see
 * damon_tier_quota_bytes()), capped at quota_mb.
 *
 * The topology comes from the memory tiers: every node with a demotion
 * target gets a migrate_cold scheme toward it, every node below the top
 * tier a migrate_hot scheme toward its nearest upper-tier node.  Each node's
 * physical address range is monitored (paddr); schemes are kept to their
 * node's range by address filters.  When the node layout changes the module
 * rebuilds everything from scratch instead of acting on stale ranges.
 */

#define pr_fmt(fmt) "damon-tier: " fmt

#include <linux/damon.h>
#include <linux/gfp.h>
#include <linux/kstrtox.h>
#include <linux/memory-tiers.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "modules-common.h"
#include "tier.h"

#ifdef MODULE_PARAM_PREFIX
#undef MODULE_PARAM_PREFIX
#endif
#define MODULE_PARAM_PREFIX "damon_tier."

/*
 * Enable or disable DAMON_TIER.  Also settable at boot: damon_tier.enabled=Y.
 */
static bool enabled __read_mostly;

/*
 * Make DAMON_TIER read the parameters below again while running.  Set Y to
 * commit them; it reads back N once done.  Bad values make the commit fail
 * and leave the running schemes as they were.
 */
static bool commit_inputs __read_mostly;
module_param(commit_inputs, bool, 0600);

/*
 * The upper node's used memory that promotion aims at, in bp (1..10000).
 */
static unsigned long target_used_bp __read_mostly = 9970;

/*
 * The upper node's free memory that demotion aims at, in bp (1..10000).
 */
static unsigned long target_free_bp __read_mostly = 50;

/*
 * Most MiB each scheme migrates per quota_reset_interval_ms (>= 1).
 */
static unsigned long quota_mb __read_mostly = 200;

/*
 * Interval in milliseconds (>= 1) at which the quotas are set again from
 * the nodes' utilization, so also how fast the module reacts.
 */
static unsigned long quota_reset_interval_ms __read_mostly = 1000;

static struct damon_attrs damon_tier_mon_attrs = {
	.sample_interval = 5000,	/* 5 ms */
	.aggr_interval = 100000,	/* 100 ms */
	.ops_update_interval = 0,
	.min_nr_regions = 10,
	.max_nr_regions = 1000,
};
DEFINE_DAMON_MODULES_MON_ATTRS_PARAMS(damon_tier_mon_attrs);

/*
 * Bytes promoted (migrate_hot) and demoted (migrate_cold) since the last
 * enable.  DAMON migrations are counted in pgmigrate_success (MR_DAMON),
 * not in the pgpromote_* and pgdemote_* counters, so the module counts
 * them itself.
 */
static unsigned long bytes_promoted;
module_param(bytes_promoted, ulong, 0400);
static unsigned long bytes_demoted;
module_param(bytes_demoted, ulong, 0400);

/* Number of schemes of the running context (read-only). */
static unsigned long nr_schemes;
module_param(nr_schemes, ulong, 0400);

/* Number of DAMON regions at the last aggregation (read-only). */
static unsigned long nr_regions;
module_param(nr_regions, ulong, 0400);

/*
 * ctx, damon_tier_topo and the last-seen stats are touched by parameter
 * callbacks (serialized by the kernel's module parameter lock) and by the
 * kdamond's callbacks; the latter only run while the former wait in
 * damon_stop() or are not running, since damon_start()/damon_stop() are
 * only called from the "enabled" callback.
 */
static struct damon_ctx *ctx;
static struct damon_tier_topo damon_tier_running_topo;
static struct damon_tier_params damon_tier_running_params;
static unsigned long damon_tier_last_applied[DAMON_TIER_MAX_SCHEMES];

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

static int damon_tier_positive_set(const char *val,
				   const struct kernel_param *kp)
{
	/* 1 TiB per interval is far above any migration bandwidth. */
	return damon_tier_param_set_bounded(val, kp, 1, 1UL << 20);
}

static const struct kernel_param_ops damon_tier_bp_ops = {
	.set = damon_tier_bp_set,
	.get = param_get_ulong,
};

static const struct kernel_param_ops damon_tier_positive_ops = {
	.set = damon_tier_positive_set,
	.get = param_get_ulong,
};

module_param_cb(target_used_bp, &damon_tier_bp_ops, &target_used_bp, 0600);
module_param_cb(target_free_bp, &damon_tier_bp_ops, &target_free_bp, 0600);
module_param_cb(quota_mb, &damon_tier_positive_ops, &quota_mb, 0600);
module_param_cb(quota_reset_interval_ms, &damon_tier_positive_ops,
		&quota_reset_interval_ms, 0600);

/**
 * damon_tier_read_topo() - read the node layout from the memory tiers
 * @topo:	filled with every node that has memory
 *
 * A node's promotion target is the closest node of which it is a demotion
 * candidate (an upper-tier node); on equal distance the node with more
 * tiers below it (the faster one) wins, so hot pages climb straight to the
 * top tier.
 */
void damon_tier_read_topo(struct damon_tier_topo *topo)
{
	nodemask_t lower, best_lower;
	int nid, up, best;

	memset(topo, 0, sizeof(*topo));
	for_each_node_state(nid, N_MEMORY) {
		struct damon_tier_node *n = &topo->nodes[topo->nr_nodes];
		pg_data_t *pgdat = NODE_DATA(nid);

		n->nid = nid;
		n->start = PFN_PHYS(pgdat->node_start_pfn);
		n->end = PFN_PHYS(pgdat_end_pfn(pgdat));
		n->demote_to = next_demotion_node(nid);
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
}

static int damon_tier_add_filters(struct damos *s,
				  const struct damon_tier_node *n, bool hot)
{
	struct damos_filter *f;

	/* Act only on this node's range: reject everything outside. */
	f = damos_new_filter(DAMOS_FILTER_TYPE_ADDR, false);
	if (!f)
		return -ENOMEM;
	f->addr_range.start = n->start;
	f->addr_range.end = n->end;
	damos_add_filter(s, f);

	/* Promote only pages found young; never demote young ones. */
	f = damos_new_filter(DAMOS_FILTER_TYPE_YOUNG, true);
	if (!f)
		return -ENOMEM;
	f->allow = hot;
	damos_add_filter(s, f);
	return 0;
}

static struct damos *damon_tier_new_scheme(const struct damon_tier_node *n,
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
			damon_max_nr_accesses(&damon_tier_mon_attrs) / 10,
		.min_age_region = 0,
		.max_age_region = UINT_MAX,
	};
	struct damos_quota quota = {
		.reset_interval = p->quota_reset_interval_ms,
		.sz = p->quota_mb << 20,
		/*
		 * Promote the hottest first, demote the coldest first.  Not
		 * by age: DAMOS resets the age of every region it applies an
		 * action to, and the second look at cold memory (see
		 * damon_tier_top_up()) must find it as eligible as the first.
		 */
		.weight_sz = 0,
		.weight_nr_accesses = 100,
		.weight_age = 0,
	};
	struct damos_watermarks wmarks = { .metric = DAMOS_WMARK_NONE };
	struct damos_quota_goal *goal;
	struct damos *s;

	s = damon_new_scheme(&pattern,
			     hot ? DAMOS_MIGRATE_HOT : DAMOS_MIGRATE_COLD,
			     0, &quota, &wmarks,
			     hot ? n->promote_to : n->demote_to);
	if (!s)
		return NULL;
	if (hot)
		goal = damos_new_quota_goal(DAMOS_QUOTA_NODE_MEM_USED_BP,
					    p->target_used_bp);
	else
		goal = damos_new_quota_goal(DAMOS_QUOTA_NODE_MEM_FREE_BP,
					    p->target_free_bp);
	if (!goal)
		goto fail;
	/* Both aim at the upper node: the destination, or the source. */
	goal->nid = hot ? n->promote_to : n->nid;
	damos_add_quota_goal(&s->quota, goal);
	if (damon_tier_add_filters(s, n, hot))
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
 * @p:		parameters (already validated)
 *
 * Adds one migrate_cold scheme per node with a demotion target and one
 * migrate_hot scheme per node with a promotion target, and monitors each
 * node's range.  A flat topology gets no scheme.
 *
 * Return: 0, or a negative error code.
 */
int damon_tier_build(struct damon_ctx *c, struct damon_target *t,
		     const struct damon_tier_topo *topo,
		     const struct damon_tier_params *p)
{
	struct damon_addr_range *ranges;
	struct damos *s;
	int i, hot, err;

	if (!p->target_used_bp || p->target_used_bp > 10000 ||
	    !p->target_free_bp || p->target_free_bp > 10000 ||
	    !p->quota_mb || !p->quota_reset_interval_ms)
		return -EINVAL;

	if (!topo->nr_nodes)
		return -EINVAL;
	ranges = kmalloc_array(topo->nr_nodes, sizeof(*ranges), GFP_KERNEL);
	if (!ranges)
		return -ENOMEM;

	err = -ENOMEM;
	for (i = 0; i < topo->nr_nodes; i++) {
		const struct damon_tier_node *n = &topo->nodes[i];

		for (hot = 0; hot <= 1; hot++) {
			if ((hot ? n->promote_to : n->demote_to) == NUMA_NO_NODE)
				continue;
			s = damon_tier_new_scheme(n, hot, p);
			if (!s)
				goto out;
			damon_add_scheme(c, s);
		}
		ranges[i].start = n->start;
		ranges[i].end = n->end;
	}

	err = damon_set_regions(t, ranges, topo->nr_nodes);
	if (!err)
		err = damon_set_attrs(c, &damon_tier_mon_attrs);
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

static int damon_tier_apply_parameters(void)
{
	struct damon_tier_params p = {
		.target_used_bp = target_used_bp,
		.target_free_bp = target_free_bp,
		.quota_mb = quota_mb,
		.quota_reset_interval_ms = quota_reset_interval_ms,
	};
	struct damon_ctx *param_ctx;
	struct damon_target *param_target;
	struct damon_tier_topo *topo;
	int err;

	topo = kmalloc(sizeof(*topo), GFP_KERNEL);
	if (!topo)
		return -ENOMEM;
	damon_tier_read_topo(topo);

	/*
	 * Build a fresh context and commit it: the running schemes keep their
	 * quota tuning state, which setting them directly would reset.
	 */
	err = damon_modules_new_paddr_ctx_target(&param_ctx, &param_target);
	if (err)
		goto out;
	err = damon_tier_build(param_ctx, param_target, topo, &p);
	if (!err)
		err = damon_commit_ctx(ctx, param_ctx);
	if (!err) {
		memcpy(&damon_tier_running_topo, topo, sizeof(*topo));
		damon_tier_running_params = p;
		WRITE_ONCE(nr_schemes, damon_tier_nr_schemes(param_ctx));
	}
	damon_destroy_ctx(param_ctx);
out:
	kfree(topo);
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

/*
 * Quota tuning.  DAMOS's own tuner multiplies a quota by (1 + shortfall)
 * once per interval.  From its one-byte start it needs ~28 intervals to
 * reach 200 MiB, and close to the goal it hardly moves: with cold data
 * keeping the top node 99.5% full, promotion (aiming at 99.7% used) and
 * demotion (aiming at 0.5% free) are both a few tenths of a percent short
 * and creep at a few bytes per interval, leaving the hot set stranded
 * below.  So DAMON_TIER sets its schemes' quotas itself, once per quota
 * interval, from the same goals but in bytes (damon_tier_quota_bytes()):
 * promotion may fill the upper node up to target_used_bp, demotion may
 * free it up to target_free_bp, and while hot memory waits below a full
 * upper node both get an exchange allowance on top.  It starts each
 * quota window itself, so the core tuner never runs for these schemes.
 *
 * Exchange allowance, while more accessed memory waits below than the
 * upper node has room for, and either the node has no room for a probe
 * (1/DAMON_TIER_PROBE_SHARE of the quota, at most 1/256 of the node) or
 * promotion moved memory in the last interval: twice what promotion
 * really moved then plus such a probe.  It thus doubles per interval while
 * promotion keeps up, and falls back to a probe when promotion finds
 * nothing to move.  "Accessed regions below" is a coarse estimate of the
 * hot memory there, so a node with room whose promotion found nothing to
 * move does not exchange.  Pacing (below) keeps demotion idle until
 * promotion has used the room.
 *
 * Within the interval each apply pass is paced by the upper node's free
 * memory as it is then (damon_tier_pass_bytes()).  Promotion allocates
 * without reclaim, so it can only use free memory above the node's low
 * watermarks (the floor; watermark boosting can lift it above the free
 * goal).  While exchanging, demotion keeps a lead of free memory above the
 * floor for promotion to fill: DAMON_TIER_LEAD_PROBES probes, but at most
 * half the accessed regions below (a coarse overestimate of the hot memory
 * there), so that the lead shrinks as the hot memory below runs out and
 * the exchange ends with little free memory that nothing hot fills again.
 */
#define DAMON_TIER_PROBE_SHARE		16
#define DAMON_TIER_PROBE_NODE_SHARE	256
#define DAMON_TIER_SEED_SHARE		4

/*
 * The most demotion leads by, in probes.  It frees at most half of it per
 * pass: the young filter lets cold pages go only at the second look, so
 * each half is looked at in one pass and freed in the next, while
 * promotion fills the half freed before.  One whole lead per pass would
 * leave demotion idle every other pass, waiting for promotion.
 */
#define DAMON_TIER_LEAD_PROBES		8

/* The exchange probe for a node of @total bytes and a @quota bytes quota. */
static unsigned long damon_tier_probe_bytes(unsigned long total,
					    unsigned long quota)
{
	return min(quota / DAMON_TIER_PROBE_SHARE,
		   total / DAMON_TIER_PROBE_NODE_SHARE);
}

/**
 * damon_tier_quota_bytes() - bytes a scheme may migrate in the next interval
 * @hot:	true for promotion into the upper node, false for demotion
 *		from it
 * @u:		the upper node (@u->promoted: in the last interval)
 * @p:		parameters (@p->quota_mb caps the result)
 * @exchange:	if not NULL, set to the exchange part of the result
 *
 * The exchange probe is 1/DAMON_TIER_PROBE_SHARE of the quota, and at most
 * 1/DAMON_TIER_PROBE_NODE_SHARE of the node.  While exchanging, demotion
 * also makes up for free memory below the floor: promotion cannot start
 * before that.
 *
 * Return: the quota in bytes, 0 when the scheme should stay idle.
 */
unsigned long damon_tier_quota_bytes(bool hot,
				     const struct damon_tier_upper *u,
				     const struct damon_tier_params *p,
				     unsigned long *exchange)
{
	unsigned long quota = p->quota_mb << 20;
	unsigned long total = u->total, free = min(u->free, u->total);
	unsigned long used = total - free, usable, want_used, want_free;
	unsigned long room = 0, deficit = 0, probe, xchg = 0;

	want_used = mult_frac(total, p->target_used_bp, 10000);
	want_free = mult_frac(total, p->target_free_bp, 10000);
	usable = free > u->floor ? free - u->floor : 0;
	if (used < want_used)
		room = min(want_used - used, usable);
	probe = damon_tier_probe_bytes(total, quota);

	/*
	 * A full node exchanges.  One with room too, as long as promotion
	 * keeps moving: an exchange leaves its lead free, and without this
	 * every other interval would only fill that and idle.
	 */
	if (u->hot_below > room && (room < probe || u->promoted)) {
		xchg = min(u->hot_below - room,
			   2 * min(u->promoted, quota) + probe);
		want_free = max(want_free, u->floor);
	}
	if (free < want_free)
		deficit = want_free - free;
	xchg = min(xchg, quota);
	if (exchange)
		*exchange = xchg;
	return min((hot ? room : deficit) + xchg, quota);
}

/*
 * The free memory demotion keeps above the floor while exchanging, for
 * promotion to fill.
 */
static unsigned long damon_tier_lead_bytes(const struct damon_tier_upper *u,
					   const struct damon_tier_params *p)
{
	unsigned long probe = damon_tier_probe_bytes(u->total,
						     p->quota_mb << 20);
	unsigned long lead = min(DAMON_TIER_LEAD_PROBES * probe,
				 u->hot_below / 2);

	/*
	 * Accessed regions below may hold far less that promotion can move
	 * (the tail of the hot set, or a few stray accesses once it is up),
	 * and room made for nothing stays empty: lead by at most twice what
	 * promotion moved in this and the last interval, and by a seed when
	 * it moved next to nothing.
	 */
	return min(lead, max(probe / DAMON_TIER_SEED_SHARE, 2 * u->promoted));
}

/**
 * damon_tier_pass_bytes() - bytes a scheme may migrate in the next pass
 * @hot:	true for promotion into the upper node, false for demotion
 *		from it
 * @u:		the upper node now (@u->promoted: in the last and in this
 *		interval)
 * @p:		parameters
 * @exchange:	whether the schemes of @u exchange in this interval
 *
 * Promotion may use the free memory above the floor.  Demotion frees
 * memory up to target_free_bp and, while exchanging, up to a lead above
 * the floor: DAMON_TIER_LEAD_PROBES exchange probes, at most half of
 * @u->hot_below and at most twice @u->promoted, but at least a quarter
 * probe; half of that lead per pass.  What the interval's quota still
 * allows caps both.
 *
 * Return: bytes, 0 when the scheme should wait.
 */
unsigned long damon_tier_pass_bytes(bool hot,
				    const struct damon_tier_upper *u,
				    const struct damon_tier_params *p,
				    bool exchange)
{
	unsigned long free = min(u->free, u->total), goal, lead, base;

	if (hot)
		return free > u->floor ? free - u->floor : 0;
	goal = mult_frac(u->total, p->target_free_bp, 10000);
	if (exchange) {
		lead = damon_tier_lead_bytes(u, p);
		base = max(goal, u->floor);
		goal = max(goal, u->floor + lead);
		/* Half a lead per pass: see DAMON_TIER_LEAD_PROBES. */
		if (goal > free)
			return min(goal - free,
				   (base > free ? base - free : 0) + lead / 2);
	}
	return goal > free ? goal - free : 0;
}

/*
 * Window state of the quota tuning: the end of the current quota window;
 * per scheme (in list order) the bytes it may migrate in this window, its
 * exchange part, its upper node and the bytes it migrated so far; per
 * node the bytes promoted into it in this and in the last window.  Only
 * the kdamond touches them (before_start and after_aggregation).
 */
static unsigned long damon_tier_window_end;
static unsigned long damon_tier_want[DAMON_TIER_MAX_SCHEMES];
static unsigned long damon_tier_xchg[DAMON_TIER_MAX_SCHEMES];
static int damon_tier_upper[DAMON_TIER_MAX_SCHEMES];
static unsigned long damon_tier_moved[DAMON_TIER_MAX_SCHEMES];
static unsigned long damon_tier_promoted_now[MAX_NUMNODES];
static unsigned long damon_tier_promoted_last[MAX_NUMNODES];

/* Bytes of accessed regions on the nodes that promote into @upper. */
static unsigned long damon_tier_hot_below(struct damon_ctx *c, int upper)
{
	const struct damon_tier_topo *topo = &damon_tier_running_topo;
	unsigned long start, end, sz = 0;
	struct damon_target *t;
	struct damon_region *r;
	int i;

	damon_for_each_target(t, c) {
		damon_for_each_region(r, t) {
			if (!r->nr_accesses)
				continue;
			for (i = 0; i < topo->nr_nodes; i++) {
				const struct damon_tier_node *n = &topo->nodes[i];

				if (n->promote_to != upper)
					continue;
				start = max(r->ar.start, n->start);
				end = min(r->ar.end, n->end);
				if (start < end)
					sz += end - start;
			}
		}
	}
	return sz;
}

/* The free memory that no allocation without reclaim takes from @nid. */
static unsigned long damon_tier_floor_bytes(int nid)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	unsigned long pages = 0;
	int z;

	for (z = 0; z < MAX_NR_ZONES; z++) {
		struct zone *zone = &pgdat->node_zones[z];

		if (populated_zone(zone))
			pages += low_wmark_pages(zone);
	}
	return pages << PAGE_SHIFT;
}

/* Fill @u for upper node @nid, which has memory. */
static void damon_tier_read_upper(struct damon_ctx *c, int nid,
				  unsigned long promoted,
				  struct damon_tier_upper *u,
				  struct sysinfo *i)
{
	si_meminfo_node(i, nid);
	u->total = i->totalram << PAGE_SHIFT;
	u->free = i->freeram << PAGE_SHIFT;
	u->floor = damon_tier_floor_bytes(nid);
	u->hot_below = damon_tier_hot_below(c, nid);
	u->promoted = promoted;
}

/* The upper node of scheme @s: both schemes' goals are on it. */
static int damon_tier_upper_of(struct damos *s)
{
	struct damos_quota *q = &s->quota;
	struct damos_quota_goal *g;
	int upper = NUMA_NO_NODE;

	damos_for_each_quota_goal(g, q)
		upper = g->nid;
	if (upper < 0 || upper >= MAX_NUMNODES || !node_state(upper, N_MEMORY))
		return NUMA_NO_NODE;
	return upper;
}

/* Bytes scheme @s (the @idx-th) may migrate in the new window. */
static unsigned long damon_tier_want_bytes(struct damon_ctx *c,
					   struct damos *s, int idx,
					   const struct damon_tier_params *p)
{
	bool hot = s->action == DAMOS_MIGRATE_HOT;
	int upper = damon_tier_upper_of(s);
	struct damos_quota *q = &s->quota;
	struct damos_quota_goal *g;
	struct damon_tier_upper u;
	struct sysinfo i;

	damon_tier_xchg[idx] = 0;
	damon_tier_upper[idx] = upper;
	if (upper == NUMA_NO_NODE)
		return 0;
	damon_tier_read_upper(c, upper, damon_tier_promoted_last[upper], &u,
			      &i);
	/* For reporting: what the core tuner would have measured. */
	damos_for_each_quota_goal(g, q)
		g->current_value = damos_node_mem_bp_of(i.totalram, i.freeram,
							hot);
	return damon_tier_quota_bytes(hot, &u, p, &damon_tier_xchg[idx]);
}

/*
 * Let each scheme try, in the next apply pass, about as many bytes as it
 * may move in it (damon_tier_pass_bytes(), within what is left of its
 * window).  The quota is charged by the size of the regions tried, but only
 * part of them moves.  The young filters count a page DAMON never marked
 * idle as young at the first look, and mark it old: cold memory moves on a
 * later look.  DAMOS continues each pass where the last one stopped, so
 * without help that later look would come only after a sweep over all the
 * eligible regions (seconds for a GiB).  So a demotion pass that moved less
 * than a quarter of what it tried is repeated once, from where it started:
 * 100 ms after the first look, the pages not accessed since then move.  A
 * demotion pass tries no more than what may move (room it made beyond that
 * would stay empty when nothing hot is left below), except after a second
 * look that moved less than a quarter too: that memory cannot move (the
 * kernel's own, say) or is hot, and DAMON sees it as cold, so the next pass
 * reaches twice as far, to get past it in fewer passes; but only while the
 * lead is whole (plenty of hot memory below and promotion keeping up), and
 * no further than the lead: at the tail of the exchange a pass reaching
 * past hot memory into cold freed room nothing refilled.  A promotion pass
 * that moved less than a quarter of what it tried (idle or unmovable memory
 * in accessed regions) doubles the next one's size too, but to at most
 * twice what may move (promotion beyond the floor only fails to allocate).
 * Up to DAMON_TIER_MAX_STEP_SHIFT doublings; a pass that moved more goes
 * back to the plain size.  What a pass did is looked at before a new window
 * starts, so that a first look is followed by its second one across windows
 * too.  The whole window stays within quota_mb.
 */
#define DAMON_TIER_MAX_STEP_SHIFT	2

static unsigned long damon_tier_charged[DAMON_TIER_MAX_SCHEMES];
static unsigned long damon_tier_moved_seen[DAMON_TIER_MAX_SCHEMES];
static unsigned int damon_tier_step_shift[DAMON_TIER_MAX_SCHEMES];
static struct damon_target *damon_tier_pass_target[DAMON_TIER_MAX_SCHEMES];
static unsigned long damon_tier_pass_addr[DAMON_TIER_MAX_SCHEMES];
static bool damon_tier_second_look[DAMON_TIER_MAX_SCHEMES];

/*
 * Make scheme @s (the @idx-th) look again, in its next pass, at the memory
 * its last pass tried.  Returns false if it cannot.
 */
static bool damon_tier_look_again(struct damon_ctx *c, struct damos *s,
				  int idx)
{
	struct damon_target *t, *from = damon_tier_pass_target[idx];
	bool found = !from;

	/* Where the last pass started; its target must still be there. */
	damon_for_each_target(t, c)
		found |= t == from;
	if (!found)
		return false;
	s->quota.charge_target_from = from;
	s->quota.charge_addr_from = damon_tier_pass_addr[idx];
	return true;
}

/*
 * What scheme @s (the @idx-th) may move in the next pass.  @full_lead: set
 * to the lead of its upper node if that exchanges with the whole lead, not
 * one held back by the hot memory left below or by what promotion moves;
 * else to 0.
 */
static unsigned long damon_tier_left(struct damon_ctx *c, struct damos *s,
				     int idx, unsigned long *full_lead)
{
	const struct damon_tier_params *p = &damon_tier_running_params;
	unsigned long want = damon_tier_want[idx], lead;
	int upper = damon_tier_upper[idx];
	bool exchange = damon_tier_xchg[idx] != 0;
	struct damon_tier_upper u;
	struct sysinfo i;

	*full_lead = 0;
	if (upper == NUMA_NO_NODE || want <= damon_tier_moved[idx])
		return 0;
	if (!node_state(upper, N_MEMORY))
		return 0;
	damon_tier_read_upper(c, upper, damon_tier_promoted_last[upper] +
			      damon_tier_promoted_now[upper], &u, &i);
	lead = damon_tier_lead_bytes(&u, p);
	if (exchange && lead >= DAMON_TIER_LEAD_PROBES *
	    damon_tier_probe_bytes(u.total, p->quota_mb << 20))
		*full_lead = lead;
	return min(want - damon_tier_moved[idx],
		   damon_tier_pass_bytes(s->action == DAMOS_MIGRATE_HOT, &u, p,
					 exchange));
}

/*
 * Look at what each scheme's last pass did, before a new window forgets it:
 * decide whether demotion looks again and how far the next pass reaches.
 */
static void damon_tier_review(struct damon_ctx *c)
{
	unsigned long tried, moved;
	struct damos_quota *q;
	unsigned int *shift;
	struct damos *s;
	bool again;
	int i = 0;

	damon_for_each_scheme(s, c) {
		if (i >= DAMON_TIER_MAX_SCHEMES)
			break;
		q = &s->quota;
		shift = &damon_tier_step_shift[i];
		tried = q->charged_sz > damon_tier_charged[i] ?
			q->charged_sz - damon_tier_charged[i] : 0;
		moved = damon_tier_moved[i] - damon_tier_moved_seen[i];
		again = false;
		if (tried && moved < tried / 4) {
			if (s->action == DAMOS_MIGRATE_COLD)
				again = !damon_tier_second_look[i];
			/* Promotion, or demotion failing at the second look. */
			if (!again && *shift < DAMON_TIER_MAX_STEP_SHIFT)
				(*shift)++;
		} else if (moved) {
			*shift = 0;
		}
		damon_tier_second_look[i] = again;
		if (!again) {
			damon_tier_pass_target[i] = q->charge_target_from;
			damon_tier_pass_addr[i] = q->charge_addr_from;
		}
		damon_tier_moved_seen[i] = damon_tier_moved[i];
		damon_tier_charged[i] = q->charged_sz;
		i++;
	}
}

static void damon_tier_top_up(struct damon_ctx *c)
{
	unsigned long left, step, quota;
	struct damos_quota *q;
	unsigned long full_lead;
	unsigned int shift;
	struct damos *s;
	int i = 0;

	damon_for_each_scheme(s, c) {
		if (i >= DAMON_TIER_MAX_SCHEMES)
			break;
		q = &s->quota;
		shift = damon_tier_step_shift[i];
		if (damon_tier_second_look[i] &&
		    !damon_tier_look_again(c, s, i))
			damon_tier_second_look[i] = false;

		left = damon_tier_left(c, s, i, &full_lead);
		quota = q->sz > q->charged_sz ? q->sz - q->charged_sz : 0;
		/*
		 * Demotion overshooting would leave room nothing refills: it
		 * reaches further only where its looks moved next to nothing
		 * (memory that cannot move, or hot), and only while plenty
		 * of hot memory waits below.
		 */
		if (s->action == DAMOS_MIGRATE_COLD)
			step = min3(left << shift, max(left, full_lead), quota);
		else
			step = min3(left << shift, 2 * left, quota);
		/*
		 * Whole pages: DAMON splits regions at the quota's end, and
		 * with CONFIG_DAMON_KUNIT_TEST its minimum region is one
		 * byte.  A scheme with nothing to move is switched off: an
		 * effective quota of 0 would mean "unlimited".
		 */
		step = ALIGN_DOWN(step, PAGE_SIZE);
		s->wmarks.activated = step != 0;
		q->esz = q->charged_sz + max(step, PAGE_SIZE);
		q->esz_bp = q->esz * 10000;
		i++;
	}
}

/*
 * Pages that demotion frees go to the per-CPU lists of the CPU it runs on
 * first, and promotion's allocations refill those lists in batches from
 * the buddy allocator.  The node's free page count does not see what the
 * lists hold (measured: up to 13 MiB of a 1 GiB node), and allocations
 * held to the node's watermarks cannot reach it until the lists decay
 * back, seconds later; demotion, reading too little free memory, then
 * frees more than its goal.  Give it back after each pass that moved
 * memory, so that the node's utilization reads true.  Every CPU's lists:
 * the kdamond moves between CPUs, and a list it left behind held 7.5 MiB
 * for 13 s in one measured run.  drain_all_pages() of one zone drains the
 * CPUs with pages on their lists from here, without IPIs.  Also at the
 * start of each quota window: other allocations and frees refill the lists
 * while nothing migrates (8 MiB measured), and demotion would free memory
 * the node already has.
 */
static void damon_tier_drain(int nid)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	int z;

	for (z = 0; z < MAX_NR_ZONES; z++) {
		struct zone *zone = &pgdat->node_zones[z];

		if (populated_zone(zone))
			drain_all_pages(zone);
	}
}

/*
 * Start a new quota window when the last one is over (or at once with
 * @force): take the bytes each scheme may move from the goals, and start
 * the window here, before kdamond_apply_schemes() looks at it, so that the
 * core sees a running window and its tuner leaves these quotas alone.
 */
static void damon_tier_tune(struct damon_ctx *c, bool force)
{
	const struct damon_tier_params *p = &damon_tier_running_params;
	nodemask_t uppers = NODE_MASK_NONE;
	struct damos_quota *q;
	struct damos *s;
	int i = 0, nid;

	if (!force && time_before(jiffies, damon_tier_window_end))
		return;
	damon_for_each_scheme(s, c) {
		nid = damon_tier_upper_of(s);
		if (nid != NUMA_NO_NODE)
			node_set(nid, uppers);
	}
	for_each_node_mask(nid, uppers)
		damon_tier_drain(nid);
	if (force) {
		/* Schemes may have changed: no second look across a rebuild. */
		memset(damon_tier_second_look, 0,
		       sizeof(damon_tier_second_look));
	} else {
		memcpy(damon_tier_promoted_last, damon_tier_promoted_now,
		       sizeof(damon_tier_promoted_now));
		memset(damon_tier_promoted_now, 0,
		       sizeof(damon_tier_promoted_now));
	}
	damon_for_each_scheme(s, c) {
		if (i >= DAMON_TIER_MAX_SCHEMES)
			break;
		q = &s->quota;
		damon_tier_want[i] = damon_tier_want_bytes(c, s, i, p);
		damon_tier_moved[i] = 0;
		damon_tier_moved_seen[i] = 0;
		damon_tier_charged[i++] = 0;
		q->total_charged_sz += q->charged_sz;
		q->charged_sz = 0;
		q->charged_from = jiffies;
	}
	damon_tier_window_end = jiffies +
		msecs_to_jiffies(p->quota_reset_interval_ms);
}

/* Count what the schemes moved; with @drain_moved, drain where they did. */
static void damon_tier_update_stats(struct damon_ctx *c, bool drain_moved)
{
	unsigned long cur, delta, nr = 0;
	nodemask_t drain = NODE_MASK_NONE;
	struct damon_target *t;
	struct damos *s;
	int i = 0, upper;

	damon_for_each_scheme(s, c) {
		if (i >= DAMON_TIER_MAX_SCHEMES)
			break;
		cur = s->stat.sz_applied;
		/* A scheme replaced by a rebuild restarts from zero. */
		delta = cur >= damon_tier_last_applied[i] ?
			cur - damon_tier_last_applied[i] : cur;
		damon_tier_last_applied[i] = cur;
		damon_tier_moved[i] += delta;
		upper = damon_tier_upper[i++];
		if (s->action == DAMOS_MIGRATE_HOT) {
			WRITE_ONCE(bytes_promoted, bytes_promoted + delta);
			if (s->target_nid >= 0 && s->target_nid < MAX_NUMNODES)
				damon_tier_promoted_now[s->target_nid] += delta;
		} else {
			WRITE_ONCE(bytes_demoted, bytes_demoted + delta);
		}
		if (drain_moved && delta && upper != NUMA_NO_NODE)
			node_set(upper, drain);
	}
	/* Once per node: both schemes of a tier boundary share it. */
	for_each_node_mask(upper, drain)
		if (node_state(upper, N_MEMORY))
			damon_tier_drain(upper);
	damon_for_each_target(t, c)
		nr += damon_nr_regions(t);
	WRITE_ONCE(nr_regions, nr);
}

static int damon_tier_after_aggregation(struct damon_ctx *c)
{
	bool new_window = !time_before(jiffies, damon_tier_window_end);
	int err = 0;

	/* A new window drains every upper node: damon_tier_tune(). */
	damon_tier_update_stats(c, !new_window);
	damon_tier_review(c);
	/*
	 * Look for node changes once per quota window: until then the old
	 * ranges are only stale, not unsafe (paddr skips offline pages).
	 */
	if (commit_inputs || (new_window && damon_tier_topo_changed())) {
		err = damon_tier_apply_parameters();
		if (err)
			pr_warn("cannot apply parameters: %d\n", err);
		commit_inputs = false;
		/* Keep running the previous schemes on a bad commit. */
		err = 0;
		/* New schemes must not start with an unlimited quota. */
		damon_tier_tune(c, true);
	}
	damon_tier_tune(c, false);
	damon_tier_top_up(c);
	return err;
}

static int damon_tier_before_start(struct damon_ctx *c)
{
	memset(damon_tier_promoted_now, 0, sizeof(damon_tier_promoted_now));
	memset(damon_tier_promoted_last, 0, sizeof(damon_tier_promoted_last));
	memset(damon_tier_second_look, 0, sizeof(damon_tier_second_look));
	memset(damon_tier_pass_target, 0, sizeof(damon_tier_pass_target));
	damon_tier_tune(c, true);
	damon_tier_top_up(c);
	return 0;
}

static int damon_tier_turn(bool on)
{
	struct damos *s;
	int err, i = 0;

	if (!on) {
		err = damon_stop(&ctx, 1);
		if (!err)
			WRITE_ONCE(nr_regions, 0);
		return err;
	}

	err = damon_tier_apply_parameters();
	if (err)
		return err;
	WRITE_ONCE(bytes_promoted, 0);
	WRITE_ONCE(bytes_demoted, 0);
	/*
	 * Committing keeps the schemes of an earlier run with their stats:
	 * count from what they have applied so far.
	 */
	memset(damon_tier_last_applied, 0, sizeof(damon_tier_last_applied));
	damon_for_each_scheme(s, ctx) {
		if (i >= DAMON_TIER_MAX_SCHEMES)
			break;
		damon_tier_last_applied[i++] = s->stat.sz_applied;
	}
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
	ctx->callback.before_start = damon_tier_before_start;
	ctx->callback.after_aggregation = damon_tier_after_aggregation;

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
