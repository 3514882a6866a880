#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""End-to-end capacity expansion with DAMON_TIER.

Fills the top-tier node with cold data until it is nearly full, puts a hot
working set on the lowest-tier node and keeps touching it, then enables
damon_tier and asserts, with move_pages(2) page counts, that:
  - at least 90% of the hot set reaches the top-tier node within the limit;
  - the top-tier node's free memory settles near target_free_bp;
  - the data of both sets is intact after the migrations (checksums);
  - bytes_promoted/bytes_demoted report the migrations.

  damon_tier_e2e.py [--hot-mb N] [--limit S] [--toggle N] [--no-tlb-flush]
                    [--tlb-flush-ms MS] [--hot-node N]
--toggle N instead enables/disables damon_tier N times while the workload
runs and checks that nothing breaks.  --no-tlb-flush runs the hot set
without its TLB flush per pass: its accessed bits are then set only on TLB
misses, as on hardware whose TLB reach covers it (see tier_workload.c).
--tlb-flush-ms MS flushes it at most once per MS milliseconds instead.
--hot-node puts the hot set on another node than the first one of the
lowest tier, e.g. the second of two identical CXL nodes.
"""
import argparse
import os
import re
import subprocess
import sys
import time

import tiering_util

PARAMS = "/sys/module/damon_tier/parameters"
HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOAD = os.environ.get("TIER_WORKLOAD",
                          os.path.join(os.environ.get("BUILD", ""), "kselftest/tiering/tier_workload"))


def read(path):
    with open(path) as f:
        return f.read().strip()


def param(name, val=None):
    path = os.path.join(PARAMS, name)
    if val is None:
        return read(path)
    with open(path, "w") as f:
        f.write(val)


def tiers():
    """Memory tiers as lists of nodes, fastest first."""
    base = "/sys/devices/virtual/memory_tiering"
    out = []
    for d in sorted(os.listdir(base), key=lambda d: int(re.sub(r"\D", "", d) or 0)):
        if not d.startswith("memory_tier"):
            continue
        nodes = []
        for part in read(os.path.join(base, d, "nodelist")).split(","):
            lo, _, hi = part.partition("-")
            nodes += list(range(int(lo), int(hi or lo) + 1))
        out.append(nodes)
    return out


node_mem = tiering_util.node_mem


def damon_regions():
    """Regions DAMON_TIER monitors, as of its last aggregation."""
    return int(param("nr_regions"))


# At most max_nr_regions, plus a few transient splits per scheme (quotas,
# address filters).  Far more means runaway splitting.
def max_regions():
    return int(param("max_nr_regions")) + 100


def wait_ready(proc, what):
    line = proc.stdout.readline()
    if line.strip() != "ready":
        raise RuntimeError("%s did not start: %r" % (what, line))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hot-mb", type=int, default=64)
    ap.add_argument("--limit", type=float, default=120)
    ap.add_argument("--settle", type=float, default=30)
    ap.add_argument("--toggle", type=int, default=0)
    ap.add_argument("--no-tlb-flush", action="store_true")
    ap.add_argument("--tlb-flush-ms", type=int)
    ap.add_argument("--hot-node", type=int)
    a = ap.parse_args()
    if a.no_tlb_flush:
        os.environ["TIER_WORKLOAD_NO_TLB_FLUSH"] = "1"
    if a.tlb_flush_ms:
        os.environ["TIER_WORKLOAD_TLB_FLUSH_MS"] = str(a.tlb_flush_ms)

    if not os.path.isdir(PARAMS):
        print("kernel has no damon_tier")
        return 1
    t = tiers()
    if len(t) < 2:
        print("needs two memory tiers")
        return 1
    top, bottom = t[0][0], t[-1][0] if a.hot_node is None else a.hot_node
    with open("/sys/kernel/mm/transparent_hugepage/enabled", "w") as f:
        f.write("never")
    # THP raised min_free_kbytes to ~45 MiB at boot, which on a 700 MiB VM
    # node puts the low watermark at ~3% free: no migration could then
    # fill the node past ~97%, far from the 99.7% target.  Use a watermark
    # in the proportion of a real machine (< 0.3% of the node).
    saved_min_free = read("/proc/sys/vm/min_free_kbytes")
    # NUMA balancing (on by default here) would move the hot set too: off,
    # so that what is measured is damon_tier's doing.
    saved_nb = read("/proc/sys/kernel/numa_balancing")
    with open("/proc/sys/kernel/numa_balancing", "w") as f:
        f.write("0")
    with open("/proc/sys/vm/min_free_kbytes", "w") as f:
        f.write("2048")
    target_free_bp = int(param("target_free_bp"))

    total, free = node_mem(top)
    # Leave 2% of the top node free: promotion then needs demotion.
    cold_mb = max(16, (free - total * 2 // 100) // 1024)
    print("node%d: %d MiB total, %d MiB free; cold filler %d MiB, hot set %d MiB on node%d"
          % (top, total // 1024, free // 1024, cold_mb, a.hot_mb, bottom))
    cold = subprocess.Popen([WORKLOAD, "cold", str(cold_mb), str(top)],
                            stdout=subprocess.PIPE, text=True)
    hot = None
    failures = 0
    try:
        wait_ready(cold, "cold filler")
        run_for = a.limit + a.settle + 30 if not a.toggle else a.limit
        hot = subprocess.Popen([WORKLOAD, "hot", str(a.hot_mb), str(bottom), str(run_for)],
                               stdout=subprocess.PIPE, text=True)
        wait_ready(hot, "hot set")
        if a.toggle:
            before = damon_regions()
            pids = set()
            for i in range(a.toggle):
                param("enabled", "Y")
                pids.add(param("kdamond_pid"))
                param("enabled", "N")
                if param("kdamond_pid") != "-1":
                    print("FAIL: kdamond_pid not -1 after disable")
                    failures += 1
            print("toggled %d times, %d distinct kdamond pids" % (a.toggle, len(pids)))
            if "-1" in pids:
                print("FAIL: enabled but kdamond_pid was -1")
                failures += 1
            param("enabled", "Y")
            time.sleep(3)
            if param("enabled") != "Y" or int(param("kdamond_pid")) <= 0:
                print("FAIL: damon_tier not running after the toggling")
                failures += 1
            param("enabled", "N")
            after = damon_regions()
            print("regions: %d before, %d after" % (before, after))
            if after != 0:
                print("FAIL: nr_regions %d after disable" % after)
                failures += 1
        else:
            t0 = time.time()
            param("enabled", "Y")
            print("damon_tier enabled, kdamond %s, %s schemes"
                  % (param("kdamond_pid"), param("nr_schemes")))
            reached = None
            residency = 0.0
            frees = []
            for line in hot.stdout:
                m = re.match(r"t=\S+ (.*) total=(\d+)", line)
                if not m:
                    continue
                counts = dict((int(k[4:]), int(v)) for k, v in
                              (kv.split("=") for kv in m.group(1).split()))
                residency = counts.get(top, 0) / int(m.group(2))
                el = time.time() - t0
                _, free_now = node_mem(top)
                free_bp = free_now * 10000 // total
                regions = damon_regions()
                print("t=%5.1fs hot on node%d: %5.1f%%  node%d free %5.2f%%  promoted %s MiB  demoted %s MiB  regions %s"
                      % (el, top, residency * 100, top, free_bp / 100,
                         int(param("bytes_promoted")) >> 20, int(param("bytes_demoted")) >> 20,
                         regions))
                if regions > max_regions():
                    print("FAIL: %d regions, more than max_nr_regions allows" % regions)
                    failures += 1
                    break
                if reached is None and residency >= 0.9:
                    reached = el
                if reached is not None:
                    frees.append(free_bp)
                if reached is not None and el - reached >= a.settle:
                    break
                if reached is None and el > a.limit:
                    break
            if reached is None:
                print("FAIL: hot set residency %.1f%% < 90%% after %ds" % (residency * 100, a.limit))
                failures += 1
            else:
                print("90%% of the hot set on node%d after %.1fs" % (top, reached))
                if residency < 0.9:
                    print("FAIL: residency fell to %.1f%% after reaching 90%%" % (residency * 100))
                    failures += 1
                settled = frees[len(frees) // 2:]
                mean = sum(settled) / max(1, len(settled))
                # Near the target: within 1.5 pp of target_free_bp.
                print("node%d free once settled: mean %.2f%% (target %.2f%%)"
                      % (top, mean / 100, target_free_bp / 100))
                if abs(mean - target_free_bp) > 150:
                    print("FAIL: node%d free memory did not settle near the target" % top)
                    failures += 1
            if int(param("bytes_promoted")) < a.hot_mb * 0.9 * (1 << 20) * 0.5:
                print("FAIL: bytes_promoted %s is too low" % param("bytes_promoted"))
                failures += 1
            moved = int(param("bytes_promoted")) + int(param("bytes_demoted"))
            param("enabled", "N")
            # The statistics restart at 0: re-enabling keeps the committed
            # schemes, whose sz_applied still holds the first run's bytes.
            param("enabled", "Y")
            time.sleep(1)
            again = int(param("bytes_promoted")) + int(param("bytes_demoted"))
            param("enabled", "N")
            print("moved %d MiB in the run, %d MiB in 1 s after re-enabling"
                  % (moved >> 20, again >> 20))
            if moved >= 32 << 20 and again >= moved // 2:
                print("FAIL: re-enabling carried the last run's bytes over")
                failures += 1
    finally:
        for p in (hot, cold):
            if p and p.poll() is None:
                p.terminate()
        for p, what in ((hot, "hot set"), (cold, "cold filler")):
            if not p:
                continue
            out, _ = p.communicate(timeout=120)
            last = out.strip().splitlines()[-1] if out.strip() else ""
            print("%s: %s" % (what, last))
            if p.returncode != 0 or not last.startswith("intact"):
                print("FAIL: %s data check failed (rc %d)" % (what, p.returncode))
                failures += 1
        if param("enabled") == "Y":
            param("enabled", "N")
        with open("/proc/sys/vm/min_free_kbytes", "w") as f:
            f.write(saved_min_free)
        with open("/proc/sys/kernel/numa_balancing", "w") as f:
            f.write(saved_nb)
    print("%d failures" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
