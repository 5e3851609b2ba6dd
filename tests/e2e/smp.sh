#!/usr/bin/env bash
# Application processors: the kernel starts every CPU QEMU gives it, runs work on
# them, and an exception on one of them is reported with that CPU's number.
. "$(dirname "$0")/lib.sh"

boot_kernel smp_four 0 --smp 4 --args "blk=none frames=0"
expect "$BOOT_LOG" \
	'^smp: MADT lists 4 processors \(0 not usable\), local APIC in x?APIC mode' \
	'^smp: cpu 1 \(APIC 1\) online in [0-9.]+ ms$' \
	'^smp: cpu 3 \(APIC 3\) online in [0-9.]+ ms$' \
	'^smp: 4 CPUs online$' \
	'^dma: built for 4 CPUs'

# cpus=1 keeps the others parked even when QEMU has two.
boot_kernel smp_limited 0 --smp 2 --args "blk=none frames=0 cpus=1"
expect "$BOOT_LOG" '^smp: MADT lists 2 processors' '^dma: built for 1 CPU '
reject "$BOOT_LOG" '^smp: cpu 1 '

# A page fault on CPU 1 names CPU 1 and ends the run with status 3.
boot_kernel smp_fault 3 --smp 2 --args "blk=none frames=0 fault=pf fault_cpu=1"
expect "$BOOT_LOG" \
	"^fault: triggering 'pf' on cpu 1" \
	'^\*\*\* EXCEPTION 14 #PF page fault on cpu 1$' \
	'^cr2=0x00007f0000000000 ' \
	'^sluice: exiting with status 3 \(exception\)$'

# Asking for a CPU that is not there is an error, not a hang.
boot_kernel smp_fault_missing_cpu 1 --smp 2 --args "blk=none frames=0 fault=ud fault_cpu=5"
expect "$BOOT_LOG" '^fault: fault_cpu=5 but only 2 CPUs are online$'
