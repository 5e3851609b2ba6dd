/* SPDX-License-Identifier: MIT */
/*
 * result_json.h - the opening of every benchmark result line.
 *
 * Every JSON line a suite prints starts with its suite name and the accelerator
 * the figures were taken under ("accel":"tcg" or "kvm", as scripts/run-qemu.sh
 * chose it and passed it in the accel= option; "unknown" when booted another way).
 * scripts/bench.py refuses to put figures of two accelerators in one table.
 */
#ifndef SLUICE_BENCH_RESULT_JSON_H
#define SLUICE_BENCH_RESULT_JSON_H

/**
 * bench_json_set_accel() - name the accelerator for every later result line.
 * @name: "tcg", "kvm" or "unknown"; a string that lives as long as the kernel.
 */
void bench_json_set_accel(const char *name);

/**
 * bench_json_set_cc() - name the confidential-computing platform for every later
 *	result line ("emulated", "sim-tdx", ...).
 * @name: a string that lives as long as the kernel.
 */
void bench_json_set_cc(const char *name);

/**
 * bench_json_cc() - the platform named by bench_json_set_cc() ("emulated" before).
 */
const char *bench_json_cc(void);

/**
 * bench_json_set_dma() - name the DMA layer's start-up choices for every later
 *	result line.
 * @copy_impl: the bounce copy the kernel installed ("movsb", "movsq" or
 *	"libc", from memops_choose()).
 * @scrub: what a from-device bounce slot shows the device before it writes
 *	("zero" or "copy", the scrub= option).
 * Both strings must live as long as the kernel.
 */
void bench_json_set_dma(const char *copy_impl, const char *scrub);

/**
 * bench_json_begin() - print `{"suite":"<suite>","accel":"<accel>","cc":"<cc>",
 *	"copy_impl":"<copy>","scrub":"<scrub>"` with no newline.
 * @suite: the suite's name; the caller prints the remaining keys and the closing brace.
 */
void bench_json_begin(const char *suite);

/**
 * struct bench_io - what the lines of the block and network suites are compared by.
 * @rate: I/Os (frames) per second.
 * @cycles_dma: per I/O (per frame), cycles in the DMA layer's map, sync and unmap
 *	calls, bounce copies and scrubs included.
 * @cycles_io: per I/O (per frame), the guest cycles of the window divided by the
 *	I/Os (frames) completed in it.
 */
struct bench_io {
	double rate, cycles_dma, cycles_io;
};

/**
 * bench_json_io_end() - end one block or network line with its DMA tax and its
 *	ratios: `,"cycles_dma":..,"cycles_io":..,"dma_tax_pct":..`, then, when known,
 *	`,"dma_tax_pct_linux":..`, `,"ratio_direct":..`, `,"ratio_linux":..`, and `}`.
 * @r: this line's figures.
 * @direct: those of mode direct for the same workload in the same boot (NULL: unknown).
 * @base_linux: those of bounce/linux for the same workload in the same boot (NULL:
 *	unknown).
 */
void bench_json_io_end(const struct bench_io *r, const struct bench_io *direct,
		       const struct bench_io *base_linux);

#endif
