#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""klruscand and kpromoted: their sysfs files, and what they promote.

  - defaults, bad and out-of-range input (EINVAL, nothing changed), the
    range limits, and concurrent writers of every file;
  - enabled=1 starts the klruscand and kpromoted threads, 0 stops both;
  - with node0 roomy, a hot set on the lowest tier moves up (move_pages(2)
    counts), a cold set beside it does not, and a bound, an interleaved
    and an mlocked hot buffer stay where their users put them; where the
    lowest tier has a second node (2cxl), a hot set there moves up too, in
    the same scans (one walk of each process covers every lower node);
  - the vmstat counters move and agree: every promotion is in
    kpromoted_mig_promoted and pgpromote_success, and the refusals of
    policy-bound memory in kpromoted_mig_dropped;
  - the mm_migrate_pages trace events of the run name kpromoted as their
    reason, and their nr_succeeded add up to pgpromote_success;
  - while MGLRU is disabled at run time klruscand reports nothing, and
    again once it is enabled;
  - every buffer's data is intact.

NUMA balancing is turned off for the run (it would promote the same hot
set from its hint faults) and restored after.

  klruscand.py [--seconds S] [--min-share F]
"""
import argparse
import os
import re
import sys
import threading
import time

import tiering_util
from damon_tier_placement import Buffer, cold_counts

KL = "/sys/kernel/mm/klruscand"
KP = "/sys/kernel/mm/kpromoted"
LRU_GEN = "/sys/kernel/mm/lru_gen/enabled"
TRACE = "/sys/kernel/tracing"
MIGRATE_EV = TRACE + "/events/migrate/mm_migrate_pages/enable"
MIGRATED = re.compile(r"mm_migrate_pages: nr_succeeded=(\d+) .* reason=(\w+)")

expect = tiering_util.expect
read = tiering_util.read_file
put = tiering_util.must_write
write = tiering_util.write_file

# file: (default, lowest, highest)
FILES = {
    KL + "/enabled": ("0", 0, 1),
    KL + "/scan_interval_ms": ("2000", 100, 60000),
    KP + "/promote_rate_limit_MBps": ("256", 1, 1048576),
    KP + "/window_ms": ("4000", 100, 600000),
    KP + "/threshold": ("2", 1, 254),
}


def vmstat():
    # Fold the per-CPU deltas of node counters (pgpromote_success) first:
    # events (kpromoted_*) are summed exactly, those are not.
    write("/proc/sys/vm/stat_refresh", "1")
    return tiering_util.vmstat()


def migrations():
    """{reason: pages} from the mm_migrate_pages events in the trace buffer."""
    out = {}
    with open(TRACE + "/trace") as f:
        for m in MIGRATED.finditer(f.read()):
            out[m.group(2)] = out.get(m.group(2), 0) + int(m.group(1))
    return out


def threads(name):
    """The pids of kernel threads called @name."""
    out = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open("/proc/%s/comm" % pid) as f:
                    if f.read().strip() == name:
                        out.append(int(pid))
            except OSError:
                pass
    return out


def check_files():
    for path, (dflt, lo, hi) in FILES.items():
        name = path[len("/sys/kernel/mm/"):]
        expect(read(path) == dflt, "%s defaults to %s (%s)" % (name, dflt, read(path)))
        for bad in ("abc", "-1", "1x", "0x10", " ", str(lo - 1), str(hi + 1),
                    "4294967296", "1 2"):
            if bad == str(lo - 1) and lo == 0:
                continue
            err = write(path, bad)
            expect(err == 22 and read(path) == dflt,
                   "%s refuses %r with EINVAL, unchanged (errno %d, %s)" % (
                       name, bad, err, read(path)))
        if path.endswith("/enabled"):
            continue
        for good in (str(lo), str(hi), dflt + "\n"):
            err = write(path, good)
            expect(err == 0 and read(path) == good.strip(),
                   "%s takes %r (%s)" % (name, good, read(path)))
        put(path, dflt)


def check_concurrent():
    """Writers of every file at once: no error but EINVAL, a consistent
    end state."""
    stop = time.time() + 3
    errors = []

    def writer(path, vals):
        i = 0
        while time.time() < stop:
            err = write(path, vals[i % len(vals)])
            if err not in (0, 22):
                errors.append((path, err))
            i += 1

    ts = [threading.Thread(target=writer, args=a) for a in (
        (KL + "/enabled", ["1", "0", "2"]),
        (KL + "/enabled", ["0", "1"]),
        (KL + "/scan_interval_ms", ["100", "99", "2000"]),
        (KP + "/threshold", ["3", "0", "2"]),
        (KP + "/window_ms", ["100", "4000", "x"]),
        (KP + "/promote_rate_limit_MBps", ["1", "256"]))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    expect(not errors, "concurrent writers see only success or EINVAL (%s)" % errors[:3])
    on = read(KL + "/enabled")
    expect(len(threads("klruscand")) == int(on) and len(threads("kpromoted")) == int(on),
           "after them, enabled=%s and %s klruscand/kpromoted threads" % (
               on, len(threads("klruscand"))))
    put(KL + "/enabled", "0")
    for path, (dflt, _, _) in FILES.items():
        put(path, dflt)
    expect(not threads("klruscand") and not threads("kpromoted"),
           "enabled=0 leaves no klruscand or kpromoted thread")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--min-share", type=float, default=0.9)
    a = ap.parse_args()

    t = tiering_util.tiers()
    top, bottom = t[0][0], t[-1][0]
    second = t[-1][1] if len(t[-1]) > 1 else None
    put("/sys/kernel/mm/transparent_hugepage/enabled", "never")
    saved = {p: read(p) for p in ("/proc/sys/kernel/numa_balancing", LRU_GEN,
                                  TRACE + "/buffer_size_kb")}
    put("/proc/sys/kernel/numa_balancing", "0")

    check_files()
    check_concurrent()

    run_for = a.seconds + 40
    bufs, cold, locked = [], None, None
    try:
        hot = Buffer("hot set", "hot", 64, bottom, run_for)
        bufs.append(hot)
        hots = [hot]
        if second is not None:
            hots.append(Buffer("hot set on node%d" % second, "hot", 64, second, run_for))
            bufs.append(hots[-1])
        bound = Buffer("bound to node%d" % bottom, "hot", 16, bottom, run_for,
                       {"TIER_WORKLOAD_POLICY": "bind"})
        bufs.append(bound)
        il = Buffer("interleaved", "hot", 32, top, run_for,
                    {"TIER_WORKLOAD_POLICY": "interleave",
                     "TIER_WORKLOAD_NODES": "%d,%d" % (top, bottom)})
        bufs.append(il)
        locked = Buffer("mlocked", "hot", 16, bottom, run_for, {"TIER_WORKLOAD_MLOCK": "1"})
        bufs.append(locked)
        cold = Buffer("cold set", "cold", 32, bottom, 0)
        time.sleep(2)
        for b in bufs:
            b.poll()
        il_before = il.share(top)
        expect(hot.share(bottom) == 1.0, "hot set placed on node%d" % bottom)
        # The buffer holds a batch of up to 32 folios an event: room for
        # far more promotions than the run makes.
        put(TRACE + "/buffer_size_kb", "4096")
        put(TRACE + "/trace", "")
        put(MIGRATE_EV, "1")
        v0 = vmstat()
        put(KL + "/enabled", "1")
        expect(read(KL + "/enabled") == "1" and len(threads("klruscand")) == 1 and
               len(threads("kpromoted")) == 1,
               "enabled=1 starts one klruscand and one kpromoted thread")
        t0, reached = time.time(), None
        while time.time() - t0 < a.seconds:
            time.sleep(2)
            for b in bufs:
                b.poll()
            if reached is None and min(h.share(top) for h in hots) >= a.min_share:
                reached = time.time() - t0
            v = vmstat()
            print("t=%3.0fs hot %s on node%d  bound %.1f%%  interleaved %.1f%%  "
                  "mlocked %.1f%% on node%d  recorded %d candidates %d promoted %d "
                  "dropped %d" % (
                      time.time() - t0, " ".join("%.1f%%" % (h.share(top) * 100) for h in hots),
                      top,
                      bound.share(bottom) * 100, il.share(top) * 100,
                      locked.share(bottom) * 100, bottom,
                      v["kpromoted_recorded_pgtscans"] - v0["kpromoted_recorded_pgtscans"],
                      v["kpromoted_mig_candidate"] - v0["kpromoted_mig_candidate"],
                      v["kpromoted_mig_promoted"] - v0["kpromoted_mig_promoted"],
                      v["kpromoted_mig_dropped"] - v0["kpromoted_mig_dropped"]))
            if reached is not None and time.time() - t0 > reached + 6:
                break
        print("%d%% of the hot set on node%d: %s" % (
            a.min_share * 100, top, "after %.0fs" % reached if reached else "never"))
        for h in hots:
            expect(h.share(top) >= a.min_share,
                   "%s moved up: %.1f%% on node%d (at least %.0f%%)" % (
                       h.name, h.share(top) * 100, top, a.min_share * 100))
        cc = cold_counts(cold.p.pid, 32)
        expect(cc.get(bottom, 0) == 32 * 256,
               "cold set stays on node%d (%s)" % (bottom, cc))
        expect(bound.share(bottom) == 1.0,
               "bound buffer stays on node%d (%.2f%%)" % (bottom, bound.share(bottom) * 100))
        expect(abs(il.share(top) - il_before) < 0.005,
               "interleaved buffer keeps its split (%.2f%% -> %.2f%% on node%d)" % (
                   il_before * 100, il.share(top) * 100, top))
        expect(locked.share(bottom) == 1.0,
               "mlocked buffer stays on node%d (%.2f%%)" % (bottom, locked.share(bottom) * 100))

        # Promotion goes on while the counts are read: the hot set's pages
        # on node0 before and after the counters bound what they may say
        # (the workload reports its pages' nodes once a second).
        for h in hots:
            h.poll()
        up = sum(h.counts.get(top, 0) for h in hots)
        v = vmstat()
        time.sleep(2.5)
        for h in hots:
            h.poll()
        up_after = sum(h.counts.get(top, 0) for h in hots)
        d = dict((k, v[k] - v0.get(k, 0)) for k in v
                 if k.startswith(("kpromoted", "pgpromote", "klruscand")))
        # Walks yield to the workload's mprotect() calls and retry, so the
        # hot set is walked; a skip is rare but allowed.
        expect("klruscand_mm_skipped" in d,
               "/proc/vmstat counts skipped processes (%s)" % d.get("klruscand_mm_skipped"))
        print("vmstat deltas: %s" % " ".join("%s=%d" % kv for kv in sorted(d.items())))
        expect(d["kpromoted_recorded_pgtscans"] > 0 and
               d["kpromoted_recorded_accesses"] == d["kpromoted_recorded_pgtscans"] and
               d["kpromoted_recorded_hwhints"] == 0,
               "page-table scans reported accesses, and nothing else did")
        expect(d["kpromoted_record_added"] > 0 and d["kpromoted_record_exists"] > 0,
               "records were added and updated")
        # Other processes' hot pages on the lower node may move too.
        expect(up <= d["kpromoted_mig_promoted"] <= up_after + 2048,
               "promotions cover the hot sets' %d..%d pages on node%d (%d)" % (
                   up, up_after, top, d["kpromoted_mig_promoted"]))
        expect(d["kpromoted_mig_candidate"] >= d["kpromoted_mig_promoted"],
               "every promotion was a candidate first")
        expect(d["kpromoted_mig_dropped"] > 0,
               "candidates their policies keep below were dropped (%d)" %
               d["kpromoted_mig_dropped"])

        # MGLRU off: klruscand stays enabled and reports nothing.
        put(LRU_GEN, "n")
        time.sleep(3)
        r0 = vmstat()["kpromoted_recorded_pgtscans"]
        time.sleep(5)
        r1 = vmstat()["kpromoted_recorded_pgtscans"]
        expect(read(KL + "/enabled") == "1" and r1 == r0,
               "with MGLRU disabled klruscand reports nothing (%d)" % (r1 - r0))
        put(LRU_GEN, "y")
        time.sleep(5)
        r2 = vmstat()["kpromoted_recorded_pgtscans"]
        expect(r2 > r1, "with MGLRU enabled again it reports (%d)" % (r2 - r1))

        put(KL + "/enabled", "0")
        expect(not threads("klruscand") and not threads("kpromoted"),
               "enabled=0 stops both threads")
        v = vmstat()
        write(MIGRATE_EV, "0")
        r0 = v["kpromoted_recorded_accesses"]
        time.sleep(4)
        expect(vmstat()["kpromoted_recorded_accesses"] == r0,
               "and nothing is reported after")
        # With nothing promoting, the per-CPU deltas of pgpromote_success
        # are all folded in: every promotion counted in both.
        prom = v["kpromoted_mig_promoted"] - v0["kpromoted_mig_promoted"]
        succ = v["pgpromote_success"] - v0["pgpromote_success"]
        expect(prom == succ, "kpromoted_mig_promoted = pgpromote_success over the run "
               "(%d, %d)" % (prom, succ))
        traced = migrations()
        expect(traced.get("kpromoted", 0) == succ and "numa_misplaced" not in traced,
               "mm_migrate_pages events: reason=kpromoted for the %d pages promoted, "
               "none numa_misplaced (%s)" % (succ, traced))
    finally:
        write(KL + "/enabled", "0")
        write(MIGRATE_EV, "0")
        for b in bufs + [x for x in (cold,) if x]:
            b.finish()
        for path, val in saved.items():
            write(path, val)
    print("%d failures" % tiering_util.failures)
    return 1 if tiering_util.failures else 0


if __name__ == "__main__":
    sys.exit(main())
