/* SPDX-License-Identifier: MIT */
/*
 * dma_stages.c - the totals dma/stage.h's markers add to in the guest, and their
 * reading per block I/O (see dma_stages.h).
 */
#include "bench/dma_stages.h"

#include <stdlib.h>
#include <string.h>

#ifdef SLUICE_DMA_STAGES
uint64_t sluice_dma_stage_cycles[DMA_STAGE_COUNT + 1];
uint64_t sluice_dma_stage_leaves[DMA_STAGE_COUNT + 1];
unsigned int sluice_dma_stage_now = DMA_STAGE_COUNT;
int sluice_dma_stage_on; /* off but for a measured block window */
uint64_t sluice_dma_stage_last;

bool dma_stages_built(void)
{
	return true;
}

static void dma_stages_clear(void)
{
	memset(sluice_dma_stage_cycles, 0, sizeof(sluice_dma_stage_cycles));
	memset(sluice_dma_stage_leaves, 0, sizeof(sluice_dma_stage_leaves));
	sluice_dma_stage_now = DMA_STAGE_COUNT;
	sluice_dma_stage_last = dma_stage_clock();
}

void dma_stages_start(void)
{
	dma_stages_clear();
	sluice_dma_stage_on = 1;
}

void dma_stages_stop(struct dma_stages_window *out)
{
	sluice_dma_stage_on = 0;
	memcpy(out->cycles, sluice_dma_stage_cycles, sizeof(out->cycles));
	memcpy(out->leaves, sluice_dma_stage_leaves, sizeof(out->leaves));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The cycles one marker charges the stage it ends: marks back to back, each
 * leaving an empty stage; median over batches. */
static double dma_stages_marker_cycles(void)
{
	enum { BATCHES = 31, MARKS = 2000 };
	static double marker = -1;
	double v[BATCHES];

	if (marker >= 0)
		return marker;
	for (unsigned int b = 0; b < BATCHES; b++) {
		dma_stages_clear();
		sluice_dma_stage_on = 1;
		for (unsigned int i = 0; i < MARKS; i++)
			DMA_STAGE(DMA_STAGE_COUNT);
		sluice_dma_stage_on = 0;
		v[b] = (double)sluice_dma_stage_cycles[DMA_STAGE_COUNT] /
		       (double)sluice_dma_stage_leaves[DMA_STAGE_COUNT];
	}
	qsort(v, BATCHES, sizeof(v[0]), cmp_double);
	marker = v[BATCHES / 2];
	return marker;
}
#else
bool dma_stages_built(void)
{
	return false;
}

void dma_stages_start(void)
{
}

void dma_stages_stop(struct dma_stages_window *out)
{
	memset(out, 0, sizeof(*out));
}

static double dma_stages_marker_cycles(void)
{
	return 0;
}
#endif

void dma_stages_per_io(const struct dma_stages_window *w, uint64_t ios, double out[DMA_STAGE_COUNT])
{
	double marker = dma_stages_marker_cycles();

	for (unsigned int st = 0; st < DMA_STAGE_COUNT; st++)
		out[st] = ((double)w->cycles[st] - marker * (double)w->leaves[st]) / (double)ios;
}
