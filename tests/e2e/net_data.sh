#!/usr/bin/env bash
# Network data integrity end to end, in every DMA mode of one boot: NIC 0 sends
# numbered, patterned frames of 60..1514 bytes over the QEMU hub, NIC 1 must get
# every one intact and in order, with matching counts.
. "$(dirname "$0")/lib.sh"

frames=2000
boot_kernel net_data 0 --args "blk=none frames=$frames"
for mode in $E2E_CONFIGS; do
	expect "$BOOT_LOG" \
		"^net: mode=$mode virtio-net@00:0[0-9a-f]\.0 mac [0-9a-f:]{17} -> virtio-net@00:0[0-9a-f]\.0 mac [0-9a-f:]{17}, queues of [0-9]+, 1\+1 queue pair, links up 2/2" \
		"^net: mode=$mode sent $frames frames \([0-9]+ bytes, sizes 60\.\.1514\) and received $frames in order, 0 bad, 0 lost" \
		"^net: mode=$mode rx: 0 bad lengths, 0 bad headers, 0 dropped"
done
reject "$BOOT_LOG" 'never arrived|corrupted|out of order|wrong length'
echo "network frames verified in every mode"
