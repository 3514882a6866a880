#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tierctl against the real kernel (the 3tier VM in make check).

- show --json agrees with sysfs (tiers, nodes, HMAT, the sysctl);
- weights set/--tier/auto write what they say, and bad input changes
  nothing and prints no traceback;
- damo-policy writes a file that the unmodified damo starts: the kdamonds
  run and hold the node_mem goals and young filters of the policy; with
  --cgroup, the cgroup's node_memcg goals on its path and its memcg
  filter; with --tuner temporal, that tuner on every scheme;
- weights auto leaves the kernel's interleave_auto on, weights set turns
  it off;
- watch prints one line per interval.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tiering_util import expect, read_file  # noqa: E402
import tiering_util  # noqa: E402

TOP = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                   ".."))
TIERCTL = os.path.join(TOP, "tools", "mm", "tierctl")
SYSCTL = "/proc/sys/vm/numa_tier_interleave"
TIERS = "/sys/devices/virtual/memory_tiering"
ADMIN = "/sys/kernel/mm/damon/admin/kdamonds"


def tierctl(*args):
    p = subprocess.run([sys.executable, TIERCTL] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if "Traceback" in p.stderr:
        print(p.stderr)
        expect(False, "tierctl %s: no traceback" % " ".join(args))
    return p


def tier_weights():
    return {int(d[len("memory_tier"):]): read_file(os.path.join(TIERS, d, "interleave_weight"))
            for d in os.listdir(TIERS) if d.startswith("memory_tier")}


def check_show():
    p = tierctl("show", "--json")
    expect(p.returncode == 0, "show --json exits 0")
    st = json.loads(p.stdout)
    want = {}
    for d in os.listdir(TIERS):
        if d.startswith("memory_tier"):
            want[int(d[len("memory_tier"):])] = read_file(os.path.join(TIERS, d, "nodelist"))
    got = {t["id"]: ",".join(map(str, t["nodes"])) for t in st["tiers"]}
    expect(got == want, "show lists the kernel's tiers %s (got %s)" % (want, got))
    expect([t["id"] for t in st["tiers"]] == sorted(want), "tiers fastest first")
    expect(st["numa_tier_interleave"] == [int(x) for x in read_file(SYSCTL).split()],
           "show reports vm.numa_tier_interleave")
    for n in st["nodes"]:
        mi = {}
        for line in open("/sys/devices/system/node/node%d/meminfo" % n["node"]):
            f = line.split()
            mi[f[2].rstrip(":")] = int(f[3])
        expect(n["total_kb"] == mi["MemTotal"], "node%d size matches meminfo" % n["node"])
        bw = "/sys/devices/system/node/node%d/access0/initiators/read_bandwidth" % n["node"]
        if os.path.exists(bw):
            expect(n["hmat"].get("read_bandwidth") == int(read_file(bw)),
                   "node%d HMAT read bandwidth %s" % (n["node"], read_file(bw)))
    p = tierctl("show")
    expect(p.returncode == 0 and "memory_tier" in p.stdout and "node0" in p.stdout,
           "show prints the table")


def check_weights():
    tiers = sorted(tier_weights())
    low = tiers[-1]
    p = tierctl("weights", "set", "5", "1")
    expect(p.returncode == 0 and read_file(SYSCTL) == "5 1", "weights set 5 1 -> sysctl '5 1'")
    w = tier_weights()
    expect(w[tiers[0]] == "5" and all(w[t] == "1" for t in tiers[1:]),
           "the top tier's weight is 5, the others 1: %s" % w)
    p = tierctl("weights", "set", "--tier", str(low), "3")
    expect(p.returncode == 0 and tier_weights()[low] == "3",
           "weights set --tier %d 3" % low)
    before_sysctl, before = read_file(SYSCTL), tier_weights()
    for bad in (["0", "1"], ["101", "1"], ["x", "1"], ["5"], ["--tier", "999", "2"],
                ["--tier", str(low), "0"]):
        p = tierctl("weights", "set", *bad)
        expect(p.returncode != 0 and p.stderr.strip(),
               "weights set %s refused with a message" % " ".join(bad))
    expect(read_file(SYSCTL) == before_sysctl and tier_weights() == before,
           "refused writes changed nothing")

    p = tierctl("weights", "auto", "--dry-run")
    expect(p.returncode == 0 and "dry run" in p.stdout, "weights auto --dry-run")
    expect(tier_weights() == before, "dry run wrote nothing")
    planned = {}
    for line in p.stdout.splitlines():
        if "-> weight" in line:
            planned[int(line.split()[0][len("memory_tier"):])] = line.split()[-1]
    p = tierctl("weights", "auto")
    expect(p.returncode == 0 and tier_weights() == planned and
           int(planned[low]) == min(map(int, planned.values())),
           "weights auto set %s, the lowest tier least" % planned)
    expect(int(planned[tiers[0]]) > 1, "the top tier's HMAT bandwidth gives it more weight")
    auto = "/sys/devices/virtual/memory_tiering/interleave_auto"
    expect(read_file(auto) == "1",
           "weights auto left the kernel's interleave_auto on, and the kernel's "
           "weights are the ones tierctl planned")
    tierctl("weights", "set", "1", "1")
    expect(read_file(SYSCTL) == "1 1", "weights back to 1 1")
    expect(read_file(auto) == "0", "weights set turned interleave_auto off")


def check_damo_policy(args, cgroup=None):
    """damo starts what damo-policy @args wrote, as written; @cgroup is
    the cgroup the policy is for, created for the run."""
    damo = subprocess.run(["sh", "-c", "command -v damo"], stdout=subprocess.PIPE, text=True)
    # build/venv has damo (make venv): its absence is a broken setup.
    expect(damo.returncode == 0, "damo is installed (build/venv)")
    if damo.returncode != 0:
        return
    if cgroup:
        root = "/sys/fs/cgroup"
        if not os.path.exists(root + "/cgroup.controllers"):
            subprocess.run(["mount", "-t", "cgroup2", "none", root], check=True)
        with open(root + "/cgroup.subtree_control", "w") as f:
            f.write("+memory")
        os.makedirs(root + cgroup, exist_ok=True)
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "tiering.json")
        p = tierctl("damo-policy", *args, "-o", f)
        expect(p.returncode == 0 and os.path.exists(f), "damo-policy %s -o FILE" % " ".join(args))
        pol = json.load(open(f))
        n = len(pol["kdamonds"])
        p = damo_run(["start", f], n)
        expect(p.returncode == 0, "damo start FILE exits 0: %s" % p.stdout.strip()[-300:])
        try:
            for i, kd in enumerate(pol["kdamonds"]):
                s = kd["contexts"][0]["schemes"][0]
                g = s["quotas"]["goals"][0]
                base = "%s/%d/contexts/0/schemes/0" % (ADMIN, i)
                expect(read_file("%s/%d/state" % (ADMIN, i)) == "on", "kdamond %d on" % i)
                expect(read_file(base + "/action") == s["action"], "kdamond %d %s" % (i, s["action"]))
                expect(read_file(base + "/target_nid") == str(s["target_nid"]),
                       "kdamond %d target_nid %d" % (i, s["target_nid"]))
                expect(read_file(base + "/quotas/goals/0/target_metric") == g["metric"] and
                       read_file(base + "/quotas/goals/0/nid") == str(g["nid"]),
                       "kdamond %d goal %s nid %d" % (i, g["metric"], g["nid"]))
                # damo writes each filter in the directory of the layer
                # that handles it: young and memcg in ops_filters.
                ops = [f for f in s["filters"] if f["filter_type"] not in ("addr", "target")]
                young = ops[-1]
                fy = "%s/ops_filters/%d" % (base, len(ops) - 1)
                expect(read_file(fy + "/type") == "young" and
                       read_file(fy + "/allow") == ("Y" if young["allow"] else "N"),
                       "kdamond %d young filter allow=%s" % (i, young["allow"]))
                # Without --tuner the kernel's default tuner stays.
                tuner = s["quotas"].get("goal_tuner", "consist")
                expect(read_file(base + "/quotas/goal_tuner") == tuner,
                       "kdamond %d goal_tuner %s" % (i, tuner))
                if cgroup:
                    # The cgroup's own share of the node, on the cgroup's path.
                    expect(read_file(base + "/quotas/goals/0/path") == cgroup and
                           read_file(base + "/quotas/goals/0/target_value") ==
                           str(g["target_value"]) and
                           read_file(base + "/ops_filters/0/type") == "memcg" and
                           read_file(base + "/ops_filters/0/memcg_path") == cgroup,
                           "kdamond %d: goal %s on %s, target %d, memcg filter" % (
                               i, g["metric"], cgroup, g["target_value"]))
            expect(n >= 2, "%d kdamonds (demotion and promotion)" % n)
        finally:
            p = damo_run(["stop"], n)
            left = [i for i in range(n) if read_file("%s/%d/state" % (ADMIN, i)) != "off"]
            # Stop what damo left on, so the failure stays this test's.
            for i in left:
                tiering_util.state_write("%s/%d" % (ADMIN, i), "off")
        expect(p.returncode == 0 and not left,
               "damo stop exits 0 and stops every kdamond (left on: %s): %s" % (
                   left, p.stdout.strip()[-300:]))
    if cgroup:
        os.rmdir("/sys/fs/cgroup" + cgroup)


def damo_run(args, n):
    """damo @args, bounded.  damo waits, without a limit, until every
    kdamond is on (start) or off (stop): one that hangs fails the test with
    the states and kernel stacks of the @n kdamonds, and of damo itself."""
    p = subprocess.Popen(["damo"] + args, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = p.communicate(timeout=90)
        return subprocess.CompletedProcess(p.args, p.returncode, out)
    except subprocess.TimeoutExpired:
        expect(False, "damo %s returns within 90 s" % args[0])
    pids = [("damo", str(p.pid))]
    for i in range(n):
        pid = read_file("%s/%d/pid" % (ADMIN, i))
        print("# kdamond %d state %s pid %s" % (i, read_file("%s/%d/state" % (ADMIN, i)), pid))
        pids.append(("kdamond %d" % i, pid))
    for what, pid in pids:
        try:
            print("# %s stack:\n%s" % (what, read_file("/proc/%s/stack" % pid)))
        except OSError as e:
            print("# %s: no stack: %s" % (what, e))
    p.kill()
    out, _ = p.communicate()
    return subprocess.CompletedProcess(p.args, -1, out)


def check_watch():
    p = tierctl("watch", "--interval", "0.5", "--count", "2")
    lines = p.stdout.splitlines()
    expect(p.returncode == 0 and len(lines) == 3 and lines[0].split()[0] == "TIME",
           "watch prints a header and one line per interval")


def main():
    if not os.path.exists(SYSCTL) or not os.path.isdir(TIERS):
        print("kernel without tier interleave")
        return 1
    saved = read_file(SYSCTL)
    try:
        check_show()
        check_weights()
        check_damo_policy(["-g"])
        check_damo_policy(["--cgroup", "tierctl_vm", "--share", "60"], "/tierctl_vm")
        check_damo_policy(["-g", "--tuner", "temporal"])
        check_watch()
    finally:
        with open(SYSCTL, "w") as f:
            f.write(saved)
    print("%d failures" % tiering_util.failures)
    return 1 if tiering_util.failures else 0


if __name__ == "__main__":
    sys.exit(main())
