/* SPDX-License-Identifier: MIT */
/*
 * qemu_exit.h - leaving QEMU with a status through the isa-debug-exit device.
 *
 * Exit protocol (documented in README.md and mapped by scripts/run-qemu.sh): the
 * kernel writes QEMU_EXIT_BASE + code to port 0xF4; QEMU exits with
 * ((QEMU_EXIT_BASE + code) << 1) | 1, so code 0 (pass) gives status 33, and code n
 * gives 33 + 2n. A plain QEMU status 0 or 1 therefore never means "pass".
 */
#ifndef SLUICE_ARCH_QEMU_EXIT_H
#define SLUICE_ARCH_QEMU_EXIT_H

#define QEMU_EXIT_PORT 0xF4
#define QEMU_EXIT_BASE 0x10
/* Largest code the protocol carries; larger codes are clamped to it. */
#define QEMU_EXIT_MAX_CODE 0x6f

/* Kernel exit codes the run script and tests know. */
#define SLUICE_EXIT_PASS 0
#define SLUICE_EXIT_FAIL 1	 /* a check or test inside the kernel failed */
#define SLUICE_EXIT_BAD_OPTION 2 /* invalid options on the command line */
#define SLUICE_EXIT_EXCEPTION 3	 /* a CPU exception */
#define SLUICE_EXIT_BOOT 4	 /* boot could not complete */
#define SLUICE_EXIT_PANIC 5	 /* kernel panic or abort() */
#define SLUICE_EXIT_DEVICE \
	6 /* a device broke its protocol, missed its deadline or
				 * did not reset; the kernel stopped using it */

/**
 * qemu_exit() - leave QEMU with @code; if the device is absent, halt forever.
 * @code: 0 for pass, a SLUICE_EXIT_* code otherwise.
 */
__attribute__((noreturn)) void qemu_exit(int code);

#endif /* SLUICE_ARCH_QEMU_EXIT_H */
