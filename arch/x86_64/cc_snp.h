/* SPDX-License-Identifier: MIT */
/*
 * cc_snp.h - this kernel as an AMD SEV-SNP guest: the SNP protocol (snp.c,
 * ghcb.c, pvio_snp.c) wired into the kernel, the same way in a real SNP guest
 * and in the simulated one (cc_sim_snp.c), as cc_tdx.h does for a TD.
 *
 * Once started, the guest owns four things of the kernel:
 *  - one GHCB page per CPU (a static, page-aligned array), made shared
 *    (PVALIDATE rescind, Page State Change through the MSR protocol, C-bit
 *    cleared in our page tables) and registered (GHCB MSR protocol 0x012) by
 *    the CPU that uses it: the bootstrap CPU in cc_snp_start(), every AP in the
 *    start-up hook smp.c calls before its first paravirtual I/O;
 *  - paravirtual I/O: the SNP backend (pvio_snp.c) on the calling CPU's GHCB:
 *    port I/O, MMIO, MSRs and HLT are NAE events, CPUID comes from the SNP
 *    CPUID page;
 *  - conversions: mmu_set_shared() runs snp_to_shared() / snp_to_private()
 *    under one lock, whose page-table half is the kernel's
 *    (mmu_pte_set_shared(), mmu_tlb_shootdown(), the cache flush of the
 *    instruction layer);
 *  - the #VC guard (vector 29, IST3): the exit code from the error code and
 *    the RIP, through pvio, then the end of the guest through the MSR
 *    protocol's termination request;
 *  - the APs: created with a VMSA each and the AP-creation NAE event
 *    (smp_set_ap_ops()); INIT-SIPI is not used.
 * In a real SNP guest the page tables carry the C-bit (cc_snp_encoding(), for
 * mmu_init()); the simulated guest keeps the software bit.
 */
#ifndef SLUICE_ARCH_CC_SNP_H
#define SLUICE_ARCH_CC_SNP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/x86_64/mmu.h"
#include "arch/x86_64/pvio_snp.h"
#include "arch/x86_64/snp.h"
#include "arch/x86_64/tee_insn.h"

/**
 * struct cc_snp_observer - told about each page-table step of a conversion,
 *	after the kernel did it (the simulated guest's RMP model checks R5 there).
 * @ptes: the mappings of [@gpa, @gpa + @len) now carry the C-bit iff @private_.
 * @flush: every CPU's TLB has been told to drop the range.
 * @ctx: handed to each.
 */
struct cc_snp_observer {
	void (*ptes)(void *ctx, uint64_t gpa, uint64_t len, bool private_);
	void (*flush)(void *ctx, uint64_t gpa, uint64_t len);
	void *ctx;
};

/**
 * cc_snp_start() - become an SNP guest through @insn, on the bootstrap CPU,
 *	after mmu_init() (the GHCB's C-bit is cleared in our page tables).
 * @insn: the hardware (&tee_insn_native) or the simulated guest's model.
 * @observer: NULL in a real guest.
 * @name: the platform, for reports and the benchmark JSON ("snp", "sim-snp").
 * @sev_status: SEV_STATUS as read before ExitBootServices (or the model's).
 * @cpuid: the SNP CPUID page (kept by pointer): leaf 0x8000001F gives the
 *	C-bit, and every later CPUID is answered from it.
 * @why: on failure, the reason.
 * @why_len: its size.
 *
 * snp_init() (refuses unknown SEV_STATUS features and a bad C-bit), this CPU's
 * GHCB (shared, registered), the SNP paravirtual I/O backend, conversions
 * through the protocol, the #VC guard, AP creation. Before smp_init().
 * Return: 0, or a negative SNP_ERR_* code with @why set (nothing routed).
 */
int cc_snp_start(const struct tee_insn_ops *insn, const struct cc_snp_observer *observer,
		 const char *name, uint64_t sev_status, const struct snp_cpuid_page *cpuid,
		 char *why, size_t why_len);

/**
 * cc_snp_active() - whether cc_snp_start() succeeded.
 */
bool cc_snp_active(void);

/**
 * cc_snp_encoding() - how a real SNP guest's page tables say "shared": the
 *	C-bit clear (set in private leaves, table pointers and CR3), for mmu_init().
 * @cbit_pos: the C-bit position (CPUID 0x8000001F EBX[5:0], read before
 *	ExitBootServices).
 * @enc: filled in (its name points into static storage).
 */
void cc_snp_encoding(unsigned int cbit_pos, struct mmu_encoding *enc);

/**
 * cc_snp_guest() - the protocol state (C-bit, SEV_STATUS, counters).
 */
const struct snp *cc_snp_guest(void);

/**
 * cc_snp_stats() - the protocol's counters, consistent with one another.
 * @out: filled in.
 */
void cc_snp_stats(struct snp_stats *out);

/**
 * cc_snp_report() - one line: the guest's parameters, the paravirtual I/O
 *	backend, the GHCBs, the APs created and the protocol's counters.
 * @when: what the counters cover, e.g. "at boot" or "after the tasks".
 * @extra: appended after a comma (the simulated guest's model), or NULL.
 */
void cc_snp_report(const char *when, const char *extra);

#endif /* SLUICE_ARCH_CC_SNP_H */
