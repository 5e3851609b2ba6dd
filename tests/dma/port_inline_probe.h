/* SPDX-License-Identifier: MIT */
/*
 * port_inline_probe.h - a port's inline ops (SLUICE_DMA_PORT_INLINE,
 * <sluice/dma_port.h>) that count where they ran, for test_port_inline.c: the
 * library built with this header must run the inline body exactly when its
 * table holds the named function, and call through the table otherwise.
 */
#ifndef SLUICE_TESTS_PORT_INLINE_PROBE_H
#define SLUICE_TESTS_PORT_INLINE_PROBE_H

#include <stddef.h>
#include <string.h>

/* How often each body ran inline (in the library) and as a call (the op). */
struct probe_counts {
	unsigned long cpu_inline, cpu_called;
	unsigned long copy_inline, copy_called;
	unsigned long zero_inline, zero_called;
};

extern struct probe_counts probe_counts;
/* The ctx the table holds, and how often an inline body got another one. */
extern void *probe_ctx;
extern unsigned long probe_ctx_wrong;
/* The index probe_cpu_id() reports; may exceed the layer's CPUs (then folded). */
extern unsigned int probe_cpu;

/* The functions a table names: each counts a call and runs the same work. */
unsigned int probe_cpu_id(void *ctx);
void probe_copy(void *ctx, void *dst, const void *src, size_t len);
void probe_zero(void *ctx, void *dst, size_t len);

#define SLUICE_DMA_INLINE_CPU_ID_FN probe_cpu_id
#define PROBE_CTX(ctx) (probe_ctx_wrong += (void *)(ctx) != probe_ctx)
#define SLUICE_DMA_INLINE_CPU_ID(ctx) (PROBE_CTX(ctx), probe_counts.cpu_inline++, probe_cpu)
#define SLUICE_DMA_INLINE_COPY_FN probe_copy
#define SLUICE_DMA_INLINE_COPY(ctx, dst, src, len) \
	(PROBE_CTX(ctx), probe_counts.copy_inline++, (void)memcpy(dst, src, len))
#define SLUICE_DMA_INLINE_ZERO_FN probe_zero
#define SLUICE_DMA_INLINE_ZERO(ctx, dst, len) \
	(PROBE_CTX(ctx), probe_counts.zero_inline++, (void)memset(dst, 0, len))

#endif /* SLUICE_TESTS_PORT_INLINE_PROBE_H */
