#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write the series for review into build/out/series/: build/src's commits
# (base..HEAD) with "git format-patch --cover-letter --base", the cover
# letter saying what the series does, its base and the bench's figures.
#
# Checks, and fails on: build/src holding commits or changes that patches/
# lacks (the series would not be what the repository has), and a fix or
# feature patch of patches/ that checkpatch.pl --strict does not pass
# (backports are kept as upstream wrote them).
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
build=${BUILD:-$top/build}
src=$build/src
out=$build/out/series
# shellcheck source=tools/testing/tiering/series-lib.sh
. "$top/tools/testing/tiering/series-lib.sh"

if ! series_saved "$src" ||
   [ "$(git -C "$src" config --get tiering.applied)" != "$(series_stamp "$top/patches")" ]; then
	echo "make-patch: build/src and patches/ differ: run make refresh" \
	     "(or make prepare)" >&2
	exit 1
fi

# checkpatch's FILE_PATH_CHANGES asks whether MAINTAINERS covers the files
# a patch adds; get_maintainer.pl answers that for each of them instead.
exceptions=$top/tools/testing/tiering/checkpatch-exceptions.txt
status=0
# patches/series lists every patch of patches/, and nothing else.
unlisted=$(comm -23 <(cd "$top/patches" && find . -name '*.patch' | sed 's|^\./||' | sort) \
		    <(series_list "$top/patches" | sort))
if [ -n "$unlisted" ]; then
	echo "make-patch: not in patches/series:" $unlisted >&2
	status=1
fi
while read -r p; do
	case $p in backport/*) continue ;; esac
	ignore=FILE_PATH_CHANGES
	extra=$(sed -e 's/#.*//' "$exceptions" | awk -v p="$p" '$1 == p { print $2 }')
	[ -z "$extra" ] || ignore=$ignore,$extra
	res=$(cd "$src" && ./scripts/checkpatch.pl --strict --terse --no-tree \
		--show-types --ignore "$ignore" "$top/patches/$p" 2>&1 |
		grep -E ': (ERROR|WARNING|CHECK):' || true)
	for f in $(sed -n 's|^+++ b/||p' "$top/patches/$p" | sort -u); do
		grep -q "^--- /dev/null" <(grep -B1 "^+++ b/$f\$" "$top/patches/$p") || continue
		(cd "$src" && ./scripts/get_maintainer.pl --no-git --no-git-fallback -f "$f" 2>/dev/null) |
			grep -q '(maintainer:' ||
			res="$res${res:+
}$f: no MAINTAINERS entry covers this new file"
	done
	if [ -n "$res" ]; then
		echo "make-patch: checkpatch --strict on patches/$p:" >&2
		printf '%s\n' "$res" | sed 's/^/  /' >&2
		status=1
	fi
done < <(series_list "$top/patches")

rm -rf "$out"
mkdir -p "$out"
git -C "$src" format-patch -q --no-signature --cover-letter --base=base \
	-o "$out" base..HEAD
cover=$(ls "$out"/0000-cover-letter.patch)
blurb=$(mktemp)
{
	cat <<-EOT
	Linux 6.12 for tiered memory: CXL and older DRAM as CPU-less NUMA
	nodes in lower memory tiers, used for bandwidth and for capacity.

	- Tier-weighted interleave: MPOL_INTERLEAVE spreads pages N:M over
	  the memory tiers, by per-tier weights (memory_tierN/interleave_weight,
	  vm.numa_tier_interleave); with every weight 1 it is plain interleave.
	- DAMON mechanisms any DAMON user can select: quota goals on a node's
	  used and free memory, allow filters, monitoring intervals
	  auto-tuning, goal tuners, placement checks for migrations, an opt-in
	  TLB flush of sampled pages, DAMON_STAT; mainline's names and
	  semantics where mainline has them.
	- DAMON_TIER, a DAMON module in mainline's module shape: a
	  migrate_cold scheme for each node with a lower tier, a migrate_hot
	  scheme for each node with an upper one, tuned by DAMON core.
	- kpromoted and klruscand: hot pages of lower tiers found by MGLRU
	  page-table walks and promoted; one promoter runs at a time.

	Base: $(cat "$build/base/VERSION") (base-commit below: that package
	unpacked, committed with a fixed date by make prepare).
	EOT
	echo
	if [ -f "$build/bench/report.md" ]; then
		echo "Figures of the last make bench on this machine"
		echo "(build/bench/report.md, QEMU TCG, kernel default sysctls):"
		echo
		sed -n '1,60p' "$build/bench/report.md"
	else
		echo "Figures: make bench writes them to build/bench/report.md;"
		echo "Documentation/admin-guide/mm/damon/tier.rst and"
		echo "tier-interleave.rst give the last ones measured."
	fi
} > "$blurb"
python3 - "$cover" "$blurb" <<-'EOF'
	import sys
	cover, blurb = sys.argv[1], open(sys.argv[2]).read().rstrip('\n')
	t = open(cover).read()
	t = t.replace('*** SUBJECT HERE ***',
		      'Tiered-memory Linux 6.12: tier-weighted interleave and DAMON tiering')
	t = t.replace('*** BLURB HERE ***', blurb)
	open(cover, 'w').write(t)
EOF
rm -f "$blurb"
echo "make-patch: $out: $(series_list "$top/patches" | wc -l) patches and a" \
     "cover letter on $(cat "$build/base/VERSION")"
exit $status
