/* SPDX-License-Identifier: MIT */
/*
 * cc_snp.h - this kernel as an AMD SEV-SNP guest: the SNP protocol (snp.c,
 * ghcb.c, pvio_snp.c) wired into the kernel, the same way in a real SNP guest
 * and in the simulated one (cc_sim_snp.c), as cc_tdx.h does for a TD.
 *
 * It starts in three steps (cc_snp_early() at kernel entry, cc_snp_after_mmu()
 * right after mmu_init(), cc_snp_finish() in cc_setup()); then the guest owns
 * these things of the kernel:
 *  - one GHCB page per CPU (a static, page-aligned array), made shared
 *    (PVALIDATE rescind and Page State Change through the MSR protocol at
 *    kernel entry, C-bit cleared in our page tables right after mmu_init())
 *    and registered (GHCB MSR protocol 0x012) by the CPU that uses it: the
 *    bootstrap CPU in cc_snp_after_mmu(), every AP in the start-up hook smp.c
 *    calls before its first paravirtual I/O. Until then the bootstrap CPU has
 *    no GHCB: only the MSR protocol (CPUID post-processing, PSC, registration,
 *    termination). The GHCB the firmware left registered is never used, as in
 *    Linux (snp_model.h R11 holds the simulated guest to it);
 *  - paravirtual I/O: the SNP backend (pvio_snp.c) on the calling CPU's GHCB:
 *    port I/O, MMIO, MSRs and HLT are NAE events, CPUID comes from the SNP
 *    CPUID page;
 *  - conversions: mmu_set_shared() runs snp_to_shared() / snp_to_private()
 *    under one lock, whose page-table half is the kernel's (cc_glue.c, shared
 *    with the TD guest);
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

#include "arch/x86_64/cc/cc_glue.h"
#include "arch/x86_64/mm/mmu.h"
#include "arch/x86_64/cc/pvio_snp.h"
#include "arch/x86_64/cc/snp.h"
#include "arch/x86_64/cc/tee_insn.h"

/**
 * cc_snp_early() - become an SNP guest through @insn, on the bootstrap CPU, at
 *	kernel entry: before any port I/O, MSR access or CPUID (each would raise
 *	a #VC, and this kernel's IDT replaces the firmware's #VC handler next).
 * @insn: the hardware (&tee_insn_native) or the simulated guest's model.
 * @observer: told of each page-table step of a conversion (the simulated
 *	guest's model); NULL in a real guest.
 * @name: the platform, for reports and the benchmark JSON ("snp", "sim-snp").
 * @sev_status: SEV_STATUS as read before ExitBootServices (or the model's).
 * @cpuid: the SNP CPUID page, checked (snp_cc_blob_check()) and kept by
 *	pointer: leaf 0x8000001F gives the C-bit, every later CPUID is answered
 *	from it.
 * @term_set: on failure, the GHCB_TERM_SET_* of the termination request.
 * @term_code: on failure, its reason code.
 * @why: on failure, the reason.
 * @why_len: its size.
 *
 * In order: snp_init() (refuses unknown SEV_STATUS features and a bad C-bit);
 * snp_check_vmpl0(); the GHCB MSR read (the firmware's GHCB, for the report
 * only); snp_negotiate(); the SNP paravirtual I/O backend selected without a
 * GHCB (CPUID from the page, post-processed through the MSR protocol;
 * SEV_STATUS as snp_init() took it; anything else needing a GHCB is refused
 * and counted, the console prints nothing); every per-CPU GHCB page of ours
 * rescinded and made shared in the RMP through the MSR protocol, still mapped
 * private by the firmware's tables and never touched until
 * cc_snp_after_mmu(). The kernel detects the CPU and builds its page tables
 * next, then calls cc_snp_after_mmu().
 * Return: 0, or a negative SNP_ERR_* code with @term_set, @term_code and @why
 *	set (the caller terminates the guest).
 */
int cc_snp_early(const struct tee_insn_ops *insn, const struct cc_observer *observer,
		 const char *name, uint64_t sev_status, const struct snp_cpuid_page *cpuid,
		 unsigned int *term_set, unsigned int *term_code, char *why, size_t why_len);

/**
 * cc_snp_console_up() - whether output through the SNP backend works now:
 *	after cc_snp_after_mmu() registered this kernel's first GHCB.
 */
bool cc_snp_console_up(void);

/**
 * cc_snp_after_mmu() - right after mmu_init() switched to this kernel's page
 *	tables, before anything prints: clear the C-bit of every GHCB page of
 *	ours in the new tables (TLB flushed), then register the bootstrap CPU's
 *	own GHCB (MSR protocol) and use per-CPU GHCBs from then on; the backend's
 *	counts of the window before (MSR-protocol CPUIDs, requests that needed a
 *	GHCB) are kept for cc_snp_finish()'s report. The firmware's GHCB is left
 *	mapped private (never made shared in our tables: the host chose its
 *	address).
 * @why: on failure, the reason.
 * @why_len: its size.
 * Return: 0, or a negative code (terminate with GHCB_TERM_SLUICE_GHCB_SETUP).
 */
int cc_snp_after_mmu(char *why, size_t why_len);

/**
 * cc_snp_finish() - the rest, in cc_setup(): conversions through the protocol
 *	(mmu_set_cc_backend()), the #VC guard, AP creation; prints what the boot
 *	did. Before smp_init().
 */
void cc_snp_finish(void);

/**
 * cc_snp_active() - whether cc_snp_finish() ran.
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
 * cc_snp_stats_get() - the protocol's counters, consistent with one another.
 * @out: filled in.
 */
void cc_snp_stats_get(struct snp_stats *out);

/**
 * cc_snp_report() - one line: the guest's parameters, the paravirtual I/O
 *	backend, the GHCBs, the APs created and the protocol's counters.
 * @when: what the counters cover, e.g. "at boot" or "after the tasks".
 * @extra: appended after a comma (the simulated guest's model), or NULL.
 */
void cc_snp_report(const char *when, const char *extra);

#endif /* SLUICE_ARCH_CC_SNP_H */
