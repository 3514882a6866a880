#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unpack mainline's DAMON kselftests into build/mainline/damon/.
#
# The pinned linux-source .deb of base-kernel.conf is downloaded from the
# Debian pool (unstable is not among the host's apt sources) and checked
# against its sha256.  Unstable drops a version when the next one comes: if
# the pinned one is gone, the newest linux-source-7.* of unstable is used
# with a loud warning, and build/mainline/VERSION says which one was used.
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=/dev/null
. "$top/base-kernel.conf"
build=${BUILD:-$top/build}
dest=$build/mainline

if [ -f "$dest/VERSION" ] && [ -d "$dest/damon" ]; then
	exit 0
fi
rm -rf "$dest"
mkdir -p "$dest/dl"
cd "$dest/dl"

pool=$MAINLINE_ARCHIVE/pool/main/l/linux
pkg=$MAINLINE_PACKAGE
version=$MAINLINE_VERSION
if ! curl -fsS -o src.deb "$pool/${pkg}_${version}_all.deb"; then
	curl -fsS -o Packages.xz \
		"$MAINLINE_ARCHIVE/dists/unstable/main/binary-all/Packages.xz"
	read -r pkg version < <(xz -dc Packages.xz | awk '
		/^Package: linux-source-[0-9]+\.[0-9]+$/ { p = $2 }
		/^Version:/ && p { print p, $2; p = "" }' | sort -V | tail -n 1)
	if [ -z "$pkg" ]; then
		echo "fetch-mainline-selftests: no linux-source in unstable" >&2
		exit 1
	fi
	cat >&2 <<MSG
************************************************************************
WARNING: $MAINLINE_PACKAGE $MAINLINE_VERSION is no longer served.
WARNING: falling back to the newest one: $pkg $version
WARNING: its DAMON selftests may expect more; the sha256 is not checked.
************************************************************************
MSG
	curl -fsS -o src.deb "$pool/${pkg}_${version}_all.deb"
elif ! echo "$MAINLINE_DEB_SHA256  src.deb" | sha256sum -c --quiet -; then
	echo "fetch-mainline-selftests: sha256 mismatch for $pkg $version" >&2
	exit 1
fi
dpkg-deb --fsys-tarfile src.deb |
	tar -x --wildcards './usr/src/linux-source-*.tar.xz'
tar -xf usr/src/linux-source-*.tar.xz --wildcards --strip-components=4 \
	'linux-source-*/tools/testing/selftests/damon/*'
mv damon "$dest/damon"
echo "$pkg $version" > "$dest/VERSION"
cd "$dest" && rm -rf dl
echo "fetch-mainline-selftests: mainline DAMON selftests from $pkg $version"
