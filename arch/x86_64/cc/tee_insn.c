/* SPDX-License-Identifier: MIT */
/*
 * tee_insn.c - TDCALL, VMGEXIT, PVALIDATE, the GHCB MSR accesses and the cache
 * flush of a conversion, executed here and nowhere else (see tee_insn.h).
 *
 * The instruction is emitted as bytes (66 0F 01 CC) so that assemblers without
 * TDX support take it. Every register of the ABI is loaded and stored back: the
 * TDX module and the VMM define which ones each leaf uses, and a register a leaf
 * does not use keeps its value (Intel TDX module ABI; Linux's __tdcall and
 * __tdx_hypercall in arch/x86/coco/tdx/tdcall.S save and restore the same set).
 */
#include "arch/x86_64/cc/tee_insn.h"

#include <stdbool.h>

/* TDCALL with every register of the ABI; @sti puts STI right before it. */
static inline __attribute__((always_inline)) uint64_t tdcall_regs(struct tdcall_regs *r, bool sti)
{
	register uint64_t r8 __asm__("r8") = r->r8;
	register uint64_t r9 __asm__("r9") = r->r9;
	register uint64_t r10 __asm__("r10") = r->r10;
	register uint64_t r11 __asm__("r11") = r->r11;
	register uint64_t r12 __asm__("r12") = r->r12;
	register uint64_t r13 __asm__("r13") = r->r13;
	register uint64_t r14 __asm__("r14") = r->r14;
	register uint64_t r15 __asm__("r15") = r->r15;

	if (sti)
		__asm__ volatile("sti\n\t.byte 0x66, 0x0f, 0x01, 0xcc" /* sti; tdcall */
				 : "+a"(r->rax), "+c"(r->rcx), "+d"(r->rdx), "+r"(r8), "+r"(r9),
				   "+r"(r10), "+r"(r11), "+r"(r12), "+r"(r13), "+r"(r14), "+r"(r15)
				 :
				 : "memory");
	else
		__asm__ volatile(".byte 0x66, 0x0f, 0x01, 0xcc" /* tdcall */
				 : "+a"(r->rax), "+c"(r->rcx), "+d"(r->rdx), "+r"(r8), "+r"(r9),
				   "+r"(r10), "+r"(r11), "+r"(r12), "+r"(r13), "+r"(r14), "+r"(r15)
				 :
				 : "memory");
	r->r8 = r8;
	r->r9 = r9;
	r->r10 = r10;
	r->r11 = r11;
	r->r12 = r12;
	r->r13 = r13;
	r->r14 = r14;
	r->r15 = r15;
	return r->rax;
}

static uint64_t tee_tdcall_native(void *ctx, struct tdcall_regs *r)
{
	(void)ctx;
	return tdcall_regs(r, false);
}

static uint64_t tee_tdcall_sti_native(void *ctx, struct tdcall_regs *r)
{
	(void)ctx;
	return tdcall_regs(r, true);
}

/* The line size CLFLUSH works on; CPUID.1:EBX[15:8] reports it in 8-byte units
 * and every x86_64 processor with TDX or SEV-SNP reports 64. Flushing with a
 * smaller step than the real line would only repeat work. */
#define CACHE_LINE 64u

static void tee_flush_cache_native(void *ctx, uint64_t va, uint64_t len)
{
	uint64_t a = va & ~(uint64_t)(CACHE_LINE - 1);

	(void)ctx;
	for (; a < va + len; a += CACHE_LINE)
		__asm__ volatile("clflush (%0)" : : "r"(a) : "memory");
	/* CLFLUSH is ordered only against writes to the same line (SDM vol. 2A,
	 * CLFLUSH): the fence makes every flush complete before the conversion's
	 * next step. */
	__asm__ volatile("mfence" : : : "memory");
}

/*
 * VMGEXIT is REP VMMCALL (F3 0F 01 D9; AMD APM vol. 3), emitted as bytes for
 * assemblers that lack the mnemonic. No register is an operand: in an
 * SEV-ES/SNP guest the registers live in the encrypted VMSA and come back
 * unchanged; everything is exchanged through the GHCB MSR and the GHCB page
 * (GHCB spec 56421; Linux's VMGEXIT() in arch/x86/include/asm/sev.h has no
 * register operands either). The hypervisor writes the page and the MSR:
 * hence the memory clobber.
 */
static void tee_vmgexit_native(void *ctx, void *ghcb)
{
	(void)ctx;
	(void)ghcb;
	__asm__ volatile(".byte 0xf3, 0x0f, 0x01, 0xd9" ::: "memory");
}

/*
 * PVALIDATE (F2 0F 01 FF): RAX = virtual address, ECX = page size, EDX =
 * validate; EAX = result, rFLAGS.CF = "Validated bit unchanged" (AMD APM vol. 3;
 * Linux arch/x86/include/asm/sev.h pvalidate() reads CF the same way).
 */
static uint32_t tee_pvalidate_native(void *ctx, uint64_t va, bool size_2m, bool validate, bool *cf)
{
	uint64_t rax = va;
	bool carry;

	(void)ctx;
	__asm__ volatile(".byte 0xf2, 0x0f, 0x01, 0xff"
			 : "+a"(rax), "=@ccc"(carry)
			 : "c"((uint32_t)size_2m), "d"((uint32_t)validate)
			 : "memory", "cc");
	*cf = carry;
	return (uint32_t)rax;
}

#define MSR_SEV_ES_GHCB 0xC0010130u

static uint64_t tee_rd_ghcb_msr_native(void *ctx)
{
	uint32_t lo, hi;

	(void)ctx;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(MSR_SEV_ES_GHCB));
	return ((uint64_t)hi << 32) | lo;
}

static void tee_wr_ghcb_msr_native(void *ctx, uint64_t v)
{
	(void)ctx;
	/* The hypervisor reads the MSR at the next VMGEXIT: everything written to
	 * the GHCB page before must be visible by then (memory clobber). */
	__asm__ volatile("wrmsr" ::"c"(MSR_SEV_ES_GHCB), "a"((uint32_t)v), "d"((uint32_t)(v >> 32))
			 : "memory");
}

/* RMPADJUST (F3 0F 01 FE): RAX = virtual address, RCX = page size, RDX =
 * attributes; EAX = result (AMD APM vol. 3; Linux rmpadjust() in
 * arch/x86/include/asm/sev.h). */
static uint32_t tee_rmpadjust_native(void *ctx, uint64_t va, bool size_2m, uint64_t attrs)
{
	uint64_t rax = va;

	(void)ctx;
	__asm__ volatile(".byte 0xf3, 0x0f, 0x01, 0xfe"
			 : "+a"(rax)
			 : "c"((uint64_t)size_2m), "d"(attrs)
			 : "memory", "cc");
	return (uint32_t)rax;
}

const struct tee_insn_ops tee_insn_native = {
	.tdcall = tee_tdcall_native,
	.tdcall_sti = tee_tdcall_sti_native,
	.flush_cache = tee_flush_cache_native,
	.vmgexit = tee_vmgexit_native,
	.pvalidate = tee_pvalidate_native,
	.rd_ghcb_msr = tee_rd_ghcb_msr_native,
	.wr_ghcb_msr = tee_wr_ghcb_msr_native,
	.rmpadjust = tee_rmpadjust_native,
};
