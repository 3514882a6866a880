#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""DAMON sysfs directory creation under systematic allocation failures.

Each DAMON sysfs directory that a write to an nr_* file creates allocates
a chain of objects (kobjects, their names, child directories).  For every
n up to the last allocation of such a write, this test makes the n-th slab
allocation of the write fail (/proc/thread-self/fail-nth, with failslab
not ignoring sleeping allocations) and checks that the write either
succeeds or fails with ENOMEM, and that a failed write leaves nothing half
made: the nr_* file reads 0 and no child directory is left.  A use of an
uninitialised pointer on an error path shows as a KASAN report or an oops
in the serial log, which fails the boot (the debug kernel has KASAN).

Needs CONFIG_FAULT_INJECTION, CONFIG_FAILSLAB and
CONFIG_FAULT_INJECTION_DEBUG_FS (tiering-debug.config).
"""
import errno
import os
import sys

import tiering_util

KD = "/sys/kernel/mm/damon/admin/kdamonds"
FAILSLAB = "/sys/kernel/debug/failslab"
FAIL_NTH = "/proc/thread-self/fail-nth"

expect = tiering_util.expect
read = tiering_util.read_file
must = tiering_util.must_write


def failing_write(path, val, nth):
    """Write @val to @path with the @nth slab allocation failing.

    Returns (errno or 0, whether the failure was injected).  fail-nth is
    opened before it is armed: any allocation after arming, the open of a
    file included, counts down.
    """
    fd = os.open(path, os.O_WRONLY)
    nth_fd = os.open(FAIL_NTH, os.O_RDWR)
    try:
        os.write(nth_fd, str(nth).encode())
        try:
            os.write(fd, val.encode())
            err = 0
        except OSError as e:
            err = e.errno
        # Reading it back tells whether the n-th allocation came: 0 if so.
        left = int(os.pread(nth_fd, 32, 0))
        os.pwrite(nth_fd, b"0", 0)
        return err, left == 0
    finally:
        os.close(nth_fd)
        os.close(fd)


def children(d):
    return sorted(e for e in os.listdir(d) if e.isdigit())


# (parent directory builder, nr file relative to it, children's directory)
def setups():
    ctx = KD + "/0/contexts/0"
    return [
        ("kdamonds", lambda: must(KD + "/nr_kdamonds", "0"), KD, "nr_kdamonds"),
        ("contexts", lambda: must(KD + "/nr_kdamonds", "1"), KD + "/0/contexts",
         "nr_contexts"),
        ("targets", lambda: (must(KD + "/nr_kdamonds", "1"),
                             must(KD + "/0/contexts/nr_contexts", "1")),
         ctx + "/targets", "nr_targets"),
        ("schemes", lambda: (must(KD + "/nr_kdamonds", "1"),
                             must(KD + "/0/contexts/nr_contexts", "1")),
         ctx + "/schemes", "nr_schemes"),
        ("goals", lambda: (must(KD + "/nr_kdamonds", "1"),
                           must(KD + "/0/contexts/nr_contexts", "1"),
                           must(ctx + "/schemes/nr_schemes", "1")),
         ctx + "/schemes/0/quotas/goals", "nr_goals"),
        ("filters", lambda: (must(KD + "/nr_kdamonds", "1"),
                             must(KD + "/0/contexts/nr_contexts", "1"),
                             must(ctx + "/schemes/nr_schemes", "1")),
         ctx + "/schemes/0/filters", "nr_filters"),
    ]


def main():
    if not os.path.exists(FAIL_NTH):
        print("FAIL: no %s: the kernel lacks CONFIG_FAULT_INJECTION" % FAIL_NTH)
        return 1
    if not os.path.isdir(FAILSLAB):
        os.system("mount -t debugfs none /sys/kernel/debug 2>/dev/null")
    if not os.path.isdir(FAILSLAB):
        print("FAIL: no %s: the kernel lacks CONFIG_FAILSLAB" % FAILSLAB)
        return 1
    saved = read(FAILSLAB + "/ignore-gfp-wait")
    must(FAILSLAB + "/ignore-gfp-wait", "N")
    must(FAILSLAB + "/verbose", "0")
    try:
        for name, setup, parent, nr in setups():
            must(KD + "/nr_kdamonds", "0")
            injected = failed = 0
            for nth in range(1, 400):
                setup()
                err, fired = failing_write(os.path.join(parent, nr), "1", nth)
                if not fired:
                    expect(err == 0, "%s: the write without a failure succeeds (%s)"
                           % (name, errno.errorcode.get(err, err)))
                    break
                injected += 1
                if err:
                    failed += 1
                    if err != errno.ENOMEM:
                        expect(False, "%s: allocation %d failed the write with %s, "
                               "not ENOMEM" % (name, nth, errno.errorcode.get(err, err)))
                    if read(os.path.join(parent, nr)) != "0" or children(parent):
                        expect(False, "%s: allocation %d failed, %s reads %s with %s left"
                               % (name, nth, nr, read(os.path.join(parent, nr)),
                                  children(parent)))
                must(KD + "/nr_kdamonds", "0")
            print("%s: %d allocations failed in turn, %d made the write fail" % (
                name, injected, failed))
            expect(injected > 0 and failed > 0,
                   "%s: failures were injected and some reached the write" % name)
    finally:
        with open(FAIL_NTH, "w") as f:
            f.write("0")
        must(FAILSLAB + "/ignore-gfp-wait", saved)
        must(KD + "/nr_kdamonds", "0")
    print("%d failures" % tiering_util.failures)
    return 1 if tiering_util.failures else 0


if __name__ == "__main__":
    sys.exit(main())
