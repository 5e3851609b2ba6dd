#!/usr/bin/env bash
# test_probe.sh - the capability probes of scripts/probe.sh and their fallbacks, on a
# machine made to look as if it lacked a capability: SLUICE_NATIVE_I386=no (a kernel
# without IA32 emulation) and stub tools first on PATH (tests/probe/stub-fail: a
# qemu-user and a cross gcc that fail; tests/probe/stub-log: the real qemu-i386,
# each call logged). Every probe cache is a temporary folder.
#
# Checks: the i386 tests fall back to qemu-i386 and still pass and are counted;
# with no way to run i386, they are counted as not run, with the reason, and the run
# still passes; the verdict is cached and re-probed when its key changes; a cross
# compiler that does not work drops its builds and reports their checks as not run;
# the report line names every capability.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
export STUB_CALLS="$tmp/calls"
probe=scripts/probe.sh

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
has() { grep -qF -- "$2" "$1" || { fail "no '$2' in $1:"; sed 's/^/    | /' "$1"; }; }

# The fallback is shown with the two quick library tests (test_bad_args forks for
# every death test, which costs minutes under qemu-user; make check runs all four the
# way the probe says anyway).
i386_tests=()
for t in test_map test_arena; do
	i386_tests+=("$probe exec i386 build/portable/test-i386/$t")
done
if ! $probe gcc-i386 >/dev/null || [ ! -x build/portable/test-i386/test_arena ]; then
	echo "not run: test_probe: no i386 test binaries (gcc -m32 does not work here, or make check-build has not run)"
	exit 77
fi

# 1. Native i386 execution refused: the probe falls back to qemu-i386, says why.
export SLUICE_PROBE_DIR="$tmp/p1"
SLUICE_NATIVE_I386=no PATH="$top/tests/probe/stub-log:$PATH" $probe i386-run >"$tmp/1.out"
[ $? -eq 0 ] || fail "1: i386-run not usable with qemu-i386 present"
has "$tmp/1.out" "probe: i386-run: qemu-i386 (SLUICE_NATIVE_I386=no; ran under qemu-i386)"
[ -s "$STUB_CALLS" ] && ok "1: the probe tried qemu-i386" || fail "1: qemu-i386 was not tried"

# 2. ... and the i386 tests run under it, pass, and are counted as passed.
: >"$STUB_CALLS"
SLUICE_NATIVE_I386=no PATH="$top/tests/probe/stub-log:$PATH" \
	scripts/run-tests.sh -j 2 i386 "${i386_tests[@]}" >"$tmp/2.out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "2: run-tests exit $rc"
has "$tmp/2.out" "i386: 2 passed, 0 failed, 0 not run"
has "$tmp/2.out" "probe: i386-run: qemu-i386"
[ "$(grep -c 'build/portable/test-i386/' "$STUB_CALLS")" -eq 2 ] &&
	ok "2: both i386 tests ran under qemu-i386" ||
	fail "2: qemu-i386 calls: $(cat "$STUB_CALLS")"
# CMocka's counts came through: each test ran its cases.
[ "$(grep -c '\[  PASSED  \] [1-9]' "$tmp/2.out")" -eq 2 ] &&
	ok "2: CMocka counts shown for each" || fail "2: CMocka counts missing"

# 3. The verdict is cached: no probe the second time ...
: >"$STUB_CALLS"
SLUICE_NATIVE_I386=no PATH="$top/tests/probe/stub-log:$PATH" $probe i386-run >"$tmp/3.out"
has "$tmp/3.out" "cached in $tmp/p1/i386-run.verdict"
[ ! -s "$STUB_CALLS" ] && ok "3: cached verdict, no probe" || fail "3: probed again"
# ... until its key changes (here the override): then it is probed again.
$probe i386-run >"$tmp/3b.out"
grep -q cached "$tmp/3b.out" && fail "3: a changed key reused the cache"
grep -Eq "probe: i386-run: (native|qemu-i386) \(" "$tmp/3b.out" &&
	ok "3: re-probed without the override: $(cat "$tmp/3b.out")" || fail "3: $(cat "$tmp/3b.out")"

# 4. No way at all to run i386 (no IA32 emulation, qemu-i386 broken): the tests are
# counted as not run, with the reason, and the run does not fail.
export SLUICE_PROBE_DIR="$tmp/p4"
SLUICE_NATIVE_I386=no PATH="$top/tests/probe/stub-fail:$PATH" $probe i386-run >"$tmp/4.out"
[ $? -eq 1 ] || fail "4: i386-run usable with a broken qemu-i386"
has "$tmp/4.out" "probe: i386-run: none (SLUICE_NATIVE_I386=no; qemu-i386 failed: qemu-i386: stub: this machine's qemu-user is broken)"
SLUICE_NATIVE_I386=no PATH="$top/tests/probe/stub-fail:$PATH" \
	scripts/run-tests.sh i386 "${i386_tests[@]}" >"$tmp/4b.out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "4: a machine that cannot run i386 passes" || fail "4: run-tests exit $rc"
has "$tmp/4b.out" "i386: 0 passed, 0 failed, 2 not run"
has "$tmp/4b.out" "SKIP  $probe exec i386 build/portable/test-i386/test_arena"
has "$tmp/4b.out" "not run: i386-run: SLUICE_NATIVE_I386=no; qemu-i386 failed"
# run CAP -- CMD: CMD is not started.
SLUICE_NATIVE_I386=no PATH="$top/tests/probe/stub-fail:$PATH" \
	$probe run i386-run -- touch "$tmp/started" >"$tmp/4c.out"
[ $? -eq 77 ] && [ ! -e "$tmp/started" ] && ok "4: run refuses with 77" ||
	fail "4: run started its command or did not exit 77"

# run CAP -- VAR=value CMD: the assignment reaches CMD.
if $probe clang >/dev/null; then
	$probe run clang -- SLUICE_PROBE_TEST=seen sh -c 'echo "$SLUICE_PROBE_TEST"' >"$tmp/4d.out" 2>&1
	has "$tmp/4d.out" "seen"
fi

# 5. aarch64 with a broken qemu-aarch64: not run, said so.
PATH="$top/tests/probe/stub-fail:$PATH" $probe exec aarch64 build/portable/test-aarch64/test_map \
	>"$tmp/5.out" 2>&1
[ $? -eq 77 ] || fail "5: exec aarch64 did not exit 77"
has "$tmp/5.out" "not run: aarch64-run: "

# 5b. No way to make tap devices: the probe says why (net_smp.sh then reports its
# multiqueue half as not run).
PATH="$top/tests/probe/stub-fail:$PATH" $probe tap >"$tmp/5b.out"
[ $? -eq 1 ] || fail "5b: tap usable with a failing ip"
has "$tmp/5b.out" "probe: tap: none (cannot make a multiqueue tap on a bridge: RTNETLINK answers: Operation not permitted)"

# 6. A cross compiler that does not work: its configurations are not built, and their
# checks are reported as not run; the others stay.
export SLUICE_PROBE_DIR="$tmp/p6"
PATH="$top/tests/probe/stub-fail:$PATH" make -s --no-print-directory PORTABLE_PROBED=1 \
	print-PORT_LIBS >"$tmp/6.out" 2>&1
grep -q 'aarch64-gcc' "$tmp/6.out" && fail "6: aarch64 gcc builds kept: $(cat "$tmp/6.out")"
has "$tmp/6.out" "build/portable/x86_64-gcc/libsluice-dma.a"
has "$tmp/6.out" "build/portable/aarch64-clang/libsluice-dma.a"
PATH="$top/tests/probe/stub-fail:$PATH" $probe gcc-aarch64 >"$tmp/6b.out"
has "$tmp/6b.out" "probe: gcc-aarch64: none ('aarch64-linux-gnu-gcc -lcmocka' failed: aarch64-linux-gnu-gcc: stub: no cross compiler on this machine"
PATH="$top/tests/probe/stub-fail:$PATH" make -s --no-print-directory print-PORTABLE_CHECKS \
	>"$tmp/6c.out" 2>&1
has "$tmp/6c.out" "scripts/probe.sh run gcc-aarch64 -- NM=aarch64-linux-gnu-nm scripts/check-lib-symbols.sh build/portable/aarch64-gcc/libsluice-dma.a"

# 7. --all names every capability and the accelerator, one line each.
export SLUICE_PROBE_DIR="$tmp/p7"
SLUICE_ACCEL=tcg $probe --all >"$tmp/7.out" 2>&1
for cap in i386-run aarch64-run gcc-i386 gcc-aarch64 clang sanitizers valgrind strace libfuzzer \
	tap accelerator; do
	[ "$(grep -c "^probe: $cap: " "$tmp/7.out")" -eq 1 ] || fail "7: no one line for $cap"
done

if [ $fails -eq 0 ]; then
	echo "test_probe: all checks passed"
	exit 0
fi
echo "test_probe: $fails check(s) failed"
exit 1
