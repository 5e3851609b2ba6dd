/* SPDX-License-Identifier: MIT */
/*
 * idt.c - the interrupt descriptor table: the 32 exception vectors, plus the
 * wake-up and spurious vectors an idle application processor may take while
 * halted (the kernel polls its devices and otherwise runs with interrupts off).
 */
#include "arch/x86_64/cpu/descriptors.h"

#include <string.h>

struct idt_gate {
	uint16_t offset_lo;
	uint16_t selector;
	uint8_t ist;
	uint8_t type_attr;
	uint16_t offset_mid;
	uint32_t offset_hi;
	uint32_t reserved;
} __attribute__((packed));
_Static_assert(sizeof(struct idt_gate) == 16, "64-bit IDT gate layout");

struct idt_pointer {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

#define IDT_VECTORS 32
#define IDT_STUB_SIZE 16
#define IDT_INTERRUPT_GATE 0x8E /* present, DPL 0, 64-bit interrupt gate */

extern const char trap_stubs[];
extern const char trap_stubs_end[];

static struct idt_gate idt[256];

static void idt_set_gate(unsigned int v, uint64_t handler, uint8_t ist)
{
	idt[v].offset_lo = handler & 0xffff;
	idt[v].selector = GDT_KERNEL_CODE;
	idt[v].ist = ist;
	idt[v].type_attr = IDT_INTERRUPT_GATE;
	idt[v].offset_mid = (handler >> 16) & 0xffff;
	idt[v].offset_hi = handler >> 32;
}

void idt_init(void)
{
	memset(idt, 0, sizeof(idt));
	/* NMI, #DF and #MC run on IST1: the current stack may be the problem; #VE
	 * (20) on IST2, its own, and #VC (29) on IST3, its own (gdt.c). */
	for (unsigned int v = 0; v < IDT_VECTORS; v++)
		idt_set_gate(v, (uint64_t)(trap_stubs + v * IDT_STUB_SIZE),
			     (v == 2 || v == 8 || v == 18) ? 1 :
			     v == 20			   ? 2 :
			     v == 29			   ? 3 :
							     0);
	idt_load();
}

const void *idt_stub(unsigned int vector)
{
	return trap_stubs + vector * IDT_STUB_SIZE;
}

void idt_set_interrupt(unsigned int vector, void (*handler)(void))
{
	if (vector >= IDT_VECTORS && vector < 256)
		idt_set_gate(vector, (uint64_t)handler, 0);
}

void idt_load(void)
{
	struct idt_pointer ptr;

	ptr.limit = sizeof(idt) - 1;
	ptr.base = (uint64_t)idt;
	__asm__ volatile("lidt %0" : : "m"(ptr) : "memory");
}
