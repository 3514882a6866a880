/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kpromoted: promotes folios of lower memory tiers that sources of access
 * information (klruscand's page-table walks; hint faults or hardware
 * samples later) report as accessed repeatedly (mm/kpromoted.c).
 */
#ifndef _LINUX_KPROMOTED_H
#define _LINUX_KPROMOTED_H

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
#else
static inline void kpromoted_record_access(unsigned long pfn, int nid,
					   enum kpromoted_src src)
{
}
#endif

#endif /* _LINUX_KPROMOTED_H */
