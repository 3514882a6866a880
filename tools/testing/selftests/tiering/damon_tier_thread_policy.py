#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What DAMON_TIER's respect_placement sees of a task's own memory policy.

Two hot 32 MiB sets start on the bottom node, each placed by a task policy
of MPOL_BIND to that node (set_mempolicy(2), no mbind()):
  - one set by the process's main thread, which owns its address space:
    DAMON_TIER leaves it there entirely, and counts it in
    bytes_skipped_policy;
  - one set by a second thread for itself, which does all the work while
    the main thread keeps the default policy: DAMON_TIER does not see that
    policy (a scan cannot know which thread touched a page, and the
    admin guide says so) and promotes the set like any other.
Both sets' data must be intact.  Counts are move_pages(2) page counts.

  damon_tier_thread_policy.py [--seconds S]
"""
import argparse
import sys
import time

import tiering_util
from damon_tier_placement import PARAMS, Buffer

expect = tiering_util.expect
read = tiering_util.read_file
put = tiering_util.must_write


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=40)
    a = ap.parse_args()

    t = tiering_util.tiers()
    top, bottom = t[0][0], t[-1][0]
    put("/sys/kernel/mm/transparent_hugepage/enabled", "never")
    saved = {p: read(p) for p in ("/proc/sys/kernel/numa_balancing",
                                  PARAMS + "/respect_placement")}
    put("/proc/sys/kernel/numa_balancing", "0")
    bufs = []
    try:
        owner = Buffer("bound by the main thread", "hot", 32, bottom, a.seconds + 30,
                       {"TIER_WORKLOAD_POLICY": "task-bind"})
        bufs.append(owner)
        thread = Buffer("bound by another thread", "hot", 32, bottom, a.seconds + 30,
                        {"TIER_WORKLOAD_POLICY": "thread-bind"})
        bufs.append(thread)
        time.sleep(2)
        for b in bufs:
            b.poll()
            expect(b.share(bottom) == 1.0, "%s: placed on node%d (%.1f%%)" % (
                b.name, bottom, b.share(bottom) * 100))
        put(PARAMS + "/respect_placement", "Y")
        put(PARAMS + "/enabled", "Y")
        t0 = time.time()
        while time.time() - t0 < a.seconds:
            time.sleep(5)
            for b in bufs:
                b.poll()
            print("t=%3.0fs main thread's set %.1f%% on node%d, other thread's %.1f%% "
                  "on node%d; skipped for a policy %d KiB" % (
                      time.time() - t0, owner.share(bottom) * 100, bottom,
                      thread.share(top) * 100, top,
                      int(read(PARAMS + "/bytes_skipped_policy")) >> 10))
        expect(owner.share(bottom) == 1.0,
               "the main thread's MPOL_BIND keeps its set on node%d (%.2f%%)" % (
                   bottom, owner.share(bottom) * 100))
        expect(int(read(PARAMS + "/bytes_skipped_policy")) > 0,
               "bytes_skipped_policy counts the main thread's set")
        # Half, as damon_tier_placement.py asks of a default-policy set.
        expect(thread.share(top) >= 0.5,
               "another thread's own MPOL_BIND is not seen: its set moves up "
               "(%.1f%% on node%d)" % (thread.share(top) * 100, top))
    finally:
        if read(PARAMS + "/enabled") == "Y":
            put(PARAMS + "/enabled", "N")
        for b in bufs:
            b.finish()
        for path, val in saved.items():
            put(path, val)
    print("%d failures" % tiering_util.failures)
    return 1 if tiering_util.failures else 0


if __name__ == "__main__":
    sys.exit(main())
