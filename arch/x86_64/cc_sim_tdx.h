/* SPDX-License-Identifier: MIT */
/*
 * cc_sim_tdx.h - the simulated TD (cc=sim-tdx): every private/shared conversion
 * of the kernel runs the real TDX protocol (arch/x86_64/tdx.c) against the model
 * of the TDX module and the VMM (arch/x86_64/tdx_model.c), which enforces the
 * protocol's rules over all of the guest's RAM and stops the kernel, naming the
 * rule, on a violation.
 *
 * QEMU has no TDX, so the shared attribute of a mapping stays the kernel's
 * software PTE bit and port I/O, MMIO and CPUID stay native; everything else of
 * a conversion is the code a real TD runs.
 */
#ifndef SLUICE_ARCH_CC_SIM_TDX_H
#define SLUICE_ARCH_CC_SIM_TDX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/x86_64/tdx.h"
#include "arch/x86_64/tdx_model.h"

/**
 * cc_sim_tdx_init() - build the model over [0, @ram_top) and route every
 *	conversion through the protocol (mmu_set_cc_backend()).
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
 * cc_sim_tdx_active() - whether cc_sim_tdx_init() routed the kernel through the
 *	simulated TD.
 */
bool cc_sim_tdx_active(void);

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
 * cc_sim_tdx_report() - print the TD's parameters and the protocol's counters.
 * @when: what the counters cover, e.g. "at boot" or "after the tasks".
 */
void cc_sim_tdx_report(const char *when);

/**
 * cc_sim_tdx_stats() - the protocol's counters.
 * @out: filled in.
 */
void cc_sim_tdx_stats(struct tdx_stats *out);

#endif /* SLUICE_ARCH_CC_SIM_TDX_H */
