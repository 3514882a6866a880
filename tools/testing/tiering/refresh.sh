#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Regenerate patches/ from edits made to upstream files in build/src, and
# move new files created in build/src into the repository overlay.
#
# Never drops work: when patches/F.patch changed in the repository since
# build/src was prepared AND build/src/F was edited too, refresh refuses
# for that file and says so; nothing is written for it.
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
build=${BUILD:-$top/build}
base=$build/base/linux
src=$build/src
state=$src/.tiering
overlay_dirs="mm include kernel Documentation tools"

[ -f "$state/stamp" ] || { echo "refresh: no prepared tree, run make prepare" >&2; exit 1; }
cd "$src"

# Candidates: regular files whose size or mtime differ from the base copy
# (cp -a kept the base's mtimes, so any edit shows), and every patched file.
cands=$( { rsync -rn --no-links --exclude=/.tiering --out-format='%n' "$src/" "$base/" |
	   grep -v '/$';
	   cd "$state/applied" && find . -name '*.patch' | sed 's|^\./||; s|\.patch$||'; } |
	 sort -u)
status=0
for f in $cands; do
	case $f in *.o|*.cmd|*.a|*.ko|*.mod*|*.d|*.tmp) continue ;; esac
	if [ ! -e "$base/$f" ]; then
		# A new file: belongs to the overlay when under a mirrored directory.
		[ -f "$src/$f" ] && [ ! -L "$src/$f" ] || continue
		case " $overlay_dirs " in *" ${f%%/*} "*) ;; *) continue ;; esac
		# Only source files; build outputs (binaries, generated
		# configs) are not work to keep.
		case $f in
		*/local_config.*) continue ;;
		*.c|*.h|*.rst|*.txt|*.py|*.sh|*.json|*.config|*/Kconfig*|*/Makefile) ;;
		*) echo "refresh: ignoring new file build/src/$f (not a source file)"
		   continue ;;
		esac
		if [ -e "$top/$f" ]; then
			echo "refresh: REFUSING $f: both build/src and the repository have it" >&2
			status=1
			continue
		fi
		mkdir -p "$top/$(dirname "$f")"
		cp "$src/$f" "$top/$f"
		ln -sfn "$top/$f" "$src/$f"
		echo "refresh: moved new file $f into the repository"
		continue
	fi
	repo=$top/patches/$f.patch
	applied=$state/applied/$f.patch
	new=$(mktemp)
	# Keep the description that heads an existing patch.
	[ -f "$repo" ] && sed '/^diff --git /,$d' "$repo" > "$new"
	if ! cmp -s "$base/$f" "$src/$f"; then
		echo "diff --git a/$f b/$f" >> "$new"
		diff -up --label "a/$f" --label "b/$f" "$base/$f" "$src/$f" >> "$new" || true
	fi
	if [ -f "$repo" ] && ! cmp -s "$repo" "$applied" 2>/dev/null &&
	   ! cmp -s "$repo" "$new"; then
		echo "refresh: REFUSING $f: patches/$f.patch changed since prepare" \
		     "and build/src/$f was edited too; merge by hand." >&2
		rm -f "$new"
		status=1
		continue
	fi
	if ! grep -q '^--- a/' "$new"; then
		if [ -f "$repo" ]; then
			rm -f "$repo" "$applied"
			echo "refresh: $f is back to the base; removed patches/$f.patch"
		fi
		rm -f "$new"
		continue
	fi
	if ! cmp -s "$new" "$repo" 2>/dev/null; then
		mkdir -p "$(dirname "$repo")" "$(dirname "$applied")"
		cp "$new" "$repo"
		echo "refresh: wrote patches/$f.patch"
	fi
	mkdir -p "$(dirname "$applied")"
	cp "$new" "$applied"
	rm -f "$new"
done
exit $status
