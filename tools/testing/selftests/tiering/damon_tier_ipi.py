#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""DAMON_TIER sends no TLB-flush interrupts of its own, unless asked to.

A hot set on the lowest tier and a cold filler on the top node, the hot
set's workload pinned to the last CPU and the kdamond to CPU 0.  Once
damon_tier has settled (nothing moved for --quiet seconds), the TLB
shootdowns every CPU receives (/proc/interrupts, TLB) are counted in three
consecutive windows of a third of --seconds with damon_tier enabled, then
in three with it disabled: the median enabled window less the median
disabled one must be at most one per 100 sampling passes of the kdamond.
Function-call interrupts (CAL) are left out here, as their background
(remote wakeups, kernel-range flushes) is of the size of the limit in a
30 s run, and the medians leave out a window into which a sporadic
shootdown fell; a cost per sampling pass shows in every window.  A window
in which any page migrated (pgmigrate_success or pgmigrate_fail moved:
the unmapping flushes the mm's CPUs) is not counted, and another is taken
instead, up to three times as many in all: what is judged is the cost of
sampling, not of moving.  make
bench's scale cells count both lines over longer windows.  Then with
tlb_flush=Y (DAMON's opt-in TLB flush of the pages it samples) the
workload's CPU must take about one per sampling pass (at least a third of
the passes), and the other CPUs none of them: the flushes go to the CPUs
that ran the sampled address spaces.

  damon_tier_ipi.py [--seconds S] [--quiet S] [--hot-mb N]
"""
import argparse
import os
import subprocess
import sys
import time

import tiering_util

PARAMS = "/sys/module/damon_tier/parameters"
WORKLOAD = os.environ.get("TIER_WORKLOAD",
                          os.path.join(os.environ.get("BUILD", ""),
                                       "kselftest/tiering/tier_workload"))
expect = tiering_util.expect


def param(name, val=None):
    path = os.path.join(PARAMS, name)
    if val is None:
        return tiering_util.read_file(path)
    tiering_util.must_write(path, val)
    return None


def flush_irqs(kinds=("TLB:", "CAL:")):
    """Per CPU, the interrupts of the /proc/interrupts lines @kinds: TLB
    shootdowns plus function calls by default."""
    with open("/proc/interrupts") as f:
        ncpu = len(f.readline().split())
        counts = [0] * ncpu
        for line in f:
            w = line.split()
            if w and w[0] in kinds:
                for i in range(ncpu):
                    counts[i] += int(w[1 + i])
    return counts


def migrations():
    """Pages the kernel migrated or failed to, from /proc/vmstat."""
    v = tiering_util.vmstat()
    return v.get("pgmigrate_success", 0) + v.get("pgmigrate_fail", 0)


def damon_moved():
    """Bytes damon_tier promoted and demoted since enabled."""
    return int(param("bytes_promoted")) + int(param("bytes_demoted"))


def count(secs, kinds=("TLB:", "CAL:")):
    """Interrupts of @kinds per CPU over @secs, the kdamond's sampling
    passes in that time (from its sampling interval, read every second),
    and the pages migrated meanwhile."""
    a, passes, t_end = flush_irqs(kinds), 0.0, time.time() + secs
    m, d = migrations(), damon_moved()
    while time.time() < t_end:
        time.sleep(1)
        if param("enabled") == "Y":
            passes += 1e6 / int(param("sample_interval_us"))
    b = flush_irqs(kinds)
    return [y - x for x, y in zip(a, b)], passes, migrations() - m, damon_moved() - d


def median_window(secs, n=3):
    """Of the first @n windows of @secs in which nothing migrated (3 * @n
    tried at most, so fewer may come), the one of median TLB shootdowns:
    its shootdowns per CPU and its sampling passes.  None if none came."""
    quiet = []
    for _ in range(3 * n):
        irqs, passes, moved, by_damon = count(secs, ("TLB:",))
        if moved:
            print("(a %.0f s window with %d pages migrated, %d KiB by damon_tier, "
                  "is not counted)" % (secs, moved, by_damon >> 10))
            continue
        quiet.append((irqs, passes))
        if len(quiet) == n:
            break
    if not quiet:
        return None
    quiet.sort(key=lambda w: sum(w[0]))
    return quiet[len(quiet) // 2]


def settle(quiet, limit):
    """Wait until damon_tier moved nothing for @quiet seconds."""
    last, since, t0 = None, time.time(), time.time()
    while time.time() - t0 < limit:
        moved = damon_moved()
        if moved != last:
            last, since = moved, time.time()
        elif time.time() - since >= quiet:
            return True
        time.sleep(1)
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=30)
    ap.add_argument("--quiet", type=int, default=10)
    ap.add_argument("--hot-mb", type=int, default=32)
    a = ap.parse_args()
    if not os.path.isdir(PARAMS):
        print("kernel has no damon_tier")
        return 1
    t = tiering_util.tiers()
    top, low = t[0][0], max(t[-1])
    ncpu = os.cpu_count()
    if ncpu < 2:
        print("needs two CPUs")
        return 1
    tiering_util.must_write("/sys/kernel/mm/transparent_hugepage/enabled", "never")
    os.sched_setaffinity(0, {0})
    total, free = tiering_util.node_mem(top)
    cold_mb = max(16, (free - total * 4 // 100) // 1024)
    env = dict(os.environ, TIER_WORKLOAD_NO_TLB_FLUSH="1")
    cold = subprocess.Popen(["taskset", "-c", "0", WORKLOAD, "cold", str(cold_mb), str(top)],
                            stdout=subprocess.PIPE, text=True)
    hot = None
    try:
        expect(cold.stdout.readline().strip() == "ready", "cold filler placed")
        hot = subprocess.Popen(["taskset", "-c", str(ncpu - 1), WORKLOAD, "hot",
                                str(a.hot_mb), str(low), "100000"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               text=True, env=env)
        expect(hot.stdout.readline().strip() == "ready", "hot set placed")
        param("enabled", "Y")
        pid = int(param("kdamond_pid"))
        os.sched_setaffinity(pid, {0})
        expect(settle(a.quiet, 120), "damon_tier settled (nothing moved for %d s)" % a.quiet)
        window = a.seconds / 3
        med_on = median_window(window)
        param("enabled", "N")
        med_off = median_window(window)
        expect(med_on and med_off, "windows with no migration, enabled and disabled")
        if not (med_on and med_off):
            return 1
        (on, passes), (off, _) = med_on, med_off
        extra = sum(on) - sum(off)
        print("interrupts per CPU in the median %.0f s window: enabled %s, disabled %s; "
              "%.0f sampling passes" % (window, on, off, passes))
        expect(passes > 0, "the kdamond sampled")
        expect(extra <= max(1, passes / 100),
               "damon_tier adds no TLB-flush interrupts of its own: %d more enabled "
               "than disabled, at most %.1f (1 per 100 passes)" % (extra, passes / 100))

        param("tlb_flush", "Y")
        param("enabled", "Y")
        pid = int(param("kdamond_pid"))
        os.sched_setaffinity(pid, {0})
        settle(a.quiet, 120)
        med = median_window(window)
        expect(med, "windows with no migration, tlb_flush=Y")
        if not med:
            return 1
        flush, passes = med
        param("enabled", "N")
        param("tlb_flush", "N")
        print("with tlb_flush=Y: interrupts per CPU %s over %.0f sampling passes"
              % (flush, passes))
        got = flush[ncpu - 1] - off[ncpu - 1]
        expect(got >= passes / 3,
               "tlb_flush=Y: the workload's CPU takes the sampled pages' flushes "
               "(%d more, %.0f passes)" % (got, passes))
        others = sum(flush[1:ncpu - 1]) - sum(off[1:ncpu - 1])
        expect(others <= max(1, passes / 100),
               "tlb_flush=Y: CPUs that ran no sampled address space take none (%d)"
               % others)
    finally:
        for p in (hot, cold):
            if p and p.poll() is None:
                p.terminate()
            if p:
                p.wait(timeout=60)
        if param("enabled") == "Y":
            param("enabled", "N")
        param("tlb_flush", "N")
    print("%d failures" % tiering_util.failures)
    return 1 if tiering_util.failures else 0


if __name__ == "__main__":
    sys.exit(main())
