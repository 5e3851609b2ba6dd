#!/usr/bin/env bash
# Options reach the kernel through sluice.cfg and change what it reserves; bad
# options are refused with a message that lists the valid ones (exit code 2).
. "$(dirname "$0")/lib.sh"

boot_kernel options_sizes 0 --args "heap=32M dma=5M"
expect "$BOOT_LOG" \
	'^options: heap=32768K dma=6144K fault=none \(from sluice.cfg\)' \
	'^  heap +0x[0-9a-f]+ +32768 KiB$' \
	'^  dma +0x[0-9a-f]+ +6144 KiB \(2 MiB aligned\)$'

boot_kernel options_unknown 2 --args "heap=32M bogus=1"
expect "$BOOT_LOG" "^sluice: unknown option 'bogus=1'; valid options: heap, dma, fault" \
	'^  heap=SIZE ' '^  fault=VALUE '
reject "$BOOT_LOG" '^Sluice [0-9]'

boot_kernel options_bad_value 2 --args "dma=1M"
expect "$BOOT_LOG" "^sluice: bad value in 'dma=1M'"
