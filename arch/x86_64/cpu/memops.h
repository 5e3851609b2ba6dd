/* SPDX-License-Identifier: MIT */
/*
 * memops.h - the bounce copy and clear the kernel hands the DMA layer
 * (sluice_dma_port_ops.copy / .zero), chosen once at boot from CPUID.
 */
#ifndef SLUICE_ARCH_MEMOPS_H
#define SLUICE_ARCH_MEMOPS_H

#include <stddef.h>

#include "arch/x86_64/cpu/cpu.h"

/**
 * struct memops - one copy / clear pair in the DMA layer's port-op shape.
 * @name: for the boot report and benchmark lines ("movsb" or "libc").
 * @copy: copy @len bytes (no overlap); NULL: the library's memcpy.
 * @zero: clear @len bytes; NULL: the library's memset.
 */
struct memops {
	const char *name;
	void (*copy)(void *ctx, void *dst, const void *src, size_t len);
	void (*zero)(void *ctx, void *dst, size_t len);
};

/*
 * The `rep movsb` copy and `rep stosb` clear memops_choose() may install, and
 * their bodies, inline: the kernel's library build runs these bodies in place
 * of the calls when the table holds these functions (kernel/dma_port_inline.h).
 */
void memops_copy_movsb(void *ctx, void *dst, const void *src, size_t len);
void memops_zero_stosb(void *ctx, void *dst, size_t len);

static inline __attribute__((always_inline)) void memops_movsb_body(void *dst, const void *src,
								    size_t len)
{
	__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(len) : : "memory");
}

static inline __attribute__((always_inline)) void memops_stosb_body(void *dst, size_t len)
{
	__asm__ volatile("rep stosb" : "+D"(dst), "+c"(len) : "a"(0) : "memory");
}

/**
 * memops_choose() - `rep movsb` / `rep stosb` when the CPU reports ERMS (the
 *	microcode then moves whole lines for 4 KiB and up; FSRM makes short
 *	lengths fast too), else newlib's memcpy / memset.
 * @cpu: the identified boot CPU (APs are the same model).
 * @out: filled in.
 */
void memops_choose(const struct cpu_info *cpu, struct memops *out);

#endif /* SLUICE_ARCH_MEMOPS_H */
