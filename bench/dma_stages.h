/* SPDX-License-Identifier: MIT */
/*
 * dma_stages.h - dma/stage.h's stage markers in the guest: the totals they add to,
 * switched on for the measured window of a block run only. The markers exist in
 * the bench-only image (`make image-stages`, built with -DSLUICE_DMA_STAGES); in
 * every other kernel dma_stages_built() is false and nothing is counted.
 *
 * The totals are one set for the machine, not per CPU: only the single-CPU block
 * runs switch the markers on (no other CPU maps while they run).
 */
#ifndef SLUICE_BENCH_DMA_STAGES_H
#define SLUICE_BENCH_DMA_STAGES_H

#include <stdbool.h>
#include <stdint.h>
#include "dma/stage.h"

/**
 * struct dma_stages_window - the markers' totals over one window.
 * @cycles: per stage, the cycles charged (one marker's cost per leave included).
 * @leaves: per stage, how many times the path left it.
 */
struct dma_stages_window {
	uint64_t cycles[DMA_STAGE_COUNT], leaves[DMA_STAGE_COUNT];
};

/**
 * dma_stages_built() - whether this kernel has the stage markers.
 */
bool dma_stages_built(void);

/**
 * dma_stages_start() - clear the totals and switch the markers on (nothing
 *	without markers).
 */
void dma_stages_start(void);

/**
 * dma_stages_stop() - switch the markers off and take the totals since
 *	dma_stages_start().
 * @out: the totals (all zero without markers).
 */
void dma_stages_stop(struct dma_stages_window *out);

/**
 * dma_stages_per_io() - per stage, the cycles per I/O with each marker's own cost
 *	taken off (the cost of two markers back to back, measured once, median of 31).
 * @w: the window's totals.
 * @ios: I/Os completed in the window (> 0).
 * @out: per stage, cycles per I/O.
 */
void dma_stages_per_io(const struct dma_stages_window *w, uint64_t ios,
		       double out[DMA_STAGE_COUNT]);

#endif /* SLUICE_BENCH_DMA_STAGES_H */
