#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""DAMON sysfs: with respect_placement, migrate_cold never demotes mlocked
memory, and says so; without it (the default, as in mainline) it does.

A cold buffer is mlocked on node0; a paddr kdamond watches exactly the
longest run of its physical pages (from /proc/PID/pagemap) with a
migrate_cold scheme toward node1 that matches any region, without quota.
With respect_placement Y: checks that nothing was applied, that
stats/sz_skipped_mlock counts the pages and that every page of the buffer
is still on node0 (numa_maps).  With the scheme's default (N): the same
mlocked buffer is demoted.  And with Y, memory that is not mlocked is
demoted.  With Y and an anon reject filter, the mlocked buffer is counted
in sz_skipped_mlock all the same: mlock's verdict comes before the filters
(a demotion looking across mlocked memory costs no filter work per page).
respect_placement rejects malformed input and keeps its value.
"""
import errno
import os
import subprocess
import sys

import tiering_util

KD = "/sys/kernel/mm/damon/admin/kdamonds"
CTX = KD + "/0/contexts/0"
S0 = CTX + "/schemes/0"
WORKLOAD = os.path.join(os.environ.get("BUILD", ""), "kselftest/tiering/tier_workload")
MB = 32

write = tiering_util.write_file
read = tiering_util.read_file
expect = tiering_util.expect
must = tiering_util.must_write


def node_pages(pid):
    return tiering_util.buffer_nodes(pid, MB)


def run_scheme(start, end, respect, reject_anon):
    """Demote [start, end) physical pages to node1; the scheme's stats."""
    tiering_util.paddr_scheme(start, end, "migrate_cold", 1)
    if reject_anon:
        must(S0 + "/filters/nr_filters", "1")
        must(S0 + "/filters/0/type", "anon")
        must(S0 + "/filters/0/matching", "Y")
        expect(read(S0 + "/filters/0/allow") == "N", "the anon filter rejects")
    expect(read(S0 + "/respect_placement") == "N", "respect_placement defaults to N")
    for bad in ("maybe", "2", "\n", "-1"):
        err = write(S0 + "/respect_placement", bad)
        expect(err == errno.EINVAL and read(S0 + "/respect_placement") == "N",
               "respect_placement rejects %r (%s), stays N" % (bad, err))
    if respect:
        must(S0 + "/respect_placement", "Y")
        expect(read(S0 + "/respect_placement") == "Y", "respect_placement reads Y")
    return tiering_util.paddr_scheme_run(3)


def main():
    for i in range(int(read(KD + "/nr_kdamonds"))):
        if read("%s/%d/state" % (KD, i)) != "off":
            print("FAIL: DAMON sysfs in use")
            return 1
    for mlock, respect, reject_anon in ((True, True, False), (True, False, False),
                                        (False, True, False), (True, True, True)):
        env = dict(os.environ, TIER_WORKLOAD_MLOCK="1" if mlock else "0")
        p = subprocess.Popen([WORKLOAD, "cold", str(MB), "0"], stdout=subprocess.PIPE,
                             text=True, env=env)
        try:
            expect(p.stdout.readline().strip() == "ready", "buffer placed")
            start, end = tiering_util.longest_run(tiering_util.buffer_pfns(p.pid, MB))
            print("%s buffer, respect_placement %s%s: %d contiguous pages at pfn %#x" % (
                "mlocked" if mlock else "plain", "Y" if respect else "N",
                ", anon reject filter" if reject_anon else "", end - start, start))
            expect(end - start >= 16, "a run of at least 16 pages to watch")
            st = run_scheme(start, end, respect, reject_anon)
            print("stats:", st)
            counts = node_pages(p.pid)
            print("buffer pages per node:", counts)
            if mlock and respect:
                expect(st["sz_applied"] == 0, "nothing of the mlocked buffer demoted")
                expect(st["sz_skipped_mlock"] >= (end - start) * 4096,
                       "sz_skipped_mlock counts every page of the run")
                expect(counts.get(0, 0) == MB * 256, "the mlocked buffer is all on node0")
            else:
                expect(st["sz_applied"] >= (end - start) * 4096 * 9 // 10,
                       "the same scheme demotes %s" % (
                           "memory that is not mlocked" if not mlock else
                           "mlocked memory without respect_placement"))
                expect(st["sz_skipped_mlock"] == 0, "and counts nothing as mlocked")
                expect(counts.get(1, 0) >= (end - start) * 9 // 10,
                       "those pages are on node1 now")
        finally:
            p.terminate()
            out, _ = p.communicate(timeout=60)
            expect(p.returncode == 0 and "intact" in out, "data intact")
    print("%d failures" % tiering_util.failures)
    return 1 if tiering_util.failures else 0


if __name__ == "__main__":
    sys.exit(main())
