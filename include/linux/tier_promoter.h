/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One promoter at a time: DAMON_TIER, klruscand (with kpromoted) and NUMA
 * balancing's memory tiering mode all move hot memory to the top tier
 * (mm/tier_promoter.c).
 */
#ifndef _LINUX_TIER_PROMOTER_H
#define _LINUX_TIER_PROMOTER_H

#include <linux/types.h>

/**
 * enum tier_promoter - the promoters that claim the top tier
 * @TIER_PROMOTER_DAMON_TIER:	the DAMON_TIER module (mm/damon/tier.c)
 * @TIER_PROMOTER_KLRUSCAND:	klruscand, with kpromoted (mm/klruscand.c)
 * @NR_TIER_PROMOTERS:		the number of them
 */
enum tier_promoter {
	TIER_PROMOTER_DAMON_TIER,
	TIER_PROMOTER_KLRUSCAND,
	NR_TIER_PROMOTERS,
};

#ifdef CONFIG_NUMA
int tier_promoter_claim(enum tier_promoter who);
void tier_promoter_release(enum tier_promoter who);
bool tier_promoter_may_promote(enum tier_promoter who);
#else
static inline int tier_promoter_claim(enum tier_promoter who)
{
	return 0;
}

static inline void tier_promoter_release(enum tier_promoter who)
{
}

static inline bool tier_promoter_may_promote(enum tier_promoter who)
{
	return true;
}
#endif

#endif /* _LINUX_TIER_PROMOTER_H */
