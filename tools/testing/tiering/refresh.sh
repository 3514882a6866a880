#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Export the commits of build/src (base..HEAD) into patches/ with
# "git format-patch": patches/<group>/NNNN-<subject>.patch and
# patches/series, where the group is backport (the message names its
# upstream commit), fix (it has a Fixes: tag) or feature.
#
# Never drops work: it refuses while build/src has uncommitted changes to
# tracked files or a git operation in progress, and when patches/ changed
# in the repository since build/src was prepared (say, after git pull)
# while build/src has other commits.
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
build=${BUILD:-$top/build}
src=$build/src
# shellcheck source=tools/testing/tiering/series-lib.sh
. "$top/tools/testing/tiering/series-lib.sh"

[ -d "$src/.git" ] || { echo "refresh: no prepared tree, run make prepare" >&2; exit 1; }
cd "$src"
if series_busy "$src"; then
	echo "refresh: a git am, rebase, merge or cherry-pick is in progress in" \
	     "build/src; finish or abort it first." >&2
	exit 1
fi
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
	echo "refresh: build/src has uncommitted changes; commit them first" \
	     "(git commit, or git commit --fixup=<commit> and" \
	     "git rebase -i --autosquash base)." >&2
	exit 1
fi
git merge-base --is-ancestor base HEAD ||
	{ echo "refresh: build/src's HEAD does not descend from tag base" >&2; exit 1; }
[ -z "$(git rev-list --merges base..HEAD)" ] ||
	{ echo "refresh: base..HEAD has merge commits; a series is linear" >&2; exit 1; }
new=$(git status --porcelain | sed -n 's/^?? //p')
[ -z "$new" ] || echo "refresh: not exported, untracked in build/src:" $new >&2
series_check_files "$top/patches"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
echo "# The order in which make prepare applies patches/ (git am); written by make refresh." > "$tmp/series"
for c in $(git rev-list --reverse base..HEAD); do
	n=$((n + 1))
	group=$(series_group "$c")
	f=$(sgit format-patch --no-signature --zero-commit -N --start-number "$n" \
		-o "$tmp/$group" -1 "$c")
	[ -n "$f" ] || { echo "refresh: commit $c is empty" >&2; exit 1; }
	echo "$group/$(basename "$f")" >> "$tmp/series"
done

applied=$(git config --get tiering.applied || true)
if [ "$(series_stamp "$top/patches")" != "$applied" ] &&
   [ "$(series_stamp "$tmp")" != "$(series_stamp "$top/patches")" ]; then
	echo "refresh: REFUSING: patches/ changed in the repository since" \
	     "build/src was prepared, and build/src differs from it.  Run" \
	     "make prepare FORCE=1 (it keeps build/src's commits on a branch" \
	     "saved/<time>), then cherry-pick them and refresh." >&2
	exit 1
fi

# Swap the new series in whole.
rm -rf "$top/patches.new"
mkdir -p "$top/patches.new"
cp -r "$tmp"/. "$top/patches.new/"
rm -rf "$top/patches.old"
[ ! -d "$top/patches" ] || mv "$top/patches" "$top/patches.old"
mv "$top/patches.new" "$top/patches"
rm -rf "$top/patches.old"
git config tiering.applied "$(series_stamp "$top/patches")"
git tag -f series >/dev/null
echo "refresh: patches/series: $n patches"
git -C "$top" status --short -- patches | sed -n '1,20s/^/refresh: /p'
