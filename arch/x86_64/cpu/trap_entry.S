/* SPDX-License-Identifier: MIT */
/*
 * trap_entry.S - entry stubs for the 32 exception vectors.
 *
 * Every stub is 16 bytes (idt.c computes stub addresses as trap_stubs + 16 * vector,
 * so no table of absolute addresses needs relocating). Stubs of vectors without a
 * CPU error code push a 0 so that struct trap_frame has one layout.
 */
#define HAS_ERROR_CODE(v) ((v) == 8 || ((v) >= 10 && (v) <= 14) || (v) == 17 || (v) == 21 || (v) == 29 || (v) == 30)

	.section .text
	.code64

.macro trap_stub vec, errcode
	.balign 16
	.if \errcode == 0
	pushq $0
	.endif
	pushq $\vec
	jmp trap_common
.endm

	.balign 16
	.globl trap_stubs
trap_stubs:
	trap_stub 0, 0
	trap_stub 1, 0
	trap_stub 2, 0
	trap_stub 3, 0
	trap_stub 4, 0
	trap_stub 5, 0
	trap_stub 6, 0
	trap_stub 7, 0
	trap_stub 8, 1
	trap_stub 9, 0
	trap_stub 10, 1
	trap_stub 11, 1
	trap_stub 12, 1
	trap_stub 13, 1
	trap_stub 14, 1
	trap_stub 15, 0
	trap_stub 16, 0
	trap_stub 17, 1
	trap_stub 18, 0
	trap_stub 19, 0
	trap_stub 20, 0
	trap_stub 21, 1
	trap_stub 22, 0
	trap_stub 23, 0
	trap_stub 24, 0
	trap_stub 25, 0
	trap_stub 26, 0
	trap_stub 27, 0
	trap_stub 28, 0
	trap_stub 29, 1
	trap_stub 30, 1
	trap_stub 31, 0
	.balign 16
	.globl trap_stubs_end
trap_stubs_end:

trap_common:
	/* Saved in the reverse of struct trap_frame's order. */
	pushq %r15
	pushq %r14
	pushq %r13
	pushq %r12
	pushq %r11
	pushq %r10
	pushq %r9
	pushq %r8
	pushq %rbp
	pushq %rdi
	pushq %rsi
	pushq %rdx
	pushq %rcx
	pushq %rbx
	pushq %rax
	cld
	movq %rsp, %rdi
	/* 22 quadwords were pushed on a 16-byte aligned stack: still aligned. */
	call trap_handler
	/* trap_handler() does not return; should it, stop through pvio (arch/x86_64/cc/pvio.h). */
	call pvio_stop

	.section .note.GNU-stack, "", @progbits
