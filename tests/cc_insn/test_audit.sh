#!/usr/bin/env bash
# test_audit.sh - the instruction audit (scripts/check-cc-insn.py) passes on the
# kernel image, and fails, naming the function and the instructions, on a driver
# that executes CPUID and port I/O itself (tests/cc_insn/sneaky_driver.c) and on
# the kernel image with that driver linked in beside it.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
audit="$top/scripts/check-cc-insn.py"
image="$top/build/sluice.so"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

[ -f "$image" ] || fail "build/sluice.so missing; make image"
python3 "$audit" "$image" >"$tmp/clean.out" 2>&1 || { cat "$tmp/clean.out"; fail "the kernel image does not pass the audit"; }
cat "$tmp/clean.out"

gcc -O2 -fpic -c "$top/tests/cc_insn/sneaky_driver.c" -o "$tmp/sneaky.o" || fail "cannot compile the sneaky driver"
python3 "$audit" "$tmp/sneaky.o" >"$tmp/sneaky.out" 2>&1
rc=$?
cat "$tmp/sneaky.out"
[ "$rc" -eq 1 ] || fail "the audit returned $rc on a driver executing cpuid and in, expected 1"
grep -q "^check-cc-insn: sneaky_driver_probe executes cpuid, in:" "$tmp/sneaky.out" ||
	fail "the audit did not name sneaky_driver_probe and its instructions"
grep -q "sneaky_driver_clean" "$tmp/sneaky.out" && fail "the audit blamed a clean function"

# The same driver linked into a copy of the image: still caught there.
ld -r -o "$tmp/with-sneaky.o" "$tmp/sneaky.o" "$top/build/kernel/drivers/virtio/virtio_blk.c.o" ||
	fail "cannot link the sneaky driver beside virtio_blk"
python3 "$audit" "$tmp/with-sneaky.o" >"$tmp/linked.out" 2>&1
[ $? -eq 1 ] && grep -q "sneaky_driver_probe" "$tmp/linked.out" ||
	{ cat "$tmp/linked.out"; fail "the audit missed the driver linked beside virtio_blk"; }
echo "test_audit: the image passes; a driver executing cpuid and port I/O is named and refused"
