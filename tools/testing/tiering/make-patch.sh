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
	can select, with mainline's names and semantics (node_mem_used_bp and
	node_mem_free_bp goals, goal_tuner consist|temporal, the failed region
	charge ratio, allow filters, intervals auto-tuning) plus opt-in
	placement checks for migrations (respect_placement).  The tier policy
	lives in mm/damon/tier.c: its migrate_hot/migrate_cold schemes run on
	the temporal tuner and the module paces them every 100 ms pass from the
	upper node's free memory, its watermark floor and the hot set DAMON
	measures.  This replaced a tier-specific "exchange" tuner in core.
	What the module reaches on make bench's workload matrix, on the
	kernel's default sysctls, is in
	Documentation/admin-guide/mm/damon/tier.rst.
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
