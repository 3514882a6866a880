// SPDX-License-Identifier: GPL-2.0
/*
 * Tier-weighted MPOL_INTERLEAVE.
 *
 * Each memory tier has an interleave weight (1..100, default 1), set in
 * /sys/devices/virtual/memory_tiering/memory_tierN/interleave_weight or, for
 * the common two-tier case, with the sysctl vm.numa_tier_interleave = "TOP
 * LOW".  Under MPOL_INTERLEAVE a node of the policy's nodemask then receives
 * as many consecutive pages as the weight of its tier before the next node
 * is used, for the offset-based (VMA, shmem, hugetlb) and the process-based
 * (il_prev/il_weight) paths alike.  The sequence is the one
 * MPOL_WEIGHTED_INTERLEAVE produces from per-node weights; here the per-node
 * weights are derived from the tiers, so they follow a node that changes
 * tier and stay meaningful for any subset of nodes.
 *
 * A weight belongs to the tier id (an abstract-distance chunk) and lives for
 * the whole boot: a tier destroyed when its last node goes offline gets its
 * weight back when it is re-created.  Tiers that were never given a weight
 * start with the LOW value of the last sysctl write (1 before any).
 *
 * /sys/devices/virtual/memory_tiering/interleave_auto (default 0) lets the
 * kernel set the weights instead: while it is 1, every tier with nodes gets
 * the weight that MPOL_WEIGHTED_INTERLEAVE's auto mode would give a node of
 * the tier's mean bandwidth (interleave_weights_from_bw()), recomputed when
 * a node joins or leaves a tier and when a node's bandwidth is reported.
 * Writing a tier's weight or the sysctl turns it back to 0.
 *
 * Allocators read only tier_il_node_weight[] and tier_il_weighted, without
 * locks: each entry is one byte and always a valid weight, so a concurrent
 * update can at worst make one allocation use a mix of old and new weights.
 */

#include <linux/gcd.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/mempolicy.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/cpuset.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysctl.h>
#include <linux/xarray.h>

#include "tier_interleave.h"

/*
 * tier_il_lock serializes writers of everything below: weight updates from
 * sysfs and sysctl, node/tier changes reported by mm/memory-tiers.c (which
 * calls in with memory_tier_lock held) and bandwidth reported by
 * mempolicy_set_node_perf() (with iw_table_lock held).  So the order is
 * memory_tier_lock or iw_table_lock -> tier_il_lock; this file takes no
 * other lock under it.
 */
static DEFINE_MUTEX(tier_il_lock);
/* Weight per tier id, as xa_mk_value(); only tiers given one explicitly. */
static DEFINE_XARRAY(tier_il_weights);
/* Weight of a tier id not in tier_il_weights. */
static unsigned int tier_il_default_weight = TIER_IL_WEIGHT_MIN;
/* Memory tier id of each node, -1 for a node in no tier. */
static int tier_il_node_tier[MAX_NUMNODES] = {
	[0 ... MAX_NUMNODES - 1] = -1
};

/* interleave_auto: tiers' weights follow their bandwidths. */
static bool tier_il_auto;
/* min(read, write) bandwidth of each node as reported, 0 if unknown. */
static unsigned int tier_il_node_bw[MAX_NUMNODES];

/* Read locklessly by the allocators; written under tier_il_lock. */
u8 tier_il_node_weight[MAX_NUMNODES] __read_mostly = {
	[0 ... MAX_NUMNODES - 1] = TIER_IL_WEIGHT_MIN
};

bool tier_il_weighted __read_mostly;

/**
 * tier_il_nid() - node of interleave index @ilx under per-node @weights
 * @nodes: nodemask of the policy (a stable copy)
 * @ilx: interleave index
 * @weights: weight of each node, each at least 1
 *
 * Walks @nodes in order, each node covering as many consecutive indexes as
 * its weight, and wraps around after sum(weights): every window of that
 * many consecutive indexes gives each node exactly its weight.  With all
 * weights 1 this is the round robin of the base kernel's interleave_nid().
 *
 * Return: the node, or NUMA_NO_NODE if @nodes is empty.
 */
unsigned int tier_il_nid(const nodemask_t *nodes, pgoff_t ilx,
			 const u8 *weights)
{
	unsigned int total = 0, target, w;
	int nid;

	for_each_node_mask(nid, *nodes)
		total += max_t(u8, READ_ONCE(weights[nid]), 1);
	if (!total)
		return NUMA_NO_NODE;

	target = ilx % total;
	nid = first_node(*nodes);
	/* Terminates even if weights change meanwhile: each step takes >= 1. */
	while (target >= (w = max_t(u8, READ_ONCE(weights[nid]), 1))) {
		target -= w;
		nid = next_node_in(nid, *nodes);
	}
	return nid;
}

/**
 * tier_il_next() - next node of a process-based weighted interleave
 * @nodes: nodemask of the policy
 * @prev: node of the run in progress (task->il_prev)
 * @left: pages left in that run (task->il_weight)
 * @weights: weight of each node, each at least 1
 *
 * Stays on @prev while its run lasts, then moves to the next node of
 * @nodes and starts a run of that node's weight: the order of
 * tier_il_nid() and of weighted_interleave_nodes().  A @prev outside @nodes
 * (a cpuset rebind, or state inherited across fork) ends its run, so a node
 * no longer allowed is never returned.  A run longer than its node's
 * current weight (the weight was lowered) is cut to that weight.
 *
 * Return: the node, or MAX_NUMNODES if @nodes is empty (state untouched).
 */
unsigned int tier_il_next(const nodemask_t *nodes, short *prev, u8 *left,
			  const u8 *weights)
{
	int nid = *prev;
	u8 w;

	if (nid < 0 || nid >= MAX_NUMNODES)
		nid = MAX_NUMNODES - 1;
	if (!*left || !node_isset(nid, *nodes)) {
		nid = next_node_in(nid, *nodes);
		if (nid >= MAX_NUMNODES)
			return MAX_NUMNODES;
		*prev = nid;
		*left = max_t(u8, READ_ONCE(weights[nid]), 1);
	} else {
		w = max_t(u8, READ_ONCE(weights[nid]), 1);
		if (*left > w)
			*left = w;
	}
	(*left)--;
	return nid;
}

/**
 * tier_interleave_nid() - offset-based tier-weighted interleave
 * @nodes: stable copy of the policy's nodemask, not empty
 * @ilx: interleave index
 *
 * Return: the node for @ilx under the current tier weights.
 */
unsigned int tier_interleave_nid(const nodemask_t *nodes, pgoff_t ilx)
{
	return tier_il_nid(nodes, ilx, tier_il_node_weight);
}

/**
 * tier_interleave_nodes() - process-based tier-weighted interleave
 * @pol: the task's MPOL_INTERLEAVE policy
 *
 * Advances current->il_prev/il_weight.  Retries when a cpuset rebind
 * changed the nodemask meanwhile, as interleave_nodes() does.
 *
 * Return: the node to allocate from, or MAX_NUMNODES for an empty mask.
 */
unsigned int tier_interleave_nodes(struct mempolicy *pol)
{
	unsigned int cookie, nid;
	short prev;
	u8 left;

	do {
		cookie = read_mems_allowed_begin();
		prev = current->il_prev;
		left = current->il_weight;
		nid = tier_il_next(&pol->nodes, &prev, &left,
				   tier_il_node_weight);
	} while (read_mems_allowed_retry(cookie));

	if (nid < MAX_NUMNODES) {
		current->il_prev = prev;
		current->il_weight = left;
	}
	return nid;
}

/**
 * tier_interleave_peek() - node the next process-based allocation will use
 * @pol: the task's MPOL_INTERLEAVE policy
 *
 * For get_mempolicy(MPOL_F_NODE): like tier_interleave_nodes() but
 * leaves the task's state alone.
 *
 * Return: the node, or MAX_NUMNODES for an empty mask.
 */
unsigned int tier_interleave_peek(struct mempolicy *pol)
{
	short prev = current->il_prev;
	u8 left = current->il_weight;

	return tier_il_next(&pol->nodes, &prev, &left, tier_il_node_weight);
}

/**
 * tier_interleave_copy_weights() - snapshot of the per-node weights
 * @weights: array of nr_node_ids bytes to fill
 *
 * Lets the bulk allocator's weighted-interleave path run on tier weights.
 */
void tier_interleave_copy_weights(u8 *weights)
{
	int nid;

	for (nid = 0; nid < nr_node_ids; nid++)
		weights[nid] = READ_ONCE(tier_il_node_weight[nid]);
}

/**
 * interleave_weights_from_bw() - interleave weights from bandwidths
 * @bw: bandwidth of each of @n entries (any one unit), 0 if unknown
 * @weights: weight of each entry (output), 1..IL_AUTO_WEIGHTINESS
 * @n: number of entries
 *
 * The reduction of mainline's weighted-interleave auto mode: an entry gets
 * floor(IL_AUTO_WEIGHTINESS * bw / sum of all bw), at least 1 (an entry
 * without bandwidth data too), and then every weight is divided by their
 * greatest common divisor, so that 2:1 rather than 20:10 is used.  Shared
 * by the per-node weights of MPOL_WEIGHTED_INTERLEAVE and the tier weights
 * of MPOL_INTERLEAVE, so both agree on one machine.
 */
void interleave_weights_from_bw(const unsigned int *bw, u8 *weights,
				unsigned int n)
{
	unsigned long div = 0;
	u64 sum = 0, scaled;
	unsigned int i;

	for (i = 0; i < n; i++)
		sum += bw[i];
	for (i = 0; i < n; i++) {
		scaled = (u64)IL_AUTO_WEIGHTINESS * bw[i];
		weights[i] = bw[i] && scaled > sum ? div64_u64(scaled, sum) : 1;
		div = gcd(div, weights[i]);
	}
	for (i = 0; i < n && div > 1; i++)
		weights[i] /= div;
}

static unsigned int tier_weight_locked(int tier_id)
{
	void *entry = xa_load(&tier_il_weights, tier_id);

	lockdep_assert_held(&tier_il_lock);
	return entry ? xa_to_value(entry) : tier_il_default_weight;
}

/* Recompute the allocators' per-node view after any change. */
static void tier_il_publish_locked(void)
{
	bool weighted = false;
	unsigned int w;
	int nid;

	lockdep_assert_held(&tier_il_lock);
	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		w = TIER_IL_WEIGHT_MIN;
		if (tier_il_node_tier[nid] >= 0)
			w = tier_weight_locked(tier_il_node_tier[nid]);
		WRITE_ONCE(tier_il_node_weight[nid], w);
		if (w != TIER_IL_WEIGHT_MIN)
			weighted = true;
	}
	WRITE_ONCE(tier_il_weighted, weighted);
}

static int tier_set_weight_locked(int tier_id, unsigned int weight)
{
	lockdep_assert_held(&tier_il_lock);
	return xa_err(xa_store(&tier_il_weights, tier_id, xa_mk_value(weight),
			       GFP_KERNEL));
}

/*
 * Give every tier with nodes its bandwidth-derived weight: the reduction of
 * the tiers' mean node bandwidths.  Entries are reserved first, so that a
 * failed allocation changes nothing.
 */
static int tier_il_auto_apply_locked(void)
{
	unsigned int *bw, *nbw, n = 0, i;
	int nid, id, *ids, err = 0;
	u64 *sum;
	u8 *w;

	lockdep_assert_held(&tier_il_lock);
	ids = kcalloc(nr_node_ids, sizeof(*ids), GFP_KERNEL);
	bw = kcalloc(nr_node_ids, sizeof(*bw), GFP_KERNEL);
	sum = kcalloc(nr_node_ids, sizeof(*sum), GFP_KERNEL);
	nbw = kcalloc(nr_node_ids, sizeof(*nbw), GFP_KERNEL);
	w = kcalloc(nr_node_ids, sizeof(*w), GFP_KERNEL);
	if (!ids || !bw || !sum || !nbw || !w) {
		err = -ENOMEM;
		goto out;
	}
	/* The tiers with nodes, with the sum and count of known bandwidths. */
	for (nid = 0; nid < nr_node_ids; nid++) {
		id = tier_il_node_tier[nid];
		if (id < 0)
			continue;
		for (i = 0; i < n && ids[i] != id; i++)
			;
		if (i == n) {
			ids[n++] = id;
			err = xa_reserve(&tier_il_weights, id, GFP_KERNEL);
			if (err)
				goto out;
		}
		if (tier_il_node_bw[nid]) {
			sum[i] += tier_il_node_bw[nid];
			nbw[i]++;
		}
	}
	for (i = 0; i < n; i++)
		if (nbw[i])
			bw[i] = div_u64(sum[i], nbw[i]);
	interleave_weights_from_bw(bw, w, n);
	for (i = 0; i < n; i++)
		tier_set_weight_locked(ids[i], min_t(unsigned int, w[i],
						     TIER_IL_WEIGHT_MAX));
	tier_il_publish_locked();
out:
	kfree(w);
	kfree(nbw);
	kfree(sum);
	kfree(bw);
	kfree(ids);
	return err;
}

/**
 * tier_interleave_set_node_tier() - record the memory tier of a node
 * @nid: node id
 * @tier_id: id of the node's memory tier, or -1 when it left its tier
 *
 * Called by mm/memory-tiers.c with memory_tier_lock held whenever a node
 * joins or leaves a tier; the node takes the weight of its new tier.
 */
void tier_interleave_set_node_tier(int nid, int tier_id)
{
	if (WARN_ON_ONCE(nid < 0 || nid >= MAX_NUMNODES))
		return;
	mutex_lock(&tier_il_lock);
	tier_il_node_tier[nid] = tier_id;
	if (!tier_il_auto || tier_il_auto_apply_locked())
		tier_il_publish_locked();
	mutex_unlock(&tier_il_lock);
}

/**
 * tier_interleave_set_node_bw() - record the bandwidth of a node
 * @nid: node id
 * @bw: min(read, write) bandwidth from the node's CPU access coordinates
 *
 * Called by mempolicy_set_node_perf() whenever firmware (HMAT) or a driver
 * (CXL) reports a node's performance; with interleave_auto set the tier
 * weights follow at once.
 */
void tier_interleave_set_node_bw(int nid, unsigned int bw)
{
	if (WARN_ON_ONCE(nid < 0 || nid >= MAX_NUMNODES))
		return;
	mutex_lock(&tier_il_lock);
	tier_il_node_bw[nid] = bw;
	if (tier_il_auto)
		tier_il_auto_apply_locked();
	mutex_unlock(&tier_il_lock);
}

/**
 * tier_interleave_node_tier() - memory tier id of a node
 * @nid: node id
 *
 * Return: the id of @nid's memory tier, -1 if it is in none or out of
 * range.
 */
int tier_interleave_node_tier(int nid)
{
	int id;

	if (nid < 0 || nid >= MAX_NUMNODES)
		return -1;
	mutex_lock(&tier_il_lock);
	id = tier_il_node_tier[nid];
	mutex_unlock(&tier_il_lock);
	return id;
}

/**
 * tier_interleave_set_tier_weight() - set the interleave weight of a tier
 * @tier_id: memory tier id (need not have nodes now)
 * @weight: TIER_IL_WEIGHT_MIN..TIER_IL_WEIGHT_MAX
 *
 * The weight is kept for the rest of the boot, also while the tier has no
 * node, and every node of the tier takes it at once.  Turns interleave_auto
 * off: the administrator's weight is not overwritten later.
 *
 * Return: 0, -EINVAL for a weight out of range, -ENOMEM.  On error nothing
 * changes.
 */
int tier_interleave_set_tier_weight(int tier_id, unsigned int weight)
{
	int err;

	if (tier_id < 0 || weight < TIER_IL_WEIGHT_MIN ||
	    weight > TIER_IL_WEIGHT_MAX)
		return -EINVAL;
	mutex_lock(&tier_il_lock);
	err = tier_set_weight_locked(tier_id, weight);
	if (!err) {
		WRITE_ONCE(tier_il_auto, false);
		tier_il_publish_locked();
	}
	mutex_unlock(&tier_il_lock);
	return err;
}

/* Ids of the highest tier and of the one right below it, -1 if none. */
static void tier_il_top_two_locked(int *top, int *second)
{
	int nid, id;

	*top = -1;
	*second = -1;
	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		id = tier_il_node_tier[nid];
		if (id < 0 || id == *top || id == *second)
			continue;
		/* Tier ids grow with abstract distance: smaller is faster. */
		if (*top < 0 || id < *top) {
			*second = *top;
			*top = id;
		} else if (*second < 0 || id < *second) {
			*second = id;
		}
	}
}

/* Id of the highest tier, -1 if none. */
static int tier_il_top_locked(void)
{
	int top, second;

	tier_il_top_two_locked(&top, &second);
	return top;
}

static ssize_t interleave_weight_show(struct device *dev,
				      struct device_attribute *attr, char *buf)
{
	unsigned int w;

	mutex_lock(&tier_il_lock);
	w = tier_weight_locked(dev->id);
	mutex_unlock(&tier_il_lock);
	return sysfs_emit(buf, "%u\n", w);
}

static ssize_t interleave_weight_store(struct device *dev,
				       struct device_attribute *attr,
				       const char *buf, size_t count)
{
	unsigned int w;
	int err;

	if (kstrtouint(buf, 10, &w))
		return -EINVAL;
	err = tier_interleave_set_tier_weight(dev->id, w);
	return err ? err : count;
}
DEVICE_ATTR_RW(interleave_weight);

static ssize_t interleave_auto_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(tier_il_auto));
}

static ssize_t interleave_auto_store(struct device *dev,
				     struct device_attribute *attr,
				     const char *buf, size_t count)
{
	unsigned int val;
	int nid, err = 0;

	if (kstrtouint(buf, 10, &val) || val > 1)
		return -EINVAL;
	mutex_lock(&tier_il_lock);
	if (!val) {
		WRITE_ONCE(tier_il_auto, false);
		goto out;
	}
	/* As weighted_interleave/auto: nothing to follow without data. */
	for (nid = 0; nid < nr_node_ids; nid++)
		if (tier_il_node_tier[nid] >= 0 && tier_il_node_bw[nid])
			break;
	if (nid == nr_node_ids) {
		err = -ENODEV;
		goto out;
	}
	err = tier_il_auto_apply_locked();
	if (!err)
		WRITE_ONCE(tier_il_auto, true);
out:
	mutex_unlock(&tier_il_lock);
	return err ? err : count;
}
static DEVICE_ATTR_RW(interleave_auto);

static struct attribute *tier_il_root_attrs[] = {
	&dev_attr_interleave_auto.attr,
	NULL
};

static const struct attribute_group tier_il_root_group = {
	.attrs = tier_il_root_attrs,
};

/* Attributes of /sys/devices/virtual/memory_tiering itself. */
const struct attribute_group *tier_interleave_root_groups[] = {
	&tier_il_root_group,
	NULL
};

/**
 * tier_il_parse_pair() - parse the "TOP LOW" value of the sysctl
 * @buf: NUL-terminated input
 * @top: weight of the top tier (output)
 * @low: weight of every lower tier (output)
 *
 * Exactly two decimal integers in 1..100, separated and optionally
 * surrounded by white space.
 *
 * Return: 0, or -EINVAL for anything else (outputs then untouched).
 */
int tier_il_parse_pair(const char *buf, unsigned int *top, unsigned int *low)
{
	unsigned int val[2];
	char tok[16];
	int n = 0;
	size_t len;

	for (;;) {
		buf = skip_spaces(buf);
		if (!*buf)
			break;
		len = strcspn(buf, " \t\n\r\v\f");
		if (n == 2 || len >= sizeof(tok))
			return -EINVAL;
		memcpy(tok, buf, len);
		tok[len] = '\0';
		if (kstrtouint(tok, 10, &val[n]) ||
		    val[n] < TIER_IL_WEIGHT_MIN || val[n] > TIER_IL_WEIGHT_MAX)
			return -EINVAL;
		n++;
		buf += len;
	}
	if (n != 2)
		return -EINVAL;
	*top = val[0];
	*low = val[1];
	return 0;
}

static int tier_il_sysctl_write(const char *buf)
{
	unsigned int top_w, low_w;
	int top, nid, id, err = 0;

	err = tier_il_parse_pair(buf, &top_w, &low_w);
	if (err)
		return err;

	mutex_lock(&tier_il_lock);
	top = tier_il_top_locked();
	/* Allocate every entry first so that a failure changes nothing. */
	for (nid = 0; nid < MAX_NUMNODES && !err; nid++) {
		id = tier_il_node_tier[nid];
		if (id >= 0)
			err = xa_reserve(&tier_il_weights, id, GFP_KERNEL);
	}
	if (!err) {
		for (nid = 0; nid < MAX_NUMNODES; nid++) {
			id = tier_il_node_tier[nid];
			if (id >= 0)
				tier_set_weight_locked(id, id == top ? top_w : low_w);
		}
		tier_il_default_weight = low_w;
		WRITE_ONCE(tier_il_auto, false);
		tier_il_publish_locked();
	}
	mutex_unlock(&tier_il_lock);
	return err;
}

static int tier_il_sysctl_handler(const struct ctl_table *table, int write,
				  void *buffer, size_t *lenp, loff_t *ppos)
{
	struct ctl_table tmp = *table;
	char kbuf[32];
	int top, second, err;
	unsigned int top_w, low_w;

	if (write) {
		/* One complete value per write(); no partial updates. */
		if (*ppos || !*lenp || *lenp >= sizeof(kbuf))
			return -EINVAL;
		memcpy(kbuf, buffer, *lenp);
		kbuf[*lenp] = '\0';
		err = tier_il_sysctl_write(kbuf);
		if (err)
			return err;
		*ppos += *lenp;
		return 0;
	}

	mutex_lock(&tier_il_lock);
	tier_il_top_two_locked(&top, &second);
	top_w = top >= 0 ? tier_weight_locked(top) : tier_il_default_weight;
	low_w = second >= 0 ? tier_weight_locked(second) : tier_il_default_weight;
	mutex_unlock(&tier_il_lock);

	snprintf(kbuf, sizeof(kbuf), "%u %u", top_w, low_w);
	tmp.data = kbuf;
	tmp.maxlen = sizeof(kbuf);
	return proc_dostring(&tmp, 0, buffer, lenp, ppos);
}

static struct ctl_table tier_il_sysctls[] = {
	{
		.procname	= "numa_tier_interleave",
		.mode		= 0644,
		.proc_handler	= tier_il_sysctl_handler,
	},
};

static int __init tier_interleave_init(void)
{
	register_sysctl_init("vm", tier_il_sysctls);
	return 0;
}
subsys_initcall(tier_interleave_init);
