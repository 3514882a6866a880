# SPDX-License-Identifier: GPL-2.0
"""Harness self-test: every failure kind must turn the verdict red.

Feeds recorded serial logs to the same verdict.boot_results() that
check.py uses for real boots.  clean.log is the control: it must pass, so a
detector that flags everything is caught too.
"""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import verdict  # noqa: E402

TOP = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
BUILD = os.environ.get("BUILD", os.path.join(TOP, "build"))
KUNIT_PY = os.path.join(BUILD, "src", "tools", "testing", "kunit", "kunit.py")
if not os.path.exists(KUNIT_PY):
    KUNIT_PY = os.path.join(BUILD, "base", "linux", "tools", "testing", "kunit", "kunit.py")
EXPECTED = ["memory_tiers_layout"]
SUITES = ["damon"]


def results_of(log_name, rc=0):
    path = os.path.join(HERE, "logs", log_name)
    with open(path) as f:
        text = f.read()
    return verdict.boot_results("2tier", path, text, EXPECTED, KUNIT_PY, SUITES, rc)


def failed(results):
    return [r for r in results if r[1] == "fail"]


def test_clean_log_passes():
    res = results_of("clean.log")
    assert failed(res) == []
    names = [r[0] for r in res]
    assert "kunit/damon/damon_test_target" in names
    assert "2tier/memory_tiers_layout" in names
    # The splat check is not a test: it does not count as a pass.
    assert verdict.summary_line(res) == "3 passed, 0 failed, 0 skipped"


def test_kernel_message_inside_ktap_is_ignored():
    # A driver's message printed between a suite's KTAP lines (seen in a
    # make check run: the i8042 mouse probe) must not fail the suite.
    res = results_of("kunit-interleaved.log")
    assert failed(res) == []
    assert ("kunit/damon/damon_test_regions", "pass", "") in res


def test_skips_fail_unless_allowed():
    res = [("2tier/a", "skip", "SKIP (1s)"), ("2tier/b", "skip", "SKIP (1s)"),
           ("2tier/c", "pass", "")]
    out = verdict.apply_allowed_skips(res, {"2tier/b": "needs 3 CPUs"})
    assert out[0][1] == "fail" and "allowed-skips" in out[0][2]
    assert out[1] == ("2tier/b", "skip", "allowed: needs 3 CPUs")
    assert out[2] == ("2tier/c", "pass", "")
    assert verdict.summary_line(out) == "1 passed, 1 failed, 1 skipped"


def test_retried_pass_counted_apart():
    res = [("2tier/a", "pass", "passed on retry, 12s"), ("2tier/b", "pass", "3s"),
           ("2tier/no-kernel-splat", "pass", "")]
    assert verdict.summary_line(res) == \
        "2 passed (1 of them on a retry), 0 failed, 0 skipped"


def test_allowed_skips_file_has_reasons():
    path = os.path.join(HERE, "..", "allowed-skips.txt")
    allowed = verdict.read_allowed_skips(path)
    assert allowed and all(allowed.values())


def test_all_skipped_kselftest_is_a_skip(tmp_path):
    """guest-run.sh turns a kselftest binary whose cases all skipped into a
    skip, and leaves one that ran something alone."""
    script = os.path.join(HERE, "..", "guest-run.sh")
    tests = tmp_path / "tests.txt"
    tests.write_text(
        "t  allskip  10  echo '# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:3 error:0'\n"
        "t  someran  10  echo '# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:2 error:0'\n"
        "t  retried  10  echo 'RETRY after a failure'\n")
    # guest-run.sh clears the guest's kernel log; leave the host's alone.
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "dmesg").write_text("#!/bin/sh\nexit 0\n")
    (fake / "dmesg").chmod(0o755)
    env = dict(os.environ, TOPOLOGY="t", TOP=TOP, BUILD=BUILD,
               PATH="%s:%s" % (fake, os.environ["PATH"]))
    out = subprocess.run(["sh", script, str(tests)], env=env, capture_output=True,
                         text=True).stdout
    res = dict((n, (st, d)) for n, st, d in verdict.parse_guest_tap(out))
    assert {n: st for n, (st, _) in res.items()} == {
        "allskip": "skip", "someran": "pass", "retried": "pass"}, out
    assert "passed on retry" in res["retried"][1] and "retry" not in res["someran"][1]


@pytest.mark.parametrize("log,culprit", [
    ("warning.log", "2tier/no-kernel-splat"),
    ("kasan.log", "2tier/no-kernel-splat"),
    ("ubsan.log", "2tier/no-kernel-splat"),
    ("lockdep.log", "2tier/no-kernel-splat"),
    ("panic.log", "2tier/no-kernel-splat"),
    ("softlockup.log", "2tier/no-kernel-splat"),
    ("hungtask.log", "2tier/no-kernel-splat"),
    ("kfence.log", "2tier/no-kernel-splat"),
    ("kunit-fail.log", "kunit/damon/damon_test_regions"),
    ("kunit-missing.log", "kunit/damon"),
    ("guest-fail.log", "2tier/memory_tiers_layout"),
    ("guest-missing.log", "2tier/memory_tiers_layout"),
])
def test_failure_turns_red(log, culprit):
    bad = failed(results_of(log))
    assert culprit in [r[0] for r in bad], bad
    assert " 0 failed" not in verdict.summary_line(results_of(log))


def test_guest_exit_status_propagates():
    assert "2tier/guest-exit" in [r[0] for r in failed(results_of("clean.log", rc=1))]


def test_test_output_is_not_a_splat():
    # clean.log has "WARNING:" in guest output; only kernel lines count.
    text = open(os.path.join(HERE, "logs", "clean.log")).read()
    assert "WARNING:" in text
    assert verdict.find_splats(text) == []


def test_skip_is_counted_as_skip():
    res = verdict.parse_guest_tap("ok 1 a # SKIP no hugetlb\nnot ok 2 b # exit=1\nok 3 c # 2s\n"
                                  "# ok 9 nested\n")
    assert res == [("a", "skip", "SKIP no hugetlb"), ("b", "fail", "exit=1"),
                   ("c", "pass", "2s")]
