#!/usr/bin/env bash
# test_cc_platforms_script.sh - scripts/cc-platforms.py reads the same list the
# kernel is built from: its names (all, --option, --hardware) equal those of the
# compiled table (build/host/test_cc_platforms --list, from cc_platforms[]); a
# list it cannot parse is an error, not an empty answer; and run-qemu.sh
# refuses a SLUICE_CC that is not a cc= value before it starts anything.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
bin="$build/host/test_cc_platforms"
script="$top/scripts/cc-platforms.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

[ -x "$bin" ] || fail "$bin is not built (make host-tests)"
for mode in all option hardware; do
	flag=$([ "$mode" = all ] || echo "--$mode")
	"$bin" --list $flag >"$tmp/c.$mode" || fail "$bin --list $flag failed"
	python3 "$script" $flag >"$tmp/py.$mode" || fail "cc-platforms.py $flag failed"
	[ -s "$tmp/c.$mode" ] || fail "the compiled table lists no platform ($mode)"
	diff -u "$tmp/c.$mode" "$tmp/py.$mode" ||
		fail "cc-platforms.py $flag differs from the compiled table"
	echo "same ($mode): $(paste -sd ' ' "$tmp/py.$mode")"
done

# A tree whose list lost its entries: the script says so and fails.
mkdir -p "$tmp/t/arch/x86_64/cc"
sed 's/^\(\s*\)X(\([A-Z_]*\), \([a-z_]*\), "\([^"]*\)", \(OPTION\|HARDWARE\))/\1Y(\2)/' \
	"$top/arch/x86_64/cc/cc.h" >"$tmp/t/arch/x86_64/cc/cc.h"
if python3 "$script" --root "$tmp/t" >"$tmp/out" 2>&1; then
	cat "$tmp/out"
	fail "cc-platforms.py passed on a list without entries"
fi
grep -q "no CC_PLATFORMS(X) list" "$tmp/out" || { cat "$tmp/out"; fail "no reason given"; }
echo "refused: a list without entries"

# run-qemu.sh checks SLUICE_CC against the list before it touches QEMU.
if SLUICE_CC=sim-sev "$top/scripts/run-qemu.sh" >"$tmp/rq" 2>&1 ||
	! grep -q "SLUICE_CC=sim-sev is not a cc= value (auto emulated sim-tdx sim-snp)" "$tmp/rq"; then
	cat "$tmp/rq"
	fail "run-qemu.sh did not refuse SLUICE_CC=sim-sev naming the list"
fi
echo "refused: SLUICE_CC=sim-sev"
echo "test_cc_platforms_script: the script, the run script and the compiled table agree"
