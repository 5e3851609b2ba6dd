/* SPDX-License-Identifier: MIT */
/*
 * blk_rounds.h - what the block benchmark prints of a workload run in rounds
 * (bench/blk_bench.c): every configuration runs each workload in
 * BLK_BENCH_ROUNDS rounds, in turn, so that the lines compared in one boot ran
 * close together in time. A line is its configuration's round of the median
 * DMA cycles, and what a bounce line adds over direct (and that over
 * bounce/linux's) is the median of each round's own figure. Pure arithmetic on
 * the rounds' figures, apart so that the host can test it (tests/bench/).
 */
#ifndef SLUICE_BENCH_BLK_ROUNDS_H
#define SLUICE_BENCH_BLK_ROUNDS_H

#include <stdbool.h>

#define BLK_BENCH_ROUNDS 3

/**
 * struct blk_round_figs - one round of one line.
 * @ok: the round ran (a round may fail: the device, the buffers).
 * @dma: its DMA cycles per I/O (cycles_dma).
 * @copy: its copy and scrub cycles per I/O (cycles_copy).
 */
struct blk_round_figs {
	bool ok;
	double dma, copy;
};

/**
 * struct blk_over - what a bounce line adds per I/O over direct, each figure
 *	the median over the rounds of that round's own.
 * @have: direct ran in a round with this line; @over: its DMA cycles minus
 *	direct's ("dma_over_direct").
 * @have_linux: bounce/linux added cycles in such a round; @vs_linux: @over over
 *	linux's ("dma_over_direct_vs_linux"); @copy_floor: this line's own copy
 *	cycles over linux's ("copy_floor_vs_linux"): the ratio it would have if
 *	its map and unmap cost no more than direct's.
 */
struct blk_over {
	bool have, have_linux;
	double over, vs_linux, copy_floor;
};

/**
 * blk_rounds_median() - the median of @n values, sorted in place: the middle
 *	one, or the mean of the middle two of an even count.
 * @v: the values.
 * @n: how many (at least 1).
 * Return: the median.
 */
double blk_rounds_median(double *v, unsigned int n);

/**
 * blk_rounds_median_round() - the round a line prints: of the rounds that ran,
 *	the one of the median DMA cycles (the lower middle of an even count), a
 *	real run rather than an average of several.
 * @line: BLK_BENCH_ROUNDS rounds of the line.
 * Return: its index, or -1 if no round ran.
 */
int blk_rounds_median_round(const struct blk_round_figs *line);

/**
 * blk_rounds_over() - what @line adds over @direct, and that over what
 *	@base_linux adds, from the rounds in which both (all three) ran.
 * @line: BLK_BENCH_ROUNDS rounds of a bounce line.
 * @direct: the same workload's rounds in mode direct.
 * @base_linux: in bounce/linux, or NULL when it was not set up; a round in
 *	which it added no cycle counts for no ratio.
 * @out: filled in.
 */
void blk_rounds_over(const struct blk_round_figs *line, const struct blk_round_figs *direct,
		     const struct blk_round_figs *base_linux, struct blk_over *out);

#endif /* SLUICE_BENCH_BLK_ROUNDS_H */
