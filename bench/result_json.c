/* SPDX-License-Identifier: MIT */
/*
 * result_json.c - the opening of every benchmark result line (see result_json.h).
 */
#include "bench/result_json.h"

#include <stdio.h>

static const char *bench_accel = "unknown";
static const char *bench_cc = "emulated";
static const char *bench_copy_impl = "unknown";
static const char *bench_scrub = "unknown";

void bench_json_set_accel(const char *name)
{
	bench_accel = name ? name : "unknown";
}

void bench_json_set_cc(const char *name)
{
	bench_cc = name ? name : "emulated";
}

const char *bench_json_cc(void)
{
	return bench_cc;
}

void bench_json_set_dma(const char *copy_impl, const char *scrub)
{
	bench_copy_impl = copy_impl ? copy_impl : "unknown";
	bench_scrub = scrub ? scrub : "unknown";
}

void bench_json_begin(const char *suite)
{
	printf("{\"suite\":\"%s\",\"accel\":\"%s\",\"cc\":\"%s\",\"copy_impl\":\"%s\","
	       "\"scrub\":\"%s\"",
	       suite, bench_accel, bench_cc, bench_copy_impl, bench_scrub);
}

/* The share of an I/O's guest cycles spent in the DMA layer, in percent. */
static double bench_dma_tax_pct(double cycles_dma, double cycles_io)
{
	return cycles_io > 0 ? 100.0 * cycles_dma / cycles_io : 0;
}

void bench_json_io_end(const struct bench_io *r, const struct bench_io *direct,
		       const struct bench_io *base_linux)
{
	printf(",\"cycles_dma\":%.0f,\"cycles_io\":%.0f,\"dma_tax_pct\":%.2f", r->cycles_dma,
	       r->cycles_io, bench_dma_tax_pct(r->cycles_dma, r->cycles_io));
	if (base_linux && base_linux->cycles_io > 0)
		printf(",\"dma_tax_pct_linux\":%.2f",
		       bench_dma_tax_pct(base_linux->cycles_dma, base_linux->cycles_io));
	if (direct && direct->rate > 0)
		printf(",\"ratio_direct\":%.3f", r->rate / direct->rate);
	if (base_linux && base_linux->rate > 0)
		printf(",\"ratio_linux\":%.3f", r->rate / base_linux->rate);
	printf("}\n");
}
