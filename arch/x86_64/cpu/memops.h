/* SPDX-License-Identifier: MIT */
/*
 * memops.h - the bounce copy and clear the kernel hands the DMA layer
 * (sluice_dma_port_ops.copy / .zero), chosen once at boot by timing each
 * candidate on this machine.
 *
 * Why timed and not read from CPUID: which copy is fastest depends on what
 * runs the guest, not only on the CPU model it reports. On hardware with ERMS
 * `rep movsb` moves whole lines; under QEMU 7.2's TCG with `-cpu max`, which
 * reports ERMS, `rep movsb` took 8 times the cycles of newlib's memcpy for a
 * 4 KiB copy and clear, and `rep movsq` a third more (QEMU's user-mode
 * emulator orders them differently again:
 * docs/results/2026-12-06-copy-by-measurement.md). The bounce path costs its
 * copy; the copy should cost what the machine allows.
 */
#ifndef SLUICE_ARCH_MEMOPS_H
#define SLUICE_ARCH_MEMOPS_H

#include <stddef.h>
#include <stdint.h>

#include "arch/x86_64/cpu/cpu.h"

/**
 * struct memops - one copy / clear pair in the DMA layer's port-op shape.
 * @name: for the boot report and benchmark lines ("movsb", "movsq" or "libc").
 * @copy: copy @len bytes (no overlap); NULL: the library's memcpy.
 * @zero: clear @len bytes; NULL: the library's memset.
 */
struct memops {
	const char *name;
	void (*copy)(void *ctx, void *dst, const void *src, size_t len);
	void (*zero)(void *ctx, void *dst, size_t len);
};

/*
 * The `rep movsb` copy and `rep stosb` clear memops_choose() may install, and
 * their bodies, inline: the kernel's library build runs these bodies in place
 * of the calls when the table holds these functions (kernel/dma_port_inline.h).
 */
void memops_copy_movsb(void *ctx, void *dst, const void *src, size_t len);
void memops_zero_stosb(void *ctx, void *dst, size_t len);

static inline __attribute__((always_inline)) void memops_movsb_body(void *dst, const void *src,
								    size_t len)
{
	__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(len) : : "memory");
}

static inline __attribute__((always_inline)) void memops_stosb_body(void *dst, size_t len)
{
	__asm__ volatile("rep stosb" : "+D"(dst), "+c"(len) : "a"(0) : "memory");
}

/*
 * `rep movsq` / `rep stosq` for the whole 8-byte words, then `rep movsb` /
 * `rep stosb` for the 0 to 7 bytes left: any length, any alignment.
 */
void memops_copy_movsq(void *ctx, void *dst, const void *src, size_t len);
void memops_zero_stosq(void *ctx, void *dst, size_t len);

/* The candidates, in the order of memops_candidates[] and of the timings. */
enum memops_kind { MEMOPS_MOVSB, MEMOPS_MOVSQ, MEMOPS_LIBC, MEMOPS_COUNT };

/** memops_candidates - every pair memops_choose() may install, by enum memops_kind. */
extern const struct memops memops_candidates[MEMOPS_COUNT];

/*
 * The length timed: a page, what a block or a frame bounces. Each candidate
 * copies and clears it MEMOPS_RUNS times; the least of the runs is kept, so
 * an interrupt in one run does not count.
 */
#define MEMOPS_TIMED_LEN 4096u
#define MEMOPS_RUNS 16u

/**
 * struct memops_timing - what memops_choose() measured, for the boot report.
 * @copy: cycles of one MEMOPS_TIMED_LEN copy per candidate, least of the runs.
 * @zero: the same for a clear.
 * @preferred: the candidate CPUID suggests (movsb with ERMS, else libc).
 * @chosen: the candidate installed.
 */
struct memops_timing {
	uint64_t copy[MEMOPS_COUNT];
	uint64_t zero[MEMOPS_COUNT];
	enum memops_kind preferred;
	enum memops_kind chosen;
};

/**
 * memops_pick() - the candidate whose copy plus clear took the fewest cycles,
 *	except that @t->preferred stays unless another is faster by more than an
 *	eighth, so that a machine where CPUID's pick is as good as any keeps it
 *	from boot to boot (two others that tie may still swap; every benchmark
 *	line names the one installed).
 * @t: the timings (@t->preferred set).
 * Return: the candidate to install.
 */
enum memops_kind memops_pick(const struct memops_timing *t);

/**
 * memops_time() - time every candidate's copy and clear of MEMOPS_TIMED_LEN
 *	bytes between @dst and @src (each at least that long, private memory),
 *	least of MEMOPS_RUNS runs each, the candidates in turn within each run,
 *	with @clock (cycles).
 * @t: filled in (all but @preferred and @chosen).
 * @cand: MEMOPS_COUNT candidates, by enum memops_kind (memops_candidates;
 *	NULL ops run memcpy / memset).
 * @dst: where the candidates write.
 * @src: what they copy.
 * @clock: the cycle counter.
 */
void memops_time(struct memops_timing *t, const struct memops *cand, void *dst, const void *src,
		 uint64_t (*clock)(void));

/**
 * memops_choose() - time the candidates on this machine (memops_time(), on
 *	scratch memory of its own) and install the one memops_pick() names.
 * @cpu: the identified boot CPU (APs are the same model): its ERMS makes
 *	`rep movsb` the preferred candidate.
 * @out: filled in.
 * @t: the timings, for the boot report.
 */
void memops_choose(const struct cpu_info *cpu, struct memops *out, struct memops_timing *t);

#endif /* SLUICE_ARCH_MEMOPS_H */
