/* SPDX-License-Identifier: MIT */
/*
 * gdt.c - the kernel GDT (flat 64-bit code and data) and a TSS with one IST stack,
 * one of each per CPU: a TSS is marked busy when loaded, so CPUs cannot share one,
 * and each CPU needs its own IST stack.
 */
#include "arch/x86_64/cpu/descriptors.h"
#include "arch/x86_64/cpu/cpu.h"

#include <string.h>

struct tss64 {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));
_Static_assert(sizeof(struct tss64) == 104, "64-bit TSS layout");

struct gdt_pointer {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

#define IST_STACK_SIZE 16384

struct cpu_descriptors {
	/* null, code, data, TSS (two slots: a 64-bit system descriptor is 16 bytes) */
	_Alignas(16) uint64_t gdt[5];
	struct tss64 tss;
};

static struct cpu_descriptors cpu_descriptors[SMP_MAX_CPUS];
/* #VE runs on IST2, a stack of its own per CPU: a #VE can arrive on any
 * instruction, in the middle of anything, and its guard must run whatever the
 * current stack holds (Intel TDX module spec, #VE; the GHCI's guidance on #VE
 * handlers). */
#define VE_STACK_SIZE 8192
static _Alignas(16) uint8_t ve_stacks[SMP_MAX_CPUS][VE_STACK_SIZE];
/* #VC (29) runs on IST3, likewise its own: in an SEV-SNP guest it can arrive on
 * any instruction that is intercepted (Linux gives it an IST stack too). */
static _Alignas(16) uint8_t vc_stacks[SMP_MAX_CPUS][VE_STACK_SIZE];

uint64_t gdt_vc_stack_top(unsigned int cpu)
{
	return (uint64_t)(vc_stacks[cpu % SMP_MAX_CPUS] + VE_STACK_SIZE);
}

/* The bootstrap CPU's IST stack; the others' come from smp.c. */
static _Alignas(16) uint8_t ist1_stack[IST_STACK_SIZE];

void gdt_init(void)
{
	gdt_init_cpu(0, (uint64_t)(ist1_stack + IST_STACK_SIZE));
}

void gdt_init_cpu(unsigned int cpu, uint64_t ist_top)
{
	struct cpu_descriptors *d = &cpu_descriptors[cpu];
	uint64_t *gdt = d->gdt;
	uint64_t tss_base = (uint64_t)&d->tss;
	uint64_t tss_limit = sizeof(d->tss) - 1;
	struct gdt_pointer ptr;

	memset(&d->tss, 0, sizeof(d->tss));
	d->tss.ist[0] = ist_top;
	d->tss.ist[1] = (uint64_t)(ve_stacks[cpu] + VE_STACK_SIZE);
	d->tss.ist[2] = gdt_vc_stack_top(cpu);
	/* No I/O permission bitmap: point past the TSS limit. */
	d->tss.iomap_base = sizeof(d->tss);

	gdt[0] = 0;
	gdt[1] = 0x00209A0000000000ull; /* present, DPL 0, code, long mode */
	gdt[2] = 0x0000920000000000ull; /* present, DPL 0, data, writable */
	gdt[3] = (tss_limit & 0xffff) | ((tss_base & 0xffffff) << 16) |
		 (0x89ull << 40) /* present, available 64-bit TSS */ |
		 (((tss_limit >> 16) & 0xf) << 48) | (((tss_base >> 24) & 0xff) << 56);
	gdt[4] = tss_base >> 32;

	ptr.limit = sizeof(d->gdt) - 1;
	ptr.base = (uint64_t)gdt;
	/* Reload CS with a far return, then the data segments and the task register.
	 * FS and GS are left alone: in 64-bit mode only their bases matter, and
	 * loading a null selector clears the base on some processors (and in
	 * QEMU), while an AP created by SEV-SNP comes up with its GS base already
	 * pointing at its per-CPU data (the VMSA's GS), which it needs before
	 * its first paravirtual MSR write can set it (smp.c). */
	__asm__ volatile("lgdt %0\n\t"
			 "pushq %1\n\t"
			 "leaq 1f(%%rip), %%rax\n\t"
			 "pushq %%rax\n\t"
			 "lretq\n"
			 "1:\n\t"
			 "movw %w2, %%ax\n\t"
			 "movw %%ax, %%ds\n\t"
			 "movw %%ax, %%es\n\t"
			 "movw %%ax, %%ss\n\t"
			 "movw %w3, %%ax\n\t"
			 "ltr %%ax\n\t"
			 :
			 : "m"(ptr), "i"(GDT_KERNEL_CODE), "i"(GDT_KERNEL_DATA), "i"(GDT_TSS)
			 : "rax", "memory");
}
