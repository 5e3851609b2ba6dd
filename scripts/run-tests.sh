#!/usr/bin/env bash
# run-tests.sh LABEL CMD... - run each test command, keep going after a failure,
# print one line per test and a closing "tests: N passed, N failed" line; exit
# non-zero if any failed. A command is a path (a host test binary or an end-to-end
# script) or a quoted command line. Each test's output goes to build/test/<name>.log
# and is shown in full when it fails.
set -uo pipefail

label=$1
shift
top=$(cd "$(dirname "$0")/.." && pwd)
logdir="$top/build/test"
mkdir -p "$logdir"
pass=0
fail=0
failed=()

for cmd in "$@"; do
	name=$(echo "$cmd" | sed -e "s|^$top/||" -e 's|^build/||' -e 's|[ /]|_|g')
	log="$logdir/$name.log"
	start=$(date +%s)
	if bash -c "$cmd" >"$log" 2>&1; then
		rc=0
	else
		rc=$?
	fi
	secs=$(($(date +%s) - start))
	if [ "$rc" -eq 0 ]; then
		pass=$((pass + 1))
		printf 'PASS  %-60s %4ss\n' "$cmd" "$secs"
		# Show CMocka's summary so the counts of individual cases are visible.
		grep -E '^\[  PASSED  \]|^\[  FAILED  \]' "$log" | sed 's/^/      /'
	else
		fail=$((fail + 1))
		failed+=("$cmd")
		printf 'FAIL  %-60s %4ss (exit %d)\n' "$cmd" "$secs" "$rc"
		sed 's/^/      | /' "$log" | tail -80
	fi
done

echo
if [ "$fail" -gt 0 ]; then
	echo "failed:"
	for f in "${failed[@]}"; do echo "  $f"; done
fi
echo "$label: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
