/* SPDX-License-Identifier: MIT */
/*
 * tee_insn.c - TDCALL and the cache flush of a conversion, executed here and
 * nowhere else (see tee_insn.h).
 *
 * The instruction is emitted as bytes (66 0F 01 CC) so that assemblers without
 * TDX support take it. Every register of the ABI is loaded and stored back: the
 * TDX module and the VMM define which ones each leaf uses, and a register a leaf
 * does not use keeps its value (Intel TDX module ABI; Linux's __tdcall and
 * __tdx_hypercall in arch/x86/coco/tdx/tdcall.S save and restore the same set).
 */
#include "arch/x86_64/tee_insn.h"

#include <stdbool.h>

/* TDCALL with every register of the ABI; @sti puts STI right before it. */
static inline __attribute__((always_inline)) uint64_t tdcall_regs(struct tdcall_regs *r,
								   bool sti)
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
				   "+r"(r10), "+r"(r11), "+r"(r12), "+r"(r13), "+r"(r14),
				   "+r"(r15)
				 :
				 : "memory");
	else
		__asm__ volatile(".byte 0x66, 0x0f, 0x01, 0xcc" /* tdcall */
				 : "+a"(r->rax), "+c"(r->rcx), "+d"(r->rdx), "+r"(r8), "+r"(r9),
				   "+r"(r10), "+r"(r11), "+r"(r12), "+r"(r13), "+r"(r14),
				   "+r"(r15)
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

const struct tee_insn_ops tee_insn_native = {
	.tdcall = tee_tdcall_native,
	.tdcall_sti = tee_tdcall_sti_native,
	.flush_cache = tee_flush_cache_native,
};
