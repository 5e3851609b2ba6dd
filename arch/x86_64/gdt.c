/* SPDX-License-Identifier: MIT */
/*
 * gdt.c - the kernel GDT (flat 64-bit code and data) and a TSS with one IST stack.
 */
#include "arch/x86_64/descriptors.h"

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

static struct tss64 kernel_tss;
static _Alignas(16) uint8_t ist1_stack[IST_STACK_SIZE];
/* null, code, data, TSS (two slots: a 64-bit system descriptor is 16 bytes) */
static _Alignas(16) uint64_t gdt[5];

void gdt_init(void)
{
	uint64_t tss_base = (uint64_t)&kernel_tss;
	uint64_t tss_limit = sizeof(kernel_tss) - 1;
	struct gdt_pointer ptr;

	memset(&kernel_tss, 0, sizeof(kernel_tss));
	kernel_tss.ist[0] = (uint64_t)(ist1_stack + IST_STACK_SIZE);
	/* No I/O permission bitmap: point past the TSS limit. */
	kernel_tss.iomap_base = sizeof(kernel_tss);

	gdt[0] = 0;
	gdt[1] = 0x00209A0000000000ull; /* present, DPL 0, code, long mode */
	gdt[2] = 0x0000920000000000ull; /* present, DPL 0, data, writable */
	gdt[3] = (tss_limit & 0xffff) | ((tss_base & 0xffffff) << 16) |
		 (0x89ull << 40) /* present, available 64-bit TSS */ |
		 (((tss_limit >> 16) & 0xf) << 48) | (((tss_base >> 24) & 0xff) << 56);
	gdt[4] = tss_base >> 32;

	ptr.limit = sizeof(gdt) - 1;
	ptr.base = (uint64_t)gdt;
	/* Reload CS with a far return, then the data segments and the task register. */
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
			 "xorl %%eax, %%eax\n\t"
			 "movw %%ax, %%fs\n\t"
			 "movw %%ax, %%gs\n\t"
			 "movw %w3, %%ax\n\t"
			 "ltr %%ax\n\t"
			 :
			 : "m"(ptr), "i"(GDT_KERNEL_CODE), "i"(GDT_KERNEL_DATA), "i"(GDT_TSS)
			 : "rax", "memory");
}
