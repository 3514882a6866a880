// SPDX-License-Identifier: GPL-2.0
/*
 * DAMOS quota goal tuner "exchange": node memory goals in bytes, paced per
 * apply pass.
 *
 * Meant for tiering: a scheme with a node_mem_used_bp goal on node U fills
 * U (e.g. migrate_hot into U), one with a node_mem_free_bp goal on U frees
 * it (e.g. migrate_cold from U).  The exchange schemes of one context whose
 * goals are on the same node form U's group and are tuned together.
 *
 * The consist tuner multiplies a quota by (1 + shortfall) once per reset
 * interval: from its one-byte start it needs ~28 intervals to reach
 * 200 MiB, and close to the goals, with the node 99.5% full of cold data,
 * promotion (aiming at 99.7% used) and demotion (aiming at 0.5% free) are
 * both a few tenths of a percent short and creep at a few bytes per
 * interval, leaving the hot memory stranded below.  This tuner instead
 * turns the goals into bytes of U once per reset interval (a window):
 * the fill scheme may fill U up to its used goal (the room), the free
 * scheme may free it down to its free goal (the deficit), and while more
 * accessed memory waits below a full U than U has room for, both get an
 * exchange allowance on top: twice what the fill schemes moved in the last
 * window plus a probe (1/DAMOS_XCHG_PROBE_SHARE of the quota, at most
 * 1/DAMOS_XCHG_PROBE_NODE_SHARE of U).  It doubles per window while
 * promotion keeps up, and falls back to a probe when promotion finds
 * nothing to move.
 *
 * Within the window each apply pass is paced by U's free memory as it is
 * at that pass (damos_xchg_pass_bytes()): DAMOS migrations allocate
 * without reclaim, so filling can only use free memory above U's low
 * watermarks (the floor), and while exchanging the free scheme keeps a
 * lead of free memory above the floor for filling to use, freeing half of
 * it per pass.  The lead is DAMOS_XCHG_LEAD_PROBES probes, at most half
 * the accessed memory below (so that the exchange ends with little free
 * memory that nothing hot fills again) and at most twice what filling
 * moved lately.  The accessed memory below is read from the regions'
 * access rates, less what filling moved within the last aggregation
 * interval, which those rates still count (damos_xchg_hot_below()): at the
 * end of an exchange they would have the free scheme make room for hot
 * memory already promoted.
 * The quota is charged by the bytes tried, but only part of
 * them moves: a free pass that moved less than a quarter of what it tried
 * is repeated once from where it started (a young filter lets cold pages
 * go only at the second look), and passes that keep moving next to nothing
 * reach further, see damos_xchg_top_up().
 *
 * Pages freed by a migration go to the per-CPU lists of the CPU that freed
 * them, where U's free page count does not see them and allocations held
 * to U's watermarks cannot reach them for seconds; U's lists are drained
 * after each pass that moved memory and at each window start, so that the
 * utilization aimed at is the real one.
 */

#include <linux/damon.h>
#include <linux/gfp.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/nodemask.h>

#define DAMOS_XCHG_PROBE_SHARE		16
#define DAMOS_XCHG_PROBE_NODE_SHARE	256
#define DAMOS_XCHG_SEED_SHARE		4

/*
 * The most the free scheme leads by, in probes.  It frees at most half of
 * it per pass: a young filter lets cold pages go only at the second look,
 * so each half is looked at in one pass and freed in the next, while
 * filling uses the half freed before.
 */
#define DAMOS_XCHG_LEAD_PROBES		8

/* How many times a pass may reach twice as far as the last one. */
#define DAMOS_XCHG_MAX_STEP_SHIFT	2

/* The exchange probe for a node of @total bytes and a @quota bytes quota. */
static unsigned long damos_xchg_probe_bytes(unsigned long total,
					    unsigned long quota)
{
	return min(quota / DAMOS_XCHG_PROBE_SHARE,
		   total / DAMOS_XCHG_PROBE_NODE_SHARE);
}

static unsigned long damos_xchg_bp_of(unsigned long total, unsigned long bp)
{
	return mult_frac(total, bp, 10000);
}

/* @v doubled @shift times, or ULONG_MAX where that would overflow. */
static unsigned long damos_xchg_shl_sat(unsigned long v, unsigned int shift)
{
	return v > ULONG_MAX >> shift ? ULONG_MAX : v << shift;
}

static unsigned long damos_xchg_add_sat(unsigned long a, unsigned long b)
{
	return a > ULONG_MAX - b ? ULONG_MAX : a + b;
}

/**
 * damos_xchg_node_shift() - how far a node's byte counts are scaled down
 * @total_pages:	the node's memory, pages
 *
 * Quotas are unsigned long bytes.  A node of more bytes than that holds
 * (over 4 GiB on 32-bit) is seen scaled down by a power of two, its
 * utilization kept: room and deficit then come out smaller, so the tuner
 * moves less per window, never a wrong way.
 *
 * Return: the shift, 0 where the node's bytes fit, at most PAGE_SHIFT.
 */
static unsigned int damos_xchg_node_shift(unsigned long total_pages)
{
	unsigned int bits = fls_long(total_pages) + PAGE_SHIFT;

	return bits > BITS_PER_LONG ? bits - BITS_PER_LONG : 0;
}

/**
 * damos_xchg_node_bytes() - a page count of a node in (scaled) bytes
 * @pages:	pages, at most the node's total
 * @shift:	damos_xchg_node_shift() of the node's total
 *
 * Return: @pages in bytes, divided by 2^@shift.
 */
static unsigned long damos_xchg_node_bytes(unsigned long pages,
					   unsigned int shift)
{
	return pages << (PAGE_SHIFT - shift);
}

/**
 * damos_xchg_quota_bytes() - bytes a scheme may move in a new window
 * @fill:	true for the fill scheme, false for the free scheme
 * @u:		the goal node (@u->promoted: moved by filling in the last
 *		window)
 * @g:		the group's goals and the scheme's quota
 * @exchange:	if not NULL, set to the exchange part of the result
 *
 * While exchanging, the free scheme also makes up for free memory below
 * the floor: filling cannot start before that.
 *
 * Return: bytes, capped at the quota; 0 when the scheme should idle.
 */
unsigned long damos_xchg_quota_bytes(bool fill, const struct damos_xchg_node *u,
				     const struct damos_xchg_goals *g,
				     unsigned long *exchange)
{
	unsigned long quota = g->quota;
	unsigned long total = u->total, free = min(u->free, u->total);
	unsigned long used = total - free, usable, want_used, want_free;
	unsigned long room = 0, deficit = 0, probe, xchg = 0;

	want_used = damos_xchg_bp_of(total, g->used_bp);
	want_free = damos_xchg_bp_of(total, g->free_bp);
	usable = free > u->floor ? free - u->floor : 0;
	if (used < want_used)
		room = min(want_used - used, usable);
	probe = damos_xchg_probe_bytes(total, quota);

	/*
	 * A full node exchanges.  One with room too, as long as filling keeps
	 * moving: an exchange leaves its lead free, and without this every
	 * other window would only fill that and idle.
	 */
	if (u->hot_below > room && (room < probe || u->promoted)) {
		xchg = damos_xchg_shl_sat(min(u->promoted, quota), 1);
		xchg = min(u->hot_below - room,
			   damos_xchg_add_sat(xchg, probe));
		want_free = max(want_free, u->floor);
	}
	if (free < want_free)
		deficit = want_free - free;
	xchg = min(xchg, quota);
	if (exchange)
		*exchange = xchg;
	return min((fill ? room : deficit) + xchg, quota);
}

/* The free memory the free scheme keeps above the floor while exchanging. */
static unsigned long damos_xchg_lead_bytes(const struct damos_xchg_node *u,
					   const struct damos_xchg_goals *g)
{
	unsigned long probe = damos_xchg_probe_bytes(u->total, g->quota);
	unsigned long lead = min(DAMOS_XCHG_LEAD_PROBES * probe,
				 u->hot_below / 2);

	/*
	 * Accessed regions below may hold far less that filling can move (the
	 * tail of the hot set, or a few stray accesses once it is up), and
	 * room made for nothing stays empty: lead by at most twice what
	 * filling moved in this and the last window, and by a seed when it
	 * moved next to nothing.
	 */
	return min(lead, max(probe / DAMOS_XCHG_SEED_SHARE,
			     damos_xchg_shl_sat(u->promoted, 1)));
}

/**
 * damos_xchg_pass_bytes() - bytes a scheme may move in the next pass
 * @fill:	true for the fill scheme, false for the free scheme
 * @u:		the goal node now (@u->promoted: moved by filling in the last
 *		and in this window)
 * @g:		the group's goals and the scheme's quota
 * @exchange:	whether the group exchanges in this window
 *
 * Filling may use the free memory above the floor.  Freeing goes up to the
 * free goal and, while exchanging, up to a lead above the floor: at most
 * DAMOS_XCHG_LEAD_PROBES probes, half of the accessed memory below and
 * twice what filling moved lately, at least a quarter probe; half of that
 * lead per pass.
 *
 * Return: bytes, 0 when the scheme should wait.
 */
unsigned long damos_xchg_pass_bytes(bool fill, const struct damos_xchg_node *u,
				    const struct damos_xchg_goals *g,
				    bool exchange)
{
	unsigned long free = min(u->free, u->total), goal, lead, base;

	if (fill)
		return free > u->floor ? free - u->floor : 0;
	goal = damos_xchg_bp_of(u->total, g->free_bp);
	if (exchange) {
		lead = damos_xchg_lead_bytes(u, g);
		base = max(goal, u->floor);
		goal = max(goal, u->floor + lead);
		/* Half a lead per pass: see DAMOS_XCHG_LEAD_PROBES. */
		if (goal > free)
			return min(goal - free,
				   (base > free ? base - free : 0) + lead / 2);
	}
	return goal > free ? goal - free : 0;
}

/* The scheme's node memory goal, or NULL: the tuner needs one. */
static struct damos_quota_goal *damos_xchg_goal(struct damos *s)
{
	struct damos_quota *q = &s->quota;
	struct damos_quota_goal *g;

	damos_for_each_quota_goal(g, q) {
		if (g->metric == DAMOS_QUOTA_NODE_MEM_USED_BP ||
		    g->metric == DAMOS_QUOTA_NODE_MEM_FREE_BP)
			return g;
	}
	return NULL;
}

/**
 * damos_xchg_tunes() - is a scheme tuned by the exchange tuner
 * @s:	the scheme
 *
 * Return: true if @s selects it and has a node memory goal on a node with
 * memory; other schemes that select it are tuned like with "consist".
 */
bool damos_xchg_tunes(struct damos *s)
{
	struct damos_quota_goal *g;

	if (s->quota.goal_tuner != DAMOS_QUOTA_GOAL_TUNER_EXCHANGE)
		return false;
	g = damos_xchg_goal(s);
	return g && g->nid >= 0 && g->nid < MAX_NUMNODES &&
		node_state(g->nid, N_MEMORY);
}

static bool damos_xchg_fills(struct damos *s)
{
	return damos_xchg_goal(s)->metric == DAMOS_QUOTA_NODE_MEM_USED_BP;
}

/* Does @s belong to node @nid's group? */
static bool damos_xchg_in_group(struct damos *s, int nid)
{
	return damos_xchg_tunes(s) && damos_xchg_goal(s)->nid == nid;
}

static unsigned long damos_xchg_quota(struct damos *s)
{
	return s->quota.sz ? s->quota.sz : ULONG_MAX;
}

/**
 * damos_xchg_note_moved() - count bytes a fill scheme just moved
 * @x:		the scheme's tuner state
 * @moved:	bytes its last pass moved
 * @now:	the context's passed sample intervals
 * @window:	sample intervals per aggregation interval, at least 1
 *
 * Keeps what was moved in the current and in the last stretch of @window
 * sample intervals; see damos_xchg_recent().
 */
static void damos_xchg_note_moved(struct damos_quota_exchange *x,
				  unsigned long moved, unsigned long now,
				  unsigned long window)
{
	unsigned long passed = now - x->recent_start;

	if (passed >= 2 * window) {
		x->recent_last = 0;
		x->recent = 0;
		x->recent_start = now;
	} else if (passed >= window) {
		x->recent_last = x->recent;
		x->recent = 0;
		x->recent_start += window;
	}
	x->recent = damos_xchg_add_sat(x->recent, moved);
}

/**
 * damos_xchg_recent() - bytes moved too lately for the access rates to show
 * @x:		the fill scheme's tuner state
 * @now:	the context's passed sample intervals
 * @window:	sample intervals per aggregation interval, at least 1
 *
 * A region's access rate is a moving sum over the last aggregation
 * interval: once its hot pages are promoted, it goes on counting them for
 * up to that long, fading linearly.  What was moved in the current stretch
 * counts whole, what was moved in the one before counts by the part of it
 * still inside the last @window.
 *
 * Return: bytes the access rates of the scheme's regions still count.
 */
static unsigned long damos_xchg_recent(const struct damos_quota_exchange *x,
				       unsigned long now, unsigned long window)
{
	unsigned long passed = now - x->recent_start;

	if (passed >= 2 * window)
		return 0;
	if (passed >= window)
		return mult_frac(x->recent, 2 * window - passed, window);
	return damos_xchg_add_sat(x->recent,
				  mult_frac(x->recent_last, window - passed,
					    window));
}

static unsigned long damos_xchg_window(struct damon_ctx *c)
{
	return max(damon_max_nr_accesses(&c->attrs), 1U);
}

/*
 * Hot bytes that fill scheme @s could act on now: the bytes of its regions,
 * each weighted by its access frequency.  A region is sampled one page at a
 * time, so a region a tenth of whose pages are hot is seen accessed in
 * about a tenth of the samples: the weighted size estimates the hot memory
 * in it, however coarse the regions are.  Sets @sz to the regions' bytes,
 * unweighted.
 */
static unsigned long damos_xchg_eligible(struct damon_ctx *c, struct damos *s,
					 unsigned long *sz)
{
	struct damon_target *t;
	struct damon_region *r;
	unsigned long hot = 0;
	u64 max_bp;

	*sz = 0;
	if (!c->attrs.sample_interval)
		return 0;
	max_bp = damon_max_nr_accesses(&c->attrs) * 10000ULL;
	if (!max_bp)
		return 0;
	damon_for_each_target(t, c) {
		damon_for_each_region(r, t) {
			if (!damos_valid_target_region(r, s) ||
			    damos_core_filters_reject(c, t, r, s))
				continue;
			*sz += damon_sz_region(r);
			hot += div64_u64((u64)damon_sz_region(r) *
					 min_t(u64, r->nr_accesses_bp, max_bp),
					 max_bp);
		}
	}
	return hot;
}

/*
 * The hot bytes below for fill scheme @s: its eligible regions' weighted
 * bytes, less what it promoted too lately for their access rates to show.
 * Those pages left regions seen at their average access frequency, so they
 * are taken off at that frequency: all of them for a hot set seen at every
 * sample, a part for one whose accesses show rarely.
 */
static unsigned long damos_xchg_hot_below(struct damon_ctx *c, struct damos *s)
{
	unsigned long sz, hot = damos_xchg_eligible(c, s, &sz);
	unsigned long gone = damos_xchg_recent(&s->quota.xchg,
					       c->passed_sample_intervals,
					       damos_xchg_window(c));

	return sz > gone ? mult_frac(hot, sz - gone, sz) : 0;
}

/* The free pages that no allocation without reclaim takes from @nid. */
static unsigned long damos_xchg_floor_pages(int nid)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	unsigned long pages = 0;
	int z;

	for (z = 0; z < MAX_NR_ZONES; z++) {
		struct zone *zone = &pgdat->node_zones[z];

		if (populated_zone(zone))
			pages += low_wmark_pages(zone);
	}
	return pages;
}

/*
 * Read node @nid and its group's goals for scheme @s.  @current_window:
 * count what filling moved in this window too, not only in the last.
 */
static void damos_xchg_read(struct damon_ctx *c, struct damos *s, int nid,
			    bool current_window, struct damos_xchg_node *u,
			    struct damos_xchg_goals *g)
{
	struct damos_quota_goal *goal;
	struct damos *m;
	struct sysinfo i;
	unsigned int shift;
	bool fill;

	damos_node_meminfo(nid, &i);
	shift = damos_xchg_node_shift(i.totalram);
	u->total = damos_xchg_node_bytes(i.totalram, shift);
	u->free = damos_xchg_node_bytes(min(i.freeram, i.totalram), shift);
	u->floor = damos_xchg_node_bytes(min(damos_xchg_floor_pages(nid),
					     i.totalram), shift);
	u->hot_below = 0;
	u->promoted = 0;
	g->used_bp = 0;
	g->free_bp = 0;
	g->quota = damos_xchg_quota(s);
	damon_for_each_scheme(m, c) {
		if (!damos_xchg_in_group(m, nid))
			continue;
		goal = damos_xchg_goal(m);
		if (!damos_xchg_fills(m)) {
			if (!g->free_bp)
				g->free_bp = goal->target_value;
			continue;
		}
		if (!g->used_bp)
			g->used_bp = goal->target_value;
		u->hot_below += damos_xchg_hot_below(c, m);
		u->promoted += m->quota.xchg.moved_last;
		if (current_window)
			u->promoted += m->quota.xchg.moved;
	}
	/* For reporting: what the tuner works from. */
	goal = damos_xchg_goal(s);
	fill = goal->metric == DAMOS_QUOTA_NODE_MEM_USED_BP;
	goal->current_value = damos_node_mem_bp_of(i.totalram, i.freeram, fill);
}

/* Give back the pages on every CPU's lists of node @nid's zones. */
static void damos_xchg_drain(int nid)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	int z;

	for (z = 0; z < MAX_NR_ZONES; z++) {
		struct zone *zone = &pgdat->node_zones[z];

		if (populated_zone(zone))
			drain_all_pages(zone);
	}
}

static bool damos_xchg_due(struct damon_ctx *c, struct damos *s)
{
	return c->passed_sample_intervals >= s->next_apply_sis &&
		s->wmarks.activated && damos_xchg_tunes(s);
}

/*
 * Look at what scheme @s's last pass did: count what it moved, decide
 * whether a free pass looks again and how far the next pass reaches.
 * Returns whether the pass moved anything.
 */
static bool damos_xchg_review(struct damon_ctx *c, struct damos *s)
{
	struct damos_quota *q = &s->quota;
	struct damos_quota_exchange *x = &q->xchg;
	unsigned long applied = s->stat.sz_applied, tried, moved;
	bool again = false;

	/* A scheme replaced by a commit restarts from zero. */
	moved = applied >= x->last_applied ? applied - x->last_applied :
		applied;
	x->last_applied = applied;
	x->moved += moved;
	if (damos_xchg_fills(s))
		damos_xchg_note_moved(x, moved, c->passed_sample_intervals,
				      damos_xchg_window(c));
	tried = q->charged_sz > x->charged_seen ?
		q->charged_sz - x->charged_seen : 0;
	if (tried && moved < tried / 4) {
		if (!damos_xchg_fills(s))
			again = !x->second_look;
		/* Filling, or freeing that failed at the second look too. */
		if (!again && x->step_shift < DAMOS_XCHG_MAX_STEP_SHIFT)
			x->step_shift++;
	} else if (moved) {
		x->step_shift = 0;
	}
	x->second_look = again;
	if (!again) {
		x->pass_target = q->charge_target_from;
		x->pass_addr = q->charge_addr_from;
	}
	x->charged_seen = q->charged_sz;
	return moved != 0;
}

/* Start a new window for every scheme of node @nid's group. */
static void damos_xchg_new_window(struct damon_ctx *c, int nid)
{
	struct damos_xchg_node u;
	struct damos_xchg_goals g;
	struct damos_quota_exchange *x;
	struct damos *s;

	damon_for_each_scheme(s, c) {
		if (!damos_xchg_in_group(s, nid))
			continue;
		x = &s->quota.xchg;
		x->moved_last = x->started ? x->moved : 0;
		x->moved = 0;
	}
	damon_for_each_scheme(s, c) {
		if (!damos_xchg_in_group(s, nid))
			continue;
		x = &s->quota.xchg;
		damos_xchg_read(c, s, nid, false, &u, &g);
		x->want = damos_xchg_quota_bytes(damos_xchg_fills(s), &u, &g,
						 &x->xchg);
		if (!x->started)
			x->second_look = false;
		x->started = true;
		x->charged_seen = 0;
		s->quota.total_charged_sz += s->quota.charged_sz;
		s->quota.charged_sz = 0;
		s->quota.charged_from = jiffies;
		x->window_end = jiffies +
			msecs_to_jiffies(s->quota.reset_interval);
	}
}

/**
 * damos_xchg_before_pass() - prepare the exchange schemes due to apply
 * @c:	the context, before its schemes' quotas are adjusted for a pass
 *
 * Reviews the last pass of every exchange scheme due now, drains the goal
 * nodes where they moved memory, and starts a new window for a node's
 * group once the window of one of its schemes is over.
 */
void damos_xchg_before_pass(struct damon_ctx *c)
{
	nodemask_t drain = NODE_MASK_NONE, renew = NODE_MASK_NONE;
	struct damos *s;
	int nid;

	damon_for_each_scheme(s, c) {
		if (!damos_xchg_due(c, s))
			continue;
		nid = damos_xchg_goal(s)->nid;
		if (damos_xchg_review(c, s))
			node_set(nid, drain);
		if (!s->quota.xchg.started ||
		    time_after_eq(jiffies, s->quota.xchg.window_end)) {
			node_set(nid, renew);
			node_set(nid, drain);
		}
	}
	/* Once per node: the schemes of a group share it. */
	for_each_node_mask(nid, drain)
		damos_xchg_drain(nid);
	for_each_node_mask(nid, renew)
		damos_xchg_new_window(c, nid);
}

/*
 * Make scheme @s look again, in its next pass, at the memory its last pass
 * tried.  Returns false if it cannot.
 */
static bool damos_xchg_look_again(struct damon_ctx *c, struct damos *s)
{
	struct damos_quota_exchange *x = &s->quota.xchg;
	struct damon_target *t;
	bool found = !x->pass_target;

	/* Where the last pass started; its target must still be there. */
	damon_for_each_target(t, c)
		found |= t == x->pass_target;
	if (!found)
		return false;
	s->quota.charge_target_from = x->pass_target;
	s->quota.charge_addr_from = x->pass_addr;
	return true;
}

/**
 * damos_xchg_top_up() - set an exchange scheme's quota for this pass
 * @c:	the context
 * @s:	a scheme damos_xchg_tunes(), due to apply now
 *
 * Lets @s try, in this pass, about as many bytes as it may move in it
 * (damos_xchg_pass_bytes(), within what is left of its window).  A free
 * pass tries no more than that, except after a second look that moved less
 * than a quarter too: that memory cannot move (the kernel's own, say) or
 * is hot although DAMON sees it as cold, so the next pass reaches twice,
 * then four times as far, but only while the lead is whole (plenty of hot
 * memory below and filling keeping up), and never further than the lead:
 * at the tail of the exchange a pass reaching past hot memory into cold
 * freed room nothing refilled.  A fill pass that moved less than a quarter
 * (idle or unmovable memory in accessed regions) reaches further too, but
 * to at most twice what may move.  The whole window stays within the
 * quota's size.  Nothing to move leaves an effective quota of 0, which
 * binds.
 */
void damos_xchg_top_up(struct damon_ctx *c, struct damos *s)
{
	struct damos_quota *q = &s->quota;
	struct damos_quota_exchange *x = &q->xchg;
	int nid = damos_xchg_goal(s)->nid;
	unsigned long left = 0, step, quota, lead, full_lead = 0;
	bool fill = damos_xchg_fills(s);
	struct damos_xchg_node u;
	struct damos_xchg_goals g;

	if (x->second_look && !damos_xchg_look_again(c, s))
		x->second_look = false;
	if (x->want > x->moved) {
		damos_xchg_read(c, s, nid, true, &u, &g);
		lead = damos_xchg_lead_bytes(&u, &g);
		if (x->xchg && lead >= DAMOS_XCHG_LEAD_PROBES *
		    damos_xchg_probe_bytes(u.total, g.quota))
			full_lead = lead;
		left = min(x->want - x->moved,
			   damos_xchg_pass_bytes(fill, &u, &g, x->xchg != 0));
	}
	quota = damos_xchg_quota(s);
	quota = quota > q->charged_sz ? quota - q->charged_sz : 0;
	step = damos_xchg_shl_sat(left, x->step_shift);
	if (fill)
		step = min3(step, damos_xchg_shl_sat(left, 1), quota);
	else
		step = min3(step, max(left, full_lead), quota);
	/* Whole pages: DAMON splits regions where the quota ends. */
	q->esz = q->charged_sz + ALIGN_DOWN(step, PAGE_SIZE);
}

#include "tests/goal_tuner_exchange-kunit.h"
