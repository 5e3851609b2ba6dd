/* SPDX-License-Identifier: MIT */
/*
 * stack_switch.S - arch_call_on_stack(fn, arg, stack_top): call fn(arg) with RSP at
 * stack_top (16-byte aligned) and a zero frame pointer, so stack traces end there.
 * fn must not return; if it does, halt.
 */
	.section .text
	.code64
	.globl arch_call_on_stack
arch_call_on_stack:
	andq $-16, %rdx
	movq %rdx, %rsp
	xorl %ebp, %ebp
	pushq $0 /* fake return address: the trace stops at a zero */
	pushq $0 /* fake saved rbp */
	movq %rsp, %rbp
	movq %rdi, %rax
	movq %rsi, %rdi
	call *%rax
	/* The function must not return; if it does, stop through the paravirtual
	 * I/O layer (a bare HLT would be a #VE in a TD). */
	call pvio_stop

	.section .note.GNU-stack, "", @progbits
