# SPDX-License-Identifier: GPL-2.0
"""Helpers shared by the Python kselftests of this directory."""
import os

failures = 0


def write_file(path, val):
    """Write @val to @path in one write(); return 0 or the errno."""
    try:
        fd = os.open(path, os.O_WRONLY)
    except OSError as e:
        return e.errno
    try:
        os.write(fd, val.encode())
        return 0
    except OSError as e:
        return e.errno
    finally:
        os.close(fd)


def read_file(path):
    with open(path) as f:
        return f.read().strip()


def expect(cond, what):
    """Print one ok/FAIL line and count failures."""
    global failures
    print("%s: %s" % ("ok" if cond else "FAIL", what))
    if not cond:
        failures += 1
