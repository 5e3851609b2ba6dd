/* SPDX-License-Identifier: MIT */
/*
 * tee_insn.h - the only door to the confidential-computing instructions.
 *
 * TDCALL is executed in exactly one place, tee_insn.c, behind an ops table, so
 * that the protocol code on top (arch/x86_64/tdx.c) is plain C that runs the same
 * against the real TDX module (tee_insn_native) and against a model of it
 * (arch/x86_64/tdx_model.c) in the host tests and in the kernel's simulated TD
 * (cc=sim-tdx). The instruction audit (scripts/check-cc-insn.sh) fails the build
 * if a TDCALL appears anywhere else.
 */
#ifndef SLUICE_ARCH_TEE_INSN_H
#define SLUICE_ARCH_TEE_INSN_H

#include <stdint.h>

/**
 * struct tdcall_regs - the registers TDCALL reads and writes (Intel TDX module
 *	ABI: leaf in RAX, operands in RCX, RDX, R8-R15; completion status back in
 *	RAX). For TDG.VP.VMCALL, RCX is the mask of registers exposed to the VMM and
 *	R10-R15 carry the sub-function, its operands and its results (Intel TDX
 *	GHCI, "TDG.VP.VMCALL Interface").
 */
struct tdcall_regs {
	uint64_t rax, rcx, rdx, r8, r9, r10, r11, r12, r13, r14, r15;
};

/**
 * struct tee_insn_ops - how TDCALL is executed.
 * @tdcall: execute TDCALL with @regs as input, write the outputs back into
 *	@regs. Return: RAX, the TDX module's completion status (0: success).
 * @ctx: handed to @tdcall.
 */
struct tee_insn_ops {
	uint64_t (*tdcall)(void *ctx, struct tdcall_regs *regs);
	void *ctx;
};

/* The real instruction; only meaningful in a TD (elsewhere it raises #UD). */
extern const struct tee_insn_ops tee_insn_native;

#endif /* SLUICE_ARCH_TEE_INSN_H */
