/* SPDX-License-Identifier: MIT */
/*
 * bench_stages.h - the stage totals of dma/stage.h's markers, read by the cost
 * breakdown of bench_alloc (-K). Only the stage build
 * (build/bench/bench_alloc_stages, built with -DSLUICE_DMA_STAGES) has
 * markers; elsewhere bench_stages_built() is false and nothing is counted.
 */
#ifndef SLUICE_TESTS_BENCH_STAGES_H
#define SLUICE_TESTS_BENCH_STAGES_H

#include <stdbool.h>

#include "dma/stage.h"

extern const char *const bench_stage_names[DMA_STAGE_COUNT];

/* Whether this program was built with the markers. */
bool bench_stages_built(void);
/* Markers on (the default) or off: off, each only tests a flag, so the path can
 * be timed whole in the same program. */
void bench_stages_enable(bool on);
/* Zeroes every total; the path is outside the layer. */
void bench_stages_reset(void);
/* One marker's own cost in cycles: the cycles an empty stage is charged
 * (median of batches of back-to-back markers); *@whole gets what one marker adds
 * to the path timed whole (its two counter reads and its bookkeeping). */
double bench_stages_marker_cycles(double *whole);
/* Per stage, cycles per @pairs with @marker cycles per leave taken off; returns
 * the markers per pair. */
double bench_stages_read(double out[DMA_STAGE_COUNT], unsigned long pairs, double marker);

#endif
