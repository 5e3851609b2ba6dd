#!/usr/bin/env bash
# test_run_tests.sh - the deadline of scripts/run-tests.sh: a test that hangs fails,
# "timed out", within its deadline, and so do the processes it started; the tests
# around it still run and are counted; without a hang nothing changes. Runs
# run-tests.sh with RUN_TESTS_TIMEOUT=2 and its logs in a temporary folder.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
has() { grep -qF -- "$2" "$1" && ok "$3" || { fail "$3: no '$2' in:"; sed 's/^/    | /' "$1"; }; }

# A hang whose child would outlive it: the child writes a file after the deadline.
hang="sleep 1234 & sleep 6; touch $tmp/child-survived; wait"
pkill -f "sleep 1234" # none of ours yet
start=$(date +%s)
# (Bounded here too: were run-tests.sh's deadline gone, this would fail, not hang.)
RUN_TESTS_TIMEOUT=2 RUN_TESTS_LOGDIR="$tmp/logs" timeout 30 scripts/run-tests.sh -j 2 unit \
	true "$hang" "echo fine" >"$tmp/out" 2>&1
rc=$?
took=$(($(date +%s) - start))
[ $rc -ne 0 ] && ok "the run fails" || fail "the run passed with a hung test"
has "$tmp/out" "(timed out after 2s)" "the hung test is named as timed out"
has "$tmp/out" "unit: 2 passed, 1 failed, 0 not run" "the others ran and were counted"
[ "$took" -lt 15 ] && ok "ended in ${took}s" || fail "took ${took}s with a 2 s deadline"
sleep 6
[ ! -e "$tmp/child-survived" ] && ok "its shell was stopped before it went on" ||
	fail "the hung test's shell ran on after its deadline"
pgrep -f "sleep 1234" >/dev/null && fail "the hung test's child still runs" ||
	ok "its child was stopped too"
[ -f "$tmp/logs/durations.tsv" ] && ok "logs and times in RUN_TESTS_LOGDIR" ||
	fail "no durations.tsv in RUN_TESTS_LOGDIR"

# A test that fails on its own is a failure with its exit code, not a timeout.
RUN_TESTS_TIMEOUT=5 RUN_TESTS_LOGDIR="$tmp/logs2" scripts/run-tests.sh unit "exit 3" \
	>"$tmp/out2" 2>&1
has "$tmp/out2" "(exit 3)" "an ordinary failure keeps its exit code"
grep -q "timed out" "$tmp/out2" && fail "an ordinary failure called a timeout"

pkill -f "sleep 1234"
[ $fails -eq 0 ] || exit 1
echo "test_run_tests: all passed"
