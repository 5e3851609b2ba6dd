/* SPDX-License-Identifier: MIT */
/*
 * memops.c - see memops.h. The host benchmark (bench_alloc, copy table)
 * measures these against glibc's and a newlib-shaped `rep movsq` copy.
 */
#include "arch/x86_64/cpu/memops.h"

void memops_copy_movsb(void *ctx, void *dst, const void *src, size_t len)
{
	(void)ctx;
	memops_movsb_body(dst, src, len);
}

void memops_zero_stosb(void *ctx, void *dst, size_t len)
{
	(void)ctx;
	memops_stosb_body(dst, len);
}

void memops_choose(const struct cpu_info *cpu, struct memops *out)
{
	if (cpu->has_erms) {
		*out = (struct memops){ "movsb", memops_copy_movsb, memops_zero_stosb };
		return;
	}
	/* NULL ops: the library calls newlib's memcpy / memset directly. */
	*out = (struct memops){ "libc", NULL, NULL };
}
