# SPDX-License-Identifier: GPL-2.0
"""Helpers shared by the Python kselftests of this directory."""
import errno
import os
import ctypes
import platform
import re
import struct
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


def state_write(kdamond, cmd):
    """Write @cmd to the state file of the DAMON sysfs @kdamond directory;
    return 0 or the errno.

    The write answers EBUSY while another sysfs user, or a kdamond handling
    that user's request, holds damon_sysfs_lock (state_store() only
    try-locks it): it is tried again, for up to 10 s.
    """
    end = time.time() + 10
    while True:
        err = write_file(kdamond + "/state", cmd)
        if err != errno.EBUSY or time.time() > end:
            return err
        time.sleep(0.1)


def state_command(kdamond, cmd):
    """state_write() that raises OSError when the command fails."""
    err = state_write(kdamond, cmd)
    if err:
        raise OSError(err, "writing %s to %s/state: %s" % (cmd, kdamond, os.strerror(err)))


def poll(get, done, secs, step=0.25):
    """get() once done() is true of its value, or its value after @secs
    seconds: for values a kernel thread updates at a pace TCG varies."""
    end = time.time() + secs
    while True:
        val = get()
        if done(val) or time.time() > end:
            return val
        time.sleep(step)


def wait_for(cond, secs):
    """poll() for a condition: whether cond() came true within @secs."""
    return bool(poll(cond, bool, secs))


TRACE = "/sys/kernel/tracing"
# "<comm>-<pid> [<cpu>] <flags> <time>: damon_aggregated: target_id=<id>
# nr_regions=<n> <start>-<end>: <nr_accesses> <age>"
AGGREGATED = re.compile(r"^\s*\S+-(\d+)\s+\[\d+\].*?damon_aggregated: "
                        r"target_id=\d+ nr_regions=\d+ (\d+)-(\d+):", re.M)


def aggregated_regions(done, secs):
    """Collect the regions the damon:damon_aggregated trace event reports,
    as (kdamond pid, start, end), reading the trace buffer every second
    until done() is true of them or @secs seconds have passed.

    Return (the regions, 0), or ([], errno) when the event cannot be
    enabled.  Each read empties the buffer so that it stays short; a
    report written between a read and the emptying is lost, but every
    aggregation reports all the regions of its target again.
    """
    ev = TRACE + "/events/damon/damon_aggregated/enable"
    try:
        with open(TRACE + "/trace", "w"):
            pass
    except OSError as e:
        return [], e.errno
    err = write_file(ev, "1")
    if err:
        return [], err
    seen = []
    end = time.time() + secs
    try:
        while True:
            time.sleep(1)
            with open(TRACE + "/trace") as f:
                text = f.read()
            with open(TRACE + "/trace", "w"):
                pass
            seen += [tuple(int(g) for g in m.groups())
                     for m in AGGREGATED.finditer(text)]
            if done(seen) or time.time() > end:
                return seen, 0
    finally:
        write_file(ev, "0")


# The events by which a task makes other CPUs work: interrupts it sends
# (TLB shootdowns and other function calls, wakeups) and work it queues on
# a given CPU (per-CPU drains), with their filters on a sender's pid.
SENT_EVENTS = {"ipi/ipi_send_cpu": "common_pid == %d && cpu != 0",
               "ipi/ipi_send_cpumask": "common_pid == %d",
               "workqueue/workqueue_queue_work": "common_pid == %d && cpu > 0"}


def sent_to_others(pid, secs, action=None):
    """The trace lines of interrupts task @pid sends to CPUs other than
    CPU 0 and of work it queues on them, within @secs seconds (after
    calling @action, if given).  Unlike the counts of /proc/interrupts,
    these name their sender: other tasks' interrupts do not add to them.
    Raise OSError when the events cannot be enabled."""
    def events(val, filt):
        for ev, f in SENT_EVENTS.items():
            d = os.path.join(TRACE, "events", ev)
            if filt:
                must_write(d + "/filter", f % pid)
            must_write(d + "/enable", val)

    with open(TRACE + "/trace", "w"):
        pass
    events("1", True)
    try:
        if action:
            action()
        time.sleep(secs)
        with open(TRACE + "/trace") as f:
            text = f.read()
    finally:
        events("0", False)
        for ev in SENT_EVENTS:
            write_file(os.path.join(TRACE, "events", ev, "filter"), "0")
    return [ln for ln in text.splitlines() if ln and not ln.startswith("#")]


def read_file(path):
    """The stripped contents of @path.

    A kdamond's DAMON sysfs state file answers EBUSY while another sysfs
    user, or a kdamond handling that user's request, holds damon_sysfs_lock
    (6.12's state_show() only try-locks it): such a read is tried again,
    for up to a second.
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


def node_meminfo(nid):
    """/sys/devices/system/node/node@nid/meminfo as {field: KiB}."""
    vals = {}
    with open("/sys/devices/system/node/node%d/meminfo" % nid) as f:
        for line in f:
            parts = line.split()
            vals[parts[2].rstrip(":")] = int(parts[3])
    return vals


def node_mem(nid):
    """(MemTotal, MemFree) of node @nid, in KiB."""
    vals = node_meminfo(nid)
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


def buffer_range(pid, mb):
    """[lo, hi) of the @mb MiB anonymous mapping of @pid."""
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
            if hi - lo == mb << 20 and len(line.split()) < 6:
                return lo, hi
    raise RuntimeError("buffer mapping not found")


def buffer_pfns(pid, mb):
    """PFNs of the @mb MiB anonymous mapping of @pid, in address order
    (None for a page not present)."""
    lo, hi = buffer_range(pid, mb)
    pfns = []
    with open("/proc/%d/pagemap" % pid, "rb") as f:
        f.seek(lo // 4096 * 8)
        for (e,) in struct.iter_unpack("<Q", f.read((hi - lo) // 4096 * 8)):
            pfns.append(e & ((1 << 55) - 1) if e >> 63 else None)
    return pfns


def longest_run(pfns):
    """The longest run of consecutive PFNs in @pfns, as [start, end)."""
    best, start = (0, 0), None
    srt = sorted(p for p in pfns if p)
    for i, p in enumerate(srt):
        if i == 0 or p != srt[i - 1] + 1:
            start = p
        if p + 1 - start > best[1] - best[0]:
            best = (start, p + 1)
    return best


_SYS_MOVE_PAGES = {"x86_64": 279, "aarch64": 239}


def _move_pages_status(pid, addrs):
    """move_pages(2) with no target nodes: the status of each of @addrs."""
    libc = ctypes.CDLL(None, use_errno=True)
    n = len(addrs)
    pages = (ctypes.c_void_p * n)(*addrs)
    status = (ctypes.c_int * n)()
    ret = libc.syscall(ctypes.c_long(_SYS_MOVE_PAGES[platform.machine()]),
                       ctypes.c_long(pid), ctypes.c_ulong(n), pages, None,
                       status, ctypes.c_int(0))
    if ret:
        raise OSError(ctypes.get_errno(), "move_pages")
    return list(status)


def page_nodes(pid, lo, hi, settle=1.0):
    """The node of every page of [lo, hi) of @pid, from move_pages(2) with
    no target nodes (a negative errno for a page it cannot tell).

    A page that some migration (compaction, reclaim, NUMA balancing) has
    unmapped at the moment of the call has a migration entry in its PTE,
    and move_pages(2) reports -ENOENT for it.  Those pages are asked again
    for up to @settle seconds, so that a count tells where a page is once
    its migration has ended; a page not present at all stays -ENOENT."""
    addrs = list(range(lo, hi, 4096))
    status = _move_pages_status(pid, addrs)
    deadline = time.monotonic() + settle
    while time.monotonic() < deadline:
        again = [i for i, s in enumerate(status) if s == -errno.ENOENT]
        if not again:
            break
        time.sleep(0.02)
        for i, s in zip(again, _move_pages_status(pid, [addrs[i] for i in again])):
            status[i] = s
    return status


def buffer_nodes(pid, mb):
    """{node: pages} of the @mb MiB anonymous mapping of @pid, from
    move_pages(2); a page whose migration outlasts page_nodes()' wait is
    in no count."""
    counts = {}
    for nid in page_nodes(pid, *buffer_range(pid, mb)):
        if nid >= 0:
            counts[nid] = counts.get(nid, 0) + 1
    return counts


def vmstat():
    """/proc/vmstat as {counter: value}."""
    with open("/proc/vmstat") as f:
        return dict((k, int(v)) for k, v in (line.split() for line in f))


def node_zones(nid):
    """The zones of node @nid as /proc/zoneinfo shows them: a list of dicts
    with "free", "high" (watermark, boost included), "managed" pages and
    "reserve", what the zone keeps back from movable allocations (the last
    entry of its protection line, lowmem_reserve)."""
    zones, on, z = [], False, None
    with open("/proc/zoneinfo") as f:
        for line in f:
            w = line.split()
            if line.startswith("Node "):
                on = line.split(",")[0] == "Node %d" % nid
                z = None
                if on:
                    z = {"free": 0, "high": 0, "managed": 0, "reserve": 0}
                    zones.append(z)
            elif on and z is not None:
                if w[:2] == ["pages", "free"]:
                    z["free"] = int(w[2])
                elif w[:1] == ["high"]:
                    z["high"] = int(w[1])
                elif w[:1] == ["managed"]:
                    z["managed"] = int(w[1])
                elif w[:1] == ["protection:"]:
                    z["reserve"] = int(line.split("(")[1].split(")")[0].split(",")[-1])
    return [z for z in zones if z["managed"]]


def node_headroom_bp(nid):
    """Free memory of node @nid above each zone's high watermark and
    lowmem reserve, in bp of the node: what DAMOS's node_mem_headroom_bp
    goal measures (the per-CPU lists are not counted in either)."""
    total_kb, _ = node_mem(nid)
    pages = sum(max(0, z["free"] - z["high"] - z["reserve"]) for z in node_zones(nid))
    return pages * (os.sysconf("SC_PAGE_SIZE") // 1024) * 10000 // total_kb


def node_reserve_bp(nid):
    """The free memory of node @nid that node_mem_headroom_bp leaves out
    (each zone's high watermark and lowmem reserve, at most its free
    pages), in bp of the node: the free floor DAMON_TIER keeps its target
    above."""
    total_kb, _ = node_mem(nid)
    pages = sum(min(z["free"], z["high"] + z["reserve"]) for z in node_zones(nid))
    return pages * (os.sysconf("SC_PAGE_SIZE") // 1024) * 10000 // total_kb


def node_unreclaimable(nid):
    """/proc/zoneinfo's node_unreclaimable of node @nid: 1 once kswapd has
    given up on it (MAX_RECLAIM_RETRIES runs without progress), when
    wakeup_kswapd() leaves it alone."""
    on = False
    with open("/proc/zoneinfo") as f:
        for line in f:
            if line.startswith("Node "):
                on = line.split(",")[0] == "Node %d" % nid
            elif on and line.split()[:1] == ["node_unreclaimable:"]:
                return int(line.split()[1])
    raise RuntimeError("no node_unreclaimable for node%d" % nid)


DAMON_KD = "/sys/kernel/mm/damon/admin/kdamonds"
DAMON_S0 = DAMON_KD + "/0/contexts/0/schemes/0"


def damon_sysfs_release():
    """Teardown of a test that set up one DAMON sysfs kdamond: turn it off,
    if it runs, and remove its directory."""
    state_write(DAMON_KD + "/0", "off")
    write_file(DAMON_KD + "/nr_kdamonds", "0")


def paddr_scheme(start, end, action, target_nid):
    """Set up one paddr kdamond watching PFNs [start, end) with one scheme
    that applies @action toward @target_nid to every region, no quota.
    The kdamond is left off; see paddr_scheme_run()."""
    ctx = DAMON_KD + "/0/contexts/0"
    must_write(DAMON_KD + "/nr_kdamonds", "1")
    must_write(DAMON_KD + "/0/contexts/nr_contexts", "1")
    must_write(ctx + "/operations", "paddr")
    must_write(ctx + "/targets/nr_targets", "1")
    must_write(ctx + "/targets/0/regions/nr_regions", "1")
    must_write(ctx + "/targets/0/regions/0/start", str(start * 4096))
    must_write(ctx + "/targets/0/regions/0/end", str(end * 4096))
    must_write(ctx + "/schemes/nr_schemes", "1")
    must_write(DAMON_S0 + "/action", action)
    must_write(DAMON_S0 + "/target_nid", str(target_nid))
    for k, v in (("sz/max", str(2**63)), ("nr_accesses/max", "4294967295"),
                 ("age/max", "4294967295")):
        must_write(DAMON_S0 + "/access_pattern/" + k, v)


def paddr_scheme_run(seconds):
    """Run the kdamond paddr_scheme() set up for @seconds, then remove it;
    the scheme's stats."""
    state_command(DAMON_KD + "/0", "on")
    try:
        time.sleep(seconds)
        state_command(DAMON_KD + "/0", "update_schemes_stats")
        return {k: int(read_file(DAMON_S0 + "/stats/" + k)) for k in (
            "sz_tried", "sz_applied", "sz_skipped_mlock", "sz_skipped_policy")}
    finally:
        damon_sysfs_release()
