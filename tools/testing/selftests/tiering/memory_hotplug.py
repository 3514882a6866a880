#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""CXL-like memory that comes and goes, while interleaving and damon_tier run.

Runs on the "hotplug" machine: node0 (CPUs, DRAM), node1 (CXL-like, middle
tier) and node2, a CPU-less node with no boot memory whose HMAT entry puts
it in the slowest tier.  The host's QEMU is driven through the QMP requests
vm.py serves from /run/out/qmp.

  0. damon_tier runs with 2 schemes for the two tiers there are, and
     vm.numa_tier_interleave is set to "4 2"; a 512 MiB pc-dimm is
     plugged into node2 and onlined movable: a third tier appears with
     weight 2 (the sysctl's LOW; an interleave over 0-2 splits 4:2:2),
     the per-node weights (weighted_interleave/auto) become 6:3:1 with
     node2's HMAT bandwidth, so do the tier weights once interleave_auto
     is set, and damon_tier rebuilds with 4 schemes;
  1. with tier weights 3 (node0), 1 (node1) and 2 (node2), written by hand
     (interleave_auto then reads 0), an interleaved buffer over nodes 0-2
     is split 3:1:2 (move_pages(2)), tierctl shows three tiers;
  2. node2 goes away as on a real box: its blocks are offlined (their pages
     migrate to nodes 0-1); a PFN of an offlined block, reported to
     kpromoted (its debugfs inject_hwhint), is counted as a report and
     dropped without reading the struct page memory hot-remove poisoned
     (the debug kernel has DEBUG_VM_PGFLAGS, which makes that read a BUG);
     then the DIMM is unplugged (device_del).  The
     node's tier is destroyed, damon_tier rebuilds with 2 schemes, a new
     interleave over 0-2 is split 3:1 over the nodes left, tierctl shows two
     tiers;
  3. a new DIMM is plugged into node2: the tier comes back with its weight
     (2, as the admin guide says), damon_tier rebuilds with 4 schemes, an
     interleave over 0-2 is split 3:1:2 again, and a hot buffer placed on
     the new memory (with damon_tier off for the placement) is promoted
     out of it once damon_tier is on again;
  4. a DIMM is added to node1: node1 grows by its size, the tiers stay,
     and damon_tier's kdamond monitors all of the new memory: the regions
     its damon:damon_aggregated trace events report cover the DIMM's
     blocks (node1's span now holds node2's DIMM, yet the rebuild
     applies);
  5. with interleave_auto set, node2 is removed and plugged again: the
     tier weights become 21:10 for the two tiers left, then 6:3:1 again;
     the per-node ones stay 6:3:1 throughout (mainline recomputes them
     when a node reports its bandwidth, and HMAT reports a node once per
     boot).

The data of every buffer is checked at the end; make check looks for
kernel warnings in the serial log of the debug kernel.
"""
import errno
import json
import os
import re
import subprocess
import sys
import time

import tiering_util

TIERS = "/sys/devices/virtual/memory_tiering"
NODES = "/sys/devices/system/node"
MEMORY = "/sys/devices/system/memory"
DT = "/sys/module/damon_tier/parameters"
SYSCTL = "/proc/sys/vm/numa_tier_interleave"
INJECT = "/sys/kernel/debug/kpromoted/inject_hwhint"
QMP_DIR = "/run/out/qmp"
HERE = os.path.dirname(os.path.abspath(__file__))
TIERCTL = os.path.join(HERE, "..", "..", "..", "mm", "tierctl")
WORKLOAD = os.path.join(os.environ.get("BUILD", ""), "kselftest/tiering/tier_workload")
MB = 48                        # a multiple of 3 + 1 + 2 pages many times over
WEIGHTS = {0: 3, 1: 1, 2: 2}   # per node, set on the node's tier

read = tiering_util.read_file
write = tiering_util.write_file
expect = tiering_util.expect
wait_for = tiering_util.wait_for
qmp_seq = 0


def qmp(command, **arguments):
    """Have the host's QEMU run one QMP command; return its reply."""
    global qmp_seq
    qmp_seq += 1
    base = os.path.join(QMP_DIR, "%d" % qmp_seq)
    req = {"execute": command}
    if arguments:
        req["arguments"] = arguments
    with open(base + ".tmp", "w") as f:
        json.dump(req, f)
    os.rename(base + ".tmp", base + ".req")
    for _ in range(300):
        if os.path.exists(base + ".rep"):
            with open(base + ".rep") as f:
                rep = json.load(f)
            print("qmp %s: %s" % (command, "ok" if "return" in rep else rep))
            return rep
        time.sleep(0.1)
    raise RuntimeError("no QMP reply to %s from the host" % command)


def node_blocks(nid):
    d = os.path.join(NODES, "node%d" % nid)
    if not os.path.isdir(d):
        return []
    return sorted(x for x in os.listdir(d) if re.fullmatch(r"memory\d+", x))


def node_online(nid, mb):
    """Whether @nid has blocks for @mb MiB, all of them online."""
    blocks = node_blocks(nid)
    size = int(read(os.path.join(MEMORY, "block_size_bytes")), 16)
    return len(blocks) * size == mb << 20 and \
        all(read(os.path.join(MEMORY, b, "state")) == "online" for b in blocks)


def node_total_kb(nid):
    with open(os.path.join(NODES, "node%d" % nid, "meminfo")) as f:
        for line in f:
            if "MemTotal:" in line:
                return int(line.split()[3])
    return 0


def tiers():
    """{tier id: [nodes]} from sysfs."""
    out = {}
    for d in os.listdir(TIERS):
        m = re.fullmatch(r"memory_tier(\d+)", d)
        if m:
            nl = read(os.path.join(TIERS, d, "nodelist"))
            nodes = []
            for part in nl.split(","):
                lo, _, hi = part.partition("-")
                nodes += range(int(lo), int(hi or lo) + 1)
            out[int(m.group(1))] = nodes
    return out


def tier_of(nid):
    for tid, nodes in tiers().items():
        if nid in nodes:
            return tid
    return None


def tierctl_tiers():
    p = subprocess.run([sys.executable, TIERCTL, "show", "--json"],
                       capture_output=True, text=True)
    if p.returncode:
        return None
    st = json.loads(p.stdout)
    return {t["id"]: (t["nodes"], t["interleave_weight"]) for t in st["tiers"]}, \
        {n["node"]: n for n in st["nodes"]}


def check_tierctl(label):
    got, nodes = tierctl_tiers()
    want = {tid: (ns, int(read(os.path.join(TIERS, "memory_tier%d" % tid,
                                            "interleave_weight"))))
            for tid, ns in tiers().items()}
    expect({k: (list(v[0]), int(v[1])) for k, v in got.items()} == want,
           "%s: tierctl show lists the tiers and weights %s (got %s)" % (label, want, got))
    return nodes


def nr_schemes():
    return int(read(DT + "/nr_schemes"))


def block_ranges(blocks):
    """[start, end) of each memory block of @blocks ("memoryN")."""
    size = int(read(os.path.join(MEMORY, "block_size_bytes")), 16)
    return [(int(b[6:]) * size, (int(b[6:]) + 1) * size) for b in blocks]


def merged(ranges):
    """@ranges, sorted, with the overlapping and adjacent ones joined."""
    out = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def uncovered(regions, ranges):
    """Bytes of @ranges that none of @regions holds."""
    held = merged(regions)
    return sum(hi - lo - sum(max(0, min(hi, e) - max(lo, s)) for s, e in held)
               for lo, hi in merged(ranges))


def monitors(pid, ranges, secs):
    """Poll, for up to @secs seconds, the regions the kdamond @pid reports
    through the damon:damon_aggregated trace event, until they cover all of
    @ranges.  Return (errno of enabling the event, bytes of @ranges left
    uncovered, the ranges the regions seen make up, number of distinct
    regions reported).

    The regions only ever lie within the ranges the last rebuild set:
    before a rebuild that takes the new memory in, none reaches into it.
    """
    def mine(regions):
        return sorted({(s, e) for p, s, e in regions if p == pid})

    regions, err = tiering_util.aggregated_regions(
        lambda r: not uncovered(mine(r), ranges), secs)
    held = mine(regions)
    return err, uncovered(held, ranges), merged(held), len(held)


class Workload:
    """A tier_workload process; its latest move_pages(2) report."""

    def __init__(self, name, mb, node, seconds, env):
        self.name, self.counts, self.total = name, {}, 0
        self.p = subprocess.Popen([WORKLOAD, "hot", str(mb), str(node), str(seconds)],
                                  stdout=subprocess.PIPE, text=True,
                                  env=dict(os.environ, **env))
        line = self.p.stdout.readline().strip()
        if line != "ready":
            raise RuntimeError("%s did not start: %r" % (name, line))

    def poll(self):
        """Wait for a report newer than now; return {node: pages}."""
        line = self.p.stdout.readline()
        m = re.match(r"t=\S+ (.*) total=(\d+)", line)
        if m:
            self.counts = dict((int(k[4:]), int(v)) for k, v in
                               (kv.split("=") for kv in m.group(1).split()))
            self.total = int(m.group(2))
        return self.counts

    def fresh(self):
        """Skip the reports buffered so far, return the next one."""
        os.set_blocking(self.p.stdout.fileno(), False)
        for _ in self.p.stdout:
            pass
        os.set_blocking(self.p.stdout.fileno(), True)
        return self.poll()

    def finish(self):
        if self.p.poll() is None:
            self.p.terminate()
        out, _ = self.p.communicate(timeout=120)
        last = out.strip().splitlines()[-1] if out.strip() else ""
        expect(self.p.returncode == 0 and last.startswith("intact: 0 of"),
               "%s: data %s" % (self.name, last))


def interleaved(name, nodes):
    return Workload(name, MB, 0, 3600, {"TIER_WORKLOAD_POLICY": "interleave",
                                        "TIER_WORKLOAD_NODES": ",".join(map(str, nodes))})


def check_split(w, weights, label):
    """The pages of @w are split over the nodes as @weights says, exactly."""
    counts = w.fresh()
    total = sum(weights.values())
    want = {n: w.total * wt // total for n, wt in weights.items()}
    expect(counts == want, "%s: interleave split %s (want %s)" % (label, counts, want))


def weights_by_node(nodes):
    """({node: weighted_interleave weight}, {node: its tier's weight})."""
    wi = {n: int(read("/sys/kernel/mm/mempolicy/weighted_interleave/node%d" % n))
          for n in nodes}
    tw = {n: int(read(os.path.join(TIERS, "memory_tier%d" % tier_of(n),
                                   "interleave_weight"))) for n in nodes}
    return wi, tw


def set_weights():
    for nid, wt in WEIGHTS.items():
        write(os.path.join(TIERS, "memory_tier%d" % tier_of(nid), "interleave_weight"), str(wt))
    got = {nid: int(read(os.path.join(TIERS, "memory_tier%d" % tier_of(nid),
                                      "interleave_weight"))) for nid in WEIGHTS}
    expect(got == WEIGHTS, "tier weights per node %s" % got)
    expect(read(TIERS + "/interleave_auto") == "0",
           "a weight written by hand turns interleave_auto off")


def offline_node(nid):
    """Offline every memory block of @nid, as an administrator would."""
    for b in node_blocks(nid):
        state = os.path.join(MEMORY, b, "state")
        for _ in range(20):
            if read(state) == "offline" or write(state, "offline") == 0:
                break
            time.sleep(0.5)
    left = [b for b in node_blocks(nid) if read(os.path.join(MEMORY, b, "state")) != "offline"]
    expect(not left, "node%d: every block offline (still online: %s)" % (nid, left))


def report_offline_pfn(nid):
    """Report a PFN of @nid's first (offlined) block to kpromoted."""
    blocks = node_blocks(nid)
    expect(blocks, "node%d still has its offlined blocks" % nid)
    if not blocks:
        return
    block_pages = int(read(MEMORY + "/block_size_bytes"), 16) // os.sysconf("SC_PAGE_SIZE")
    pfn = int(blocks[0][len("memory"):]) * block_pages + 1
    names = ("kpromoted_recorded_accesses", "kpromoted_recorded_hwhints",
             "kpromoted_record_added", "kpromoted_record_exists",
             "kpromoted_record_toptier")
    before = tiering_util.vmstat()
    expect(write(INJECT, "%d" % pfn) == 0, "PFN %#x of offline %s reported" % (pfn, blocks[0]))
    expect(write(INJECT, "0x%xz" % pfn) == errno.EINVAL,
           "a malformed PFN is refused with EINVAL")
    after = tiering_util.vmstat()
    delta = {n: after.get(n, 0) - before.get(n, 0) for n in names}
    want = dict.fromkeys(names, 0)
    want.update(kpromoted_recorded_accesses=1, kpromoted_recorded_hwhints=1)
    expect(delta == want, "the report is counted and nothing recorded: %s" % delta)


def plug(dimm, node, mb):
    r1 = qmp("object-add", **{"qom-type": "memory-backend-ram", "id": dimm + "-mem",
                              "size": mb << 20})
    r2 = qmp("device_add", driver="pc-dimm", id=dimm, memdev=dimm + "-mem", node=node)
    return "return" in r1 and "return" in r2


def dimm_ids():
    rep = qmp("query-memory-devices")
    return [d["data"]["id"] for d in rep.get("return", [])]


def main():
    if not os.path.isdir(QMP_DIR):
        print("no QMP channel at %s: not running under vm.py" % QMP_DIR)
        return 1
    write("/sys/kernel/mm/transparent_hugepage/enabled", "never")
    expect(not node_blocks(2) and dimm_ids() == [], "node2 starts without memory")
    expect(len(tiers()) == 2, "two tiers: %s" % tiers())
    expect(write(DT + "/enabled", "Y") == 0, "damon_tier enabled")
    expect(wait_for(lambda: nr_schemes() == 2, 20),
           "damon_tier: 2 schemes for two tiers (%d)" % nr_schemes())
    # The sysctl written before the slowest tier exists: that tier, never
    # given a weight, starts with the sysctl's LOW value.
    expect(write(SYSCTL, "4 2") == 0 and read(SYSCTL).split() == ["4", "2"],
           "vm.numa_tier_interleave = 4 2 (reads %s)" % read(SYSCTL).split())
    expect(weights_by_node([0, 1])[1] == {0: 4, 1: 2},
           "the sysctl set both tiers: %s" % (weights_by_node([0, 1])[1],))

    # --- a DIMM arrives in node2.
    expect(plug("cxl0", 2, 512), "DIMM cxl0 plugged into node2")
    expect(wait_for(lambda: node_online(2, 512), 60), "node2 has 512 MiB online")
    blocks = node_blocks(2)
    zones = set(read(os.path.join(MEMORY, b, "valid_zones")) for b in blocks)
    states = set(read(os.path.join(MEMORY, b, "state")) for b in blocks)
    expect(blocks and zones == {"Movable"} and states == {"online"},
           "node2's %d blocks are %s in %s" % (len(blocks), states, zones))
    t0 = tiers()
    expect(len(t0) == 3 and [2] in t0.values() and max(t0) == tier_of(2),
           "three tiers, node2 alone in the slowest: %s" % t0)
    low = tier_of(2)
    expect(wait_for(lambda: nr_schemes() == 4, 20),
           "damon_tier rebuilt: 4 schemes for three tiers (%d)" % nr_schemes())
    # HMAT: 10 GB/s on node0, 5 on node1 and 2 on node2.
    want = {0: 6, 1: 3, 2: 1}
    got = weights_by_node([0, 1, 2])
    expect(got == (want, {0: 4, 1: 2, 2: 2}) and read(TIERS + "/interleave_auto") == "0",
           "per node, node2's bandwidth recomputed the weights; per tier, the "
           "new tier took the sysctl's LOW: %s" % (got,))
    d = interleaved("interleave 0-2 after the sysctl", [0, 1, 2])
    check_split(d, {0: 4, 1: 2, 2: 2}, "sysctl before the tier appeared")
    d.finish()
    expect(write(TIERS + "/interleave_auto", "1") == 0, "interleave_auto set")
    got = weights_by_node([0, 1, 2])
    expect(got == (want, want) and read(TIERS + "/interleave_auto") == "1",
           "bandwidth-derived weights, per node and per tier: %s" % (got,))
    set_weights()
    a = interleaved("interleave 0-2 before removal", [0, 1, 2])
    check_split(a, WEIGHTS, "three tiers")
    check_tierctl("three tiers")

    # --- node2 goes away.
    offline_node(2)
    counts = a.fresh()
    expect(counts.get(2, 0) == 0 and sum(counts.values()) == a.total,
           "offlining moved the buffer off node2: %s" % counts)
    report_offline_pfn(2)
    expect("return" in qmp("device_del", id="cxl0"), "device_del cxl0 accepted")
    expect(wait_for(lambda: not node_blocks(2) and "cxl0" not in dimm_ids(), 60),
           "node2's blocks and the DIMM are gone")
    t1 = tiers()
    expect(low not in t1 and len(t1) == 2, "node2's tier %d is destroyed: %s" % (low, t1))
    expect(wait_for(lambda: nr_schemes() == 2, 20),
           "damon_tier rebuilt: 2 schemes for two tiers (%d)" % nr_schemes())
    b = interleaved("interleave 0-2 while node2 is gone", [0, 1, 2])
    check_split(b, {0: WEIGHTS[0], 1: WEIGHTS[1]}, "node2 gone")
    nodes = check_tierctl("node2 gone")
    expect(2 not in nodes or nodes[2]["tier"] is None,
           "tierctl show puts node2 in no tier")

    # --- a new DIMM on node2.
    expect(plug("cxl1", 2, 512), "DIMM cxl1 plugged into node2")
    expect(wait_for(lambda: node_online(2, 512), 60), "node2 has 512 MiB online again")
    expect(tier_of(2) == low, "node2 back in memory_tier%d (now %s)" % (low, tier_of(2)))
    w = int(read(os.path.join(TIERS, "memory_tier%d" % low, "interleave_weight")))
    expect(w == WEIGHTS[2], "the re-created tier has its weight back: %d" % w)
    expect(wait_for(lambda: nr_schemes() == 4, 20),
           "damon_tier rebuilt: 4 schemes for three tiers (%d)" % nr_schemes())
    c = interleaved("interleave 0-2 after re-plug", [0, 1, 2])
    check_split(c, WEIGHTS, "node2 re-plugged")
    check_tierctl("node2 re-plugged")
    # damon_tier is off while the buffer is placed: it may promote part of
    # it before the first report otherwise.
    expect(write(DT + "/enabled", "N") == 0, "damon_tier disabled to place a buffer")
    hot = Workload("hot buffer on the new DIMM", 32, 2, 3600, {})
    start = hot.poll().get(2, 0)
    expect(start == hot.total, "hot buffer placed on node2: %d of %d pages" % (start, hot.total))
    expect(write(DT + "/enabled", "Y") == 0, "damon_tier enabled again")
    expect(wait_for(lambda: nr_schemes() == 4, 20),
           "damon_tier: 4 schemes for three tiers after enabling (%d)" % nr_schemes())
    left = start
    for _ in range(90):
        left = hot.poll().get(2, 0)
        if left <= hot.total // 2:
            break
    expect(left <= hot.total // 2,
           "damon_tier promotes out of the new DIMM: %d of %d pages left on node2" % (
               left, hot.total))

    # --- more memory for node1.
    before = node_total_kb(1)
    old1 = set(node_blocks(1))
    expect(plug("cxl2", 1, 256), "DIMM cxl2 plugged into node1")
    expect(wait_for(lambda: node_total_kb(1) - before == 256 << 10, 60),
           "node1 grew by 256 MiB (%d kB)" % (node_total_kb(1) - before))
    expect(tiers() == t0, "the tiers are unchanged: %s" % tiers())
    nodes = check_tierctl("node1 grown")
    expect(nodes[1]["total_kb"] == node_total_kb(1), "tierctl show: node1's new size")
    pid = int(read(DT + "/kdamond_pid"))
    expect(nr_schemes() == 4 and pid > 0, "damon_tier still runs 4 schemes")
    new = sorted(set(node_blocks(1)) - old1)
    dimm = block_ranges(new)
    expect(new and sum(hi - lo for lo, hi in dimm) == 256 << 20,
           "node1's new blocks hold the 256 MiB DIMM: %s" % new)
    # node1's span now holds node2's DIMM: the rebuild must still apply,
    # and take the new memory in.  It comes within a quota interval (1 s)
    # of an aggregation (auto-tuned, up to 4 s).
    err, left, regions, nr = monitors(pid, dimm, 60)
    expect(err == 0, "damon:damon_aggregated enabled (%s)" % (
        os.strerror(err) if err else "ok"))
    expect(bool(dimm) and nr > 0 and left == 0,
           "damon_tier's kdamond (pid %d) monitors node1's new memory %s: "
           "%d bytes of it outside its %d regions seen, which make up %s" % (
               pid, ["%#x-%#x" % r for r in merged(dimm)], left, nr,
               ["%#x-%#x" % r for r in regions]))
    log = subprocess.run(["dmesg"], capture_output=True, text=True).stdout
    refused = [ln for ln in log.splitlines() if "cannot apply parameters" in ln]
    expect(not refused, "damon_tier rebuilt for node1's span around node2's "
           "memory (%s)" % (refused[-1] if refused else "no refusal"))

    # --- with interleave_auto set, node2 goes and comes back: both sets of
    # weights follow each change.
    expect(write(TIERS + "/interleave_auto", "1") == 0, "interleave_auto set again")
    offline_node(2)
    expect("return" in qmp("device_del", id="cxl1"), "device_del cxl1 accepted")
    expect(wait_for(lambda: not node_blocks(2) and "cxl1" not in dimm_ids(), 60),
           "node2's blocks and the DIMM are gone again")
    # Per node, as in mainline: recomputed when a node reports its
    # bandwidth (HMAT: once per boot), not on removal.
    got = weights_by_node([0, 1])
    expect(got == ({0: 6, 1: 3}, {0: 21, 1: 10}),
           "two tiers left: tier weights recomputed, per-node ones kept: %s" % (got,))
    expect(plug("cxl3", 2, 512), "DIMM cxl3 plugged into node2")
    expect(wait_for(lambda: node_online(2, 512), 60), "node2 has 512 MiB online")
    want = {0: 6, 1: 3, 2: 1}
    got = weights_by_node([0, 1, 2])
    expect(got == (want, want) and read(TIERS + "/interleave_auto") == "1",
           "node2 back: tier weights recomputed, per-node ones kept: %s" % (got,))

    for wl in (a, b, c, hot):
        wl.finish()
    expect(write(DT + "/enabled", "N") == 0, "damon_tier disabled")
    print("%d failure(s)" % tiering_util.failures)
    return 1 if tiering_util.failures else 0


if __name__ == "__main__":
    sys.exit(main())
