#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""DAMON_TIER parameters: validation, commits, and nothing to do on a flat
machine.

Every parameter rejects malformed and out-of-range values with EINVAL and
keeps its value; values that do not go together fail the Y that commits
them; a commit keeps the intervals the auto-tuning reached unless it
changes where the tuning starts from.  On a machine with one memory tier
damon_tier runs no scheme, monitors no memory, and its kdamond sends no
interrupt to another CPU and queues no work there (the ipi and workqueue
trace events, filtered on its pid).
"""
import errno
import os
import re
import sys
import time

import damon_tier_ipi
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
                "bytes_promoted": "0", "bytes_demoted": "0", "goal_tuner": "gap",
                "tlb_flush": "N", "respect_placement": "Y", "memcg_path": ""}
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
        "tlb_flush": ["maybe", "2", "\n", "-1"],
        "memcg_path": ["/x" * 2048],
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
                 "bytes_skipped_mlock", "sample_interval_us", "aggr_interval_us"):
        expect(write(name, "5") in (errno.EACCES, errno.EPERM), "%s is read-only" % name)
    expect(write("target_used_bp", "9900") == 0 and read("target_used_bp") == "9900",
           "target_used_bp accepts 9900")
    write("target_used_bp", "9970")
    expect(write("goal_tuner", "consist") == 0 and read("goal_tuner") == "consist",
           "goal_tuner accepts consist")
    expect(write("goal_tuner", "temporal\n") == 0 and read("goal_tuner") == "temporal",
           "goal_tuner accepts temporal")
    expect(write("goal_tuner", "gap") == 0 and read("goal_tuner") == "gap",
           "goal_tuner accepts gap")
    # A cgroup that is not there fails the commit.
    expect(write("memcg_path", "/no/such/cgroup") == 0 and
           write("commit_inputs", "Y") == errno.EINVAL and
           write("enabled", "Y") == errno.EINVAL and read("enabled") == "N",
           "memcg_path naming no cgroup: commit and enable refuse it (EINVAL)")
    # A write of nothing never reaches the kernel: a newline empties it.
    write("memcg_path", "\n")
    expect(read("memcg_path") == "", "memcg_path emptied again")

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

    # A commit that changes nothing keeps the intervals the auto-tuning
    # reached; the tuning moves them from the 5 ms it starts from.
    tuned = tiering_util.poll(lambda: read("sample_interval_us"),
                              lambda v: v not in ("0", "5000"), 60)
    expect(tuned not in ("0", "5000"), "the auto-tuning moved the sampling interval "
           "(%s us)" % tuned)
    expect(write("commit_inputs", "Y") == 0, "commit the same parameters")
    time.sleep(1)
    now = read("sample_interval_us")
    expect(now != "5000", "the tuned sampling interval survives the commit "
           "(%s us before, %s us after)" % (tuned, now))
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
        expect(read("nr_schemes") == "0" and read("nr_regions") == "0",
               "flat machine: no schemes, no memory monitored (%s schemes, %s regions)"
               % (read("nr_schemes"), read("nr_regions")))
        # Nothing to do: the kdamond, where all of damon_tier runs, sends
        # no interrupt to another CPU and queues no work on one.  It is
        # kept on CPU 0 so that its own CPU is known.  What the other CPUs
        # receive in all is shown too, but not judged: it is mostly other
        # tasks' (3 to 30 in 10 s, depending on the host).
        # The control: the per-CPU vmstat refresh this script asks for
        # queues work on CPU 1 and is seen.
        seen = tiering_util.sent_to_others(
            os.getpid(), 0, lambda: tiering_util.write_file("/proc/sys/vm/stat_refresh", "1"))
        expect(any("workqueue_queue_work" in ln for ln in seen),
               "control: a stat_refresh queues work on CPU 1 (%d events)" % len(seen))
        write("enabled", "Y")
        pid = int(read("kdamond_pid"))
        os.sched_setaffinity(pid, {0})
        time.sleep(2)
        irqs = damon_tier_ipi.flush_irqs()
        seen = tiering_util.sent_to_others(pid, 30)
        irqs = sum(b - a for a, b in zip(irqs[1:], damon_tier_ipi.flush_irqs()[1:]))
        expect(not seen, "flat machine: the kdamond sends no interrupt to CPUs 1+ and "
               "queues no work there in 30 s (%d: %s; CPUs 1+ took %d TLB and "
               "function-call interrupts in all)" % (len(seen), seen[:3], irqs))
    expect(write("enabled", "N") == 0 and read("kdamond_pid") == "-1", "disable")
    print("%d failures" % tiering_util.failures)
    return 1 if tiering_util.failures else 0


if __name__ == "__main__":
    sys.exit(main())
