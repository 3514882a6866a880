#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""damon_tier.enabled=Y on the kernel command line starts DAMON_TIER at boot.

Runs on a machine booted with that parameter (the hotplug topology) and
checks that:
  - enabled reads Y and kdamond_pid names a running kdamond;
  - the kdamond's PID is lower than that of every userspace process but
    init, so the module started it from its initcall, not a later write;
  - it has a migrate_hot and a migrate_cold scheme per upper node (two on
    this machine: node2 has no memory at boot);
  - writing N stops it (the kdamond exits, kdamond_pid reads -1), which is
    also the state the tests after this one expect.
"""
import os
import sys
import time

import tiering_util

PARAMS = "/sys/module/damon_tier/parameters"

expect = tiering_util.expect
read = tiering_util.read_file


def start_time(pid):
    """Start time of @pid in clock ticks after boot, or None if it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return int(f.read().rsplit(")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def userspace_pids():
    """Processes other than init and kernel threads (which have no mm)."""
    out = []
    for e in os.listdir("/proc"):
        if not e.isdigit() or e == "1":
            continue
        try:
            with open("/proc/%s/statm" % e) as f:
                if int(f.read().split()[0]) == 0:
                    continue
        except (OSError, ValueError, IndexError):
            continue
        out.append(int(e))
    return out


def main():
    with open("/proc/cmdline") as f:
        cmdline = f.read().split()
    expect("damon_tier.enabled=Y" in cmdline, "booted with damon_tier.enabled=Y")
    expect(read(PARAMS + "/enabled") == "Y", "enabled reads Y")
    pid = int(read(PARAMS + "/kdamond_pid"))
    expect(pid > 0, "kdamond_pid %d" % pid)
    if pid <= 0:
        return 1
    with open("/proc/%d/comm" % pid) as f:
        comm = f.read().strip()
    expect(comm.startswith("kdamond"), "pid %d is a kdamond (%s)" % (pid, comm))
    # PIDs only grow this early after boot: a kdamond started by a write
    # from userspace would have a higher one than the first user process.
    users = userspace_pids()
    expect(users and pid < min(users),
           "the kdamond (pid %d) started before the first userspace process "
           "still running (pid %s)" % (pid, min(users) if users else "-"))
    expect(int(read(PARAMS + "/nr_schemes")) == 2,
           "two schemes: node1 to node0 and back (%s)" % read(PARAMS + "/nr_schemes"))

    expect(tiering_util.write_file(PARAMS + "/enabled", "N") == 0, "writing N")
    for _ in range(100):
        if start_time(pid) is None:
            break
        time.sleep(0.1)
    expect(start_time(pid) is None, "the kdamond exited")
    expect(read(PARAMS + "/enabled") == "N" and int(read(PARAMS + "/kdamond_pid")) == -1,
           "enabled reads N, kdamond_pid -1")
    print("%d failures" % tiering_util.failures)
    return 1 if tiering_util.failures else 0


if __name__ == "__main__":
    sys.exit(main())
