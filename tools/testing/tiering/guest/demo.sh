#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The narrated run of "make", inside the 2tier VM.
fault=$BUILD/kselftest/tiering/tier_interleave
say() { printf '\n== %s\n' "$*"; }
summary=/tmp/summary

say "Topology: NUMA nodes (numactl --hardware)"
numactl --hardware
say "Memory tiers (/sys/devices/virtual/memory_tiering)"
for t in /sys/devices/virtual/memory_tiering/memory_tier*; do
	printf '%s: nodes %s, interleave_weight %s\n' "$(basename "$t")" \
		"$(cat "$t/nodelist")" "$(cat "$t/interleave_weight" 2>/dev/null || echo n/a)"
done
if [ -x "$TOP/tools/mm/tierctl" ]; then
	say "tierctl show"
	python3 "$TOP/tools/mm/tierctl" show
fi

echo never > /sys/kernel/mm/transparent_hugepage/enabled
say "Bandwidth expansion: numactl --interleave=all, 6000 pages"
for w in "1 1" "5 1"; do
	if ! echo "$w" > /proc/sys/vm/numa_tier_interleave 2>/dev/null; then
		echo "vm.numa_tier_interleave is missing: this kernel has no tier weights"
		break
	fi
	set -- $(numactl --interleave=all "$fault" --fault 6000)
	printf 'vm.numa_tier_interleave = %-5s -> node0 %5d pages, node1 %5d pages\n' \
		"$w" "$1" "$2"
	echo "interleave $w: node0 $1 / node1 $2" >> $summary
done
echo "1 1" > /proc/sys/vm/numa_tier_interleave 2>/dev/null

if [ -x "$TOP/tools/testing/tiering/guest/demo-tiering.sh" ]; then
	say "Capacity expansion: damon_tier"
	sh "$TOP/tools/testing/tiering/guest/demo-tiering.sh" | tee -a /tmp/tiering.out
	grep '^summary:' /tmp/tiering.out | sed 's/^summary: //' >> $summary
fi

say "Summary"
cat $summary
