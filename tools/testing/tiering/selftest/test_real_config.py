# SPDX-License-Identifier: GPL-2.0
"""Harness self-test: make real-config refuses a flavour it does not know,
says which it takes, and leaves the build directory as it was."""
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(os.path.dirname(HERE), "real-config.sh")


def run(flavour, build):
    env = dict(os.environ, REAL_FLAVOUR=flavour, BUILD=str(build))
    return subprocess.run(["bash", SCRIPT], env=env, capture_output=True,
                          text=True, timeout=60)


def tree(build):
    return sorted((str(p.relative_to(build)), p.read_bytes())
                  for p in build.rglob("*") if p.is_file())


def test_bad_flavour_is_refused_and_changes_nothing(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (real / ".config").write_text("CONFIG_DAMON_TIER=y\n")
    before = tree(tmp_path)
    for bad in ("bogus", "cloud", "rt-amd64", "amd64 ", " cloud-amd64",
                "AMD64", "amd64;true", "../amd64", "cloud-amd64\n"):
        r = run(bad, tmp_path)
        assert r.returncode == 2, (bad, r.returncode, r.stderr)
        assert "REAL_FLAVOUR" in r.stderr and "cloud-amd64" in r.stderr, bad
        assert r.stdout == "", bad
        assert tree(tmp_path) == before, bad
