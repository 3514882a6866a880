#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Capacity-expansion benchmark, run inside the 2tier VM.

For each mode (no tiering, NUMA-balancing tiering mode, damon_tier) the same
scenario: node0 filled to ~97% with data written once, then a hot set placed
on node1 and touched continuously for SECONDS.  Samples every second: node0
utilization, hot-set residency on node0 (move_pages), migration counters,
kdamond CPU time.  Prints one JSON object per mode.

Modes: none, numa_balancing (tiering mode 2), damon_tier,
damon_tier_no_placement_checks (respect_placement=N), damon_tier_nb1
and damon_tier_nb2 (damon_tier beside NUMA balancing 1 or 2), damo_mem_tier
(damo's own scripts/mem_tier.sh recipe, two kdamonds, "consist" tuner) and
damo_exchange (tierctl damo-policy --exchange through damo start).

  tiering_bench.py WORKLOAD HOT_MB SECONDS
"""
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "selftests", "tiering"))
import damo_mem_tier  # noqa: E402  (damo's recipe, as the kselftest runs it)

PARAMS = "/sys/module/damon_tier/parameters"
KD = "/sys/kernel/mm/damon/admin/kdamonds"
TIERCTL = os.path.join(HERE, "..", "..", "..", "mm", "tierctl")


def put(path, val):
    with open(path, "w") as f:
        f.write(val)


def node_mem(nid):
    vals = {}
    for line in open("/sys/devices/system/node/node%d/meminfo" % nid):
        f = line.split()
        vals[f[2].rstrip(":")] = int(f[3])
    return vals["MemTotal"], vals["MemFree"]


def node_pcp_kb(nid):
    """KiB of free pages on the node's per-CPU lists (not in MemFree)."""
    pages, on = 0, False
    for line in open("/proc/zoneinfo"):
        if line.startswith("Node "):
            on = line.split(",")[0] == "Node %d" % nid
        elif on and line.strip().startswith("count:"):
            pages += int(line.split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") // 1024


def vmstat():
    out = {}
    for line in open("/proc/vmstat"):
        k, v = line.split()
        out[k] = int(v)
    return out


def cpu_ticks(pids):
    ticks = 0
    for pid in pids:
        try:
            f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
            ticks += int(f[11]) + int(f[12])
        except (OSError, ValueError, IndexError):
            pass
    return ticks


def kdamond_pids():
    pids = []
    for d in os.listdir("/proc"):
        try:
            if d.isdigit() and open("/proc/%s/comm" % d).read().startswith("kdamond"):
                pids.append(int(d))
        except OSError:
            pass
    return pids


def damo_tuned_sample_us():
    """Sampling interval of each damo kdamond, as the auto-tuning set it."""
    return [damo_mem_tier.tuned_sample_us(k)
            for k in range(int(open(KD + "/nr_kdamonds").read()))]


def start_damo(mode):
    subprocess.run(damo_mem_tier.STAT_OFF, check=True, capture_output=True)
    if mode == "damo_exchange":
        policy = "/tmp/tiering_bench_policy.json"
        subprocess.run([sys.executable, TIERCTL, "damo-policy", "--exchange", "-g",
                        "-o", policy], check=True, capture_output=True)
        cmd = ["damo", "start", policy]
    else:
        cmd = damo_mem_tier.RECIPE
    subprocess.run(cmd, check=True, capture_output=True)


# NUMA balancing setting of each mode: damon_tier_nb1 and damon_tier_nb2 run
# damon_tier beside NUMA balancing (mode 1, and tiering mode 2 with
# reclaim-based demotion), to see whether the two work against each other.
NUMA_BALANCING = {"numa_balancing": "2", "damon_tier_nb1": "1", "damon_tier_nb2": "2"}


def run_mode(mode, workload, hot_mb, seconds):
    nb = NUMA_BALANCING.get(mode, "0")
    put("/proc/sys/kernel/numa_balancing", nb)
    put("/sys/kernel/mm/numa/demotion_enabled", "1" if nb == "2" else "0")
    total, free = node_mem(0)
    cold_mb = max(16, (free - total * 3 // 100) // 1024)
    cold = subprocess.Popen([workload, "cold", str(cold_mb), "0"], stdout=subprocess.PIPE, text=True)
    cold.stdout.readline()
    env = dict(os.environ)
    if nb != "0":
        # Its hinting faults flush the TLB; the workload's own flush (for
        # QEMU TCG, see tier_workload.c) would undo their PROT_NONE marks.
        env["TIER_WORKLOAD_NO_TLB_FLUSH"] = "1"
    hot = subprocess.Popen([workload, "hot", str(hot_mb), "1", str(seconds + 5)],
                           stdout=subprocess.PIPE, text=True, env=env)
    hot.stdout.readline()
    v0 = vmstat()
    t, f = node_mem(0)
    used0_kb = t - f - node_pcp_kb(0)
    kpids = []
    if mode.startswith("damon_tier"):
        # Optional "name=value ..." module parameters, for trying other
        # monitoring settings against the defaults.
        for kv in os.environ.get("TIERING_BENCH_DAMON_TIER_PARAMS", "").split():
            put(PARAMS + "/" + kv.split("=")[0], kv.split("=", 1)[1])
        # The same without its placement checks, to see what they cost.
        put(PARAMS + "/respect_placement",
            "N" if mode == "damon_tier_no_placement_checks" else "Y")
        put(PARAMS + "/enabled", "Y")
        kpids = [int(open(PARAMS + "/kdamond_pid").read())]
    elif mode.startswith("damo_"):
        start_damo(mode)
        kpids = kdamond_pids()
    c0 = cpu_ticks(kpids)

    def kdamond_cpu_s():
        return (cpu_ticks(kpids) - c0) / os.sysconf("SC_CLK_TCK") if kpids else None

    t0 = time.time()
    samples = []
    hot_pages = 0
    for line in hot.stdout:
        m = re.match(r"t=\S+ (.*) total=(\d+)", line)
        if not m:
            continue
        counts = dict((int(k[4:]), int(v)) for k, v in (kv.split("=") for kv in m.group(1).split()))
        t, f = node_mem(0)
        pcp = node_pcp_kb(0)
        hot_pages = int(m.group(2))
        # Pages on per-CPU free lists are free but missing from MemFree
        # until the lists decay (seconds later): count them as free.
        samples.append({"t": round(time.time() - t0, 1),
                        "residency": counts.get(0, 0) / hot_pages,
                        "node0_used_bp": (t - f - pcp) * 10000 // t,
                        "node0_pcp_kb": pcp,
                        "kdamond_cpu_s": kdamond_cpu_s()})
        if mode.startswith("damon_tier"):
            for k in ("bytes_promoted", "bytes_demoted", "nr_regions",
                      "sample_interval_us", "aggr_interval_us"):
                samples[-1][k] = int(open(PARAMS + "/" + k).read())
        elif mode.startswith("damo_"):
            samples[-1]["sample_interval_us"] = max(x or 0 for x in damo_tuned_sample_us())
        if time.time() - t0 >= seconds:
            break
    elapsed = time.time() - t0
    cpu = kdamond_cpu_s()
    v1 = vmstat()
    res = {"mode": mode, "samples": samples, "hot_pages": hot_pages,
           "pgmigrate_success": v1.get("pgmigrate_success", 0) - v0.get("pgmigrate_success", 0),
           "pgpromote_success": v1.get("pgpromote_success", 0) - v0.get("pgpromote_success", 0),
           "pgdemote": sum(v1.get(k, 0) - v0.get(k, 0) for k in v1 if k.startswith("pgdemote_")),
           "numa_pages_migrated": v1.get("numa_pages_migrated", 0) -
           v0.get("numa_pages_migrated", 0),
           "node0_total_kb": node_mem(0)[0], "node0_used_kb_start": used0_kb,
           "kdamond_cpu_pct": 100.0 * cpu / elapsed if kpids else None}
    if mode.startswith("damon_tier"):
        res["bytes_promoted"] = int(open(PARAMS + "/bytes_promoted").read())
        res["bytes_demoted"] = int(open(PARAMS + "/bytes_demoted").read())
        res["target_used_bp"] = int(open(PARAMS + "/target_used_bp").read())
        res["damon_tier_params"] = os.environ.get("TIERING_BENCH_DAMON_TIER_PARAMS", "")
        put(PARAMS + "/enabled", "N")
    elif mode.startswith("damo_"):
        res["target_used_bp"] = 9970
        subprocess.run(["damo", "stop"], capture_output=True)
    for p in (hot, cold):
        p.terminate()
        p.wait()
    put("/proc/sys/kernel/numa_balancing", "0")
    time.sleep(2)
    return res


def main():
    workload, hot_mb, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    put("/sys/kernel/mm/transparent_hugepage/enabled", "never")
    # As in damon_tier_e2e.py: THP's min_free_kbytes would hold the low
    # watermark at ~3% of a 1 GiB node, above the 0.3% the target leaves.
    put("/proc/sys/vm/min_free_kbytes", "2048")
    # As tier.rst advises for tiering machines: a boost lifts node0's
    # watermarks above its 0.3% target headroom, and with no swap and
    # demotion off nothing clears it.  Same setting for every mode.
    put("/proc/sys/vm/watermark_boost_factor", "0")
    modes = os.environ.get("TIERING_BENCH_MODES",
                           "none,numa_balancing,damon_tier,damon_tier_no_placement_checks,"
                           "damon_tier_nb1,damon_tier_nb2,damo_mem_tier,damo_exchange")
    for mode in modes.split(","):
        print(json.dumps(run_mode(mode, workload, hot_mb, seconds)), flush=True)
    # How much TCG slows kernel page-table walks here (bench.py times the
    # same on the host): to put the kdamond's CPU time in proportion.  Last,
    # so that the memory it frees is not what the modes find free.
    out = subprocess.run([workload, "walk", "64", "0", "9"], capture_output=True,
                         text=True, check=True).stdout
    print(json.dumps({"calibration": "walk",
                      "walk_ns_per_page": float(out.split("=")[1])}), flush=True)


if __name__ == "__main__":
    main()
