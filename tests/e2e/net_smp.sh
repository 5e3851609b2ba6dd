#!/usr/bin/env bash
# Network I/O on two CPUs at once, in every DMA mode. First on QEMU's hub, whose
# NICs have one queue pair: both CPUs share it under its lock. Then on two
# multiqueue tap devices bridged by the host (run-qemu.sh --net-tap): each NIC
# offers a pair per CPU, the driver turns both on through the control queue, and
# each CPU sends and receives on its own pair. Every frame of every sender must
# arrive intact exactly once.
. "$(dirname "$0")/lib.sh"

frames=1000
modes=$E2E_CONFIGS

check_net_smp() {
	local name=$1 pairs=$2
	shift 2
	boot_kernel "$name" 0 --smp 2 "$@" --args "blk=none net=smp frames=$frames"
	expect "$BOOT_LOG" '^smp: 2 CPUs online$'
	for mode in $modes; do
		expect "$BOOT_LOG" \
			"^net: mode=$mode .*, $pairs\\+$pairs queue pairs?, links up 2/2" \
			"^net-smp: mode=$mode cpu 0 sent $frames frames on tx pair 0, received [0-9]+ on rx pair 0 \\(0 bad, 0 duplicates" \
			"^net-smp: mode=$mode cpu 1 sent $frames frames on tx pair $((pairs - 1)), received [0-9]+ on rx pair $((pairs - 1)) \\(0 bad, 0 duplicates" \
			"^net-smp: mode=$mode 2 CPUs at once, $pairs\\+$pairs queue pairs?: $((2 * frames)) of $((2 * frames)) frames arrived intact, 0 bad, 0 duplicates, 0 lost, .*: all correct" \
			"^net: mode=$mode rx: 0 bad lengths, 0 bad headers, 0 dropped"
	done
	reject "$BOOT_LOG" 'FAILED|send failed'
}

check_net_smp net_smp_shared_pair 1
# The taps need root, /dev/net/tun and iproute2 (scripts/probe.sh tap); where the
# machine cannot make them, that half is reported as not run.
if "$E2E_TOP/scripts/probe.sh" tap >"$E2E_LOGDIR/net_smp.tap-probe"; then
	check_net_smp net_smp_multiqueue 2 --net-tap
	echo "two CPUs sent and received at once in every mode, on a shared pair and on their own"
else
	echo "two CPUs sent and received at once in every mode, on a shared pair"
	echo "not run: the multiqueue half (run-qemu.sh --net-tap): $(sed 's/^probe: tap: //' \
		"$E2E_LOGDIR/net_smp.tap-probe")"
fi
