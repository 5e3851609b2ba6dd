#!/usr/bin/env bash
# The modern virtio devices of the known-good command line pass the handshake with
# ACCESS_PLATFORM; a device started without iommu_platform=on is refused with a
# clear message (a confidential guest requires ACCESS_PLATFORM), a transitional
# device is refused as not modern, and the kernel keeps running.
# The BAR placement check accepts what OVMF really does: configuration through the
# ECAM window (reserved, uncached), every memory BAR in a hole of the memory map,
# no function refused, all three virtio devices probed.
. "$(dirname "$0")/lib.sh"

boot_kernel virtio_probe 0
expect "$BOOT_LOG" \
	'^pci: [0-9]+ functions through ECAM$' \
	'^pci: [1-9][0-9]* memory BARs outside RAM, mapped uncached and shared; 0 functions refused$' \
	'^virtio: virtio-blk@00:0[0-9a-f]\.0 offers 0x[0-9a-f]{16} \(VERSION_1 yes, ACCESS_PLATFORM yes' \
	'^virtio: virtio-net@00:0[0-9a-f]\.0 offers 0x[0-9a-f]{16} \(VERSION_1 yes, ACCESS_PLATFORM yes'
n=$(grep -Ec '^virtio: virtio-(blk|net)@00:0[0-9a-f]\.0 offers .*ACCESS_PLATFORM yes' "$BOOT_LOG")
[ "$n" -eq 3 ] || e2e_fail "virtio_probe: $n virtio devices probed, expected 3"
reject "$BOOT_LOG" 'refused:|\(refused\)'

extra="$E2E_LOGDIR/e2e-virtio-extra"
truncate -s 1M "$extra-1.img" "$extra-2.img"
boot_kernel virtio_refusal 0 -- \
	-drive file="$extra-1.img",format=raw,if=none,id=x1 \
	-device virtio-blk-pci,drive=x1,disable-legacy=on,addr=0x10 \
	-drive file="$extra-2.img",format=raw,if=none,id=x2 \
	-device virtio-blk-pci,drive=x2,addr=0x11
expect "$BOOT_LOG" \
	'^virtio: virtio-blk@00:10\.0 offers 0x[0-9a-f]{16} \(VERSION_1 yes, ACCESS_PLATFORM no' \
	'^virtio: virtio-blk@00:10\.0: device does not offer VIRTIO_F_ACCESS_PLATFORM, required in a confidential guest' \
	'^virtio: 00:11\.0 1af4:1001 refused: a legacy/transitional device' \
	'^pci: [1-9][0-9]* memory BARs outside RAM, mapped uncached and shared; 0 functions refused$' \
	'^sluice: boot report complete; exit 0$'
reject "$BOOT_LOG" '^pci: .*refused:'
