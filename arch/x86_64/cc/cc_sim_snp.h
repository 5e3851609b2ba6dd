/* SPDX-License-Identifier: MIT */
/*
 * cc_sim_snp.h - the simulated SEV-SNP guest (cc=sim-snp): the kernel runs as an
 * SNP guest (cc_snp.h) whose hardware (the RMP, PVALIDATE, RMPADJUST) and
 * hypervisor are the model of arch/x86_64/cc/snp_model.c, over all of the guest's
 * RAM. Every private/shared conversion runs the real SNP protocol (snp.c)
 * against it, and the model stops the kernel, naming the rule, on a violation.
 * Every port access, MMIO register, MSR and idle wait goes through the SNP
 * backend of the paravirtual I/O layer (pvio_snp.c) as a GHCB NAE event on the
 * calling CPU's GHCB, which the simulated hypervisor carries out natively, as
 * QEMU's would; CPUID is answered from an SNP CPUID page built at start from
 * the native CPUID (with leaf 0x8000001F saying SEV-SNP, C-bit 51). The APs are
 * started by the AP-creation request: the simulated hypervisor releases an AP
 * it parked (INIT-SIPI into a waiting loop, sim_ap_firmware.c) into its
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

#include "arch/x86_64/cc/cc_snp.h"
#include "arch/x86_64/cc/pvio_snp.h"
#include "arch/x86_64/cc/snp_model.h"

/* The simulated guest's SEV_STATUS (SEV, SEV-ES, SNP) and C-bit. */
#define CC_SIM_SNP_SEV_STATUS UINT64_C(0x7)
#define CC_SIM_SNP_CBIT 51

/**
 * cc_sim_snp_build_cpuid_page() - the simulated firmware's SNP CPUID page:
 *	the leaves this kernel reads, from the native CPUID (as the AMD secure
 *	processor checks the hypervisor's values against the hardware), leaf
 *	0x8000001F saying SEV-SNP with the C-bit at CC_SIM_SNP_CBIT. The UEFI
 *	stage builds it, playing the firmware, before ExitBootServices.
 * @page: filled in.
 */
void cc_sim_snp_build_cpuid_page(struct snp_cpuid_page *page);

/**
 * cc_sim_snp_firmware() - the simulated platform at kernel entry: the model
 *	over [0, @ram_top) (hardware and hypervisor), and what the firmware did
 *	before the kernel ran: the page at @fw_ghcb_gpa made shared and
 *	registered as the bootstrap CPU's GHCB. The kernel then starts as a real
 *	SNP guest does (cc_snp_boot() on the model's instructions).
 * @ram_top: end of the guest's RAM, 4 KiB aligned.
 * @page: @ram_top / 4096 bytes for the model's RMP.
 * @faults: faults the model injects (copied), or NULL: early returns and size
 *	mismatches from the start, the others once cc_sim_snp_arm_faults() is
 *	called.
 * @ap_silent: the simulated hypervisor accepts AP-creation requests but never
 *	runs the AP (it must be reported and skipped).
 * @vmpl: the VMPL the guest runs at (snp_fault=vmpl1: 1, refused).
 * @fw_ghcb_gpa: the simulated firmware's GHCB page, or 0: none registered.
 */
void cc_sim_snp_firmware(uint64_t ram_top, uint8_t *page, const struct snp_model_faults *faults,
			 bool ap_silent, unsigned int vmpl, uint64_t fw_ghcb_gpa);

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
