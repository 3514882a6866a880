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
 * DAMON core, page-level ones (anon, memcg, young) by the operations set.
 * Core only rejects unmatched memory when no page-level filter follows, so
 * that the page-level filters still see it.
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

#include "tests/filter_allow-kunit.h"
