#!/usr/bin/env bash
# Options split by trust (boot/options_trust.c): in a confidential guest the host's
# sluice.cfg may tune a benchmark but not weaken a guarantee. Under cc=sim-tdx and
# cc=sim-snp, as in a real TD or SNP guest, a hostile sluice.cfg asking for
# scrub=copy (private bytes copied into shared memory), a longer device deadline or
# direct mode is refused before anything runs, with a line saying why (exit 2);
# tuning options are taken, and the default runs no direct mode.
. "$(dirname "$0")/lib.sh"

refusal="from sluice.cfg refused: it weakens a guarantee"
for cc in sim-tdx sim-snp; do
	boot_kernel "hostile_scrub_$cc" 2 --args "cc=$cc frames=10 scrub=copy"
	expect "$BOOT_LOG" "^sluice: option 'scrub=copy' $refusal \(from-device bounces would show the device bytes it was not given\), and in a confidential guest \($cc\) only options built into the measured image may"
	reject "$BOOT_LOG" '^Sluice [0-9]'
done

boot_kernel hostile_timeout_sim-tdx 2 --args "cc=sim-tdx device_timeout_ms=600000"
expect "$BOOT_LOG" "^sluice: option 'device_timeout_ms=600000' $refusal \(a wait on a device would outlast the trusted deadline\)"

boot_kernel hostile_direct_sim-snp 2 --args "cc=sim-snp modes=direct,arena"
expect "$BOOT_LOG" "^sluice: option 'modes=direct,arena' $refusal \(direct mode hands devices private memory in place\), and in a confidential guest \(sim-snp\)"

# Tuning is the host's to choose; the default modes leave direct out.
boot_kernel tuned_sim-tdx 0 --args "cc=sim-tdx blk=none frames=20 bs=4K scrub=zero device_timeout_ms=2000"
expect "$BOOT_LOG" '^options: .*scrub=zero .*\(from sluice.cfg\)' '^options: modes=bounce,arena ' \
	'^net: mode=arena sent 20 frames .* received 20 in order, 0 bad, 0 lost'
reject "$BOOT_LOG" 'mode=direct'
echo "hostile options: refused under sim-tdx and sim-snp with the reason; tuning accepted"
