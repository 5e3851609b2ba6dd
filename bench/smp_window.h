/* SPDX-License-Identifier: MIT */
/*
 * smp_window.h - the measured window of a benchmark that runs on several CPUs at
 * once (blk_mq_bench.c, alloc_smp_bench.c); the one-CPU benchmarks use
 * bench_common.h's struct bench_window.
 *
 * CPU 0 keeps the clock: it moves the shared phase from warm-up to measuring to
 * stop. Every CPU notes its own window (its TSC when it saw "measuring" and
 * "stop") and snapshots its own CPU's DMA-lock counters at both edges, so nothing
 * but the phase word is shared and the counters are never read while another CPU
 * writes them.
 */
#ifndef SLUICE_BENCH_SMP_WINDOW_H
#define SLUICE_BENCH_SMP_WINDOW_H

#include <stdint.h>

#include "arch/x86_64/cpu/cpu.h"
#include "kernel/dma_setup.h"

enum smp_phase { SMP_WARMUP, SMP_MEASURE, SMP_STOP };

/**
 * struct smp_window - the shared clock of one run.
 * @warmup_cycles: TSC cycles before measuring starts.
 * @run_cycles: TSC cycles measured.
 * @phase: enum smp_phase, written by CPU 0 only.
 */
struct smp_window {
	uint64_t warmup_cycles, run_cycles;
	int phase;
};

/**
 * struct smp_window_cpu - one CPU's view of the window.
 * @t_start: TSC when the CPU started (CPU 0's clock starts there).
 * @seen: the last phase this CPU acted on.
 * @t_begin: TSC when it saw "measuring".
 * @t_end: TSC when it saw "stop".
 * @lock0: its DMA-lock counters at @t_begin.
 * @lock1: its DMA-lock counters at @t_end.
 */
struct smp_window_cpu {
	uint64_t t_start;
	int seen;
	uint64_t t_begin, t_end;
	struct kdma_cpu_stats lock0, lock1;
};

/**
 * smp_window_reset() - before a run, on CPU 0.
 * @w: the window.
 * @warmup_cycles: warm-up.
 * @run_cycles: measured time.
 */
static inline void smp_window_reset(struct smp_window *w, uint64_t warmup_cycles,
				    uint64_t run_cycles)
{
	w->warmup_cycles = warmup_cycles;
	w->run_cycles = run_cycles;
	w->phase = SMP_WARMUP;
}

/**
 * smp_window_enter() - a CPU starts its share of the run.
 * @c: its view.
 */
static inline void smp_window_enter(struct smp_window_cpu *c)
{
	c->t_start = rdtsc();
	c->seen = SMP_WARMUP;
}

/**
 * smp_window_step() - advance the clock (CPU 0) and note the edges (every CPU).
 * @w: the window.
 * @c: the calling CPU's view.
 * @cpu: its index.
 * @locks: its DMA-lock counters.
 * Return: the phase the CPU is now in.
 */
static inline int smp_window_step(struct smp_window *w, struct smp_window_cpu *c, unsigned int cpu,
				  const struct kdma_cpu_stats *locks)
{
	int phase;

	if (cpu == 0 && c->seen != SMP_STOP) {
		uint64_t now = rdtsc() - c->t_start;

		if (now >= w->warmup_cycles + w->run_cycles)
			__atomic_store_n(&w->phase, SMP_STOP, __ATOMIC_RELEASE);
		else if (now >= w->warmup_cycles)
			__atomic_store_n(&w->phase, SMP_MEASURE, __ATOMIC_RELEASE);
	}
	phase = __atomic_load_n(&w->phase, __ATOMIC_ACQUIRE);
	if (phase != c->seen) {
		if (c->seen == SMP_WARMUP) {
			c->t_begin = rdtsc();
			c->lock0 = *locks;
		}
		if (phase == SMP_STOP) {
			c->t_end = rdtsc();
			c->lock1 = *locks;
		}
		c->seen = phase;
	}
	return c->seen;
}

/**
 * smp_window_abort() - stop the run early (a CPU failed); only CPU 0's call
 *	matters, as only CPU 0 keeps the clock.
 * @w: the window.
 * @cpu: the calling CPU.
 */
static inline void smp_window_abort(struct smp_window *w, unsigned int cpu)
{
	if (cpu == 0)
		__atomic_store_n(&w->phase, SMP_STOP, __ATOMIC_RELEASE);
}

#endif /* SLUICE_BENCH_SMP_WINDOW_H */
