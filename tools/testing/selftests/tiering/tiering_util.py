# SPDX-License-Identifier: GPL-2.0
"""Helpers shared by the Python kselftests of this directory."""
import errno
import os
import re
import time

failures = 0


def write_file(path, val):
    """Write @val to @path in one write(); return 0 or the errno."""
    try:
        fd = os.open(path, os.O_WRONLY)
    except OSError as e:
        return e.errno
    try:
        os.write(fd, val.encode())
        return 0
    except OSError as e:
        return e.errno
    finally:
        os.close(fd)


def must_write(path, val):
    """Write @val to @path in one write(); raise OSError if that fails."""
    err = write_file(path, val)
    if err:
        raise OSError(err, "writing %r to %s: %s" % (val, path, os.strerror(err)))


def read_file(path):
    """The stripped contents of @path.

    A kdamond's DAMON sysfs state file answers EBUSY while a kdamond holds
    damon_sysfs_lock (6.12's state_show() only try-locks it), as damo
    knows: such a read is tried again, for up to a second.
    """
    for _ in range(50):
        try:
            with open(path) as f:
                return f.read().strip()
        except OSError as e:
            if e.errno != errno.EBUSY:
                raise
        time.sleep(0.02)
    with open(path) as f:
        return f.read().strip()


def expect(cond, what):
    """Print one ok/FAIL line and count failures."""
    global failures
    print("%s: %s" % ("ok" if cond else "FAIL", what))
    if not cond:
        failures += 1


def node_mem(nid):
    """(MemTotal, MemFree) of node @nid, in KiB."""
    vals = {}
    with open("/sys/devices/system/node/node%d/meminfo" % nid) as f:
        for line in f:
            parts = line.split()
            vals[parts[2].rstrip(":")] = int(parts[3])
    return vals["MemTotal"], vals["MemFree"]


def node_range(nid):
    """Physical address range [lo, hi) of node @nid, from its memory blocks."""
    size = int(read_file("/sys/devices/system/memory/block_size_bytes"), 16)
    lo, hi = None, None
    d = "/sys/devices/system/node/node%d" % nid
    for e in os.listdir(d):
        if e.startswith("memory") and e[6:].isdigit():
            start = int(e[6:]) * size
            lo = start if lo is None else min(lo, start)
            hi = start + size if hi is None else max(hi, start + size)
    return lo, hi


def tiers():
    """Memory tiers as lists of nodes, fastest first."""
    base = "/sys/devices/virtual/memory_tiering"
    out = []
    for d in sorted(os.listdir(base), key=lambda d: int(re.sub(r"\D", "", d) or 0)):
        if not d.startswith("memory_tier"):
            continue
        nodes = []
        for part in read_file(os.path.join(base, d, "nodelist")).split(","):
            lo, _, hi = part.partition("-")
            nodes += list(range(int(lo), int(hi or lo) + 1))
        out.append(nodes)
    return out


def parse_report(line):
    """A tier_workload hot-set report: (set label, {node: pages}, total,
    {node: pages} of the other set or None), or None for another line."""
    m = re.match(r"t=\S+( set=(\w))?(.*?) total=(\d+) passes=\d+( other(.*) total=\d+)?$",
                 line.strip())
    if not m:
        return None

    def counts(s):
        return dict((int(k[4:]), int(v)) for k, v in (kv.split("=") for kv in s.split()))
    return (m.group(2) or "A", counts(m.group(3)), int(m.group(4)),
            counts(m.group(6)) if m.group(5) else None)
