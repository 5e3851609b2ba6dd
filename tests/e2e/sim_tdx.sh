#!/usr/bin/env bash
# The simulated TD (cc=sim-tdx): every private/shared conversion of the kernel runs
# the TDX protocol (arch/x86_64/cc/tdx.c) against the model of the TDX module and the
# VMM (arch/x86_64/cc/tdx_model.c), which stops the kernel naming the rule if the
# protocol breaks one. Block data in every mode is verified on the host as in
# blk_data.sh and the network frames are checked; then the model injects partial
# MapGPA completions, stalls, busy accepts and 4 KiB-only mappings (the protocol
# copes: I/O correct), a host that lies about accepted pages on every conversion
# back (each failed conversion rolled back, the arena leaks and counts the chunk,
# I/O goes on), and MapGPA failures (the kernel stops clearly, no rule broken).
. "$(dirname "$0")/lib.sh"

after='^cc: sim-tdx after the tasks: GPAW 48, shared bit 1<<47, attributes 0x[0-9a-f]+ \(SEPT_VE_DISABLE\)'

cc_data_boot sim_tdx sim-tdx 20261203
expect "$BOOT_LOG" '^cc: sim-tdx at boot: GPAW 48' \
	'^smp: application processors start through the ACPI wakeup mailbox \(MADT version 1\) at 0x[0-9a-f]+ \(the simulated TD plays the firmware.s part\), not INIT-SIPI$' \
	'^smp: cpu 1 \(APIC 1\) online in [0-9.]+ ms$' '^smp: 2 CPUs online$' \
	'^mmu: shared attribute = software bit 9; a conversion = the TDX \(sim-tdx\) protocol' \
	'^cc: sim-tdx at boot: .*, paravirtual I/O tdx \(0 VMM errors\)' \
	"$after.*paravirtual I/O tdx \(0 VMM errors\); MapGPA [1-9][0-9]* .*conversions [1-9][0-9]* to shared, [1-9][0-9]* to private, 0 failed .*, [1-9][0-9]* VMCALLs to the VMM \(0 refused as KVM refuses them\), rule violations 0$"
reject "$BOOT_LOG" 'VIOLATION'
cc_data_verify sim_tdx sim-tdx

# A busy module and a VMM that converts in parts, stalls and maps in 4 KiB pages.
boot_kernel sim_tdx_busy_vmm 0 --args "cc=sim-tdx tdx_fault=partial,stall,busy,4k tdx_fault_every=3 frames=200"
expect "$BOOT_LOG" '^blk: mode=arena read 67108864 bytes .* 0 errors' \
	'^net: mode=arena sent 200 frames .* received 200 in order, 0 bad, 0 lost' \
	"$after.*MapGPA [0-9]+ \([1-9][0-9]* retries\), accepts [0-9]+ \([1-9][0-9]* x 4K, 0 x 2M, [1-9][0-9]* 2M->4K, [1-9][0-9]* busy\).* 0 failed .*rule violations 0$"

# A host that keeps pages accepted while claiming it converted them: each
# conversion back fails, is rolled back to shared, and the arena leaks the chunk.
boot_kernel sim_tdx_lying_host 0 --args "cc=sim-tdx modes=arena tdx_fault=keep_accepted tdx_fault_every=1"
expect "$BOOT_LOG" '^blk: mode=arena read 67108864 bytes .* 0 errors' \
	'^dma: warning: sluice_dma_arena: set_private failed, chunk leaked: 0x[0-9a-f]+ err -5$' \
	'^net: mode=arena sent 1000 frames .* received 1000 in order, 0 bad, 0 lost' \
	"$after.* ([1-9][0-9]*) failed \(\1 rolled back, 0 pages leaked\), .*rule violations 0$"

# MapGPA failing: a chunk that cannot be made shared is refused; the task that
# needed it fails and says so (exit 1), with no rule broken.
boot_kernel sim_tdx_map_errors 1 --args "cc=sim-tdx modes=arena tdx_fault=map_error tdx_fault_every=2"
expect "$BOOT_LOG" '^dma: warning: sluice_dma_arena: set_shared failed on chunk 0x[0-9a-f]+ err -5$' \
	'^sluice: (block|network) task failed'
reject "$BOOT_LOG" 'VIOLATION'
echo "sim-tdx: data verified, faults absorbed or reported, no rule of the TD broken"

# The #VE guard: vector 20 runs on its own stack, asks the TDX module (here the
# model) what happened before anything else, reports it, and the kernel stops with
# the exception report (exit 3); nothing is emulated.
boot_kernel sim_tdx_ve 3 --args "cc=sim-tdx blk=none frames=0 fault=ve"
expect "$BOOT_LOG" '^fault: raising #VE \(vector 20\); the simulated TD reports an I/O instruction' \
	'^#VE: TDG.VP.VEINFO.GET: exit reason 30 \(I/O instruction\), qualification 0x3f80000, GPA 0x0, GLA 0x0, instruction length 1, rip 0x[0-9a-f]+$' \
	'^\*\*\* EXCEPTION 20 #VE virtualization exception on cpu 0'
echo "sim-tdx: the #VE guard reported the module's account and stopped the kernel"

# Firmware APs that never take the mailbox's wakeup command: reported and skipped
# at the deadline, the kernel goes on with one CPU.
boot_kernel sim_tdx_ap_silent 0 --args "cc=sim-tdx tdx_fault=ap_silent blk=none frames=50"
expect "$BOOT_LOG" '^smp: cpu 1 \(APIC 1\) did not take the mailbox.s wakeup command within 1000 ms; skipped, its start-up page left as it needs it, and no AP after it is started$' \
	'^smp: 1 CPU online$' '^net: mode=arena sent 50 frames .* received 50 in order, 0 bad, 0 lost'
echo "sim-tdx: an AP that never takes the wakeup command is reported and skipped"

# A VMM that runs the AP only after the kernel gave up on it (Linux waits for
# ever for this reason, acpi_wakeup_cpu()): the late AP finds its start-up page
# still executable and its parameter block intact, comes up on its own stack
# and halts; the run completes (a non-executable page would triple-fault it and
# end the VM).
boot_kernel sim_tdx_ap_late 0 --args "cc=sim-tdx tdx_fault=ap_late blk=none frames=50"
expect "$BOOT_LOG" '^smp: cpu 1 \(APIC 1\) did not take the mailbox.s wakeup command within 1000 ms; skipped, its start-up page left as it needs it, and no AP after it is started$' \
	'^smp: 1 CPU online$' '^net: mode=arena sent 50 frames .* received 50 in order, 0 bad, 0 lost' \
	'^smp: APIC 1, given up on at start-up, arrived later and halted \(not used\)$'
echo "sim-tdx: an AP woken after the deadline comes up harmlessly"
