#!/usr/bin/env bash
# run-tests.sh [-j N] LABEL CMD... [--serial CMD...] - run each test command, keep
# going after a failure, print one line per test and a closing
# "LABEL: N passed, N failed, N not run" line; exit non-zero if any failed.
#
# A command is a path (a host test binary or an end-to-end script) or a quoted command
# line. Each test's output goes to build/test/<name>.log and is shown in full when it
# fails. -j N runs up to N of the commands at once: the commands after --serial (the
# QEMU boots) one after the other in one lane, the commands before it in the other
# N - 1 lanes (with -j 1, all one after the other, the serial ones last). Each
# line is printed as soon as its test and those before it in its part are done.
#
# With -j, the longest tests start first: each test's time is kept in
# build/test/durations.tsv, and the parallel commands are started in the order of the
# last times seen there (a test never seen counts as the longest); the lines are then
# printed in that order.
#
# A deadline: each command gets RUN_TESTS_TIMEOUT seconds (900 by default; the
# longest test takes about two minutes here), then it and every process it started
# are stopped (timeout(1): TERM to its process group, KILL 10 s later) and it fails,
# "timed out", instead of holding the whole run until CI's own limit. Logs and
# times go to RUN_TESTS_LOGDIR (build/test by default).
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
logdir=${RUN_TESTS_LOGDIR:-$top/build/test}
deadline=${RUN_TESTS_TIMEOUT:-900}
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
	if timeout --kill-after=10 "$deadline" bash -c "$cmd" >"$log" 2>&1; then
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
	elif [ "$rc" -eq 124 ] || { [ "$rc" -eq 137 ] && [ "$secs" -ge "$deadline" ]; }; then
		fail=$((fail + 1))
		failed+=("$cmd (timed out)")
		printf 'FAIL  %-60s %4ss (timed out after %ss)\n' "$cmd" "$secs" "$deadline"
		sed 's/^/      | /' "$log" | tail -80
	else
		fail=$((fail + 1))
		failed+=("$cmd")
		printf 'FAIL  %-60s %4ss (exit %d)\n' "$cmd" "$secs" "$rc"
		sed 's/^/      | /' "$log" | tail -80
	fi
}

# The serial commands, one after the other in a lane of their own (the background
# when there are parallel ones too and more than one job: the QEMU boots then overlap
# the host tests instead of waiting for them).
np=${#parallel[@]}
ns=${#serial[@]}
serial_chain() {
	for ((i = np; i < np + ns; i++)); do run_one $i; done
}
lanes=$max_jobs
chain_pid=""
if [ "$ns" -gt 0 ] && [ "$np" -gt 0 ] && [ "$max_jobs" -gt 1 ]; then
	serial_chain &
	chain_pid=$!
	lanes=$((max_jobs - 1))
fi

# The parallel part: start while fewer than $lanes run; print every result in order
# as soon as it and those before it (of its part) are done.
next=0
printed=0
printed_s=0
while [ $printed -lt "$np" ] || { [ -n "$chain_pid" ] && [ $printed_s -lt "$ns" ]; }; do
	while [ "$(jobs -rp | grep -vx "${chain_pid:-none}" | wc -l)" -lt "$lanes" ] &&
		[ $next -lt "$np" ]; do
		run_one $next &
		next=$((next + 1))
	done
	if [ $printed -lt "$np" ] && [ -f "$resdir/$printed" ]; then
		report $printed
		printed=$((printed + 1))
		continue
	fi
	if [ -n "$chain_pid" ] && [ $printed_s -lt "$ns" ] && [ -f "$resdir/$((np + printed_s))" ]; then
		report $((np + printed_s))
		printed_s=$((printed_s + 1))
		continue
	fi
	# Wait for a parallel test to end; with none left running, look again in a moment
	# (wait -n would wait for the whole serial lane).
	if [ "$(jobs -rp | grep -vx "${chain_pid:-none}" | wc -l)" -gt 0 ]; then
		wait -n 2>/dev/null || sleep 0.2
	else
		sleep 0.5
	fi
done
wait

# Without a lane of their own, the serial commands run now.
if [ -z "$chain_pid" ]; then
	for ((i = np; i < np + ns; i++)); do
		run_one $i
		report $i
	done
fi

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
