# SPDX-License-Identifier: GPL-2.0
# Helpers shared by prepare.sh, refresh.sh, make-patch.sh and
# check-series.sh for the patch series in patches/ (sourced, not run).

# Repository directories that mirror the kernel tree outside the series:
# the kselftests and tierctl, linked into build/src.
series_overlay_dirs="tools"

# series_list DIR: the patches DIR/series names, in order, one per line.
series_list() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$1/series"
}

# series_stamp DIR: one hash of the series file and every patch it lists.
series_stamp() {
	local p
	{
		cat "$1/series"
		series_list "$1" | while read -r p; do cat "$1/$p"; done
	} | sha1sum | cut -d' ' -f1
}

# series_saved SRC: true when build/src holds nothing that patches/ lacks:
# no uncommitted change to a tracked file, HEAD where the last
# prepare/refresh left it.
series_saved() {
	local head
	[ -z "$(git -C "$1" status --porcelain --untracked-files=no)" ] || return 1
	head=$(git -C "$1" config --get tiering.head || git -C "$1" rev-parse base)
	[ "$(git -C "$1" rev-parse HEAD)" = "$head" ]
}

# series_identity SRC: a committer for git am when the user has none.
series_identity() {
	git -C "$1" config --get user.email >/dev/null ||
		git -C "$1" config user.email "tiering-build@localhost"
	git -C "$1" config --get user.name >/dev/null ||
		git -C "$1" config user.name "tiering build"
}

# series_group COMMIT (in the current git tree): backport, fix or feature,
# from the commit message: a backport names its upstream commit as stable
# backports do, a fix carries a Fixes: tag.
series_group() {
	local msg
	msg=$(git log -1 --format=%B "$1")
	if printf '%s\n' "$msg" | grep -qE '^commit [0-9a-f]{40} upstream\.$'; then
		echo backport
	elif printf '%s\n' "$msg" | grep -qE '^Fixes: [0-9a-f]{12,40} \('; then
		echo fix
	else
		echo feature
	fi
}
