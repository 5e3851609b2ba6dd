/* SPDX-License-Identifier: MIT */
/*
 * rounds.h - what the guest's block and network benchmarks print of a
 * workload run in rounds (bench/blk_bench.c, app/net_task.c): every
 * configuration runs each workload in BENCH_ROUNDS rounds, in turn, so that
 * the lines compared in one boot ran close together in time. A line is its
 * configuration's round of the median DMA cycles, and what a bounce line adds
 * over direct (and that over bounce/linux's) is the median of each round's own
 * figure. Pure arithmetic on the rounds' figures, apart so that the host can
 * test it (tests/bench/test_rounds.c).
 */
#ifndef SLUICE_BENCH_ROUNDS_H
#define SLUICE_BENCH_ROUNDS_H

#include <stdbool.h>

#define BENCH_ROUNDS 3

/**
 * struct bench_round_figs - one round of one line.
 * @ok: the round ran (a round may fail: the device, the buffers).
 * @dma: its DMA cycles per I/O (cycles_dma).
 * @copy: its copy and scrub cycles per I/O (cycles_copy).
 */
struct bench_round_figs {
	bool ok;
	double dma, copy;
};

/**
 * struct bench_over - what a bounce line adds per I/O over direct, each figure
 *	the median over the rounds of that round's own.
 * @have: direct ran in a round with this line; @over: its DMA cycles minus
 *	direct's ("dma_over_direct").
 * @have_linux: bounce/linux added cycles in such a round; @vs_linux: @over over
 *	linux's ("dma_over_direct_vs_linux"); @copy_floor: this line's own copy
 *	cycles over linux's ("copy_floor_vs_linux"): the ratio it would have if
 *	its map and unmap cost no more than direct's.
 */
struct bench_over {
	bool have, have_linux;
	double over, vs_linux, copy_floor;
};

/**
 * bench_rounds_median() - the median of @n values, sorted in place: the middle
 *	one, or the mean of the middle two of an even count.
 * @v: the values.
 * @n: how many (at least 1).
 * Return: the median.
 */
double bench_rounds_median(double *v, unsigned int n);

/**
 * bench_rounds_median_round() - the round a line prints: of the rounds that ran,
 *	the one of the median DMA cycles (the lower middle of an even count), a
 *	real run rather than an average of several.
 * @line: BENCH_ROUNDS rounds of the line.
 * Return: its index, or -1 if no round ran.
 */
int bench_rounds_median_round(const struct bench_round_figs *line);

/**
 * bench_rounds_over() - what @line adds over @direct, and that over what
 *	@base_linux adds, from the rounds in which both (all three) ran.
 * @line: BENCH_ROUNDS rounds of a bounce line.
 * @direct: the same workload's rounds in mode direct.
 * @base_linux: in bounce/linux, or NULL when it was not set up; a round in
 *	which it added no cycle counts for no ratio.
 * @out: filled in.
 */
void bench_rounds_over(const struct bench_round_figs *line, const struct bench_round_figs *direct,
		       const struct bench_round_figs *base_linux, struct bench_over *out);

#endif /* SLUICE_BENCH_ROUNDS_H */
