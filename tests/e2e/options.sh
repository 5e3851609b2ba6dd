#!/usr/bin/env bash
# Options reach the kernel through sluice.cfg and change what it reserves; bad
# options are refused with a message that lists the valid ones (exit code 2).
. "$(dirname "$0")/lib.sh"

boot_kernel options_sizes 0 --args "heap=32M dma=5M pool=1M policies=linux scrub=zero areas=1"
expect "$BOOT_LOG" \
	'^options: heap=32768K dma=6144K pool=1024K policies=linux scrub=zero fault=none \(from sluice.cfg\)' \
	'^  heap +0x[0-9a-f]+ +32768 KiB$' \
	'^  dma +0x[0-9a-f]+ +6144 KiB \(2 MiB aligned\)$' \
	'^dma: bounce pool 0x[0-9a-f]+ 1024 KiB, 512 slots of 2 KiB in 1 area, policy linux, scrub zero, largest mapping 256 KiB' \
	'^dma: arena 0x[0-9a-f]+ 2048 KiB = 1 chunks of 2 MiB' \
	'^dma: selftest passed'

boot_kernel options_unknown 2 --args "heap=32M bogus=1"
expect "$BOOT_LOG" "^sluice: unknown option 'bogus=1'; valid options: heap, dma, fault, pool, policies, scrub, modes, blk, iodepth, bs, net, frames, bench, bench_set, bench_ms, iotlb_entries, iotlb_ways, fail_private, areas, cpus, fault_cpu, device_timeout_ms, cc, tdx_fault, tdx_fault_every, snp_fault, snp_fault_every, accel" \
	'^  heap=SIZE ' '^  fault=VALUE '
reject "$BOOT_LOG" '^Sluice [0-9]'

boot_kernel options_bad_value 2 --args "dma=1M"
expect "$BOOT_LOG" "^sluice: bad value in 'dma=1M'"

boot_kernel options_split 2 --args "dma=8M pool=2M"
expect "$BOOT_LOG" "^sluice: 4 pools of pool=2048K leave less than 4M of dma=8192K"

# A single bounce policy: only its pool is set up, and the tasks run with it alone.
boot_kernel policy_lifo 0 --args "policies=lifo modes=bounce frames=100"
expect "$BOOT_LOG" '^dma: bounce pool .* policy lifo, ' '^dma: selftest passed' \
	'^blk: mode=bounce/lifo read ' '^net: mode=bounce/lifo sent 100 frames'
reject "$BOOT_LOG" '^dma: bounce pool 0x.*policy (linux|bitmap|sluice),|mode=(direct|arena|bounce/sluice)'

