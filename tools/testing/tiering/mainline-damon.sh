#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side: run one of mainline's DAMON kselftests, unmodified, from
# $BUILD/kselftest/damon-mainline, or, when mainline-damon-skips.txt lists
# it, print what it needs and exit 4 (skip) without running it.
#   mainline-damon.sh TEST
test=$1
reason=$(awk -v t="$test" '$1 == t { $1 = ""; sub(/^ +/, ""); print }' \
	"$TOP/tools/testing/tiering/mainline-damon-skips.txt")
if [ -n "$reason" ]; then
	echo "SKIP $test: needs $reason"
	exit 4
fi
cd "$BUILD/kselftest/damon-mainline" || exit 1
case $test in
*.py) exec python3 "./$test" ;;
*) exec "./$test" ;;
esac
