# SPDX-License-Identifier: GPL-2.0
"""tierctl against fake sysfs/procfs trees built by the tests.

Each test builds a machine under tmp_path (sys/ and proc/) and runs tierctl
with TIERCTL_ROOT pointing at it, in-process for the logic and as a
subprocess where the exit status and the absence of a traceback matter.
"""

import glob
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TIERCTL = os.path.join(HERE, "..", "tierctl")
TOP = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
BLOCK = 128 << 20


def load_tierctl():
    loader = importlib.machinery.SourceFileLoader("tierctl", TIERCTL)
    spec = importlib.util.spec_from_loader("tierctl", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def put(root, rel, text):
    p = os.path.join(root, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text)


def get(root, rel):
    with open(os.path.join(root, rel)) as f:
        return f.read().strip()


def make_machine(root, nodes, tiers, sysctl="1 1", damon_tier=True, damon_stat=None):
    """nodes: list of dicts (mem_mb, free_mb, cpus, bw=(read, write) MB/s or
    None, blocks=[memory block numbers]); tiers: {tier id: [nodes]}."""
    nd = "sys/devices/system/node"
    put(root, nd + "/online", "0-%d" % (len(nodes) - 1))
    put(root, nd + "/has_cpu", ",".join(str(i) for i, n in enumerate(nodes) if n.get("cpus")))
    put(root, "sys/devices/system/memory/block_size_bytes", "%x" % BLOCK)
    for i, n in enumerate(nodes):
        base = "%s/node%d" % (nd, i)
        put(root, base + "/meminfo",
            "Node %d MemTotal:       %d kB\nNode %d MemFree:        %d kB\n"
            "Node %d MemUsed:        %d kB\n" % (i, n["mem_mb"] * 1024, i, n["free_mb"] * 1024,
                                                 i, (n["mem_mb"] - n["free_mb"]) * 1024))
        put(root, base + "/cpulist", n.get("cpus", ""))
        put(root, base + "/distance",
            " ".join(str(10 if j == i else 20 + 5 * abs(j - i)) for j in range(len(nodes))))
        if n.get("bw"):
            ini = base + "/access0/initiators/"
            put(root, ini + "read_bandwidth", str(n["bw"][0]))
            put(root, ini + "write_bandwidth", str(n["bw"][1]))
            put(root, ini + "read_latency", str(n.get("lat", 100)))
            put(root, ini + "write_latency", str(n.get("lat", 100)))
        for b in n.get("blocks", []):
            os.makedirs(os.path.join(root, base, "memory%d" % b), exist_ok=True)
    for tid, tnodes in tiers.items():
        base = "sys/devices/virtual/memory_tiering/memory_tier%d" % tid
        put(root, base + "/nodelist", ",".join(map(str, tnodes)))
        put(root, base + "/interleave_weight", "1")
    if sysctl is not None:
        put(root, "proc/sys/vm/numa_tier_interleave", sysctl)
    put(root, "proc/vmstat", "nr_free_pages 100\npgpromote_success 10\n"
        "pgdemote_kswapd 5\npgmigrate_success 40\n")
    if damon_tier:
        for k, v in (("enabled", "N"), ("kdamond_pid", "-1"), ("bytes_promoted", "1048576"),
                     ("bytes_demoted", "0"), ("target_used_bp", "9970"),
                     ("target_free_bp", "50"), ("quota_mb", "200"),
                     ("quota_reset_interval_ms", "1000")):
            put(root, "sys/module/damon_tier/parameters/" + k, v)
    if damon_stat is not None:
        for k, v in damon_stat.items():
            put(root, "sys/module/damon_stat/parameters/" + k, v)


def two_tier(root, **kw):
    make_machine(root, [
        {"mem_mb": 1024, "free_mb": 512, "cpus": "0-1", "bw": (10000, 10000), "lat": 10,
         "blocks": [0, 1, 2, 3, 4, 5, 6, 7]},
        {"mem_mb": 1024, "free_mb": 1000, "bw": (5000, 6000), "lat": 30,
         "blocks": [32, 33, 34, 35, 36, 37, 38, 39]},
    ], {4: [0], 22: [1]}, **kw)


def three_tier(root, **kw):
    make_machine(root, [
        {"mem_mb": 512, "free_mb": 100, "cpus": "0", "bw": (8000, 8000), "blocks": [0, 1]},
        {"mem_mb": 512, "free_mb": 500, "bw": (4000, 4000), "blocks": [8, 9]},
        {"mem_mb": 512, "free_mb": 500, "bw": (1000, 1200), "blocks": [16, 17]},
    ], {4: [0], 10: [1], 22: [2]}, **kw)


@pytest.fixture
def tc(tmp_path, monkeypatch):
    mod = load_tierctl()
    monkeypatch.setattr(mod, "ROOT", str(tmp_path))
    return mod


def run(root, *args):
    env = dict(os.environ, TIERCTL_ROOT=str(root))
    p = subprocess.run([sys.executable, TIERCTL] + list(args), env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert "Traceback" not in p.stderr, p.stderr
    return p


# ------------------------------------------------------------------------ show

def test_show_json(tmp_path, tc, capsys):
    two_tier(str(tmp_path), sysctl="5 1")
    assert tc.main(["show", "--json"]) == 0
    st = json.loads(capsys.readouterr().out)
    assert [(t["id"], t["nodes"], t["interleave_weight"]) for t in st["tiers"]] == \
        [(4, [0], 1), (22, [1], 1)]
    n0, n1 = st["nodes"]
    assert (n0["node"], n0["tier"], n0["cpus"]) == (0, 4, "0-1")
    assert (n0["total_kb"], n0["used_kb"], n0["free_kb"]) == (1048576, 524288, 524288)
    assert n0["used_pct"] == 50.0
    assert n1["tier"] == 22 and n1["cpus"] == ""
    assert n1["hmat"] == {"read_latency": 30, "write_latency": 30,
                          "read_bandwidth": 5000, "write_bandwidth": 6000}
    assert st["numa_tier_interleave"] == [5, 1]
    assert st["damon_tier"]["bytes_promoted"] == 1048576
    assert st["damon_tier"]["enabled"] == "N"


def test_show_table(tmp_path):
    two_tier(str(tmp_path))
    p = run(tmp_path, "show")
    assert p.returncode == 0
    lines = p.stdout.splitlines()
    assert any(ln.split()[:2] == ["memory_tier22", "1"] for ln in lines)
    node1 = [ln for ln in lines if ln.startswith("node1 ")][0].split()
    assert node1[1] == "22" and node1[2] == "-"
    assert "vm.numa_tier_interleave = 1 1" in p.stdout
    assert "promoted=1.0 MiB" in p.stdout


def test_show_damon_stat(tmp_path, tc, capsys):
    pct = ",".join(str(i * 100) for i in range(101))
    two_tier(str(tmp_path), damon_stat={
        "enabled": "Y", "estimated_memory_bandwidth": str(3 << 20),
        "memory_idle_ms_percentiles": pct, "aggr_interval_us": "400000"})
    p = run(tmp_path, "show")
    assert p.returncode == 0
    assert ("damon_stat: bandwidth ~3.0 MiB/s, idle time median 5000 ms, p90 9000 ms, "
            "aggregating every 400000 us") in p.stdout
    assert tc.main(["show", "--json"]) == 0
    st = json.loads(capsys.readouterr().out)
    assert st["damon_stat"]["memory_idle_ms_percentiles"][100] == 10000
    assert st["damon_stat"]["estimated_memory_bandwidth"] == 3 << 20


def test_show_damon_stat_off(tmp_path):
    two_tier(str(tmp_path), damon_stat={"enabled": "N"})
    p = run(tmp_path, "show")
    assert p.returncode == 0 and "damon_stat: off" in p.stdout


def test_show_klruscand(tmp_path, tc, capsys):
    two_tier(str(tmp_path))
    for d, files in (("klruscand", (("enabled", "1"), ("scan_interval_ms", "2000"))),
                     ("kpromoted", (("promote_rate_limit_MBps", "256"), ("window_ms", "4000"),
                                    ("threshold", "2")))):
        for k, v in files:
            put(str(tmp_path), "sys/kernel/mm/%s/%s" % (d, k), v)
    put(str(tmp_path), "proc/vmstat", "pgpromote_success 10\nkpromoted_recorded_accesses 900\n"
        "kpromoted_mig_candidate 300\nkpromoted_mig_promoted 250\nkpromoted_mig_dropped 7\n")
    p = run(tmp_path, "show")
    assert p.returncode == 0
    assert ("klruscand: enabled=1 scan_interval_ms=2000; kpromoted: promote_rate_limit_MBps=256 "
            "window_ms=4000 threshold=2") in p.stdout
    assert "accesses recorded 900, candidates 300, promoted 250, dropped 7" in p.stdout
    assert tc.main(["show", "--json"]) == 0
    kl = json.loads(capsys.readouterr().out)["klruscand"]
    assert kl["enabled"] == 1 and kl["threshold"] == 2 and kl["kpromoted_mig_promoted"] == 250


def test_show_without_features(tmp_path):
    two_tier(str(tmp_path), sysctl=None, damon_tier=False)
    p = run(tmp_path, "show")
    assert p.returncode == 0
    assert "not supported by this kernel" in p.stdout
    assert "damon_tier: not built into this kernel" in p.stdout
    assert "damon_stat: not built into this kernel" in p.stdout
    assert "klruscand: not built into this kernel" in p.stdout


# --------------------------------------------------------------------- weights

def test_weights_set_sysctl(tmp_path):
    two_tier(str(tmp_path))
    p = run(tmp_path, "weights", "set", "5", "1")
    assert p.returncode == 0, p.stderr
    assert get(tmp_path, "proc/sys/vm/numa_tier_interleave") == "5 1"


def test_weights_set_tier(tmp_path):
    two_tier(str(tmp_path))
    p = run(tmp_path, "weights", "set", "--tier", "22", "3")
    assert p.returncode == 0, p.stderr
    assert get(tmp_path, "sys/devices/virtual/memory_tiering/memory_tier22/"
                         "interleave_weight") == "3"
    assert get(tmp_path, "proc/sys/vm/numa_tier_interleave") == "1 1"


@pytest.mark.parametrize("args", [
    ["0", "1"], ["101", "1"], ["5", "abc"], ["-1", "1"], ["1.5", "1"], ["", "1"],
    ["5"], ["5", "1", "1"], ["99999999999999999999", "1"],
    ["--tier", "22", "0"], ["--tier", "22", "1", "2"], ["--tier", "7", "3"],
    ["--tier", "x", "3"],
])
def test_weights_set_rejects(tmp_path, args):
    two_tier(str(tmp_path))
    before = get(tmp_path, "proc/sys/vm/numa_tier_interleave")
    p = run(tmp_path, "weights", "set", *args)
    assert p.returncode != 0
    assert p.stderr.strip(), "no error message"
    assert get(tmp_path, "proc/sys/vm/numa_tier_interleave") == before
    for f in glob.glob(str(tmp_path / "sys/devices/virtual/memory_tiering/*/interleave_weight")):
        assert open(f).read().strip() == "1"


def test_weights_set_not_root(tmp_path, tc, capsys, monkeypatch):
    two_tier(str(tmp_path))

    def denied(*a, **kw):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr("builtins.open", denied)
    assert tc.main(["weights", "set", "5", "1"]) == 1
    assert "run as root" in capsys.readouterr().err


def test_weights_kernel_rejects(tmp_path, tc, capsys, monkeypatch):
    two_tier(str(tmp_path))
    real_open = open

    def einval(p, mode="r", *a, **kw):
        if "w" in mode:
            raise OSError(22, "Invalid argument")
        return real_open(p, mode, *a, **kw)
    monkeypatch.setattr("builtins.open", einval)
    assert tc.main(["weights", "set", "5", "1"]) == 1
    assert "rejected '5 1': Invalid argument" in capsys.readouterr().err


def test_weights_without_feature(tmp_path):
    two_tier(str(tmp_path), sysctl=None)
    for f in glob.glob(str(tmp_path / "sys/devices/virtual/memory_tiering/*/interleave_weight")):
        os.unlink(f)
    p = run(tmp_path, "weights")
    assert p.returncode == 1 and "no tier-weighted interleave" in p.stderr
    p = run(tmp_path, "weights", "set", "5", "1")
    assert p.returncode == 1 and "does not exist" in p.stderr
    assert not os.path.exists(tmp_path / "proc/sys/vm/numa_tier_interleave")


def test_weights_print(tmp_path):
    two_tier(str(tmp_path), sysctl="3 2")
    p = run(tmp_path, "weights", "--json")
    assert p.returncode == 0
    assert json.loads(p.stdout)["numa_tier_interleave"] == [3, 2]


def test_weights_auto_dry_run(tmp_path):
    two_tier(str(tmp_path))
    p = run(tmp_path, "weights", "auto", "--dry-run")
    assert p.returncode == 0, p.stderr
    # node1: min(5000, 6000) = 5000 MB/s against 10000: 32 * 2/3 : 32 / 3.
    assert "memory_tier4 (nodes 0): 10000 MB/s -> weight 21" in p.stdout
    assert "memory_tier22 (nodes 1): 5000 MB/s -> weight 10" in p.stdout
    for f in glob.glob(str(tmp_path / "sys/devices/virtual/memory_tiering/*/interleave_weight")):
        assert open(f).read().strip() == "1"


def test_weights_auto_writes_three_tiers(tmp_path):
    three_tier(str(tmp_path))
    p = run(tmp_path, "weights", "auto")
    assert p.returncode == 0, p.stderr
    w = [get(tmp_path, "sys/devices/virtual/memory_tiering/memory_tier%d/interleave_weight" % t)
         for t in (4, 10, 22)]
    # 8000, 4000 and min(1000, 1200) MB/s of 13000: 19.7, 9.8 and 2.5 of 32.
    assert w == ["19", "9", "2"]
    assert get(tmp_path, "proc/sys/vm/numa_tier_interleave") == "1 1"


def test_weights_auto_reduction(tc):
    # The kernel's: floor(32 * bw / sum), at least 1, divided by the GCD.
    assert tc.auto_weights([10240, 5120]) == [21, 10]
    assert tc.auto_weights([10240, 5120, 2048]) == [6, 3, 1]
    assert tc.auto_weights([10240, 5120, 5120]) == [2, 1, 1]
    assert tc.auto_weights([1000, 1]) == [31, 1]
    assert tc.auto_weights([5000, 5000]) == [1, 1]
    assert tc.auto_weights([4096]) == [1]


def test_weights_auto_kernel_mode(tmp_path):
    """With the kernel's interleave_auto, tierctl turns it on and reports
    the weights the kernel set, writing no weight itself."""
    two_tier(str(tmp_path))
    put(str(tmp_path), "sys/devices/virtual/memory_tiering/interleave_auto", "0")
    put(str(tmp_path), "sys/devices/virtual/memory_tiering/memory_tier4/interleave_weight",
        "21")
    put(str(tmp_path), "sys/devices/virtual/memory_tiering/memory_tier22/interleave_weight",
        "10")
    p = run(tmp_path, "weights", "auto", "--dry-run")
    assert p.returncode == 0, p.stderr
    assert get(tmp_path, "sys/devices/virtual/memory_tiering/interleave_auto") == "0"
    p = run(tmp_path, "weights", "auto")
    assert p.returncode == 0, p.stderr
    assert get(tmp_path, "sys/devices/virtual/memory_tiering/interleave_auto") == "1"
    assert "memory_tier4 (nodes 0): 10000 MB/s -> weight 21" in p.stdout
    assert "interleave_auto = 1" in p.stdout
    p = run(tmp_path, "weights", "--json")
    assert json.loads(p.stdout)["interleave_auto"] == 1


def test_weights_auto_prefers_access1(tmp_path):
    two_tier(str(tmp_path))
    ini = "sys/devices/system/node/node1/access1/initiators/"
    put(str(tmp_path), ini + "read_bandwidth", "2500")
    put(str(tmp_path), ini + "write_bandwidth", "2500")
    p = run(tmp_path, "weights", "auto", "--dry-run")
    assert p.returncode == 0, p.stderr
    # 10000 (node0 has access0 only) and 2500 of 12500: 25.6 and 6.4 of 32.
    assert "memory_tier22 (nodes 1): 2500 MB/s -> weight 6" in p.stdout


def test_weights_auto_without_hmat(tmp_path):
    make_machine(str(tmp_path), [
        {"mem_mb": 512, "free_mb": 100, "cpus": "0", "bw": (8000, 8000), "blocks": [0]},
        {"mem_mb": 512, "free_mb": 500, "blocks": [8]},
    ], {4: [0], 22: [1]})
    p = run(tmp_path, "weights", "auto")
    assert p.returncode == 1 and "no HMAT bandwidth for memory_tier22" in p.stderr
    assert get(tmp_path, "sys/devices/virtual/memory_tiering/memory_tier4/"
                         "interleave_weight") == "1"


# ----------------------------------------------------------------- damo-policy

def policy(tmp_path, *args):
    out = tmp_path / "policy.json"
    p = run(tmp_path, "damo-policy", "-o", str(out), *args)
    assert p.returncode == 0, p.stderr
    with open(out) as f:
        return json.load(f), str(out)


def scheme_of(kd):
    ctx, = kd["contexts"]
    s, = ctx["schemes"]
    return ctx, s


def test_policy_explicit_pairs(tmp_path):
    two_tier(str(tmp_path))
    pol, _ = policy(tmp_path, "-g", "--demote", "0", "1", "--promote", "1", "0")
    dem, pro = pol["kdamonds"]
    ctx, s = scheme_of(dem)
    assert ctx["ops"] == "paddr"
    assert ctx["targets"][0]["regions"] == [{"start": 0, "end": 8 * BLOCK}]
    assert (s["action"], s["target_nid"]) == ("migrate_cold", 1)
    assert s["access_pattern"]["nr_accesses"] == {"min": "0%", "max": "0%"}
    assert s["quotas"]["goals"] == [{"metric": "node_mem_free_bp", "nid": 0,
                                     "target_value": 50, "current_value": 0}]
    assert s["quotas"]["sz_bytes"] == 200 << 20 and s["quotas"]["reset_interval_ms"] == 1000
    assert s["filters"] == [{"filter_type": "young", "matching": True, "allow": False}]
    ctx, s = scheme_of(pro)
    assert ctx["targets"][0]["regions"] == [{"start": 32 * BLOCK, "end": 40 * BLOCK}]
    assert (s["action"], s["target_nid"]) == ("migrate_hot", 0)
    assert s["quotas"]["goals"][0]["metric"] == "node_mem_used_bp"
    assert s["quotas"]["goals"][0]["nid"] == 0
    assert s["quotas"]["goals"][0]["target_value"] == 9970
    assert s["filters"] == [{"filter_type": "young", "matching": True, "allow": True}]


def test_policy_cgroup_default_and_named(tmp_path):
    two_tier(str(tmp_path))
    pol, _ = policy(tmp_path, "--demote", "0", "1")
    _, s = scheme_of(pol["kdamonds"][0])
    # DAMON matches a cgroup by its path from the cgroup2 root.
    assert s["filters"][0] == {"filter_type": "memcg", "matching": False, "allow": False,
                               "memcg_path": "/hmsdk"}
    # The goal is the cgroup's share of the node, not the node's.
    assert s["quotas"]["goals"] == [{"metric": "node_memcg_free_bp", "nid": 0,
                                     "memcg_path": "/hmsdk", "target_value": 50,
                                     "current_value": 0}]
    pol, _ = policy(tmp_path, "--cgroup", "db", "--promote", "1", "0")
    _, s = scheme_of(pol["kdamonds"][0])
    assert s["filters"][0]["memcg_path"] == "/db"
    assert s["filters"][1]["allow"] is True
    assert s["quotas"]["goals"] == [{"metric": "node_memcg_used_bp", "nid": 0,
                                     "memcg_path": "/db", "target_value": 9970,
                                     "current_value": 0}]


def test_policy_cgroup_share(tmp_path):
    two_tier(str(tmp_path))
    pol, _ = policy(tmp_path, "--cgroup", "/jobs/db/", "--share", "40")
    goals = [scheme_of(k)[1]["quotas"]["goals"][0] for k in pol["kdamonds"]]
    assert [(g["metric"], g["nid"], g["memcg_path"], g["target_value"]) for g in goals] == [
        ("node_memcg_free_bp", 0, "/jobs/db", 6020),
        ("node_memcg_used_bp", 0, "/jobs/db", 4000)]
    pol, _ = policy(tmp_path, "--cgroup", "db", "--share", "12.5")
    assert scheme_of(pol["kdamonds"][1])[1]["quotas"]["goals"][0]["target_value"] == 1250
    for bad in ("0", "99.9", "100", "-5", "4e1", "40.123", "x", ""):
        p = run(tmp_path, "damo-policy", "--cgroup", "db", "--share", bad)
        assert p.returncode == 2 and "share must be" in p.stderr, bad
    p = run(tmp_path, "damo-policy", "-g", "--share", "40")
    assert p.returncode == 1 and "not with -g" in p.stderr


def test_policy_derived_three_tiers(tmp_path):
    three_tier(str(tmp_path))
    pol, _ = policy(tmp_path, "-g", "--quota-mb", "50")
    got = [(scheme_of(kd)[1]["action"], scheme_of(kd)[0]["targets"][0]["regions"][0]["start"],
            scheme_of(kd)[1]["target_nid"]) for kd in pol["kdamonds"]]
    assert got == [("migrate_cold", 0, 1), ("migrate_cold", 8 * BLOCK, 2),
                   ("migrate_hot", 8 * BLOCK, 0), ("migrate_hot", 16 * BLOCK, 0)]
    assert all(scheme_of(kd)[1]["quotas"]["sz_bytes"] == 50 << 20 for kd in pol["kdamonds"])


def test_policy_tuner(tmp_path):
    three_tier(str(tmp_path))
    pol, _ = policy(tmp_path, "--tuner", "temporal", "-g")
    assert len(pol["kdamonds"]) == 4
    assert [scheme_of(kd)[1]["quotas"]["goal_tuner"] for kd in pol["kdamonds"]] == \
        ["temporal"] * 4
    pol, _ = policy(tmp_path, "--tuner", "consist", "-g")
    assert {scheme_of(kd)[1]["quotas"]["goal_tuner"] for kd in pol["kdamonds"]} == {"consist"}
    # Without --tuner the kernel's default applies: no goal_tuner key.
    pol, _ = policy(tmp_path, "-g")
    assert all("goal_tuner" not in scheme_of(kd)[1]["quotas"] for kd in pol["kdamonds"])
    for bad in ("exchange", "Temporal", ""):
        p = run(tmp_path, "damo-policy", "-g", "--tuner", bad)
        assert p.returncode == 2 and "--tuner" in p.stderr and not p.stdout


def test_policy_stdout(tmp_path):
    two_tier(str(tmp_path))
    p = run(tmp_path, "damo-policy", "-g")
    assert p.returncode == 0
    assert len(json.loads(p.stdout)["kdamonds"]) == 2


@pytest.mark.parametrize("args,msg", [
    (["--demote", "0", "5"], "node5 does not exist"),
    (["--promote", "1", "1"], "source and destination are the same"),
    (["--demote", "0"], "expected 2 arguments"),
    (["--demote", "a", "1"], "invalid int value"),
    (["--quota-mb", "0", "--demote", "0", "1"], "--quota-mb must be at least 1"),
    (["-g", "--cgroup", "x"], "not allowed with argument"),
])
def test_policy_rejects(tmp_path, args, msg):
    two_tier(str(tmp_path))
    p = run(tmp_path, "damo-policy", "-o", str(tmp_path / "out.json"), *args)
    assert p.returncode != 0 and msg in p.stderr, p.stderr
    assert not os.path.exists(tmp_path / "out.json")


def test_policy_flat_needs_pairs(tmp_path):
    make_machine(str(tmp_path), [{"mem_mb": 512, "free_mb": 100, "cpus": "0", "blocks": [0]},
                                 {"mem_mb": 512, "free_mb": 100, "cpus": "1", "blocks": [8]}],
                 {4: [0, 1]})
    p = run(tmp_path, "damo-policy", "-g")
    assert p.returncode == 1 and "single memory tier" in p.stderr


def test_policy_without_memory_blocks(tmp_path):
    two_tier(str(tmp_path))
    os.unlink(tmp_path / "sys/devices/system/memory/block_size_bytes")
    p = run(tmp_path, "damo-policy", "-g")
    assert p.returncode == 1 and "CONFIG_MEMORY_HOTPLUG" in p.stderr


def damo_dir():
    hits = glob.glob(os.path.join(TOP, "build", "venv", "lib", "python3*", "site-packages",
                                  "damo", "_damon_args.py"))
    return os.path.dirname(hits[0]) if hits else None


@pytest.mark.skipif(damo_dir() is None, reason="damo not installed in build/venv")
def test_policy_parsed_by_damo(tmp_path):
    """damo's own parser reads the file back with the same meaning."""
    two_tier(str(tmp_path))
    _, path = policy(tmp_path, "--demote", "0", "1", "--promote", "1", "0")
    code = """
import sys
sys.path.insert(0, sys.argv[1])
import _damon_args
kds, err = _damon_args.kdamonds_from_json_arg(sys.argv[2])
assert err is None, err
for kd in kds:
    for ctx in kd.contexts:
        for s in ctx.schemes:
            g = s.quotas.goals[0]
            print(ctx.ops, s.action, s.target_nid, g.metric, g.nid, g.target_value,
                  g.memcg_path,
                  [(f.filter_type, f.matching, f.allow) for f in s.filters],
                  s.access_pattern.nr_acc_min_max[0].percent if hasattr(
                      s.access_pattern, "nr_acc_min_max") else "",
                  s.quotas.sz_bytes, s.quotas.reset_interval_ms)
"""
    venv_py = os.path.join(TOP, "build", "venv", "bin", "python3")
    p = subprocess.run([venv_py, "-c", code, damo_dir(), path], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout
    lines = p.stdout.splitlines()
    assert lines[0].startswith("paddr migrate_cold 1 node_memcg_free_bp 0 50 /hmsdk "
                               "[('memcg', False, False), ('young', True, False)]")
    assert lines[1].startswith("paddr migrate_hot 0 node_memcg_used_bp 0 9970 /hmsdk "
                               "[('memcg', False, False), ('young', True, True)]")
    assert lines[0].endswith(" 209715200 1000")


# ----------------------------------------------------------------------- watch

def test_watch_counts(tmp_path):
    two_tier(str(tmp_path))
    p = run(tmp_path, "watch", "--interval", "0.05", "--count", "3")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == 4
    assert lines[0].split() == ["TIME", "node0", "node1", "promote/s", "demote/s",
                                "migrate/s", "dt_prom", "dt_dem"]
    row = lines[1].split()
    assert row[1:3] == ["50.00%", "2.34%"]
    assert row[3:6] == ["0", "0", "0"]


def test_watch_bad_interval(tmp_path):
    two_tier(str(tmp_path))
    p = run(tmp_path, "watch", "--interval", "0")
    assert p.returncode == 1 and "--interval must be positive" in p.stderr
    p = run(tmp_path, "watch", "--interval", "x")
    assert p.returncode == 2 and "invalid float value" in p.stderr


# ------------------------------------------------------------------------ help

@pytest.mark.parametrize("cmd", [[], ["show"], ["weights"], ["weights", "set"],
                                 ["weights", "auto"], ["damo-policy"], ["watch"]])
def test_help(tmp_path, cmd):
    p = run(tmp_path, *cmd, "--help")
    assert p.returncode == 0
    if cmd:
        assert "SYNOPSIS" in p.stdout and "DESCRIPTION" in p.stdout


def test_no_command(tmp_path):
    p = run(tmp_path)
    assert p.returncode == 2 and "required" in p.stderr
