/* SPDX-License-Identifier: GPL-2.0 */
/*
 * May a kernel-initiated migration move a folio: what its users asked for
 * through memory policies, cpusets and mlock (mm/folio_placement.c).
 */
#ifndef _LINUX_FOLIO_PLACEMENT_H
#define _LINUX_FOLIO_PLACEMENT_H

#include <linux/page-flags.h>
#include <linux/types.h>

struct mempolicy;

/**
 * enum folio_placement - may a migration move a folio
 * @FOLIO_PLACEMENT_OK:		yes
 * @FOLIO_PLACEMENT_POLICY:	no: a memory policy of its users forbids
 * @FOLIO_PLACEMENT_CPUSET:	no: a cpuset of its users forbids
 * @FOLIO_PLACEMENT_MLOCK:	no: it is mlocked and would be demoted
 * @FOLIO_PLACEMENT_BUSY:	cannot tell now (locks busy): not this time
 */
enum folio_placement {
	FOLIO_PLACEMENT_OK,
	FOLIO_PLACEMENT_POLICY,
	FOLIO_PLACEMENT_CPUSET,
	FOLIO_PLACEMENT_MLOCK,
	FOLIO_PLACEMENT_BUSY,
};

/**
 * folio_placement_mlocked() - is a folio mlocked or otherwise unevictable
 * @folio:	the folio, with a reference held
 *
 * A demotion never moves an mlocked or unevictable (SHM_LOCK, ramfs)
 * folio.  Two flag tests, so that a caller can ask before anything that
 * costs an rmap walk.
 *
 * Return: true if @folio must not be demoted.
 */
static inline bool folio_placement_mlocked(struct folio *folio)
{
	return folio_test_mlocked(folio) || folio_test_unevictable(folio);
}

#ifdef CONFIG_FOLIO_PLACEMENT
bool folio_placement_mpol_allows(const struct mempolicy *pol, int nid);
enum folio_placement folio_placement_check(struct folio *folio, int nid,
					   bool demote);
#else
static inline enum folio_placement folio_placement_check(struct folio *folio,
							 int nid, bool demote)
{
	return FOLIO_PLACEMENT_OK;
}
#endif

#endif /* _LINUX_FOLIO_PLACEMENT_H */
