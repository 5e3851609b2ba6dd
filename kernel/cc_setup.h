/* SPDX-License-Identifier: MIT */
/*
 * cc_setup.h - which confidential-computing platform the kernel runs on (cc=),
 * and bringing it up at the right moments of the boot.
 *
 *  - a real TD (CPUID leaf 0x21 said so before ExitBootServices): the TD is
 *    started first thing in kernel_main (cc_setup_early()), before any port
 *    I/O, CPUID or MSR access, since the firmware's #VE handler is gone; its
 *    page tables carry the shared bit (cc_setup_encoding());
 *  - an SEV-SNP guest, real (SEV_STATUS said so before ExitBootServices) or
 *    simulated (cc=sim-snp, the model playing firmware, hardware and
 *    hypervisor): started first thing in kernel_main (cc_setup_early()) with
 *    the GHCB MSR protocol only (the firmware's GHCB is never used), its own
 *    GHCBs made shared and registered right after mmu_init()
 *    (cc_setup_after_mmu()), which runs right after CPU detection; the rest
 *    in cc_setup();
 *    a real guest's page tables carry the C-bit (cc_setup_encoding());
 *    cc_setup.c describes the window between the firmware's GHCB and ours;
 *  - cc=sim-tdx: the simulated TD, started once the kernel's page tables are
 *    loaded (cc_setup());
 *  - otherwise the emulated model: a software PTE bit plus a trapping port write.
 */
#ifndef SLUICE_BOOT_CC_SETUP_H
#define SLUICE_BOOT_CC_SETUP_H

#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/mm/mmu.h"
#include "boot/boot_info.h"

/**
 * cc_setup_early() - in a real TD, start the TD (cc_tdx_start() on the real
 *	TDX module); in an SEV-SNP guest, real or cc=sim-snp, start the guest on
 *	the GHCB MSR protocol (cc_snp_early()): until cc_setup_after_mmu() only
 *	CPUID and SEV_STATUS work, nothing prints. Anything else waits for
 *	cc_setup().
 *	A TD that cannot be started, or an option that cannot run in a TD
 *	(cc=emulated, cc=sim-tdx), ends the TD through
 *	TDG.VP.VMCALL<ReportFatalError>; an SNP guest that cannot run (no or a bad
 *	CC blob, below VMPL0, unknown SEV_STATUS
 *	features, a cc= option other than auto) ends with a termination request
 *	of the GHCB MSR protocol and a GHCB_TERM_SLUICE_* reason
 *	(arch/x86_64/cc/snp_boot.h). Before any port I/O, CPUID or MSR access; the
 *	heap must be set (cc=sim-snp allocates its model).
 * @bi: the boot hand-off (cc_at_boot, options).
 */
void cc_setup_early(const struct boot_info *bi);

/**
 * cc_setup_encoding() - the page-table encoding of "shared" for mmu_init().
 * Return: the TD's shared bit in a real TD,
 * the C-bit in a real SEV-SNP guest, NULL (the emulated software bit)
 * otherwise.
 */
const struct mmu_encoding *cc_setup_encoding(void);

/**
 * cc_setup_after_mmu() - right after mmu_init() returned 0, before anything
 *	prints or does port I/O (the TSC calibration waits for it): in an SNP
 *	guest (real or simulated), map the GHCB pages shared in the new tables
 *	and register this CPU's own (cc_snp_after_mmu()); a failure ends the
 *	guest. Nothing elsewhere.
 */
void cc_setup_after_mmu(void);

/**
 * cc_setup() - after mmu_init(): report the firmware's unaccepted memory, start
 *	the simulated TD for cc=sim-tdx, finish an SNP guest's start
 *	(cc_snp_finish()), and report the platform. Exits (code 4)
 *	if the platform cannot be brought up.
 * @bi: the boot hand-off.
 * @cpu: what CPUID says (a TD found only now is refused).
 */
void cc_setup(const struct boot_info *bi, const struct cpu_info *cpu);

/**
 * cc_setup_arm_faults() - start the injected faults of tdx_fault= or snp_fault=
 *	(after the DMA self-test, so that they hit the tasks). Nothing outside
 *	cc=sim-tdx and cc=sim-snp.
 */
void cc_setup_arm_faults(void);

/**
 * cc_setup_report() - the platform's counters, e.g. "after the tasks" (nothing
 *	on the emulated platform).
 * @when: what they cover.
 */
void cc_setup_report(const char *when);

/**
 * cc_setup_name() - the platform for reports and the benchmark JSON: "tdx",
 *	"snp", "sim-tdx", "sim-snp" or "emulated".
 */
const char *cc_setup_name(void);

#endif /* SLUICE_BOOT_CC_SETUP_H */
