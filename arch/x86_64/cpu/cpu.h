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
 * @has_avx2: 32-byte vector instructions run here: cpu_avx2_usable() of
 *	CPUID 1 ECX, CPUID 7.0 EBX and XCR0.
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
	bool has_avx2;
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
 * @xgetbv: read extended control register @xcr; only called when CPUID 1 ECX
 *	says OSXSAVE (XGETBV raises #UD while CR4.OSXSAVE is clear). NULL: no
 *	register state beyond SSE is enabled.
 */
struct cpu_probe {
	void *ctx;
	void (*cpuid)(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4]);
	uint64_t (*rdmsr)(void *ctx, uint32_t msr);
	uint64_t (*xgetbv)(void *ctx, uint32_t xcr);
};

/* CPUID 1 ECX: XSAVE enabled by the OS (CR4.OSXSAVE), and AVX. */
#define CPUID1_ECX_OSXSAVE (1u << 27)
#define CPUID1_ECX_AVX (1u << 28)
/* CPUID 7.0 EBX: AVX2. */
#define CPUID7_EBX_AVX2 (1u << 5)
/* CR4: XSAVE and the extended control registers enabled (OSXSAVE). */
#define CR4_OSXSAVE ((uint64_t)1 << 18)
/* XCR0: the SSE and AVX (upper YMM) register state the OS saves. */
#define XCR0_SSE_AVX ((uint64_t)6)

/**
 * cpu_avx2_usable() - whether 32-byte AVX2 instructions run: the CPU has AVX
 *	and AVX2, and the OS enabled XSAVE and the state of the YMM registers
 *	(Intel SDM vol. 1, 14.3 "Detection of Intel AVX instructions"). Without
 *	the OS's part they raise #UD, whatever CPUID says of the CPU.
 * @cpuid1_ecx: CPUID 1 ECX.
 * @cpuid7_ebx: CPUID 7.0 EBX (0 if leaf 7 is above the maximum leaf).
 * @xcr0: XCR0 (0 when OSXSAVE is clear: it cannot be read then).
 * Return: true when they run.
 */
static inline bool cpu_avx2_usable(uint32_t cpuid1_ecx, uint32_t cpuid7_ebx, uint64_t xcr0)
{
	uint32_t need1 = CPUID1_ECX_OSXSAVE | CPUID1_ECX_AVX;

	return (cpuid1_ecx & need1) == need1 && (cpuid7_ebx & CPUID7_EBX_AVX2) &&
	       (xcr0 & XCR0_SSE_AVX) == XCR0_SSE_AVX;
}

/**
 * xgetbv() - read extended control register @xcr; #UD unless CR4.OSXSAVE is set.
 * @xcr: the register (0: XCR0).
 * Return: its value.
 */
static inline uint64_t xgetbv(uint32_t xcr)
{
	uint32_t lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(xcr));
	return ((uint64_t)hi << 32) | lo;
}

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
