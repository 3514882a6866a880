// SPDX-License-Identifier: GPL-2.0
/*
 * DAMON-based memory tiering (DAMON_TIER)
 *
 * Per node of an upper tier, a scheme demotes its coldest pages to the
 * closest lower node, keeping a little of the node free; per node below the
 * top tier, a scheme promotes its hottest pages to the closest upper node,
 * aiming at a high use of it.  DAMON core tunes how much each scheme moves
 * and how often it samples; this module states the policy, and states it
 * again after memory hotplug.  While NUMA balancing's tiering mode promotes,
 * it only demotes (mm/tier_promoter.c).
 */

#define pr_fmt(fmt) "damon-tier: " fmt

#include <linux/damon.h>
#include <linux/kstrtox.h>
#include <linux/memory.h>
#include <linux/memory-tiers.h>
#include <linux/memory_hotplug.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tier_promoter.h>

#include "modules-common.h"

#ifdef MODULE_PARAM_PREFIX
#undef MODULE_PARAM_PREFIX
#endif
#define MODULE_PARAM_PREFIX "damon_tier."

/* The schemes' quota window. */
#define DAMON_TIER_WINDOW_MS	100

/* Enable or disable DAMON_TIER; also at boot, damon_tier.enabled=Y. */
static bool enabled __read_mostly;

/* Y applies the parameters below to the running DAMON_TIER (EINVAL: none). */
static bool commit_inputs __read_mostly;

/* The use of an upper node that promotion aims at, in bp. */
static unsigned long target_used_bp __read_mostly = 9970;
DEFINE_DAMON_MODULES_BOUNDED_PARAM(target_used_bp, target_used_bp, 1, 10000);

/* The free memory demotion keeps on an upper node beyond its watermarks, bp. */
static unsigned long target_free_bp __read_mostly = 50;
DEFINE_DAMON_MODULES_BOUNDED_PARAM(target_free_bp, target_free_bp, 1, 10000);

/* Leave bound, interleaved, cpuset-confined and mlocked memory in place. */
static bool respect_placement __read_mostly = true;
module_param(respect_placement, bool, 0600);

/* Move only this memory cgroup's pages ("/workload"); empty for all pages. */
static char *memcg_path = "";
module_param_cb(memcg_path, &damon_modules_memcg_path_param_ops, &memcg_path,
		0600);

/*
 * The quota goal tuner, by its DAMON sysfs name.  With "gap", promotion,
 * which the upper node's free memory bounds anyway, uses "temporal".
 */
static enum damos_quota_goal_tuner goal_tuner __read_mostly =
	DAMOS_QUOTA_GOAL_TUNER_GAP;
module_param_cb(goal_tuner, &damon_modules_goal_tuner_param_ops, &goal_tuner,
		0600);

/* Most MiB each scheme migrates per quota_reset_interval_ms. */
static unsigned long quota_mb __read_mostly = 200;
DEFINE_DAMON_MODULES_BOUNDED_PARAM(quota_mb, quota_mb, 1, 1UL << 20);

static unsigned long quota_reset_interval_ms __read_mostly = 1000;
DEFINE_DAMON_MODULES_BOUNDED_PARAM(quota_reset_interval_ms,
				   quota_reset_interval_ms, 1, 1UL << 20);

/* Flush the TLB entries of the pages DAMON samples (context tlb_flush). */
static bool tlb_flush __read_mostly;
module_param(tlb_flush, bool, 0600);

/*
 * The intervals the auto-tuning starts from, its goal, and regions of at
 * most 1/50 of the memory, so that hot pages seen rarely stay apart.
 */
static struct damon_attrs damon_tier_mon_attrs = {
	.sample_interval = 5000,
	.aggr_interval = 100000,
	.min_nr_regions = 50,
	.max_nr_regions = 200,
	.intervals_goal = {
		.access_bp = 2000,
		.aggrs = 3,
		.min_sample_us = 5000,
		.max_sample_us = 200000,
	},
};

#define DAMON_TIER_ATTR_PARAM(name, field, min)				\
	DEFINE_DAMON_MODULES_BOUNDED_PARAM(name, damon_tier_mon_attrs.field, \
					   min, ULONG_MAX)
DAMON_TIER_ATTR_PARAM(sample_interval, sample_interval, 1);
DAMON_TIER_ATTR_PARAM(aggr_interval, aggr_interval, 1);
/* DAMON needs at least three regions. */
DAMON_TIER_ATTR_PARAM(min_nr_regions, min_nr_regions, 3);
DAMON_TIER_ATTR_PARAM(max_nr_regions, max_nr_regions, 3);
DAMON_TIER_ATTR_PARAM(intervals_goal_aggrs, intervals_goal.aggrs, 0);
DAMON_TIER_ATTR_PARAM(intervals_goal_min_sample_us,
		      intervals_goal.min_sample_us, 0);
DAMON_TIER_ATTR_PARAM(intervals_goal_max_sample_us,
		      intervals_goal.max_sample_us, 0);
DEFINE_DAMON_MODULES_BOUNDED_PARAM(intervals_goal_access_bp,
				   damon_tier_mon_attrs.intervals_goal.access_bp,
				   0, 10000);

/* Since enabled: bytes moved, and left for a policy, cpuset or mlock. */
static unsigned long bytes_promoted;
module_param(bytes_promoted, ulong, 0400);
static unsigned long bytes_demoted;
module_param(bytes_demoted, ulong, 0400);
static unsigned long bytes_skipped_policy;
module_param(bytes_skipped_policy, ulong, 0400);
static unsigned long bytes_skipped_cpuset;
module_param(bytes_skipped_cpuset, ulong, 0400);
static unsigned long bytes_skipped_mlock;
module_param(bytes_skipped_mlock, ulong, 0400);

/* The running context's schemes and regions, and its intervals in us. */
static unsigned long nr_schemes;
module_param(nr_schemes, ulong, 0400);
static unsigned long nr_regions;
module_param(nr_regions, ulong, 0400);
static unsigned long sample_interval_us;
module_param(sample_interval_us, ulong, 0400);
static unsigned long aggr_interval_us;
module_param(aggr_interval_us, ulong, 0400);

/* Serializes enabling and commits. */
static DEFINE_MUTEX(damon_tier_lock);
static struct damon_ctx *ctx;
/* Set once the initcall made ctx: until then parameters are only recorded. */
static bool damon_tier_initialized;
/* Non-zero after memory hotplug until the kdamond rebuilds. */
static atomic_t damon_tier_nodes_changed;

/**
 * struct damon_tier_state - the parameters a commit applied
 * @start:		the monitoring attributes the context was built from
 * @target_used_bp:	the parameter of that name
 * @target_free_bp:	the parameter of that name
 * @quota_sz:		bytes per scheme and quota window
 * @goal_tuner:		the parameter of that name
 * @respect_placement:	the parameter of that name
 * @tlb_flush:		the parameter of that name
 * @promote:		whether to promote: not while NUMA balancing does
 * @memcg_id:		cgroup_id() of the memory cgroup whose pages move, or 0
 *
 * Read from the parameters under the kernel's module parameter lock, so that
 * a rebuild for memory hotplug states the committed policy; only the kdamond
 * uses it once started.
 */
struct damon_tier_state {
	struct damon_attrs start;
	unsigned long target_used_bp, target_free_bp, quota_sz;
	enum damos_quota_goal_tuner goal_tuner;
	bool respect_placement, tlb_flush, promote;
	u64 memcg_id;
};

static struct damon_tier_state damon_tier_state;

enum { DAMON_TIER_DEMOTE, DAMON_TIER_PROMOTE, NR_DAMON_TIER_DIRS };

/*
 * The counters of each direction less the running schemes' stats: a commit
 * keeps schemes, and their stats, by place in the list.  Kept by the kdamond
 * once started.
 */
static struct damos_stat damon_tier_sums[NR_DAMON_TIER_DIRS];

/*
 * The node cold pages of @nid go to: the closest node of the lower tiers,
 * the lowest id among equally close ones.
 */
static int damon_tier_demote_to(int nid)
{
	int n, best = NUMA_NO_NODE;
	nodemask_t lower;

	node_get_allowed_targets(NODE_DATA(nid), &lower);
	for_each_node_mask(n, lower) {
		if (!node_state(n, N_MEMORY))
			continue;
		if (best == NUMA_NO_NODE ||
		    node_distance(nid, n) < node_distance(nid, best))
			best = n;
	}
	return best;
}

/*
 * The node hot pages of @nid go to: the closest node that may demote to
 * it; among equally close ones the one with more nodes below, so that hot
 * pages climb to the top tier at once.
 */
static int damon_tier_promote_to(int nid)
{
	int up, best = NUMA_NO_NODE, best_below = 0, below;
	nodemask_t lower;

	for_each_node_state(up, N_MEMORY) {
		node_get_allowed_targets(NODE_DATA(up), &lower);
		if (!node_isset(nid, lower))
			continue;
		below = nodes_weight(lower);
		if (best == NUMA_NO_NODE ||
		    node_distance(nid, up) < node_distance(nid, best) ||
		    (node_distance(nid, up) == node_distance(nid, best) &&
		     below > best_below)) {
			best = up;
			best_below = below;
		}
	}
	return best;
}

/*
 * A scheme moving the memory of @span, which is node @nid's, to node @to:
 * its hot pages if @promote, else its cold ones, with a goal on node
 * @upper, the upper one of the two.
 */
static struct damos *damon_tier_new_scheme(const struct damon_addr_range *span,
					   int to, bool promote, int upper,
					   const struct damon_tier_state *st)
{
	struct damos_access_pattern pattern = {
		.min_sz_region = PAGE_SIZE,
		.max_sz_region = ULONG_MAX,
		/*
		 * Demote from regions accessed in up to a tenth of the
		 * samples too: promoted pages spread over a node's regions,
		 * and the young filter below keeps them.
		 */
		.min_nr_accesses = promote ? 1 : 0,
		.max_nr_accesses = promote ? UINT_MAX :
			damon_max_nr_accesses(&st->start) / 10,
		.max_age_region = UINT_MAX,
	};
	struct damos_quota quota = {
		.reset_interval = DAMON_TIER_WINDOW_MS,
		.sz = st->quota_sz,
		/* Promotion stops at the upper node's watermarks anyway. */
		.goal_tuner = promote &&
			st->goal_tuner == DAMOS_QUOTA_GOAL_TUNER_GAP ?
			DAMOS_QUOTA_GOAL_TUNER_TEMPORAL : st->goal_tuner,
		/* The hottest first, or the coldest. */
		.weight_nr_accesses = 100,
		/*
		 * What cannot move costs little: the kernel's memory (the
		 * coldest of a node), regions whose hot pages just left.
		 */
		.fail_charge_num = 1,
		.fail_charge_denom = 64,
	};
	struct damos_watermarks wmarks = { .metric = DAMOS_WMARK_NONE };
	enum damos_quota_goal_metric metric;
	struct damos_quota_goal *goal;
	struct damos_filter *filter;
	struct damos *s;

	/* After every sample: each quota window sees a pass. */
	s = damon_new_scheme(&pattern,
			     promote ? DAMOS_MIGRATE_HOT : DAMOS_MIGRATE_COLD,
			     st->start.intervals_goal.min_sample_us, &quota,
			     &wmarks, to);
	if (!s)
		return NULL;
	s->respect_placement = st->respect_placement;

	if (!promote)
		metric = DAMOS_QUOTA_NODE_MEM_HEADROOM_BP;
	else if (st->memcg_id)
		metric = DAMOS_QUOTA_NODE_MEMCG_USED_BP;
	else
		metric = DAMOS_QUOTA_NODE_MEM_USED_BP;
	goal = damos_new_quota_goal(metric, promote ? st->target_used_bp :
				    st->target_free_bp);
	if (!goal)
		goto fail;
	goal->nid = upper;
	goal->memcg_id = st->memcg_id;
	damos_add_quota_goal(&s->quota, goal);

	/* Only the cgroup's pages, if one is set. */
	if (st->memcg_id) {
		filter = damos_new_filter(DAMOS_FILTER_TYPE_MEMCG, false, false);
		if (!filter)
			goto fail;
		filter->memcg_id = st->memcg_id;
		damos_add_filter(s, filter);
	}
	/* Only the node's span. */
	filter = damos_new_filter(DAMOS_FILTER_TYPE_ADDR, false, false);
	if (!filter)
		goto fail;
	filter->addr_range = *span;
	damos_add_filter(s, filter);
	/* Promote only pages found young; never demote those. */
	filter = damos_new_filter(DAMOS_FILTER_TYPE_YOUNG, true, promote);
	if (!filter)
		goto fail;
	damos_add_filter(s, filter);
	return s;
fail:
	damon_destroy_scheme(s);
	return NULL;
}

/*
 * Add [@start, @end) to @nr sorted, disjoint @ranges, which have room for
 * one more, merging the ranges it touches: spans of nodes may overlap
 * (memory hot-added to a node above another's).  Returns the new number.
 */
static int damon_tier_add_range(struct damon_addr_range *ranges, int nr,
				unsigned long start, unsigned long end)
{
	int i = 0, j;

	while (i < nr && ranges[i].end < start)
		i++;
	for (j = i; j < nr && ranges[j].start <= end; j++) {
		start = min(start, ranges[j].start);
		end = max(end, ranges[j].end);
	}
	memmove(&ranges[i + 1], &ranges[j], (nr - j) * sizeof(*ranges));
	ranges[i].start = start;
	ranges[i].end = end;
	return nr - (j - i) + 1;
}

/*
 * Add a scheme per tier boundary to @c, and monitor in @t the spans of the
 * nodes that have one.  A machine of one tier gets neither: @t is
 * destroyed, as a target without regions would keep the running target's
 * regions in a commit.
 */
static int damon_tier_build(struct damon_ctx *c, struct damon_target *t,
			    const struct damon_tier_state *st)
{
	struct damon_addr_range *ranges, span;
	int nid, up, down, nr = 0, err = -ENOMEM;
	struct damos *s;

	ranges = kcalloc(nr_node_ids, sizeof(*ranges), GFP_KERNEL);
	if (!ranges)
		return -ENOMEM;
	/* Spans that agree with the tiers, which change only with them. */
	get_online_mems();
	for_each_node_state(nid, N_MEMORY) {
		span.start = PFN_PHYS(node_start_pfn(nid));
		span.end = PFN_PHYS(node_end_pfn(nid));
		down = damon_tier_demote_to(nid);
		up = st->promote ? damon_tier_promote_to(nid) : NUMA_NO_NODE;
		if (down != NUMA_NO_NODE) {
			s = damon_tier_new_scheme(&span, down, false, nid, st);
			if (!s)
				goto out;
			damon_add_scheme(c, s);
		}
		if (up != NUMA_NO_NODE) {
			s = damon_tier_new_scheme(&span, up, true, up, st);
			if (!s)
				goto out;
			damon_add_scheme(c, s);
		}
		if (span.start < span.end &&
		    (up != NUMA_NO_NODE || down != NUMA_NO_NODE))
			nr = damon_tier_add_range(ranges, nr, span.start,
						  span.end);
	}
	err = 0;
	if (nr)
		err = damon_set_regions(t, ranges, nr);
	else
		damon_destroy_target(t);
out:
	put_online_mems();
	kfree(ranges);
	return err;
}

/*
 * A context as @st states; with the intervals the auto-tuning reached in
 * @running, if it started from the same ones.
 */
static struct damon_ctx *damon_tier_new_ctx(const struct damon_tier_state *st,
					    struct damon_ctx *running)
{
	const struct damon_attrs *last = &damon_tier_state.start;
	struct damon_attrs attrs = st->start;
	struct damon_target *target;
	struct damon_ctx *c;
	int err;

	err = damon_modules_new_paddr_ctx_target(&c, &target);
	if (err)
		return ERR_PTR(err);
	c->tlb_flush = st->tlb_flush;
	if (running && attrs.intervals_goal.aggrs &&
	    last->sample_interval == attrs.sample_interval &&
	    last->aggr_interval == attrs.aggr_interval &&
	    !memcmp(&last->intervals_goal, &attrs.intervals_goal,
		    sizeof(attrs.intervals_goal))) {
		attrs.sample_interval = running->attrs.sample_interval;
		attrs.aggr_interval = running->attrs.aggr_interval;
	}
	err = damon_set_attrs(c, &attrs);
	if (!err)
		err = damon_tier_build(c, target, st);
	if (err) {
		damon_destroy_ctx(c);
		return ERR_PTR(err);
	}
	return c;
}

/*
 * The state the parameters ask for, in @st.  Under the parameter lock.
 * Fails with -EINVAL if memcg_path names no memory cgroup.
 */
static int damon_tier_read_params(struct damon_tier_state *st)
{
	st->start = damon_tier_mon_attrs;
	st->target_used_bp = target_used_bp;
	st->target_free_bp = target_free_bp;
	/* quota_mb per quota_reset_interval_ms, in every window. */
	st->quota_sz = clamp_t(u64, div64_u64(((u64)quota_mb << 20) *
					      DAMON_TIER_WINDOW_MS,
					      quota_reset_interval_ms),
			       PAGE_SIZE, ULONG_MAX);
	st->goal_tuner = goal_tuner;
	st->respect_placement = respect_placement;
	st->tlb_flush = tlb_flush;
	st->promote = tier_promoter_may_promote(TIER_PROMOTER_DAMON_TIER);
	st->memcg_id = 0;
	if (memcg_path && *memcg_path)
		return damon_memcg_path_to_id(memcg_path, &st->memcg_id);
	return 0;
}

/* Modular, as the counters are. */
static void damon_tier_count(unsigned long *sum, unsigned long v, bool sub)
{
	*sum = sub ? *sum - v : *sum + v;
}

/* Add the stats of @c's schemes to @sums by direction, or subtract them. */
static void damon_tier_add_stats(struct damon_ctx *c, struct damos_stat *sums,
				 bool sub)
{
	struct damos_stat *sum;
	struct damos *s;

	damon_for_each_scheme(s, c) {
		sum = &sums[s->action == DAMOS_MIGRATE_HOT ?
			    DAMON_TIER_PROMOTE : DAMON_TIER_DEMOTE];
		damon_tier_count(&sum->sz_applied, s->stat.sz_applied, sub);
		damon_tier_count(&sum->sz_skipped_policy,
				 s->stat.sz_skipped_policy, sub);
		damon_tier_count(&sum->sz_skipped_cpuset,
				 s->stat.sz_skipped_cpuset, sub);
		damon_tier_count(&sum->sz_skipped_mlock,
				 s->stat.sz_skipped_mlock, sub);
	}
}

/*
 * Commit @st to @c: from its kdamond, keeping the intervals the tuning
 * reached if @keep_intervals, or before it starts.
 */
static int damon_tier_apply(struct damon_ctx *c,
			    const struct damon_tier_state *st,
			    bool keep_intervals)
{
	struct damon_ctx *param_ctx;
	int err;

	param_ctx = damon_tier_new_ctx(st, keep_intervals ? c : NULL);
	if (IS_ERR(param_ctx))
		return PTR_ERR(param_ctx);
	/* Even a failed commit may have replaced some schemes. */
	damon_tier_add_stats(c, damon_tier_sums, false);
	err = damon_commit_ctx(c, param_ctx);
	damon_tier_add_stats(c, damon_tier_sums, true);
	damon_destroy_ctx(param_ctx);
	if (err)
		return err;
	damon_tier_state = *st;
	WRITE_ONCE(nr_schemes, list_count_nodes(&c->schemes));
	return 0;
}

/*
 * After every sample: state the policy again if memory hotplug changed the
 * nodes or NUMA balancing's tiering mode was turned on or off (only demote
 * while it promotes), and update the read-only parameters.
 */
static int damon_tier_after_sample(void *data)
{
	struct damon_tier_state st = damon_tier_state;
	struct damos_stat sums[NR_DAMON_TIER_DIRS], *up, *down;
	struct damon_ctx *c = data;
	struct damon_target *t;
	unsigned long nr = 0;
	bool nodes_changed;
	int err;

	nodes_changed = atomic_xchg(&damon_tier_nodes_changed, 0);
	st.promote = tier_promoter_may_promote(TIER_PROMOTER_DAMON_TIER);
	if (nodes_changed || st.promote != damon_tier_state.promote) {
		err = damon_tier_apply(c, &st, true);
		/* Building failed (a failed commit stops the kdamond): retry. */
		if (err && nodes_changed)
			atomic_set(&damon_tier_nodes_changed, 1);
		if (err)
			pr_warn_ratelimited("cannot state the policy again: %d\n",
					    err);
	}
	memcpy(sums, damon_tier_sums, sizeof(sums));
	damon_tier_add_stats(c, sums, false);
	up = &sums[DAMON_TIER_PROMOTE];
	down = &sums[DAMON_TIER_DEMOTE];
	WRITE_ONCE(bytes_promoted, up->sz_applied);
	WRITE_ONCE(bytes_demoted, down->sz_applied);
	WRITE_ONCE(bytes_skipped_policy,
		   up->sz_skipped_policy + down->sz_skipped_policy);
	WRITE_ONCE(bytes_skipped_cpuset,
		   up->sz_skipped_cpuset + down->sz_skipped_cpuset);
	WRITE_ONCE(bytes_skipped_mlock,
		   up->sz_skipped_mlock + down->sz_skipped_mlock);
	damon_for_each_target(t, c)
		nr += damon_nr_regions(t);
	WRITE_ONCE(nr_regions, nr);
	WRITE_ONCE(sample_interval_us, c->attrs.sample_interval);
	WRITE_ONCE(aggr_interval_us, c->attrs.aggr_interval);
	return 0;
}

static struct damon_call_control damon_tier_sample_control = {
	.fn = damon_tier_after_sample,
	.repeat = true,
};

static int damon_tier_commit_fn(void *data)
{
	return damon_tier_apply(ctx, data, true);
}

/*
 * Apply the parameters while DAMON_TIER runs, or only check them while it
 * does not.  With damon_tier_lock held.
 */
static int damon_tier_commit(void)
{
	struct damon_tier_state st = {};
	struct damon_call_control control = {
		.fn = damon_tier_commit_fn,
		.data = &st,
	};
	struct damon_ctx *c;
	int err;

	err = damon_tier_read_params(&st);
	if (err)
		return err;
	/* On the stack: damon_call() returns once the kdamond ran or dropped it. */
	if (damon_is_running(ctx))
		return damon_call(ctx, &control) ?: control.return_code;
	c = damon_tier_new_ctx(&st, NULL);
	if (IS_ERR(c))
		return PTR_ERR(c);
	damon_destroy_ctx(c);
	return 0;
}

/* With damon_tier_lock held. */
static int damon_tier_turn(bool on)
{
	struct damon_tier_state st = {};
	int err;

	if (!on) {
		err = damon_stop(&ctx, 1);
		if (!err)
			WRITE_ONCE(nr_regions, 0);
		return err;
	}
	err = tier_promoter_claim(TIER_PROMOTER_DAMON_TIER);
	if (err)
		return err;
	err = damon_tier_read_params(&st);
	if (err)
		goto release;
	/* The context is built after this: older hotplug events are in it. */
	atomic_set(&damon_tier_nodes_changed, 0);
	err = damon_tier_apply(ctx, &st, false);
	if (err)
		goto release;
	/* Count from 0, less the stats of the schemes the commit kept. */
	memset(damon_tier_sums, 0, sizeof(damon_tier_sums));
	damon_tier_add_stats(ctx, damon_tier_sums, true);
	err = damon_start(&ctx, 1, true);
	if (err)
		goto release;
	err = damon_call(ctx, &damon_tier_sample_control);
	if (!err)
		return 0;
	damon_stop(&ctx, 1);
release:
	tier_promoter_release(TIER_PROMOTER_DAMON_TIER);
	return err;
}

static int damon_tier_commit_inputs_store(const char *val,
					  const struct kernel_param *kp)
{
	bool yes = true;
	int err;

	if (val) {
		err = kstrtobool(val, &yes);
		if (err)
			return err;
	}
	if (!yes || !damon_tier_initialized)
		return 0;
	if (!ctx)
		return -ENOMEM;
	mutex_lock(&damon_tier_lock);
	err = damon_tier_commit();
	mutex_unlock(&damon_tier_lock);
	return err;
}

static const struct kernel_param_ops commit_inputs_param_ops = {
	.flags = KERNEL_PARAM_OPS_FL_NOARG,
	.set = damon_tier_commit_inputs_store,
	.get = param_get_bool,
};
module_param_cb(commit_inputs, &commit_inputs_param_ops, &commit_inputs,
		0600);

static int damon_tier_enabled_store(const char *val,
				    const struct kernel_param *kp)
{
	bool want;
	int err;

	err = kstrtobool(val, &want);
	if (err || !damon_tier_initialized) {
		if (!err)
			enabled = want;
		return err;
	}
	/* The initcall could not make the context. */
	if (!ctx)
		return -ENOMEM;
	mutex_lock(&damon_tier_lock);
	if (damon_is_running(ctx) != want)
		err = damon_tier_turn(want);
	if (!err)
		enabled = want;
	/* Also when the kdamond had stopped by itself. */
	if (!err && !want)
		tier_promoter_release(TIER_PROMOTER_DAMON_TIER);
	mutex_unlock(&damon_tier_lock);
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
	int pid = ctx ? damon_kdamond_pid(ctx) : -1;

	return sprintf(buffer, "%d\n", pid < 0 ? -1 : pid);
}

static const struct kernel_param_ops kdamond_pid_param_ops = {
	.set = damon_tier_kdamond_pid_store,
	.get = damon_tier_kdamond_pid_load,
};

/* PID of the kdamond while enabled, else -1. */
module_param_cb(kdamond_pid, &kdamond_pid_param_ops, NULL, 0400);

/*
 * Nodes gain and lose memory, and tiers with it, only by memory hotplug.
 * Only the kdamond may change its context, and building the policy takes
 * the hotplug lock this runs under: the kdamond rebuilds after its next
 * sample.
 */
static int damon_tier_memory_callback(struct notifier_block *nb,
				      unsigned long action, void *arg)
{
	if (action == MEM_ONLINE || action == MEM_OFFLINE)
		atomic_set(&damon_tier_nodes_changed, 1);
	return NOTIFY_OK;
}

static int __init damon_tier_init(void)
{
	struct damon_target *target;
	int err;

	damon_tier_initialized = true;
	err = damon_modules_new_paddr_ctx_target(&ctx, &target);
	if (err) {
		enabled = false;
		return err;
	}
	damon_tier_sample_control.data = ctx;
	hotplug_memory_notifier(damon_tier_memory_callback,
				DEFAULT_CALLBACK_PRI);
	mutex_lock(&damon_tier_lock);
	if (enabled) {
		err = damon_tier_turn(true);
		if (err)
			enabled = false;
	}
	mutex_unlock(&damon_tier_lock);
	return err;
}

/* After memory_tier_late_init(): the tiers must exist. */
late_initcall_sync(damon_tier_init);

#include "tests/tier-kunit.h"
