/* SPDX-License-Identifier: MIT */
/*
 * memops.h - the bounce copy and clear the kernel hands the DMA layer
 * (sluice_dma_port_ops.copy / .zero), each chosen once at boot by timing the
 * candidates on this machine (`rep movsb`, `rep movsq`, the C library's, and
 * an AVX2 loop where the CPU and its OS run AVX2). The host port of the
 * benchmarks chooses the same way (bench/host/bench_alloc.c).
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
 * struct memops - a copy and a clear in the DMA layer's port-op shape.
 * @name: the copy's, for the boot report and benchmark lines ("movsb",
 *	"movsq", "libc" or "avx2").
 * @zero_name: the clear's, from the same names.
 * @copy: copy @len bytes (no overlap); NULL: the library's memcpy.
 * @zero: clear @len bytes; NULL: the library's memset.
 */
struct memops {
	const char *name;
	const char *zero_name;
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

#if defined(__SSE2__)
/* The AVX2 bodies' block: four 32-byte registers' worth a loop iteration. */
#define MEMOPS_AVX2_BLOCK 128u

/*
 * vzeroupper clears the upper halves of every YMM register. Code built
 * without AVX keeps only 128-bit values in them, which it leaves alone; code
 * built with it (-mavx2, -march=native) may keep a 256-bit value in any of
 * them across the bodies, so there they clobber all sixteen.
 */
#ifdef __AVX__
#define MEMOPS_AVX2_UPPER_CLOBBERS                                                          \
	"xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", \
		"xmm14", "xmm15",
#else
#define MEMOPS_AVX2_UPPER_CLOBBERS
#endif

/*
 * An AVX2 copy: 128 bytes an iteration through four YMM registers, unaligned
 * loads and stores, then `rep movsb` for the 0 to 127 bytes left (any length,
 * any alignment). Inline assembly, so that a file built without -mavx2 can
 * carry it: it runs only where cpu_avx2_usable() said so (memops_choose(),
 * the host port). vzeroupper on the way out: code after it may run legacy-
 * encoded SSE, which on some CPUs pays a state transition while the upper
 * halves are dirty. A vector loop, unlike a microcoded `rep movsb`, lets the
 * instructions around it overlap the copy (docs/results/2026-12-07-vector-copy.md).
 */
static inline __attribute__((always_inline)) void memops_avx2_copy_body(void *dst, const void *src,
									size_t len)
{
	size_t blocks = len / MEMOPS_AVX2_BLOCK, tail = len % MEMOPS_AVX2_BLOCK;

	if (blocks)
		__asm__ volatile("1:\n\t"
				 "vmovdqu (%1), %%ymm0\n\t"
				 "vmovdqu 32(%1), %%ymm1\n\t"
				 "vmovdqu 64(%1), %%ymm2\n\t"
				 "vmovdqu 96(%1), %%ymm3\n\t"
				 "vmovdqu %%ymm0, (%0)\n\t"
				 "vmovdqu %%ymm1, 32(%0)\n\t"
				 "vmovdqu %%ymm2, 64(%0)\n\t"
				 "vmovdqu %%ymm3, 96(%0)\n\t"
				 "add $128, %1\n\t"
				 "add $128, %0\n\t"
				 "dec %2\n\t"
				 "jnz 1b\n\t"
				 "vzeroupper"
				 : "+r"(dst), "+r"(src), "+r"(blocks)
				 :
				 : "xmm0", "xmm1", "xmm2", "xmm3", MEMOPS_AVX2_UPPER_CLOBBERS "cc",
				   "memory");
	/* Not even a `rep movsb` of 0 bytes: its start-up costs what a short copy does. */
	if (tail)
		memops_movsb_body(dst, src, tail);
}

/* An AVX2 clear: the same shape, one zeroed register stored four times. */
static inline __attribute__((always_inline)) void memops_avx2_zero_body(void *dst, size_t len)
{
	size_t blocks = len / MEMOPS_AVX2_BLOCK, tail = len % MEMOPS_AVX2_BLOCK;

	if (blocks)
		__asm__ volatile("vpxor %%xmm0, %%xmm0, %%xmm0\n\t"
				 "1:\n\t"
				 "vmovdqu %%ymm0, (%0)\n\t"
				 "vmovdqu %%ymm0, 32(%0)\n\t"
				 "vmovdqu %%ymm0, 64(%0)\n\t"
				 "vmovdqu %%ymm0, 96(%0)\n\t"
				 "add $128, %0\n\t"
				 "dec %1\n\t"
				 "jnz 1b\n\t"
				 "vzeroupper"
				 : "+r"(dst), "+r"(blocks)
				 :
				 : "xmm0", "xmm1", "xmm2", "xmm3", MEMOPS_AVX2_UPPER_CLOBBERS "cc",
				   "memory");
	if (tail)
		memops_stosb_body(dst, tail);
}

void memops_copy_avx2(void *ctx, void *dst, const void *src, size_t len);
void memops_zero_avx2(void *ctx, void *dst, size_t len);
#endif

/*
 * `rep movsq` / `rep stosq` for the whole 8-byte words, then `rep movsb` /
 * `rep stosb` for the 0 to 7 bytes left: any length, any alignment.
 */
void memops_copy_movsq(void *ctx, void *dst, const void *src, size_t len);
void memops_zero_stosq(void *ctx, void *dst, size_t len);

/*
 * The candidates, in the order of memops_candidates[] and of the timings.
 * MEMOPS_AVX2 runs only where the CPU and its OS allow it (cpu_info's
 * @has_avx2); elsewhere it is skipped (struct memops_timing's @skip).
 */
enum memops_kind { MEMOPS_MOVSB, MEMOPS_MOVSQ, MEMOPS_LIBC, MEMOPS_AVX2, MEMOPS_COUNT };

/** memops_candidates - every pair memops_choose() may install, by enum memops_kind. */
extern const struct memops memops_candidates[MEMOPS_COUNT];

/*
 * The length timed: a page, what a block or a frame bounces. Each candidate
 * copies and clears it MEMOPS_RUNS times; the least of the runs is kept, so
 * an interrupt in one run does not count.
 */
#define MEMOPS_TIMED_LEN 4096u
#define MEMOPS_RUNS 16u

/*
 * What each timed copy and clear is followed by: MEMOPS_WORK_ADDS register
 * adds in four independent chains, no memory, standing for the work the DMA
 * layer does after a copy or a clear (a bounce's unmap and the next map, an
 * arena free's push and the next alloc: 100 to 230 instructions, make
 * bench-insns). A copy is never paid alone, and candidates differ in how
 * much of that work runs while their stores drain: on the AMD EPYC VM of
 * docs/results/2026-12-07-work-after.md, 96 adds after a 4 KiB `rep stosb`
 * added 21 TSC ticks to its 92 and none to an AVX2 clear's 90, which clears
 * no faster alone. The adds cost every candidate alike where nothing
 * overlaps (an emulator, an in-order CPU), so the order stands there.
 */
#define MEMOPS_WORK_ADDS 96u

/**
 * memops_work_after() - the layer's stand-in work: MEMOPS_WORK_ADDS register
 *	adds in four independent chains, no memory, so a CPU may run them while
 *	a copy's stores drain (struct memops_timing's @after).
 */
void memops_work_after(void);

/**
 * struct memops_timing - what memops_choose() measured, for the boot report.
 * @copy: cycles of one MEMOPS_TIMED_LEN copy and the MEMOPS_WORK_ADDS adds
 *	after it per candidate, least of the runs; UINT64_MAX for one skipped.
 * @zero: the same for a clear.
 * @skip: set by the caller before memops_time(): candidates not to run nor
 *	pick (the CPU or its OS lacks them, or the port cannot install them).
 * @reps: set by the caller before memops_time(): copies (and clears) between
 *	two clock reads, for a clock coarser than one copy (a VM's TSC that
 *	steps by 26 ticks, 10 ns); 0 is 1. @copy and @zero are per copy.
 * @runs: set by the caller before memops_time(): runs to keep the least of;
 *	0 is MEMOPS_RUNS. More spread the timing over more time, past a slow
 *	spell of a VM that lasts longer than a few runs (bench_alloc).
 * @after: set by the caller before memops_time(): run after every timed copy
 *	and clear, inside the timing (memops_work_after(): memops_choose() and
 *	bench_alloc set it); NULL runs nothing after them.
 * @preferred: the candidate CPUID suggests (movsb with ERMS, else libc).
 * @chosen_copy: the candidate whose copy is installed.
 * @chosen_zero: the candidate whose clear is installed.
 */
struct memops_timing {
	uint64_t copy[MEMOPS_COUNT];
	uint64_t zero[MEMOPS_COUNT];
	bool skip[MEMOPS_COUNT];
	unsigned int reps;
	unsigned int runs;
	void (*after)(void);
	enum memops_kind preferred;
	enum memops_kind chosen_copy;
	enum memops_kind chosen_zero;
};

/**
 * memops_pick() - of the candidates not skipped, the one whose copy (or
 *	clear) took the fewest cycles, except that @t->preferred stays unless
 *	another is faster by more than an eighth, so that a machine where
 *	CPUID's pick is as good as any keeps it from boot to boot (two others
 *	that tie may still swap; every benchmark line names the one installed).
 *	The copy and the clear are picked apart: a bounce copies, a scrub
 *	clears, and a machine may do one fastest one way and the other another
 *	(an AVX2 loop copied 4 KiB 17 % faster than `rep movsb` on an AMD EPYC
 *	VM and cleared it 3 % faster: docs/results/2026-12-07-vector-copy.md).
 * @t: the timings (@t->preferred set, and not skipped).
 * @zero: pick the clear (true) or the copy (false).
 * Return: the candidate to install.
 */
enum memops_kind memops_pick(const struct memops_timing *t, bool zero);

/**
 * memops_install() - the copy of @t->chosen_copy and the clear of
 *	@t->chosen_zero, with their names, as one pair of port ops.
 * @t: the timings, both picks made.
 * @cand: the candidates, by enum memops_kind.
 * @out: filled in.
 */
void memops_install(const struct memops_timing *t, const struct memops *cand, struct memops *out);

/**
 * memops_print_candidates() - every candidate's copy and clear of @t, for a
 *	report line: ", name copy + clear" each, "-" for one skipped, and
 *	CPUID's pick marked (the kernel's boot report, bench_alloc's header).
 * @t: the timings.
 */
void memops_print_candidates(const struct memops_timing *t);

/**
 * memops_time() - time every candidate's copy and clear of MEMOPS_TIMED_LEN
 *	bytes between @dst and @src (each at least that long, private memory),
 *	each followed by @t->after (the layer's work after it), least of
 *	@t->runs runs each, the candidates in turn within each run, with @clock
 *	(cycles).
 * @t: filled in (all but @skip, @reps, @runs and @after, which it reads,
 *	@preferred and the picks).
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
 *	`rep movsb` the preferred candidate, and without @has_avx2 the AVX2
 *	candidate is skipped.
 * @out: filled in.
 * @t: the timings, for the boot report.
 */
void memops_choose(const struct cpu_info *cpu, struct memops *out, struct memops_timing *t);

#endif /* SLUICE_ARCH_MEMOPS_H */
