# SPDX-License-Identifier: GPL-2.0
# Helpers shared by prepare.sh, refresh.sh, make-patch.sh and
# check-series.sh for the patch series in patches/ (sourced, not run).
#
# In build/src, tag "base" is the pristine base and tag "series" the tip of
# the series as prepare applied it or refresh exported it: the developer's
# unexported work is series..HEAD plus any uncommitted change.

# Repository directories that mirror the kernel tree outside the series:
# the kselftests and tierctl, linked into build/src.
series_overlay_dirs="tools"

# sgit ARGS: git without the user's or the system's configuration, for what
# must come out the same on every machine: the base commit, git am, and the
# patches format-patch writes.
sgit() {
	GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 \
	GIT_COMMITTER_NAME="tiering build" GIT_COMMITTER_EMAIL="tiering-build@localhost" \
		git -c core.abbrev=12 "$@"
}

# series_list DIR: the patches DIR/series names, in order, one per line.
series_list() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$1/series"
}

# series_check_files DIR: every patch file of DIR is listed in DIR/series
# and every listed one exists; complains and fails otherwise.
series_check_files() {
	local bad
	bad=$(comm -3 <(cd "$1" && find . -name '*.patch' | sed 's|^\./||' | sort) \
		      <(series_list "$1" | sort))
	[ -z "$bad" ] && return 0
	echo "series: patches/ and patches/series disagree (left: unlisted file," \
	     "right: listed, missing):" >&2
	printf '%s\n' "$bad" | sed 's/^/  /' >&2
	return 1
}

# series_stamp DIR: one hash of the series file and every patch it lists.
series_stamp() {
	local p
	{
		cat "$1/series"
		series_list "$1" | while read -r p; do cat "$1/$p"; done
	} | sha1sum | cut -d' ' -f1
}

# series_busy SRC: true while a git am, rebase, merge or cherry-pick is in
# progress in SRC.
series_busy() {
	local d
	for d in rebase-apply rebase-merge MERGE_HEAD CHERRY_PICK_HEAD; do
		[ -e "$(git -C "$1" rev-parse --git-path "$d")" ] && return 0
	done
	return 1
}

# series_saved SRC: true when build/src holds nothing that patches/ lacks:
# no operation in progress, no uncommitted change to a tracked file, HEAD
# at tag "series" (or at "base" before any series was applied).
series_saved() {
	local st
	series_busy "$1" && return 1
	st=$(git -C "$1" status --porcelain --untracked-files=no) || return 1
	[ -z "$st" ] || return 1
	[ "$(git -C "$1" rev-parse HEAD)" = \
	  "$(git -C "$1" rev-parse -q --verify 'series^{commit}' || git -C "$1" rev-parse base)" ]
}

# series_group COMMIT (in the current git tree): backport, fix or feature,
# from the commit message: a backport names its upstream commit as stable
# backports do ("commit <sha> upstream." or "[ Upstream commit <sha> ]"),
# a fix carries a Fixes: tag.
series_group() {
	local msg
	msg=$(git log -1 --format=%B "$1")
	if grep -qE '^(commit [0-9a-f]{40} upstream\.|\[ Upstream commit [0-9a-f]{40} \])$' <<<"$msg"; then
		echo backport
	elif grep -qE '^Fixes: [0-9a-f]{12,40} \(' <<<"$msg"; then
		echo fix
	else
		echo feature
	fi
}
