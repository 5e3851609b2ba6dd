/* SPDX-License-Identifier: MIT */
/*
 * cc_setup.h - the confidential-computing platform at the boot's moments.
 *
 * The platform is chosen once, at kernel entry, from what CPUID found before
 * ExitBootServices and the cc= option (cc_platform_select(),
 * arch/x86_64/cc/cc.h), and each function below calls its op: a real TD or
 * SEV-SNP guest starts in cc_setup_early(), before any port I/O, CPUID or MSR
 * access, with its page tables carrying the shared bit or C-bit
 * (cc_setup_encoding()); an SNP guest (real or cc=sim-snp) speaks only the
 * GHCB MSR protocol until its own GHCBs are made shared and registered right
 * after mmu_init() (cc_setup_after_mmu(), which runs right after CPU
 * detection; the firmware's GHCB is never used); the simulated TD starts in
 * cc_setup(); the emulated model (a software PTE bit plus a trapping port
 * write) needs none of them. The platforms and their order of steps are
 * described in arch/x86_64/cc/cc.h; nothing here names one.
 */
#ifndef SLUICE_BOOT_CC_SETUP_H
#define SLUICE_BOOT_CC_SETUP_H

#include "arch/x86_64/cc/cc.h"
#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/mm/mmu.h"
#include "boot/boot_info.h"

/**
 * cc_setup_early() - choose the platform (cc_platform_select()) and run its
 *	early op: in a real TD, start the TD (cc_tdx_start() on the real TDX
 *	module); in an SEV-SNP guest, real or cc=sim-snp, start the guest on the
 *	GHCB MSR protocol (cc_snp_boot()): until cc_setup_after_mmu() only CPUID
 *	and SEV_STATUS work, nothing prints. Anything else waits for cc_setup().
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
 * cc_setup() - after mmu_init(): report the firmware's unaccepted memory, run
 *	the platform's start op (the simulated TD for cc=sim-tdx, the end of an
 *	SNP guest's start, the report "at boot"), route every later conversion
 *	through its convert op (mmu_set_cc_backend()), and its ap_setup op (how
 *	APs start). Exits (code 4) if the platform cannot be brought up.
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
