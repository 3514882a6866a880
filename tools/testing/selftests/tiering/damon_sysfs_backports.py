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
- contexts/<C>/pause (7.2): Y/N, bad writes refused; a kdamond started or
  committed paused tries nothing (sz_tried stays), yet takes commands: a
  tried-bytes update ends at once with none, a commit that unpauses it
  makes it try memory again, and off stops it.  A context that
  watermarks deactivate takes a commit too (6.12 kept the writer waiting
  until the watermarks activated it).
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

# The fixed range each fvaddr target monitors: 1 MiB at (i + 1) GiB.
RANGES = [((i + 1) << 30, ((i + 1) << 30) + (1 << 20)) for i in range(3)]


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
    expect(read(t1) == "N", "obsolete_target defaults to N")
    for bad in ("maybe", "2", "\n", "-1"):
        err = write(t1, bad)
        expect(err == errno.EINVAL and read(t1) == "N",
               "obsolete_target refuses %r (%s), unchanged" % (bad, err))
    for val, want in (("Y", "Y"), ("0", "N"), ("1", "Y"), ("n", "N")):
        expect(write(t1, val) == 0 and read(t1) == want,
               "obsolete_target takes %r, reads %s" % (val, want))
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
    for k, v in (("sz/max", str(2**63)), ("nr_accesses/max", "4294967295"),
                 ("age/max", "4294967295")):
        must(S0 + "/access_pattern/" + k, v)
    for d in ("core_filters", "ops_filters", "filters"):
        expect(read("%s/%s/nr_filters" % (S0, d)) == "0", "%s/nr_filters starts at 0" % d)
        expect(write("%s/%s/nr_filters" % (S0, d), "-1") == errno.EINVAL,
               "%s/nr_filters refuses -1" % d)
        must("%s/%s/nr_filters" % (S0, d), "1")
    layers = {"core_filters": ("addr", "target"),
              "ops_filters": ("anon", "memcg", "young"),
              "filters": ("anon", "memcg", "young", "addr", "target")}
    for d, good in layers.items():
        f = "%s/%s/0/type" % (S0, d)
        for t in ("anon", "memcg", "young", "addr", "target"):
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
    for k, v in (("sz/max", str(2**63)), ("nr_accesses/max", "4294967295"),
                 ("age/max", "4294967295")):
        must(S0 + "/access_pattern/" + k, v)
    p = CTX + "/pause"
    expect(read(p) == "N", "pause defaults to N")
    for bad in ("maybe", "2", "\n", "-1"):
        err = write(p, bad)
        expect(err == errno.EINVAL and read(p) == "N",
               "pause refuses %r (%s), unchanged" % (bad, err))
    for val, want in (("True", "Y"), ("False", "N"), ("1", "Y"), ("n", "N")):
        expect(write(p, val) == 0 and read(p) == want,
               "pause takes %r, reads %s" % (val, want))
    must(p, "Y")
    tiering_util.state_command(KD + "/0", "on")
    time.sleep(2)
    a = sz_tried()
    expect(a == 0, "started paused: nothing tried (%d bytes)" % a)
    err = timed_state_write("update_schemes_tried_bytes")
    total = read(S0 + "/tried_regions/total_bytes")
    expect(err == 0 and total == "0",
           "paused: a tried-bytes update ends (%s), with none (%s)" % (err, total))
    expect(timed_state_write("commit") == 0 and sz_tried() == 0,
           "paused: a commit keeping it paused is taken, nothing tried")
    must(p, "N")
    expect(timed_state_write("commit") == 0, "paused: the commit unpausing it is taken")
    b = tiering_util.poll(sz_tried, lambda v: v > 0, 10)
    expect(b > 0, "unpaused: the scheme tries memory (%d bytes)" % b)
    must(p, "Y")
    expect(timed_state_write("commit") == 0, "a running kdamond takes pause")
    time.sleep(1)
    a = sz_tried()
    time.sleep(2)
    b = sz_tried()
    expect(b == a, "paused again: nothing tried (%d bytes in 2 s)" % (b - a))
    expect(timed_state_write("off") == 0 and read(KD + "/0/state") == "off",
           "off stops a paused kdamond")
    # Watermarks that keep the scheme inactive: commits are still taken.
    must(p, "N")
    w = S0 + "/watermarks/"
    for f, v in (("metric", "free_mem_rate"), ("interval_us", "100000"),
                 ("high", "0"), ("mid", "0"), ("low", "0")):
        must(w + f, v)
    tiering_util.state_command(KD + "/0", "on")
    must(S0 + "/access_pattern/age/min", "1")
    err = timed_state_write("commit")
    expect(err == 0 and read(KD + "/0/state") == "on",
           "deactivated by watermarks: a commit is taken (%s)" % err)
    tiering_util.state_command(KD + "/0", "off")
    tiering_util.damon_sysfs_release()


def test_refresh_ms():
    paddr_kdamond("stat")
    for k, v in (("sz/max", str(2**63)), ("nr_accesses/max", "4294967295"),
                 ("age/max", "4294967295")):
        must(S0 + "/access_pattern/" + k, v)
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
    test_pause()
    test_refresh_ms()
    test_dests()
    print("%d failures" % tiering_util.failures)
    return 1 if tiering_util.failures else 0


if __name__ == "__main__":
    sys.exit(main())
