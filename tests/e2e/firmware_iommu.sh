#!/usr/bin/env bash
# The DMA library inside real firmware: OVMF boots build/iommu-test.efi, which reads a
# FAT16 disk whole through EFI_BLOCK_IO_PROTOCOL and a 4 MiB file through OVMF's FAT
# driver, first over the root bridge's identity mapping, then loads
# build/sluice-iommu.efi (EDKII_IOMMU_PROTOCOL) and, for each bounce policy and with
# AllocateBuffer from the arena, disconnects and reconnects the virtio-blk controller
# (iommu_platform=on) so that OVMF's VirtioBlkDxe runs on our protocol, and reads both
# again; and sends 64 frames of 60..1514 bytes from one virtio-net NIC to the other
# through OVMF's VirtioNetDxe (EFI_SIMPLE_NETWORK_PROTOCOL), each compared. Every checksum must be the host's; the driver's statistics must show the
# maps, the bytes bounced, no failed map, no device address outside shared memory; an
# unload must be refused while the ring is live; after ExitBootServices nothing may be
# left mapped. A second boot unloads the driver once the disk is disconnected.
# The benchmark lines of the first boot must follow the output contract.
. "$(dirname "$0")/lib.sh"

img="$E2E_LOGDIR/fw-disk.img"
mib=16
fw_args=(--efi "$E2E_TOP/build/iommu-test.efi" --esp-file "$E2E_TOP/build/sluice-iommu.efi"
	--disk "$img")
read -r fsum fbytes < <(python3 "$E2E_TOP/scripts/fat_image.py" "$img" "$mib" DATA.BIN 4096 \
	20261204) || e2e_fail "cannot create the FAT image"
read -r dsum dbytes _ < <(cksum <"$img")
echo "host: disk cksum $dsum $dbytes, file cksum $fsum $fbytes"

# At least @2 in field @1 (name=value) of the first line matching @3.
at_least() {
	local key=$1 min=$2 re=$3 v
	v=$(grep -E -- "$re" "$BOOT_LOG" | head -1 | grep -oE "(^| )$key=[0-9]+" | cut -d= -f2)
	[ -n "$v" ] && [ "$v" -ge "$min" ] || e2e_fail "$key=${v:-?} < $min in /$re/"
}

boot_kernel firmware_iommu 0 "${fw_args[@]}" --args "mode=test"
configs="identity $E2E_BOUNCE_CONFIGS bounce/sluice\+arena"
for c in $configs; do
	expect "$BOOT_LOG" \
		"^fw: config=$c disk cksum $dsum $dbytes, [0-9]+ reads of 65536 bytes, 0 errors; file DATA.BIN cksum $fsum $fbytes\$" \
		"^fw: config=$c net: sent 64 frames of 60\.\.1514 bytes, received 64, 0 bad, 0 lost\$"
	[ "$c" = identity ] && continue
	expect "$BOOT_LOG" \
		"^fw: $c stats: maps=[1-9][0-9]* map_failed=0 .* unmap_invalid=0 .* alloc_failed=0 .* free_invalid=0 " \
		"^fw: $c bounced: .* unshared=0 "
	# Everything the device wrote came through the bounce pools or the arena.
	at_least from_device $((dbytes + fbytes)) "^fw: $c bounced: "
	# The file's 1 MiB reads are longer than a 256 KiB run of the linux, bitmap and lifo
	# pools: they bounce through the arena (sluice's runs span its one area).
	case $c in bounce/sluice*) ;; *) at_least long 1 "^fw: $c stats: " ;; esac
done
# The identity run's ring and buffer came back through the driver once it was installed.
at_least foreign_unmaps 1 "^fw: bounce/linux stats: "
at_least foreign_frees 1 "^fw: bounce/linux stats: "
expect "$BOOT_LOG" '^sluice-iommu: EDKII_IOMMU_PROTOCOL installed' \
	'^fw: unload while the disk is connected: Access Denied' \
	'^fw: after ExitBootServices: teardown ran=1 unmapped=[1-9][0-9]* live_after=0 ' \
	'^fw: all checks passed'
reject "$BOOT_LOG" '^fw: FAIL'
at_least maps 1 '^fw: after ExitBootServices: '
python3 "$E2E_TOP/scripts/bench.py" contract "$BOOT_LOG" || e2e_fail "benchmark lines off the contract"
[ "$(grep -c '^{"suite":"fwblk"' "$BOOT_LOG")" -eq 6 ] || e2e_fail "not six fwblk lines"

boot_kernel firmware_iommu_unload 0 "${fw_args[@]}" --args "mode=unload"
expect "$BOOT_LOG" \
	"^fw: config=bounce/linux disk cksum $dsum $dbytes, .*, 0 errors; file DATA.BIN cksum $fsum $fbytes\$" \
	'^fw: unload while the disk is connected: Access Denied' \
	'^sluice-iommu: unloaded: Success, 0 pages still shared' \
	'^fw: unload after disconnecting the disk: Success' '^fw: all checks passed'
reject "$BOOT_LOG" '^fw: FAIL'
echo "firmware IoMmu driver verified"
