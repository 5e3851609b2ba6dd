#!/usr/bin/env bash
# Block data integrity end to end, in every DMA mode of one boot: the kernel reads
# a seeded random disk image whole and prints its cksum, which must equal the host's
# `cksum`; then each mode writes its pattern region in scattered order, and the host
# checks the image byte for byte. Runs at iodepth 256 with 4 KiB requests, at
# iodepth 32 with 64 KiB requests, at iodepth 1024 on two queues of 1024 entries,
# and with a tiny bounce pool (the driver must wait
# for slots, not fail; the network task must still deliver every frame).
. "$(dirname "$0")/lib.sh"

pattern="$E2E_TOP/scripts/blk_pattern.py"
orig="$E2E_LOGDIR/blk-orig.img"
disk="$E2E_LOGDIR/blk-disk.img"
bytes=$((32 * 1024 * 1024))
python3 "$pattern" make "$orig" "$bytes" 20261202 || e2e_fail "cannot create the image"
want=$(cksum <"$orig" | awk '{print $1}')
echo "host cksum of the seeded image: $want $bytes"

check_run() {
	local name=$1 bs=$2 modes_idx=$3 queues=$4 qsize=$5
	shift 5
	cp "$orig" "$disk"
	boot_kernel "$name" 0 --disk "$disk" --blk-queues "$queues" --blk-queue-size "$qsize" \
		--args "$*"
	for m in $(echo "$modes_idx" | tr , ' '); do
		case $m in
		0) configs="direct" ;;
		1) configs=$E2E_BOUNCE_CONFIGS ;;
		2) configs="arena" ;;
		esac
		for mode in $configs; do
			expect "$BOOT_LOG" \
				"^blk: mode=$mode read $bytes bytes bs=$bs iodepth=[0-9]+: cksum $want $bytes, 0 errors" \
				"^blk: mode=$mode wrote pattern to sectors [0-9]+\.\.[0-9]+ \([0-9]+ requests, scattered, flushed\), 0 errors"
		done
	done
	reject "$BOOT_LOG" 'bad lengths, [1-9]|bad status bytes, [1-9]|[1-9][0-9]* errors,'
	python3 "$pattern" verify "$orig" "$disk" "$bs" "$modes_idx" || e2e_fail "$name: image check failed"
}

check_run blk_deep 4096 0,1,2 1 256 iodepth=256 bs=4K
expect "$BOOT_LOG" '^blk: mode=bounce/linux .* queue of 256'
check_run blk_large 65536 0,1,2 1 256 iodepth=32 bs=64K
# A device with two request queues of 1024: 1024 requests in flight, spread over both.
check_run blk_two_queues 8192 0,1,2 2 1024 iodepth=1024 bs=8K frames=0
expect "$BOOT_LOG" '^blk: mode=direct .* 2 queues of 1024,' \
	'^blk: mode=bounce/sluice read .* iodepth=1024: cksum'

# 128 slots of 2 KiB for 256 requests of 4 KiB: most submissions find the pool full.
check_run blk_tiny_pool 4096 1 1 256 modes=bounce pool=256K iodepth=256 bs=4K
for policy in $E2E_POLICIES; do
	expect "$BOOT_LOG" "^blk: mode=bounce/$policy [0-9]+ requests, 0 errors, [1-9][0-9]* busy retries" \
		"^net: mode=bounce/$policy sent 1000 frames .* received 1000 in order, 0 bad, 0 lost"
done
echo "block data verified in every mode"
