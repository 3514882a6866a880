#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the test runner: run every test of tests.txt that applies
# to $TOPOLOGY and report one TAP line per test.  Test output is indented
# with "# " so that its own TAP lines do not count at this level.
#   guest-run.sh [TESTS_FILE] [NAME_FILTER]
list=${1:-$TOP/tools/testing/tiering/tests.txt}
filter=${2:-}
KSFT_SKIP=4
export TOP BUILD TOPOLOGY
export PATH="$BUILD/venv/bin:$PATH"
# Unbuffered, so that a test killed by its timeout still shows its output.
export PYTHONUNBUFFERED=1

tests=$(awk -v t="$TOPOLOGY" -v f="$filter" '
	/^[ \t]*(#|$)/ { next }
	{
		n = split($1, tops, ",")
		for (i = 1; i <= n; i++)
			if (tops[i] == t && (f == "" || $2 ~ f)) { print NR; break }
	}' "$list")

echo "TAP version 13"
echo "1..$(echo "$tests" | grep -c .)"
i=0
for nr in $tests; do
	i=$((i + 1))
	line=$(sed -n "${nr}p" "$list")
	name=$(echo "$line" | awk '{ print $2 }')
	limit=$(echo "$line" | awk '{ print $3 }')
	cmd=$(echo "$line" | sed -E 's/^[[:space:]]*([^[:space:]]+[[:space:]]+){3}//')
	echo "# === $name ($cmd)"
	start=$(date +%s)
	dmesg -c > /dev/null 2>&1
	(cd /tmp && timeout -k 5 "$limit" sh -c "$cmd" 2>&1; echo "rc=$?" > /tmp/.rc) |
		tee /tmp/.out | sed -u 's/^/# /'
	rc=$(sed 's/rc=//' /tmp/.rc)
	# A kselftest binary whose every case skipped ran nothing.
	if [ "$rc" = 0 ] &&
	   grep -Eq 'Totals: pass:0 fail:0 xfail:0 xpass:0 skip:[1-9]' /tmp/.out; then
		rc=$KSFT_SKIP
	fi
	secs=$(( $(date +%s) - start ))
	# A test that passed on its retry says so.
	retried=
	if [ "$rc" = 0 ] && grep -q '^RETRY after' /tmp/.out; then
		retried="passed on retry, "
	fi
	# What the kernel said during a failed test (an OOM kill, say), which
	# the console's log level may have kept off the serial log.
	if [ "$rc" != 0 ] && [ "$rc" != "$KSFT_SKIP" ]; then
		dmesg 2>/dev/null | tail -n 40 | sed 's/^/# kernel: /'
	fi
	case $rc in
	0) echo "ok $i $name # ${retried}${secs}s" ;;
	"$KSFT_SKIP") echo "ok $i $name # SKIP (${secs}s)" ;;
	124) echo "not ok $i $name # TIMEOUT after ${limit}s" ;;
	*) echo "not ok $i $name # exit=$rc (${secs}s)" ;;
	esac
done
