#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make real-config: build/real/.config for a real machine.
#
# Debian's amd64 kernel configuration for the pinned base, from the
# linux-config-6.12 package of the same version (or the newest one served,
# see below), merged with
# tools/testing/tiering/configs/tiering-real.config.  After olddefconfig every line of
# that fragment must hold, or this fails naming the ones that do not.
#
# REAL_FLAVOUR picks Debian's flavour: amd64 (generic, the default: a CXL
# box is a server, whose NIC, RAID and BMC drivers the cloud flavour
# leaves out) or cloud-amd64 (cloud instances; under a third of the
# modules, so make deb takes far less time).
set -euo pipefail

name=${REAL_FLAVOUR:-amd64}
case $name in
amd64 | cloud-amd64) ;;
*)
	echo "real-config: REAL_FLAVOUR='$name': use amd64 (generic) or cloud-amd64" >&2
	exit 2
	;;
esac

top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=/dev/null
. "$top/base-kernel.conf"
# shellcheck source=tools/testing/tiering/apt-pinned.sh
. "$top/tools/testing/tiering/apt-pinned.sh"
build=${BUILD:-$top/build}
src=$build/src
dest=$build/real
frag=$top/tools/testing/tiering/configs/tiering-real.config
pkg=linux-config-6.12
flavour=config.amd64_none_$name.xz

# The archive serves only the newest linux-config-6.12 once a point release
# replaces the pinned one (linux-source stays longer).  A later 6.12 stable
# configuration differs by a few options, which olddefconfig settles, so
# fall back to it loudly rather than fail; dl/VERSION says which was used.
mkdir -p "$dest/dl"
if [ ! -f "$dest/dl/$flavour" ] || [ ! -f "$dest/dl/VERSION" ]; then
	(
		cd "$dest/dl"
		rm -rf pkg ./*.deb ./*.xz VERSION
		version=$(apt_download_pinned "$pkg" "$BASE_VERSION" \
			  "its configuration is used on the pinned source.")
		dpkg-deb -x ./*.deb pkg
		# Every flavour, so that VERSION holds for whichever comes next.
		cp "pkg/usr/src/$pkg"/config.amd64_none_*.xz .
		echo "$version" > VERSION
		rm -rf pkg ./*.deb
	)
fi
config_version=$(cat "$dest/dl/VERSION")

xz -dc "$dest/dl/$flavour" > "$dest/.config"
# The Debian build's signing certificates are not in the source package.
"$src/scripts/config" --file "$dest/.config" \
	--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS ""
(cd "$src" && KCONFIG_CONFIG="$dest/.config" \
	scripts/kconfig/merge_config.sh -m -Q "$dest/.config" "$frag" >/dev/null)
make -s -C "$src" O="$dest" olddefconfig >/dev/null

bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		opt=${line%%=*}
		grep -qxF "$line" "$dest/.config" && continue
		got=$(grep -E "^(# )?$opt[= ]" "$dest/.config" || echo "absent")
		;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }
		opt=${opt%% *}
		grep -qE "^$opt=" "$dest/.config" || continue
		got=$(grep -E "^$opt=" "$dest/.config")
		;;
	*)
		continue
		;;
	esac
	echo "real-config: $line did not survive olddefconfig: $got" >&2
	bad=1
done < "$frag"
if [ "$bad" != 0 ]; then
	echo "real-config: FAILED: see tools/testing/tiering/configs/tiering-real.config" >&2
	exit 1
fi
echo "real-config: $dest/.config: Debian $config_version $name + tiering," \
     "$(grep -c '^CONFIG_' "$frag") options checked"
