/* SPDX-License-Identifier: MIT */
/*
 * bench_common.h - what the in-kernel benchmarks and checks share: the measured
 * window of a benchmark that runs on one CPU, opening the block device for one
 * DMA configuration, and gcd64() for the coprime strides of the block checks.
 *
 * The benchmarks that run on several CPUs at once keep their window in
 * smp_window.h instead (CPU 0 keeps the clock there).
 */
#ifndef SLUICE_BENCH_BENCH_COMMON_H
#define SLUICE_BENCH_BENCH_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/cpu/tsc.h"
#include "drivers/deadline.h"
#include "kernel/dma_setup.h"
#include "drivers/virtio/virtio_blk.h"

/**
 * gcd64() - greatest common divisor.
 * @a: one number.
 * @b: the other.
 * Return: gcd(@a, @b); @a when @b is 0.
 */
static inline uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* What bench_window_tick() saw. */
enum bench_phase { BENCH_WARMUP, BENCH_BEGIN, BENCH_MEASURE, BENCH_DONE };

/**
 * struct bench_window - warm-up, then the measured window, on one CPU.
 * @hz: TSC cycles per second.
 * @warmup_cycles: TSC cycles before measuring starts.
 * @run_cycles: TSC cycles measured (at least).
 * @t_start: TSC when the run started.
 * @t_measure: TSC when measuring started (0 before).
 * @measuring: measuring has started.
 */
struct bench_window {
	uint64_t hz, warmup_cycles, run_cycles;
	uint64_t t_start, t_measure;
	bool measuring;
};

/**
 * bench_window_start() - start the warm-up now.
 * @win: the window.
 * @warmup_ms: warm-up.
 * @run_ms: measured time.
 */
static inline void bench_window_start(struct bench_window *win, unsigned int warmup_ms,
				      unsigned int run_ms)
{
	win->hz = tsc_hz();
	win->warmup_cycles = win->hz / 1000 * warmup_ms;
	win->run_cycles = win->hz / 1000 * run_ms;
	win->t_start = rdtsc();
	win->t_measure = 0;
	win->measuring = false;
}

/**
 * bench_window_tick() - one look at the clock, once per poll.
 * @win: a started window.
 * @now: the TSC now.
 * Return: BENCH_BEGIN once, when the warm-up is over (the caller resets its
 * counters); BENCH_DONE once @run_cycles have been measured; else the phase.
 */
static inline enum bench_phase bench_window_tick(struct bench_window *win, uint64_t now)
{
	if (!win->measuring) {
		if (now - win->t_start < win->warmup_cycles)
			return BENCH_WARMUP;
		win->measuring = true;
		win->t_measure = now;
		return BENCH_BEGIN;
	}
	return now - win->t_measure >= win->run_cycles ? BENCH_DONE : BENCH_MEASURE;
}

/**
 * bench_window_over() - whether a measured window may close.
 * @win: a window that bench_window_tick() found BENCH_DONE.
 * @now: the TSC now.
 * @events: completions counted in the window so far.
 * @min_events: completions it needs (at least one turnover of the queue).
 *
 * A window lasts its run time and at least @min_events completions, so that a guest
 * that gets little CPU (a loaded host, TCG) still measures something rather than a
 * window with nothing in it; but never longer than the device deadline
 * (device_timeout_ms=), past which a device that completes nothing is broken, not slow.
 */
static inline bool bench_window_over(const struct bench_window *win, uint64_t now, uint64_t events,
				     uint64_t min_events)
{
	return events >= min_events ||
	       now - win->t_measure >= win->hz / 1000 * deadline_timeout_ms();
}

/**
 * bench_blk_open() - set up the block device for one DMA configuration.
 * @blk: the driver state to fill.
 * @vdev: the virtio-blk device; told confidential unless @cfg is direct mode (the
 *	plain VM, where the device may reach any memory).
 * @kd: the DMA instance.
 * @cfg: the configuration.
 * @max_queues: request queues to ask for at most.
 * @who: the start of the line printed when the device cannot be set up
 *	("<who> mode=<config>: <reason>").
 * Return: 0, or the error of virtio_blk_init() (the reason printed).
 */
int bench_blk_open(struct virtio_blk *blk, struct virtio_device *vdev, struct kernel_dma *kd,
		   const struct kdma_config *cfg, unsigned int max_queues, const char *who);

#endif /* SLUICE_BENCH_BENCH_COMMON_H */
