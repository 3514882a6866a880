#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest side: run one of mainline's DAMON kselftests, unmodified, with
contexts/<C>/tlb_flush set to Y in every context it stages.

For the tests that judge how much of a working set DAMON sees accessed:
QEMU TCG keeps a translation in its software TLB until that is flushed, so
an accessed bit DAMON clears is not set again while the process keeps its
vCPU.  The tests assume a hardware TLB smaller than their working set (see
the comment in sysfs_update_schemes_tried_regions_wss_estimation.py); here
tlb_flush, the DAMON mechanism for that case, gives them that.

    mainline-damon-tlb-flush.py TEST
"""
import os
import runpy
import sys

test = sys.argv[1]
os.chdir(os.path.join(os.environ["BUILD"], "kselftest", "damon-mainline"))
sys.path.insert(0, os.getcwd())
import _damon_sysfs  # noqa: E402  (mainline's, from the directory above)

stage = _damon_sysfs.DamonCtx.stage


def stage_with_tlb_flush(self):
    err = stage(self)
    if err is not None:
        return err
    return _damon_sysfs.write_file(os.path.join(self.sysfs_dir(), "tlb_flush"), "Y")


_damon_sysfs.DamonCtx.stage = stage_with_tlb_flush
sys.argv = ["./" + test]
runpy.run_path("./" + test, run_name="__main__")
