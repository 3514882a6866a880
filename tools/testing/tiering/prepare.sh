#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build/src = a git tree of the pristine base (tag "base") with the series
# in patches/series applied by "git am" (its tip: tag "series"), plus the
# tools overlay (symlinks).
#
# The series is applied again only when patches/ changed and build/src holds
# no work that "make refresh" has not exported: no uncommitted change to a
# tracked file, no commit beyond tag "series", no git operation in
# progress.  Otherwise prepare refuses and says why; with FORCE=1 it first
# keeps that work on a branch saved/<time> (and in git stash) and goes on.
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
build=${BUILD:-$top/build}
base=$build/base/linux
src=$build/src
# shellcheck source=tools/testing/tiering/series-lib.sh
. "$top/tools/testing/tiering/series-lib.sh"

[ -d "$base" ] || { echo "prepare: no base tree, run make fetch" >&2; exit 1; }
mkdir -p "$build"
exec 9>"$build/.prepare.lock"
flock 9
version=$(cat "$build/base/VERSION")
series_check_files "$top/patches"
want=$(series_stamp "$top/patches")
stamp=$(date +%Y%m%d-%H%M%S)

# keep_work: with FORCE=1, keep what build/src holds on saved/<time>.
keep_work() {
	[ "${FORCE:-}" = 1 ] || return 1
	series_busy "$src" && { echo "prepare: finish or abort the git operation in build/src first" >&2; exit 1; }
	if [ -n "$(git -C "$src" status --porcelain --untracked-files=no)" ]; then
		git -C "$src" stash push -q -m "prepare $stamp"
		echo "prepare: uncommitted changes kept in build/src's git stash (prepare $stamp)"
	fi
	git -C "$src" branch -f "saved/$stamp" HEAD
	echo "prepare: build/src's commits kept on branch saved/$stamp"
}

if [ ! -d "$src/.git" ] || [ "$(git -C "$src" config --get tiering.base || true)" != "$version" ]; then
	if [ -e "$src" ]; then
		if [ -d "$src/.git" ] && series_saved "$src"; then
			rm -rf "$src"
		elif [ "${FORCE:-}" = 1 ]; then
			mv "$src" "$src.old-$stamp"
			echo "prepare: the old build/src is kept as build/src.old-$stamp"
		else
			echo "prepare: REFUSING to replace build/src (new base $version," \
			     "or not a git tree): it may hold work that is not in" \
			     "patches/.  Rerun with FORCE=1 to keep it as" \
			     "build/src.old-<time>, or remove it." >&2
			exit 1
		fi
	fi
	echo "prepare: making build/src a git tree of $version"
	rm -rf "$src.tmp"
	cp -a "$base" "$src.tmp"
	chmod -R u+w "$src.tmp"
	# Debian's .gitignore ignores every top-level path ("/*") and lacks
	# mainline's exceptions for the dot-files the kernel tracks; both
	# would hide files from git status and git add.
	perl -0pi -e 's{\n#\n# Debian packaging: ignore everything at the top level.*?\n!/debian/\n}{\n}s' \
		"$src.tmp/.gitignore"
	! grep -qx '/\*' "$src.tmp/.gitignore" ||
		{ echo "prepare: could not drop Debian's .gitignore rule /*" >&2; exit 1; }
	printf '%s\n' '' '# The dot-files mainline tracks (mainline .gitignore)' \
		'!.clang-format' '!.clippy.toml' '!.cocciconfig' '!.editorconfig' \
		'!.get_maintainer.ignore' '!.gitattributes' '!.gitignore' \
		'!.kunitconfig' '!.mailmap' '!.rustfmt.toml' >> "$src.tmp/.gitignore"
	sgit -C "$src.tmp" init -q
	sgit -C "$src.tmp" add -A -f
	n_files=$(cd "$src.tmp" && find . -path ./.git -prune -o \( -type f -o -type l \) -print | wc -l)
	n_git=$(sgit -C "$src.tmp" ls-files | wc -l)
	[ "$n_files" = "$n_git" ] ||
		{ echo "prepare: base commit has $n_git of $n_files files" >&2; exit 1; }
	# A fixed author, committer and date: every machine gets the same base
	# commit id, which "make patch" names with format-patch --base.
	GIT_AUTHOR_DATE=2000-01-01T00:00:00Z GIT_COMMITTER_DATE=2000-01-01T00:00:00Z \
		sgit -C "$src.tmp" commit -q --no-verify \
		--author="Debian <debian-kernel@lists.debian.org>" \
		-m "Linux $version" \
		-m "Debian's linux-source-6.12 as unpacked; its .gitignore without the packaging rule \"/*\" and with mainline's exceptions for tracked dot-files."
	sgit -C "$src.tmp" tag base
	sgit -C "$src.tmp" config tiering.base "$version"
	mv "$src.tmp" "$src"
fi

cd "$src"
if [ "$(git config --get tiering.applied || true)" != "$want" ]; then
	if ! series_saved "$src" && ! keep_work; then
		echo "prepare: REFUSING to apply patches/ again: build/src holds" \
		     "work that is not in patches/ (uncommitted changes, commits" \
		     "after tag 'series', or a git operation in progress), and" \
		     "patches/ changed.  Rerun with FORCE=1 to keep that work on" \
		     "a branch saved/<time> and apply patches/, then cherry-pick" \
		     "it back." >&2
		exit 1
	fi
	old=$(git rev-parse HEAD)
	git checkout -q --detach base
	n=0
	while read -r p; do
		if ! sgit am -q --keep-cr --committer-date-is-author-date \
				"$top/patches/$p" >/dev/null; then
			sgit am --abort || true
			git checkout -q --detach "$old"
			echo "prepare: patches/$p does not apply with git am;" \
			     "build/src is left as it was" >&2
			exit 1
		fi
		n=$((n + 1))
	done < <(series_list "$top/patches")
	git checkout -q -B main
	git tag -f series >/dev/null
	git config tiering.applied "$want"
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
