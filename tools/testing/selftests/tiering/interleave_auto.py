#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Interleave weights the kernel derives from HMAT bandwidth.

Two switches are tested on the machine's own HMAT figures (10, 5 and 2 GB/s
for the DRAM, CXL-like and slowest nodes of the test machines):

  /sys/kernel/mm/mempolicy/weighted_interleave/auto (mainline's, default
  true): per-node MPOL_WEIGHTED_INTERLEAVE weights, 21:10 on 2tier, 6:3:1
  on 3tier, 2:1:1 on 2cxl.  A nodeN write switches to manual and keeps the
  other weights; "true" recomputes them; bad input is EINVAL and changes
  nothing.

  /sys/devices/virtual/memory_tiering/interleave_auto (default 0): tier
  weights for MPOL_INTERLEAVE from the tiers' mean bandwidth, reduced the
  same way (21:10 on 2tier and 2cxl, 6:3:1 on 3tier).  Writing a tier's
  weight or vm.numa_tier_interleave turns it off; writers racing each
  other leave a consistent state.

Every set of weights is checked where it matters too: the pages of a fresh
interleaved mapping land on the nodes in exactly those proportions
(move_pages(2)).  The hot-plug machine's test (memory_hotplug.py) checks
that a node hot-added with its HMAT entry changes both.  On the flat
machine, without HMAT, both refuse to turn on (ENODEV).
"""
import ctypes
import errno
import mmap
import os
import platform
import sys
import threading

import tiering_util

WI = "/sys/kernel/mm/mempolicy/weighted_interleave"
TIERS = "/sys/devices/virtual/memory_tiering"
TIER_AUTO = TIERS + "/interleave_auto"
SYSCTL = "/proc/sys/vm/numa_tier_interleave"
NODES = "/sys/devices/system/node"

MPOL_INTERLEAVE = 3
MPOL_WEIGHTED_INTERLEAVE = 6
MADV_NOHUGEPAGE = 15
SYS_MBIND = {"x86_64": 237, "aarch64": 235}

# Expected weights from the topologies' HMAT bandwidths (MB/s):
# per node under weighted_interleave/auto, per tier (fastest first) under
# interleave_auto.
EXPECT = {
    "2tier": ({0: 21, 1: 10}, [21, 10]),
    "3tier": ({0: 6, 1: 3, 2: 1}, [6, 3, 1]),
    "2cxl": ({0: 2, 1: 1, 2: 1}, [21, 10]),
}

read = tiering_util.read_file
write = tiering_util.write_file
expect = tiering_util.expect
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


def node_weights():
    return {n: int(read("%s/node%d" % (WI, n))) for n in mem_nodes()}


def mem_nodes():
    nodes = []
    for part in read(NODES + "/has_memory").split(","):
        lo, _, hi = part.partition("-")
        nodes += range(int(lo), int(hi or lo) + 1)
    return nodes


def tier_ids():
    """Memory tier ids, fastest first, and their nodes."""
    ids = sorted(int(d[len("memory_tier"):]) for d in os.listdir(TIERS)
                 if d.startswith("memory_tier"))
    return ids, tiering_util.tiers()


def tier_weights():
    ids, _ = tier_ids()
    return [int(read("%s/memory_tier%d/interleave_weight" % (TIERS, i))) for i in ids]


def placed(mode, nodes, npages):
    """Fault in @npages pages of a fresh mapping under @mode over @nodes;
    return {node: pages} from move_pages(2)."""
    psz = mmap.PAGESIZE
    length = npages * psz
    addr = libc.mmap(None, length, mmap.PROT_READ | mmap.PROT_WRITE,
                     mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
    if addr in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "mmap")
    try:
        libc.madvise(addr, length, MADV_NOHUGEPAGE)
        mask = ctypes.c_ulong(sum(1 << n for n in nodes))
        ret = libc.syscall(ctypes.c_long(SYS_MBIND[platform.machine()]),
                           ctypes.c_void_p(addr), ctypes.c_ulong(length),
                           ctypes.c_int(mode), ctypes.byref(mask), ctypes.c_ulong(64),
                           ctypes.c_uint(0))
        if ret:
            raise OSError(ctypes.get_errno(), "mbind")
        for i in range(npages):
            ctypes.memset(addr + i * psz, 0x5a, 1)
        status = tiering_util.page_nodes(os.getpid(), addr, addr + length)
    finally:
        libc.munmap(addr, length)
    counts = {}
    for s in status:
        counts[s] = counts.get(s, 0) + 1
    return counts


def check_placement(mode, weights, label):
    """Pages interleaved under @mode over the nodes of @weights land in
    exactly their proportions (a whole number of rounds is faulted)."""
    per_round = sum(weights.values())
    rounds = max(1, 600 // per_round)
    got = placed(mode, sorted(weights), rounds * per_round)
    want = {n: w * rounds for n, w in weights.items()}
    expect(got == want, "%s: %d pages split %s (want %s)" % (
        label, rounds * per_round, got, want))


def bad_writes(path, values, state, label):
    """Each of @values is refused with EINVAL and @state() is unchanged."""
    before = state()
    for v in values:
        err = write(path, v)
        expect(err == errno.EINVAL and state() == before,
               "%s: %r refused with EINVAL (%s), nothing changed" % (
                   label, v, errno.errorcode.get(err, err)))


def per_node(want):
    nodes = mem_nodes()
    print("HMAT access1 bandwidth (MB/s): %s" % {
        n: (read("%s/node%d/access1/initiators/read_bandwidth" % (NODES, n)),
            read("%s/node%d/access1/initiators/write_bandwidth" % (NODES, n)))
        for n in nodes})
    state = lambda: (read(WI + "/auto"), node_weights())
    expect(read(WI + "/auto") == "true", "weighted_interleave/auto is true at boot")
    expect(node_weights() == want, "auto node weights %s (want %s)" % (node_weights(), want))
    check_placement(MPOL_WEIGHTED_INTERLEAVE, want, "MPOL_WEIGHTED_INTERLEAVE, auto")

    bad_writes(WI + "/auto", ["\n", "maybe", "2", "-1", " "], state, "auto")
    bad_writes(WI + "/node1", ["0", "\n", "256", "-1", "abc", "1 2"], state, "node1")

    # A manual weight switches to manual mode and keeps the others.
    expect(write(WI + "/node1", "3") == 0, "node1 set to 3")
    manual = dict(want)
    manual[1] = 3
    expect(state() == ("false", manual), "manual mode, other weights kept: %s" % (state(),))
    check_placement(MPOL_WEIGHTED_INTERLEAVE, manual, "MPOL_WEIGHTED_INTERLEAVE, manual")
    expect(write(WI + "/auto", "N") == 0 and state() == ("false", manual),
           "writing false in manual mode changes nothing")
    expect(write(WI + "/auto", "true") == 0 and state() == ("true", want),
           "auto again: weights recomputed %s" % (state(),))
    expect(write(WI + "/auto", "0") == 0 and state() == ("false", want),
           "manual mode starts from the auto weights")
    expect(write(WI + "/auto", "1") == 0 and state() == ("true", want), "auto restored")


def per_tier(want):
    ids, nodes = tier_ids()
    state = lambda: (read(TIER_AUTO), tier_weights(), read(SYSCTL))
    expect(state()[:2] == ("0", [1] * len(ids)),
           "interleave_auto is 0 at boot, tier weights all 1: %s" % (state(),))
    ones = {n: 1 for n in sorted(sum(nodes, []))}
    check_placement(MPOL_INTERLEAVE, ones, "MPOL_INTERLEAVE, interleave_auto 0")

    bad_writes(TIER_AUTO, ["\n", "2", "-1", "x", "0x1", "1 1", "true"], state,
               "interleave_auto")
    expect(write(TIER_AUTO, "1") == 0, "interleave_auto set to 1")
    expect(state() == ("1", want, "%d %d" % (want[0], want[1])),
           "tier weights follow bandwidth: %s (want %s)" % (state(), want))
    by_node = {n: want[i] for i, ns in enumerate(nodes) for n in ns}
    check_placement(MPOL_INTERLEAVE, by_node, "MPOL_INTERLEAVE, interleave_auto 1")
    bad_writes(TIER_AUTO, ["2", "\n"], state, "interleave_auto while 1")

    # A tier weight written by hand stops it; the others stay.
    expect(write("%s/memory_tier%d/interleave_weight" % (TIERS, ids[-1]), "4") == 0,
           "lowest tier's weight set to 4")
    expect(state()[:2] == ("0", want[:-1] + [4]),
           "interleave_auto back to 0, weights kept: %s" % (state(),))
    expect(write(TIER_AUTO, "1") == 0 and state()[:2] == ("1", want),
           "interleave_auto 1 again: recomputed")
    expect(write(SYSCTL, "1 1") == 0 and state() == ("0", [1] * len(ids), "1 1"),
           "the sysctl stops it too: %s" % (state(),))

    # Writers racing each other: afterwards one more write of each kind
    # gives exactly its result.
    stop = threading.Event()
    errors = []

    def hammer(path, values):
        i = 0
        while not stop.is_set():
            err = write(path, values[i % len(values)])
            if err:
                errors.append((path, err))
            i += 1

    threads = [threading.Thread(target=hammer, args=a) for a in (
        (TIER_AUTO, ["1", "0"]),
        ("%s/memory_tier%d/interleave_weight" % (TIERS, ids[0]), ["7", "3"]),
        (SYSCTL, ["2 1", "1 1"]))]
    for t in threads:
        t.start()
    stop.wait(3)
    stop.set()
    for t in threads:
        t.join()
    expect(not errors, "concurrent writers: every write accepted (%s)" % errors[:3])
    expect(write(TIER_AUTO, "1") == 0 and state()[:2] == ("1", want),
           "after the race, interleave_auto 1 gives %s" % (state(),))
    expect(write(SYSCTL, "1 1") == 0 and state() == ("0", [1] * len(ids), "1 1"),
           "and the sysctl restores 1:1: %s" % (state(),))
    check_placement(MPOL_INTERLEAVE, ones, "MPOL_INTERLEAVE after the race")


def without_bandwidth():
    """The flat machine has no HMAT: auto reads true with every weight 1, as
    mainline before any bandwidth is reported, and neither auto mode can
    be turned on (ENODEV)."""
    nodes = mem_nodes()
    expect(read(WI + "/auto") == "true" and set(node_weights().values()) == {1},
           "no HMAT: auto reads true, weights all 1: %s" % node_weights())
    err = write(WI + "/auto", "true")
    expect(err == errno.ENODEV and read(WI + "/auto") == "true",
           "auto true without bandwidth data: ENODEV (%s)" % errno.errorcode.get(err))
    expect(write(WI + "/auto", "false") == 0 and read(WI + "/auto") == "false",
           "auto false: manual mode")
    err = write(WI + "/auto", "1")
    expect(err == errno.ENODEV and read(WI + "/auto") == "false",
           "auto back on without data: ENODEV (%s), still manual" % errno.errorcode.get(err))
    err = write(TIER_AUTO, "1")
    expect(err == errno.ENODEV and read(TIER_AUTO) == "0",
           "interleave_auto 1 without data: ENODEV (%s), still 0" % errno.errorcode.get(err))
    check_placement(MPOL_WEIGHTED_INTERLEAVE, {n: 1 for n in nodes},
                    "MPOL_WEIGHTED_INTERLEAVE without HMAT")


def main():
    topo = os.environ.get("TOPOLOGY", "").split(":")[0]
    if topo == "flat":
        write("/sys/kernel/mm/transparent_hugepage/enabled", "never")
        without_bandwidth()
        print("%d failures" % tiering_util.failures)
        return 1 if tiering_util.failures else 0
    if topo not in EXPECT:
        print("no expected weights for machine %r" % topo)
        return 4
    write("/sys/kernel/mm/transparent_hugepage/enabled", "never")
    want_nodes, want_tiers = EXPECT[topo]
    try:
        per_node(want_nodes)
        per_tier(want_tiers)
    finally:
        write(WI + "/auto", "1")
        write(SYSCTL, "1 1")
    print("%d failures" % tiering_util.failures)
    return 1 if tiering_util.failures else 0


if __name__ == "__main__":
    sys.exit(main())
