#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build one kernel variant out of tree: build/<variant>/arch/x86/boot/bzImage
# (build/base-test/... for the base variant).
#
#   test    tinyconfig + tiering.config + tiering-debug.config (make check)
#   run     tinyconfig + tiering.config (make, make bench)
#   nonuma  tinyconfig + tiering-nonuma.config: vmlinux only, to check that
#           DAMON and this tree's DAMON code build and link without NUMA
#   base    the unpatched base tree (build/base/linux) with the test
#           kernel's fragments, less the options only this tree has: to
#           tell base-kernel behaviour from our regressions
#
# Every option a fragment asks for is checked in the final .config, since
# merge_config/olddefconfig drop unmet options silently.
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
build=${BUILD:-$top/build}
variant=${1:-test}
src=$build/src
out=$build/$variant
frags="$top/tools/testing/tiering/configs/tiering.config"
[ "$variant" = test ] && frags="$frags $top/tools/testing/tiering/configs/tiering-debug.config"
[ "$variant" = nonuma ] && frags="$top/tools/testing/tiering/configs/tiering-nonuma.config"
if [ "$variant" = base ]; then
	src=$build/base/linux
	out=$build/base-test
	mkdir -p "$out"
	# The options of our fragments that the base tree's Kconfig knows.
	known=$(grep -rhoE --include='Kconfig*' '^(menu)?config [A-Z0-9_]+' "$src" |
		awk '{print "CONFIG_" $2}' | sort -u)
	for f in tiering tiering-debug; do
		grep -E '^(# )?CONFIG_' "$top/tools/testing/tiering/configs/$f.config" |
			grep -wFf <(echo "$known") > "$out/$f.config.new"
		cmp -s "$out/$f.config.new" "$out/$f.config" ||
			mv "$out/$f.config.new" "$out/$f.config"
		rm -f "$out/$f.config.new"
	done
	frags="$out/tiering.config $out/tiering-debug.config"
fi
jobs=$(nproc)
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.ccache}
# Relative paths in the ccache hash: clones elsewhere hit the same entries.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$top}
export KBUILD_BUILD_USER=tiering KBUILD_BUILD_HOST=tiering
kmake() {
	# LOCALVERSION set, even empty: no "+" for build/src's git tree.
	make -s -C "$src" O="$out" CC="ccache gcc" HOSTCC="ccache gcc" LOCALVERSION= "$@"
}

mkdir -p "$out"
need_config=0
[ -f "$out/.config" ] || need_config=1
for f in $frags; do
	[ "$f" -nt "$out/.config" ] && need_config=1
done
if [ $need_config = 1 ]; then
	kmake tinyconfig >/dev/null
	# shellcheck disable=SC2086
	KCONFIG_CONFIG="$out/.config" "$src/scripts/kconfig/merge_config.sh" \
		-m -O "$out" "$out/.config" $frags >/dev/null
	kmake olddefconfig >/dev/null
	bad=0
	for f in $frags; do
		while read -r line; do
			case $line in
			CONFIG_*=*)
				grep -qx "$line" "$out/.config" || {
					echo "build-kernel: $line requested by" \
					     "$(basename "$f") but not set" >&2
					bad=1
				} ;;
			"# CONFIG_"*" is not set")
				opt=${line#\# }
				opt=${opt%% *}
				if grep -q "^$opt=" "$out/.config"; then
					echo "build-kernel: $opt should be unset" >&2
					bad=1
				fi ;;
			esac
		done < "$f"
	done
	[ $bad = 0 ] || { rm -f "$out/.config"; exit 1; }
fi
start=$(date +%s)
if [ "$variant" = nonuma ]; then
	kmake -j"$jobs" vmlinux
	echo "build-kernel: vmlinux built without NUMA in" \
	     "$(( $(date +%s) - start ))s"
	exit 0
fi
kmake -j"$jobs" bzImage
echo "build-kernel: $variant kernel built in $(( $(date +%s) - start ))s:" \
     "$out/arch/x86/boot/bzImage"
