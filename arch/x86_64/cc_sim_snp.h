/* SPDX-License-Identifier: MIT */
/*
 * cc_sim_snp.h - the simulated SEV-SNP guest (cc=sim-snp): the kernel runs as an
 * SNP guest (cc_snp.h) whose hardware (the RMP, PVALIDATE, RMPADJUST) and
 * hypervisor are the model of arch/x86_64/snp_model.c, over all of the guest's
 * RAM. Every private/shared conversion runs the real SNP protocol (snp.c)
 * against it, and the model stops the kernel, naming the rule, on a violation.
 * Every port access, MMIO register, MSR and idle wait goes through the SNP
 * backend of the paravirtual I/O layer (pvio_snp.c) as a GHCB NAE event on the
 * calling CPU's GHCB, which the simulated hypervisor carries out natively, as
 * QEMU's would; CPUID is answered from an SNP CPUID page built at start from
 * the native CPUID (with leaf 0x8000001F saying SEV-SNP, C-bit 51). The APs are
 * started by the AP-creation request: the simulated hypervisor releases an AP
 * it parked (INIT-SIPI into a waiting loop, smp_simulate_parking()) into its
 * VMSA's 64-bit entry.
 *
 * What stays different from a real SNP guest: QEMU has no SNP, so the private
 * attribute of a mapping is the kernel's software PTE bit rather than the C-bit,
 * no memory is encrypted, and nothing but the model checks that the kernel never
 * touches a page in the wrong state.
 */
#ifndef SLUICE_ARCH_CC_SIM_SNP_H
#define SLUICE_ARCH_CC_SIM_SNP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/x86_64/snp_model.h"

/* The simulated guest's SEV_STATUS (SEV, SEV-ES, SNP) and C-bit. */
#define CC_SIM_SNP_SEV_STATUS UINT64_C(0x7)
#define CC_SIM_SNP_CBIT 51

/**
 * cc_sim_snp_init() - build the model over [0, @ram_top) and start the guest on
 *	it (cc_snp_start()): GHCB, conversions, paravirtual I/O, the #VC guard,
 *	AP creation (with smp_simulate_parking()).
 * @ram_top: end of the guest's RAM, 4 KiB aligned.
 * @page: @ram_top / 4096 bytes for the model's RMP.
 * @faults: faults the model injects (copied), or NULL: early returns and size
 *	mismatches from the start, the others once cc_sim_snp_arm_faults() is
 *	called.
 * @ap_silent: the simulated hypervisor accepts AP-creation requests but never
 *	runs the AP (it must be reported and skipped).
 * @why: on failure, the reason.
 * @why_len: its size.
 * Return: 0, or a negative code with @why set (nothing routed).
 */
int cc_sim_snp_init(uint64_t ram_top, uint8_t *page, const struct snp_model_faults *faults,
		    bool ap_silent, char *why, size_t why_len);

/**
 * cc_sim_snp_arm_faults() - start injecting the faults given at init (after the
 *	DMA self-test, so that they hit the tasks).
 */
void cc_sim_snp_arm_faults(void);

/**
 * cc_sim_snp_raise_vc() - what the hardware does for an intercepted
 *	instruction: vector 29 through the IDT on this CPU's #VC stack (IST3),
 *	with @exit_code as the error code (fault=vc). Does not return.
 * @exit_code: the SVM exit code (e.g. 0x7b, IOIO).
 */
__attribute__((noreturn)) void cc_sim_snp_raise_vc(uint64_t exit_code);

/**
 * cc_sim_snp_report() - the guest's parameters, the protocol's counters and the
 *	model's (cc_snp_report()).
 * @when: what the counters cover.
 */
void cc_sim_snp_report(const char *when);

#endif /* SLUICE_ARCH_CC_SIM_SNP_H */
