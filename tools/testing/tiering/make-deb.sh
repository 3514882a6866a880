#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make deb: Debian packages for a real machine, in build/deb/.
#
# The kernel (linux-image, linux-headers, linux-libc-dev) comes from the
# kernel's own bindeb-pkg, built from build/real/.config (make real-config)
# with LOCALVERSION -tiering; tierctl is packaged beside it (/usr/sbin,
# with its manual page).  Long: the generic Debian configuration builds
# thousands of modules.
#   make-deb.sh [OBJDIR]   build from OBJDIR/.config instead (a smaller
#                          configuration, to try the packaging quickly)
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
build=${BUILD:-$top/build}
src=$build/src
obj=${1:-$build/real}
out=$build/deb

if [ ! -f "$obj/.config" ]; then
	echo "make-deb: no $obj/.config: run make real-config" >&2
	exit 1
fi
missing=
for p in debhelper kmod rsync dpkg-dev bc cpio libssl-dev libelf-dev; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "make-deb: installing:$missing"
	apt-get update -q >/dev/null
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >/dev/null
fi

kver=$(make -s -C "$src" kernelversion)
rev=$(git -C "$top" rev-list --count HEAD 2>/dev/null || echo 0)
pkgver="$kver-tiering.$rev"
mkdir -p "$out"
start=$(date +%s)
# bindeb-pkg leaves its packages beside the object directory.
parent=$(dirname "$obj")
rm -f "$parent"/linux-*.deb "$parent"/linux-upstream_*
make -s -C "$src" O="$obj" -j"$(nproc)" CC="ccache gcc" \
	LOCALVERSION=-tiering KDEB_PKGVERSION="$pkgver" bindeb-pkg
mv "$parent"/linux-*.deb "$out"/
rm -f "$parent"/linux-upstream_*

stage=$(mktemp -d)
chmod 0755 "$stage"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/DEBIAN" "$stage/usr/sbin" "$stage/usr/share/man/man8" \
	"$stage/usr/share/doc/tierctl"
install -m 0755 "$top/tools/mm/tierctl" "$stage/usr/sbin/tierctl"
gzip -9n < "$top/tools/mm/tierctl.8" > "$stage/usr/share/man/man8/tierctl.8.gz"
cat > "$stage/usr/share/doc/tierctl/copyright" <<COPYRIGHT
tierctl: tools/mm/tierctl of the tiered-memory kernel tree.
License: GPL-2.0, see /usr/share/common-licenses/GPL-2.
COPYRIGHT
cat > "$stage/DEBIAN/control" <<CONTROL
Package: tierctl
Version: $pkgver
Architecture: all
Section: admin
Priority: optional
Depends: python3 (>= 3.9)
Recommends: numactl
Maintainer: Tiered-memory Linux <linux-mm@kvack.org>
Description: look at and steer tiered memory (CXL, older DRAM)
 Shows the memory tiers, nodes and HMAT figures, sets tier interleave
 weights (or has the kernel set them from bandwidth), writes damo
 tiering policies and watches promotion and demotion.  For the
 linux-image-*-tiering kernel.
CONTROL
dpkg-deb --root-owner-group --build "$stage" "$out/tierctl_${pkgver}_all.deb" >/dev/null

secs=$(( $(date +%s) - start ))
echo "make-deb: built in $((secs / 60)) min $((secs % 60)) s from $obj/.config:"
ls -1 "$out"
