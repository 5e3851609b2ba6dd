/* SPDX-License-Identifier: MIT */
/*
 * pvio_tdx.h - the paravirtual I/O backend of a TD: every operation the kernel
 * would otherwise trap on (#VE) is asked of the VMM with TDG.VP.VMCALL
 * (arch/x86_64/cc/tdx.c), following the Intel TDX GHCI sub-functions
 * Instruction.IO, #VE.RequestMMIO, Instruction.CPUID, Instruction.RDMSR/WRMSR,
 * Instruction.HLT and ReportFatalError.
 */
#ifndef SLUICE_ARCH_PVIO_TDX_H
#define SLUICE_ARCH_PVIO_TDX_H

#include "arch/x86_64/cc/pvio.h"
#include "arch/x86_64/cc/tdx.h"

/**
 * struct pvio_tdx - the backend's state.
 * @ops: the ops table to pvio_select().
 * @td: the TD (its shared bit marks MMIO addresses, which are shared).
 * @errors: VMCALLs the VMM failed (an I/O read then returns all ones, as a port
 *	or register nobody answers does), and writes to read-only MSRs, which are
 *	not sent (the VMM refuses them).
 * @native: the instructions for what the TD's CPU virtualises itself (the
 *	MSRs of pvio_tdx_msr_is_native(), the architectural CPUID leaves):
 *	&pvio_native, a recording double in host tests.
 */
struct pvio_tdx {
	struct pvio_ops ops;
	struct tdx *td;
	unsigned long errors;
	const struct pvio_ops *native;
};

/**
 * pvio_tdx_msr_is_native() - whether a TD reads and writes @msr with the
 *	native instruction: the TDX module or the CPU virtualises it and no #VE
 *	is raised, so the VMM must not be asked (KVM refuses it:
 *	tdx_has_emulated_msr() in Linux arch/x86/kvm/vmx/tdx.c, "x2APIC
 *	registers that are virtualized by the CPU can't be emulated"). EFER and
 *	the FS/GS bases (TDX module spec, MSR virtualisation), and the x2APIC
 *	TPR (0x808), PPR (0x80A), EOI (0x80B), ISR (0x810-0x817), TMR
 *	(0x818-0x81F) and IRR (0x820-0x827) of the virtual APIC.
 * @msr: the MSR.
 * Return: true if so.
 */
bool pvio_tdx_msr_is_native(uint32_t msr);

/**
 * pvio_tdx_msr_is_read_only() - whether the VMM refuses a write of @msr
 *	(Linux arch/x86/kvm/vmx/tdx.c, tdx_is_read_only_msr(): IA32_APIC_BASE,
 *	EFER, IA32_FEAT_CTL); such a write is not sent.
 * @msr: the MSR.
 * Return: true if so.
 */
bool pvio_tdx_msr_is_read_only(uint32_t msr);

/**
 * pvio_tdx_init() - fill @p for the TD @td.
 * @p: caller storage (lives as long as the kernel).
 * @td: an initialised TD (tdx_init()).
 */
void pvio_tdx_init(struct pvio_tdx *p, struct tdx *td);

#endif /* SLUICE_ARCH_PVIO_TDX_H */
