/* SPDX-License-Identifier: MIT */
/*
 * stage.h - stage markers of the map / unmap path, for the cost breakdown of
 * the host benchmark (bench_alloc -K). Compiled out unless the build defines
 * SLUICE_DMA_STAGES, which only the benchmark's stage build does
 * (build/bench/bench_alloc_stages, bench/host/host.mk): the library, the kernel and
 * every test are built without it, and there DMA_STAGE() is nothing at all.
 *
 * A marker ends a stage: the cycles since the previous marker are added to
 * that stage's total. The marker is `lfence; rdtsc` (lfence keeps the counter
 * read from starting before the stage's instructions have), so each stage's
 * figure includes one marker's own cost, which the benchmark measures (two
 * markers back to back) and subtracts. The benchmark defines the totals
 * (bench/host/bench_stages.c) and runs one thread.
 */
#ifndef SLUICE_DMA_STAGE_H
#define SLUICE_DMA_STAGE_H

#include <stdint.h>

/* The stages of one bounce map + unmap, in path order. */
enum dma_stage {
	DMA_STAGE_ARGS,	     /* the map call's argument checks */
	DMA_STAGE_TAG,	     /* sluice_dma_tag_check() */
	DMA_STAGE_POOL,	     /* in-place test, attributes, CPU id, request, pool choice */
	DMA_STAGE_SLOT,	     /* the policy's slot allocation */
	DMA_STAGE_RECORD,    /* the slot record written at map time */
	DMA_STAGE_COPY,	     /* the bounce copy (or scrub) at map time */
	DMA_STAGE_CACHE,     /* cache maintenance (the port's op, if any) */
	DMA_STAGE_STATS,     /* statistics: per-CPU counters, copy profiling */
	DMA_STAGE_LOOKUP,    /* unmap: argument checks, pool and record lookup, checks */
	DMA_STAGE_COPY_BACK, /* unmap: the copy back of a from-device mapping */
	DMA_STAGE_RELEASE,   /* unmap: record cleared, slots freed by the policy */
	DMA_STAGE_COUNT
};

#ifdef SLUICE_DMA_STAGES
#if !defined(__x86_64__) && !defined(__i386__)
#error "SLUICE_DMA_STAGES: the stage markers read the x86 time-stamp counter"
#endif
/*
 * Defined by the benchmark: per stage the cycles charged and how many times
 * the stage was left (each leave costs one marker, subtracted later); the
 * stage running now (DMA_STAGE_COUNT: outside the layer) and its start.
 */
extern uint64_t sluice_dma_stage_cycles[DMA_STAGE_COUNT + 1];
extern uint64_t sluice_dma_stage_leaves[DMA_STAGE_COUNT + 1];
extern unsigned int sluice_dma_stage_now;
extern int sluice_dma_stage_on; /* 0: markers only test this (the pair timed whole) */
extern uint64_t sluice_dma_stage_last;

static inline uint64_t dma_stage_clock(void)
{
	__builtin_ia32_lfence();
	return __builtin_ia32_rdtsc();
}

/* Charges the cycles since the last marker to the running stage, then runs
 * @st; returns the stage that ran. */
static inline unsigned int dma_stage_to(unsigned int st)
{
	uint64_t now;
	unsigned int prev = sluice_dma_stage_now;

	if (!sluice_dma_stage_on)
		return prev;
	now = dma_stage_clock();
	sluice_dma_stage_cycles[prev] += now - sluice_dma_stage_last;
	sluice_dma_stage_leaves[prev]++;
	sluice_dma_stage_now = st;
	sluice_dma_stage_last = dma_stage_clock();
	return prev;
}

/* The path enters stage @st (the previous one ends here). */
#define DMA_STAGE(st) ((void)dma_stage_to(st))
/* A stage inside another (statistics anywhere): PUSH enters it, POP returns. */
#define DMA_STAGE_PUSH(st) unsigned int dma_stage_prev_ = dma_stage_to(st)
#define DMA_STAGE_POP() ((void)dma_stage_to(dma_stage_prev_))
#else
#define DMA_STAGE(st) ((void)0)
#define DMA_STAGE_PUSH(st) ((void)0)
#define DMA_STAGE_POP() ((void)0)
#endif

#endif /* SLUICE_DMA_STAGE_H */
