#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Export the commits of build/src (base..HEAD) into patches/ with
# "git format-patch": patches/<group>/NNNN-<subject>.patch and
# patches/series, where the group is backport (the message names its
# upstream commit), fix (it has a Fixes: tag) or feature.
#
# Never drops work: it refuses while build/src has uncommitted changes to
# tracked files, and when patches/ changed in the repository since build/src
# was prepared (say, after git pull) while build/src has other commits.
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
build=${BUILD:-$top/build}
src=$build/src
# shellcheck source=tools/testing/tiering/series-lib.sh
. "$top/tools/testing/tiering/series-lib.sh"

[ -d "$src/.git" ] || { echo "refresh: no prepared tree, run make prepare" >&2; exit 1; }
cd "$src"
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
	echo "refresh: build/src has uncommitted changes; commit them first" \
	     "(git commit, or git commit --fixup=<commit> and" \
	     "git rebase -i --autosquash base)." >&2
	exit 1
fi
new=$(git status --porcelain | sed -n 's/^?? //p')
[ -z "$new" ] || echo "refresh: not exported, untracked in build/src: $(echo $new)" >&2

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
echo "# The order in which make prepare applies patches/ (git am); written by make refresh." > "$tmp/series"
for c in $(git rev-list --reverse base..HEAD); do
	n=$((n + 1))
	group=$(series_group "$c")
	f=$(git format-patch --no-signature --zero-commit -N --start-number "$n" \
		-o "$tmp/$group" -1 "$c")
	echo "$group/$(basename "$f")" >> "$tmp/series"
done

applied=$(git config --get tiering.applied || true)
if [ "$(series_stamp "$top/patches")" != "$applied" ] &&
   [ "$(series_stamp "$tmp")" != "$(series_stamp "$top/patches")" ]; then
	echo "refresh: REFUSING: patches/ changed in the repository since" \
	     "build/src was prepared, and build/src differs from it; merge" \
	     "by hand (git am the new patches/ onto build/src)." >&2
	exit 1
fi

rm -rf "$top/patches/backport" "$top/patches/fix" "$top/patches/feature"
mkdir -p "$top/patches"
cp -r "$tmp"/. "$top/patches/"
git config tiering.applied "$(series_stamp "$top/patches")"
git config tiering.head "$(git rev-parse HEAD)"
echo "refresh: patches/series: $n patches"
git -C "$top" status --short -- patches | sed "s/^/refresh: /" | head -20
