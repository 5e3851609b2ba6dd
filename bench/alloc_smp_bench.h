/* SPDX-License-Identifier: MIT */
/*
 * alloc_smp_bench.h - the DMA allocator microbenchmark inside the guest, on one
 * CPU and then on every CPU at once: where the bounce policies' locks bite.
 */
#ifndef SLUICE_BENCH_ALLOC_SMP_BENCH_H
#define SLUICE_BENCH_ALLOC_SMP_BENCH_H

#include <stdint.h>

#include "kernel/dma_setup.h"

/**
 * alloc_smp_bench_suite() - every CPU maps and unmaps a private 4 KiB buffer
 * (SLUICE_DMA_TO_DEVICE, so the bounce copy is included) in a closed loop for @run_ms,
 * in every bounce policy and the arena, with 1 CPU and then all.
 * @kd: the DMA set-up.
 * @modes: KDMA_* bit mask (direct has no allocator and is skipped).
 * @run_ms: measured window per run (after a warm-up of a fifth of it).
 *
 * Prints one JSON line per run: "suite":"alloc", "threads", "ns_per_op" and
 * "cycles_per_op" (per map+unmap pair on one CPU), "ops_per_s" over all CPUs,
 * "scaling" (N-CPU ops/s over 1-CPU ops/s) and the DMA-lock figures.
 * Return: number of runs that failed.
 */
int alloc_smp_bench_suite(struct kernel_dma *kd, uint64_t modes, unsigned int run_ms);

#endif /* SLUICE_BENCH_ALLOC_SMP_BENCH_H */
