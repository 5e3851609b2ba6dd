/* SPDX-License-Identifier: MIT */
/*
 * tee_insn.h - the only door to the confidential-computing instructions.
 *
 * TDCALL (Intel TDX) and VMGEXIT, PVALIDATE and the GHCB MSR accesses (AMD
 * SEV-SNP) are executed in exactly one place, tee_insn.c, behind an ops table,
 * so that the protocol code on top (arch/x86_64/cc/tdx.c, arch/x86_64/cc/snp.c,
 * arch/x86_64/cc/ghcb.c) is plain C that runs the same against the real platform
 * (tee_insn_native) and against a model of it (arch/x86_64/cc/tdx_model.c,
 * arch/x86_64/cc/snp_model.c) in the host tests and in the kernel's simulated
 * guests. The instruction audit (scripts/check-cc-insn.py) fails the build if
 * one of these instructions appears anywhere else.
 */
#ifndef SLUICE_ARCH_TEE_INSN_H
#define SLUICE_ARCH_TEE_INSN_H

#include <stdbool.h>
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

/* PVALIDATE return codes in EAX (AMD APM vol. 3, PVALIDATE). */
#define PVALIDATE_OK 0
#define PVALIDATE_FAIL_INPUT 1
#define PVALIDATE_FAIL_SIZEMISMATCH 6
/* RMPADJUST: the target VMPL is not less privileged than the current one. */
#define RMPADJUST_FAIL_PERMISSION 2

/**
 * struct tee_insn_ops - how the TEE instructions are executed.
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
 * @ctx: handed to every op.
 * @vmgexit: execute VMGEXIT (REP VMMCALL, F3 0F 01 D9). The hypervisor reads
 *	the GHCB MSR: either an MSR-protocol request (GHCBData[11:0] != 0) or the
 *	GPA of the registered GHCB page, whose contents it reads and writes (AMD
 *	GHCB specification 56421, "GHCB MSR protocol" and "GHCB protocol"). @ghcb
 *	is the guest's virtual address of that page for a GHCB-protocol exit and
 *	NULL for an MSR-protocol one: the hardware needs neither (the MSR says it
 *	all), a model needs the page to answer in it.
 * @pvalidate: execute PVALIDATE (F2 0F 01 FF; AMD APM vol. 3): RAX = @va, the
 *	guest virtual address of the page, RCX = page size (0: 4 KiB, 1: 2 MiB),
 *	RDX = @validate (1: validate, 0: rescind). *@cf receives rFLAGS.CF, set
 *	when the instruction succeeded but the RMP entry's Validated bit was
 *	already what was asked (nothing changed). Return: EAX (PVALIDATE_*).
 * @rd_ghcb_msr: RDMSR of the GHCB MSR (0xC0010130). The hardware never
 *	intercepts this MSR in an SEV-ES/SNP guest (GHCB spec, "GHCB MSR"), so
 *	it cannot raise #VC: it is how a guest talks to the hypervisor at all.
 * @wr_ghcb_msr: WRMSR of the same MSR.
 * @rmpadjust: execute RMPADJUST (F3 0F 01 FE; AMD APM vol. 3): RAX = @va,
 *	RCX = page size (0: 4 KiB, 1: 2 MiB), RDX = @attrs (target VMPL in
 *	[7:0], its permissions in [15:8], the VMSA bit 16). Return: EAX (0
 *	success, PVALIDATE_FAIL_INPUT 1, 2 FAIL_PERMISSION, 6 size mismatch).
 *
 * The SEV-SNP ops sit at the end so that zero-initialised tables of one
 * platform (the TDX model's) leave the other's NULL; new ops go after them.
 */
struct tee_insn_ops {
	uint64_t (*tdcall)(void *ctx, struct tdcall_regs *regs);
	uint64_t (*tdcall_sti)(void *ctx, struct tdcall_regs *regs);
	void (*flush_cache)(void *ctx, uint64_t va, uint64_t len);
	void *ctx;
	void (*vmgexit)(void *ctx, void *ghcb);
	uint32_t (*pvalidate)(void *ctx, uint64_t va, bool size_2m, bool validate, bool *cf);
	uint64_t (*rd_ghcb_msr)(void *ctx);
	void (*wr_ghcb_msr)(void *ctx, uint64_t v);
	uint32_t (*rmpadjust)(void *ctx, uint64_t va, bool size_2m, uint64_t attrs);
};

/* The real instructions; TDCALL only means something in a TD, the others in
 * an SEV-SNP guest (elsewhere they raise #UD or #GP). */
extern const struct tee_insn_ops tee_insn_native;

#endif /* SLUICE_ARCH_TEE_INSN_H */
