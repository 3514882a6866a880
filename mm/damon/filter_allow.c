// SPDX-License-Identifier: GPL-2.0
/*
 * DAMOS allow filters.
 *
 * A filter either allows or rejects the memory it matches (its "allow"
 * field); the first matching filter decides.  Memory that no filter
 * matches gets the opposite of the last filter's verdict: after a list
 * ending in a reject filter it is allowed (the behaviour of reject-only
 * lists before allow filters existed), after one ending in an allow filter
 * it is rejected.
 *
 * Filters are evaluated in two layers: region-level ones (addr, target) by
 * DAMON core, page-level ones (anon, memcg, young) by the operations set,
 * each layer in the order the filters were added.  Memory a core filter
 * allows is not looked at by the page-level filters at all; memory a core
 * filter rejects never reaches them.  Core only rejects memory no core
 * filter matched when no page-level filter exists, so that the page-level
 * filters still see it.
 */

#include <linux/damon.h>

/**
 * damos_filter_for_ops() - is the filter type handled by the operations set
 * @type:	filter type
 *
 * Return: true for page-level types evaluated by the operations set.
 */
bool damos_filter_for_ops(enum damos_filter_type type)
{
	switch (type) {
	case DAMOS_FILTER_TYPE_ADDR:
	case DAMOS_FILTER_TYPE_TARGET:
		return false;
	default:
		return true;
	}
}

/**
 * damos_filters_default_reject() - verdict for memory no filter matched
 * @s:		scheme
 * @ops_layer:	true for the page-level filters, false for the core ones
 *
 * Return: true if memory that no filter of the layer matched is rejected.
 */
bool damos_filters_default_reject(struct damos *s, bool ops_layer)
{
	struct damos_filter *f, *last = NULL;
	bool has_ops = false;

	damos_for_each_filter(f, s) {
		if (damos_filter_for_ops(f->type)) {
			has_ops = true;
			if (ops_layer)
				last = f;
		} else if (!ops_layer) {
			last = f;
		}
	}
	if (!last || (!ops_layer && has_ops))
		return false;
	return last->allow;
}

/**
 * damos_set_filters_default_reject() - record the default verdicts
 * @s:	scheme whose filters were just committed
 *
 * The verdicts for memory no filter matched follow the filters a user
 * committed: a filter an operations set adds for its own use while it
 * applies an action (paddr's pageout adds a young filter) must not turn
 * them around.  Called when the filters are committed and when a kdamond
 * starts.
 */
void damos_set_filters_default_reject(struct damos *s)
{
	s->core_filters_default_reject = damos_filters_default_reject(s, false);
	s->ops_filters_default_reject = damos_filters_default_reject(s, true);
}

/**
 * damos_core_filters_verdict() - the core layer's verdict on a region
 * @s:		scheme being applied
 * @matched:	the first core filter that matched the region, or NULL
 *
 * Also records, for the operations set, whether a core filter allowed the
 * region: then its page-level filters are not consulted for it.
 *
 * Return: true if the region is filtered out.
 */
bool damos_core_filters_verdict(struct damos *s, struct damos_filter *matched)
{
	s->core_filters_allowed = matched && matched->allow;
	if (matched)
		return !matched->allow;
	return s->core_filters_default_reject;
}

/*
 * Does core filter @f match region @r of target @t?  1: all of it, 0: none
 * of it, -1: part of it (an address filter's boundary is inside @r).
 */
static int damos_core_filter_matches(struct damon_ctx *c,
				     struct damon_target *t,
				     struct damon_region *r,
				     struct damos_filter *f)
{
	unsigned long start, end;
	struct damon_target *ti;
	int idx = 0;
	bool in;

	if (f->type == DAMOS_FILTER_TYPE_TARGET) {
		damon_for_each_target(ti, c) {
			if (ti == t)
				break;
			idx++;
		}
		in = idx == f->target_idx;
	} else {
		start = ALIGN_DOWN(f->addr_range.start, DAMON_MIN_REGION);
		end = ALIGN_DOWN(f->addr_range.end, DAMON_MIN_REGION);
		if (start <= r->ar.start && r->ar.end <= end)
			in = true;
		else if (r->ar.end <= start || end <= r->ar.start)
			in = false;
		else
			return -1;
	}
	return in == f->matching;
}

/**
 * damos_core_filters_reject() - do the core filters reject a whole region
 * @c:	DAMON context
 * @t:	target of @r
 * @r:	region
 * @s:	scheme
 *
 * Like the core filter walk at apply time, but without splitting @r: a
 * region that an address filter's boundary cuts is not rejected.  The
 * quota's score histogram uses this so that a scheme kept to one part of
 * the address space by address or target filters is ranked only against
 * the regions it can act on.
 *
 * Return: true if no part of @r passes the core filters.
 */
bool damos_core_filters_reject(struct damon_ctx *c, struct damon_target *t,
			       struct damon_region *r, struct damos *s)
{
	struct damos_filter *f;
	int m;

	damos_for_each_filter(f, s) {
		if (damos_filter_for_ops(f->type))
			continue;
		m = damos_core_filter_matches(c, t, r, f);
		if (m < 0)
			return false;
		if (m)
			return !f->allow;
	}
	return s->core_filters_default_reject;
}

#include "tests/filter_allow-kunit.h"
