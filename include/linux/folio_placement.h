/* SPDX-License-Identifier: GPL-2.0 */
/*
 * May a kernel-initiated migration move a folio: what its users asked for
 * through memory policies, cpusets and mlock (mm/folio_placement.c).
 */
#ifndef _LINUX_FOLIO_PLACEMENT_H
#define _LINUX_FOLIO_PLACEMENT_H

#include <linux/types.h>

struct folio;
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
