#!/usr/bin/env bash
# run.sh SECONDS BUILDDIR TARGET... - run each libFuzzer target for SECONDS on a
# scratch copy of tests/fuzz/corpus/<target>, print its executions and result,
# keep going after a crash, exit non-zero if any target crashed. Crash inputs are
# left in BUILDDIR/artifacts/<target>/ (minimise one into
# tests/fuzz/regressions/<target>/ to make it a regression test).
set -uo pipefail

secs=$1
dir=$2
shift 2
failed=()

for t in "$@"; do
	run="$dir/run/$t"
	art="$dir/artifacts/$t"
	log="$dir/$t.log"
	rm -rf "$run"
	mkdir -p "$run" "$art"
	cp tests/fuzz/corpus/"$t"/* "$run"/ 2>/dev/null || true
	# -timeout: one input taking 10 s is a hang, which is a finding too.
	"$dir/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
		-print_final_stats=1 -artifact_prefix="$art/" "$run" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	corpus=$(ls "$run" | wc -l)
	if [ "$rc" -eq 0 ]; then
		printf 'fuzz  %-28s %10s execs  %5s corpus  ok\n' "$t" "${execs:-?}" "$corpus"
	else
		printf 'fuzz  %-28s %10s execs  %5s corpus  CRASH (exit %d)\n' "$t" "${execs:-?}" \
			"$corpus" "$rc"
		grep -E 'invariant broken|ERROR: |runtime error|BUG:|Test unit written' "$log" |
			head -8 | sed 's/^/      | /'
		failed+=("$t")
	fi
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "fuzz: crashed: ${failed[*]} (logs in $dir/<target>.log)"
	exit 1
fi
echo "fuzz: ${#@} targets, no crash"
