#!/usr/bin/env bash
# Conversion failures injected with fail_private=N: an arena chunk whose conversion
# back to private fails is leaked and counted (the host may still see it), never
# handed out again, and I/O goes on through other chunks.
. "$(dirname "$0")/lib.sh"

# Every conversion back fails: the block task's chunk is leaked; the network task
# then runs on chunks converted afresh, and those leak too when released.
boot_kernel conversion_failure 0 --args "modes=arena fail_private=1"
expect "$BOOT_LOG" \
	'^blk: mode=arena read 67108864 bytes .* 0 errors' \
	'^dma: warning: sluice_dma_arena: set_private failed, chunk leaked: 0x[0-9a-f]+ err -5$' \
	'^dma: arena after the block task: 0 idle chunks released to private, 1 shared now, 1 leaked \(conversion back failed 1 times\)' \
	'^net: mode=arena sent 1000 frames .* received 1000 in order, 0 bad, 0 lost' \
	'^dma: arena after the network task: 0 idle chunks released to private, ([2-9]|[1-9][0-9]+) shared now, ([2-9]|[1-9][0-9]+) leaked'
# The leaked chunk is never handed out again: the network task's chunks differ.
leaked=$(sed -n 's/^dma: warning: sluice_dma_arena: set_private failed, chunk leaked: \(0x[0-9a-f]*\) err -5$/\1/p' "$BOOT_LOG")
[ "$(echo "$leaked" | sort | uniq -d)" = "" ] || e2e_fail "a chunk was leaked twice: $leaked"

# Every second one fails: half the releases work (lazy release), half leak.
boot_kernel conversion_failure_half 0 --args "modes=arena fail_private=2"
expect "$BOOT_LOG" \
	'^dma: arena after the block task: 1 idle chunks released to private, 0 shared now, 0 leaked' \
	'^dma: arena after the network task: 1 idle chunks released to private, 1 shared now, 1 leaked'
echo "failed conversions leaked and counted; I/O went on"
