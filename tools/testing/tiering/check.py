#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run every test of the project and print one verdict line.

1. Host tests: the harness self-test (recorded serial logs must turn the
   verdict red) and the tierctl unit tests.
2. One VM boot per machine: a topology booted with the debug kernel
   ("2tier"), or with the production-config kernel ("2tier:run", for the
   tests whose outcome depends on speed and memory size, which KASAN and
   lockdep distort).  KUnit suites run at the first boot and are parsed with
   the base tree's kunit.py; the guest tests of tests.txt run under
   guest-run.sh.
3. Every boot's serial log is searched for kernel splats; each boot that
   has one fails.  Expected KUnit suites and guest tests that did not run
   fail too.

Ends with "N passed, N failed, N skipped"; exits 1 when anything failed.
"""

import argparse
import os
import re
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import verdict  # noqa: E402
import vm  # noqa: E402

TESTS_FILE = os.path.join(HERE, "tests.txt")
EXPECTED_KUNIT = os.path.join(HERE, "expected-kunit.txt")
ALLOWED_SKIPS = os.path.join(HERE, "allowed-skips.txt")
MAINLINE_DAMON_SKIPS = os.path.join(HERE, "mainline-damon-skips.txt")


def read_list(path):
    with open(path) as f:
        return [ln.split("#")[0].strip() for ln in f if ln.split("#")[0].strip()]


# pytest comes from the Debian archive (python3-pytest, see fetch-base.sh)
# and the venv sees it: no pip install into the system Python.
VENV_PYTHON = os.path.join(vm.BUILD, "venv", "bin", "python3")


def host_tests():
    """Run host-side unittest/pytest suites, one result per test case."""
    results = []
    suites = [("harness", os.path.join(HERE, "selftest"))]
    tierctl_tests = os.path.join(vm.TOP, "tools", "mm", "tierctl_tests")
    if os.path.isdir(tierctl_tests):
        suites.append(("tierctl", tierctl_tests))
    for prefix, path in suites:
        proc = subprocess.run([VENV_PYTHON, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider",
                               path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              cwd=vm.TOP)
        out = proc.stdout.decode("utf-8", "replace")
        n = 0
        for line in out.splitlines():
            for word, status in (("PASSED ", "pass"), ("FAILED ", "fail"),
                                 ("SKIPPED ", "skip"), ("ERROR ", "fail")):
                if line.startswith(word):
                    results.append(("host/%s/%s" % (prefix, line[len(word):].split(" ")[0]),
                                    status, ""))
                    n += 1
        if proc.returncode not in (0, 1) or n == 0:
            print(out)
            results.append(("host/%s" % prefix, "fail", "pytest rc=%d" % proc.returncode))
    return results


RUN_KERNEL = os.path.join(vm.BUILD, "run", "arch", "x86", "boot", "bzImage")


def run_topology(machine, kernel, kunit, timeout, filt):
    topo, _, variant = machine.partition(":")
    if variant == "run":
        kernel = RUN_KERNEL
    elif variant:
        sys.exit("check: unknown kernel variant in %r" % machine)
    name = "check-" + machine.replace(":", "-")
    append = "" if kunit else "kunit.enable=0"
    cmd = "sh $TOP/tools/testing/tiering/guest-run.sh %s %s" % (TESTS_FILE, shlex.quote(filt or ""))
    t0 = time.time()
    rc, log_path, outdir = vm.run(topo, cmd, kernel=kernel, timeout=timeout, name=name,
                                  append=append, echo="guest", machine=machine)
    print("# %s: guest exited %d after %.0fs, serial log %s" % (machine, rc, time.time() - t0,
                                                                 log_path))
    tap = ""
    out_log = os.path.join(outdir, "output.log")
    if os.path.exists(out_log):
        with open(out_log, errors="replace") as f:
            tap = f.read()
    expected = verdict.expected_guest_tests(TESTS_FILE, machine)
    if filt:
        expected = [e for e in expected if re.search(filt, e)]
    kunit_py = None
    if kunit:
        kunit_py = os.path.join(vm.BUILD, "src", "tools", "testing", "kunit", "kunit.py")
    return verdict.boot_results(machine, log_path, tap, expected, kunit_py,
                                read_list(EXPECTED_KUNIT), rc)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--topologies", default="2tier,3tier,flat,hotplug,2tier:run,3tier:run,2cxl:run",
                    help="machines to boot: TOPOLOGY or TOPOLOGY:run")
    ap.add_argument("--kernel", default=os.path.join(vm.BUILD, "test", "arch", "x86", "boot",
                                                     "bzImage"))
    ap.add_argument("--timeout", type=int, default=1800, help="per boot, seconds")
    ap.add_argument("--filter", help="only guest tests whose name matches this regex")
    ap.add_argument("--no-host", action="store_true", help="skip the host tests")
    a = ap.parse_args()

    results = []
    if not a.no_host:
        results += host_tests()
    for i, topo in enumerate(a.topologies.split(",")):
        results += run_topology(topo, a.kernel, kunit=(i == 0 and not a.filter),
                                timeout=a.timeout, filt=a.filter)

    allowed = verdict.read_allowed_skips(ALLOWED_SKIPS)
    for test, reason in verdict.read_allowed_skips(MAINLINE_DAMON_SKIPS).items():
        allowed["2tier/mainline_damon_" + test.replace(".", "_")] = \
            "mainline test needs " + reason
    results = verdict.apply_allowed_skips(results, allowed)
    failed = [r for r in results if r[1] == "fail"]
    print("")
    print("# results by test:")
    for name, status, detail in results:
        if status != "pass" or not name.startswith("kunit/"):
            print("#   %-4s %s%s" % (status.upper(), name, ("  (" + detail + ")") if detail else ""))
    if failed:
        print("# FAILED:")
        for name, _, detail in failed:
            print("#   %s %s" % (name, detail))
    retried = [r[0] for r in results if r[1] == "pass" and "passed on retry" in r[2]]
    if retried:
        print("# passed only on a retry: %s" % ", ".join(retried))
    print(verdict.summary_line(results))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
