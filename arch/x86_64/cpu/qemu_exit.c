/* SPDX-License-Identifier: MIT */
/*
 * qemu_exit.c - isa-debug-exit (see qemu_exit.h for the protocol).
 */
#include "arch/x86_64/cpu/qemu_exit.h"

#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/cpu/serial.h"

void qemu_exit(int code)
{
	if (code < 0 || code > QEMU_EXIT_MAX_CODE)
		code = QEMU_EXIT_MAX_CODE;
	outl(QEMU_EXIT_PORT, QEMU_EXIT_BASE + (unsigned int)code);
	/* Still here: no isa-debug-exit device (real hardware or another VMM). */
	serial_puts("sluice: no isa-debug-exit device; halting\n");
	cpu_halt_forever();
	__builtin_unreachable();
}
