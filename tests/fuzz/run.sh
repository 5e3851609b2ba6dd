#!/usr/bin/env bash
# run.sh SECONDS BUILDDIR TARGET... - run each libFuzzer target for SECONDS on a
# scratch copy of tests/fuzz/corpus/<target>, FUZZ_JOBS targets at a time (one
# process, so one core, each; default: every CPU), then print each target's
# executions, executions per second (of the run's wall time, and per second of
# CPU time it got) and result in the order given; keep going
# after a crash, exit non-zero if any target crashed. Crash inputs are left in
# BUILDDIR/artifacts/<target>/ (minimise one into tests/fuzz/regressions/<target>/
# to make it a regression test).
#
# Why in parallel: a target is one single-threaded process, so on N cores N
# targets run at once at the speed of one; each still gets SECONDS of a core,
# and the whole run takes 1/N of the time. The load average at the start and
# the end is printed: executions per second are per core, and another job on
# the machine takes its share of the cores; the rate per CPU second is what the
# target does with the core it gets.
set -uo pipefail

secs=$1
dir=$2
shift 2
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
failed=()

# Longest input of a target: 4 KiB, but 1 KiB (some 170 steps) for fuzz_dma_ops,
# whose model state (48 mappings, 16 arena blocks) is built in a few dozen steps
# while a 4 KiB input (600 steps, model copies of up to 300 KiB each) costs five
# times as much: with it the rate fell under 2 000 inputs a second within 15
# minutes, against the 2 800 ten million inputs an hour need.
max_len() {
	case $1 in
	fuzz_dma_ops) echo 1024 ;;
	*) echo 4096 ;;
	esac
}

# One target: its run, its log, its exit code in BUILDDIR/<target>.rc.
run_one() {
	local t=$1 run="$dir/run/$1" art="$dir/artifacts/$1" log="$dir/$1.log"

	rm -rf "$run"
	mkdir -p "$run" "$art"
	cp tests/fuzz/corpus/"$t"/* "$run"/ 2>/dev/null || true
	# -timeout: one input taking 10 s is a hang, which is a finding too.
	local cmd=("$dir/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048
		   -max_len="$(max_len "$t")" -print_final_stats=1 -artifact_prefix="$art/" "$run")

	rm -f "$dir/$t.time"
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -o "$dir/$t.time" -f '%U %S' "${cmd[@]}" >"$log" 2>&1
	else
		"${cmd[@]}" >"$log" 2>&1
	fi
	echo $? >"$dir/$t.rc"
}

load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "fuzz: ${#@} targets, ${secs} s each, $jobs at a time; load average $(load)"
running=0
for t in "$@"; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	run_one "$t" &
	running=$((running + 1))
done
wait

for t in "$@"; do
	log="$dir/$t.log"
	rc=$(cat "$dir/$t.rc" 2>/dev/null || echo 1)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	corpus=$(ls "$dir/run/$t" | wc -l)
	cpu=$(awk -v n="${execs:-0}" 'NF == 2 && $1 + $2 > 0 { printf "%d", n / ($1 + $2) }' \
		"$dir/$t.time" 2>/dev/null)
	if [ "$rc" -eq 0 ]; then
		printf 'fuzz  %-28s %10s execs %7s/s %7s/cpu-s %5s corpus  ok\n' "$t" \
			"${execs:-?}" "${rate:-?}" "${cpu:-?}" "$corpus"
	else
		printf 'fuzz  %-28s %10s execs %7s/s %7s/cpu-s %5s corpus  CRASH (exit %d)\n' \
			"$t" "${execs:-?}" "${rate:-?}" "${cpu:-?}" "$corpus" "$rc"
		grep -E 'invariant broken|ERROR: |runtime error|BUG:|Test unit written' "$log" |
			head -8 | sed 's/^/      | /'
		failed+=("$t")
	fi
done
echo "fuzz: load average at the end $(load)"
if [ ${#failed[@]} -gt 0 ]; then
	echo "fuzz: crashed: ${failed[*]} (logs in $dir/<target>.log)"
	exit 1
fi
echo "fuzz: ${#@} targets, no crash"
