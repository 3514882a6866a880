#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench's scale cells: what DAMON_TIER costs as the machine grows, and
a real application.

TCG runs every vCPU on two host threads, so these cells count events rather
than time them:

- interrupts: TLB-shootdown and function-call interrupts (/proc/interrupts)
  per kdamond sampling pass once settled, DAMON_TIER enabled less disabled
  in the same boot, on 2tier (2 vCPUs) and 2tier-16cpu (16 vCPUs), the
  workload and the guest script pinned to vCPUs 0-1.  Goals: vCPUs 2-15
  get at most 1 extra interrupt per 100 passes, and the machine-wide extra
  per pass at 16 vCPUs is at most 1.2x that at 2 vCPUs (the same memory);
- memory size: the matrix's 200 MiB hot set seen often on 2tier (1 GiB
  nodes) and 2tier-4g (4 GiB nodes), worst of the runs: kdamond CPU once
  settled at most 1.5x from 1 GiB to 4 GiB nodes; time to 90% reported;
- redis: redis-server (Debian's) loaded with about 300 MiB while the top
  node is full of cold memory, then read with a zipf(0.99) skew for 90 s:
  its memory on the lower tier and its ops/s over time, for damon_tier,
  klruscand, NUMA balancing's tiering mode and none, on 2tier.  Aim: at
  most 10% of the server's memory on the lower tier at 90 s with
  damon_tier (HMSDK measures Redis this way; the VM's figures show the
  shape, not hardware's numbers).

  bench_scale.py [--runs N] [--seconds S] [--parts ipi,memsize,redis]
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import vm  # noqa: E402
import bench_matrix  # noqa: E402

KERNEL = bench_matrix.KERNEL
GUEST = os.path.join(HERE, "bench", "tier_scale.py")
WORKLOAD = os.path.join(vm.BUILD, "kselftest", "tiering", "tier_workload")
REDIS_MECHS = ("damon_tier", "klruscand", "numa_balancing", "none")
SCALE_PARTS = ("ipi", "memsize", "redis")


def guest(topology, args, name, timeout):
    cmd = "PATH=%s:$PATH python3 %s %s" % (os.path.join(vm.BUILD, "venv", "bin"), GUEST,
                                          " ".join(args))
    return vm.run_json(topology, cmd, KERNEL, name, timeout, "bench_scale")


def install_redis():
    """Debian's redis-server on the host, whose root the guest mounts; the
    host's own service is not started.  The client library is PyPI's, in
    the bench's venv (make bench installs it)."""
    if os.path.exists("/usr/bin/redis-server"):
        return
    rc = "/usr/sbin/policy-rc.d"
    made = not os.path.exists(rc)
    if made:
        with open(rc, "w") as f:
            f.write("#!/bin/sh\nexit 101\n")
        os.chmod(rc, 0o755)
    try:
        subprocess.run(["apt-get", "install", "-y", "-q", "--no-install-recommends",
                        "redis-server"], check=True,
                       env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    finally:
        if made:
            os.unlink(rc)


def ipi_figures(row):
    """Extra interrupts per sampling pass, machine-wide and on vCPUs 2..."""
    extra = [a - b for a, b in zip(row["enabled"], row["disabled"])]
    flush = [a - b for a, b in zip(row["tlb_flush"], row["disabled"])]
    passes = max(row["passes"], 1)
    return {"ncpu": row["ncpu"], "passes": row["passes"], "sample_us": row["sample_us"],
            "per_pass": sum(extra) / passes, "others_per_100": 100 * sum(extra[2:]) / passes,
            "worst_other_per_100": 100 * max(extra[2:], default=0) / passes,
            "flush_per_pass": sum(flush) / max(row["tlb_flush_passes"], 1),
            "flush_others_per_100": 100 * sum(flush[2:]) / max(row["tlb_flush_passes"], 1),
            "extra": extra, "settled": row["settled"]}


def run(runs=3, seconds=90, parts=SCALE_PARTS):
    res = {}
    if "ipi" in parts:
        res["ipi"] = {}
        for topo in ("2tier", "2tier-16cpu"):
            rows = [guest(topo, ["ipi", WORKLOAD, "60"], "bench-scale-ipi-%s" % topo, 1500)[0]
                    for _ in range(runs)]
            res["ipi"][topo] = [ipi_figures(r) for r in rows]
    if "memsize" in parts:
        res["memsize"] = {}
        for topo in ("2tier", "2tier-4g"):
            cells = [{"mech": "damon_tier", "workload": "flush", "hot_mb": 200, "run": r,
                      "seconds": seconds} for r in range(runs)]
            out = bench_matrix.run_topology(topo, cells, "bench-scale-%s" % topo)
            res["memsize"][topo] = [bench_matrix.figures(c, topo) for c in out["cells"]]
    if "redis" in parts:
        install_redis()
        res["redis"] = guest("2tier", ["redis", WORKLOAD, ",".join(REDIS_MECHS),
                                       str(seconds)], "bench-scale-redis", 3600)
    return res


def lower_share(sample, low):
    total = sum(sample["nodes"].values())
    return sample["nodes"].get(str(low), sample["nodes"].get(low, 0)) / total if total else 0


def report(res):
    lines = ["## Scale cells: DAMON_TIER against CPUs and memory size, and redis", ""]
    if "ipi" in res:
        lines += ["TLB-shootdown and function-call interrupts once settled, DAMON_TIER "
                  "enabled less disabled in the same boot, per kdamond sampling pass (the "
                  "workload and the bench's own guest script pinned to vCPUs 0-1); then "
                  "with tlb_flush=Y (opt-in).", "",
                  "| machine | run | passes | sampling | extra per pass, machine-wide "
                  "| extra on vCPUs 2+ per 100 passes (all of them; the worst one) "
                  "| with tlb_flush=Y per pass "
                  "| with tlb_flush=Y on vCPUs 2+ per 100 passes |",
                  "|---|---|---|---|---|---|---|---|"]
        for topo, figs in res["ipi"].items():
            for i, f in enumerate(figs):
                lines.append("| %s (%d vCPUs) | %d | %.0f | %d ms | %.3f | %.2f; %.2f | %.2f | %.2f |"
                             % (topo, f["ncpu"], i, f["passes"], f["sample_us"] // 1000,
                                f["per_pass"], f["others_per_100"],
                                f["worst_other_per_100"], f["flush_per_pass"],
                                f["flush_others_per_100"]))
        two, many = res["ipi"].get("2tier"), res["ipi"].get("2tier-16cpu")
        if two and many:
            w2 = max(f["per_pass"] for f in two)
            w16 = max(f["per_pass"] for f in many)
            others = max(f["others_per_100"] for f in many)
            ok1 = others <= 1
            # Both near 0: the ratio of two noise figures says nothing.
            ok2 = w16 <= 1.2 * w2 or w16 <= 0.01
            lines += ["", "Goals (worst run): vCPUs 2-15, all of them together, at most 1 "
                      "extra interrupt per 100 passes: %.2f, %s; machine-wide extra per pass "
                      "at 16 vCPUs at most 1.2x that at 2 vCPUs (or both below 0.01): %.3f against %.3f, %s." % (
                          others, "met" if ok1 else "MISSED", w16, w2,
                          "met" if ok2 else "MISSED"), ""]
    if "memsize" in res:
        lines += ["The 200 MiB hot set seen often against node size (damon_tier defaults).",
                  "", "| machine | runs | 90% after, worst | kdamond CPU settled, worst "
                  "| top node used, settled | goals |", "|---|---|---|---|---|---|"]
        worst = {}
        for topo, figs in res["memsize"].items():
            reach = [(f["A"] or {}).get("reach_s") for f in figs]
            cpu = [f["cpu_pct"] for f in figs]
            wr = None if None in reach else max(reach)
            wc = None if None in cpu else max(cpu)
            worst[topo] = wc
            lines.append("| %s | %d | %s | %s | %s | %s |" % (
                topo, len(figs), "never" if wr is None else "%.0f s" % wr,
                "-" if wc is None else "%.2f%%" % wc,
                ", ".join("%.2f%%" % (f["used_mean_bp"] / 100) for f in figs
                          if f.get("used_mean_bp") is not None),
                ", ".join(sorted(set(m for f in figs for m in bench_matrix.judge(f)))) or "ok"))
        a, b = worst.get("2tier"), worst.get("2tier-4g")
        if a and b is not None:
            lines += ["", "Goal: kdamond CPU settled at 4 GiB nodes at most 1.5x that at "
                      "1 GiB: %.2f%% against %.2f%% (%.2fx), %s." % (
                          b, a, b / a, "met" if b <= 1.5 * a else "MISSED"), ""]
    if "redis" in res:
        lines += ["redis-server, %d keys of %d bytes loaded while the top node was full of "
                  "cold memory, then read with zipf(0.99) keys, 100 per pipelined round "
                  "trip (klruscand and NUMA balancing run with demotion_enabled=1, "
                  "labelled; kernel.numa_balancing=2 for NUMA balancing)." % (300000, 1000), "",
                  "| mechanism | server memory | on the lower tier: loaded / 30 s / 60 s / end "
                  "| ops/s: first 10 s / last 10 s |", "|---|---|---|---|"]
        for r in res["redis"]:
            smp = r["samples"]
            if not smp:
                continue
            low = r["low"]

            def at(t):
                s = next((s for s in smp if s["t"] >= t), smp[-1])
                return "%.1f%%" % (100 * lower_share(s, low))
            loaded = {"nodes": r["loaded"]}
            first = [s["ops_s"] for s in smp if s["t"] <= 10]
            last = [s["ops_s"] for s in smp if s["t"] >= smp[-1]["t"] - 10]
            lines.append("| %s | %.0f MiB | %.1f%% / %s / %s / %s | %.0f / %.0f |" % (
                r["mech"], sum(smp[-1]["nodes"].values()) / (1 << 20),
                100 * lower_share(loaded, low), at(30), at(60),
                "%.1f%%" % (100 * lower_share(smp[-1], low)),
                sum(first) / max(len(first), 1), sum(last) / max(len(last), 1)))
        dt = [r for r in res["redis"] if r["mech"] == "damon_tier" and r["samples"]]
        if dt:
            end = 100 * lower_share(dt[0]["samples"][-1], dt[0]["low"])
            lines += ["", "Aim: at most 10%% of the server's memory on the lower tier at the "
                      "end with damon_tier: %.1f%%, %s.  HMSDK's published figure for Redis is "
                      "28.7 GB on CXL by default against 2.2 GB with DAMON." % (
                          end, "met" if end <= 10 else "MISSED"), ""]
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=90)
    ap.add_argument("--parts", default=",".join(SCALE_PARTS))
    ap.add_argument("--out", default=os.path.join(bench_matrix.OUT, "scale.json"))
    a = ap.parse_args()
    res = run(a.runs, a.seconds, a.parts.split(","))
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(res, f)
    print("\n".join(report(res)))


if __name__ == "__main__":
    main()
