#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The capacity-expansion workload matrix of make bench.

One VM boot per topology runs its cells side by side (bench/tier_matrix.py
in the guest); this file chooses the cells, computes each cell's figures
and writes the report section.  Run alone for one topology or a few cells:

  bench_matrix.py [--quick] [--topologies 2tier,3tier,2cxl]
                  [--parts tiering,sources] [--runs N] [--seconds S]
                  [--cells MECH:WORKLOAD:HOT_MB,...]

Goals for damon_tier (default settings, every cell, worst run): 90% of the
hot set on the top node within 15 s of the start and of a pattern change,
held to the end of the phase; the top node's free share once settled within
0.5 pp of the free memory damon_tier keeps (target_free_bp, 0.5%, above the
kernel's reserve: each zone's high watermark and lowmem reserve), or of
target_free_bp itself (99.0-100% used); its kdamond at most 2% of a vCPU
once settled; at most 2 bytes migrated between nodes
per hot byte brought up (pgmigrate_success less compaction's moves within a
node; not judged on a pattern change); data intact.  A cell whose
goal cannot be reached is judged on its kdamond CPU only.
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import vm  # noqa: E402

KERNEL = os.path.join(vm.BUILD, "run", "arch", "x86", "boot", "bzImage")
OUT = os.path.join(vm.BUILD, "bench")

GOAL_REACH_S = 15
KL_GOAL_REACH_S = 30
GOAL_CPU_PCT = 2.0
GOAL_BYTES_PER_HOT = 2.0
SETTLE_FROM_S = 30
# How far (bp) a settled top node's free share may lie from its free target,
# or from its floor where that is higher; damon_tier's default target_free_bp.
GOAL_BAND_BP = 50
DEFAULT_TARGET_FREE_BP = 50


def cell_seconds(workload, seconds):
    """A cell's length: @seconds, or two phases of 2/3 of it (60 s each by
    default) for a pattern change, settled over the last 30 s of each."""
    return 2 * (2 * seconds // 3) if workload == "change" else seconds


PARTS = ("tiering", "sources", "scale")


def parse_parts(text):
    """The matrix parts a comma-separated @text names (all when empty);
    exits naming the valid ones on anything else."""
    parts = (text or ",".join(PARTS)).split(",")
    if not parts or not set(parts) <= set(PARTS):
        sys.exit("bench: matrix parts are a list of %s, not %r" % (", ".join(PARTS), text))
    return parts


# klruscand's scan cost against mapped memory, with one lower node and two.
SCAN_TOPOLOGIES = ("2tier-big", "2cxl-big")


def cells_for(topology, quick, runs=None, seconds=90, parts=PARTS):
    """The cells of @topology: (mech, workload, hot MiB) with run numbers.

    Two parts, each its own budget of VM time: "tiering", damon_tier worst
    of @runs (3) on every topology and the other mechanisms once on 2tier;
    "sources", klruscand (its goal cells worst of @runs) against NUMA
    balancing on 3tier and 2cxl too, and its scan cost on 2tier-big and
    2cxl-big (one lower node, and two).
    """
    dt_runs = runs or (1 if quick else 3)
    base, others = [], []
    if topology in SCAN_TOPOLOGIES:
        if "sources" not in parts or quick:
            return []
        # klruscand's scan cost against mapped memory: 1x, 2x and 4x the
        # top node's cold data mapped.
        return [{"mech": "klruscand", "workload": "flush", "hot_mb": 200, "run": 0,
                 "seconds": seconds, "extra_cold_mb": x} for x in (0, 1024, 3072)]
    if "tiering" in parts:
        base = [("damon_tier", "flush", 200), ("damon_tier", "noflush", 200),
                ("damon_tier", "change", 150)]
        if topology == "2tier":
            base += [("damon_tier", "noflush", 64), ("damon_tier", "noflush", 0)]
            mechs = ("damon_tier_consist", "damo_temporal", "numa_balancing", "none")
            others = [(m, w, 200 if w != "change" else 150) for m in mechs
                      for w in ("flush", "noflush", "change")]
            if quick:
                others = [(m, "noflush", 200) for m in mechs]
            # damon_tier with DAMON's opt-in TLB flush of the sampled
            # pages, on the cells where accesses show only on TLB misses.
            others += [("damon_tier_tlbflush", "noflush", 200),
                       ("damon_tier_tlbflush", "noflush", 64)]
        if quick:
            # The cells that have missed goals before, once each.
            base = [c for c in base if c[0:2] != ("damon_tier", "flush") and c[2] != 64]
    if "sources" in parts:
        if quick:
            others.append(("klruscand", "flush", 200))
        else:
            # Its goal cells (hot pages seen often) worst of three, the
            # others once, beside NUMA balancing (2tier has it already).
            base.append(("klruscand", "flush", 200))
            others += [("klruscand", "noflush", 200), ("klruscand", "change", 150)]
            if topology != "2tier" or "tiering" not in parts:
                others += [("numa_balancing", w, 200 if w != "change" else 150)
                           for w in ("flush", "noflush", "change")]
    out = []
    for r in range(dt_runs):
        for m, w, mb in base:
            out.append({"mech": m, "workload": w, "hot_mb": mb, "run": r,
                        "seconds": cell_seconds(w, seconds)})
    for m, w, mb in others:
        out.append({"mech": m, "workload": w, "hot_mb": mb, "run": 0,
                    "seconds": cell_seconds(w, seconds)})
    return out


def run_topology(topology, cells, name=None):
    workload = os.path.join(vm.BUILD, "kselftest", "tiering", "tier_workload")
    guest = os.path.join(HERE, "bench", "tier_matrix.py")
    cmd = "PATH=%s:$PATH python3 %s %s '%s'" % (
        os.path.join(vm.BUILD, "venv", "bin"), guest, workload, json.dumps(cells))
    budget = sum(c["seconds"] + 40 for c in cells) + 300
    t0 = time.time()
    name = name or "bench-matrix-" + topology
    rows = vm.run_json(topology, cmd, KERNEL, name, budget, "bench_matrix")
    boot = rows[0].get("boot_settings")
    return {"topology": topology, "seconds": time.time() - t0, "boot_settings": boot,
            "cells": [r for r in rows if "cell" in r]}


def latencies(topology, top, hot):
    topo = vm.load_topology(topology)
    return topo["nodes"][top]["latency_ns"], topo["nodes"][hot]["latency_ns"]


def phase_figures(smp, label):
    """Time to 90% from the phase start, held, end residency of set @label."""
    ph = [s for s in smp if s["set"] == label]
    if not ph:
        return None
    start = ph[0]["t"] if label == "B" else 0.0
    reach = next((s for s in ph if s["residency"] >= 0.9), None)
    held = reach is not None and all(s["residency"] >= 0.9 for s in ph if s["t"] >= reach["t"])
    return {"reach_s": round(reach["t"] - start, 1) if reach else None, "held": held,
            "end": ph[-1]["residency"], "start_t": start, "end_t": ph[-1]["t"]}


def cpu_pct(smp, t_from, t_to):
    a = next((s for s in smp if s["t"] >= t_from), None)
    b = [s for s in smp if s["t"] <= t_to]
    if not a or not b or b[-1]["t"] <= a["t"]:
        return None
    return 100.0 * (b[-1]["cpu_s"] - a["cpu_s"]) / (b[-1]["t"] - a["t"])


def figures(res, topology):
    """The judged and reported figures of one cell."""
    cell, smp = res["cell"], res["samples"]
    f = {"mech": cell["mech"], "workload": cell["workload"], "hot_mb": res["hot_mb"],
         "unreachable": cell["hot_mb"] == 0, "run": cell["run"]}
    f["A"] = phase_figures(smp, "A")
    f["B"] = phase_figures(smp, "B") if cell["workload"] == "change" else None
    end_t = smp[-1]["t"] if smp else 0
    # Settled: 30 s after enabling to the end; on a pattern change the
    # last 30 s of each phase.
    if cell["workload"] == "change":
        windows = [(p["end_t"] - 30, p["end_t"]) for p in (f["A"], f["B"]) if p]
    else:
        windows = [(SETTLE_FROM_S, end_t)]
    settled = [s for s in smp for a, b in windows if a <= s["t"] <= b]
    used = [s["used_bp"] for s in settled]
    if used:
        mean = sum(used) / len(used)
        f["used_mean_bp"] = mean
        f["used_sd_bp"] = (sum((u - mean) ** 2 for u in used) / len(used)) ** 0.5
    # Of the free share, what the per-CPU lists held (older samples lack it).
    total_kb = res.get("node_total_kb")
    pcp = [s["pcp_kb"] * 10000 / total_kb for s in settled
           if "pcp_kb" in s] if total_kb else []
    if pcp:
        f["pcp_mean_bp"] = sum(pcp) / len(pcp)
    # The kernel's reserve on the top node once settled: high watermarks
    # (boost included) and lowmem reserves; older results lack it.
    floors = [s.get("reserve_bp", s["floor_bp"]) for s in settled or smp[-10:]]
    f["floor_bp"] = sum(floors) / len(floors) if floors else None
    cpus = [cpu_pct(smp, a, b) for a, b in windows]
    cpus = [c for c in cpus if c is not None]
    f["cpu_pct"] = max(cpus) if cpus else None
    f["cpu_run_pct"] = cpu_pct(smp, 0, end_t)
    hot = res["hot_pages"]
    up = (smp[-1]["residency"] - smp[0]["residency"]) * hot if smp else 0
    f["migrated_pages"] = smp[-1]["migrated"] if smp else 0
    f["nb_migrated_pages"] = smp[-1]["nb_migrated"] if smp else 0
    # Compaction's moves within a node, when the guest could trace them
    # (older results lack them: counted as moves between nodes).
    f["compact_pages"] = smp[-1].get("compact_migrated") if smp else None
    between = f["migrated_pages"] - (f["compact_pages"] or 0)
    f["per_hot"] = between / up if up >= 1 else None
    f["per_hot_all"] = f["migrated_pages"] / up if up >= 1 else None
    r = sum(s["residency"] for s in smp) / len(smp) if smp else 0
    l_top, l_low = latencies(topology, res["top"], res["hot_node"])
    f["mean_share"] = r
    f["stall_ratio"] = (r * l_top + (1 - r) * l_low) / l_top
    f["sample_ms_end"] = (smp[-1].get("sample_interval_us") or 0) / 1000 if smp else None
    tier = res.get("damon_tier") or {}
    f["target_free_bp"] = int(tier.get("target_free_bp", DEFAULT_TARGET_FREE_BP))
    f["intact"] = res.get("hot_intact") and res.get("cold_intact")
    f["extra_cold_mb"] = cell.get("extra_cold_mb", 0)
    if cell["mech"] == "klruscand" and smp:
        f["kpromoted"] = dict((k, smp[-1].get(k, 0)) for k in smp[-1]
                              if k.startswith("kpromoted") or k == "pgdemote_kswapd")
    if cell["workload"] == "change" and f["A"] and f["B"]:
        b = [s for s in smp if s["set"] == "B"]
        f["A_demoted"] = b[0].get("other_residency", 0) - b[-1].get("other_residency", 0) \
            if b else None
    return f


def judge_klruscand(f):
    """The goals a klruscand cell misses: 90% within 30 s and held where
    hot pages are seen often, its two threads within the CPU goal once
    settled, data intact."""
    miss = []
    if f["cpu_pct"] is None or f["cpu_pct"] > GOAL_CPU_PCT:
        miss.append("cpu")
    if not f["intact"]:
        miss.append("data")
    if f["workload"] == "flush":
        p = f["A"] or {}
        if p.get("reach_s") is None or p["reach_s"] > KL_GOAL_REACH_S:
            miss.append("reach A")
        elif not p.get("held"):
            miss.append("held A")
    return miss


def settled_in_band(f):
    """Whether the settled top node's free share lies within GOAL_BAND_BP of
    what damon_tier keeps free (target_free_bp above the kernel's reserve,
    the floor), or of target_free_bp itself (99.0-100% used by default)."""
    used = f.get("used_mean_bp")
    if used is None:
        return False
    free = 10000 - used
    target = f.get("target_free_bp", DEFAULT_TARGET_FREE_BP)
    floor = f.get("floor_bp") or 0
    return (abs(free - (floor + target)) <= GOAL_BAND_BP or
            abs(free - target) <= GOAL_BAND_BP)


def judge(f):
    """The goals a damon_tier cell misses; an empty list when it meets all."""
    if f["mech"] == "klruscand":
        return judge_klruscand(f)
    miss = []
    if f["cpu_pct"] is None or f["cpu_pct"] > GOAL_CPU_PCT:
        miss.append("cpu")
    if not f["intact"]:
        miss.append("data")
    if f["unreachable"]:
        return miss
    for ph in ("A", "B"):
        p = f[ph]
        if p is None:
            continue
        if p["reach_s"] is None or p["reach_s"] > GOAL_REACH_S:
            miss.append("reach " + ph)
        elif not p["held"]:
            miss.append("held " + ph)
    if not settled_in_band(f):
        miss.append("used")
    if f["workload"] != "change" and (f["per_hot"] is None or f["per_hot"] > GOAL_BYTES_PER_HOT):
        miss.append("bytes")
    return miss


def fmt(v, spec, none="-"):
    return none if v is None else spec % v


def per_hot_cell(f):
    """Moves between nodes per hot byte up; with compaction's in brackets
    when it moved any, or a note when the trace did not count them."""
    out = fmt(f["per_hot"], "%.2f")
    if f["per_hot"] is not None and f["compact_pages"]:
        out += " (%.2f)" % f["per_hot_all"]
    elif f["per_hot"] is not None and f["compact_pages"] is None:
        out += " (compaction not traced)"
    return out


def row(f):
    a, b = f["A"] or {}, f["B"] or {}
    reach = fmt(a.get("reach_s"), "%.0f s", "never")
    if f["B"]:
        reach += " / " + fmt(b.get("reach_s"), "%.0f s", "never")
    end = "%.1f%%" % (100 * a.get("end", 0))
    if f["B"]:
        end += " / %.1f%%" % (100 * b.get("end", 0))
    held = "yes" if a.get("held") and (not f["B"] or b.get("held")) else "no"
    miss = judge(f) if f["mech"] in ("damon_tier", "klruscand") else None
    return "| %s | %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        f["mech"], f["workload"], "unreachable (%d MiB)" % f["hot_mb"] if f["unreachable"]
        else "%d MiB" % f["hot_mb"] + (" +%d MiB mapped" % f["extra_cold_mb"]
                                        if f.get("extra_cold_mb") else ""),
        f["run"], reach, held, end,
        fmt(f.get("used_mean_bp"), "%.2f%%", "-") if f.get("used_mean_bp") is None
        else "%.2f%%" % (f["used_mean_bp"] / 100) +
        ("" if f.get("pcp_mean_bp") is None
         else " (%.2f pp on per-CPU lists)" % (f["pcp_mean_bp"] / 100)),
        fmt(f.get("used_sd_bp"), "%.2f", "-") if f.get("used_sd_bp") is None
        else "%.2f" % (f["used_sd_bp"] / 100),
        fmt(f.get("floor_bp"), "%.2f%%") if f.get("floor_bp") is None
        else "%.2f%%" % (f["floor_bp"] / 100),
        fmt(f["cpu_pct"], "%.2f%%"), per_hot_cell(f),
        "%.1f%% / %.3f" % (100 * f["mean_share"], f["stall_ratio"]),
        fmt(f["sample_ms_end"], "%.0f ms"), "yes" if f["intact"] else "NO",
        "-" if miss is None else ("ok" if not miss else ", ".join(miss)))


HEADER = ["| mechanism | workload | hot set | run | 90% after (A / B from the change) | held "
          "| at the end | top node used, settled | sd (pp) | free floor | CPU settled "
          "| migrated between nodes per hot byte up (with compaction) "
          "| mean share on top / stall ratio | sampling "
          "interval at end | data intact | goals |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]


def worst_summary(figs):
    """Per damon_tier and klruscand cell: median and worst over its runs."""
    groups = {}
    for f in figs:
        if f["mech"] not in ("damon_tier", "klruscand"):
            continue
        groups.setdefault((f["mech"], f["workload"], f["hot_mb"] if not f["unreachable"] else 0),
                          []).append(f)
    lines = ["| mechanism | workload | hot set | runs | 90% after, median / worst | CPU settled, "
             "median / worst | used settled, worst | goals met in every run |",
             "|---|---|---|---|---|---|---|---|"]
    for (m, w, mb), fs in sorted(groups.items()):
        def reach(f):
            vals = [p["reach_s"] if p["reach_s"] is not None else 1e9
                    for p in (f["A"], f["B"]) if p]
            return max(vals) if vals else None
        rs = sorted(reach(f) for f in fs)
        cs = sorted(f["cpu_pct"] if f["cpu_pct"] is not None else 1e9 for f in fs)
        us = [f.get("used_mean_bp") for f in fs if f.get("used_mean_bp") is not None]
        misses = [m for f in fs for m in judge(f)]
        lines.append("| %s | %s | %s | %d | %s / %s | %.2f%% / %.2f%% | %s | %s |" % (
            m, w, "unreachable" if not mb else "%d MiB" % mb, len(fs),
            "never" if rs[len(rs) // 2] >= 1e9 else "%.0f s" % rs[len(rs) // 2],
            "never" if rs[-1] >= 1e9 else "%.0f s" % rs[-1],
            cs[len(cs) // 2], cs[-1], "%.2f%%" % (min(us) / 100) if us else "-",
            "yes" if not misses else "no: " + ", ".join(sorted(set(misses)))))
    return lines


SOURCES = ("damon_tier", "klruscand", "numa_balancing", "none")


def race_section(results):
    """Which hot-page source wins each cell run by more than one of them,
    judged on its worst run: time to 90% (B's on a pattern change), the hot
    set's share on the top node at the end, and the CPU of its threads once
    settled; then klruscand's scan cost against mapped memory."""
    lines = ["### Hot-page sources side by side", "",
             "Worst run of each mechanism per cell (the slowest time to 90%, the "
             "lowest end residency, the highest settled CPU); a winner needs the "
             "better worst figure.  klruscand cells run with demotion_enabled=1.  CPU is "
             "the mechanism's own threads: kdamonds for damon_tier, klruscand and kpromoted "
             "(not the kswapd demotion they rely on), kswapd for NUMA balancing and none.",
             "",
             "| topology | workload | hot set | mechanism | runs | 90% after, worst "
             "| at the end, worst | CPU settled, worst | migrated between nodes per hot byte up |",
             "|---|---|---|---|---|---|---|---|---|"]
    wins = []
    for r in results:
        groups = {}
        for f in r["figures"]:
            if f["mech"] in SOURCES and not f["unreachable"] and not f["extra_cold_mb"]:
                groups.setdefault((f["workload"], f["hot_mb"]), {}) \
                    .setdefault(f["mech"], []).append(f)
        for (w, mb), by in sorted(groups.items()):
            if len(by) < 2:
                continue
            worst = {}
            for m in SOURCES:
                if m not in by:
                    continue
                fs = by[m]
                ph = "B" if w == "change" else "A"
                reach = max(1e9 if (f[ph] or {}).get("reach_s") is None
                            else f[ph]["reach_s"] for f in fs)
                end = min((f[ph] or {}).get("end", 0) for f in fs)
                cpu = max(f["cpu_pct"] if f["cpu_pct"] is not None else 1e9 for f in fs)
                per = max(f["per_hot"] if f["per_hot"] is not None else 1e9 for f in fs)
                worst[m] = (reach, end, cpu)
                lines.append("| %s | %s | %d MiB | %s | %d | %s | %.1f%% | %s | %s |" % (
                    r["topology"], w, mb, m, len(fs),
                    "never" if reach >= 1e9 else "%.0f s" % reach, 100 * end,
                    "-" if cpu >= 1e9 else "%.2f%%" % cpu,
                    "-" if per >= 1e9 else "%.2f" % per))
            movers = {m: v for m, v in worst.items() if m != "none"}

            def best(k, sign, fmt_):
                v = min(sign * x[k] for x in movers.values())
                who = [m for m in movers if sign * movers[m][k] == v]
                return "%s (%s)" % (" = ".join(who), fmt_(sign * v))
            if len(movers) >= 2:
                wins.append("- %s, %s, %d MiB: fastest to 90%%: %s; most of the hot set "
                            "on top at the end: %s; least CPU: %s." % (
                                r["topology"], w, mb,
                                best(0, 1, lambda v: "never" if v >= 1e9 else "%.0f s" % v),
                                best(1, -1, lambda v: "%.1f%%" % (100 * v)),
                                best(2, 1, lambda v: "-" if v >= 1e9 else "%.2f%%" % v)))
    lines += [""] + wins + [""]
    for topo in SCAN_TOPOLOGIES:
        scan = [f for r in results for f in r["figures"]
                if f["mech"] == "klruscand" and r["topology"] == topo]
        if not scan:
            continue
        lines += ["klruscand's scan cost against mapped memory (%s, one run each): " % topo +
                  "; ".join("+%d MiB cold mapped: CPU settled %s, whole run %s, 90%% after %s" % (
                      f["extra_cold_mb"], fmt(f["cpu_pct"], "%.2f%%"),
                      fmt(f["cpu_run_pct"], "%.2f%%"),
                      fmt((f["A"] or {}).get("reach_s"), "%.0f s", "never"))
                      for f in sorted(scan, key=lambda f: f["extra_cold_mb"])) + ".", ""]
    return lines


def report(results):
    lines = ["## Capacity expansion: the workload matrix", ""]
    total = sum(r["seconds"] for r in results)
    lines += ["%d VM boots, %.0f min of VM time.  Kernel sysctls at their boot values: %s.  "
              "damon_tier runs on its defaults." % (
                  len(results), total / 60, ", ".join(
                      "%s=%s" % (k.split("/")[-1], v)
                      for k, v in (results[0]["boot_settings"] or {}).items())), ""]
    for r in results:
        figs = [figures(c, r["topology"]) for c in r["cells"]]
        r["figures"] = figs
        lines += ["### %s (%.0f min)" % (r["topology"], r["seconds"] / 60), ""]
        lines += worst_summary(figs) + [""] + HEADER + [row(f) for f in figs] + [""]
    lines += race_section(results)
    lines += ["Columns: 90% after: seconds from enabling (A) and from the pattern change "
              "(B) until 90% of the hot set is on the top node; held: it stayed at or "
              "above 90% at every sample after; top node used: MemTotal - MemFree of "
              "the top node, as the node counts it (in brackets: the mean share the "
              "CPUs' free lists held, counted as used as in MemFree), from 30 s to the end (pattern change: the last "
              "30 s of each phase); free floor: the kernel's reserve on the top node "
              "once settled, each zone's high watermark (boost included) and lowmem "
              "reserve from /proc/zoneinfo (the settled free share is judged within "
              "0.5 pp of that floor plus target_free_bp, or 99.0-100% used); "
              "CPU settled: the "
              "mechanism's kernel threads (kdamonds; kswapd for none and NUMA "
              "balancing) in % of one vCPU over the same span (pattern change: the "
              "worse phase); migrated between nodes per hot byte up: pgmigrate_success "
              "less compaction's migrations (the mm_migrate_pages trace event with "
              "reason MR_COMPACTION: moves within a node), over the hot-set pages "
              "brought to the top node, in brackets with compaction's where it moved "
              "any (the guest's bench script mlocks its own memory, which would "
              "otherwise be demoted between its samples and counted here); mean share on top: the hot "
              "set's mean residency on the top node over the whole run, the share of "
              "hot accesses the fast tier served; stall ratio: (r L_top + (1 - r) "
              "L_low) / L_top with the topology's HMAT read latencies, against "
              "all-in-DRAM = 1.", ""]
    return lines


def plots(results, out, stamp):
    """One figure per topology: hot-set residency, top node used, CPU."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = []
    for r in results:
        fig, axes = plt.subplots(3, 1, figsize=(8, 8), sharex=True)
        seen = set()
        for c in r["cells"]:
            cell = c["cell"]
            key = (cell["mech"], cell["workload"], cell["hot_mb"])
            if key in seen or not c["samples"]:
                continue
            seen.add(key)
            label = "%s %s %s" % (cell["mech"], cell["workload"],
                                  "%d MiB" % c["hot_mb"] if cell["hot_mb"] else "unreachable")
            smp = c["samples"]
            t = [x["t"] for x in smp]
            axes[0].plot(t, [100 * x["residency"] for x in smp], label=label, linewidth=1)
            axes[1].plot(t, [x["used_bp"] / 100 for x in smp], linewidth=1)
            axes[2].plot(t[1:], [100 * (b["cpu_s"] - a["cpu_s"]) / max(0.1, b["t"] - a["t"])
                                 for a, b in zip(smp, smp[1:])], linewidth=1)
        axes[0].set_ylabel("hot set on top node (%)")
        axes[1].set_ylabel("top node used (%)")
        axes[1].set_ylim(95, 100)
        axes[2].set_ylabel("kthread CPU (% vCPU)")
        axes[2].set_xlabel("seconds")
        axes[0].legend(fontsize=6, ncol=2)
        axes[0].set_title("Capacity expansion, %s\n%s" % (r["topology"], stamp), fontsize=9)
        fig.tight_layout()
        name = "matrix-%s.png" % r["topology"]
        fig.savefig(os.path.join(out, name))
        plt.close(fig)
        names.append(name)
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--topologies", default="2tier,3tier,2cxl")
    ap.add_argument("--cells", help="MECH:WORKLOAD:HOT_MB,... instead of the matrix")
    ap.add_argument("--runs", type=int)
    ap.add_argument("--seconds", type=int, default=90)
    ap.add_argument("--parts", default=",".join(PARTS),
                    help="tiering, sources or both (the default)")
    ap.add_argument("--out", default=os.path.join(OUT, "matrix.json"))
    a = ap.parse_args()
    parts = parse_parts(a.parts)
    results = []
    for topo in a.topologies.split(","):
        if a.cells:
            cells = [{"mech": m, "workload": w, "hot_mb": int(mb), "run": r,
                      "seconds": cell_seconds(w, a.seconds)}
                     for r in range(a.runs or 1)
                     for m, w, mb in (c.split(":") for c in a.cells.split(","))]
        else:
            cells = cells_for(topo, a.quick, a.runs, a.seconds, parts)
        if cells:
            results.append(run_topology(topo, cells))
    lines = report(results)
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(results, f)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
