#!/usr/bin/env bash
# A device that fails requests: QEMU's blkdebug makes virtio-blk answer reads of
# the second half of the disk with an I/O error. Every failed request is reported
# with its sector and -5 (EIO), counted, its data discarded; the kernel goes on
# through every configuration and the write pass, then exits 1 (task failed) with
# a clear message: no exception, no hang.
. "$(dirname "$0")/lib.sh"

disk="$E2E_LOGDIR/errors-disk.img"
rules="$E2E_LOGDIR/errors-blkdebug.conf"
truncate -s 8M "$disk"
cat >"$rules" <<'RULES'
[inject-error]
event = "read_aio"
errno = "5"
sector = "8192"
once = "off"
RULES
boot_kernel device_errors 1 --disk "$disk" --blkdebug "$rules" \
	--args "frames=0 modes=direct,bounce,arena policies=sluice"
for mode in direct bounce/sluice arena; do # names: chosen (modes= policies= above)
	expect "$BOOT_LOG" \
		"^blk: mode=$mode read of sector [0-9]+ failed \(-5\)$" \
		"^blk: mode=$mode read 8388608 bytes .* [1-9][0-9]* errors," \
		"^blk: mode=$mode [0-9]+ requests, [1-9][0-9]* errors, 0 busy retries, 0 bad lengths, 0 bad status bytes" \
		"^blk: mode=$mode wrote pattern to sectors .* 0 errors"
done
expect "$BOOT_LOG" '^sluice: block task failed; exit 1$'
reject "$BOOT_LOG" 'EXCEPTION|never completed'
echo "device errors reported, kernel went on"
