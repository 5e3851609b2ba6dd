/* SPDX-License-Identifier: MIT */
/*
 * bench_stages.c - the totals dma/stage.h's markers add to, and their reading
 * for bench_alloc's cost breakdown (see bench_stages.h).
 */
#include "bench/host/bench_stages.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *const bench_stage_names[DMA_STAGE_COUNT] = {
	[DMA_STAGE_ARGS] = "args",	 [DMA_STAGE_TAG] = "tag",
	[DMA_STAGE_POOL] = "pool",	 [DMA_STAGE_SLOT] = "slot",
	[DMA_STAGE_RECORD] = "record",	 [DMA_STAGE_COPY] = "copy",
	[DMA_STAGE_CACHE] = "cache",	 [DMA_STAGE_STATS] = "stats",
	[DMA_STAGE_LOOKUP] = "lookup",	 [DMA_STAGE_COPY_BACK] = "copy_back",
	[DMA_STAGE_RELEASE] = "release",
};

#ifdef SLUICE_DMA_STAGES
uint64_t sluice_dma_stage_cycles[DMA_STAGE_COUNT + 1];
uint64_t sluice_dma_stage_leaves[DMA_STAGE_COUNT + 1];
unsigned int sluice_dma_stage_now = DMA_STAGE_COUNT;
int sluice_dma_stage_on = 1;
uint64_t sluice_dma_stage_last;

bool bench_stages_built(void)
{
	return true;
}

void bench_stages_enable(bool on)
{
	sluice_dma_stage_on = on;
}

void bench_stages_reset(void)
{
	memset(sluice_dma_stage_cycles, 0, sizeof(sluice_dma_stage_cycles));
	memset(sluice_dma_stage_leaves, 0, sizeof(sluice_dma_stage_leaves));
	sluice_dma_stage_now = DMA_STAGE_COUNT;
	sluice_dma_stage_last = dma_stage_clock();
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double bench_stages_marker_cycles(double *whole)
{
	enum { BATCHES = 31, MARKS = 2000 };
	double v[BATCHES], w[BATCHES];

	for (unsigned int b = 0; b < BATCHES; b++) {
		uint64_t t0;

		bench_stages_reset();
		t0 = dma_stage_clock();
		for (unsigned int i = 0; i < MARKS; i++)
			DMA_STAGE(DMA_STAGE_COUNT);
		w[b] = (double)(dma_stage_clock() - t0) / MARKS;
		v[b] = (double)sluice_dma_stage_cycles[DMA_STAGE_COUNT] /
		       (double)sluice_dma_stage_leaves[DMA_STAGE_COUNT];
	}
	qsort(v, BATCHES, sizeof(v[0]), cmp_double);
	qsort(w, BATCHES, sizeof(w[0]), cmp_double);
	bench_stages_reset();
	*whole = w[BATCHES / 2];
	return v[BATCHES / 2];
}

double bench_stages_read(double out[DMA_STAGE_COUNT], unsigned long pairs, double marker)
{
	uint64_t leaves = 0;

	for (unsigned int st = 0; st < DMA_STAGE_COUNT; st++) {
		out[st] = ((double)sluice_dma_stage_cycles[st] -
			   marker * (double)sluice_dma_stage_leaves[st]) /
			  (double)pairs;
		leaves += sluice_dma_stage_leaves[st];
	}
	return (double)leaves / (double)pairs;
}
#else
bool bench_stages_built(void)
{
	return false;
}

void bench_stages_enable(bool on)
{
	(void)on;
}

void bench_stages_reset(void)
{
}

double bench_stages_marker_cycles(double *whole)
{
	*whole = 0;
	return 0;
}

double bench_stages_read(double out[DMA_STAGE_COUNT], unsigned long pairs, double marker)
{
	(void)pairs;
	(void)marker;
	for (unsigned int st = 0; st < DMA_STAGE_COUNT; st++)
		out[st] = 0;
	return 0;
}
#endif
