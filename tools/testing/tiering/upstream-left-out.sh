#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The upstream DAMON kselftests that tests.txt leaves out, three runs each,
# in a VM: run it on the unpatched base kernel (make kernel-base) and on
# ours to tell base-kernel behaviour from our regressions.
#
#   vm.py -t 2tier -k build/base-test/arch/x86/boot/bzImage \
#       --append kunit.enable=0 -- sh tools/testing/tiering/upstream-left-out.sh
cd "$BUILD/kselftest/damon" || exit 1
uname -r
for t in damos_apply_interval.py damos_tried_regions.py damon_nr_regions.py \
	 sysfs_update_schemes_tried_regions_wss_estimation.py; do
	for i in 1 2 3; do
		python3 "./$t" > /tmp/out 2>&1
		echo "$t run $i: exit $?"
		tail -n 3 /tmp/out | sed 's/^/    /'
	done
done
