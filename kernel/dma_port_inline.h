/* SPDX-License-Identifier: MIT */
/*
 * dma_port_inline.h - the kernel port's inline ops (SLUICE_DMA_PORT_INLINE,
 * <sluice/dma_port.h>): the kernel compiles the library's sources (dma/) with
 * -DSLUICE_DMA_PORT_INLINE='"kernel/dma_port_inline.h"' (Makefile), so that
 * a map or an unmap reads the CPU index and runs the `rep movsb` copy and
 * `rep stosb` scrub in place, with no call through the table. The library
 * runs these bodies only when its table holds the functions named here
 * (kernel_dma_port_ops() and memops_choose() put them there). The other copies
 * memops_choose() may install instead, by timing them at start-up, run as the
 * table says: `rep movsq` called through it, newlib's memcpy and memset (NULL
 * ops) called by the library.
 */
#ifndef SLUICE_KERNEL_DMA_PORT_INLINE_H
#define SLUICE_KERNEL_DMA_PORT_INLINE_H

#include "arch/x86_64/cpu/memops.h"
#include "arch/x86_64/smp/smp.h"

/* The port's cpu_id op (dma_port_kernel.c): smp_cpu_id(). */
unsigned int kernel_dma_cpu_id(void *ctx);

#define SLUICE_DMA_INLINE_CPU_ID_FN kernel_dma_cpu_id
#define SLUICE_DMA_INLINE_CPU_ID(ctx) ((void)(ctx), smp_cpu_id())
#define SLUICE_DMA_INLINE_COPY_FN memops_copy_movsb
#define SLUICE_DMA_INLINE_COPY(ctx, dst, src, len) ((void)(ctx), memops_movsb_body(dst, src, len))
#define SLUICE_DMA_INLINE_ZERO_FN memops_zero_stosb
#define SLUICE_DMA_INLINE_ZERO(ctx, dst, len) ((void)(ctx), memops_stosb_body(dst, len))

#endif /* SLUICE_KERNEL_DMA_PORT_INLINE_H */
