/* SPDX-License-Identifier: MIT */
/*
 * ap_trampoline.S - where an application processor starts after INIT-SIPI-SIPI.
 *
 * The bootstrap processor copies ap_trampoline_start..ap_trampoline_end to a page
 * below 1 MiB and fills the parameter block at its end (struct ap_trampoline_params
 * in smp.c); the start-up IPI makes the AP begin in real mode at offset 0 of that
 * page with CS = page >> 4. The code is position independent: every address it
 * needs is either an offset from the page (real mode, DS = CS) or read from the
 * parameter block, whose absolute values the BSP computed for this copy.
 *
 * real mode -> 32-bit protected mode (trampoline GDT) -> long mode with the
 * kernel's CR3/CR4/EFER/CR0 -> jump to the kernel's C entry on the AP's stack.
 * Interrupts stay disabled throughout. EFER (with NXE) is loaded before CR0.PG,
 * so the AP never walks the kernel's tables, whose entries have bit 63 set,
 * without NXE; CR0 brings WP. From the moment paging is on, the code here is
 * fetched through those tables: the BSP maps the page read-only and executable
 * for exactly this window, and nothing here writes to the page.
 */
#define OFF(sym) ((sym) - ap_trampoline_start)

	.section .text.ap_trampoline, "ax"
	.code16
	.globl ap_trampoline_start
ap_trampoline_start:
	cli
	cld
	xorl %ebx, %ebx
	movw %cs, %bx
	movw %bx, %ds
	shll $4, %ebx			/* ebx = linear address of the page */
	lgdtl OFF(ap_tr_gdt_ptr)
	movl %cr0, %eax
	orl $1, %eax			/* PE */
	movl %eax, %cr0
	ljmpl *OFF(ap_tr_far32)

	.code32
	.globl ap_trampoline_protected
ap_trampoline_protected:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movl OFF(ap_tr_cr4)(%ebx), %eax	/* PAE (and the BSP's other CR4 bits) */
	movl %eax, %cr4
	movl OFF(ap_tr_cr3)(%ebx), %eax	/* the kernel's PML4, below 4 GiB */
	movl %eax, %cr3
	movl $0xC0000080, %ecx		/* EFER: LME, NXE as on the BSP */
	movl OFF(ap_tr_efer)(%ebx), %eax
	xorl %edx, %edx
	wrmsr
	movl OFF(ap_tr_cr0)(%ebx), %eax	/* PG: long mode becomes active */
	movl %eax, %cr0
	ljmpl *OFF(ap_tr_far64)(%ebx)

	.code64
	.globl ap_trampoline_long
ap_trampoline_long:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movq OFF(ap_tr_stack)(%rbx), %rsp
	movq OFF(ap_tr_arg)(%rbx), %rdi
	movq OFF(ap_tr_entry)(%rbx), %rax
	xorl %ebp, %ebp
	pushq $0			/* fake return address: stack traces end here */
	jmpq *%rax

	/*
	 * The entry of a processor woken through the ACPI Multiprocessor Wakeup
	 * mailbox (a TD: ACPI 6.4 5.2.12.19): it arrives here in 64-bit mode, with
	 * interrupts off and the firmware's identity page tables, GDT and stack.
	 * The page base comes RIP-relative (the code is position independent); then
	 * our GDT, CR4, CR3, EFER (written only if it differs: a TD fixes LME/NXE),
	 * CR0, and a far return to our 64-bit code selector joins the SIPI path at
	 * ap_trampoline_long.
	 */
	.globl ap_mailbox_entry
ap_mailbox_entry:
	cli
	leaq ap_trampoline_start(%rip), %rbx
	lgdt OFF(ap_tr_gdt64)(%rbx)
	movl OFF(ap_tr_cr4)(%rbx), %eax
	movq %rax, %cr4
	movl OFF(ap_tr_cr3)(%rbx), %eax
	movq %rax, %cr3
	movl $0xC0000080, %ecx
	rdmsr
	cmpl OFF(ap_tr_efer)(%rbx), %eax
	je 1f
	movl OFF(ap_tr_efer)(%rbx), %eax
	xorl %edx, %edx
	wrmsr
1:	movl OFF(ap_tr_cr0)(%rbx), %eax
	movq %rax, %cr0
	pushq $0x18
	leaq ap_trampoline_long(%rip), %rax
	pushq %rax
	lretq

	/*
	 * Accessed bits (type bit 0) preset: loading a descriptor whose A bit is
	 * clear makes the CPU write it into the GDT (SDM vol. 3 3.4.5). The far
	 * jump to 0x18 runs with paging on and this page read-only (W^X, smp.c),
	 * and that implicit supervisor write honours R/W under CR0.WP (SDM vol. 3
	 * 4.6.1): it would fault with no IDT loaded, a triple fault. (QEMU's TCG
	 * happens not to write the bit there; hardware and KVM do.)
	 */
	.balign 8
	.globl ap_trampoline_gdt
ap_trampoline_gdt:
	.quad 0
	.quad 0x00cf9b000000ffff	/* 0x08: 32-bit code, flat */
	.quad 0x00cf93000000ffff	/* 0x10: data, flat */
	.quad 0x00af9b000000ffff	/* 0x18: 64-bit code */
ap_trampoline_gdt_end:

	/* The parameter block: layout = struct ap_trampoline_params (smp.c). */
	.balign 8
	.globl ap_trampoline_params
ap_trampoline_params:
ap_tr_gdt_ptr:	.word ap_trampoline_gdt_end - ap_trampoline_gdt - 1
		.long 0			/* GDT linear address */
		.word 0
ap_tr_far32:	.long 0			/* linear address of ap_trampoline_protected */
		.word 0x08
		.word 0
ap_tr_far64:	.long 0			/* linear address of ap_trampoline_long */
		.word 0x18
		.word 0
ap_tr_cr0:	.long 0
ap_tr_cr4:	.long 0
ap_tr_cr3:	.long 0
ap_tr_efer:	.long 0
ap_tr_stack:	.quad 0
ap_tr_arg:	.quad 0
ap_tr_entry:	.quad 0
ap_tr_gdt64:	.word ap_trampoline_gdt_end - ap_trampoline_gdt - 1
		.quad 0			/* GDT linear address, 64-bit form for lgdt in long mode */
	.globl ap_trampoline_end
ap_trampoline_end:

	.section .note.GNU-stack, "", @progbits
