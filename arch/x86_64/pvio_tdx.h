/* SPDX-License-Identifier: MIT */
/*
 * pvio_tdx.h - the paravirtual I/O backend of a TD: every operation the kernel
 * would otherwise trap on (#VE) is asked of the VMM with TDG.VP.VMCALL
 * (arch/x86_64/tdx.c), following the Intel TDX GHCI sub-functions
 * Instruction.IO, #VE.RequestMMIO, Instruction.CPUID, Instruction.RDMSR/WRMSR,
 * Instruction.HLT and ReportFatalError.
 */
#ifndef SLUICE_ARCH_PVIO_TDX_H
#define SLUICE_ARCH_PVIO_TDX_H

#include "arch/x86_64/pvio.h"
#include "arch/x86_64/tdx.h"

/**
 * struct pvio_tdx - the backend's state.
 * @ops: the ops table to pvio_select().
 * @td: the TD (its shared bit marks MMIO addresses, which are shared).
 * @errors: VMCALLs the VMM failed (an I/O read then returns all ones, as a port
 *	or register nobody answers does).
 */
struct pvio_tdx {
	struct pvio_ops ops;
	struct tdx *td;
	unsigned long errors;
};

/**
 * pvio_tdx_init() - fill @p for the TD @td.
 * @p: caller storage (lives as long as the kernel).
 * @td: an initialised TD (tdx_init()).
 */
void pvio_tdx_init(struct pvio_tdx *p, struct tdx *td);

#endif /* SLUICE_ARCH_PVIO_TDX_H */
