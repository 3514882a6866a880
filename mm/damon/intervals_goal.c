// SPDX-License-Identifier: GPL-2.0
/*
 * DAMON monitoring intervals auto-tuning.
 *
 * How often DAMON should sample depends on how often the monitored memory
 * is accessed: sampled too often, nearly every region looks idle and hot
 * memory cannot be told from cold, and the page table walks of each sample
 * cost CPU for nothing; sampled too rarely, everything looks hot.  With an
 * intervals goal (&struct damon_intervals_goal) the kdamond counts the
 * access events it sees over goal->aggrs aggregation intervals, compares
 * them with goal->access_bp of the most it could have seen, and scales the
 * sampling and aggregation intervals together towards that ratio.
 */

#include <linux/damon.h>
#include <linux/math64.h>
#include <linux/minmax.h>

/**
 * damon_intervals_goal_valid() - can a context run with its intervals goal
 * @attrs:	the monitoring attributes, the goal among them
 *
 * A goal whose aggrs is 0 is off and always valid.  One that is on needs a
 * sampling interval range that is not empty and holds the sampling interval
 * to start from.  Any access ratio is taken: with 0 bp any access event
 * seen shortens the intervals and none lengthens them.
 *
 * Return: true if the goal of @attrs is valid.
 */
bool damon_intervals_goal_valid(const struct damon_attrs *attrs)
{
	const struct damon_intervals_goal *goal = &attrs->intervals_goal;

	if (!goal->aggrs)
		return true;
	return goal->min_sample_us <= goal->max_sample_us &&
		goal->min_sample_us <= attrs->sample_interval &&
		attrs->sample_interval <= goal->max_sample_us;
}

/**
 * damon_intervals_tune_sample_us() - the next sampling interval
 * @sample_us:		current sampling interval
 * @access_events:	access events seen in the tuning period
 * @max_access_events:	most access events that could have been seen
 * @goal:		the goal (valid and on)
 *
 * The interval is scaled by 2 - observed / wanted, at least 0; a factor
 * below 1 is then mapped onto [1/2, 1], so that the intervals shrink more
 * gently than they grow.  The result is held within the goal's sampling
 * interval range, and at 1 us or more.
 *
 * Return: the sampling interval to use next, in us.
 */
unsigned long damon_intervals_tune_sample_us(unsigned long sample_us,
					     u64 access_events,
					     u64 max_access_events,
					     const struct damon_intervals_goal *goal)
{
	/* Not 0 us: the aggregation interval, scaled with it, would be lost. */
	unsigned long lo = max(goal->min_sample_us, 1UL);
	u64 wanted, score_bp, step_bp, next;

	if (goal->access_bp &&
	    max_access_events > div_u64(U64_MAX, goal->access_bp))
		wanted = div_u64(max_access_events, 10000) * goal->access_bp;
	else
		wanted = div_u64(max_access_events * goal->access_bp, 10000);
	/* Wanting none is wanting one: any event seen shortens. */
	wanted = max(wanted, 1ULL);
	/* Observed events in bp of the wanted ones, capped at twice. */
	if (access_events / 2 >= wanted)
		score_bp = 20000;
	else if (access_events > div_u64(U64_MAX, 10000))
		score_bp = div64_u64(access_events, div_u64(wanted, 10000));
	else
		score_bp = div64_u64(access_events * 10000, wanted);
	step_bp = 20000 - min_t(u64, score_bp, 20000);
	if (step_bp < 10000)
		step_bp = 5000 + step_bp / 2;
	next = div_u64((u64)sample_us * step_bp, 10000);
	/* Never stick at a tiny interval that the step cannot move. */
	if (next == sample_us && step_bp > 10000)
		next++;
	return clamp_t(u64, next, lo, max(goal->max_sample_us, lo));
}

/**
 * damon_intervals_account() - count an aggregation's access events
 * @ctx:	the context, at the end of an aggregation interval
 *
 * Adds the regions' access counts, weighted by their size, and the most
 * they could have been to the tuning period's totals.  Only the kdamond of
 * @ctx calls this.
 */
void damon_intervals_account(struct damon_ctx *ctx)
{
	unsigned int max_nr = ctx->attrs.sample_interval ?
		damon_max_nr_accesses(&ctx->attrs) : 0;
	struct damon_target *t;
	struct damon_region *r;
	u64 sz;

	damon_for_each_target(t, ctx) {
		damon_for_each_region(r, t) {
			sz = damon_sz_region(r);
			ctx->intervals_access_events += sz * r->nr_accesses;
			ctx->intervals_max_access_events += sz * max_nr;
		}
	}
	ctx->intervals_tune_aggrs++;
}

/**
 * damon_intervals_next_attrs() - the attributes of the next tuning period
 * @ctx:	the context, after damon_intervals_account()
 * @attrs:	set to the tuned attributes when the period is over
 *
 * Once the period of goal->aggrs aggregations is over, starts a new one and
 * computes the intervals to use next: the aggregation interval follows the
 * sampling interval, so that both keep their ratio.
 *
 * Return: true if @attrs was set and differs from the current attributes.
 */
bool damon_intervals_next_attrs(struct damon_ctx *ctx,
				struct damon_attrs *attrs)
{
	const struct damon_intervals_goal *goal = &ctx->attrs.intervals_goal;
	unsigned long sample = ctx->attrs.sample_interval, next;
	u64 aggr;

	if (!goal->aggrs || ctx->intervals_tune_aggrs < goal->aggrs)
		return false;
	next = damon_intervals_tune_sample_us(sample,
					      ctx->intervals_access_events,
					      ctx->intervals_max_access_events,
					      goal);
	ctx->intervals_tune_aggrs = 0;
	ctx->intervals_access_events = 0;
	ctx->intervals_max_access_events = 0;
	if (next == sample)
		return false;
	aggr = div64_u64((u64)ctx->attrs.aggr_interval * next, max(sample, 1UL));
	*attrs = ctx->attrs;
	attrs->sample_interval = next;
	attrs->aggr_interval = min_t(u64, max_t(u64, aggr, next), ULONG_MAX);
	return true;
}

#include "tests/intervals_goal-kunit.h"
