/* SPDX-License-Identifier: MIT */
/*
 * cpu.h - x86_64 instruction wrappers (control registers, TSC, TLB) and the CPU /
 * confidential-computing description reported at boot. Port I/O, CPUID, MSRs and
 * HLT go through the paravirtual I/O layer (pvio.h), included here for them.
 */
#ifndef SLUICE_ARCH_CPU_H
#define SLUICE_ARCH_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86_64/cc/pvio.h"

/* The most CPUs the kernel runs on: the per-CPU tables of gdt.c, trap.c and smp.c. */
#define SMP_MAX_CPUS 16

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t read_cr0(void)
{
	uint64_t v;

	__asm__ volatile("mov %%cr0, %0" : "=r"(v));
	return v;
}

static inline void write_cr0(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr0" : : "r"(v) : "memory");
}

static inline uint64_t read_cr2(void)
{
	uint64_t v;

	__asm__ volatile("mov %%cr2, %0" : "=r"(v));
	return v;
}

static inline uint64_t read_cr3(void)
{
	uint64_t v;

	__asm__ volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}

static inline void write_cr3(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr3" : : "r"(v) : "memory");
}

static inline uint64_t read_cr4(void)
{
	uint64_t v;

	__asm__ volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

static inline void invlpg(uint64_t va)
{
	__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

static inline void cpu_relax(void)
{
	__asm__ volatile("pause");
}

static inline void cpu_halt_forever(void)
{
	for (;;)
		pvio_halt(false);
}

/**
 * enum cc_mode - the confidential-computing technology the guest runs under.
 * @CC_NONE: a plain VM or bare metal.
 * @CC_SEV: AMD SEV (memory encryption only).
 * @CC_SEV_ES: SEV with encrypted register state.
 * @CC_SEV_SNP: SEV with secure nested paging.
 * @CC_TDX: Intel TDX.
 */
enum cc_mode {
	CC_NONE,
	CC_SEV,
	CC_SEV_ES,
	CC_SEV_SNP,
	CC_TDX,
};

/**
 * struct cpu_info - what the boot report says about the processor.
 * @vendor: CPUID vendor string, NUL-terminated.
 * @brand: CPUID brand string (may be empty).
 * @family: display family.
 * @model: display model.
 * @stepping: stepping.
 * @has_invariant_tsc: CPUID 0x80000007 EDX bit 8.
 * @has_x2apic: CPUID 1 ECX bit 21.
 * @has_1g_pages: CPUID 0x80000001 EDX bit 26.
 * @has_nx: CPUID 0x80000001 EDX bit 20: EFER.NXE can be set and bit 63 of a
 *	paging entry then forbids instruction fetches (execute-disable).
 * @has_erms: CPUID 7.0 EBX bit 9: `rep movsb` / `rep stosb` are fast (ERMS).
 * @has_fsrm: CPUID 7.0 EDX bit 4: ... for short lengths too (FSRM).
 * @hypervisor: the hypervisor vendor string from leaf 0x40000000, or empty.
 * @phys_addr_bits: physical address width.
 * @cc: detected confidential-computing mode.
 * @c_bit: SEV's encryption bit position (CC_SEV*), else 0.
 * @sev_status: SEV_STATUS (MSR 0xC0010131) when CPUID says SEV exists, else 0.
 */
struct cpu_info {
	char vendor[13];
	char brand[49];
	unsigned int family, model, stepping;
	bool has_invariant_tsc;
	bool has_x2apic;
	bool has_1g_pages;
	bool has_nx;
	bool has_erms;
	bool has_fsrm;
	char hypervisor[13];
	unsigned int phys_addr_bits;
	enum cc_mode cc;
	unsigned int c_bit;
	uint64_t sev_status;
};

/**
 * struct cpu_probe - where identification reads CPUID and MSRs from: the real
 * instructions in the kernel, tables in the host tests.
 * @ctx: opaque pointer handed back to the callbacks.
 * @cpuid: execute CPUID for @leaf/@subleaf into @regs (EAX, EBX, ECX, EDX).
 * @rdmsr: read MSR @msr; only called for MSRs that CPUID says exist.
 */
struct cpu_probe {
	void *ctx;
	void (*cpuid)(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4]);
	uint64_t (*rdmsr)(void *ctx, uint32_t msr);
};

/**
 * cpu_identify() - fill @info through @probe.
 * @probe: the CPUID / MSR source.
 * @info: filled in.
 *
 * The SEV status MSR is read only when CPUID says SEV exists: reading it elsewhere
 * raises #GP.
 */
void cpu_identify(const struct cpu_probe *probe, struct cpu_info *info);

/**
 * cpu_detect() - cpu_identify() on the CPU this runs on.
 * @info: filled in.
 */
void cpu_detect(struct cpu_info *info);

/**
 * cc_mode_name() - printable name of a confidential-computing mode.
 * @mode: the mode.
 * Return: a static string such as "SEV-SNP" or "none".
 */
const char *cc_mode_name(enum cc_mode mode);

#endif /* SLUICE_ARCH_CPU_H */
