#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""DAMON sysfs: node_memcg_{used,free}_bp quota goals and goals/N/path.

A task in a cgroup of its own places 64 MiB on node0 and 16 MiB on
node1.  A paddr kdamond then carries goals on that cgroup and on the root,
and "update_schemes_quota_goals" reads back what the kernel measured:

  - read at once after "on", every goal is 0 or a bp value (a goal the
    kdamond has not measured yet showed leftover heap memory before);
  - node_memcg_used_bp on node0 is the cgroup's 64 MiB (plus the task's
    few other pages) in basis points of node0, node_memcg_free_bp the
    rest; on node1 the 16 MiB;
  - a node without memory reads 0 used and 10000 free, as in mainline;
  - the root cgroup's share of node0 is at least the cgroup's;
  - after the cgroup is emptied and removed, a committed goal on it reads
    0 / 10000;
  - a commit naming a path no cgroup has fails with an error and leaves
    the kdamond running its old goals.

Input: the metric names are accepted and read back, path takes any text
(resolved at commit), and "on" with a path that names no cgroup fails
and leaves the kdamond off.
"""
import errno
import os
import subprocess
import sys
import time

import tiering_util

WORKLOAD = os.path.join(os.environ.get("BUILD", ""), "kselftest/tiering/tier_workload")
CG_ROOT = "/sys/fs/cgroup"
CG_NAME = "damon_memcg_goal"
CG = CG_ROOT + "/" + CG_NAME
KD = "/sys/kernel/mm/damon/admin/kdamonds"
SCHEMES = KD + "/0/contexts/0/schemes"

expect = tiering_util.expect
read = tiering_util.read_file
write = tiering_util.write_file
must = tiering_util.must_write


def join_cgroup():
    """In a child before exec: move it to the test's cgroup."""
    with open(CG + "/cgroup.procs", "w") as f:
        f.write(str(os.getpid()))


def setup(goals):
    """One paddr kdamond over node0, one stat scheme with @goals, each
    (metric, nid, path)."""
    must(KD + "/nr_kdamonds", "1")
    ctx = KD + "/0/contexts"
    must(ctx + "/nr_contexts", "1")
    must(ctx + "/0/operations", "paddr")
    must(ctx + "/0/targets/nr_targets", "1")
    lo, hi = tiering_util.node_range(0)
    regions = ctx + "/0/targets/0/regions"
    must(regions + "/nr_regions", "1")
    must(regions + "/0/start", str(lo))
    must(regions + "/0/end", str(hi))
    must(SCHEMES + "/nr_schemes", "1")
    s = SCHEMES + "/0"
    must(s + "/action", "stat")
    must(s + "/quotas/reset_interval_ms", "100")
    must(s + "/quotas/bytes", str(1 << 20))
    must(s + "/quotas/goals/nr_goals", str(len(goals)))
    for i, (metric, nid, path) in enumerate(goals):
        g = "%s/quotas/goals/%d" % (s, i)
        must(g + "/target_metric", metric)
        must(g + "/target_value", "5000")
        must(g + "/nid", str(nid))
        must(g + "/path", path)


def measured(n):
    tiering_util.state_command(KD + "/0", "update_schemes_quota_goals")
    return [int(read("%s/0/quotas/goals/%d/current_value" % (SCHEMES, i)))
            for i in range(n)]


def bp(kb, nid):
    return kb * 10000 // tiering_util.node_mem(nid)[0]


def test_input():
    must(KD + "/nr_kdamonds", "1")
    must(KD + "/0/contexts/nr_contexts", "1")
    must(SCHEMES + "/nr_schemes", "1")
    must(SCHEMES + "/0/quotas/goals/nr_goals", "1")
    g = SCHEMES + "/0/quotas/goals/0"
    for metric in ("node_memcg_used_bp", "node_memcg_free_bp"):
        expect(write(g + "/target_metric", metric) == 0 and
               read(g + "/target_metric") == metric, "target_metric takes " + metric)
    expect(write(g + "/target_metric", "node_memcg_bp") == errno.EINVAL and
           read(g + "/target_metric") == "node_memcg_free_bp",
           "target_metric refuses node_memcg_bp, unchanged")
    expect(read(g + "/path") == "", "path is empty before a write")
    expect(write(g + "/path", "/no/such/cgroup") == 0 and
           read(g + "/path") == "/no/such/cgroup", "path takes any text until commit")
    must(KD + "/nr_kdamonds", "0")

    setup([("node_memcg_used_bp", 0, "/no/such/cgroup")])
    err = tiering_util.state_write(KD + "/0", "on")
    expect(err != 0 and read(KD + "/0/state") == "off",
           "on with a path naming no cgroup fails (%s), kdamond off" % errno.errorcode.get(err))
    must(KD + "/nr_kdamonds", "0")


def test_measure(procs):
    cg = "/" + CG_NAME
    goals = [("node_memcg_used_bp", 0, cg), ("node_memcg_free_bp", 0, cg),
             ("node_memcg_used_bp", 1, cg), ("node_memcg_used_bp", 5, cg),
             ("node_memcg_free_bp", 5, cg), ("node_memcg_used_bp", 0, "/")]
    setup(goals)
    tiering_util.state_command(KD + "/0", "on")
    try:
        # Read at once, before the kdamond may have measured anything: a
        # goal not measured yet reads 0, not what its memory held before.
        v = measured(len(goals))
        expect(all(0 <= x <= 10000 for x in v),
               "current_value right after 'on' is 0 or a measured bp value: %s" % v)
        # memcg statistics are flushed every 2 s, by a worker TCG can delay.
        want0, want1 = bp(64 << 10, 0), bp(16 << 10, 1)
        v = tiering_util.poll(lambda: measured(len(goals)),
                              lambda v: v[0] >= want0 and v[2] >= want1, 20, 0.5)
        print("measured %s; the buffers alone are %d and %d bp" % (v, want0, want1))
        # Beyond the buffers: the task's stack, libc, page tables are not
        # on the LRU; a few hundred KiB of file and anonymous pages are.
        expect(want0 <= v[0] <= want0 + bp(2 << 10, 0),
               "node0 used by the cgroup: %d bp for 64 MiB (%d)" % (v[0], want0))
        expect(abs(v[0] + v[1] - 10000) <= 2, "node0 free = the rest: %d" % v[1])
        expect(want1 <= v[2] <= want1 + bp(2 << 10, 1),
               "node1 used by the cgroup: %d bp for 16 MiB (%d)" % (v[2], want1))
        expect(v[3:5] == [0, 10000], "a node without memory: 0 used, 10000 free")
        expect(v[5] >= v[0], "the root cgroup holds at least the cgroup's share")

        # The cgroup goes away under the committed goals.
        for p in procs:
            p.terminate()
            p.communicate(timeout=60)
        for _ in range(20):
            try:
                os.rmdir(CG)
                break
            except OSError:
                time.sleep(0.5)
        expect(not os.path.exists(CG), "cgroup removed")
        v = tiering_util.poll(lambda: measured(len(goals)),
                              lambda v: v[:2] == [0, 10000], 20, 0.5)
        expect(v[:2] == [0, 10000], "a cgroup that is gone reads 0 used, 10000 free: %s"
               % v[:2])
        # A path no cgroup has: the commit fails, the kdamond runs on with
        # the goals it had (6.12 stopped it and reported success).
        must("%s/0/quotas/goals/1/path" % SCHEMES, "/no/such/cgroup")
        err = tiering_util.state_write(KD + "/0", "commit_schemes_quota_goals")
        expect(err == errno.EINVAL and read(KD + "/0/state") == "on",
               "commit_schemes_quota_goals naming no cgroup fails with EINVAL (%s), "
               "still on" % errno.errorcode.get(err))
        err = tiering_util.state_write(KD + "/0", "commit")
        expect(err != 0 and read(KD + "/0/state") == "on",
               "commit naming it fails too (%s), still on" % errno.errorcode.get(err))
        time.sleep(1)
        expect(measured(len(goals))[:3] == v[:3], "the old goals still run: %s" % (
            measured(len(goals)),))
        must("%s/0/quotas/goals/0/path" % SCHEMES, "/")
        must("%s/0/quotas/goals/1/path" % SCHEMES, "/")
        must("%s/0/quotas/goals/2/path" % SCHEMES, "/")
        must("%s/0/quotas/goals/3/path" % SCHEMES, "/")
        must("%s/0/quotas/goals/4/path" % SCHEMES, "/")
        expect(tiering_util.state_write(KD + "/0", "commit") == 0, "commit naming the root works")
        v = tiering_util.poll(lambda: measured(len(goals)),
                              lambda v: v[0] > 0 and abs(v[0] - v[5]) <= 50, 20, 0.5)
        expect(v[0] > 0 and abs(v[0] - v[5]) <= 50,
               "goal 0 now measures the root: %d (root %d)" % (v[0], v[5]))
    finally:
        tiering_util.damon_sysfs_release()


def main():
    if read(KD + "/nr_kdamonds") != "0":
        print("FAIL: DAMON sysfs is in use")
        return 1
    if not os.path.exists(CG_ROOT + "/cgroup.controllers"):
        subprocess.run(["mount", "-t", "cgroup2", "none", CG_ROOT], check=True)
    must(CG_ROOT + "/cgroup.subtree_control", "+memory")
    os.makedirs(CG, exist_ok=True)
    test_input()
    # Two buffers in the cgroup: 64 MiB on node0 and 16 MiB on node1.
    procs = [subprocess.Popen([WORKLOAD, "cold", mb, nid], stdout=subprocess.PIPE,
                              text=True, preexec_fn=join_cgroup)
             for mb, nid in (("64", "0"), ("16", "1"))]
    try:
        lines = [p.stdout.readline().strip() for p in procs]
        expect(lines == ["ready", "ready"], "both buffers placed: %s" % lines)
        test_measure(procs)
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
                p.communicate(timeout=60)
        if os.path.exists(CG):
            os.rmdir(CG)
    print("%d failures" % tiering_util.failures)
    return 1 if tiering_util.failures else 0


if __name__ == "__main__":
    sys.exit(main())
