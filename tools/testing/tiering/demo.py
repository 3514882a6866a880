#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The main job of "make": boot the 2tier VM and show both features."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import vm  # noqa: E402


def main():
    # The production-config kernel: KASAN and lockdep would slow DAMON and
    # take memory from node0, which is what the capacity part is about.
    kernel = os.path.join(vm.BUILD, "run", "arch", "x86", "boot", "bzImage")
    print("Booting the 2tier VM (QEMU TCG): node0 = 2 CPUs + DRAM, node1 = CPU-less CXL-like memory")
    rc, log, _ = vm.run("2tier", "sh $TOP/tools/testing/tiering/guest/demo.sh", kernel=kernel,
                        timeout=900, name="demo", echo="guest")
    print("")
    print("Kernel:        %s (make check also builds a debug kernel: build/test)" % kernel)
    print("Serial log:    %s" % log)
    series = os.path.join(vm.BUILD, "out", "series")
    print("Patch series:  %s%s" % (series, "" if os.path.isdir(series) else
                                   " (not written: run 'make patch')"))
    print("Base:          %s" % open(os.path.join(vm.BUILD, "base", "VERSION")).read().strip())
    return rc


if __name__ == "__main__":
    sys.exit(main())
