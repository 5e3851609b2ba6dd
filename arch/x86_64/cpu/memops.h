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

/**
 * memops_choose() - `rep movsb` / `rep stosb` when the CPU reports ERMS (the
 *	microcode then moves whole lines for 4 KiB and up; FSRM makes short
 *	lengths fast too), else newlib's memcpy / memset.
 * @cpu: the identified boot CPU (APs are the same model).
 * @out: filled in.
 */
void memops_choose(const struct cpu_info *cpu, struct memops *out);

#endif /* SLUICE_ARCH_MEMOPS_H */
