// SPDX-License-Identifier: GPL-2.0
/*
 * DAMOS migrations in the kernel's promotion and demotion counters.
 *
 * migrate_hot and migrate_cold move folios between nodes for a reason of
 * their own (MR_DAMON), so until now they showed only in pgmigrate_success.
 * A folio that DAMOS moves to a node of a faster memory tier is counted in
 * pgpromote_damon of the node it lands on, where pgpromote_success counts
 * NUMA balancing's promotions; one moved to a slower tier in pgdemote_damon
 * of the node it leaves, beside reclaim's pgdemote_kswapd, pgdemote_direct
 * and pgdemote_khugepaged.  A move within one tier is neither.  The counts
 * are in pages, per node (/proc/vmstat, /sys/devices/system/node/nodeN/vmstat)
 * and per memory cgroup (memory.stat, memory.numa_stat), like the counters
 * they join; the mainline counters keep their meaning.
 */

#include <linux/memcontrol.h>
#include <linux/memory-tiers.h>

#include "../internal.h"

/**
 * damos_count_tier_move() - count a DAMOS migration that changed tiers
 * @src:	the folio that was migrated
 * @dst:	its copy, locked and charged to @src's memory cgroup
 *
 * Called by the migration core for every folio it moved for DAMOS.
 */
void damos_count_tier_move(struct folio *src, struct folio *dst)
{
	int from = folio_nid(src), to = folio_nid(dst);
	int cmp = node_tier_cmp(from, to);
	struct mem_cgroup *memcg = folio_memcg(dst);
	long nr = folio_nr_pages(dst);

	if (cmp < 0)
		mod_lruvec_state(mem_cgroup_lruvec(memcg, NODE_DATA(from)),
				 PGDEMOTE_DAMON, nr);
	else if (cmp > 0)
		mod_lruvec_state(mem_cgroup_lruvec(memcg, NODE_DATA(to)),
				 PGPROMOTE_DAMON, nr);
}
