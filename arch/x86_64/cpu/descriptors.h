/* SPDX-License-Identifier: MIT */
/*
 * descriptors.h - the kernel's own GDT, TSS and IDT, and the exception report.
 *
 * After ExitBootServices the firmware's descriptor tables live in memory the kernel
 * may reuse, so the kernel installs its own before doing anything else.
 */
#ifndef SLUICE_ARCH_DESCRIPTORS_H
#define SLUICE_ARCH_DESCRIPTORS_H

#include <stdint.h>

#define GDT_KERNEL_CODE 0x08
#define GDT_KERNEL_DATA 0x10
#define GDT_TSS 0x18

/**
 * struct trap_frame - registers saved by trap_entry.S, in stack order.
 */
struct trap_frame {
	uint64_t rax, rbx, rcx, rdx, rsi, rdi, rbp, r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t vector;
	uint64_t error_code;
	uint64_t rip, cs, rflags, rsp, ss;
};

/**
 * gdt_init() - load the kernel GDT and TSS and reload every segment register.
 *
 * The TSS gives #DF, NMI and #MC their own stack (IST1), so a kernel stack overflow
 * still produces an exception report instead of a triple fault.
 */
void gdt_init(void);

/**
 * gdt_init_cpu() - load CPU @cpu's own GDT and TSS (each CPU needs its own TSS:
 * loading one marks it busy).
 * @cpu: CPU index, below %SMP_MAX_CPUS.
 * @ist_top: top of this CPU's IST1 stack (16-byte aligned).
 */
void gdt_init_cpu(unsigned int cpu, uint64_t ist_top);

/**
 * idt_init() - install handlers for the 32 architectural exception vectors.
 */
void idt_init(void);

/**
 * idt_load() - load the table idt_init() built on the calling CPU. All CPUs share
 * one IDT: the gates are identical and the table is never changed after boot.
 */
void idt_load(void);

/**
 * idt_stub() - the entry stub of exception vector @vector (0..31), the address
 *	its IDT gate points to (for code that delivers an exception by hand, as
 *	the simulated SNP guest's #VC does).
 * @vector: the vector.
 */
const void *idt_stub(unsigned int vector);

/**
 * idt_set_interrupt() - install an interrupt gate (vectors 32..255).
 * @vector: the vector.
 * @handler: entry point (an assembly stub ending in iretq).
 */
void idt_set_interrupt(unsigned int vector, void (*handler)(void));

/**
 * trap_set_stack_bounds() - tell the exception reporter where the kernel stack is,
 * so the stack trace never follows a frame pointer out of it.
 * @lo: lowest stack address.
 * @hi: one past the highest.
 */
void trap_set_stack_bounds(uint64_t lo, uint64_t hi);

/**
 * trap_set_cpu_stack_bounds() - the same for application processor @cpu.
 * @cpu: CPU index, below %SMP_MAX_CPUS.
 * @lo: lowest stack address.
 * @hi: one past the highest.
 */
void trap_set_cpu_stack_bounds(unsigned int cpu, uint64_t lo, uint64_t hi);

/**
 * trap_set_image_base() - the image's load address, printed with every RIP so a
 * report can be decoded with addr2line -e build/sluice.so.
 * @base: ImageBase.
 */
void trap_set_image_base(uint64_t base);

/**
 * trap_handler() - C side of every exception: print a report and exit QEMU with
 * SLUICE_EXIT_EXCEPTION. Never returns.
 * @frame: the saved registers.
 */
__attribute__((noreturn)) void trap_handler(struct trap_frame *frame);

/**
 * trap_set_ve_reporter() - what a #VE (vector 20) does first, before anything
 *	else can fault: in a TD, TDG.VP.VEINFO.GET (a second #VE before it is a
 *	double fault) and a report of the reason, GPA and RIP. The exception
 *	report and the fatal exit follow; nothing is emulated.
 * @fn: called with the trapped RIP; NULL for none (a plain VM has no #VE).
 */
void trap_set_ve_reporter(void (*fn)(uint64_t rip));

/**
 * trap_set_vc_reporter() - the #VC guard (vector 29, an SEV-SNP guest): what
 *	a #VC does first, with the exit code the hardware put in the error code
 *	and the trapped RIP (reported through the paravirtual I/O layer, which
 *	needs no #VC). After the exception report the guest ends through
 *	pvio_fatal(): in an SNP guest the GHCB MSR protocol's termination
 *	request. Nothing is emulated.
 * @fn: called with the RIP and the error code; NULL for none.
 */
void trap_set_vc_reporter(void (*fn)(uint64_t rip, uint64_t exit_code));

/**
 * gdt_vc_stack_top() - the top of @cpu's #VC stack (IST3): where the hardware
 *	switches to for vector 29 (the simulated SNP guest raises a #VC there).
 * @cpu: the CPU index.
 */
uint64_t gdt_vc_stack_top(unsigned int cpu);

#endif /* SLUICE_ARCH_DESCRIPTORS_H */
