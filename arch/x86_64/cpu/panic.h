/* SPDX-License-Identifier: MIT */
/*
 * panic.h - the kernel's panic, in the lowest room of arch/x86_64.
 *
 * arch/ used to end the kernel by calling abort(), which the boot floor's
 * newlib glue (kernel/syscalls.c) defines: a call from floor 0 up to floor 2.
 * Now arch/ calls kernel_panic() here, and abort() calls down into it.
 */
#ifndef SLUICE_ARCH_CPU_PANIC_H
#define SLUICE_ARCH_CPU_PANIC_H

/**
 * kernel_panic() - end the kernel for a broken invariant: stdout flushed, the
 *	reason on the serial console ("sluice: <why>: kernel panic"), exit status
 *	SLUICE_EXIT_PANIC through QEMU's exit port (or the platform's way out).
 *	Never returns.
 * @why: what broke.
 */
__attribute__((noreturn)) void kernel_panic(const char *why);

#endif /* SLUICE_ARCH_CPU_PANIC_H */
