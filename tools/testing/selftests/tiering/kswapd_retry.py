#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Enabling demotion lets kswapd retry a node it gave up on.

With demotion off, a top node full of anonymous memory without swap has
nothing kswapd can reclaim.  NUMA balancing's tiering mode (kernel.
numa_balancing = 2) wakes kswapd there for room to promote a hot set from
the lower tier, and after MAX_RECLAIM_RETRIES runs without progress kswapd
gives up on the node (/proc/zoneinfo: node_unreclaimable 1);
wakeup_kswapd() then leaves it alone.  NUMA balancing is then turned off
(its scan period has backed off to a minute by now) and klruscand with
kpromoted takes over the promotion.  The test checks that:
  - writing 1 to /sys/kernel/mm/numa/demotion_enabled clears
    node_unreclaimable at once;
  - writing 0 while it is off leaves the node given up;
  - kswapd then demotes (pgdemote_kswapd grows) and a fifth more of the
    hot set comes up;
  - a malformed write is refused with EINVAL and changes nothing;
  - the data of both buffers is intact.
It skips (exit 4) when kswapd does not give up within --give-up-seconds.
Without the retry, node_unreclaimable stays 1, pgdemote_kswapd 0, and the
hot set gains only what free memory held (31.8% to 41.8% in 60 s).

  kswapd_retry.py [--seconds S] [--give-up-seconds S]
"""
import argparse
import os
import re
import subprocess
import sys
import time

import tiering_util

WORKLOAD = os.path.join(os.environ.get("BUILD", ""), "kselftest/tiering/tier_workload")
DEMOTION = "/sys/kernel/mm/numa/demotion_enabled"
KLRUSCAND = "/sys/kernel/mm/klruscand/enabled"
KSFT_SKIP = 4
KSWAPD_STATS = ("pgdemote_kswapd", "pageoutrun", "pgscan_kswapd", "pgsteal_kswapd",
                "pgpromote_success", "kpromoted_mig_promoted")

expect = tiering_util.expect
read = tiering_util.read_file
put = tiering_util.must_write
unreclaimable = tiering_util.node_unreclaimable


class Skip(Exception):
    """The scenario the test checks did not arise."""


def vmstat(key):
    return tiering_util.vmstat().get(key, 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=60,
                    help="how long the hot set has to come up")
    ap.add_argument("--give-up-seconds", type=float, default=150,
                    help="how long kswapd has to give up (6 to 54 s seen)")
    a = ap.parse_args()

    t = tiering_util.tiers()
    top, low = t[0][0], t[-1][0]
    thp = "/sys/kernel/mm/transparent_hugepage/enabled"
    saved = {p: read(p) for p in ("/proc/sys/kernel/numa_balancing", KLRUSCAND)}
    saved[DEMOTION] = "1" if read(DEMOTION) == "true" else "0"
    saved[thp] = re.search(r"\[(\w+)\]", read(thp)).group(1)
    put(thp, "never")
    put(DEMOTION, "0")
    procs = []
    skipped = False
    try:
        # Page cache is something kswapd can reclaim without demotion.
        put("/proc/sys/vm/drop_caches", "1")
        total, free = tiering_util.node_mem(top)
        cold_mb = max(16, (free - total * 2 // 100) // 1024)
        cold = subprocess.Popen([WORKLOAD, "cold", str(cold_mb), str(top)],
                                stdout=subprocess.PIPE, text=True)
        procs.append(("cold", cold))
        expect(cold.stdout.readline().strip() == "ready",
               "%d MiB of cold data placed on node%d" % (cold_mb, top))
        hot = subprocess.Popen([WORKLOAD, "hot", "64", str(low),
                                str(a.give_up_seconds + a.seconds + 30)],
                               stdout=subprocess.PIPE, text=True)
        procs.append(("hot", hot))
        expect(hot.stdout.readline().strip() == "ready", "hot set placed on node%d" % low)
        put("/proc/sys/kernel/numa_balancing", "2")

        def residency():
            """The hot set's share on the top node at its next report."""
            while True:
                line = hot.stdout.readline()
                if not line:
                    raise RuntimeError("the hot set's workload ended early")
                r = tiering_util.parse_report(line)
                if r:
                    return r[1].get(top, 0) / r[2]

        t0 = time.time()
        before = residency()
        while time.time() - t0 < a.give_up_seconds and not unreclaimable(top):
            before = residency()
        if not unreclaimable(top):
            # The scenario did not arise (NUMA balancing asked for no room
            # kswapd could not make); nothing to check.
            raise Skip("kswapd did not give up on node%d within %.0f s" % (
                top, a.give_up_seconds))
        print("with demotion off and no swap, kswapd gave up on node%d after %.0f s" % (
            top, time.time() - t0))

        err = tiering_util.write_file(DEMOTION, "maybe")
        expect(err == 22 and read(DEMOTION) == "false" and unreclaimable(top) == 1,
               "demotion_enabled refuses 'maybe' with EINVAL, nothing changed (errno %d)" % err)
        put(DEMOTION, "0")
        expect(unreclaimable(top) == 1, "writing 0 again leaves node%d given up" % top)

        put("/proc/sys/kernel/numa_balancing", "0")
        v0 = tiering_util.vmstat()
        put(DEMOTION, "1")
        expect(unreclaimable(top) == 0,
               "enabling demotion clears node%d's node_unreclaimable" % top)
        put(KLRUSCAND, "1")
        # A fifth more of the set on top shows that room was made: without
        # it, only the free memory left (a tenth of the set) was taken.
        t0 = time.time()
        after = before
        while time.time() - t0 < a.seconds:
            after = residency()
            if after >= before + 0.2 and vmstat("pgdemote_kswapd") > v0["pgdemote_kswapd"]:
                break
        v1 = tiering_util.vmstat()
        demoted = v1["pgdemote_kswapd"] - v0["pgdemote_kswapd"]
        print("kswapd since: %s; node_unreclaimable %d" % (", ".join(
            "%s +%d" % (k, v1.get(k, 0) - v0.get(k, 0)) for k in KSWAPD_STATS),
            unreclaimable(top)))
        print("after %.0f s: pgdemote_kswapd +%d, hot set %.1f%% on node%d (%.1f%% before)" % (
            time.time() - t0, demoted, after * 100, top, before * 100))
        expect(demoted > 0, "kswapd demotes from node%d (%d pages)" % (top, demoted))
        expect(after >= before + 0.2, "the hot set comes up (%.1f%% -> %.1f%% on node%d)" % (
            before * 100, after * 100, top))
    except Skip as e:
        print("SKIP: %s" % e)
        skipped = True
    finally:
        for what, p in procs:
            p.terminate()
        for what, p in procs:
            try:
                out, _ = p.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                p.kill()
                out, _ = p.communicate()
            last = out.strip().splitlines()[-1] if out.strip() else ""
            expect(p.returncode == 0 and last.startswith("intact"),
                   "%s data %s" % (what, last))
        for path, val in saved.items():
            expect(tiering_util.write_file(path, val) == 0, "%s restored to %s" % (path, val))
    print("%d failures" % tiering_util.failures)
    if tiering_util.failures:
        return 1
    return KSFT_SKIP if skipped else 0


if __name__ == "__main__":
    sys.exit(main())
