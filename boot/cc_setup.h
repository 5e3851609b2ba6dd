/* SPDX-License-Identifier: MIT */
/*
 * cc_setup.h - which confidential-computing platform the kernel runs on (cc=),
 * and bringing it up at the right moments of the boot.
 *
 *  - a real TD (CPUID leaf 0x21 said so before ExitBootServices): the TD is
 *    started first thing in kernel_main (cc_setup_early()), before any port
 *    I/O, CPUID or MSR access, since the firmware's #VE handler is gone; its
 *    page tables carry the shared bit (cc_setup_encoding());
 *  - a real SEV-SNP guest (SEV_STATUS said so before ExitBootServices): checked
 *    and ended through the GHCB MSR protocol in cc_setup_early(), since its
 *    GHCB cannot exist yet before the first port I/O (cc_setup.c says what a
 *    real SNP boot still needs);
 *  - cc=sim-tdx: the simulated TD, started once the kernel's page tables are
 *    loaded (cc_setup());
 *  - cc=sim-snp: the simulated SEV-SNP guest, likewise;
 *  - otherwise the emulated model: a software PTE bit plus a trapping port write.
 */
#ifndef SLUICE_BOOT_CC_SETUP_H
#define SLUICE_BOOT_CC_SETUP_H

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/mmu.h"
#include "boot/boot_info.h"

/**
 * cc_setup_early() - in a real TD, start the TD (cc_tdx_start() on the real
 *	TDX module). Anything else waits for cc_setup(). A TD that cannot be
 *	started, or an option that cannot run in a TD (cc=emulated, cc=sim-tdx),
 *	ends the TD through TDG.VP.VMCALL<ReportFatalError>: the serial console
 *	cannot be reached without it.
 * @bi: the boot hand-off (cc_at_boot, options).
 */
void cc_setup_early(const struct boot_info *bi);

/**
 * cc_setup_encoding() - the page-table encoding of "shared" for mmu_init().
 * Return: the TD's shared bit in a real TD, NULL (the emulated software bit)
 * otherwise.
 */
const struct mmu_encoding *cc_setup_encoding(void);

/**
 * cc_setup() - after mmu_init(): report the firmware's unaccepted memory, start
 *	the simulated TD for cc=sim-tdx or the simulated SNP guest for cc=sim-snp,
 *	and report the platform. Exits (code 4)
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
 *	"sim-tdx", "sim-snp" or "emulated".
 */
const char *cc_setup_name(void);

#endif /* SLUICE_BOOT_CC_SETUP_H */
