#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""DAMON_STAT: its parameters, what they report, and damo reading them.

Off at boot; "enabled" takes booleans only and the statistics are
read-only.  Once on, it runs a kdamond on auto-tuned intervals, refuses to
run beside another special-purpose DAMON module, monitors exactly the
span from the start of the first System RAM resource of /proc/iomem to the
end of the last one (the regions its damon_aggregated trace events
report), so every node's memory, reports 101 idle time percentiles in
order, and sees the bandwidth of a hot buffer: far more while 64 MiB are
touched continuously than once they are left alone.
"""
import errno
import os
import subprocess
import sys
import time

import tiering_util

P = "/sys/module/damon_stat/parameters"
TIER = "/sys/module/damon_tier/parameters/enabled"
WORKLOAD = os.path.join(os.environ.get("BUILD", ""), "kselftest/tiering/tier_workload")

write = tiering_util.write_file
read = tiering_util.read_file
expect = tiering_util.expect
wait_for = tiering_util.wait_for


def kdamond_running():
    return any(open("/proc/%s/comm" % p).read().startswith("kdamond")
               for p in os.listdir("/proc") if p.isdigit()
               and os.path.exists("/proc/%s/comm" % p))


def system_ram():
    """[start, end) of each System RAM resource, nested ones too (such as
    "System RAM (kmem)" in a CXL window), in address order."""
    ram = []
    with open("/proc/iomem") as f:
        for line in f:
            rng, _, name = line.strip().partition(" : ")
            if not name.startswith("System RAM"):
                continue
            lo, hi = (int(x, 16) for x in rng.split("-"))
            ram.append((lo, hi + 1))
    return sorted(ram)


def monitored_span(secs, lo, hi):
    """Lowest start and highest end of the regions damon_aggregated
    reports within @secs, or None if none.  It stops early once a region
    starts at or below @lo and one ends at or above @hi."""
    def done(r):
        return (bool(r) and min(x for _, x, _ in r) <= lo and
                max(x for _, _, x in r) >= hi)
    regions, err = tiering_util.aggregated_regions(done, secs)
    if err:
        raise OSError(err, "enabling damon:damon_aggregated: " + os.strerror(err))
    if not regions:
        return None
    return min(s for _, s, _ in regions), max(e for _, _, e in regions)


def percentiles():
    return [int(x) for x in read(P + "/memory_idle_ms_percentiles").split(",")]


def test_params():
    expect(read(P + "/enabled") == "N", "DAMON_STAT is off at boot")
    for bad in ("maybe", "2", "\n"):
        err = write(P + "/enabled", bad)
        expect(err == errno.EINVAL and read(P + "/enabled") == "N",
               "enabled rejects %r (%s), stays N" % (bad, err))
    for ro in ("estimated_memory_bandwidth", "memory_idle_ms_percentiles",
               "aggr_interval_us"):
        mode = os.stat(P + "/" + ro).st_mode & 0o777
        expect(mode == 0o400, "%s is read-only (%o)" % (ro, mode))


def test_running():
    expect(write(P + "/enabled", "Y") == 0 and read(P + "/enabled") == "Y",
           "enabled Y turns it on")
    expect(kdamond_running(), "a kdamond runs")
    err = write(TIER, "Y")
    expect(err == errno.EBUSY and read(TIER) == "N",
           "damon_tier cannot start beside it (%s)" % err)
    expect(wait_for(lambda: int(read(P + "/aggr_interval_us")) > 100000, 15),
           "the aggregation interval is auto-tuned above 100 ms on idle "
           "memory (%s us)" % read(P + "/aggr_interval_us"))
    pcts = percentiles()
    expect(len(pcts) == 101, "101 idle time percentiles")
    expect(pcts == sorted(pcts), "percentiles are in order")
    expect(pcts[100] > 0, "the idlest memory has been idle for a while (%d ms)" % pcts[100])

    ram = system_ram()
    # DAMON rounds the range out to pages.
    first = ram[0][0] // 4096 * 4096
    last = max(e for _, e in ram)
    last = (last + 4095) // 4096 * 4096
    span = monitored_span(20, first, last)
    print("System RAM %s, monitored %s" % (
        " ".join("[%#x, %#x)" % r for r in ram),
        "[%#x, %#x)" % span if span else "nothing"))
    expect(span is not None, "damon_aggregated reports its regions")
    if span:
        # On 2tier the biggest resource alone would start at 1 MiB: the
        # first one starts below 640 KiB.
        expect(span == (first, last),
               "it monitors from the start of the first System RAM resource "
               "to the end of the last (%d resources), nothing else" % len(ram))

    hot = subprocess.Popen([WORKLOAD, "hot", "64", "0", "30"],
                           stdout=subprocess.PIPE, text=True)
    try:
        hot.stdout.readline()   # "ready"
        # At least 8 s, and up to 25 of the buffer's 30 s for the first
        # aggregation that saw it to be published.
        time.sleep(8)
        wait_for(lambda: int(read(P + "/estimated_memory_bandwidth")) > 16 << 20, 17)
        busy = int(read(P + "/estimated_memory_bandwidth"))
        pcts = percentiles()
        print("busy: bandwidth %d B/s, p0..p10 %s ms" % (busy, pcts[:11]))
        expect(pcts[0] < 0, "the hot buffer shows as negative idle time")
    finally:
        hot.terminate()
        hot.wait()
    # The estimate follows the last whole aggregation and is published
    # every 5 s; tuned aggregations last seconds, so allow a minute.
    t0 = time.time()
    fell = wait_for(lambda: int(read(P + "/estimated_memory_bandwidth")) < busy / 4, 60)
    idle = int(read(P + "/estimated_memory_bandwidth"))
    print("idle: bandwidth %d B/s after %.0f s" % (idle, time.time() - t0))
    expect(busy > 16 << 20, "a hot 64 MiB buffer shows as > 16 MiB/s (%d)" % busy)
    expect(fell, "left alone, bandwidth falls below a quarter within 60 s (%d)" % idle)

    out = subprocess.run(["damo", "module", "stat", "read", "idle_time_percentiles"],
                         capture_output=True, text=True)
    expect(out.returncode == 0 and len(out.stdout.splitlines()) >= 10,
           "damo module stat read idle_time_percentiles")
    print(out.stdout + out.stderr)

    expect(subprocess.run(["damo", "module", "stat", "write", "enabled", "N"]).returncode == 0,
           "damo module stat write enabled N")
    expect(read(P + "/enabled") == "N", "it is off")
    expect(wait_for(lambda: not kdamond_running(), 5), "its kdamond is gone")
    expect(write(TIER, "Y") == 0, "damon_tier starts once it is off")
    err = write(P + "/enabled", "Y")
    expect(err == errno.EBUSY and read(P + "/enabled") == "N",
           "and DAMON_STAT cannot start beside damon_tier (%s)" % err)
    write(TIER, "N")


def main():
    if not os.path.isdir(P):
        print("no DAMON_STAT")
        return 1
    if not os.access(WORKLOAD, os.X_OK):
        print("no %s" % WORKLOAD)
        return 1
    test_params()
    try:
        test_running()
    finally:
        write(P + "/enabled", "N")
        write(TIER, "N")
    print("%d failures" % tiering_util.failures)
    return 1 if tiering_util.failures else 0


if __name__ == "__main__":
    sys.exit(main())
