#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install host packages and unpack the pinned base kernel into build/base/.
#
# Nothing under /usr is touched for the kernel itself: the .deb is fetched
# with "apt-get download" and unpacked with dpkg-deb -x.  If the pinned
# version is no longer served, the newest linux-source-6.12 is used with a
# loud warning, and build/base/VERSION says which base was used.
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=/dev/null
. "$top/base-kernel.conf"
# shellcheck source=tools/testing/tiering/apt-pinned.sh
. "$top/tools/testing/tiering/apt-pinned.sh"
build=${BUILD:-$top/build}
dest=$build/base

host_pkgs="qemu-system-x86 flex bison bc libelf-dev libssl-dev cpio ccache
	numactl libnuma-dev busybox-static rsync python3 python3-venv
	python3-matplotlib python3-pytest xz-utils gcc make perl patch"

missing=
for p in $host_pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "fetch-base: installing host packages:$missing"
	if [ "$(id -u)" != 0 ]; then
		echo "fetch-base: need root to install:$missing" >&2
		exit 1
	fi
	apt-get update -q >/dev/null
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >/dev/null
fi

if [ -f "$dest/VERSION" ] && [ -d "$dest/linux" ]; then
	exit 0
fi

rm -rf "$dest"
mkdir -p "$dest/dl"
cd "$dest/dl"
version=$(apt_download_pinned "$BASE_PACKAGE" "$BASE_VERSION" \
	  "patches may not apply; the pinned sha256 is not checked.")
dpkg-deb -x ./*.deb pkg
tarball=pkg/$BASE_TARBALL
if [ "$version" = "$BASE_VERSION" ]; then
	echo "$BASE_SHA256  $tarball" | sha256sum -c --quiet - || {
		echo "fetch-base: sha256 mismatch for $tarball" >&2
		exit 1
	}
fi
tar -C "$dest" -xf "$tarball"
mv "$dest/linux-source-6.12" "$dest/linux"
chmod -R a-w "$dest/linux"
echo "$BASE_PACKAGE $version" > "$dest/VERSION"
cd "$dest" && rm -rf dl
echo "fetch-base: base kernel is $BASE_PACKAGE $version"
