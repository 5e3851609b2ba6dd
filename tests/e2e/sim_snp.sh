#!/usr/bin/env bash
# The simulated SEV-SNP guest (cc=sim-snp): every private/shared conversion of the
# kernel runs the SNP protocol (arch/x86_64/cc/snp.c) against the model of the RMP and
# the hypervisor (arch/x86_64/cc/snp_model.c), which stops the kernel naming the rule if
# the protocol breaks one; every port access, MMIO register, MSR and HLT is a GHCB
# NAE event on the calling CPU's own GHCB (from kernel entry to the bootstrap CPU's
# registration right after mmu_init only the MSR protocol runs: the firmware's GHCB is
# never used, which the model's project rule R11 enforces, and the kernel counts the
# requests that would have needed a GHCB: 0); the AP is started by the AP-creation
# request from a VMSA. Block data in every mode is verified on the host as in
# blk_data.sh and the network frames are checked; then the hypervisor returns PSCs
# early and splits 2 MiB RMP entries (absorbed: I/O correct), lies with CF = 1 on
# PVALIDATE (detected: each conversion back fails and is rolled back, the arena leaks
# the chunk), refuses PSCs (the task fails clearly, no rule broken), and never runs
# an AP it was asked to create (reported and skipped); the #VC guard reports and ends.
. "$(dirname "$0")/lib.sh"

params='SEV_STATUS 0x7, C-bit 51, '
after="^cc: sim-snp after the tasks: $params"

cc_data_boot sim_snp sim-snp 20261204
expect "$BOOT_LOG" \
	'^cc: sim-snp boot: GHCB protocol version 2, hypervisor features 0x3; VMPL0 \(RMPADJUST for VMPL1 allowed\); CPUID page from the CC blob \([1-9][0-9]* leaves\); 16 GHCB pages of ours made shared at kernel entry \(MSR protocol\), mapped shared and the bootstrap CPU.s registered right after mmu_init$' \
	'^cc: sim-snp: firmware GHCB: never used \(the GHCB MSR held 0x[0-9a-f]+ at kernel entry; private in our page tables\); kernel entry to our GHCB: CPUID from the CPUID page with [1-9][0-9]* MSR-protocol CPUID requests, 0 requests needing a GHCB$' \
	"^cc: sim-snp at boot: ${params}1 GHCB registered \(one per CPU\), paravirtual I/O snp \(0 hypervisor errors, 0 CPUID misses, 0 nested\), APs created 0 .*PSC 16 requests \(16 MSR, 0 batches.*, rescinded 16 .*conversions 16 to shared, .*rule violations 0$" \
	'^mmu: shared attribute = software bit 9; a conversion = the SNP \(sim-snp\) protocol' \
	'^smp: application processors start through SNP AP creation \(a VMSA per AP\), not INIT-SIPI \(the simulated hypervisor releases APs it parked\)$' \
	'^smp: cpu 1 \(APIC 1\) online in [0-9.]+ ms$' '^smp: 2 CPUs online$' \
	"${after}2 GHCBs registered \(one per CPU\), paravirtual I/O snp \(0 hypervisor errors, 0 CPUID misses, [0-9]+ nested\), APs created 1 \(0 destroyed\); PSC [1-9][0-9]* requests \([0-9]+ MSR, [1-9][0-9]* batches, 0 early returns\), pages validated ([1-9][0-9]*) \(\1 evicted from the cache after it\), rescinded [1-9][0-9]* \([1-9][0-9]* x 2M, [0-9]+ 2M->4K\), conversions [1-9][0-9]* to shared, [1-9][0-9]* to private, 0 failed \(0 rolled back, 0 pages leaked\), model over [0-9]+ MiB, [1-9][0-9]* VMGEXITs to the simulated hypervisor .*, [1-9][0-9]* RMPADJUST, rule violations 0$" \
	"${after}.*MSR-protocol PSC, 0 refused as KVM refuses them\), "
reject "$BOOT_LOG" 'VIOLATION' 'EXCEPTION'
cc_data_verify sim_snp sim-snp
echo "sim-snp: data verified in every mode, 2 CPUs online through AP creation, no rule broken"

# A hypervisor that returns every PSC early and splits every 2 MiB RMP entry behind
# the guest's back (from the DMA layer's set-up on): the protocol absorbs both (no
# 2 MiB PVALIDATE succeeds, where the run above has some).
boot_kernel sim_snp_early 0 --args "cc=sim-snp snp_fault=early_return,size_mismatch snp_fault_every=1 frames=200"
expect "$BOOT_LOG" '^blk: mode=arena read 67108864 bytes .* 0 errors' \
	'^net: mode=arena sent 200 frames .* received 200 in order, 0 bad, 0 lost' \
	"${after}.*\([0-9]+ MSR, [1-9][0-9]* batches, [1-9][0-9]* early returns\), .* \(0 x 2M, [1-9][0-9]* 2M->4K\), .* 0 failed \(0 rolled back, 0 pages leaked\), .*rule violations 0$"
reject "$BOOT_LOG" 'VIOLATION'

# A host that answers PVALIDATE with CF = 1 (nothing changed) on every call: each
# conversion back to private is caught, rolled back to shared, and the arena leaks
# (and counts) the chunk; the block task's I/O is unaffected.
boot_kernel sim_snp_lying_host 0 --args "cc=sim-snp modes=arena snp_fault=cf snp_fault_every=1 frames=0"
expect "$BOOT_LOG" '^blk: mode=arena read 67108864 bytes .* 0 errors' \
	'^dma: warning: sluice_dma_arena: set_private failed, chunk leaked: 0x[0-9a-f]+ err -5$' \
	"${after}.* ([1-9][0-9]*) failed \(\1 rolled back, 0 pages leaked\), .*rule violations 0$"

# PSCs refused: a chunk that cannot be made shared is refused (the failed PSC
# rolled back); the task that needed it fails and says so (exit 1), no rule broken.
boot_kernel sim_snp_psc_errors 1 --args "cc=sim-snp modes=arena snp_fault=psc_error snp_fault_every=2"
expect "$BOOT_LOG" '^dma: warning: sluice_dma_arena: set_shared failed on chunk 0x[0-9a-f]+ err -5$' \
	'^sluice: (block|network) task failed'
reject "$BOOT_LOG" 'VIOLATION'
echo "sim-snp: faults absorbed, the lying host caught, PSC failures reported; no rule broken"

# What the guest refuses at kernel entry, before any I/O, with a termination
# request of the GHCB MSR protocol (set 1 = Sluice, arch/x86_64/cc/snp_boot.h): a
# guest below VMPL0 (code 8), no CC blob in the EFI configuration table (code 6), a
# CPUID page whose count overflows it (code 7). The simulated hypervisor ends the
# guest (exit 4); nothing of the kernel's boot report was printed.
for f in vmpl1:8:'below VMPL0' no_cc_blob:6:'no CC blob' bad_cc_blob:7:'CPUID page count 65'; do
	IFS=: read -r fault code why <<<"$f"
	boot_kernel "sim_snp_$fault" 4 --args "cc=sim-snp snp_fault=$fault"
	expect "$BOOT_LOG" "^sim-snp: the guest's reason \(a real guest cannot print it here\): snp: .*$why" \
		"^sim-snp: the guest asked to be terminated \(reason set 1, code $code\)$"
	reject "$BOOT_LOG" '^Sluice ' 'VIOLATION'
done
echo "sim-snp: below VMPL0, no CC blob and a bad CPUID page refused at kernel entry"

# The #VC guard: vector 29 on its own stack, the exit code from the error code and
# the RIP reported through pvio, then the exception report and the end (exit 3).
boot_kernel sim_snp_vc 3 --args "cc=sim-snp blk=none frames=0 fault=vc"
expect "$BOOT_LOG" '^fault: raising #VC \(vector 29\) for an I/O instruction \(exit code 0x7b\)$' \
	'^#VC: exit code 0x7b \(IOIO\), rip 0x[0-9a-f]+$' \
	'^\*\*\* EXCEPTION 29 #VC VMM communication on cpu 0'
echo "sim-snp: the #VC guard reported the exit code and stopped the kernel"

# A hypervisor that accepts the AP-creation request and never runs the AP: reported,
# destroyed and skipped at the deadline; the kernel goes on with one CPU.
boot_kernel sim_snp_ap_silent 0 --args "cc=sim-snp snp_fault=ap_silent blk=none frames=50"
expect "$BOOT_LOG" '^smp: cpu 1 \(APIC 1\) did not report in within 1000 ms of SNP AP creation \(a VMSA per AP\); destroyed, skipped$' \
	'^smp: 1 CPU online$' '^net: mode=arena sent 50 frames .* received 50 in order, 0 bad, 0 lost' \
	"${after}1 GHCB registered .*APs created 1 \(1 destroyed\)"
echo "sim-snp: an AP that never runs is reported, destroyed and skipped"
