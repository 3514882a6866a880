#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""DAMON tiering driven by the unmodified damo from PyPI, on the capacity
scenario: node0 filled to about 99% with cold data, a hot set kept busy
on node1.

--recipe mem_tier (default): the two commands of damo's own recipe,
scripts/mem_tier.sh, as damo ships them: DAMON_STAT off, then one kdamond
per node on auto-tuned intervals (4%, 3 aggregations, 5 ms to 10 s),
node0's demoting cold pages aiming node0 at 0.5% free, node1's promoting
hot pages aiming it at 99.7% used, both with the default ("consist") goal
tuner.  Checks that both exit 0, that damo finds every feature it asks
for, that the kdamonds run on auto-tuned intervals, and that the goals
hold from the first quota window: node0 never falls below 98.5% used (the
recipe's 99.5% lower bound less 1 pp; before, it emptied to 24% in its
first second).  The consist tuner grows a quota from one byte by the
shortfall per interval, so the hot set moves little in a minute: its
residency is reported, not checked.

--recipe mem_tier --room: the same recipe with node0 left as the system
uses it (no cold filler), proof that the recipe migrates.  Far below its
99.7% used goal, the promotion quota about doubles every interval from
one byte, as in mainline, and starts moving hot pages after ~25 s; how
much follows depends on how often DAMON's samples catch the hot pages'
accesses.  make check runs it with a 16 MiB hot set: under the recipe's
4% goal on the 1 GiB node1, so node1's kdamond lengthens its intervals
and sees the accesses; a 64 MiB set (6% of node1) holds it at the 5 ms
minimum, where under QEMU TCG a pass over the set takes longer than a
sample and the hot regions read near the recipe's 5% access-rate floor.
Checks that more than a tenth of the hot set is on node0 within twice
--limit seconds (none is when the goal tuning or the migration does not
work; the run lasts --limit seconds, longer until that tenth is up) and
that node0's demotion scheme, whose goal is met many times over, moves
nothing (before the first quota window was limited, it demoted at once).

--recipe temporal: the same recipe with mainline 7.1's "temporal" goal
tuner selected for both schemes (damo's --damos_quota_goal_tuner).  On a
1 GiB node the kernel's watermarks keep more than the recipe's 0.5% free
(see Documentation/admin-guide/mm/damon/tier.rst), so demotion would never
start: the test runs it with the settings the admin guide prescribes for
such nodes, vm.min_free_kbytes=2048 and vm.watermark_boost_factor=0, and
says so.  Checks that the hot set moves: at least half of it on node0
within twice --limit seconds (the run lasts --limit seconds, longer until
that half is up).

Both check with move_pages(2) page counts and node0's meminfo, and that
the data of both sets is intact.

  damo_mem_tier.py [--recipe mem_tier|temporal] [--room] [--hot-mb N]
                   [--limit S]
"""
import argparse
import os
import re
import subprocess
import sys
import time

import tiering_util

KD = "/sys/kernel/mm/damon/admin/kdamonds"
WORKLOAD = os.path.join(os.environ.get("BUILD", ""), "kselftest/tiering/tier_workload")

PCP_FRACTION = "/proc/sys/vm/percpu_pagelist_high_fraction"
# Large enough that a 1 GiB node's per-CPU lists stay at their floor.
PCP_FRACTION_FILL = 100000

STAT_OFF = ["damo", "module", "stat", "write", "enabled", "N"]
RECIPE = ["damo", "start",
          "--numa_node", "0", "--monitoring_intervals_goal", "4%", "3", "5ms", "10s",
          "--damos_action", "migrate_cold", "1", "--damos_access_rate", "0%", "0%",
          "--damos_apply_interval", "1s",
          "--damos_quota_interval", "1s", "--damos_quota_space", "200MB",
          "--damos_quota_goal", "node_mem_free_bp", "0.5%", "0",
          "--damos_filter", "reject", "young",
          "--numa_node", "1", "--monitoring_intervals_goal", "4%", "3", "5ms", "10s",
          "--damos_action", "migrate_hot", "0", "--damos_access_rate", "5%", "max",
          "--damos_apply_interval", "1s",
          "--damos_quota_interval", "1s", "--damos_quota_space", "200MB",
          "--damos_quota_goal", "node_mem_used_bp", "99.7%", "0",
          "--damos_filter", "allow", "young",
          "--damos_nr_quota_goals", "1", "1", "--damos_nr_filters", "1", "1",
          "--nr_targets", "1", "1", "--nr_schemes", "1", "1", "--nr_ctxs", "1", "1"]

# The recipe with the temporal goal tuner for both schemes (damo >= 3.1.8).
RECIPE_TEMPORAL = []
for _i, _arg in enumerate(RECIPE):
    RECIPE_TEMPORAL.append(_arg)
    if _i >= 4 and RECIPE[_i - 3] == "--damos_quota_goal":
        RECIPE_TEMPORAL += ["--damos_quota_goal_tuner", "temporal"]

expect = tiering_util.expect
read = tiering_util.read_file
put = tiering_util.must_write
node_mem = tiering_util.node_mem


def kdamond_value(kdamond, command, path):
    """A number of the kdamond's first context, after a state command."""
    tiering_util.state_command("%s/%d" % (KD, kdamond), command)
    return int(read("%s/%d/contexts/0/%s" % (KD, kdamond, path)))


def tuned_sample_us(kdamond):
    """The kdamond's sampling interval as the auto-tuning set it."""
    return kdamond_value(kdamond, "update_tuned_intervals",
                         "monitoring_attrs/intervals/sample_us")


def scheme_applied(kdamond):
    """Bytes the first scheme of the kdamond applied its action to."""
    return kdamond_value(kdamond, "update_schemes_stats", "schemes/0/stats/sz_applied")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hot-mb", type=int, default=64)
    ap.add_argument("--limit", type=float, default=60)
    ap.add_argument("--recipe", choices=("mem_tier", "temporal"), default="mem_tier")
    ap.add_argument("--room", action="store_true",
                    help="no cold filler: node0 far below the recipe's goals")
    a = ap.parse_args()
    temporal = a.recipe == "temporal"
    if a.room and temporal:
        ap.error("--room is for --recipe mem_tier")

    put("/sys/kernel/mm/transparent_hugepage/enabled", "never")
    # A watermark in the proportion of a real node, and no NUMA balancing
    # promoting the hot set beside damo's kdamonds; restored at the end.
    saved = {p: read(p) for p in ("/proc/sys/vm/min_free_kbytes",
                                  "/proc/sys/vm/watermark_boost_factor",
                                  "/proc/sys/kernel/numa_balancing",
                                  PCP_FRACTION)}
    put("/proc/sys/vm/min_free_kbytes", "2048")
    if temporal:
        print("settings prescribed by tier.rst for 1 GiB nodes: "
              "vm.min_free_kbytes=2048 vm.watermark_boost_factor=0")
        put("/proc/sys/vm/watermark_boost_factor", "0")
    else:
        print("settings changed for this test: vm.min_free_kbytes=2048")
    print("settings changed for this test: kernel.numa_balancing=0")
    put("/proc/sys/kernel/numa_balancing", "0")
    total, free = node_mem(0)
    # Leave 1% of node0: its DMA zone's lowmem reserve (~4 MiB of a 1 GiB
    # node), the watermarks and the filler's page tables are counted free
    # but cannot hold the filler; a tighter fill gets it OOM-killed.
    cold_mb = max(16, (free - total // 100) // 1024)
    cold = None
    if not a.room:
        # While the filler faults in, the per-CPU lists grow towards an
        # eighth of the node (shared among its CPUs) and refill in batches
        # of up to 8 MiB, taken off the free count that the watermark
        # check reads: a last batch can leave node0 below its min
        # watermark with the pages the filler needs on the lists, and with
        # no reclaimable memory the allocator never drains them (OOM
        # kill).  Hold the lists at their floor, four batches per CPU,
        # until the filler is placed.
        print("while placing the filler: vm.percpu_pagelist_high_fraction=%d"
              % PCP_FRACTION_FILL)
        put(PCP_FRACTION, str(PCP_FRACTION_FILL))
        cold = subprocess.Popen([WORKLOAD, "cold", str(cold_mb), "0"],
                                stdout=subprocess.PIPE, text=True)
    hot = None
    try:
        if cold:
            ready = cold.stdout.readline().strip()
            put(PCP_FRACTION, saved[PCP_FRACTION])
            if ready != "ready":
                expect(False, "cold filler of %d MiB placed on node0 (exit %s)"
                       % (cold_mb, cold.wait()))
                return 1
        # The share of the hot set judged on node0, if any: given up to
        # twice --limit, for the run lasts --limit seconds in any case.
        share = 0.1 if a.room else 0.5 if temporal else None
        deadline = 2 * a.limit if share else a.limit
        hot = subprocess.Popen([WORKLOAD, "hot", str(a.hot_mb), "1", str(deadline + 30)],
                               stdout=subprocess.PIPE, text=True)
        hot.stdout.readline()
        t, f = node_mem(0)
        print("node0 %.2f%% used before; hot set %d MiB on node1" % (100.0 * (t - f) / t,
                                                                    a.hot_mb))
        r = subprocess.run(STAT_OFF, capture_output=True, text=True)
        expect(r.returncode == 0, "damo module stat write enabled N: exit %d" % r.returncode)
        cmd = RECIPE_TEMPORAL if temporal else RECIPE
        r = subprocess.run(cmd, capture_output=True, text=True)
        print(r.stdout + r.stderr)
        expect(r.returncode == 0, "%s: exit %d" % (" ".join(cmd[:3]), r.returncode))
        expect("not available" not in r.stdout + r.stderr,
               "damo finds every DAMON feature the recipe asks for")
        t0 = time.time()
        reached, lowest, residency = None, 10000, 0.0
        for line in hot.stdout:
            m = re.match(r"t=\S+ (.*) total=(\d+)", line)
            if not m:
                continue
            counts = dict((int(k[4:]), int(v)) for k, v in
                          (kv.split("=") for kv in m.group(1).split()))
            residency = counts.get(0, 0) / int(m.group(2))
            el = time.time() - t0
            t, f = node_mem(0)
            used_bp = (t - f) * 10000 // t
            lowest = min(lowest, used_bp)
            print("t=%5.1fs hot on node0 %5.1f%%  node0 used %6.2f%%" % (
                el, residency * 100, used_bp / 100))
            if reached is None and residency >= 0.9:
                reached = el
            if el >= deadline or (el >= a.limit and (not share or residency >= share)):
                break
        samples = [tuned_sample_us(k) for k in (0, 1)]
        print("tuned sampling intervals: %s us" % samples)
        expect(any(s and s != 5000 for s in samples),
               "the kdamonds run on auto-tuned intervals")
        print("90%% of the hot set on node0: %s; %.1f%% at the end" % (
            "after %.1fs" % reached if reached else "never", residency * 100))
        if a.room:
            expect(residency >= share, "a tenth of the hot set on node0 within %ds (%.1f%%)"
                   % (deadline, residency * 100))
            # node0's demotion goal (0.5% free) is met many times over.
            demoted = scheme_applied(0)
            expect(demoted == 0, "node0's migrate_cold scheme moved nothing (%s bytes)"
                   % demoted)
        elif temporal:
            expect(residency >= share, "half of the hot set on node0 within %ds (%.1f%%)"
                   % (deadline, residency * 100))
        else:
            expect(lowest >= 9850, "node0 never below 98.5%% used (lowest %.2f%%)" % (
                lowest / 100))
    finally:
        subprocess.run(["damo", "stop"], capture_output=True)
        for p in (hot, cold):
            if p and p.poll() is None:
                p.terminate()
        for p, what in ((hot, "hot set"), (cold, "cold filler")):
            if p:
                out, _ = p.communicate(timeout=120)
                last = out.strip().splitlines()[-1] if out.strip() else ""
                expect(p.returncode == 0 and last.startswith("intact"),
                       "%s data: %s" % (what, last))
        for path, val in saved.items():
            put(path, val)
    print("%d failures" % tiering_util.failures)
    return 1 if tiering_util.failures else 0


if __name__ == "__main__":
    sys.exit(main())
