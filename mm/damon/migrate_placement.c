// SPDX-License-Identifier: GPL-2.0
/*
 * DAMOS migrations that keep the placement the folios' owners asked for.
 *
 * migrate_hot and migrate_cold on physical addresses pick folios by their
 * access pattern alone.  A scheme that opts in (respect_placement, off by
 * default, so that existing DAMOS users see no change) asks
 * folio_placement_check() before it moves a folio its access pattern and
 * filters chose, and counts what it left alone, and why, in its stats.
 */

#include <linux/damon.h>
#include <linux/folio_placement.h>
#include <linux/mempolicy.h>

/**
 * damos_migrate_allowed() - may scheme @s migrate @folio, counting if not
 * @s:		a migrate_hot or migrate_cold scheme
 * @folio:	a folio @s chose, with a reference held
 *
 * Return: true if @folio may move to @s->target_nid.
 */
bool damos_migrate_allowed(struct damos *s, struct folio *folio)
{
	if (!s->respect_placement)
		return true;
	switch (folio_placement_check(folio, s->target_nid,
				      s->action == DAMOS_MIGRATE_COLD)) {
	case FOLIO_PLACEMENT_OK:
		return true;
	case FOLIO_PLACEMENT_POLICY:
		s->stat.sz_skipped_policy += folio_size(folio);
		break;
	case FOLIO_PLACEMENT_CPUSET:
		s->stat.sz_skipped_cpuset += folio_size(folio);
		break;
	case FOLIO_PLACEMENT_MLOCK:
		s->stat.sz_skipped_mlock += folio_size(folio);
		break;
	default:
		break;
	}
	return false;
}

/**
 * damos_migrate_mlocked() - does mlock keep @folio out of scheme @s, counting
 * @s:		a migrate_hot or migrate_cold scheme
 * @folio:	a folio in a region @s was applied to, with a reference held
 *
 * A demotion that respects placement leaves mlocked and unevictable folios
 * in place whatever its filters would say of them.  This is the cheap part
 * of damos_migrate_allowed(), asked before the filters, so that a
 * migrate_cold scheme looking across mlocked memory costs no young-filter
 * rmap walk per folio; the folio counts in sz_skipped_mlock before the
 * filters are asked.
 *
 * Return: true if @s must leave @folio where it is.
 */
bool damos_migrate_mlocked(struct damos *s, struct folio *folio)
{
	if (!s->respect_placement || s->action != DAMOS_MIGRATE_COLD ||
	    !folio_placement_mlocked(folio))
		return false;
	s->stat.sz_skipped_mlock += folio_size(folio);
	return true;
}

#include "tests/migrate_placement-kunit.h"
