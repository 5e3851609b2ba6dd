#!/usr/bin/env bash
# Block I/O on two CPUs at once, in every DMA mode: each CPU writes its share of
# the mode's pattern region on its own request queue while the other does the
# same, then reads back the blocks the other CPU wrote; the host checks the image
# byte for byte. Then the same with one queue shared by both CPUs (under its lock).
. "$(dirname "$0")/lib.sh"

pattern="$E2E_TOP/scripts/blk_pattern.py"
orig="$E2E_LOGDIR/smp-orig.img"
disk="$E2E_LOGDIR/smp-disk.img"
bytes=$((32 * 1024 * 1024))
python3 "$pattern" make "$orig" "$bytes" 20261203 || e2e_fail "cannot create the image"
want=$(cksum <"$orig" | awk '{print $1}')

check_smp() {
	local name=$1 queues=$2
	cp "$orig" "$disk"
	boot_kernel "$name" 0 --smp 2 --disk "$disk" --blk-queues "$queues" \
		--args "blk=smp frames=0 iodepth=32 bs=4K"
	expect "$BOOT_LOG" '^smp: 2 CPUs online$'
	for mode in $E2E_CONFIGS; do
		expect "$BOOT_LOG" \
			"^blk: mode=$mode read $bytes bytes bs=4096 iodepth=32: cksum $want $bytes, 0 errors" \
			"^blk-smp: mode=$mode cpu 0 queue 0 wrote [1-9][0-9]* requests \(blocks of cpu 0\), 0 errors, 0 mismatches" \
			"^blk-smp: mode=$mode cpu 1 queue $((queues - 1)) wrote [1-9][0-9]* requests \(blocks of cpu 1\), 0 errors, 0 mismatches" \
			"^blk-smp: mode=$mode cpu 0 queue 0 read back [1-9][0-9]* requests \(blocks of cpu 1\), 0 errors, 0 mismatches" \
			"^blk-smp: mode=$mode cpu 1 queue $((queues - 1)) read back [1-9][0-9]* requests \(blocks of cpu 0\), 0 errors, 0 mismatches" \
			"^blk-smp: mode=$mode 2 CPUs wrote sectors [0-9]+\.\.[0-9]+ at once and read each other's blocks back: all correct"
	done
	reject "$BOOT_LOG" 'FAILED|bad lengths, [1-9]|bad status bytes, [1-9]'
	python3 "$pattern" verify "$orig" "$disk" 4096 0,1,2 || e2e_fail "$name: image check failed"
}

check_smp smp_data_own_queues 2
check_smp smp_data_shared_queue 1
echo "two CPUs wrote and verified every mode's region at once"
