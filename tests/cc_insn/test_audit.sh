#!/usr/bin/env bash
# test_audit.sh - the instruction audit (scripts/check-cc-insn.py) passes on the
# kernel image, and fails, naming the function and the instructions, on a driver
# that executes CPUID and port I/O itself, or the SEV-SNP instructions (VMGEXIT,
# VMMCALL, PVALIDATE, RMPADJUST, WBINVD, CLFLUSH, CLFLUSHOPT)
# (tests/cc_insn/sneaky_driver.c), and on the kernel image with that driver
# linked in beside it; the TEE-instruction door (arch/x86_64/cc/tee_insn.c) passes
# on its own.
#
#   test_audit.sh [--no-image]   --no-image: only the parts that need no kernel
#                                image (the sneaky driver, tee_insn.c)
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
audit="$top/scripts/check-cc-insn.py"
image="$top/build/sluice.so"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

no_image=0
[ "${1:-}" = "--no-image" ] && no_image=1

# The TEE-instruction door alone: every instruction in it is allowed there.
gcc -O2 -fpic -ffreestanding -mno-red-zone -I"$top" -c "$top/arch/x86_64/cc/tee_insn.c" \
	-o "$tmp/tee_insn.o" || fail "cannot compile tee_insn.c"
python3 "$audit" "$tmp/tee_insn.o" --list >"$tmp/tee.out" 2>&1 || { cat "$tmp/tee.out"; fail "tee_insn.c does not pass the audit"; }
for insn in tdcall vmgexit pvalidate rmpadjust rdmsr wrmsr; do
	grep -q "^ok  tee_[a-z_]*_native: $insn " "$tmp/tee.out" ||
		{ cat "$tmp/tee.out"; fail "the audit did not see $insn in tee_insn.c"; }
done

gcc -O2 -fpic -c "$top/tests/cc_insn/sneaky_driver.c" -o "$tmp/sneaky.o" || fail "cannot compile the sneaky driver"
python3 "$audit" "$tmp/sneaky.o" >"$tmp/sneaky.out" 2>&1
rc=$?
cat "$tmp/sneaky.out"
[ "$rc" -eq 1 ] || fail "the audit returned $rc on a driver executing cpuid and in, expected 1"
grep -q "^check-cc-insn: sneaky_driver_probe executes cpuid, in:" "$tmp/sneaky.out" ||
	fail "the audit did not name sneaky_driver_probe and its instructions"
grep -q "^check-cc-insn: sneaky_snp_probe executes clflush, clflushopt, pvalidate, rmpadjust, vmgexit, vmmcall, wbinvd:" "$tmp/sneaky.out" ||
	fail "the audit did not name sneaky_snp_probe and its seven SEV-SNP/cache instructions"
grep -q "sneaky_driver_clean" "$tmp/sneaky.out" && fail "the audit blamed a clean function"
if [ "$no_image" -eq 1 ]; then
	echo "test_audit: (no image) tee_insn.c passes; a driver executing cpuid, port I/O or the SNP instructions is named and refused"
	exit 0
fi

[ -f "$image" ] || fail "build/sluice.so missing; make image"
python3 "$audit" "$image" >"$tmp/clean.out" 2>&1 || { cat "$tmp/clean.out"; fail "the kernel image does not pass the audit"; }
cat "$tmp/clean.out"

# The same driver linked into a copy of the image: still caught there.
ld -r -o "$tmp/with-sneaky.o" "$tmp/sneaky.o" "$top/build/kernel/drivers/virtio/virtio_blk.c.o" ||
	fail "cannot link the sneaky driver beside virtio_blk"
python3 "$audit" "$tmp/with-sneaky.o" >"$tmp/linked.out" 2>&1
[ $? -eq 1 ] && grep -q "sneaky_driver_probe" "$tmp/linked.out" ||
	{ cat "$tmp/linked.out"; fail "the audit missed the driver linked beside virtio_blk"; }
echo "test_audit: the image passes; a driver executing cpuid and port I/O is named and refused"
