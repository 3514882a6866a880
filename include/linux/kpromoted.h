/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kpromoted: promotes folios of lower memory tiers that sources of access
 * information (klruscand's page-table walks; hint faults or hardware
 * samples later) report as accessed repeatedly (mm/kpromoted.c).
 */
#ifndef _LINUX_KPROMOTED_H
#define _LINUX_KPROMOTED_H

#include <linux/memory-tiers.h>
#include <linux/sched/sysctl.h>

/**
 * enum kpromoted_src - where a reported access was seen
 * @KPROMOTED_SRC_PGTSCAN:	a page-table walk found the accessed bit set
 * @KPROMOTED_SRC_HWHINT:	a hardware access sample
 */
enum kpromoted_src {
	KPROMOTED_SRC_PGTSCAN,
	KPROMOTED_SRC_HWHINT,
};

#ifdef CONFIG_KPROMOTED
void kpromoted_record_access(unsigned long pfn, int nid,
			     enum kpromoted_src src);
int kpromoted_get(void);
void kpromoted_put(void);
void kpromoted_kick(void);
bool kpromoted_active(void);
bool kpromoted_wants_room(int nid);
void kpromoted_room_made(int nid);
#else
static inline void kpromoted_record_access(unsigned long pfn, int nid,
					   enum kpromoted_src src)
{
}

static inline bool kpromoted_active(void)
{
	return false;
}

static inline bool kpromoted_wants_room(int nid)
{
	return false;
}

static inline void kpromoted_room_made(int nid)
{
}
#endif

/**
 * kswapd_keeps_promo_room() - whether kswapd balances a node to the promo
 * watermark
 * @nid:	the node kswapd balances
 *
 * NUMA balancing in memory tiering mode and kpromoted promote only into
 * free memory above a node's high watermark and wake kswapd when there is
 * none.  In NUMA balancing's tiering mode kswapd balances every node up to
 * the promo watermark, so that a woken kswapd makes that room instead of
 * finding the node balanced.  For kpromoted it does so only for a node
 * where a promotion found too little free memory, until kswapd got there
 * (kpromoted_room_made()), and only while demotion is enabled, so that
 * the room is made mostly by demoting rather than by reclaim.
 *
 * Return: true while promotions need kswapd to make room on @nid.
 */
static inline bool kswapd_keeps_promo_room(int nid)
{
	return (sysctl_numa_balancing_mode & NUMA_BALANCING_MEMORY_TIERING) ||
	       (numa_demotion_enabled && kpromoted_wants_room(nid));
}

#endif /* _LINUX_KPROMOTED_H */
