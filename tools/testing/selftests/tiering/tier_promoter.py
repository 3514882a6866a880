#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One promoter at a time: DAMON_TIER, klruscand and NUMA balancing's
memory tiering mode (mm/tier_promoter.c).

Every pair is tried:
  - NUMA balancing's tiering mode (kernel.numa_balancing 2 or 3) on:
    enabling klruscand or damon_tier fails with EBUSY, leaves it off, and
    the kernel log names NUMA balancing;
  - klruscand on: damon_tier fails with EBUSY naming klruscand, and the
    other way round;
  - the tiering mode turned on while damon_tier runs: damon_tier drops its
    promotion scheme (nr_schemes), keeps demoting, logs that once, and
    promotes again once the mode is off; the same for klruscand, whose
    scans stop (kpromoted_recorded_pgtscans stays put);
  - both enabled at the same moment from two threads, 30 times: at most
    one is ever on;
  - a hot set on the lower tier stays intact while NUMA balancing promotes
    it beside damon_tier's demotion.
kernel.numa_balancing never fails to change.

  tier_promoter.py [--seconds S]
"""
import argparse
import errno
import os
import subprocess
import sys
import threading
import time

import tiering_util
from damon_tier_placement import Buffer

expect = tiering_util.expect
read = tiering_util.read_file
put = tiering_util.must_write
write = tiering_util.write_file

NB = "/proc/sys/kernel/numa_balancing"
KL = "/sys/kernel/mm/klruscand/enabled"
DT = "/sys/module/damon_tier/parameters"


def dmesg():
    return subprocess.run(["dmesg"], capture_output=True, text=True).stdout


def new_log(before):
    """The kernel log lines printed since @before was read."""
    now = dmesg()
    return now[len(before):] if now.startswith(before) else now


def both_off():
    if read(KL) != "0":
        put(KL, "0")
    if read(DT + "/enabled") != "N":
        put(DT + "/enabled", "N")


def refused(path, on, off, by):
    log = dmesg()
    err = write(path, on)
    name = "klruscand" if path == KL else "damon_tier"
    expect(err == errno.EBUSY and read(path) == off,
           "%s is refused (EBUSY) beside %s, and stays off (errno %d)" % (
               name, by, err))
    line = "%s not enabled: %s" % (name, by)
    expect(line in new_log(log), "the kernel log says '%s'" % line)


def wait(cond, secs):
    return tiering_util.wait_for(cond, secs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=20)
    a = ap.parse_args()
    if not os.path.exists(KL) or not os.path.isdir(DT):
        print("kernel lacks klruscand or damon_tier")
        return 4
    t = tiering_util.tiers()
    if len(t) < 2:
        print("one memory tier: nothing promotes")
        return 4
    top, bottom = t[0][0], t[-1][0]
    saved = {p: read(p) for p in (NB, "/sys/kernel/mm/numa/demotion_enabled")}
    bufs = []
    try:
        both_off()
        # The tiering mode refuses both; bit 1 alone (NUMA balancing for
        # locality) refuses neither.
        for mode in ("2", "3"):
            put(NB, mode)
            refused(KL, "1", "0", "NUMA balancing's memory tiering mode")
            refused(DT + "/enabled", "Y", "N", "NUMA balancing's memory tiering mode")
        put(NB, "1")

        # klruscand first, then damon_tier; and the other way round.
        put(KL, "1")
        refused(DT + "/enabled", "Y", "N", "klruscand promotes")
        put(KL, "0")
        put(DT + "/enabled", "Y")
        refused(KL, "1", "0", "damon_tier promotes")

        # damon_tier yields promotion to NUMA balancing, keeps demotion.
        nr = int(read(DT + "/nr_schemes"))
        # A promotion scheme per node below the top tier.
        promote = sum(len(x) for x in t[1:])
        expect(nr > promote, "damon_tier runs %d schemes, %d of them promote" % (nr, promote))
        log = dmesg()
        expect(write(NB, "2") == 0, "kernel.numa_balancing=2 is taken while damon_tier runs")
        expect(wait(lambda: int(read(DT + "/nr_schemes")) == nr - promote, 10),
               "with the tiering mode on, damon_tier drops its promotion schemes "
               "(%d -> %s schemes)" % (nr, read(DT + "/nr_schemes")))
        time.sleep(2)
        lines = new_log(log).count("damon_tier stops promoting")
        expect(lines == 1, "that is logged once (%d times)" % lines)
        expect(read(DT + "/enabled") == "Y", "damon_tier stays enabled")

        # Data intact while NUMA balancing promotes beside damon_tier's
        # demotion; the set is hot on the lower tier.
        put("/sys/kernel/mm/numa/demotion_enabled", "1")
        b = Buffer("hot set", "hot", 64, bottom, a.seconds)
        bufs.append(b)
        time.sleep(a.seconds)
        b.poll()
        print("after %.0f s: %.1f%% of the hot set on node%d" % (
            a.seconds, b.share(top) * 100, top))
        b.finish()
        bufs.remove(b)

        log = dmesg()
        put(NB, "1")
        expect(wait(lambda: int(read(DT + "/nr_schemes")) == nr, 10),
               "with the mode off again, damon_tier promotes again (%s schemes)" %
               read(DT + "/nr_schemes"))
        expect("damon_tier promotes again" in new_log(log), "that is logged")
        put(DT + "/enabled", "N")

        # klruscand stops scanning while the mode is on.
        put(KL, "1")
        log = dmesg()
        put(NB, "2")
        expect(wait(lambda: "klruscand stops promoting" in new_log(log), 12),
               "klruscand logs that it stops promoting")
        v0 = tiering_util.vmstat().get("kpromoted_recorded_pgtscans", 0)
        time.sleep(6)
        v1 = tiering_util.vmstat().get("kpromoted_recorded_pgtscans", 0)
        expect(v1 == v0, "and reports nothing meanwhile (%d reports)" % (v1 - v0))
        lines = new_log(log).count("klruscand stops promoting")
        expect(lines == 1, "logged once (%d times)" % lines)
        put(NB, "1")
        expect(wait(lambda: "klruscand promotes again" in new_log(log), 12),
               "and promotes again once the mode is off")
        put(KL, "0")

        # Two enables racing: never both on.
        both = 0
        for _ in range(30):
            go = threading.Barrier(2)
            res = {}

            def enable(path, val):
                go.wait()
                res[path] = write(path, val)

            th = [threading.Thread(target=enable, args=(KL, "1")),
                  threading.Thread(target=enable, args=(DT + "/enabled", "Y"))]
            for x in th:
                x.start()
            for x in th:
                x.join()
            on = (read(KL) == "1") + (read(DT + "/enabled") == "Y")
            ok = sorted(res.values()) == [0, errno.EBUSY]
            if on != 1 or not ok:
                both += 1
            both_off()
        expect(both == 0, "30 racing enables: exactly one on each time (%d bad)" % both)
    finally:
        for b in bufs:
            b.finish()
        both_off()
        for path, val in saved.items():
            put(path, val)
    return 1 if tiering_util.failures else 0


if __name__ == "__main__":
    sys.exit(main())
