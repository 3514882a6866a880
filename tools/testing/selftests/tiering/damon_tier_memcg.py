#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""DAMON_TIER restricted to one memory cgroup (damon_tier.memcg_path).

Two cgroups share the 2tier machine, each with a cold buffer on node0 and
a hot set on node1; node0 is then nearly full.  damon_tier runs with
memcg_path naming the first ("tiered") for --seconds (longer, up to
--limit, while the tiered hot set is not yet three quarters up), and move_pages(2)
page counts must show that:
  - the tiered cgroup's hot set came up to node0 (at least three quarters
    of it),
    its cold buffer making room (some of it went down);
  - not one page of the other cgroup ("untiered") moved, hot or cold;
  - every buffer's data is intact.
NUMA balancing is off while it runs (kernel.numa_balancing=0, restored
after): in its default mode it moves pages of either cgroup toward the
CPUs that touch them, and the test is about what damon_tier moves.
Input: a path no cgroup has makes enabled=Y fail with EINVAL and leaves
damon_tier off; a path of PATH_MAX bytes or more is refused when written;
the parameter reads back what was written, without the newline.
A cgroup removed while damon_tier tiers it is held by its cgroup id, which
no new cgroup gets: a hot set of a cgroup made after the removal stays
where it is.
"""
import argparse
import errno
import os
import subprocess
import sys
import time

import tiering_util

PARAMS = "/sys/module/damon_tier/parameters"
WORKLOAD = os.path.join(os.environ.get("BUILD", ""), "kselftest/tiering/tier_workload")
CG_ROOT = "/sys/fs/cgroup"
HOT_MB = 64
COLD_MB = 128

expect = tiering_util.expect
read = tiering_util.read_file
write = tiering_util.write_file


class Buffer:
    """A tier_workload process in cgroup @cg; its buffer's pages' nodes."""

    def __init__(self, cg, kind, mb, node, seconds=None):
        def join():
            with open(os.path.join(CG_ROOT, cg, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))
        args = [WORKLOAD, kind, str(mb), str(node)] + ([str(seconds)] if seconds else [])
        self.name = "%s %s" % (cg, kind)
        self.mb = mb
        self.p = subprocess.Popen(args, stdout=subprocess.PIPE, text=True,
                                  preexec_fn=join)
        line = self.p.stdout.readline().strip()
        expect(line == "ready", "%s: %d MiB placed on node%d" % (self.name, mb, node))
        # A hot set's per-second reports wait in the pipe (a few KiB).
        self.lo, self.hi = tiering_util.buffer_range(self.p.pid, mb)

    def nodes(self):
        counts = {}
        for n in tiering_util.page_nodes(self.p.pid, self.lo, self.hi):
            counts[n] = counts.get(n, 0) + 1
        return counts

    def finish(self):
        if self.p.poll() is None:
            self.p.terminate()
        out, _ = self.p.communicate(timeout=120)
        last = out.strip().splitlines()[-1] if out and out.strip() else ""
        expect(self.p.returncode == 0 and last.startswith("intact"),
               "%s: data %s" % (self.name, last))


def check_input():
    expect(read(PARAMS + "/memcg_path") == "", "memcg_path is empty by default")
    expect(write(PARAMS + "/memcg_path", "/no/such/cgroup\n") == 0 and
           read(PARAMS + "/memcg_path") == "/no/such/cgroup",
           "memcg_path reads back what was written, without the newline")
    err = write(PARAMS + "/enabled", "Y")
    expect(err == errno.EINVAL and read(PARAMS + "/enabled") == "N",
           "enabled=Y with a path no cgroup has: EINVAL (%s), still off"
           % errno.errorcode.get(err))
    err = write(PARAMS + "/memcg_path", "/" + "x" * 4095)
    expect(err == errno.EINVAL and read(PARAMS + "/memcg_path") == "/no/such/cgroup",
           "a path of 4096 bytes is refused, the old one kept (%s)"
           % errno.errorcode.get(err))


def check_removed():
    """Tier /gone, remove it, then watch a new cgroup's hot set on node1."""
    gone = os.path.join(CG_ROOT, "gone")
    os.makedirs(gone, exist_ok=True)
    tiering_util.must_write(PARAMS + "/memcg_path", "/gone")
    expect(write(PARAMS + "/enabled", "Y") == 0, "damon_tier enabled for /gone")
    os.rmdir(gone)
    os.makedirs(os.path.join(CG_ROOT, "newcomer"), exist_ok=True)
    hot = Buffer("newcomer", "hot", 16, 1, 60)
    try:
        before = hot.nodes()
        time.sleep(15)
        after = hot.nodes()
        expect(after == before, "a cgroup made after the tiered one was removed is not "
               "tiered in its place (%s, then %s)" % (before, after))
    finally:
        write(PARAMS + "/enabled", "N")
        hot.finish()
        os.rmdir(os.path.join(CG_ROOT, "newcomer"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=40)
    ap.add_argument("--limit", type=int, default=120)
    a = ap.parse_args()
    if read(PARAMS + "/enabled") != "N":
        print("FAIL: damon_tier is enabled")
        return 1
    tiering_util.write_file("/sys/kernel/mm/transparent_hugepage/enabled", "never")
    if not os.path.exists(CG_ROOT + "/cgroup.controllers"):
        subprocess.run(["mount", "-t", "cgroup2", "none", CG_ROOT], check=True)
    tiering_util.must_write(CG_ROOT + "/cgroup.subtree_control", "+memory")
    for cg in ("tiered", "untiered"):
        os.makedirs(os.path.join(CG_ROOT, cg), exist_ok=True)
    check_input()

    balancing = read("/proc/sys/kernel/numa_balancing")
    tiering_util.must_write("/proc/sys/kernel/numa_balancing", "0")
    bufs = []
    try:
        t_cold = Buffer("tiered", "cold", COLD_MB, 0)
        u_cold = Buffer("untiered", "cold", COLD_MB, 0)
        bufs = [t_cold, u_cold]
        # The untiered cgroup fills node0 but for 2% (it holds the rest).
        total, free = tiering_util.node_mem(0)
        fill_mb = max(16, (free - total * 2 // 100) // 1024)
        u_fill = Buffer("untiered", "cold", fill_mb, 0)
        bufs.append(u_fill)
        t_hot = Buffer("tiered", "hot", HOT_MB, 1, a.limit + 60)
        u_hot = Buffer("untiered", "hot", HOT_MB, 1, a.limit + 60)
        bufs += [t_hot, u_hot]
        total, free = tiering_util.node_mem(0)
        print("node0 %.2f%% used; each hot set %d MiB on node1" % (
            100.0 * (total - free) / total, HOT_MB))
        before = {b.name + str(i): b.nodes() for i, b in enumerate(bufs)}

        vm0 = tiering_util.vmstat()
        tiering_util.must_write(PARAMS + "/memcg_path", "/tiered")
        expect(write(PARAMS + "/enabled", "Y") == 0, "damon_tier enabled for /tiered")
        # At least --seconds; up to --limit while the hot set is not up.
        pages = HOT_MB << 8
        for t in range(a.limit):
            time.sleep(1)
            if t % 5 == 4:
                total, free = tiering_util.node_mem(0)
                up = t_hot.nodes().get(0, 0)
                print("t=%2ds tiered hot on node0: %s  node0 free %d KiB  promoted %s "
                      "demoted %s" % (
                          t + 1, up, free,
                          read(PARAMS + "/bytes_promoted"),
                          read(PARAMS + "/bytes_demoted")))
                if t + 1 >= a.seconds and up >= pages * 3 // 4:
                    break
        expect(write(PARAMS + "/enabled", "N") == 0, "damon_tier disabled")
        after = {b.name + str(i): b.nodes() for i, b in enumerate(bufs)}
        for k in before:
            print("%-22s before %s after %s" % (k, before[k], after[k]))
        # Who else migrated while it ran (compaction moves pages within node0).
        vm1 = tiering_util.vmstat()
        print("vmstat deltas: %s" % " ".join(
            "%s %d" % (c, vm1.get(c, 0) - vm0.get(c, 0)) for c in (
                "pgmigrate_success", "compact_isolated", "pgdemote_kswapd",
                "pgdemote_direct", "pgpromote_success", "numa_pages_migrated")))

        up = after["tiered hot3"].get(0, 0)
        expect(up >= pages * 3 // 4, "the tiered hot set came up: %d of %d pages on node0"
               % (up, pages))
        down = before["tiered cold0"].get(0, 0) - after["tiered cold0"].get(0, 0)
        expect(down > 0, "the tiered cold buffer made room: %d pages went down" % down)
        for k in ("untiered cold1", "untiered cold2", "untiered hot4"):
            expect(after[k] == before[k], "%s: not one page moved (%s)" % (k, after[k]))
        print("bytes_promoted %s bytes_demoted %s" % (read(PARAMS + "/bytes_promoted"),
                                                      read(PARAMS + "/bytes_demoted")))
        check_removed()
    finally:
        write(PARAMS + "/enabled", "N")
        # A write of nothing never reaches the kernel: a newline empties it.
        write(PARAMS + "/memcg_path", "\n")
        expect(read(PARAMS + "/memcg_path") == "", "memcg_path emptied again")
        write("/proc/sys/kernel/numa_balancing", balancing)
        for b in bufs:
            b.finish()
        for cg in ("tiered", "untiered"):
            try:
                os.rmdir(os.path.join(CG_ROOT, cg))
            except OSError:
                pass
    print("%d failures" % tiering_util.failures)
    return 1 if tiering_util.failures else 0


if __name__ == "__main__":
    sys.exit(main())
