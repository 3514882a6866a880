#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build/src = a git tree of the pristine base (tag "base") with the series
# in patches/series applied by "git am", plus the tools overlay (symlinks).
#
# The series is applied again only when patches/ changed and build/src holds
# no work that "make refresh" has not exported: no uncommitted change to a
# tracked file, no commit beyond the applied series.  Otherwise prepare
# refuses and says why, instead of dropping that work.
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
build=${BUILD:-$top/build}
base=$build/base/linux
src=$build/src
# shellcheck source=tools/testing/tiering/series-lib.sh
. "$top/tools/testing/tiering/series-lib.sh"

[ -d "$base" ] || { echo "prepare: no base tree, run make fetch" >&2; exit 1; }
version=$(cat "$build/base/VERSION")
want=$(series_stamp "$top/patches")

if [ ! -d "$src/.git" ] || [ "$(git -C "$src" config --get tiering.base || true)" != "$version" ]; then
	if [ -d "$src/.git" ] && ! series_saved "$src"; then
		echo "prepare: REFUSING to replace build/src (base $version is new):" \
		     "it holds work that is not in patches/; run 'make refresh'" \
		     "or remove build/src." >&2
		exit 1
	fi
	echo "prepare: making build/src a git tree of $version"
	rm -rf "$src"
	cp -a "$base" "$src"
	chmod -R u+w "$src"
	# Debian's packaging ignores every top-level path ("/*"), which would
	# hide new files from git status; mainline's .gitignore has no such rule.
	sed -i '/^# Debian packaging: ignore everything at the top level/,/^!\/debian\/$/d' \
		"$src/.gitignore"
	git -C "$src" init -q
	series_identity "$src"
	git -C "$src" add -A
	# A fixed date and author: every machine gets the same base commit id,
	# which "make patch" names with format-patch --base.
	GIT_AUTHOR_DATE=2000-01-01T00:00:00Z GIT_COMMITTER_DATE=2000-01-01T00:00:00Z \
		git -C "$src" commit -q --author="Debian <debian-kernel@lists.debian.org>" \
		-m "Linux $version" \
		-m "Debian's linux-source-6.12 as unpacked, without the packaging rule \"/*\" of .gitignore."
	git -C "$src" tag -f base >/dev/null
	git -C "$src" config tiering.base "$version"
fi

cd "$src"
if [ "$(git config --get tiering.applied || true)" != "$want" ]; then
	if ! series_saved "$src"; then
		echo "prepare: REFUSING to apply patches/ again: build/src holds" \
		     "work that is not in patches/ (uncommitted changes, or" \
		     "commits 'make refresh' did not export), and patches/" \
		     "changed.  Export it with 'make refresh' and merge by hand," \
		     "or drop it with 'git -C build/src reset --hard base'." >&2
		exit 1
	fi
	git reset -q --hard base
	n=0
	while read -r p; do
		if ! git am -q --keep-cr "$top/patches/$p" >/dev/null; then
			git am --abort || true
			echo "prepare: patches/$p does not apply with git am" >&2
			exit 1
		fi
		n=$((n + 1))
	done < <(series_list "$top/patches")
	git config tiering.applied "$want"
	git config tiering.head "$(git rev-parse HEAD)"
	echo "prepare: applied $n patches of patches/series to $version"
fi

# The tools overlay: kselftests and tierctl stay files of the repository,
# linked into build/src and hidden from its git status.
cd "$top"
status=0
for f in $(find $series_overlay_dirs -type f ! -name '*.pyc' 2>/dev/null); do
	case $f in tools/testing/tiering/*) continue ;; esac
	if [ -e "$base/$f" ]; then
		echo "prepare: $f exists upstream; change it with a patch of the series" >&2
		status=1
		continue
	fi
	if [ "$(readlink "$src/$f" 2>/dev/null)" != "$top/$f" ]; then
		mkdir -p "$src/$(dirname "$f")"
		ln -sfn "$top/$f" "$src/$f"
	fi
	grep -qxF "/$f" "$src/.git/info/exclude" 2>/dev/null ||
		echo "/$f" >> "$src/.git/info/exclude"
done
# Drop links to overlay files that were removed from the repository.
find "$src" -path "$src/.git" -prune -o -type l -lname "$top/*" -print |
while read -r l; do
	[ -e "$l" ] || rm -f "$l"
done
exit $status
