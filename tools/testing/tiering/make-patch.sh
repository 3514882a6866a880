#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write build/out/tiering-6.12.patch: patches/ plus every overlay file as a
# new-file diff, against the pristine base, and check that it applies.
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
build=${BUILD:-$top/build}
base=$build/base/linux
out=$build/out/tiering-6.12.patch
overlay_dirs="mm include kernel Documentation tools"
mkdir -p "$(dirname "$out")"

{
	echo "Tiered-memory Linux: tier-weighted interleave and DAMON tiering."
	echo "Base: $(cat "$build/base/VERSION")"
	echo
	cat <<-'EOT'
	DAMON tiering design: DAMON core carries only mechanisms any DAMON user
	can select, with mainline's names and semantics where mainline has them
	(node_mem_used_bp/node_mem_free_bp and node_memcg_* quota goals,
	goal_tuner, the failed region charge ratio, allow filters, intervals
	auto-tuning, damon_call(), DAMON_STAT), plus this series' own opt-in
	mechanisms (the node_mem_headroom_bp goal on the gap tuner, placement
	checks for migrations, TLB flushes of sampled pages).  The tier policy
	lives in mm/damon/tier.c, shaped as mainline's DAMON modules: a
	migrate_cold scheme for each node with a lower tier, a migrate_hot
	scheme for each node with an upper one, stated once and again only after memory hotplug or a change of
	promoter; DAMON core tunes how much they move and how often it samples.
	What it reaches on make bench's workload matrix, on the kernel's
	default sysctls, is in the bench report (make bench).
	EOT
	echo
	(cd "$top" && find patches -name '*.patch' | sort | xargs -r cat)
	cd "$top"
	for f in $(git ls-files --cached --others --exclude-standard $overlay_dirs | grep -v '^tools/testing/tiering/' | sort); do
		echo "diff --git a/$f b/$f"
		echo "new file mode $(stat -c %a "$f" | sed 's/^7/1007/; s/^6/1006/')"
		diff -u --label /dev/null --label "b/$f" /dev/null "$f" || true
	done
} > "$out.tmp"
mv "$out.tmp" "$out"
patch -p1 --dry-run -s -d "$base" < "$out" >/dev/null
tmp=$(mktemp -d)
git -C "$tmp" init -q
(cd "$base" && git --git-dir="$tmp/.git" --work-tree=. apply --check "$out")
rm -rf "$tmp"
echo "make-patch: $out ($(grep -c '^diff --git\|^--- a/' "$out") files) applies to $(cat "$build/base/VERSION") with patch -p1 and git apply"
