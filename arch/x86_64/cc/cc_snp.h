/* SPDX-License-Identifier: MIT */
/*
 * cc_snp.h - this kernel as an AMD SEV-SNP guest: the SNP protocol (snp.c,
 * ghcb.c, pvio_snp.c) wired into the kernel, the same way in a real SNP guest
 * (cc_platform_snp, cc_snp.c) and in the simulated one (cc_platform_sim_snp,
 * cc_sim_snp.c), as cc_tdx.h does for a TD.
 *
 * It starts in three steps (cc_snp_boot() at kernel entry, cc_snp_after_mmu()
 * right after mmu_init(), cc_snp_finish() in the platform's start op); then
 * the guest owns these things of the kernel:
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
 *  - conversions: mmu_set_shared() calls cc_snp_convert() (the platform's
 *    convert op), which runs snp_to_shared() / snp_to_private() under one
 *    lock; their page-table half is the caller's struct cc_pt_ops: mm/ in a
 *    real guest, mm/ plus the model in the simulated one;
 *  - the #VC guard (vector 29, IST3): the exit code from the error code and
 *    the RIP, through pvio, then the end of the guest through the MSR
 *    protocol's termination request;
 *  - the APs: created with a VMSA each and the AP-creation NAE event
 *    (smp_set_ap_ops(), cc_snp_ap_setup()); INIT-SIPI is not used.
 * In a real SNP guest the page tables carry the C-bit (the platform's
 * pt_encoding op); the simulated guest keeps the software bit.
 */
#ifndef SLUICE_ARCH_CC_SNP_H
#define SLUICE_ARCH_CC_SNP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/x86_64/cc/cc.h"
#include "arch/x86_64/cc/cc_pt.h"
#include "arch/x86_64/cc/pvio_snp.h"
#include "arch/x86_64/cc/snp.h"
#include "arch/x86_64/cc/tee_insn.h"

/**
 * cc_snp_boot() - become an SNP guest through @insn, on the bootstrap CPU, at
 *	kernel entry: before any port I/O, MSR access or CPUID (each would raise
 *	a #VC, and this kernel's IDT replaces the firmware's #VC handler next).
 *	The window it opens is described in cc_snp.c.
 * @b: the boot stage's findings: the CC blob and the CPUID page copied
 *	before ExitBootServices (snp_cc_blob_check(); leaf 0x8000001F gives the
 *	C-bit, every later CPUID is answered from the page, kept by pointer),
 *	the memory map.
 * @insn: the hardware (&tee_insn_native) or the simulated guest's model.
 * @pt: the page-table half of a conversion (copied).
 * @name: the platform, for reports ("snp", "sim-snp"; kept by pointer).
 * @sev_status: SEV_STATUS as read before ExitBootServices (or the model's).
 * @host_puts: where the reason goes when the guest cannot print it (the
 *	simulated hypervisor's console), or NULL.
 *
 * In order: the CC blob; snp_init() (refuses unknown SEV_STATUS features and
 * a bad C-bit); snp_check_vmpl0(); the GHCB MSR read (the firmware's GHCB,
 * for the report only); snp_negotiate(); the SNP paravirtual I/O backend
 * selected without a GHCB (CPUID from the page, post-processed through the
 * MSR protocol; SEV_STATUS as snp_init() took it; anything else needing a
 * GHCB is refused and counted, the console prints nothing); every per-CPU
 * GHCB page of ours rescinded and made shared in the RMP through the MSR
 * protocol, still mapped private by the firmware's tables and never touched
 * until cc_snp_after_mmu(). The kernel detects the CPU and builds its page
 * tables next, then calls cc_snp_after_mmu(). A failure ends the guest with
 * a termination request (GHCB MSR protocol) and a GHCB_TERM_* reason; never
 * returns then.
 */
void cc_snp_boot(const struct cc_boot *b, const struct tee_insn_ops *insn,
		 const struct cc_pt_ops *pt, const char *name, uint64_t sev_status,
		 void (*host_puts)(const char *s));

/**
 * cc_snp_after_mmu() - right after mmu_init() switched to this kernel's page
 *	tables, before anything prints (a platform's after_mmu op): clear the
 *	C-bit of every GHCB page of ours in the new tables (TLB flushed), then
 *	register the bootstrap CPU's own GHCB (MSR protocol) and use per-CPU
 *	GHCBs from then on; the backend's counts of the window before
 *	(MSR-protocol CPUIDs, requests that needed a GHCB) are kept for
 *	cc_snp_finish()'s report. The firmware's GHCB is left mapped private
 *	(never made shared in our tables: the host chose its address). A
 *	failure ends the guest (GHCB_TERM_SLUICE_GHCB_SETUP).
 */
void cc_snp_after_mmu(void);

/**
 * cc_snp_finish() - the #VC guard; prints what the boot did. In the
 *	platform's start op, before smp_init().
 */
void cc_snp_finish(void);

/**
 * cc_snp_ap_setup() - APs through the AP-creation NAE event with a VMSA each
 *	(smp_set_ap_ops()) when the hypervisor offers it, none otherwise.
 */
void cc_snp_ap_setup(void);

/**
 * cc_snp_convert() - the guest's conversion (a platform's convert op):
 *	snp_to_shared() or snp_to_private() under the protocol's lock.
 * @ctx: unused.
 * @va: start (identity-mapped: also the GPA).
 * @len: bytes.
 * @shared: the wanted state.
 * Return: as snp_to_shared() / snp_to_private().
 */
int cc_snp_convert(void *ctx, uint64_t va, uint64_t len, bool shared);

/**
 * cc_snp_evict_cache() - the cache-coherency mitigation after PVALIDATE, for
 *	cc_pt_ops.evict_cache: one read of the first and the last byte of each
 *	of @npages pages from @gpa through its private mapping.
 * @ctx: unused.
 * @gpa: start.
 * @npages: 4 KiB pages.
 */
void cc_snp_evict_cache(void *ctx, uint64_t gpa, uint64_t npages);

/**
 * cc_snp_guest() - the protocol state (C-bit, SEV_STATUS, counters).
 */
const struct snp *cc_snp_guest(void);

/**
 * cc_snp_stats() - the protocol's counters, consistent with one another (a
 *	platform's stats op).
 * @out: filled in.
 */
void cc_snp_stats(struct cc_stats *out);

/**
 * cc_snp_report() - one line: the guest's parameters, the paravirtual I/O
 *	backend, the GHCBs, the APs created and the protocol's counters.
 * @when: what the counters cover, e.g. "at boot" or "after the tasks".
 * @extra: appended after a comma (the simulated guest's model), or NULL.
 */
void cc_snp_report(const char *when, const char *extra);

#endif /* SLUICE_ARCH_CC_SNP_H */
