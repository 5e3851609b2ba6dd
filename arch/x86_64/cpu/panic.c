/* SPDX-License-Identifier: MIT */
/*
 * panic.c - the kernel's panic (see panic.h).
 */
#include "arch/x86_64/cpu/panic.h"

#include <stdio.h>

#include "arch/x86_64/cpu/qemu_exit.h"
#include "arch/x86_64/cpu/serial.h"

void kernel_panic(const char *why)
{
	/* What was printed before says where; the serial line goes out even if
	 * stdio's state is what broke. */
	fflush(stdout);
	serial_puts("\nsluice: ");
	serial_puts(why);
	serial_puts(": kernel panic\n");
	qemu_exit(SLUICE_EXIT_PANIC);
}
