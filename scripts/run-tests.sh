#!/usr/bin/env bash
# run-tests.sh [-j N] LABEL CMD... [--serial CMD...] - run each test command, keep
# going after a failure, print one line per test and a closing
# "LABEL: N passed, N failed, N not run" line; exit non-zero if any failed.
#
# A command is a path (a host test binary or an end-to-end script) or a quoted command
# line. Each test's output goes to build/test/<name>.log and is shown in full when it
# fails. -j N runs up to N of the commands before --serial at once (their lines are
# printed in the order given, each as soon as it and those before it are done); the
# commands after --serial run one at a time after them (the QEMU boots, whose
# deadlines should not compete with other tests for the cores).
#
# With -j, the longest tests start first: each test's time is kept in
# build/test/durations.tsv, and the parallel commands are started in the order of the
# last times seen there (a test never seen counts as the longest); the lines are then
# printed in that order.
#
# Not run: a command that exits 77 after printing a line "not run: REASON" (as
# scripts/probe.sh does when the machine lacks what the test needs) is counted as not
# run, with its reason, never as passed or failed. A passing test that printed such
# lines for some of its checks shows them under its PASS line.
set -uo pipefail

max_jobs=1
if [ "${1:-}" = "-j" ]; then
	max_jobs=$2
	shift 2
fi
label=$1
shift
top=$(cd "$(dirname "$0")/.." && pwd)
logdir="$top/build/test"
mkdir -p "$logdir"
resdir=$(mktemp -d)
trap 'rm -rf "$resdir"' EXIT

parallel=()
serial=()
in_serial=0
for cmd in "$@"; do
	if [ "$cmd" = "--serial" ]; then
		in_serial=1
	elif [ $in_serial -eq 1 ]; then
		serial+=("$cmd")
	else
		parallel+=("$cmd")
	fi
done
durations="$logdir/durations.tsv"
if [ "$max_jobs" -gt 1 ] && [ ${#parallel[@]} -gt 1 ]; then
	mapfile -t parallel < <(
		for cmd in "${parallel[@]}"; do
			secs=$(awk -F'\t' -v c="$cmd" '$2 == c { s = $1 } END { print (s == "" ? 999999 : s) }' \
				"$durations" 2>/dev/null)
			printf '%s\t%s\n' "${secs:-999999}" "$cmd"
		done | sort -t$'\t' -k1,1nr -s | cut -f2-)
fi
all=("${parallel[@]}" "${serial[@]}")

pass=0
fail=0
skip=0
failed=()
skipped=()

log_of() {
	local name
	name=$(echo "$1" | sed -e "s|^$top/||" -e 's|^build/||' -e 's|[ /]|_|g')
	echo "$logdir/$name.log"
}

# run_one I: run command I; its status and seconds go to $resdir/I.
run_one() {
	local cmd=${all[$1]} log start rc
	log=$(log_of "$cmd")
	start=$(date +%s)
	if bash -c "$cmd" >"$log" 2>&1; then
		rc=0
	else
		rc=$?
	fi
	echo "$rc $(($(date +%s) - start))" >"$resdir/$1.tmp"
	printf '%s\t%s\n' "$(($(date +%s) - start))" "$cmd" >"$resdir/$1.dur"
	mv "$resdir/$1.tmp" "$resdir/$1"
}

report() {
	local cmd=${all[$1]} log rc secs
	log=$(log_of "$cmd")
	read -r rc secs <"$resdir/$1"
	if [ "$rc" -eq 77 ] && grep -q '^not run: ' "$log"; then
		skip=$((skip + 1))
		skipped+=("$cmd: $(grep -m1 '^not run: ' "$log" | sed 's/^not run: //')")
		printf 'SKIP  %-60s %4ss (not run)\n' "$cmd" "$secs"
		grep '^not run: ' "$log" | sed 's/^/      /'
	elif [ "$rc" -eq 0 ]; then
		pass=$((pass + 1))
		printf 'PASS  %-60s %4ss\n' "$cmd" "$secs"
		# CMocka's summary, so the counts of individual cases are visible, and any
		# check of the test that the machine could not run.
		grep -E '^\[  PASSED  \]|^\[  FAILED  \]|^not run: |^probe: ' "$log" | sed 's/^/      /'
	else
		fail=$((fail + 1))
		failed+=("$cmd")
		printf 'FAIL  %-60s %4ss (exit %d)\n' "$cmd" "$secs" "$rc"
		sed 's/^/      | /' "$log" | tail -80
	fi
}

# The parallel part: start while fewer than $max_jobs run, print in order.
next=0
printed=0
running=0
while [ $printed -lt ${#parallel[@]} ]; do
	while [ $running -lt "$max_jobs" ] && [ $next -lt ${#parallel[@]} ]; do
		run_one $next &
		next=$((next + 1))
		running=$((running + 1))
	done
	if [ -f "$resdir/$printed" ]; then
		report $printed
		printed=$((printed + 1))
		continue
	fi
	wait -n 2>/dev/null
	running=$(jobs -rp | wc -l)
done
wait

for ((i = ${#parallel[@]}; i < ${#all[@]}; i++)); do
	run_one $i
	report $i
done

# Keep the times for the next run's order: this run's, and older ones of tests not run now.
{
	cat "$resdir"/*.dur 2>/dev/null
	if [ -f "$durations" ]; then
		awk -F'\t' 'NR == FNR { seen[$2] = 1; next } !($2 in seen)' \
			<(cat "$resdir"/*.dur 2>/dev/null) "$durations"
	fi
} >"$durations.new"
mv "$durations.new" "$durations"

echo
if [ "$fail" -gt 0 ]; then
	echo "failed:"
	for f in "${failed[@]}"; do echo "  $f"; done
fi
if [ "$skip" -gt 0 ]; then
	echo "not run (this machine cannot):"
	for s in "${skipped[@]}"; do echo "  $s"; done
fi
echo "$label: $pass passed, $fail failed, $skip not run"
[ "$fail" -eq 0 ]
