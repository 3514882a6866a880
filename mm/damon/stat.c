// SPDX-License-Identifier: GPL-2.0
/*
 * DAMON-based access monitoring results statistics (DAMON_STAT).
 *
 * Monitors the physical address range from the start of the first System
 * RAM resource to the end of the last one when it is enabled, on
 * auto-tuned intervals, cheap enough to leave on, and keeps two simple
 * statistics of it as read-only module parameters, updated every five
 * seconds: an estimate of the memory bandwidth in use, and the
 * percentiles of how long each byte has been idle.  Every node's memory
 * is seen, CXL nodes included; holes between resources are monitored too
 * and never read as accessed.  Memory hot-added outside that range is
 * seen after DAMON_STAT is enabled again.
 */

#define pr_fmt(fmt) "damon-stat: " fmt

#include <linux/damon.h>
#include <linux/init.h>
#include <linux/ioport.h>
#include <linux/kstrtox.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "modules-common.h"

#ifdef MODULE_PARAM_PREFIX
#undef MODULE_PARAM_PREFIX
#endif
#define MODULE_PARAM_PREFIX "damon_stat."

#define DAMON_STAT_NR_PERCENTILES	101

/*
 * Enable or disable DAMON_STAT.  The default is set by
 * CONFIG_DAMON_STAT_ENABLED_DEFAULT; it can be set at boot with
 * damon_stat.enabled=Y.
 */
static bool enabled __read_mostly =
	IS_ENABLED(CONFIG_DAMON_STAT_ENABLED_DEFAULT);

/*
 * Estimated memory bandwidth in use, bytes per second: the bytes of the
 * regions seen accessed in each sample of the last aggregation interval,
 * divided by that interval.
 */
static unsigned long estimated_memory_bandwidth __read_mostly;
module_param(estimated_memory_bandwidth, ulong, 0400);
MODULE_PARM_DESC(estimated_memory_bandwidth,
		 "Estimated memory bandwidth in use, bytes per second");

/*
 * How long each byte of memory has been idle, in ms: the 0th to the 100th
 * percentile.  A byte of a region not accessed in the last aggregation is
 * idle for as long as the region has been so (its age, plus the aggregation
 * being reported); one of an accessed region gets minus the time it has kept
 * its access frequency counted the same way, so hotter memory sorts lower
 * and accessed memory always reads below zero.
 */
static long memory_idle_ms_percentiles[DAMON_STAT_NR_PERCENTILES] __read_mostly;
module_param_array(memory_idle_ms_percentiles, long, NULL, 0400);
MODULE_PARM_DESC(memory_idle_ms_percentiles,
		 "Idle time percentiles of the memory's bytes, ms");

/* The aggregation interval the auto-tuning reached, in us. */
static unsigned long aggr_interval_us __read_mostly;
module_param(aggr_interval_us, ulong, 0400);
MODULE_PARM_DESC(aggr_interval_us, "Current aggregation interval, us");

/*
 * Set up and torn down only by the "enabled" parameter's callbacks, which
 * the module parameter lock serializes; the kdamond only reads it.
 */
static struct damon_ctx *damon_stat_ctx;

/* A region as the idle time percentiles see it. */
struct damon_stat_region {
	long idle_ms;
	unsigned long sz;
};

static int damon_stat_cmp_idle(const void *a, const void *b)
{
	const struct damon_stat_region *ra = a, *rb = b;

	if (ra->idle_ms < rb->idle_ms)
		return -1;
	return ra->idle_ms > rb->idle_ms;
}

static u64 damon_stat_rem100(u64 v)
{
	u32 rem;

	div_u64_rem(v, 100, &rem);
	return rem;
}

/*
 * Fill @pcts with the idle time percentiles of the @nr regions @rs: the
 * p-th is the idle time of the first region, in idle time order, at which
 * the regions so far reach p% of the bytes.  @rs gets sorted.
 */
static void damon_stat_percentiles(struct damon_stat_region *rs, int nr,
				   long *pcts)
{
	u64 total = 0, seen = 0;
	int i, p = 0;

	for (i = 0; i < nr; i++)
		total += rs[i].sz;
	if (!total) {
		memset(pcts, 0, sizeof(*pcts) * DAMON_STAT_NR_PERCENTILES);
		return;
	}
	sort(rs, nr, sizeof(*rs), damon_stat_cmp_idle, NULL);
	for (i = 0; i < nr; i++) {
		seen += rs[i].sz;
		/* seen >= p% of total, without overflowing on huge totals */
		while (p < DAMON_STAT_NR_PERCENTILES &&
		       seen >= div_u64(total, 100) * p +
		       div_u64(damon_stat_rem100(total) * p, 100))
			pcts[p++] = rs[i].idle_ms;
	}
}

static unsigned long damon_stat_nr_regions(struct damon_ctx *c)
{
	unsigned long nr = 0;
	struct damon_target *t;

	damon_for_each_target(t, c)
		nr += damon_nr_regions(t);
	return nr;
}

/* Scratch for the percentiles; only the kdamond uses it. */
static long damon_stat_pcts[DAMON_STAT_NR_PERCENTILES];

/* How often the statistics are updated: often enough for a dashboard. */
#define DAMON_STAT_UPDATE_MS	5000
/* When they are next updated, in jiffies; only the kdamond uses it. */
static unsigned long damon_stat_next_update;

static int damon_stat_after_aggregation(struct damon_ctx *c)
{
	unsigned long aggr_us = c->attrs.aggr_interval ?: 1;
	unsigned long aggr_ms = c->attrs.aggr_interval / USEC_PER_MSEC;
	unsigned long nr = damon_stat_nr_regions(c), i = 0;
	struct damon_stat_region *rs;
	struct damon_target *t;
	struct damon_region *r;
	u64 accessed = 0;

	if (time_before(jiffies, damon_stat_next_update))
		return 0;
	damon_stat_next_update = jiffies +
		msecs_to_jiffies(DAMON_STAT_UPDATE_MS);
	rs = kmalloc_array(nr, sizeof(*rs), GFP_KERNEL);
	if (!rs)
		return 0;
	damon_for_each_target(t, c) {
		damon_for_each_region(r, t) {
			if (i >= nr)
				break;
			rs[i].sz = damon_sz_region(r);
			/* Counted from 1 so an accessed region reads < 0. */
			rs[i].idle_ms = (long)((r->age + 1) * aggr_ms);
			if (r->nr_accesses)
				rs[i].idle_ms = -rs[i].idle_ms;
			accessed += (u64)rs[i].sz * r->nr_accesses;
			i++;
		}
	}
	damon_stat_percentiles(rs, i, damon_stat_pcts);
	kfree(rs);
	/* Readers may see a mix of two snapshots: these are statistics. */
	memcpy(memory_idle_ms_percentiles, damon_stat_pcts,
	       sizeof(damon_stat_pcts));
	WRITE_ONCE(estimated_memory_bandwidth,
		   (unsigned long)min_t(u64, ULONG_MAX,
					mul_u64_u64_div_u64(accessed,
							    USEC_PER_SEC,
							    aggr_us)));
	WRITE_ONCE(aggr_interval_us, c->attrs.aggr_interval);
	return 0;
}

static int damon_stat_system_ram_fn(struct resource *res, void *arg)
{
	struct damon_addr_range *range = arg;

	/* The walk goes up the address space. */
	if (!range->end)
		range->start = res->start;
	range->end = res->end + 1;
	return 0;
}

/* Monitor all System RAM, from its lowest to its highest address. */
static int damon_stat_set_system_ram_region(struct damon_target *t)
{
	struct damon_addr_range range = {};

	walk_system_ram_res(0, ULONG_MAX, &range, damon_stat_system_ram_fn);
	if (range.end <= range.start)
		return -EINVAL;
	return damon_set_regions(t, &range, 1);
}

static struct damon_ctx *damon_stat_build_ctx(void)
{
	/* 4% of the access events, tuned every 3 aggregations, 5 ms to 10 s. */
	struct damon_attrs attrs = {
		.sample_interval = 5000,
		.aggr_interval = 100000,
		.ops_update_interval = 60000000,
		.min_nr_regions = 10,
		.max_nr_regions = 1000,
		.intervals_goal = {
			.access_bp = 400,
			.aggrs = 3,
			.min_sample_us = 5000,
			.max_sample_us = 10000000,
		},
	};
	struct damon_target *t;
	struct damon_ctx *c;

	if (damon_modules_new_paddr_ctx_target(&c, &t))
		return NULL;
	if (damon_set_attrs(c, &attrs) ||
	    damon_stat_set_system_ram_region(t)) {
		damon_destroy_ctx(c);
		return NULL;
	}
	c->callback.after_aggregation = damon_stat_after_aggregation;
	damon_stat_next_update = jiffies;
	return c;
}

static bool damon_stat_running(void)
{
	return damon_stat_ctx && damon_is_running(damon_stat_ctx);
}

static int damon_stat_turn(bool on)
{
	int err;

	if (damon_stat_ctx) {
		/* Running, or stopped on its own: either way it goes. */
		err = damon_stop(&damon_stat_ctx, 1);
		if (err && damon_is_running(damon_stat_ctx))
			return err;
		damon_destroy_ctx(damon_stat_ctx);
		damon_stat_ctx = NULL;
	}
	if (!on)
		return 0;
	damon_stat_ctx = damon_stat_build_ctx();
	if (!damon_stat_ctx)
		return -ENOMEM;
	/* Exclusive, like the other special-purpose DAMON modules. */
	err = damon_start(&damon_stat_ctx, 1, true);
	if (err) {
		damon_destroy_ctx(damon_stat_ctx);
		damon_stat_ctx = NULL;
	}
	return err;
}

static bool damon_stat_initialized;

static int damon_stat_enabled_store(const char *val,
				    const struct kernel_param *kp)
{
	bool want;
	int err = kstrtobool(val, &want);

	if (err)
		return err;
	/* Before init (kernel command line): init turns it on. */
	if (!damon_stat_initialized) {
		enabled = want;
		return 0;
	}
	if (damon_stat_running() == want)
		return 0;
	err = damon_stat_turn(want);
	if (!err)
		enabled = want;
	return err;
}

static int damon_stat_enabled_load(char *buffer,
				   const struct kernel_param *kp)
{
	return sprintf(buffer, "%c\n", damon_stat_running() ? 'Y' : 'N');
}

static const struct kernel_param_ops enabled_param_ops = {
	.set = damon_stat_enabled_store,
	.get = damon_stat_enabled_load,
};

module_param_cb(enabled, &enabled_param_ops, &enabled, 0600);
MODULE_PARM_DESC(enabled, "Enable or disable DAMON_STAT");

static int __init damon_stat_init(void)
{
	int err = 0;

	damon_stat_initialized = true;
	if (enabled) {
		err = damon_stat_turn(true);
		if (err)
			enabled = false;
	}
	return err;
}

late_initcall(damon_stat_init);

#include "tests/stat-kunit.h"
