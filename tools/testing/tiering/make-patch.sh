#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write the series for review into build/out/series/: build/src's commits
# (base..HEAD) with "git format-patch --cover-letter --base", the cover
# letter saying what the series does, its base and the bench's figures.
#
# Fails when patches/ and patches/series disagree, or when a fix or feature
# patch of patches/ does not pass checkpatch.pl --strict (backports are kept
# as upstream wrote them; checkpatch-exceptions.txt names the few message
# types one patch may keep, and why), or adds a file no MAINTAINERS entry
# covers.  It warns when build/src holds work patches/ lacks: the series
# written is build/src's.
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
build=${BUILD:-$top/build}
src=$build/src
out=$build/out/series
exceptions=$top/tools/testing/tiering/checkpatch-exceptions.txt
# shellcheck source=tools/testing/tiering/series-lib.sh
. "$top/tools/testing/tiering/series-lib.sh"

status=0
series_check_files "$top/patches" || status=1
if ! series_saved "$src" ||
   [ "$(git -C "$src" config --get tiering.applied)" != "$(series_stamp "$top/patches")" ]; then
	echo "make-patch: WARNING: build/src and patches/ differ; the series" \
	     "written is build/src's, the checks are of patches/ (make refresh)" >&2
fi

# subject FILE: the patch's subject, without "[PATCH] ".
subject() {
	awk '/^Subject: / { s = $0; sub(/^Subject: (\[PATCH[^]]*\] )?/, "", s); on = 1; next }
	     on && /^ / { s = s $0; next }
	     on { print s; exit }' "$1"
}

# An exception line: TYPES, a space, the subject of the patch it is for.
used=
while read -r p; do
	case $p in backport/*) continue ;; esac
	subj=$(subject "$top/patches/$p")
	extra=$(sed -e 's/#.*//' "$exceptions" | awk -v s="$subj" \
		'NF > 1 { t = $1; sub(/^[^ ]+ +/, ""); if ($0 == s) print t }')
	[ -z "$extra" ] || used="$used|$subj"
	# FILE_PATH_CHANGES only asks whether MAINTAINERS covers the files a
	# patch adds: get_maintainer.pl answers that below, file by file.
	res=$(cd "$src" && ./scripts/checkpatch.pl --strict --terse --no-tree \
		--show-types --ignore "FILE_PATH_CHANGES${extra:+,$extra}" \
		"$top/patches/$p" 2>&1) && rc=0 || rc=$?
	[ "$rc" = 0 ] && res=
	for f in $(awk 'prev == "--- /dev/null" && /^\+\+\+ b\// { print substr($0, 7) }
			{ prev = $0 }' "$top/patches/$p"); do
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
# An exception that matches no patch is stale.
while read -r types rest; do
	case "$used|" in *"|$rest|"*) ;; *)
		echo "make-patch: checkpatch-exceptions.txt: no patch '$rest'" >&2
		status=1 ;;
	esac
done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$exceptions")

rm -rf "$out"
mkdir -p "$out"
sgit -C "$src" format-patch -q --no-signature --cover-letter --base=base \
	-o "$out" base..HEAD
cover=$out/0000-cover-letter.patch
blurb=$(mktemp)
trap 'rm -f "$blurb"' EXIT
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
echo "make-patch: $out: $(series_list "$top/patches" | wc -l) patches and a" \
     "cover letter on $(cat "$build/base/VERSION")"
exit $status
