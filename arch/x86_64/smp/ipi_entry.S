/* SPDX-License-Identifier: MIT */
/*
 * ipi_entry.S - the two interrupt vectors the kernel takes, both only on an idle
 * application processor halted in smp.c's wait loop:
 *  - the wake-up IPI: acknowledge it (EOI) and return; the loop then finds its work;
 *  - the APIC spurious vector: return without EOI, as the APIC requires.
 * Every caller-saved register is preserved: the interrupt can land between any
 * two instructions of the wait loop.
 */
	.section .text
	.code64

	.globl ipi_wakeup_entry
ipi_wakeup_entry:
	pushq %rax
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %rbp
	movq %rsp, %rbp
	andq $-16, %rsp			/* the C ABI wants a 16-byte aligned call */
	call lapic_eoi
	movq %rbp, %rsp
	popq %rbp
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rax
	iretq

	.globl ipi_spurious_entry
ipi_spurious_entry:
	iretq

	.section .note.GNU-stack, "", @progbits
