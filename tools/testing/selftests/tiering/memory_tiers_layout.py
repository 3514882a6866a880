#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that the guest's memory tiers match the emulated topology.

The topology file (tools/testing/tiering/topologies/$TOPOLOGY.json) gives
each node's HMAT latency and bandwidth.  Nodes with equal performance must
share a memory tier, and a slower node must sit in a tier with a larger id
(a larger abstract distance) than a faster one.
"""
import glob
import json
import os
import re
import sys



def read_tiers():
    tiers = {}
    for d in glob.glob("/sys/devices/virtual/memory_tiering/memory_tier*"):
        tid = int(re.search(r"(\d+)$", d).group(1))
        with open(os.path.join(d, "nodelist")) as f:
            text = f.read().strip()
        nodes = set()
        for part in text.split(","):
            if not part:
                continue
            lo, _, hi = part.partition("-")
            nodes.update(range(int(lo), int(hi or lo) + 1))
        tiers[tid] = nodes
    return tiers


def main():
    topo = os.environ.get("TOPOLOGY")
    top = os.environ.get("TOP")
    if not topo or not top:
        print("TOPOLOGY and TOP must be set")
        return 1
    with open(os.path.join(top, "tools/testing/tiering/topologies", topo + ".json")) as f:
        nodes = json.load(f)["nodes"]
    tiers = read_tiers()
    print("tiers:", {t: sorted(n) for t, n in sorted(tiers.items())})
    node_tier = {n: t for t, ns in tiers.items() for n in ns}
    failures = 0
    for nid in range(len(nodes)):
        if nid not in node_tier:
            print("FAIL: node%d is in no memory tier" % nid)
            failures += 1
    perf = [(n.get("latency_ns", 0), -int(n.get("bandwidth", "0")[:-1] or 0))
            for n in nodes]
    classes = sorted(set(perf))
    if len(tiers) != len(classes):
        print("FAIL: %d memory tiers, expected %d" % (len(tiers), len(classes)))
        failures += 1
    for a in range(len(nodes)):
        for b in range(len(nodes)):
            if a not in node_tier or b not in node_tier:
                continue
            if perf[a] == perf[b] and node_tier[a] != node_tier[b]:
                print("FAIL: node%d and node%d perform alike but are in tiers %d and %d"
                      % (a, b, node_tier[a], node_tier[b]))
                failures += 1
            if perf[a] < perf[b] and not node_tier[a] < node_tier[b]:
                print("FAIL: node%d is faster than node%d but its tier %d is not above %d"
                      % (a, b, node_tier[a], node_tier[b]))
                failures += 1
    print("%s: %d memory tiers for %d nodes" % ("FAIL" if failures else "PASS",
                                                 len(tiers), len(nodes)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
