#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench's scale cells, the guest side: one JSON object per cell.

  tier_scale.py ipi WORKLOAD SECONDS
      DAMON_TIER's TLB-flush and function-call interrupts per CPU and per
      sampling pass, once settled: enabled, then disabled, in one boot, the
      workload and this script pinned to vCPUs 0-1; then the same with
      tlb_flush=Y.
  tier_scale.py redis WORKLOAD MECH SECONDS
      redis-server's memory on the lower tier over time, and the ops/s of
      a client reading its keys with a zipf(0.99) skew, with MECH promoting
      (damon_tier, klruscand, numa_balancing or none).  The data is loaded
      while the top node is full of cold memory, so that most of it lands
      on the lower tier.
"""
import bisect
import json
import os
import random
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "selftests", "tiering"))
import damon_tier_ipi  # noqa: E402
import tiering_util  # noqa: E402

PARAMS = damon_tier_ipi.PARAMS
param = damon_tier_ipi.param


def put(path, val):
    tiering_util.must_write(path, val)


def fill_top(workload, keep_pct):
    """Cold data on the top node until @keep_pct of it is free."""
    top = tiering_util.tiers()[0][0]
    total, free = tiering_util.node_mem(top)
    cold_mb = max(16, (free - total * keep_pct // 100) // 1024)
    cold = subprocess.Popen(["taskset", "-c", "0,1", workload, "cold", str(cold_mb), str(top)],
                            stdout=subprocess.PIPE, text=True)
    cold.stdout.readline()
    return cold


def stop(p):
    if p.poll() is None:
        p.terminate()
    p.wait(timeout=120)


def ipi(workload, secs):
    # This script and all it starts stay on vCPUs 0-1 with the workload:
    # what vCPUs 2+ receive is then the kernel's own, DAMON_TIER's included.
    os.sched_setaffinity(0, {0, 1})
    t = tiering_util.tiers()
    low = max(t[-1])
    cold = fill_top(workload, 4)
    env = dict(os.environ, TIER_WORKLOAD_NO_TLB_FLUSH="1")
    hot = subprocess.Popen(["taskset", "-c", "0,1", workload, "hot", "64", str(low), "100000"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                           env=env)
    hot.stdout.readline()
    out = {"cell": "ipi", "ncpu": os.cpu_count(), "seconds": secs}
    try:
        param("enabled", "Y")
        out["settled"] = damon_tier_ipi.settle(10, 180)
        out["enabled"], out["passes"] = damon_tier_ipi.count(secs)
        out["sample_us"] = int(param("sample_interval_us"))
        param("enabled", "N")
        out["disabled"], _ = damon_tier_ipi.count(secs)
        param("tlb_flush", "Y")
        param("enabled", "Y")
        damon_tier_ipi.settle(10, 180)
        out["tlb_flush"], out["tlb_flush_passes"] = damon_tier_ipi.count(secs)
        param("enabled", "N")
        param("tlb_flush", "N")
    finally:
        stop(hot)
        stop(cold)
    print(json.dumps(out), flush=True)


MECHS = {
    "none": {},
    "damon_tier": {"damon_tier": True},
    # They only promote: reclaim's demotion makes room (labelled).
    "klruscand": {"klruscand": True, "demotion_enabled": "1"},
    "numa_balancing": {"numa_balancing": "2", "demotion_enabled": "1"},
}
SOCK = "/tmp/redis-bench.sock"
NKEYS = 300000
VALUE = 1000


def numa_bytes(pid):
    """Bytes of @pid's memory per node, from /proc/PID/numa_maps."""
    nodes = {}
    with open("/proc/%d/numa_maps" % pid) as f:
        for line in f:
            psz = 4096
            for w in line.split():
                if w.startswith("kernelpagesize_kB="):
                    psz = int(w.split("=")[1]) * 1024
            for w in line.split():
                if w[:1] == "N" and "=" in w and w[1:].split("=")[0].isdigit():
                    n, pages = w[1:].split("=")
                    nodes[int(n)] = nodes.get(int(n), 0) + int(pages) * psz
    return nodes


def zipf_keys(n, s=0.99, seed=1):
    """A sampler of key numbers 0..@n-1, rank r with weight 1/r^@s; ranks
    map to keys by a fixed shuffle, so that hot keys are spread over the
    server's memory as a real key space's would be."""
    cum, acc = [], 0.0
    for r in range(1, n + 1):
        acc += r ** -s
        cum.append(acc)
    keys = list(range(n))
    random.Random(seed).shuffle(keys)
    rnd = random.Random(seed + 1)
    return lambda: keys[bisect.bisect_left(cum, rnd.random() * acc)]


def redis(workload, mech_name, secs):
    import redis as redis_py
    mech = MECHS[mech_name]
    t = tiering_util.tiers()
    top, low = t[0][0], max(t[-1])
    boot_nb = tiering_util.read_file("/proc/sys/kernel/numa_balancing")
    cold = fill_top(workload, 3)
    server = subprocess.Popen(["taskset", "-c", "0", "redis-server", "--port", "0",
                               "--unixsocket", SOCK, "--dir", "/tmp", "--save", "",
                               "--appendonly", "no"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = {"cell": "redis", "mech": mech_name, "seconds": secs, "top": top, "low": low,
           "samples": []}
    try:
        cli = None
        for _ in range(100):
            try:
                cli = redis_py.Redis(unix_socket_path=SOCK)
                cli.ping()
                break
            except Exception:
                time.sleep(0.2)
        val = b"x" * VALUE
        t0 = time.time()
        for base in range(0, NKEYS, 1000):
            p = cli.pipeline(transaction=False)
            for k in range(base, min(base + 1000, NKEYS)):
                p.set(b"key:%d" % k, val)
            p.execute()
        out["load_s"] = round(time.time() - t0, 1)
        out["loaded"] = numa_bytes(server.pid)
        sample = zipf_keys(NKEYS)
        if "numa_balancing" in mech:
            put("/proc/sys/kernel/numa_balancing", mech["numa_balancing"])
        if "demotion_enabled" in mech:
            put("/sys/kernel/mm/numa/demotion_enabled", mech["demotion_enabled"])
        if mech.get("damon_tier"):
            param("enabled", "Y")
        if mech.get("klruscand"):
            put("/sys/kernel/mm/klruscand/enabled", "1")
        t0 = last = time.time()
        ops = ops_last = 0
        while True:
            p = cli.pipeline(transaction=False)
            for _ in range(100):
                p.get(b"key:%d" % sample())
            p.execute()
            ops += 100
            now = time.time()
            if now - last >= 5 or now - t0 >= secs:
                nb = numa_bytes(server.pid)
                out["samples"].append({"t": round(now - t0, 1), "nodes": nb,
                                       "ops_s": (ops - ops_last) / (now - last)})
                last, ops_last = now, ops
                if now - t0 >= secs:
                    break
    finally:
        if mech.get("damon_tier"):
            param("enabled", "N")
        if mech.get("klruscand"):
            put("/sys/kernel/mm/klruscand/enabled", "0")
        put("/proc/sys/kernel/numa_balancing", boot_nb)
        put("/sys/kernel/mm/numa/demotion_enabled", "0")
        stop(server)
        stop(cold)
        try:
            os.unlink(SOCK)
        except OSError:
            pass
        time.sleep(2)
    print(json.dumps(out), flush=True)


def main():
    put("/sys/kernel/mm/transparent_hugepage/enabled", "never")
    mode, workload = sys.argv[1], sys.argv[2]
    if mode == "ipi":
        ipi(workload, int(sys.argv[3]))
    elif mode == "redis":
        for mech in sys.argv[3].split(","):
            redis(workload, mech, int(sys.argv[4]))
    else:
        sys.exit("tier_scale: unknown mode %r" % mode)


if __name__ == "__main__":
    main()
