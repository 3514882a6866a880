// SPDX-License-Identifier: GPL-2.0
/*
 * Which mechanism promotes hot memory to the top memory tier.
 *
 * DAMON_TIER, klruscand (through kpromoted) and NUMA balancing's memory
 * tiering mode (kernel.numa_balancing with bit 2 set) each pick hot pages
 * of the lower tiers by their own measure and move them up.  Two at once
 * would spend twice the scanning for the same pages, and compete for the
 * same free memory of the top tier with different ideas of what is hot.
 * So at most one runs:
 *
 * - DAMON_TIER and klruscand claim the top tier when they are enabled;
 *   the second one is refused with -EBUSY and a message naming the first.
 * - Writing kernel.numa_balancing never fails, as in mainline: while its
 *   tiering mode is on, enabling either is refused the same way, and one
 *   that was enabled before stops promoting (it logs that once) until the
 *   mode is turned off again.  DAMON_TIER keeps demoting.
 *
 * DAMOS schemes set up through DAMON sysfs (damo) are not arbitrated: an
 * administrator who writes them chooses what they do.
 */

#define pr_fmt(fmt) "tier_promoter: " fmt

#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include <linux/sched/sysctl.h>
#include <linux/tier_promoter.h>

static const char * const tier_promoter_names[NR_TIER_PROMOTERS] = {
	[TIER_PROMOTER_DAMON_TIER] = "damon_tier",
	[TIER_PROMOTER_KLRUSCAND] = "klruscand",
};

/*
 * tier_promoter_lock serialises claims and releases, the only writers of
 * tier_promoter_owner, which tier_promoter_may_promote() reads without it.
 * tier_promoter_yielded has a bit per promoter, set and cleared with
 * atomic bit operations by whoever asks for that promoter.
 */
static DEFINE_MUTEX(tier_promoter_lock);
static int tier_promoter_owner = -1;
static unsigned long tier_promoter_yielded;

static bool numa_balancing_promotes(void)
{
	return sysctl_numa_balancing_mode & NUMA_BALANCING_MEMORY_TIERING;
}

/**
 * tier_promoter_claim() - become the one promoter of the top tier
 * @who:	the promoter being enabled
 *
 * Context: process context, may sleep.
 * Return: 0 if @who may run (also if it already holds the claim); -EBUSY,
 * with a message saying why, while NUMA balancing's memory tiering mode
 * is on or the other promoter is enabled.
 */
int tier_promoter_claim(enum tier_promoter who)
{
	int err = 0;

	mutex_lock(&tier_promoter_lock);
	if (tier_promoter_owner == who)
		goto out;
	err = -EBUSY;
	if (numa_balancing_promotes()) {
		pr_warn_ratelimited("%s not enabled: NUMA balancing's memory tiering mode (kernel.numa_balancing) promotes\n",
				    tier_promoter_names[who]);
		goto out;
	}
	if (tier_promoter_owner >= 0) {
		pr_warn_ratelimited("%s not enabled: %s promotes\n",
				    tier_promoter_names[who],
				    tier_promoter_names[tier_promoter_owner]);
		goto out;
	}
	WRITE_ONCE(tier_promoter_owner, who);
	clear_bit(who, &tier_promoter_yielded);
	err = 0;
out:
	mutex_unlock(&tier_promoter_lock);
	return err;
}

/**
 * tier_promoter_release() - give up the claim of tier_promoter_claim()
 * @who:	the promoter being disabled
 *
 * Does nothing if @who does not hold the claim.
 *
 * Context: process context, may sleep.
 */
void tier_promoter_release(enum tier_promoter who)
{
	mutex_lock(&tier_promoter_lock);
	if (tier_promoter_owner == who)
		WRITE_ONCE(tier_promoter_owner, -1);
	mutex_unlock(&tier_promoter_lock);
}

/**
 * tier_promoter_may_promote() - whether the claimed promoter may promote now
 * @who:	the promoter holding the claim
 *
 * False while NUMA balancing's memory tiering mode is on: it was turned on
 * after @who claimed the top tier.  While @who holds the claim, the first
 * false after a true is logged, and the first true after a false.
 *
 * Context: any; lockless.
 * Return: true if @who may promote.
 */
bool tier_promoter_may_promote(enum tier_promoter who)
{
	bool owner = READ_ONCE(tier_promoter_owner) == who;

	if (!numa_balancing_promotes()) {
		if (test_and_clear_bit(who, &tier_promoter_yielded) && owner)
			pr_info("%s promotes again: NUMA balancing's memory tiering mode is off\n",
				tier_promoter_names[who]);
		return true;
	}
	if (!test_and_set_bit(who, &tier_promoter_yielded) && owner)
		pr_warn("%s stops promoting: NUMA balancing's memory tiering mode (kernel.numa_balancing) promotes\n",
			tier_promoter_names[who]);
	return false;
}
