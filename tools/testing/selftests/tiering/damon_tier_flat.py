#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""DAMON_TIER parameters: validation, and no schemes on a flat machine.

Every parameter rejects malformed and out-of-range values with EINVAL and
keeps its value; on a machine with one memory tier damon_tier runs with no
scheme at all.
"""
import errno
import os
import re
import sys

import tiering_util

KSFT_SKIP = 4
PARAMS = "/sys/module/damon_tier/parameters"


def write(name, val):
    return tiering_util.write_file(os.path.join(PARAMS, name), val)


def read(name):
    return tiering_util.read_file(os.path.join(PARAMS, name))


expect = tiering_util.expect


def main():
    if not os.path.isdir(PARAMS):
        print("kernel has no damon_tier")
        return KSFT_SKIP
    defaults = {"target_used_bp": "9970", "target_free_bp": "50", "quota_mb": "200",
                "quota_reset_interval_ms": "1000", "enabled": "N", "kdamond_pid": "-1",
                "bytes_promoted": "0", "bytes_demoted": "0"}
    for k, v in defaults.items():
        expect(read(k) == v, "%s defaults to %s" % (k, v))
    bad = {
        "target_used_bp": ["0", "10001", "-1", "abc", "\n", "99999999999999999999999"],
        "target_free_bp": ["0", "10001", "1.5", "5x"],
        "quota_mb": ["0", "-5", "1099511627776", "ten"],
        "quota_reset_interval_ms": ["0", "x", "2000000"],
        "enabled": ["maybe", "2", "\n"],
    }
    for name, vals in bad.items():
        before = read(name)
        for v in vals:
            err = write(name, v)
            expect(err == errno.EINVAL, "%s rejects %r (%s)" % (name, v, errno.errorcode.get(err, err)))
            expect(read(name) == before, "%s unchanged after %r" % (name, v))
    for name in ("kdamond_pid", "bytes_promoted", "bytes_demoted", "nr_schemes",
                 "nr_regions"):
        expect(write(name, "5") in (errno.EACCES, errno.EPERM), "%s is read-only" % name)
    expect(write("target_used_bp", "9900") == 0 and read("target_used_bp") == "9900",
           "target_used_bp accepts 9900")
    write("target_used_bp", "9970")

    flat = len([d for d in os.listdir("/sys/devices/virtual/memory_tiering")
                if re.match(r"memory_tier\d+$", d)]) == 1
    expect(write("enabled", "Y") == 0, "enable")
    expect(read("enabled") == "Y" and int(read("kdamond_pid")) > 0, "kdamond runs")
    if flat:
        expect(read("nr_schemes") in ("0",), "flat machine: no schemes (got %s)"
               % read("nr_schemes"))
    expect(write("enabled", "N") == 0 and read("kdamond_pid") == "-1", "disable")
    print("%d failures" % tiering_util.failures)
    return 1 if tiering_util.failures else 0


if __name__ == "__main__":
    sys.exit(main())
