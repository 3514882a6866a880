#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Bisectability of the series (make check-series, not part of make check):
# in a git worktree of build/src, mm/ is built after every patch, and at the
# last patch of each group (backport, fix, feature) the whole test kernel is
# built and booted on the 2tier machine with its KUnit suites, which must
# pass, without a kernel warning.  Every step starts from the test kernel's
# .config (make kernel), brought to that patch's Kconfig by olddefconfig.
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
build=${BUILD:-$top/build}
src=$build/src
wt=$build/series-check
out=$build/series-check-out
T=$top/tools/testing/tiering
export T
# shellcheck source=tools/testing/tiering/series-lib.sh
. "$T/series-lib.sh"

[ -f "$build/test/.config" ] || { echo "check-series: run make kernel first" >&2; exit 1; }
series_saved "$src" ||
	echo "check-series: note: build/src has work that is not in patches/; checking build/src" >&2

export CCACHE_DIR=${CCACHE_DIR:-$HOME/.ccache}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$top}
export KBUILD_BUILD_USER=tiering KBUILD_BUILD_HOST=tiering
kmake() {
	make -s -C "$wt" O="$out" CC="ccache gcc" HOSTCC="ccache gcc" LOCALVERSION= -j"$(nproc)" "$@"
}

# A worktree of this build/src (a new build/src leaves the old one stale),
# set up while prepare cannot rewrite build/src; the commits it then checks
# out stay in build/src's object store whatever prepare does later.
exec 9>"$build/.prepare.lock"
flock 9
if [ "$(git -C "$wt" rev-parse --path-format=absolute --git-common-dir 2>/dev/null)" != "$src/.git" ]; then
	rm -rf "$wt"
	git -C "$src" worktree prune
	git -C "$src" worktree add -q --detach "$wt" base
fi
mkdir -p "$out"
mapfile -t commits < <(git -C "$src" rev-list --reverse base..HEAD)
flock -u 9
n=${#commits[@]}
t0=$(date +%s)
for i in $(seq 0 $((n - 1))); do
	c=${commits[$i]}
	subject=$(git -C "$src" log -1 --format=%s "$c")
	group=$(cd "$src" && series_group "$c")
	next=
	[ $((i + 1)) -lt "$n" ] && next=$(cd "$src" && series_group "${commits[$((i + 1))]}")
	git -C "$wt" checkout -q --detach "$c"
	cp "$build/test/.config" "$out/.config"
	kmake olddefconfig >/dev/null
	step=mm/
	if ! kmake mm/ >"$out/step.log" 2>&1; then
		cat "$out/step.log" >&2
		echo "check-series: FAILED at $((i + 1))/$n ($subject): mm/ does not build" >&2
		exit 1
	fi
	if [ "$group" != "$next" ]; then
		step="kernel, KUnit"
		if ! kmake bzImage >"$out/step.log" 2>&1; then
			cat "$out/step.log" >&2
			echo "check-series: FAILED at $((i + 1))/$n ($subject): the kernel does not build" >&2
			exit 1
		fi
		if ! python3 - "$out/arch/x86/boot/bzImage" "$src" <<-'EOF'
			import os, sys
			sys.path.insert(0, os.path.join(os.environ["T"]))
			import verdict, vm
			kernel, src = sys.argv[1], sys.argv[2]
			rc, log, _ = vm.run("2tier", "true", kernel=kernel, timeout=900,
			                    name="check-series", append="", echo="none")
			kunit_py = os.path.join(src, "tools", "testing", "kunit", "kunit.py")
			res = verdict.boot_results("2tier", log, "", [], kunit_py, [], rc)
			bad = [r for r in res if r[1] == "fail"]
			if not any(r[1] == "pass" and r[0].startswith("kunit/") for r in res):
			    bad.append(("kunit", "fail", "no KUnit case ran"))
			for r in bad:
			    print("check-series:   %s: %s" % (r[0], r[2]), file=sys.stderr)
			print("check-series:   %d KUnit cases passed" %
			      sum(1 for r in res if r[1] == "pass" and r[0].startswith("kunit/")))
			sys.exit(1 if bad else 0)
		EOF
		then
			echo "check-series: FAILED at $((i + 1))/$n ($subject): KUnit or boot" >&2
			exit 1
		fi
	fi
	echo "check-series: $((i + 1))/$n ok ($step, $(( $(date +%s) - t0 )) s): $subject"
done
echo "check-series: all $n patches build; took $(( $(date +%s) - t0 )) s"
