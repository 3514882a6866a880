# SPDX-License-Identifier: GPL-2.0
"""Turn serial logs, KTAP and guest TAP into test results.

Pure functions on text, so that the harness self-test can feed them
recorded logs.  A result is (name, status, detail) with status one of
"pass", "fail", "skip".
"""

import json
import os
import re
import subprocess
import tempfile

# Kernel lines carry a printk timestamp ("[    1.234567] ..."): only those
# are searched for splats, so test output cannot trip the detector.
KERNEL_LINE = re.compile(r"^\[\s*\d+\.\d+\]\s?(.*)$")
SPLAT = re.compile(
    r"BUG:|WARNING:|KASAN|UBSAN|Call Trace|Oops|Kernel panic|"
    r"general protection fault|kernel BUG at|INFO: possible|"
    r"INFO: task .* blocked|detected stalls?|"
    r"inconsistent lock state|circular locking dependency|"
    r"unreferenced object|Unable to handle kernel")


def find_splats(log_text):
    """Return the kernel log lines of @log_text that report a splat."""
    found = []
    for line in log_text.splitlines():
        m = KERNEL_LINE.match(line)
        if m and SPLAT.search(m.group(1)):
            found.append(line.strip())
    return found


TAP_RESULT = re.compile(r"^(not ok|ok)\s+(\d+)\s+([^#]*?)\s*(?:#\s*(.*))?$")


def parse_guest_tap(text):
    """Top-level results of guest-run.sh output (indented lines ignored)."""
    results = []
    for line in text.splitlines():
        m = TAP_RESULT.match(line.rstrip())
        if not m:
            continue
        ok, _, name, directive = m.groups()
        directive = directive or ""
        if ok == "ok" and directive.upper().startswith("SKIP"):
            status = "skip"
        elif ok == "ok":
            status = "pass"
        else:
            status = "fail"
        results.append((name, status, directive))
    return results


def expected_guest_tests(tests_file, topology):
    """Names of the tests.txt entries that run on @topology."""
    names = []
    with open(tests_file) as f:
        for line in f:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            fields = line.split()
            if topology in fields[0].split(","):
                names.append(fields[1])
    return names


def guest_results(tap_text, expected, prefix):
    """Results for @expected guest tests; a missing one is a failure."""
    got = {name: (status, detail) for name, status, detail in parse_guest_tap(tap_text)}
    results = []
    for name in expected:
        if name in got:
            status, detail = got[name]
        else:
            status, detail = "fail", "did not run (no result line)"
        results.append(("%s/%s" % (prefix, name), status, detail))
    return results


def _kunit_walk(test, path, out):
    for sub in test.get("sub_groups", []):
        _kunit_walk(sub, path + [sub["name"]], out)
    for case in test.get("test_cases", []):
        status = case.get("status", "")
        name = "/".join(path + [case["name"]])
        if status == "PASS":
            out.append((name, "pass", ""))
        elif status == "SKIPPED":
            out.append((name, "skip", ""))
        else:
            out.append((name, "fail", status))


# A KTAP line of the serial console, after its printk time stamp.
KTAP_LINE = re.compile(r"^(\[[ \d.]+\] )?\s*(K?TAP version |# |ok |not ok |1\.\.)")


def ktap_lines(log_path):
    """The KTAP lines of a serial log.  Other kernel messages printed while
    the suites run (a driver probing its device) would otherwise break the
    KTAP structure for kunit.py, which reports the suite around them as
    crashed."""
    with open(log_path, errors="replace") as f:
        return "".join(ln for ln in f if KTAP_LINE.match(ln))


def kunit_results(log_path, kunit_py, expected_suites):
    """Parse KTAP in a serial log with the base tree's kunit.py.

    Returns results for every test case, plus one failing result for each
    suite of @expected_suites that did not appear in the log.
    """
    results = []
    with tempfile.NamedTemporaryFile(suffix=".json") as js, \
            tempfile.NamedTemporaryFile("w", suffix=".log") as ktap:
        ktap.write(ktap_lines(log_path))
        ktap.flush()
        proc = subprocess.run(["python3", kunit_py, "parse", "--json=" + js.name, ktap.name],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              cwd=os.path.dirname(kunit_py))
        try:
            with open(js.name) as f:
                data = json.load(f)
        except (OSError, ValueError):
            data = None
    suites_seen = set()
    if data:
        for suite in data.get("sub_groups", []):
            suites_seen.add(suite["name"])
            _kunit_walk(suite, ["kunit", suite["name"]], results)
    if proc.returncode and not any(s == "fail" for _, s, _ in results):
        tail = proc.stdout.decode("utf-8", "replace").strip().splitlines()[-3:]
        results.append(("kunit/parse", "fail", " | ".join(tail)))
    for suite in expected_suites:
        if suite not in suites_seen:
            results.append(("kunit/%s" % suite, "fail", "expected suite did not run"))
    return results


# Checks of a whole boot, not tests: they never count as passes.
BOOT_CHECKS = ("/no-kernel-splat", "/guest-exit")


def summary_line(results):
    """The closing line: "N passed, N failed, N skipped".

    A boot's splat check counts when it fails, never as a pass.  Passes
    that needed their retry are counted apart:
    "N passed (M of them on a retry), N failed, N skipped".
    """
    count = {"pass": 0, "fail": 0, "skip": 0}
    retried = 0
    for name, status, detail in results:
        if status == "pass" and name.endswith(BOOT_CHECKS):
            continue
        count[status] += 1
        if status == "pass" and "passed on retry" in detail:
            retried += 1
    passed = "%d passed" % count["pass"]
    if retried:
        passed += " (%d of them on a retry)" % retried
    return "%s, %d failed, %d skipped" % (passed, count["fail"], count["skip"])


def read_allowed_skips(path):
    """{test name: reason} from an allowed-skips file ("NAME  REASON")."""
    allowed = {}
    with open(path) as f:
        for line in f:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            name, _, reason = line.strip().partition(" ")
            allowed[name] = reason.strip()
    return allowed


def apply_allowed_skips(results, allowed):
    """A skip fails unless @allowed lists it with a reason."""
    out = []
    for name, status, detail in results:
        if status == "skip":
            if allowed.get(name):
                detail = "allowed: " + allowed[name]
            else:
                status, detail = "fail", "skipped (%s), not in allowed-skips.txt" % detail
        out.append((name, status, detail))
    return out


def boot_results(topology, log_path, tap_text, expected_tests, kunit_py=None,
                 expected_suites=(), guest_rc=0):
    """All results of one VM boot: KUnit (when @kunit_py is given), guest
    tests, the splat check of the serial log and the guest's exit status."""
    with open(log_path, errors="replace") as f:
        log_text = f.read()
    results = []
    if kunit_py:
        results += kunit_results(log_path, kunit_py, expected_suites)
    results += guest_results(tap_text, expected_tests, topology)
    splats = find_splats(log_text)
    results.append(("%s/no-kernel-splat" % topology, "fail" if splats else "pass",
                    "; ".join(splats[:3])))
    if guest_rc != 0:
        results.append(("%s/guest-exit" % topology, "fail", "guest exit status %d" % guest_rc))
    return results
