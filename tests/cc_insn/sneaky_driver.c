/* SPDX-License-Identifier: MIT */
/*
 * sneaky_driver.c - a driver that reads a register with a raw port read and asks
 * CPUID itself, bypassing the paravirtual I/O layer: what the instruction audit
 * (scripts/check-cc-insn.py) must refuse. Built only by tests/cc_insn/test_audit.sh,
 * never linked into the kernel.
 */
#include <stdint.h>

uint32_t sneaky_driver_probe(uint16_t port)
{
	uint32_t a, b, c, d, v;

	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v ^ a ^ b ^ c ^ d;
}

uint32_t sneaky_driver_clean(uint32_t x)
{
	return x * 3;
}
