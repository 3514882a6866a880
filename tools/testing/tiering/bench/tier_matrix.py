#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Capacity-expansion workload matrix: the cells of one VM boot.

Every cell runs the same scenario with one mechanism: the top-tier node
filled to ~97% with data written once, then a hot set placed on a node of
the lowest tier and touched for the cell's seconds.  Samples every second:
the hot set's pages per node (move_pages(2), reported by tier_workload),
the top node's used memory, migration counters, the CPU time of the
mechanism's kernel threads and DAMON's tuned intervals.  Prints one JSON
object per cell; bench_matrix.py turns them into the report.

Kernel sysctls stay at their boot values (vm.min_free_kbytes,
vm.watermark_boost_factor, kernel.numa_balancing) unless a mechanism says
otherwise: "numa_balancing" sets kernel.numa_balancing=2 and
demotion_enabled=1, which is what that mechanism is.

  tier_matrix.py WORKLOAD CELLS_JSON

CELLS_JSON is a list of cells, each {"mech": M, "workload": W, "hot_mb": N,
"seconds": S, "run": R, "extra_cold_mb": E}: M one of MECHS, W "flush" (the hot set's TLB is
flushed after each pass: accessed bits set on every pass), "noflush" (never
flushed: accessed bits set only on TLB misses) or "change" (two sets of
hot_mb, A hot for the first half of the seconds, then B; no flush), N 0
for a goal that cannot be reached: a 200 MiB hot set and the top node's
cold data mlocked; E (optional) MiB of cold data mapped on the lowest tier
besides, for klruscand's walk to cover.

This script mlocks its own memory (as it faults it in) before the first
cell: what it touches at each sample or each cell (the interpreter's heap
and mapped files, a few MiB) would otherwise be demoted as idle and
promoted again when touched, and counted among the mechanism's moves per
hot byte although it is not the workload's.  The workloads it starts do not
inherit the lock.
"""
import ctypes
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "selftests", "tiering"))
import damo_mem_tier  # noqa: E402  (damo's recipe, as the kselftest runs it)
import tiering_util  # noqa: E402

PARAMS = "/sys/module/damon_tier/parameters"
KD = "/sys/kernel/mm/damon/admin/kdamonds"

# The mechanisms, and what each sets on top of the boot defaults.
MECHS = {
    # No tiering mechanism: the kernel as booted (NUMA balancing 1).
    "none": {},
    "numa_balancing": {"numa_balancing": "2", "demotion_enabled": "1"},
    # damon_tier on its defaults: demotion on the "gap" goal tuner.
    "damon_tier": {"damon_tier": {}},
    # The same on mainline's goal tuners.
    "damon_tier_consist": {"damon_tier": {"goal_tuner": "consist"}},
    "damon_tier_temporal": {"damon_tier": {"goal_tuner": "temporal"}},
    # The same with DAMON's opt-in TLB flush of the sampled pages.
    "damon_tier_tlbflush": {"damon_tier": {"tlb_flush": "Y"}},
    # damo's scripts/mem_tier.sh with the temporal tuner on both schemes.
    "damo_temporal": {"damo": damo_mem_tier.RECIPE_TEMPORAL},
    # klruscand + kpromoted on their defaults; they only promote, so
    # reclaim's demotion makes room (demotion_enabled=1, labelled).
    "klruscand": {"klruscand": True, "demotion_enabled": "1"},
    # Two promoters: damon_tier enabled first, then NUMA balancing's tiering
    # mode (kernel.numa_balancing=2, labelled), which damon_tier yields
    # promotion to while it keeps demoting (mm/tier_promoter.c).
    "damon_tier_then_nb": {"damon_tier": {}, "numa_balancing_after": "2"},
}
KL = "/sys/kernel/mm/klruscand"
KPROMOTED_COUNTERS = ("kpromoted_recorded_pgtscans", "kpromoted_record_added",
                      "kpromoted_record_exists", "kpromoted_record_toptier",
                      "kpromoted_mig_candidate", "kpromoted_mig_promoted",
                      "kpromoted_mig_dropped", "kpromoted_mig_cold_not_accessed",
                      "kpromoted_mig_cold_old", "kpromoted_mig_non_lru",
                      "kpromoted_mig_right_node", "pgdemote_kswapd")


def put(path, val):
    tiering_util.must_write(path, val)


def read(path):
    return tiering_util.read_file(path)


def node_pcp_kb(nid):
    """KiB of free pages on the node's per-CPU lists (not in MemFree)."""
    pages, on = 0, False
    with open("/proc/zoneinfo") as f:
        for line in f:
            if line.startswith("Node "):
                on = line.split(",")[0] == "Node %d" % nid
            elif on and line.strip().startswith("count:"):
                pages += int(line.split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") // 1024


def zone_floor_bp(nid):
    """The node's high watermarks (boost included) in bp of its memory."""
    high, on = 0, False
    with open("/proc/zoneinfo") as f:
        for line in f:
            if line.startswith("Node "):
                on = line.split(",")[0] == "Node %d" % nid
            elif on and line.split()[:1] == ["high"]:
                high += int(line.split()[1])
    total, _ = tiering_util.node_mem(nid)
    return high * os.sysconf("SC_PAGE_SIZE") // 1024 * 10000 // total


vmstat = tiering_util.vmstat

TRACE = "/sys/kernel/tracing"
MIGRATE_EVENT = TRACE + "/events/migrate/mm_migrate_pages"
# enum migrate_reason: MR_COMPACTION is 0.
MR_COMPACTION = 0


class CompactionTrace:
    """Pages compaction migrated, from the mm_migrate_pages trace event.

    pgmigrate_success counts every migrate_pages() success, compaction's
    moves within a node among them; the event carries the reason, so a
    filter on MR_COMPACTION (rare calls) tells that share apart from the
    moves between nodes.  trace_pipe is drained at each sample, which
    neither pauses tracing nor lets the buffer overrun.  read() gives None
    if tracing is missing or lost events.
    """

    def __init__(self):
        self.pages, self.fd, self.rest, self.lost = 0, None, b"", False
        if not os.path.isdir(TRACE + "/events"):
            subprocess.run(["mount", "-t", "tracefs", "nodev", TRACE], capture_output=True)
        if not os.path.isdir(MIGRATE_EVENT):
            return
        put(MIGRATE_EVENT + "/enable", "0")
        put(MIGRATE_EVENT + "/filter", "reason == %d" % MR_COMPACTION)
        with open(TRACE + "/trace", "w"):
            pass
        self.fd = os.open(TRACE + "/trace_pipe", os.O_RDONLY | os.O_NONBLOCK)
        put(MIGRATE_EVENT + "/enable", "1")

    def read(self):
        if self.fd is None:
            return None
        while True:
            try:
                buf = os.read(self.fd, 65536)
            except BlockingIOError:
                break
            if not buf:
                break
            lines = (self.rest + buf).split(b"\n")
            self.rest = lines.pop()
            for line in lines:
                for word in line.split():
                    if word.startswith(b"nr_succeeded="):
                        self.pages += int(word.split(b"=")[1])
        for cpu in os.listdir(TRACE + "/per_cpu"):
            with open(TRACE + "/per_cpu/%s/stats" % cpu) as f:
                if any(line.startswith("overrun:") and int(line.split()[1]) for line in f):
                    self.lost = True
        return None if self.lost else self.pages

    def stop(self):
        if self.fd is None:
            return
        put(MIGRATE_EVENT + "/enable", "0")
        put(MIGRATE_EVENT + "/filter", "0")
        os.close(self.fd)
        self.fd = None


def thread_ticks(pids):
    ticks = 0
    for pid in pids:
        try:
            with open("/proc/%d/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])
        except (OSError, ValueError, IndexError):
            pass
    return ticks


def kthread_pids(prefixes):
    pids = []
    for d in os.listdir("/proc"):
        try:
            if d.isdigit():
                with open("/proc/%s/comm" % d) as f:
                    if f.read().startswith(prefixes):
                        pids.append(int(d))
        except OSError:
            pass
    return pids



def settings():
    keys = ("vm/min_free_kbytes", "vm/watermark_boost_factor", "kernel/numa_balancing")
    out = dict((k, read("/proc/sys/" + k)) for k in keys)
    out["thp"] = read("/sys/kernel/mm/transparent_hugepage/enabled")
    return out


def run_cell(cell, workload):
    mech = MECHS[cell["mech"]]
    t = tiering_util.tiers()
    top = t[0][0]
    low = max(t[-1])
    boot = settings()
    if "numa_balancing" in mech:
        put("/proc/sys/kernel/numa_balancing", mech["numa_balancing"])
    if "demotion_enabled" in mech:
        put("/sys/kernel/mm/numa/demotion_enabled", mech["demotion_enabled"])
    total, free = tiering_util.node_mem(top)
    cold_mb = max(16, (free - total * 3 // 100) // 1024)
    hot_mb = cell["hot_mb"] or 200
    cold_env = dict(os.environ)
    if not cell["hot_mb"]:
        # A goal that cannot be reached: the top node's cold data is
        # mlocked, which damon_tier never demotes, so there is no room
        # for the hot set beyond the top node's free memory.
        cold_env["TIER_WORKLOAD_MLOCK"] = "1"
    cold = subprocess.Popen([workload, "cold", str(cold_mb), str(top)],
                            stdout=subprocess.PIPE, text=True, env=cold_env)
    cold.stdout.readline()
    extra = None
    if cell.get("extra_cold_mb"):
        # More mapped memory for klruscand to walk: cold, on the lowest tier.
        extra = subprocess.Popen([workload, "cold", str(cell["extra_cold_mb"]), str(low)],
                                 stdout=subprocess.PIPE, text=True)
        extra.stdout.readline()
    env = dict(os.environ)
    if cell["workload"] != "flush":
        env["TIER_WORKLOAD_NO_TLB_FLUSH"] = "1"
    secs = cell["seconds"]
    if cell["workload"] == "change":
        args = ["change", str(hot_mb), str(low), str(secs // 2), str(secs - secs // 2 + 5)]
    else:
        args = ["hot", str(hot_mb), str(low), str(secs + 5)]
    hot = subprocess.Popen([workload] + args, stdout=subprocess.PIPE, text=True, env=env)
    hot.stdout.readline()
    compaction = CompactionTrace()
    v0 = vmstat()
    total, f = tiering_util.node_mem(top)
    used0_kb = total - f
    pids = []
    saved = {}
    if "damon_tier" in mech:
        for k, v in mech["damon_tier"].items():
            saved[k] = read(PARAMS + "/" + k)
            put(PARAMS + "/" + k, v)
        put(PARAMS + "/enabled", "Y")
        pids = [int(read(PARAMS + "/kdamond_pid"))]
        if "numa_balancing_after" in mech:
            put("/proc/sys/kernel/numa_balancing", mech["numa_balancing_after"])
    elif "damo" in mech:
        subprocess.run(damo_mem_tier.STAT_OFF, check=True, capture_output=True)
        subprocess.run(mech["damo"], check=True, capture_output=True)
        pids = kthread_pids(("kdamond",))
    elif "klruscand" in mech:
        put(KL + "/enabled", "1")
        pids = kthread_pids(("klruscand", "kpromoted"))
    elif cell["mech"] in ("none", "numa_balancing"):
        pids = kthread_pids(("kswapd",))
    c0 = thread_ticks(pids)
    clk = os.sysconf("SC_CLK_TCK")
    t0 = time.time()
    samples = []
    hot_pages = 0
    # The workload's own verdict, if it ends before the sampling does.
    hot_last = ""
    for line in hot.stdout:
        r = tiering_util.parse_report(line)
        if not r:
            hot_last = line.strip() or hot_last
            continue
        label, counts, hot_pages, other = r
        total, f = tiering_util.node_mem(top)
        pcp = node_pcp_kb(top)
        v = vmstat()
        s = {"t": round(time.time() - t0, 1), "set": label or "A",
             "residency": counts.get(top, 0) / hot_pages,
             # Used as the node counts it: the free pages on the CPUs'
             # lists (pcp_kb) count as used, as in MemFree.
             "used_bp": (total - f) * 10000 // total,
             "pcp_kb": pcp,
             "floor_bp": zone_floor_bp(top),
             "reserve_bp": tiering_util.node_reserve_bp(top),
             "headroom_bp": tiering_util.node_headroom_bp(top),
             "unreclaimable": tiering_util.node_unreclaimable(top),
             "cpu_s": (thread_ticks(pids) - c0) / clk,
             "migrated": v.get("pgmigrate_success", 0) - v0.get("pgmigrate_success", 0),
             "nb_migrated": v.get("numa_pages_migrated", 0) -
             v0.get("numa_pages_migrated", 0)}
        s["compact_migrated"] = compaction.read()
        # Compaction's migrations count in pgmigrate_success too; these
        # tell what started it.  NUMA balancing's hinting faults show its
        # share of the work on the hot set.
        for k in ("pgsteal_kswapd", "pgsteal_direct", "pgdemote_kswapd", "pgpromote_success",
                  "pgscan_kswapd", "pgmigrate_fail", "compact_isolated", "compact_stall",
                  "compact_daemon_wake", "numa_hint_faults", "numa_pte_updates"):
            s[k] = v.get(k, 0) - v0.get(k, 0)
        if other is not None:
            s["other_residency"] = other.get(top, 0) / hot_pages
        if "damon_tier" in mech:
            for k in ("bytes_promoted", "bytes_demoted", "sample_interval_us",
                      "bytes_skipped_policy", "bytes_skipped_cpuset",
                      "bytes_skipped_mlock", "nr_regions"):
                try:
                    s[k] = int(read(PARAMS + "/" + k))
                except OSError:
                    pass
        elif "klruscand" in mech:
            for k in KPROMOTED_COUNTERS:
                s[k] = v.get(k, 0) - v0.get(k, 0)
        elif "damo" in mech:
            s["sample_interval_us"] = max(
                damo_mem_tier.tuned_sample_us(k) or 0
                for k in range(int(read(KD + "/nr_kdamonds"))))
        samples.append(s)
        if s["t"] >= secs:
            break
    res = {"cell": cell, "hot_mb": hot_mb, "hot_pages": hot_pages, "top": top,
           "hot_node": low, "node_total_kb": total, "used_kb_start": used0_kb,
           "boot_settings": boot, "samples": samples}
    if "damon_tier" in mech:
        res["damon_tier"] = dict((k, read(PARAMS + "/" + k)) for k in
                                 ("goal_tuner", "target_used_bp", "target_free_bp",
                                  "tlb_flush")
                                 if os.path.exists(PARAMS + "/" + k))
        put(PARAMS + "/enabled", "N")
        for k, v in saved.items():
            put(PARAMS + "/" + k, v)
    elif "damo" in mech:
        subprocess.run(["damo", "stop"], capture_output=True)
    elif "klruscand" in mech:
        put(KL + "/enabled", "0")
    if extra:
        extra.terminate()
        extra.wait(timeout=120)
    for p in (hot, cold):
        p.terminate()
    for p, what in ((hot, "hot"), (cold, "cold")):
        # read(), not communicate(): the line iterator above may hold the
        # last lines in its buffer.
        out = p.stdout.read()
        p.wait(timeout=120)
        last = out.strip().splitlines()[-1] if out.strip() else \
            (hot_last if p is hot else "")
        res[what + "_intact"] = p.returncode == 0 and last.startswith("intact")
        res[what + "_end"] = "rc %d: %s" % (p.returncode, last)
    compaction.stop()
    put("/proc/sys/kernel/numa_balancing", boot["kernel/numa_balancing"])
    put("/sys/kernel/mm/numa/demotion_enabled", "0")
    time.sleep(2)
    return res


MCL_CURRENT, MCL_FUTURE, MCL_ONFAULT = 1, 2, 4


def lock_self():
    """mlock this process's pages, those it has and those it faults in
    later (MCL_ONFAULT: none is faulted in only to be locked).  A lock is
    not inherited across fork() or execve()."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT):
        sys.exit("tier_matrix: mlockall: %s" % os.strerror(ctypes.get_errno()))


def main():
    workload, cells = sys.argv[1], json.loads(sys.argv[2])
    lock_self()
    # The workloads are not backed by huge pages (MADV_NOHUGEPAGE).  With
    # THP "always" at boot this VM's min_free_kbytes is 45056 (3.3% of a
    # 1 GiB node); THP "never" gives the kernel's own default (5632 here).
    put("/sys/kernel/mm/transparent_hugepage/enabled", "never")
    print(json.dumps({"boot_settings": settings()}), flush=True)
    for cell in cells:
        print(json.dumps(run_cell(cell, workload)), flush=True)


if __name__ == "__main__":
    main()
