/* SPDX-License-Identifier: MIT */
/*
 * rounds.c - see rounds.h.
 */
#include "bench/rounds.h"

#include <string.h>

double bench_rounds_median(double *v, unsigned int n)
{
	for (unsigned int i = 1; i < n; i++)
		for (unsigned int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int bench_rounds_median_round(const struct bench_round_figs *line)
{
	int rounds[BENCH_ROUNDS];
	unsigned int n = 0;

	for (int r = 0; r < BENCH_ROUNDS; r++)
		if (line[r].ok)
			rounds[n++] = r;
	/* Sorted by DMA cycles; a tie keeps the earlier round first. */
	for (unsigned int k = 1; k < n; k++)
		for (unsigned int j = k; j > 0 && line[rounds[j - 1]].dma > line[rounds[j]].dma;
		     j--) {
			int t = rounds[j];

			rounds[j] = rounds[j - 1];
			rounds[j - 1] = t;
		}
	return n ? rounds[(n - 1) / 2] : -1;
}

void bench_rounds_over(const struct bench_round_figs *line, const struct bench_round_figs *direct,
		       const struct bench_round_figs *base_linux, struct bench_over *out)
{
	double over[BENCH_ROUNDS], vs[BENCH_ROUNDS], floor[BENCH_ROUNDS];
	unsigned int n = 0, nl = 0;

	memset(out, 0, sizeof(*out));
	for (int r = 0; r < BENCH_ROUNDS; r++) {
		double linux_over;

		if (!line[r].ok || !direct[r].ok)
			continue;
		over[n++] = line[r].dma - direct[r].dma;
		if (!base_linux || !base_linux[r].ok)
			continue;
		linux_over = base_linux[r].dma - direct[r].dma;
		if (linux_over <= 0)
			continue;
		vs[nl] = (line[r].dma - direct[r].dma) / linux_over;
		floor[nl++] = line[r].copy / linux_over;
	}
	out->have = n > 0;
	out->over = n ? bench_rounds_median(over, n) : 0;
	out->have_linux = nl > 0;
	out->vs_linux = nl ? bench_rounds_median(vs, nl) : 0;
	out->copy_floor = nl ? bench_rounds_median(floor, nl) : 0;
}
