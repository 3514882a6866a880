# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by fetch-base.sh and real-config.sh.
#
# apt_download_pinned PKG VERSION NOTE
#	Download PKG=VERSION into the current directory with apt-get download
#	and print the version downloaded.  The Debian archive drops a
#	version at the next point release, so if VERSION is no longer served
#	(after one apt-get update), download the newest PKG instead, with a
#	loud warning on stderr that ends with NOTE.
apt_download_pinned() {
	local pkg=$1 want=$2 note=$3 got

	if ! apt-get download "$pkg=$want" >/dev/null 2>&1; then
		apt-get update -q >/dev/null || true
	fi
	if apt-get download "$pkg=$want" >/dev/null 2>&1; then
		echo "$want"
		return 0
	fi
	got=$(apt-cache policy "$pkg" | awk '/Candidate:/ { print $2 }')
	if [ -z "$got" ] || [ "$got" = "(none)" ]; then
		echo "apt_download_pinned: no $pkg is served" >&2
		return 1
	fi
	cat >&2 <<MSG
************************************************************************
WARNING: $pkg $want is no longer served.
WARNING: falling back to the newest one: $pkg $got
WARNING: $note
************************************************************************
MSG
	apt-get download "$pkg=$got" >/dev/null || return 1
	echo "$got"
}
