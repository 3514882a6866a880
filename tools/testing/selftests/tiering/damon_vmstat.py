#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""DAMOS migrations show in the kernel's promotion and demotion counters.

For every pair of adjacent memory tiers, a cold buffer of a task in its own
memory cgroup is placed on one node, and a paddr kdamond watching exactly
the longest run of its physical pages (from /proc/PID/pagemap) moves it to
the other with migrate_cold (down a tier) or migrate_hot (up a tier).  The
pages that moved are counted with move_pages(2) before and after, and must
equal, exactly:
  - down: pgdemote_damon of the source node (its vmstat), of /proc/vmstat
    and of the cgroup's memory.stat, and sz_applied in pages;
  - up: pgpromote_damon of the target node, of /proc/vmstat and of the
    cgroup's memory.stat, and sz_applied in pages;
while the other counter does not move, nor does NUMA balancing's
pgpromote_success.  Within one tier (two CXL nodes) pages move and no
counter does.  The same down and up between the first two tiers with the
buffer in transparent huge pages: they move whole (thp_migration_success)
and count as their pages.  The scheme also has a memcg filter for the
task's cgroup, so that pages other tasks get from the freed ones are left
alone.  The buffer's data must be intact.
"""
import os
import re
import subprocess
import sys
import time

import tiering_util

WORKLOAD = os.path.join(os.environ.get("BUILD", ""), "kselftest/tiering/tier_workload")
CG_ROOT = "/sys/fs/cgroup"
CG = CG_ROOT + "/damon_vmstat"
MB = 16
COUNTERS = ("pgpromote_damon", "pgdemote_damon", "pgpromote_success")
THP_ENABLED = "/sys/kernel/mm/transparent_hugepage/enabled"

expect = tiering_util.expect
read = tiering_util.read_file


def keyed(path):
    vals = {}
    with open(path) as f:
        for line in f:
            k, v = line.split()[:2]
            vals[k] = int(v)
    return vals


def snapshot(nodes):
    """Both counters: per node, system-wide and of the test's cgroup.

    Per-CPU differences are folded in first (vm.stat_refresh), and memory
    cgroup statistics are flushed every 2 s: read after that."""
    tiering_util.must_write("/proc/sys/vm/stat_refresh", "1")
    time.sleep(2.5)
    snap = {}
    for n in nodes:
        v = keyed("/sys/devices/system/node/node%d/vmstat" % n)
        for c in COUNTERS:
            snap[(n, c)] = v[c]
    for src, path in (("vm", "/proc/vmstat"), ("cg", CG + "/memory.stat")):
        v = keyed(path)
        for c in COUNTERS:
            snap[(src, c)] = v[c]
    return snap


def thp_kb(pid):
    with open("/proc/%d/smaps_rollup" % pid) as f:
        for line in f:
            if line.startswith("AnonHugePages:"):
                return int(line.split()[1])
    return 0


def one_move(nodes, src, dst, kind, thp=False):
    """Move the buffer of a task from @src to @dst; @kind is "promote",
    "demote" or "none" (same tier): which counter must count it.  With
    @thp the buffer is in transparent huge pages, which must move whole."""
    action = "migrate_hot" if kind == "promote" else "migrate_cold"
    print("--- %s: node%d -> node%d with %s%s" % (kind, src, dst, action,
                                                 ", THP" if thp else ""))
    cmd = ["sh", "-c", 'echo $$ > %s/cgroup.procs && exec "$@"' % CG, "sh",
           WORKLOAD, "cold", str(MB), str(src)]
    env = dict(os.environ, TIER_WORKLOAD_THP="1" if thp else "0")
    thp_before = keyed("/proc/vmstat")["thp_migration_success"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env)
    try:
        expect(p.stdout.readline().strip() == "ready", "buffer placed on node%d" % src)
        if thp:
            expect(thp_kb(p.pid) >= 2048, "the buffer has THPs: AnonHugePages %d kB"
                   % thp_kb(p.pid))
        lo, hi = tiering_util.buffer_range(p.pid, MB)
        start, end = tiering_util.longest_run(tiering_util.buffer_pfns(p.pid, MB))
        expect(end - start >= 16, "a run of %d contiguous pages to watch" % (end - start))
        before = tiering_util.page_nodes(p.pid, lo, hi)
        expect(before.count(src) == len(before), "every page on node%d" % src)
        old = snapshot(nodes)
        tiering_util.paddr_scheme(start, end, action, dst)
        f = tiering_util.DAMON_S0 + "/filters/"
        tiering_util.must_write(f + "nr_filters", "1")
        tiering_util.must_write(f + "0/type", "memcg")
        tiering_util.must_write(f + "0/memcg_path", "/" + os.path.basename(CG))
        tiering_util.must_write(f + "0/matching", "N")
        st = tiering_util.paddr_scheme_run(3)
        new = snapshot(nodes)
        after = tiering_util.page_nodes(p.pid, lo, hi)
    finally:
        p.terminate()
        out, _ = p.communicate(timeout=60)
    moved = sum(1 for a, b in zip(before, after) if a == src and b == dst)
    delta = dict((k, new[k] - old[k]) for k in new)
    print("moved %d of %d pages (run %d), sz_applied %d; deltas %s" % (
        moved, len(before), end - start, st["sz_applied"],
        dict((k, v) for k, v in delta.items() if v)))
    expect(p.returncode == 0 and "intact" in out, "data intact")
    expect(moved >= (end - start) * 9 // 10, "most of the run moved")
    if thp:
        thps = keyed("/proc/vmstat")["thp_migration_success"] - thp_before
        expect(thps >= 1, "THPs moved whole: thp_migration_success +%d" % thps)
    expect(st["sz_applied"] == moved * 4096, "sz_applied counts the pages that moved")
    counted = {"promote": ("pgpromote_damon", dst),
               "demote": ("pgdemote_damon", src)}.get(kind)
    # memory.stat lags until the memory cgroup statistics are flushed.
    for _ in range(10):
        want_cg = dict((c, moved if counted and counted[0] == c else 0) for c in COUNTERS)
        if all(delta[("cg", c)] == want_cg[c] for c in COUNTERS):
            break
        time.sleep(1)
        v = keyed(CG + "/memory.stat")
        for c in COUNTERS:
            delta[("cg", c)] = v[c] - old[("cg", c)]
    for c in COUNTERS:
        want = moved if counted and counted[0] == c else 0
        for n in nodes:
            w = want if counted and counted[1] == n else 0
            expect(delta[(n, c)] == w, "node%d %s +%d (want +%d)" % (n, c, delta[(n, c)], w))
        for where in ("vm", "cg"):
            expect(delta[(where, c)] == want, "%s %s +%d (want +%d)" % (
                "/proc/vmstat" if where == "vm" else "memory.stat", c,
                delta[(where, c)], want))


def main():
    for i in range(int(read(tiering_util.DAMON_KD + "/nr_kdamonds"))):
        if read("%s/%d/state" % (tiering_util.DAMON_KD, i)) != "off":
            print("FAIL: DAMON sysfs in use")
            return 1
    if read("/sys/module/damon_tier/parameters/enabled") != "N":
        print("FAIL: damon_tier is enabled")
        return 1
    if int(read("/proc/sys/kernel/numa_balancing")) & 2:
        print("FAIL: NUMA balancing is in tiering mode")
        return 1
    if not os.path.exists(CG_ROOT + "/cgroup.controllers"):
        subprocess.run(["mount", "-t", "cgroup2", "none", CG_ROOT], check=True)
    tiering_util.must_write(CG_ROOT + "/cgroup.subtree_control", "+memory")
    os.makedirs(CG, exist_ok=True)
    tiers = [[n for n in t if tiering_util.node_mem(n)[0]] for t in tiering_util.tiers()]
    tiers = [t for t in tiers if t]
    nodes = sorted(n for t in tiers for n in t)
    print("tiers (fastest first):", tiers)
    expect(len(tiers) >= 2, "at least two memory tiers")
    try:
        for upper, lower in zip(tiers, tiers[1:]):
            one_move(nodes, upper[0], lower[-1], "demote")
            one_move(nodes, lower[-1], upper[0], "promote")
        for t in tiers:
            if len(t) > 1:
                one_move(nodes, t[-1], t[0], "none")
        # A THP counts as its pages, down and up.
        thp_mode = read(THP_ENABLED)
        tiering_util.must_write(THP_ENABLED, "madvise")
        try:
            one_move(nodes, tiers[0][0], tiers[1][-1], "demote", thp=True)
            one_move(nodes, tiers[1][-1], tiers[0][0], "promote", thp=True)
        finally:
            tiering_util.write_file(THP_ENABLED, re.search(r"\[(\w+)\]", thp_mode).group(1))
    finally:
        os.rmdir(CG)
    print("%d failures" % tiering_util.failures)
    return 1 if tiering_util.failures else 0


if __name__ == "__main__":
    sys.exit(main())
