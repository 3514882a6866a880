#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build/src = pristine base + patches/ + overlay (new files symlinked).
#
# Upstream files are rewritten only when their patch changed and build/src
# holds no unrefreshed edit of them; otherwise prepare refuses instead of
# dropping work (run "make refresh" first, or remove build/src).
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
build=${BUILD:-$top/build}
base=$build/base/linux
src=$build/src
state=$src/.tiering
# Top-level directories of the repository that mirror the kernel tree.
overlay_dirs="mm include kernel Documentation tools"

[ -d "$base" ] || { echo "prepare: no base tree, run make fetch" >&2; exit 1; }

if [ ! -d "$state" ] || ! cmp -s "$build/base/VERSION" "$state/VERSION"; then
	echo "prepare: copying base tree to $src"
	rm -rf "$src"
	cp -a "$base" "$src"
	chmod -R u+w "$src"
	mkdir -p "$state/applied"
	cp "$build/base/VERSION" "$state/VERSION"
fi

# patched_copy FILE PATCH OUT: pristine FILE with PATCH applied, into OUT.
patched_copy() {
	local f=$1 p=$2 out=$3 tmp
	tmp=$(mktemp -d)
	mkdir -p "$tmp/$(dirname "$f")"
	if [ -f "$base/$f" ]; then
		cp "$base/$f" "$tmp/$f"
	fi
	chmod -R u+w "$tmp"
	if [ -n "$p" ] && ! patch -s -p1 -d "$tmp" < "$p" >/dev/null; then
		rm -rf "$tmp"
		echo "prepare: $p does not apply to the base" >&2
		return 1
	fi
	cp "$tmp/$f" "$out"
	rm -rf "$tmp"
}

status=0
files=$( { cd "$top/patches" 2>/dev/null && find . -name '*.patch';
	   cd "$state/applied" && find . -name '*.patch'; } |
	 sed 's|^\./||; s|\.patch$||' | sort -u)
for f in $files; do
	new=$top/patches/$f.patch
	old=$state/applied/$f.patch
	[ -f "$new" ] || new=
	[ -f "$old" ] || old=
	if [ -n "$new" ] && [ -n "$old" ] && cmp -s "$new" "$old"; then
		continue
	fi
	expect=$(mktemp)
	patched_copy "$f" "$old" "$expect"
	if ! cmp -s "$expect" "$src/$f"; then
		rm -f "$expect"
		echo "prepare: REFUSING to update $f: build/src/$f has edits that" \
		     "are not in patches/ and patches/$f.patch changed." >&2
		echo "prepare: save them with 'make refresh' or discard them" \
		     "by removing build/src/$f." >&2
		status=1
		continue
	fi
	rm -f "$expect"
	if [ -n "$new" ]; then
		patched_copy "$f" "$new" "$src/$f"
		mkdir -p "$(dirname "$state/applied/$f")"
		cp "$new" "$state/applied/$f.patch"
		echo "prepare: applied patches/$f.patch"
	else
		cp "$base/$f" "$src/$f"
		rm -f "$state/applied/$f.patch"
		echo "prepare: reverted $f (its patch is gone)"
	fi
done

# Overlay: every new file is a symlink to the repository copy.
cd "$top"
for f in $(find $overlay_dirs -type f ! -name '*.pyc' 2>/dev/null); do
	case $f in tools/testing/tiering/*) continue ;; esac
	if [ -e "$base/$f" ]; then
		echo "prepare: $f exists upstream; change it with patches/$f.patch" >&2
		status=1
		continue
	fi
	if [ "$(readlink "$src/$f" 2>/dev/null)" != "$top/$f" ]; then
		if [ -f "$src/$f" ] && [ ! -L "$src/$f" ] && ! cmp -s "$src/$f" "$f"; then
			echo "prepare: REFUSING to replace build/src/$f, which differs" \
			     "from the repository copy; run 'make refresh'." >&2
			status=1
			continue
		fi
		mkdir -p "$src/$(dirname "$f")"
		ln -sfn "$top/$f" "$src/$f"
	fi
done
# Drop links to overlay files that were removed from the repository.
find "$src" -path "$state" -prune -o -type l -lname "$top/*" -print |
while read -r l; do
	[ -e "$l" ] || rm -f "$l"
done
touch "$state/stamp"
exit $status
