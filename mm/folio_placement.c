// SPDX-License-Identifier: GPL-2.0
/*
 * Migrations the kernel starts on its own (DAMOS migrate_hot/migrate_cold,
 * kpromoted) pick folios by how they are accessed alone.  Before one moves
 * a folio to its target node, it asks here whether that keeps the
 * placement the folio's users asked for, the way the kernel's own
 * migrations do (NUMA balancing leaves interleaved memory alone and keeps
 * bound memory inside its nodemask; reclaim never demotes mlocked memory):
 *
 * - a folio in an mlocked VMA, or mlocked or unevictable itself, is never
 *   demoted;
 * - for each VMA that maps it (reverse map) the memory policy that placed
 *   it: the VMA's own, the shared policy of a shmem/tmpfs file, or else
 *   the policy of the task that owns the mm.  MPOL_BIND allows only nodes
 *   of its nodemask; both interleaves leave the folio where the policy put
 *   it; the rest (MPOL_DEFAULT, MPOL_LOCAL, and MPOL_PREFERRED and
 *   MPOL_PREFERRED_MANY alike: a preference says where to allocate first,
 *   and falls back anywhere itself) allow any node;
 * - the cpuset of the task that owns each mapping mm: the target must be
 *   in its mems_allowed.
 *
 * Which task's policy and cpuset apply to an mm is known only as the task
 * the memory cgroup charges it to (mm->owner): with CONFIG_MEMCG that
 * task's, and not its other threads', are checked; without it only VMA and
 * shared policies and mlock are, since an mm has no way back to its tasks
 * that a migration could afford to walk.  Page cache that no process maps
 * belongs to no task and migrates as before; a shmem/tmpfs folio that
 * nothing maps still follows its file's shared policy.
 *
 * The walk stops at the first mapping that forbids the move.
 */

#include <linux/folio_placement.h>
#include <linux/mempolicy.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/rmap.h>
#include <linux/sched/task.h>
#include <linux/shmem_fs.h>

/**
 * folio_placement_mpol_allows() - may a folio placed by a memory policy move
 * @pol:	the policy, or NULL for the default one
 * @nid:	the node it would move to
 *
 * Return: true if @pol lets its folios live on @nid.
 */
bool folio_placement_mpol_allows(const struct mempolicy *pol, int nid)
{
	if (!pol)
		return true;
	switch (pol->mode) {
	case MPOL_BIND:
		return node_isset(nid, pol->nodes);
	case MPOL_INTERLEAVE:
	case MPOL_WEIGHTED_INTERLEAVE:
		return false;
	default:
		return true;
	}
}

struct folio_placement_walk {
	int nid;
	bool demote;
	enum folio_placement verdict;
};

/* The task-level checks of a mapping: its owner's policy and cpuset. */
static enum folio_placement folio_placement_owner(struct mm_struct *mm,
						  int nid, bool vma_policy)
{
	enum folio_placement v = FOLIO_PLACEMENT_OK;
#ifdef CONFIG_MEMCG
	struct task_struct *owner;

	rcu_read_lock();
	owner = rcu_dereference(mm->owner);
	if (owner) {
		/* task_lock() guards both ->mempolicy and ->mems_allowed. */
		task_lock(owner);
		if (!vma_policy && !folio_placement_mpol_allows(owner->mempolicy, nid))
			v = FOLIO_PLACEMENT_POLICY;
#ifdef CONFIG_CPUSETS
		else if (!node_isset(nid, owner->mems_allowed))
			v = FOLIO_PLACEMENT_CPUSET;
#endif
		task_unlock(owner);
	}
	rcu_read_unlock();
#endif
	return v;
}

static bool folio_placement_one(struct folio *folio,
				struct vm_area_struct *vma, unsigned long addr,
				void *arg)
{
	struct folio_placement_walk *w = arg;
	struct mm_struct *mm = vma->vm_mm;
	bool has_policy = false;
	struct mempolicy *pol;
	pgoff_t ilx;

	if (w->demote && (vma->vm_flags & VM_LOCKED)) {
		w->verdict = FOLIO_PLACEMENT_MLOCK;
		return false;
	}
	if (vma->vm_ops && vma->vm_ops->get_policy) {
		/* A shared policy comes with its own reference. */
		pol = vma->vm_ops->get_policy(vma, addr, &ilx);
		has_policy = !!pol;
		if (!folio_placement_mpol_allows(pol, w->nid))
			w->verdict = FOLIO_PLACEMENT_POLICY;
		mpol_cond_put(pol);
	} else if (READ_ONCE(vma->vm_policy)) {
		/*
		 * mbind() replaces and frees a VMA's policy under the mmap
		 * lock; if it is busy, leave the folio for a later pass.
		 */
		if (!mmap_read_trylock(mm)) {
			w->verdict = FOLIO_PLACEMENT_BUSY;
			return false;
		}
		pol = vma->vm_policy;
		has_policy = !!pol;
		if (!folio_placement_mpol_allows(pol, w->nid))
			w->verdict = FOLIO_PLACEMENT_POLICY;
		mmap_read_unlock(mm);
	}
	if (w->verdict == FOLIO_PLACEMENT_OK)
		w->verdict = folio_placement_owner(mm, w->nid, has_policy);
	return w->verdict == FOLIO_PLACEMENT_OK;
}

/* The shared policy of an unmapped shmem/tmpfs folio's file. */
static enum folio_placement folio_placement_shmem(struct folio *folio,
						  int nid)
{
	struct address_space *mapping = folio_mapping(folio);
	enum folio_placement v = FOLIO_PLACEMENT_OK;
	struct mempolicy *pol;

	if (!mapping || !shmem_mapping(mapping))
		return v;
	pol = mpol_shared_policy_lookup(&SHMEM_I(mapping->host)->policy,
					folio->index);
	if (!folio_placement_mpol_allows(pol, nid))
		v = FOLIO_PLACEMENT_POLICY;
	mpol_cond_put(pol);
	return v;
}

/**
 * folio_placement_check() - may a migration move a folio
 * @folio:	the folio, with a reference held
 * @nid:	the node it would move to
 * @demote:	whether the move is a demotion
 *
 * Return: FOLIO_PLACEMENT_OK, or why the folio must stay where it is;
 * FOLIO_PLACEMENT_BUSY if that could not be told now.
 */
enum folio_placement folio_placement_check(struct folio *folio, int nid,
					   bool demote)
{
	struct folio_placement_walk w = {
		.nid = nid,
		.demote = demote,
		.verdict = FOLIO_PLACEMENT_OK,
	};
	struct rmap_walk_control rwc = {
		.arg = &w,
		.rmap_one = folio_placement_one,
		.anon_lock = folio_lock_anon_vma_read,
	};
	bool need_lock;

	if (demote && folio_placement_mlocked(folio))
		return FOLIO_PLACEMENT_MLOCK;
	/* The folio lock keeps a file folio's mapping alive for the walk. */
	need_lock = !folio_test_anon(folio) || folio_test_ksm(folio);
	if (need_lock && !folio_trylock(folio))
		return FOLIO_PLACEMENT_BUSY;
	if (folio_mapped(folio))
		rmap_walk(folio, &rwc);
	else if (!folio_test_anon(folio))
		w.verdict = folio_placement_shmem(folio, nid);
	if (need_lock)
		folio_unlock(folio);
	return w.verdict;
}
