/* SPDX-License-Identifier: MIT */
/*
 * mock_port_inline.h - the host port's inline ops (SLUICE_DMA_PORT_INLINE,
 * <sluice/dma_port.h>): the bodies of mock_port.c's cpu_id and of the copy
 * and zero it chose (`rep movsb` / `rep stosb`, or AVX2 loops where they run
 * and were chosen: mock_port_set_copy()), which a library built with
 * -DSLUICE_DMA_PORT_INLINE='"tests/fakes/mock_port_inline.h"' runs inline
 * when its table holds those functions. One definition of each: mock_port.c's
 * out-of-line ops run these same bodies, so the inline way and the call give
 * one answer. Built so: every bench_alloc build but bench_alloc_calls
 * (bench/host/host.mk) and the tests that set MOCK_PORT_INLINE
 * (tests/dma/dma.mk); every other test calls through the table, so both ways
 * are tested.
 */
#ifndef SLUICE_MOCK_PORT_INLINE_H
#define SLUICE_MOCK_PORT_INLINE_H

#include <assert.h>
#include <stddef.h>

#include "tests/fakes/mock_port.h"

/* The index the calling thread reports (mock_port_set_cpu()). */
extern _Thread_local unsigned int mock_port_cpu_index;

/* The port's cpu_id op: mock_port_cpu_id_body(), out of line. */
unsigned int mock_port_cpu_id(void *ctx);

static inline unsigned int mock_port_cpu_id_body(void *ctx)
{
	const struct mock_port *mp = ctx;

#ifndef MOCK_PORT_DEPLOYED
	/* A test that sets an index the port was not told of is wrong. */
	assert(mock_port_cpu_index < mp->ncpus);
#else
	/* The timed builds (bench/host/host.mk): a deployed port checks nothing here. */
	(void)mp;
#endif
	return mock_port_cpu_index;
}

#define SLUICE_DMA_INLINE_CPU_ID_FN mock_port_cpu_id
#define SLUICE_DMA_INLINE_CPU_ID(ctx) mock_port_cpu_id_body(ctx)

#if defined(__x86_64__) && defined(__SSE2__)
#include "arch/x86_64/cpu/memops.h"

/*
 * Whether the port's chosen copy / clear run the AVX2 loops, else `rep movsb`
 * / `rep stosb` (mock_port_set_copy() and mock_port_set_zero() set them, and
 * only where this CPU runs AVX2). One choice a process, as a machine has one.
 */
extern bool mock_port_avx2_copy, mock_port_avx2_zero;

static inline __attribute__((always_inline)) void mock_port_copy_body(void *dst, const void *src,
								      size_t len)
{
	if (mock_port_avx2_copy)
		memops_avx2_copy_body(dst, src, len);
	else
		memops_movsb_body(dst, src, len);
}

static inline __attribute__((always_inline)) void mock_port_zero_body(void *dst, size_t len)
{
	if (mock_port_avx2_zero)
		memops_avx2_zero_body(dst, len);
	else
		memops_stosb_body(dst, len);
}

/* mock_port_copy_chosen() and mock_port_zero_chosen() (mock_port.h). */
#define SLUICE_DMA_INLINE_COPY_FN mock_port_copy_chosen
#define SLUICE_DMA_INLINE_COPY(ctx, dst, src, len) ((void)(ctx), mock_port_copy_body(dst, src, len))
#define SLUICE_DMA_INLINE_ZERO_FN mock_port_zero_chosen
#define SLUICE_DMA_INLINE_ZERO(ctx, dst, len) ((void)(ctx), mock_port_zero_body(dst, len))
#endif

#endif /* SLUICE_MOCK_PORT_INLINE_H */
