#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# damo's own memory-tiering recipe, run with the unmodified damo from PyPI:
# one kdamond demotes cold pages of node0 aiming node0 at 0.5% free
# (node_mem_free_bp, "reject young"), one promotes hot pages of node1 aiming
# node0 at 99.7% used (node_mem_used_bp, "allow young").  Checks that damo
# starts it and that the kernel holds exactly what the recipe asked for.
A=/sys/kernel/mm/damon/admin/kdamonds
fail=0

# make check installs damo and builds DAMON sysfs in: missing is a failure.
command -v damo > /dev/null || { echo "FAIL: damo not installed"; exit 1; }
[ -d $A ] || { echo "FAIL: no DAMON sysfs"; exit 1; }

# In 6.12 a kdamond's state file answers EBUSY while another sysfs user,
# or a kdamond handling that user's request, holds damon_sysfs_lock
# (state_show() only try-locks it): read it again then.  Any value read
# is checked as it is.
check() {	# FILE EXPECTED
	tries=0
	until got=$(cat "$A/$1" 2>/dev/null) || [ $tries -ge 20 ]; do
		tries=$((tries + 1))
		sleep 0.05
	done
	if [ "$got" = "$2" ]; then
		echo "ok: $1 = $2"
	else
		echo "FAIL: $1 = '$got', expected '$2'"
		fail=1
	fi
}

damo start \
	--kdamond --damon_ctx --ops paddr --damon_target --numa_node 0 \
		--damos_scheme --damos_action migrate_cold 1 --damos_access_rate 0% 0% \
		--damos_apply_interval 1s \
		--damos_quota_interval 1s --damos_quota_space 200MB \
		--damos_quota_goal node_mem_free_bp 0.5% 0 \
		--damos_filter reject young \
	--kdamond --damon_ctx --ops paddr --damon_target --numa_node 1 \
		--damos_scheme --damos_action migrate_hot 0 --damos_access_rate 5% max \
		--damos_apply_interval 1s \
		--damos_quota_interval 1s --damos_quota_space 200MB \
		--damos_quota_goal node_mem_used_bp 99.7% 0 \
		--damos_filter allow young
rc=$?
if [ $rc -ne 0 ]; then
	echo "FAIL: damo start exited $rc"
	exit 1
fi
S0=0/contexts/0/schemes/0
S1=1/contexts/0/schemes/0
check 0/state on
check 1/state on
check $S0/action migrate_cold
check $S0/target_nid 1
check $S0/quotas/goals/0/target_metric node_mem_free_bp
check $S0/quotas/goals/0/target_value 50
check $S0/quotas/goals/0/nid 0
# damo puts the young filter, which the operations set handles, in
# ops_filters: this kernel has the per-layer filter directories.
check $S0/ops_filters/0/type young
check $S0/ops_filters/0/allow N
check $S1/action migrate_hot
check $S1/target_nid 0
check $S1/quotas/goals/0/target_metric node_mem_used_bp
check $S1/quotas/goals/0/target_value 9970
check $S1/quotas/goals/0/nid 0
check $S1/ops_filters/0/type young
check $S1/ops_filters/0/allow Y
check $S1/ops_filters/0/matching Y
sleep 3
check 0/state on
check 1/state on
# damo reads the running kdamonds back from the kernel.
damo report damon > /tmp/damo-report.txt 2>&1 || { echo "FAIL: damo report damon"; fail=1; }
grep -q 'node_mem_used_bp' /tmp/damo-report.txt && grep -q 'nid 0' /tmp/damo-report.txt &&
	echo "ok: damo reads back the node_mem_used_bp goal of node 0" ||
	{ echo "FAIL: damo report misses the goal"; cat /tmp/damo-report.txt; fail=1; }
damo stop || { echo "FAIL: damo stop"; fail=1; }
check 0/state off
exit $fail
