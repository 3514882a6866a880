#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""DAMON sysfs files backported from mainline, through their effect on a
running kdamond.

- targets/<T>/obsolete_target (6.19): Y/N, bad writes refused; a commit
  removes the running target of each obsolete one and keeps the others in
  order; an obsolete target without a running one to remove makes the
  commit fail with EINVAL and leaves the kdamond running as it was.
  Which targets run is read from the regions the damon_aggregated trace
  event reports: each target monitors its own fixed range (fvaddr).
- schemes/<S>/core_filters/ and ops_filters/ (6.15): a filter's type file
  takes only the types of its layer (EINVAL otherwise, type unchanged),
  filters/ takes any; a core_filters addr filter rejecting all memory
  keeps a running scheme from trying anything (sz_tried stops growing).
- the active, hugepage_size and unmapped filter types (6.15), with the
  min and max files: ops_filters/ takes them, core_filters/ does not; a
  hugepage_size filter whose min is above its max fails on and commit;
  and on the physical pages of a mapped buffer, a migrate_cold scheme
  with one reject filter leaves the pages the filter matches on node0
  and demotes the others (move_pages(2) counts), for unmapped with
  matching Y and N, and for hugepage_size ranges holding every folio
  size and none.
- the collapse action: a vaddr scheme collapses a process' 4 KiB pages
  into huge pages (AnonHugePages grows from 0).
- contexts/<C>/pause (7.2): Y/N, bad writes refused; a kdamond started or
  committed paused tries nothing (sz_tried stays), yet takes commands: a
  tried-bytes update fails with ECANCELED and leaves none, a commit that
  unpauses it makes it try memory again, and off stops it.  A context
  that watermarks deactivate takes a commit too, which here lifts them
  (6.12 kept the writer waiting until the watermarks activated it).
- a tried-regions update ends after the scheme was applied, also while
  the intervals tuning reschedules it at every aggregation.
- kdamonds/<K>/refresh_ms (6.17): an unsigned integer, bad writes
  refused and nothing changed; while it is non-zero the running kdamond
  refreshes the schemes' stats files by itself, 0 stops that at once,
  and kdamonds turned on and off with it set (its request is freed when
  the kdamond stops) leave no splat behind.
- schemes/<S>/dests/ (6.17): nr_dests makes 0..N-1 directories of id and
  weight (unsigned integers), bad writes refused and nothing changed; on
  and commit take a scheme with destinations, and with none again.
"""
import errno
import os
import subprocess
import sys
import threading
import time

import tiering_util

ADMIN = "/sys/kernel/mm/damon/admin"
KD = ADMIN + "/kdamonds"
CTX = KD + "/0/contexts/0"
S0 = CTX + "/schemes/0"

write = tiering_util.write_file
read = tiering_util.read_file
expect = tiering_util.expect
must = tiering_util.must_write

WORKLOAD = os.path.join(os.environ.get("BUILD", ""), "kselftest/tiering/tier_workload")
MB = 32

# The fixed range each fvaddr target monitors: 1 MiB at (i + 1) GiB.
RANGES = [((i + 1) << 30, ((i + 1) << 30) + (1 << 20)) for i in range(3)]


def check_bool_file(path, goods):
    """A Y/N file: N by default, bad writes refused with EINVAL and the value
    unchanged, each (written, read back) pair of @goods taken."""
    name = os.path.basename(path)
    expect(read(path) == "N", "%s defaults to N" % name)
    for bad in ("maybe", "2", "\n", "-1"):
        err = write(path, bad)
        expect(err == errno.EINVAL and read(path) == "N",
               "%s refuses %r (%s), unchanged" % (name, bad, err))
    for val, want in goods:
        expect(write(path, val) == 0 and read(path) == want,
               "%s takes %r, reads %s" % (name, val, want))


def running_ranges(secs=5):
    """Which of RANGES the kdamond reports regions in, over @secs."""
    pid = int(read(KD + "/0/pid"))
    seen, err = tiering_util.aggregated_regions(lambda s: False, secs)
    if err:
        raise OSError(err, "cannot enable damon_aggregated")
    return sorted({i for p, start, _ in seen if p == pid
                   for i, (lo, hi) in enumerate(RANGES) if lo <= start < hi})


def test_obsolete_target():
    must(KD + "/nr_kdamonds", "1")
    must(KD + "/0/contexts/nr_contexts", "1")
    must(CTX + "/operations", "fvaddr")
    must(CTX + "/targets/nr_targets", "3")
    for i, (lo, hi) in enumerate(RANGES):
        t = "%s/targets/%d" % (CTX, i)
        must(t + "/pid_target", str(os.getpid()))
        must(t + "/regions/nr_regions", "1")
        must(t + "/regions/0/start", str(lo))
        must(t + "/regions/0/end", str(hi))
    t1 = CTX + "/targets/1/obsolete_target"
    check_bool_file(t1, (("Y", "Y"), ("0", "N"), ("1", "Y"), ("n", "N")))
    # Starting ignores obsolete: there is nothing to remove yet.
    must(t1, "Y")
    tiering_util.state_command(KD + "/0", "on")
    ranges = running_ranges()
    expect(ranges == [0, 1, 2], "on: all three targets run (%s)" % ranges)
    # The middle one goes, the other two stay in their order.
    expect(tiering_util.state_write(KD + "/0", "commit") == 0,
           "commit with targets/1 obsolete")
    ranges = running_ranges()
    expect(ranges == [0, 2], "the commit removed the middle target (%s run)" % ranges)
    # Two targets run: an obsolete third has nothing to remove.
    must(CTX + "/targets/2/obsolete_target", "Y")
    err = tiering_util.state_write(KD + "/0", "commit")
    expect(err == errno.EINVAL, "commit with targets/2 obsolete, two running: "
           "EINVAL (%s)" % err)
    ranges = running_ranges()
    expect(read(KD + "/0/state") == "on" and ranges == [0, 2],
           "the kdamond runs on as it was (%s, %s run)" % (read(KD + "/0/state"), ranges))
    tiering_util.state_command(KD + "/0", "off")
    tiering_util.damon_sysfs_release()


def sz_tried():
    tiering_util.state_command(KD + "/0", "update_schemes_stats")
    return int(read(S0 + "/stats/sz_tried"))


def match_every_region():
    """Make scheme 0's access pattern match every region."""
    for k, v in (("sz/max", str(2**63)), ("nr_accesses/max", "4294967295"),
                 ("age/max", "4294967295")):
        must(S0 + "/access_pattern/" + k, v)


def paddr_kdamond(action):
    """A paddr kdamond over node0 with one @action scheme, left off."""
    must(KD + "/nr_kdamonds", "1")
    must(KD + "/0/contexts/nr_contexts", "1")
    must(CTX + "/operations", "paddr")
    must(CTX + "/targets/nr_targets", "1")
    lo, hi = tiering_util.node_range(0)
    must(CTX + "/targets/0/regions/nr_regions", "1")
    must(CTX + "/targets/0/regions/0/start", str(lo))
    must(CTX + "/targets/0/regions/0/end", str(hi))
    must(CTX + "/schemes/nr_schemes", "1")
    must(S0 + "/action", action)


def test_layer_filters():
    paddr_kdamond("stat")
    match_every_region()
    for d in ("core_filters", "ops_filters", "filters"):
        expect(read("%s/%s/nr_filters" % (S0, d)) == "0", "%s/nr_filters starts at 0" % d)
        expect(write("%s/%s/nr_filters" % (S0, d), "-1") == errno.EINVAL,
               "%s/nr_filters refuses -1" % d)
        must("%s/%s/nr_filters" % (S0, d), "1")
    ops = ("anon", "active", "memcg", "young", "hugepage_size", "unmapped")
    layers = {"core_filters": ("addr", "target"),
              "ops_filters": ops,
              "filters": ops + ("addr", "target")}
    for d, good in layers.items():
        f = "%s/%s/0/type" % (S0, d)
        for t in ops + ("addr", "target"):
            before = read(f)
            err = write(f, t)
            if t in good:
                expect(err == 0 and read(f) == t, "%s takes type %s" % (d, t))
            else:
                expect(err == errno.EINVAL and read(f) == before,
                       "%s refuses type %s (%s), keeps %s" % (d, t, err, before))
    # Only the scheme's own filters below: none for now.
    for d in ("core_filters", "ops_filters", "filters"):
        must("%s/%s/nr_filters" % (S0, d), "0")
    tiering_util.state_command(KD + "/0", "on")
    a = sz_tried()
    time.sleep(2)
    b = sz_tried()
    expect(b > a, "without filters the scheme tries memory (%d bytes in 2 s)" % (b - a))
    must(S0 + "/core_filters/nr_filters", "1")
    f = S0 + "/core_filters/0"
    must(f + "/type", "addr")
    must(f + "/addr_start", "0")
    must(f + "/addr_end", str(2**63))
    must(f + "/matching", "Y")
    must(f + "/allow", "N")
    tiering_util.state_command(KD + "/0", "commit")
    time.sleep(1)
    a = sz_tried()
    time.sleep(2)
    b = sz_tried()
    expect(b == a, "a core_filters addr filter rejecting all memory: nothing "
           "tried (%d bytes in 2 s)" % (b - a))
    tiering_util.state_command(KD + "/0", "off")
    tiering_util.damon_sysfs_release()


def test_size_range_files():
    paddr_kdamond("stat")
    f = S0 + "/ops_filters/0"
    must(S0 + "/ops_filters/nr_filters", "1")
    for name in ("min", "max"):
        expect(read("%s/%s" % (f, name)) == "0", "%s starts at 0" % name)
        for bad in ("-1", "x", "\n", "18446744073709551616"):
            err = write("%s/%s" % (f, name), bad)
            expect(err in (errno.EINVAL, errno.ERANGE) and read("%s/%s" % (f, name)) == "0",
                   "%s refuses %r (%s), unchanged" % (name, bad, err))
    must(f + "/type", "hugepage_size")
    must(f + "/min", "0x200000")
    must(f + "/max", "4096")
    expect(read(f + "/min") == "2097152", "min reads back 2097152")
    err = tiering_util.state_write(KD + "/0", "on")
    expect(err != 0 and read(KD + "/0/state") == "off",
           "on refuses hugepage_size min > max (%s)" % err)
    must(f + "/max", "2097152")
    tiering_util.state_command(KD + "/0", "on")
    must(f + "/max", "4096")
    err = tiering_util.state_write(KD + "/0", "commit")
    expect(err != 0 and read(KD + "/0/state") == "on",
           "commit refuses min > max (%s), the kdamond runs on" % err)
    tiering_util.state_command(KD + "/0", "off")
    tiering_util.damon_sysfs_release()


def filtered_demotion(ftype, matching, size_range=None):
    """Demote the physical pages of a mapped 32 MiB buffer on node0 with a
    migrate_cold scheme that has one ops_filters reject filter; the
    buffer's pages per node afterwards."""
    p = subprocess.Popen([WORKLOAD, "cold", str(MB), "0"], stdout=subprocess.PIPE,
                         text=True)
    try:
        expect(p.stdout.readline().strip() == "ready", "buffer placed")
        start, end = tiering_util.longest_run(tiering_util.buffer_pfns(p.pid, MB))
        expect(end - start >= 16, "a run of %d pages to watch" % (end - start))
        tiering_util.paddr_scheme(start, end, "migrate_cold", 1)
        f = S0 + "/ops_filters/0"
        must(S0 + "/ops_filters/nr_filters", "1")
        must(f + "/type", ftype)
        must(f + "/matching", matching)
        must(f + "/allow", "N")
        if size_range:
            must(f + "/min", str(size_range[0]))
            must(f + "/max", str(size_range[1]))
        tiering_util.paddr_scheme_run(3)
        counts = tiering_util.buffer_nodes(p.pid, MB)
        return end - start, counts
    finally:
        p.terminate()
        out, _ = p.communicate(timeout=60)
        expect(p.returncode == 0 and "intact" in out, "data intact")


def test_filter_types():
    # (type, matching, min/max, whether the filter matches the buffer's
    # mapped anonymous pages, of 4 KiB or 2 MiB folios)
    cases = (("unmapped", "Y", None, False),
             ("unmapped", "N", None, True),
             ("hugepage_size", "Y", (4096, 2 << 20), True),
             ("hugepage_size", "Y", (4 << 30, 8 << 30), False))
    for ftype, matching, size_range, matches in cases:
        run, counts = filtered_demotion(ftype, matching, size_range)
        what = "%s matching %s%s" % (ftype, matching,
                                      " %s" % (size_range,) if size_range else "")
        print("%s: run of %d pages, buffer pages per node %s" % (what, run, counts))
        if matches:
            expect(counts.get(0, 0) == MB * 256,
                   "%s rejects the buffer: all of it stays on node0" % what)
        else:
            expect(counts.get(1, 0) >= run * 9 // 10,
                   "%s does not match: the run is demoted" % what)


CHILD = """
import mmap, sys, time
buf = mmap.mmap(-1, 8 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
for off in range(0, 8 << 20, 4096):
    buf[off] = 1
print("ready", flush=True)
time.sleep(60)
"""


def anon_huge_kb(pid):
    with open("/proc/%d/smaps_rollup" % pid) as f:
        for line in f:
            if line.startswith("AnonHugePages:"):
                return int(line.split()[1])
    return 0


def test_collapse():
    """The collapse action (DAMOS_COLLAPSE) collapses a process' 4 KiB
    pages into huge pages: AnonHugePages of smaps_rollup grows from 0."""
    thp = "/sys/kernel/mm/transparent_hugepage/enabled"
    if not os.path.exists(thp):
        print("no THP: collapse not checked")
        return
    mode = read(thp).split("[")[1].split("]")[0]
    must(thp, "madvise")
    p = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True)
    try:
        expect(p.stdout.readline().strip() == "ready", "buffer touched")
        before = anon_huge_kb(p.pid)
        must(KD + "/nr_kdamonds", "1")
        must(KD + "/0/contexts/nr_contexts", "1")
        must(CTX + "/operations", "vaddr")
        must(CTX + "/targets/nr_targets", "1")
        must(CTX + "/targets/0/pid_target", str(p.pid))
        must(CTX + "/schemes/nr_schemes", "1")
        expect(write(S0 + "/action", "collapse") == 0 and read(S0 + "/action") == "collapse",
               "action takes collapse")
        match_every_region()
        tiering_util.state_command(KD + "/0", "on")
        after = tiering_util.poll(lambda: anon_huge_kb(p.pid), lambda v: v >= 2048, 20)
        expect(before == 0 and after >= 2048,
               "collapse: AnonHugePages %d kB -> %d kB" % (before, after))
        tiering_util.state_command(KD + "/0", "off")
    finally:
        p.kill()
        p.wait()
        must(thp, mode)
        tiering_util.damon_sysfs_release()


def timed_state_write(cmd, secs=30):
    """state_write() that gives up after @secs: None if the kdamond never
    took the command."""
    res = []
    th = threading.Thread(target=lambda: res.append(
        tiering_util.state_write(KD + "/0", cmd)), daemon=True)
    th.start()
    th.join(secs)
    return res[0] if res else None


def test_pause():
    paddr_kdamond("stat")
    match_every_region()
    p = CTX + "/pause"
    check_bool_file(p, (("True", "Y"), ("False", "N"), ("1", "Y"), ("n", "N")))
    must(p, "Y")
    tiering_util.state_command(KD + "/0", "on")
    time.sleep(2)
    a = sz_tried()
    expect(a == 0, "started paused: nothing tried (%d bytes)" % a)
    expect(timed_state_write("commit") == 0 and sz_tried() == 0,
           "paused: a commit keeping it paused is taken, nothing tried")
    must(p, "N")
    expect(timed_state_write("commit") == 0, "paused: the commit unpausing it is taken")
    b = tiering_util.poll(sz_tried, lambda v: v > 0, 10)
    expect(b > 0, "unpaused: the scheme tries memory (%d bytes)" % b)
    total = S0 + "/tried_regions/total_bytes"
    err = timed_state_write("update_schemes_tried_bytes")
    expect(err == 0 and int(read(total)) > 0,
           "running: a tried-bytes update finds some (%s, %s)" % (err, read(total)))
    must(p, "Y")
    expect(timed_state_write("commit") == 0, "a running kdamond takes pause")
    time.sleep(1)
    a = sz_tried()
    time.sleep(2)
    b = sz_tried()
    expect(b == a, "paused again: nothing tried (%d bytes in 2 s)" % (b - a))
    err = timed_state_write("update_schemes_tried_bytes")
    expect(err == errno.ECANCELED and read(total) == "0",
           "paused: a tried-bytes update is canceled (%s), none left (%s)"
           % (err, read(total)))
    expect(timed_state_write("off") == 0 and read(KD + "/0/state") == "off",
           "off stops a paused kdamond")
    # Watermarks that keep the scheme inactive: a commit is taken at once,
    # here the one that lifts them.
    must(p, "N")
    w = S0 + "/watermarks/"
    for f, v in (("metric", "free_mem_rate"), ("interval_us", "100000"),
                 ("high", "0"), ("mid", "0"), ("low", "0")):
        must(w + f, v)
    tiering_util.state_command(KD + "/0", "on")
    time.sleep(1)
    expect(sz_tried() == 0, "deactivated by watermarks: nothing tried")
    must(w + "metric", "none")
    err = timed_state_write("commit")
    b = tiering_util.poll(sz_tried, lambda v: v > 0, 10)
    expect(err == 0 and b > 0,
           "deactivated by watermarks: a commit lifting them is taken (%s, %d bytes)"
           % (err, b))
    tiering_util.state_command(KD + "/0", "off")
    tiering_util.damon_sysfs_release()


def test_tried_regions_while_tuning():
    """A tried-regions update ends once the scheme was applied, also while
    the intervals tuning reschedules the scheme's next apply at every
    aggregation: it reports regions every time."""
    paddr_kdamond("stat")
    match_every_region()
    must(S0 + "/apply_interval_us", "400000")
    ig = CTX + "/monitoring_attrs/intervals/intervals_goal/"
    # A goal never met: every aggregation changes the intervals.
    for f, v in (("access_bp", "10000"), ("aggrs", "1"),
                 ("min_sample_us", "1000"), ("max_sample_us", "20000")):
        must(ig + f, v)
    tiering_util.state_command(KD + "/0", "on")
    nr = []
    for _ in range(5):
        tiering_util.state_command(KD + "/0", "update_schemes_tried_regions")
        nr.append(int(read(S0 + "/tried_regions/total_bytes")))
    expect(all(n > 0 for n in nr), "each update while tuning finds regions (%s bytes)" % nr)
    tiering_util.state_command(KD + "/0", "off")
    tiering_util.damon_sysfs_release()


def test_refresh_ms():
    paddr_kdamond("stat")
    match_every_region()
    r = KD + "/0/refresh_ms"
    expect(read(r) == "0", "refresh_ms defaults to 0")
    for bad in ("-1", "x", "4294967296", "\n"):
        err = write(r, bad)
        expect(err in (errno.EINVAL, errno.ERANGE) and read(r) == "0",
               "refresh_ms refuses %r (%s), unchanged" % (bad, err))
    for val, want in (("4294967295", "4294967295"), ("0x10", "16"), ("0", "0")):
        expect(write(r, val) == 0 and read(r) == want,
               "refresh_ms takes %r, reads %s" % (val, want))
    stat = S0 + "/stats/sz_tried"
    # On and off with refresh_ms set: each start queues a request the
    # kdamond frees when it stops.
    must(r, "100")
    for _ in range(5):
        tiering_util.state_command(KD + "/0", "on")
        tiering_util.state_command(KD + "/0", "off")
    tiering_util.state_command(KD + "/0", "on")
    a = int(read(stat))
    b = int(tiering_util.poll(lambda: read(stat), lambda v: int(v) > a, 10))
    expect(b > a, "refresh_ms 100: sz_tried refreshed by itself (%d -> %d)" % (a, b))
    must(r, "0")
    time.sleep(1)
    a = int(read(stat))
    time.sleep(2)
    b = int(read(stat))
    expect(b == a and sz_tried() > b,
           "refresh_ms 0: sz_tried stays (%d -> %d) until updated" % (a, b))
    must(r, "100")
    a = int(read(stat))
    b = int(tiering_util.poll(lambda: read(stat), lambda v: int(v) > a, 10))
    expect(b > a, "refresh_ms set on a running kdamond: refreshed (%d -> %d)" % (a, b))
    tiering_util.state_command(KD + "/0", "off")
    must(r, "0")
    tiering_util.damon_sysfs_release()


def test_dests():
    paddr_kdamond("migrate_cold")
    # Nothing is cold enough to move in the few seconds this runs.
    must(S0 + "/access_pattern/age/min", "4294967295")
    d = S0 + "/dests"
    expect(read(d + "/nr_dests") == "0", "dests/nr_dests starts at 0")
    for bad in ("-1", "x", "\n"):
        err = write(d + "/nr_dests", bad)
        expect(err == errno.EINVAL and read(d + "/nr_dests") == "0",
               "nr_dests refuses %r (%s), unchanged" % (bad, err))
    must(d + "/nr_dests", "2")
    expect(sorted(os.listdir(d)) == ["0", "1", "nr_dests"] and
           all(read("%s/%d/%s" % (d, i, f)) == "0" for i in (0, 1) for f in ("id", "weight")),
           "nr_dests 2: dests/0 and dests/1, id and weight 0")
    for f in ("id", "weight"):
        for bad in ("-1", "x", "4294967296"):
            err = write("%s/0/%s" % (d, f), bad)
            expect(err in (errno.EINVAL, errno.ERANGE) and read("%s/0/%s" % (d, f)) == "0",
                   "%s refuses %r (%s), unchanged" % (f, bad, err))
    for i, (nid, weight) in enumerate(((0, 3), (1, 7))):
        must("%s/%d/id" % (d, i), str(nid))
        must("%s/%d/weight" % (d, i), str(weight))
    expect([read("%s/%d/%s" % (d, i, f)) for i in (0, 1) for f in ("id", "weight")] ==
           ["0", "3", "1", "7"], "ids and weights read back")
    expect(tiering_util.state_write(KD + "/0", "on") == 0, "on with two destinations")
    must(d + "/nr_dests", "0")
    expect(tiering_util.state_write(KD + "/0", "commit") == 0 and
           read(KD + "/0/state") == "on", "commit with none: still running")
    must(d + "/nr_dests", "1")
    expect(tiering_util.state_write(KD + "/0", "commit") == 0 and
           read(KD + "/0/state") == "on", "commit with one again: still running")
    tiering_util.state_command(KD + "/0", "off")
    tiering_util.damon_sysfs_release()


def main():
    if not os.path.isdir(ADMIN):
        print("no DAMON sysfs")
        return 4
    test_obsolete_target()
    test_layer_filters()
    test_size_range_files()
    test_filter_types()
    test_collapse()
    test_pause()
    test_tried_regions_while_tuning()
    test_refresh_ms()
    test_dests()
    print("%d failures" % tiering_util.failures)
    return 1 if tiering_util.failures else 0


if __name__ == "__main__":
    sys.exit(main())
