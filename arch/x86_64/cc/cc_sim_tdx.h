/* SPDX-License-Identifier: MIT */
/*
 * cc_sim_tdx.h - the simulated TD (cc=sim-tdx): the kernel runs as a TD guest
 * (cc_tdx.h) whose TDX module and VMM are the model of arch/x86_64/cc/tdx_model.c.
 * Every private/shared conversion runs the real TDX protocol (tdx.c) against
 * it, and the model enforces the protocol's rules over all of the guest's RAM
 * and stops the kernel, naming the rule, on a violation. Every port access,
 * MMIO register, hypervisor CPUID leaf, MSR and idle wait goes through the TD
 * backend of the paravirtual I/O layer (pvio_tdx.c) as a TDG.VP.VMCALL, which
 * the model's VMM carries out natively, as QEMU's would.
 *
 * What stays different from a real TD: QEMU has no TDX, so the shared attribute
 * of a mapping is the kernel's software PTE bit rather than bit GPAW - 1, and
 * nothing but the model checks that the kernel never touches a page in the
 * wrong state.
 */
#ifndef SLUICE_ARCH_CC_SIM_TDX_H
#define SLUICE_ARCH_CC_SIM_TDX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/x86_64/cc/tdx.h"
#include "arch/x86_64/cc/tdx_model.h"

/**
 * cc_sim_tdx_init() - build the model over [0, @ram_top) and start the TD on
 *	it (cc_tdx_start()): conversions, paravirtual I/O and the #VE guard.
 * @ram_top: end of the guest's RAM, 4 KiB aligned.
 * @state: @ram_top / 4096 bytes for the model's page states.
 * @pte: as many bytes for its view of the mappings.
 * @faults: faults the model injects once cc_sim_tdx_arm_faults() is called
 *	(copied), or NULL.
 * @why: on failure, the reason.
 * @why_len: its size.
 * Return: 0, or a negative code with @why set (nothing routed).
 */
int cc_sim_tdx_init(uint64_t ram_top, uint8_t *state, uint8_t *pte,
		    const struct tdx_model_faults *faults, char *why, size_t why_len);

/**
 * cc_sim_tdx_arm_faults() - start injecting the faults given at init. The kernel
 *	arms them after its DMA set-up and self-test, so that they hit the I/O
 *	path (arena chunks converted and released during the tasks) rather than
 *	the boot.
 */
void cc_sim_tdx_arm_faults(void);

/**
 * cc_sim_tdx_stage_ve() - what the model's TDG.VP.VEINFO.GET will report, as the
 *	TDX module would for a #VE it injected (fault=ve uses it before raising
 *	vector 20, so that the guard's whole path runs).
 * @exit_reason: VMX exit reason (e.g. 30, an I/O instruction).
 * @exit_qual: its qualification.
 * @gpa: the guest physical (and linear) address.
 */
void cc_sim_tdx_stage_ve(uint32_t exit_reason, uint64_t exit_qual, uint64_t gpa);

/**
 * cc_sim_tdx_report() - print the TD's parameters, the protocol's counters and
 *	the model's (cc_tdx_report()).
 * @when: what the counters cover, e.g. "at boot" or "after the tasks".
 */
void cc_sim_tdx_report(const char *when);

#endif /* SLUICE_ARCH_CC_SIM_TDX_H */
