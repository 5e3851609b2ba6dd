/* SPDX-License-Identifier: MIT */
/*
 * pvio_native.c - the paravirtual I/O backend of a plain VM: the instructions
 * themselves. With the assembly entry stubs and tee_insn.c, the only place in
 * the kernel where port I/O, CPUID, RDMSR/WRMSR and HLT are executed
 * (scripts/check-cc-insn.py checks it).
 */
#include "arch/x86_64/cc/pvio.h"

#include "arch/x86_64/cpu/qemu_exit.h"

static uint32_t native_io_in(void *ctx, uint16_t port, unsigned int size)
{
	uint32_t v = 0;

	(void)ctx;
	if (size == 1) {
		uint8_t b;

		__asm__ volatile("inb %1, %0" : "=a"(b) : "Nd"(port));
		v = b;
	} else if (size == 2) {
		uint16_t w;

		__asm__ volatile("inw %1, %0" : "=a"(w) : "Nd"(port));
		v = w;
	} else {
		__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	}
	return v;
}

static void native_io_out(void *ctx, uint16_t port, unsigned int size, uint32_t v)
{
	(void)ctx;
	if (size == 1)
		__asm__ volatile("outb %0, %1" : : "a"((uint8_t)v), "Nd"(port));
	else if (size == 2)
		__asm__ volatile("outw %0, %1" : : "a"((uint16_t)v), "Nd"(port));
	else
		__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

/* Device registers: one access of exactly @size bytes (volatile: never merged,
 * split or repeated by the compiler). */
static uint64_t native_mmio_read(void *ctx, uint64_t pa, unsigned int size)
{
	(void)ctx;
	switch (size) {
	case 1:
		return *(volatile uint8_t *)(uintptr_t)pa;
	case 2:
		return *(volatile uint16_t *)(uintptr_t)pa;
	case 4:
		return *(volatile uint32_t *)(uintptr_t)pa;
	default:
		return *(volatile uint64_t *)(uintptr_t)pa;
	}
}

static void native_mmio_write(void *ctx, uint64_t pa, unsigned int size, uint64_t v)
{
	(void)ctx;
	switch (size) {
	case 1:
		*(volatile uint8_t *)(uintptr_t)pa = (uint8_t)v;
		break;
	case 2:
		*(volatile uint16_t *)(uintptr_t)pa = (uint16_t)v;
		break;
	case 4:
		*(volatile uint32_t *)(uintptr_t)pa = (uint32_t)v;
		break;
	default:
		*(volatile uint64_t *)(uintptr_t)pa = v;
		break;
	}
}

static void native_cpuid(void *ctx, uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	(void)ctx;
	__asm__ volatile("cpuid"
			 : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
			 : "a"(leaf), "c"(sub));
}

static uint64_t native_rdmsr(void *ctx, uint32_t msr)
{
	uint32_t lo, hi;

	(void)ctx;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static void native_wrmsr(void *ctx, uint32_t msr, uint64_t v)
{
	(void)ctx;
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

static void native_halt(void *ctx, bool irqs)
{
	(void)ctx;
	/* sti's one-instruction shadow: an interrupt that is already pending is
	 * taken after hlt starts waiting, so no wake-up is lost. */
	if (irqs)
		__asm__ volatile("sti; hlt; cli" ::: "memory");
	else
		__asm__ volatile("cli; hlt" ::: "memory");
}

/* QEMU's isa-debug-exit first (the run's status), then stop for good. */
static void native_fatal(void *ctx, int code, const char *msg)
{
	(void)msg; /* the caller has printed it */
	native_io_out(ctx, QEMU_EXIT_PORT, 4, QEMU_EXIT_BASE + (uint32_t)code);
	for (;;)
		native_halt(ctx, false);
}

const struct pvio_ops pvio_native = {
	.name = "native",
	.io_in = native_io_in,
	.io_out = native_io_out,
	.mmio_read = native_mmio_read,
	.mmio_write = native_mmio_write,
	.cpuid = native_cpuid,
	.rdmsr = native_rdmsr,
	.wrmsr = native_wrmsr,
	.halt = native_halt,
	.fatal = native_fatal,
	.ctx = 0,
};
