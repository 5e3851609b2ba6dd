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
 * @tdcall_sti: the same, with STI right before TDCALL so that STI's
 *	one-instruction shadow covers it: an interrupt that arrives after the
 *	guest decided to halt is still pending when the VMM's HLT looks, and wakes
 *	it (Linux's __halt() issues TDX_HCALL_ISSUE_STI for the same reason,
 *	arch/x86/coco/tdx/tdx.c). Interrupts are enabled on return.
 * @flush_cache: write back and invalidate every cache line of [@va, @va + @len)
 *	(CLFLUSH per line, then MFENCE). A conversion needs it: TDX keeps no
 *	coherence between a page's private and shared key, so a dirty line written
 *	under one key must reach memory before the page is used under the other
 *	(Linux: tdx_cache_flush_required() in arch/x86/coco/tdx/tdx.c returns true,
 *	and __set_memory_enc_pgtable() in arch/x86/mm/pat/set_memory.c flushes the
 *	range before it changes the mapping). CLFLUSH, not WBINVD: WBINVD in a TD
 *	is not executed but raises a #VE.
 * @ctx: handed to each.
 */
struct tee_insn_ops {
	uint64_t (*tdcall)(void *ctx, struct tdcall_regs *regs);
	uint64_t (*tdcall_sti)(void *ctx, struct tdcall_regs *regs);
	void (*flush_cache)(void *ctx, uint64_t va, uint64_t len);
	void *ctx;
};

/* The real instructions; TDCALL is only meaningful in a TD (elsewhere it
 * raises #UD). */
extern const struct tee_insn_ops tee_insn_native;

#endif /* SLUICE_ARCH_TEE_INSN_H */
