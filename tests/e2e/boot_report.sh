#!/usr/bin/env bash
# The default boot reaches the boot report, every part of it is there, and the
# kernel's exit code 0 comes back through isa-debug-exit as status 0.
. "$(dirname "$0")/lib.sh"

boot_kernel boot_report 0
expect "$BOOT_LOG" \
	'^sluice: UEFI stage$' \
	'^Sluice [0-9]+\.[0-9]+\.[0-9]+ \(rev ([0-9a-f]+|unknown)\)' \
	'^cpu: [A-Za-z]+ ".*" family [0-9]+ model [0-9]+' \
	'^cc: (none detected|(SEV|SEV-ES|SEV-SNP|TDX) detected)' \
	'^tsc: [1-9][0-9]*\.[0-9]{6} MHz, calibrated against (the ACPI PM timer|PIT channel 2)' \
	'^memory: [1-9][0-9]* MiB usable' \
	'^memory: no unaccepted memory in the firmware.s map$' \
	'^  heap +0x[0-9a-f]+ +65536 KiB$' \
	'^  dma +0x[0-9a-f]+ +131072 KiB \(2 MiB aligned\)$' \
	'^boot: efi_main -> kernel_main [0-9]+\.[0-9]{3} ms \(ExitBootServices at [0-9]+\.[0-9]{3} ms, [0-9]+ attempts?\)' \
	"^options: heap=65536K dma=131072K pool=16384K policies=$(echo $E2E_POLICIES | tr ' ' ,) scrub=zero fault=none" \
	'^options: accel=(tcg|kvm) \(named by the runner, confirmed by CPUID; every result line names it\)' \
	'^dma: bounce pool 0x[0-9a-f]+ 16384 KiB, 8192 slots of 2 KiB in 2 areas, policy linux, scrub zero, largest mapping 256 KiB' \
	'^dma: arena 0x[0-9a-f]+ 63488 KiB = 31 chunks of 2 MiB' \
	'^dma: selftest passed' \
	'^dma: bounce copy (movsb|movsq|libc|avx2), clear (movsb|movsq|libc|avx2), chosen by timing .*: movsb [0-9]+ \+ [0-9]+.*, avx2 (-|[0-9]+ \+ [0-9]+)' \
	'^mmu: own page tables loaded .* [1-9][0-9]* MiB in 2 MiB pages' \
	'^mmu: 4 KiB page to shared [0-9]+ cycles' \
	'^pci: [0-9]+ functions through (ECAM|ports 0xCF8/0xCFC)' \
	'^  00:0[0-9a-f]\.0 1af4:1042 class 010000 virtio-blk \(modern\) .*BAR4=0x[0-9a-f]+/16K/64-bit' \
	'^  00:0[0-9a-f]\.0 1af4:1041 class 020000 virtio-net \(modern\)' \
	'^sluice: boot report complete; exit 0$'
# One pool per policy, each in the list's order.
for p in $E2E_POLICIES; do
	expect "$BOOT_LOG" "^dma: bounce pool 0x[0-9a-f]+ 16384 KiB, 8192 slots of 2 KiB in 2 areas, policy $p, scrub zero"
done
# The DMA region must be 2 MiB aligned.
dma=$(sed -n 's/^  dma *0x\([0-9a-f]*\) .*/\1/p' "$BOOT_LOG")
[ $((0x$dma % 0x200000)) -eq 0 ] || e2e_fail "DMA region 0x$dma is not 2 MiB aligned"
reject "$BOOT_LOG" 'EXCEPTION'
# The runner says which accelerator it chose and why, and the kernel agrees.
expect "$BOOT_LOG.out" '^run-qemu: accelerator (TCG|KVM) \(.+\)$' \
	'^run-qemu: kernel exit code 0 \(QEMU status 33, accelerator (TCG|KVM)\)$'
echo "boot report complete"
