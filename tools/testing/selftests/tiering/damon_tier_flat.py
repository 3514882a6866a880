#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""DAMON_TIER parameters: validation, and no schemes on a flat machine.

Every parameter rejects malformed and out-of-range values with EINVAL and
keeps its value; on a machine with one memory tier damon_tier runs with no
scheme at all.
"""
import errno
import os
import re
import sys
import time

import tiering_util

PARAMS = "/sys/module/damon_tier/parameters"


def write(name, val):
    return tiering_util.write_file(os.path.join(PARAMS, name), val)


def read(name):
    return tiering_util.read_file(os.path.join(PARAMS, name))


expect = tiering_util.expect


def main():
    if not os.path.isdir(PARAMS):
        print("kernel has no damon_tier")
        return 1
    defaults = {"target_used_bp": "9970", "target_free_bp": "50", "quota_mb": "200",
                "quota_reset_interval_ms": "1000", "enabled": "N", "kdamond_pid": "-1",
                "bytes_promoted": "0", "bytes_demoted": "0", "goal_tuner": "temporal",
                "backoff_ms": "0", "tlb_flush_ms": "200", "nr_tlb_flushes": "0"}
    for k, v in defaults.items():
        expect(read(k) == v, "%s defaults to %s" % (k, v))
    bad = {
        "target_used_bp": ["0", "10001", "-1", "abc", "\n", "99999999999999999999999"],
        "target_free_bp": ["0", "10001", "1.5", "5x"],
        "quota_mb": ["0", "-5", "1099511627776", "ten"],
        "quota_reset_interval_ms": ["0", "x", "2000000"],
        "enabled": ["maybe", "2", "\n"],
        "sample_interval": ["0", "-1", "x"],
        "aggr_interval": ["0", "1e5"],
        "min_nr_regions": ["0", "2", "many"],
        "max_nr_regions": ["2", "-3"],
        "intervals_goal_access_bp": ["10001", "-1", "4%"],
        "intervals_goal_aggrs": ["-1", "three"],
        "intervals_goal_min_sample_us": ["x"],
        "intervals_goal_max_sample_us": ["-5"],
        "commit_inputs": ["maybe", "\n"],
        "goal_tuner": ["exchange", "Temporal", "\n", "consist2", "1"],
        "respect_placement": ["maybe", "2", "\n", "-1"],
        "tlb_flush_ms": ["-1", "1048577", "1.5", "x", "\n", "99999999999999999999999"],
    }
    for name, vals in bad.items():
        before = read(name)
        for v in vals:
            err = write(name, v)
            expect(err == errno.EINVAL, "%s rejects %r (%s)" % (name, v, errno.errorcode.get(err, err)))
            expect(read(name) == before, "%s unchanged after %r" % (name, v))
    # Values that do not go together fail the Y that commits them.
    for name, val in (("sample_interval", "200000"), ("min_nr_regions", "500"),
                      ("intervals_goal_max_sample_us", "1000"),
                      ("intervals_goal_min_sample_us", "20000000")):
        before = read(name)
        expect(write(name, val) == 0, "%s accepts %s on its own" % (name, val))
        expect(write("enabled", "Y") == errno.EINVAL and read("enabled") == "N",
               "enabled=Y refuses %s=%s with the rest (EINVAL), stays off" % (name, val))
        expect(write("commit_inputs", "Y") == errno.EINVAL,
               "commit_inputs=Y refuses %s=%s with the rest (EINVAL)" % (name, val))
        write(name, before)
    for name in ("kdamond_pid", "bytes_promoted", "bytes_demoted", "nr_schemes",
                 "nr_regions", "bytes_skipped_policy", "bytes_skipped_cpuset",
                 "bytes_skipped_mlock", "sample_interval_us", "aggr_interval_us",
                 "free_floor_bp", "backoff_ms", "nr_tlb_flushes"):
        expect(write(name, "5") in (errno.EACCES, errno.EPERM), "%s is read-only" % name)
    expect(write("target_used_bp", "9900") == 0 and read("target_used_bp") == "9900",
           "target_used_bp accepts 9900")
    write("target_used_bp", "9970")
    expect(write("goal_tuner", "consist") == 0 and read("goal_tuner") == "consist",
           "goal_tuner accepts consist")
    expect(write("goal_tuner", "temporal\n") == 0 and read("goal_tuner") == "temporal",
           "goal_tuner accepts temporal")

    flat = len([d for d in os.listdir("/sys/devices/virtual/memory_tiering")
                if re.match(r"memory_tier\d+$", d)]) == 1
    expect(write("enabled", "Y") == 0, "enable")
    expect(read("enabled") == "Y" and int(read("kdamond_pid")) > 0, "kdamond runs")
    # A bad commit while running changes nothing either.
    write("sample_interval", "200000")
    expect(write("commit_inputs", "Y") == errno.EINVAL, "running: commit refuses "
           "sample_interval above aggr_interval")
    expect(read("enabled") == "Y", "still running after the refused commit")
    write("sample_interval", "5000")
    expect(write("commit_inputs", "Y") == 0, "running: a good commit is taken")

    def flushes_in(secs):
        """The TLB flushes counted over about @secs, and the seconds taken."""
        t0, n0 = time.monotonic(), int(read("nr_tlb_flushes"))
        time.sleep(secs)
        n1, t1 = int(read("nr_tlb_flushes")), time.monotonic()
        return n1 - n0, t1 - t0

    # TLB flushes follow the committed interval: some every 100 ms, none at 0.
    expect(write("tlb_flush_ms", "100") == 0 and write("commit_inputs", "Y") == 0,
           "running: commit tlb_flush_ms 100")
    n0 = int(read("nr_tlb_flushes"))
    n1 = int(tiering_util.poll(lambda: read("nr_tlb_flushes"),
                               lambda v: int(v) >= n0 + 5, 30))
    expect(n1 >= n0 + 5, "tlb_flush_ms 100: flushes go on (%d, then %d)" % (n0, n1))
    if flat:
        # Nothing can show below a single tier: 5 s after the commit the
        # flushes space out to one a second (100, 200, 400, 800 ms, then
        # 1 s), which bounds how many fit in a window whatever the timing;
        # one every 100 ms would be ten times as many.  Wait for the commit
        # and the ramp, then count; they go on, so one at least.
        tiering_util.wait_for(lambda: flushes_in(3)[0] <= 4, 60)
        n, secs = flushes_in(6)
        most = int(secs) + 2
        expect(1 <= n <= most, "nothing below: flushes go on, at most one "
               "a second (%d in %.1f s, at most %d)" % (n, secs, most))
    expect(write("tlb_flush_ms", "0") == 0 and write("commit_inputs", "Y") == 0,
           "running: commit tlb_flush_ms 0")

    # The kdamond takes a commit at its next aggregation and commit_inputs
    # reads back N once it has; a quiet second alone proves nothing, as the
    # flushes are a second apart by now.  From then on the count must stay.
    expect(tiering_util.wait_for(lambda: read("commit_inputs") == "N", 30),
           "tlb_flush_ms 0: the commit is taken")
    n, secs = flushes_in(3)
    expect(n == 0, "tlb_flush_ms 0: no flush in %.1f s (%d)" % (secs, n))
    write("tlb_flush_ms", "200")
    expect(write("commit_inputs", "Y") == 0, "commit tlb_flush_ms 200 back")
    # An access ratio of 0 is a goal DAMON takes (mainline's rule).
    saved = {k: read(k) for k in ("intervals_goal_access_bp", "sample_interval",
                                  "intervals_goal_min_sample_us",
                                  "intervals_goal_max_sample_us")}
    expect(write("intervals_goal_access_bp", "0") == 0 and
           write("commit_inputs", "Y") == 0, "running: commit takes intervals_goal_access_bp 0")
    write("intervals_goal_access_bp", saved["intervals_goal_access_bp"])
    # A goal whose range leaves out the sampling interval to start from is
    # refused, as mainline refuses it.
    expect(write("intervals_goal_min_sample_us", "20000") == 0 and
           write("intervals_goal_max_sample_us", "20000") == 0 and
           write("commit_inputs", "Y") == errno.EINVAL,
           "running: commit refuses a 20 ms goal while sample_interval is 5 ms")
    expect(read("enabled") == "Y", "still running after the refused commit")
    # A commit takes effect: a goal of 5..20 ms that wants an access in
    # every sample lengthens the sampling interval to 20 ms.
    before = read("sample_interval_us")
    expect(write("intervals_goal_access_bp", "10000") == 0 and
           write("intervals_goal_min_sample_us", "5000") == 0 and
           write("intervals_goal_max_sample_us", "20000") == 0 and
           write("commit_inputs", "Y") == 0,
           "commit a goal of 5..20 ms that wants every sample accessed")
    now = tiering_util.poll(lambda: read("sample_interval_us"),
                            lambda v: v == "20000", 30)
    expect(now == "20000",
           "the committed goal is applied: sampling every 20 ms (was %s us, now %s)" % (
               before, now))
    for k in ("sample_interval", "intervals_goal_max_sample_us",
              "intervals_goal_min_sample_us", "intervals_goal_access_bp"):
        write(k, saved[k])
    expect(write("commit_inputs", "Y") == 0, "commit the defaults back")
    if flat:
        expect(read("nr_schemes") in ("0",), "flat machine: no schemes (got %s)"
               % read("nr_schemes"))
    expect(write("enabled", "N") == 0 and read("kdamond_pid") == "-1", "disable")
    print("%d failures" % tiering_util.failures)
    return 1 if tiering_util.failures else 0


if __name__ == "__main__":
    sys.exit(main())
