#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""DAMON sysfs: node_mem_{used,free}_bp quota goals, goals/N/nid and the
filters/N/allow file.

Checks input validation (bad values fail with EINVAL and change nothing)
and that the metrics really steer the quota: a goal far from being met
grows the effective quota and an over-achieved one shrinks it to the
minimum.  A node without memory reads as unused (0 used, 10000 free), and
"update_schemes_quota_goals" shows the values the kernel measured.
"""
import errno
import os
import sys

import tiering_util

ADMIN = "/sys/kernel/mm/damon/admin"
KD = ADMIN + "/kdamonds"


write = tiering_util.write_file
read = tiering_util.read_file
expect = tiering_util.expect
must = tiering_util.must_write
node_range = tiering_util.node_range


def setup_kdamond(goals):
    """One paddr kdamond over node0 with one migrate_cold scheme per goal."""
    must(KD + "/nr_kdamonds", "1")
    ctx = KD + "/0/contexts"
    must(ctx + "/nr_contexts", "1")
    must(ctx + "/0/operations", "paddr")
    must(ctx + "/0/targets/nr_targets", "1")
    lo, hi = node_range(0)
    regions = ctx + "/0/targets/0/regions"
    must(regions + "/nr_regions", "1")
    must(regions + "/0/start", str(lo))
    must(regions + "/0/end", str(hi))
    attrs = ctx + "/0/monitoring_attrs/intervals"
    must(attrs + "/sample_us", "5000")
    must(attrs + "/aggr_us", "100000")
    schemes = ctx + "/0/schemes"
    must(schemes + "/nr_schemes", str(len(goals)))
    for i, (metric, target, nid) in enumerate(goals):
        s = "%s/%d" % (schemes, i)
        must(s + "/action", "stat")
        for k, v in (("sz/max", str(2**63)), ("nr_accesses/max", "4294967295"),
                     ("age/max", "4294967295")):
            must(s + "/access_pattern/" + k, v)
        must(s + "/quotas/reset_interval_ms", "100")
        must(s + "/quotas/bytes", str(64 << 20))
        must(s + "/quotas/goals/nr_goals", "1")
        g = s + "/quotas/goals/0"
        must(g + "/target_metric", metric)
        must(g + "/target_value", str(target))
        must(g + "/nid", str(nid))
    return schemes


def test_validation():
    must(KD + "/nr_kdamonds", "1")
    ctx = KD + "/0/contexts"
    must(ctx + "/nr_contexts", "1")
    s = ctx + "/0/schemes"
    must(s + "/nr_schemes", "1")
    must(s + "/0/quotas/goals/nr_goals", "1")
    g = s + "/0/quotas/goals/0"
    for metric in ("node_mem_used_bp", "node_mem_free_bp"):
        expect(write(g + "/target_metric", metric) == 0, "target_metric accepts " + metric)
        expect(read(g + "/target_metric") == metric, "target_metric reads back " + metric)
    for bad in ("node_mem_bp", "\n", "node_mem_used_bp_x"):
        expect(write(g + "/target_metric", bad) == errno.EINVAL, "target_metric rejects %r" % bad)
        expect(read(g + "/target_metric") == "node_mem_free_bp", "target_metric unchanged")
    expect(os.path.isfile(g + "/nid"), "goal has a nid file")
    # Any int, as in mainline: a node that cannot be measured reads as
    # unused (test_quota_steering).
    for val in ("-1", "64", "4096", "0x10", "1"):
        expect(write(g + "/nid", val) == 0 and read(g + "/nid") == str(int(val, 0)),
               "nid accepts %r" % val)
    for bad in ("abc", "\n", "99999999999", "1.5"):
        err = write(g + "/nid", bad)
        expect(err in (errno.EINVAL, errno.ERANGE), "nid rejects %r (%s)" % (bad, err))
        expect(read(g + "/nid") == "1", "nid unchanged after %r" % bad)

    must(s + "/0/filters/nr_filters", "1")
    f = s + "/0/filters/0"
    expect(os.path.isfile(f + "/allow"), "filter has an allow file")
    expect(read(f + "/allow") == "N", "allow defaults to N")
    expect(write(f + "/allow", "Y") == 0 and read(f + "/allow") == "Y", "allow accepts Y")
    expect(write(f + "/allow", "maybe") == errno.EINVAL, "allow rejects 'maybe'")
    expect(read(f + "/allow") == "Y", "allow unchanged")
    must(f + "/allow", "N")
    must(s + "/0/filters/nr_filters", "0")
    must(KD + "/nr_kdamonds", "0")


def effective_bytes(schemes, n):
    tiering_util.state_command(KD + "/0", "update_schemes_effective_quotas")
    return [int(read("%s/%d/quotas/effective_bytes" % (schemes, i))) for i in range(n)]


def wait_grown(schemes, n, grow):
    """effective_bytes once the quotas of schemes @grow reach 1 MiB, or
    after 30 s.  Each grows once per quota window, and a window ends only
    when the schemes are applied, once per aggregation here."""
    return tiering_util.poll(lambda: effective_bytes(schemes, n),
                             lambda esz: all(esz[i] >= (1 << 20) for i in grow), 30, 0.5)


def current_values(schemes, n):
    tiering_util.state_command(KD + "/0", "update_schemes_quota_goals")
    return [int(read("%s/%d/quotas/goals/0/current_value" % (schemes, i)))
            for i in range(n)]


def test_quota_steering():
    # node0 is far from 99.7% used and far above 0.5% free in this test.
    # Node 7 has no memory: it reads as unused, 0 used and 10000 free,
    # the values of mainline.
    goals = [("node_mem_used_bp", 9970, 0),     # unmet: quota grows
             ("node_mem_free_bp", 50, 0),       # over-achieved: minimum
             ("node_mem_used_bp", 9970, 7),     # reads 0: unmet, grows
             ("node_mem_free_bp", 9999, 7),     # reads 10000: minimum
             ("node_mem_used_bp", 500, 0),      # over-achieved: minimum
             ("node_mem_used_bp", 9970, -1),    # no such node: as node 7
             ("node_mem_free_bp", 9999, 4096)]
    schemes = setup_kdamond(goals)
    tiering_util.state_command(KD + "/0", "on")
    try:
        expect(read(KD + "/0/state") == "on", "kdamond with node_mem goals runs")
        esz = wait_grown(schemes, len(goals), (0, 2, 5))
        cur = current_values(schemes, len(goals))
        print("current_value:", cur)
        expect(0 < cur[0] < 9970, "node0 used %d bp, in 1..9969" % cur[0])
        expect(50 < cur[1] < 10000, "node0 free %d bp, in 51..9999" % cur[1])
        expect(abs(cur[0] + cur[1] - 10000) <= 50, "node0 used + free is the node")
        expect(cur[2] == 0, "memoryless node: used reads 0 (%d)" % cur[2])
        expect(cur[3] == 10000, "memoryless node: free reads 10000 (%d)" % cur[3])
        expect(cur[5] == 0 and cur[6] == 10000,
               "nid -1 and 4096: used reads 0, free 10000 (%d, %d)" % (cur[5], cur[6]))
        print("effective_bytes:", esz)
        # The tuner starts at one byte; an unmet goal grows it ~2x per
        # interval, a met one keeps it at the minimum.
        expect(esz[0] >= (1 << 20), "unmet node_mem_used_bp goal grew the quota")
        expect(esz[1] <= (64 << 10), "met node_mem_free_bp goal keeps the quota minimal")
        expect(esz[2] >= (1 << 20), "used goal on a memoryless node grew the quota")
        expect(esz[3] <= (64 << 10), "free goal on a memoryless node keeps the quota minimal")
        expect(esz[4] <= (64 << 10), "node0 above 5%% used (%d bp) keeps the quota minimal"
               % cur[4])
        expect(esz[5] >= (1 << 20) and esz[6] <= (64 << 10),
               "goals on nid -1 and 4096 act as on a memoryless node (%d, %d)"
               % (esz[5], esz[6]))
        expect(read(KD + "/0/state") == "on", "kdamond still running")
        # Committing a new nid while running takes effect: node1, nearly
        # empty here, is far below 5% used.
        used1 = current_values(schemes, len(goals))[4]
        must(schemes + "/4/quotas/goals/0/nid", "1")
        tiering_util.state_command(KD + "/0", "commit")
        esz = wait_grown(schemes, len(goals), (4,))
        cur = current_values(schemes, len(goals))
        print("after commit: current_value", cur, "effective_bytes", esz)
        expect(cur[4] < 250 and cur[4] != used1,
               "committed nid 1: used reads node1's %d bp (node0: %d)" % (cur[4], used1))
        expect(esz[4] >= (1 << 20), "committed nid 1 makes the fifth goal grow")
        expect(esz[1] <= (64 << 10), "the met goal stayed minimal")
    finally:
        tiering_util.damon_sysfs_release()


def main():
    if not os.path.isdir(ADMIN):
        print("no DAMON sysfs")
        return 1
    if read(KD + "/nr_kdamonds") != "0":
        print("DAMON sysfs is in use")
        return 1
    test_validation()
    test_quota_steering()
    print("%d failures" % tiering_util.failures)
    return 1 if tiering_util.failures else 0


if __name__ == "__main__":
    sys.exit(main())
