/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tier-weighted MPOL_INTERLEAVE: interface between mm/tier_interleave.c,
 * mm/mempolicy.c (allocation paths) and mm/memory-tiers.c (tier layout).
 * Both users are built only with CONFIG_NUMA.
 */
#ifndef _MM_TIER_INTERLEAVE_H
#define _MM_TIER_INTERLEAVE_H

#include <linux/device.h>
#include <linux/nodemask.h>
#include <linux/types.h>

struct mempolicy;

#define TIER_IL_WEIGHT_MIN	1
#define TIER_IL_WEIGHT_MAX	100
/* Bandwidth-derived weights are scaled to this before their reduction. */
#define IL_AUTO_WEIGHTINESS	32

extern bool tier_il_weighted;
extern u8 tier_il_node_weight[MAX_NUMNODES];
extern struct device_attribute dev_attr_interleave_weight;
extern const struct attribute_group *tier_interleave_root_groups[];

/**
 * tier_interleave_active() - are tier weights other than 1 in effect?
 *
 * With every weight 1, MPOL_INTERLEAVE takes the unmodified round-robin
 * paths, so placement and cost are those of the base kernel.
 *
 * Return: true when some node has a tier weight above 1.
 */
static inline bool tier_interleave_active(void)
{
	return READ_ONCE(tier_il_weighted);
}

unsigned int tier_il_nid(const nodemask_t *nodes, pgoff_t ilx,
			 const u8 *weights);
unsigned int tier_il_next(const nodemask_t *nodes, short *prev, u8 *left,
			  const u8 *weights);
int tier_il_parse_pair(const char *buf, unsigned int *top, unsigned int *low);

unsigned int tier_interleave_nid(const nodemask_t *nodes, pgoff_t ilx);
unsigned int tier_interleave_nodes(struct mempolicy *pol);
unsigned int tier_interleave_peek(struct mempolicy *pol);
void tier_interleave_copy_weights(u8 *weights);
void tier_interleave_set_node_tier(int nid, int tier_id);
void tier_interleave_set_node_bw(int nid, unsigned int bw);
void interleave_weights_from_bw(const unsigned int *bw, u8 *weights,
				unsigned int n);
int tier_interleave_set_tier_weight(int tier_id, unsigned int weight);
int tier_interleave_node_tier(int nid);

#endif /* _MM_TIER_INTERLEAVE_H */
