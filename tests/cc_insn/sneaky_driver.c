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

/* The SEV-SNP side: what only arch/x86_64/cc/tee_insn.c may execute (VMGEXIT,
 * PVALIDATE), what no guest code may (VMMCALL, RMPADJUST), and the cache
 * flushes a conversion must ask for through its hooks (WBINVD, CLFLUSH,
 * CLFLUSHOPT). Emitted as bytes, as the TEE layer emits them. */
void sneaky_snp_probe(void *p)
{
	__asm__ volatile(".byte 0xf3, 0x0f, 0x01, 0xd9" ::: "memory"); /* vmgexit */
	__asm__ volatile(".byte 0x0f, 0x01, 0xd9" ::: "memory");       /* vmmcall */
	__asm__ volatile(".byte 0xf2, 0x0f, 0x01, 0xff" ::"a"(p), "c"(0), "d"(1) : "memory", "cc");
	__asm__ volatile(".byte 0xf3, 0x0f, 0x01, 0xfe" ::"a"(p), "c"(0), "d"(0) : "memory", "cc");
	__asm__ volatile("wbinvd" ::: "memory");
	__asm__ volatile("clflush (%0)" ::"r"(p) : "memory");
	__asm__ volatile("clflushopt (%0)" ::"r"(p) : "memory");
}
