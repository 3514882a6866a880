#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Capacity expansion part of the "make" run: the end-to-end damon_tier test,
# narrated, with a summary line for demo.sh.
python3 "$TOP/tools/testing/selftests/tiering/damon_tier_e2e.py" --settle 15 --limit 90 |
	tee /tmp/e2e.out
res=$(grep -o '90% of the hot set on node[0-9]* after [0-9.]*s' /tmp/e2e.out)
free=$(grep -o 'node[0-9]* headroom once settled [0-9.]*%' /tmp/e2e.out)
echo "summary: damon_tier: ${res:-hot set did not reach 90%}; ${free:-no settled headroom}"
