/* SPDX-License-Identifier: MIT */
/*
 * bench_floor_arena.c - the floor under the arena's 4 KiB free+alloc on this
 * machine (make bench-floor): the least an arena can do around its scrub,
 * written by hand, with and without the claim the double-free guarantee needs.
 *
 * The "arena" here is sixty-four 4 KiB blocks (sixteen in use: a free's block
 * is the next alloc's), a byte of state each and an array stack of free
 * blocks. Its free checks the block is live, claims it
 * (marks it freeing), scrubs it with `rep stosb` and pushes it; its alloc pops
 * a block and marks it live. Sixteen blocks in flight, "free the oldest,
 * allocate a new one", as bench_alloc's arena cells; the reference is the
 * same `rep stosb` over sixteen blocks in turn, as theirs.
 *
 * The claim is made three ways, each in its own pair of non-inlined functions:
 * - plain: a load and a store (what dma/arena.c's bench-only NO_CAS build does;
 *   wrong with two CPUs: two frees of one block can both get past it, and a
 *   free can miss another CPU's in-place map of the block);
 * - cas: a sequentially consistent compare-and-swap of the state byte, as
 *   dma/arena_priv.h's arena_claim() makes it;
 * - fence: the plain claim and then a locked add to a line of its own, which
 *   orders nothing the free needs: any locked instruction, not the claim.
 * and, as controls, the plain and the compare-and-swap claims with no scrub,
 * where no store is left to drain. If cas and fence cost alike, the claim
 * costs what any locked instruction costs, not the compare-and-swap's own
 * work; the controls show how much of that a locked instruction costs with no
 * scrub before it (Intel SDM vol. 3A, memory ordering: "Loads May Be
 * Reordered with Earlier Stores to Different Locations", "Loads and Stores
 * Are Not Reordered with Locked Instructions").
 *
 * And what any instruction costs after a scrub: the plain claim followed by
 * 48 register adds in 8 independent chains (no memory, no dependence on the
 * scrub), with and without the scrub. Were they free to run while the
 * scrub's stores drain, the first would cost what the plain claim does. On
 * the AMD EPYC VM of docs/results/2026-12-06-arena-leaf.md they add 3.7-5.5
 * ns after a scrub, about 0.1 ns each, twice the 2.2 ns they add with none:
 * there every instruction of an arena's free+alloc adds to its scrub.
 *
 * And the plain and the compare-and-swap claims with the port's AVX2 clear
 * (arch/x86_64/cpu/memops.h) instead, read against that clear alone, where
 * the CPU runs AVX2: vector stores let the work after them run while they
 * drain, until a locked instruction waits for them, so there the claim's
 * price is that wait.
 *
 * Rounds run every variant and the reference in turn, pinned to CPU 0; medians
 * are printed. A measurement: it prints, and never fails on a time.
 */
#define _GNU_SOURCE /* sched_setaffinity() */
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arch/x86_64/cpu/memops.h"

#define ARENA_FLOOR_DEPTH 16
#define ARENA_FLOOR_BLOCK 4096
#define ARENA_FLOOR_BLOCKS 64
#define ARENA_FLOOR_ROUNDS 15
#define ARENA_FLOOR_PAIRS 100000

enum { BLOCK_FREE, BLOCK_LIVE, BLOCK_FREEING };

static unsigned char *arena_pool;
static uint8_t arena_state[ARENA_FLOOR_BLOCKS];
static uint32_t arena_stack[ARENA_FLOOR_BLOCKS];
static uint32_t arena_n;
/* The fence variant's locked add goes here, on a line nothing else touches. */
static _Alignas(64) unsigned long arena_fence_line[8];

static inline void floor_stosb(void *dst, size_t len)
{
	__asm__ volatile("rep stosb" : "+D"(dst), "+c"(len) : "a"(0) : "memory");
}

/* The port's AVX2 clear, the body dma/'s inline zero runs where it is installed. */
static inline void floor_avx2_clear(void *dst, size_t len)
{
	memops_avx2_zero_body(dst, len);
}

static double floor_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Block index of @p, or -1 if @p is not a block start. */
static inline long arena_index(const void *p)
{
	uintptr_t off = (uintptr_t)p - (uintptr_t)arena_pool;

	if (off >= (size_t)ARENA_FLOOR_BLOCKS * ARENA_FLOOR_BLOCK || off % ARENA_FLOOR_BLOCK)
		return -1;
	return (long)(off / ARENA_FLOOR_BLOCK);
}

static inline void arena_push(long b)
{
	arena_state[b] = BLOCK_FREE;
	arena_stack[arena_n++] = (uint32_t)b;
}

static inline void arena_put(void *p, long b)
{
	floor_stosb(p, ARENA_FLOOR_BLOCK);
	arena_push(b);
}

/* The two claims: the block is live and is now FREEING, or false. */
static inline __attribute__((always_inline)) bool claim_plain(long b)
{
	if (b < 0 || arena_state[b] != BLOCK_LIVE)
		return false;
	arena_state[b] = BLOCK_FREEING;
	return true;
}

static inline __attribute__((always_inline)) bool claim_cas(long b)
{
	uint8_t want = BLOCK_LIVE;

	return b >= 0 && __atomic_compare_exchange_n(&arena_state[b], &want, BLOCK_FREEING, false,
						     __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

static __attribute__((noinline)) int arena_free_plain(void *p)
{
	long b = arena_index(p);

	if (!claim_plain(b))
		return -1;
	arena_put(p, b);
	return 0;
}

static __attribute__((noinline)) int arena_free_cas(void *p)
{
	long b = arena_index(p);

	if (!claim_cas(b))
		return -1;
	arena_put(p, b);
	return 0;
}

static __attribute__((noinline)) int arena_free_fence(void *p)
{
	long b = arena_index(p);

	if (!claim_plain(b))
		return -1;
	__atomic_fetch_add(&arena_fence_line[0], 1, __ATOMIC_SEQ_CST);
	arena_put(p, b);
	return 0;
}

/* 48 register adds, 8 independent chains of 6: work with nothing to wait for. */
static inline void floor_adds48(void)
{
	unsigned long a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0;

	__asm__ volatile(".rept 6\n\t"
			 "add $1, %0; add $1, %1; add $1, %2; add $1, %3\n\t"
			 "add $1, %4; add $1, %5; add $1, %6; add $1, %7\n\t"
			 ".endr"
			 : "+r"(a), "+r"(b), "+r"(c), "+r"(d), "+r"(e), "+r"(f), "+r"(g), "+r"(h));
}

static __attribute__((noinline)) int arena_free_plain_adds(void *p)
{
	int rc = arena_free_plain(p);

	floor_adds48();
	return rc;
}

/*
 * The plain and the compare-and-swap claims with the AVX2 clear in place of
 * `rep stosb`: vector stores let the work after them run while they drain,
 * until a locked instruction waits for them (docs/results/2026-12-07-work-after.md).
 */
static inline void arena_put_avx2(void *p, long b)
{
	floor_avx2_clear(p, ARENA_FLOOR_BLOCK);
	arena_push(b);
}

static __attribute__((noinline)) int arena_free_plain_avx2(void *p)
{
	long b = arena_index(p);

	if (!claim_plain(b))
		return -1;
	arena_put_avx2(p, b);
	return 0;
}

static __attribute__((noinline)) int arena_free_cas_avx2(void *p)
{
	long b = arena_index(p);

	if (!claim_cas(b))
		return -1;
	arena_put_avx2(p, b);
	return 0;
}

/* The controls: the same claims with no scrub, so nothing is left to drain. */
static __attribute__((noinline)) int arena_free_plain_noscrub(void *p)
{
	long b = arena_index(p);

	if (!claim_plain(b))
		return -1;
	arena_push(b);
	return 0;
}

static __attribute__((noinline)) int arena_free_cas_noscrub(void *p)
{
	long b = arena_index(p);

	if (!claim_cas(b))
		return -1;
	arena_push(b);
	return 0;
}

static __attribute__((noinline)) int arena_free_plain_noscrub_adds(void *p)
{
	int rc = arena_free_plain_noscrub(p);

	floor_adds48();
	return rc;
}

static __attribute__((noinline)) void *arena_alloc(void)
{
	uint32_t b;

	if (!arena_n)
		return NULL;
	b = arena_stack[--arena_n];
	arena_state[b] = BLOCK_LIVE;
	return arena_pool + (size_t)b * ARENA_FLOOR_BLOCK;
}

/* What a variant's free scrubs with, and so which reference it is read against. */
enum floor_scrub { SCRUB_NONE, SCRUB_STOSB, SCRUB_AVX2 };

static const struct arena_floor_variant {
	const char *name;
	int (*free_fn)(void *p);
	enum floor_scrub scrub;
} arena_variants[] = {
	{ "plain claim", arena_free_plain, SCRUB_STOSB },
	{ "compare-and-swap claim", arena_free_cas, SCRUB_STOSB },
	{ "plain claim + locked add elsewhere", arena_free_fence, SCRUB_STOSB },
	{ "no scrub: plain claim", arena_free_plain_noscrub, SCRUB_NONE },
	{ "no scrub: compare-and-swap claim", arena_free_cas_noscrub, SCRUB_NONE },
	{ "plain claim + 48 register adds", arena_free_plain_adds, SCRUB_STOSB },
	{ "no scrub: plain claim + 48 register adds", arena_free_plain_noscrub_adds, SCRUB_NONE },
	{ "AVX2 clear: plain claim", arena_free_plain_avx2, SCRUB_AVX2 },
	{ "AVX2 clear: compare-and-swap claim", arena_free_cas_avx2, SCRUB_AVX2 },
};
enum { NVARIANTS = sizeof(arena_variants) / sizeof(arena_variants[0]) };

/* ns per free+alloc pair of @v over one round, or a negative value on a refusal. */
static double arena_round(const struct arena_floor_variant *v, void **q)
{
	double t0 = floor_now_ns();

	for (unsigned long i = 0; i < ARENA_FLOOR_PAIRS; i++) {
		void **x = &q[i % ARENA_FLOOR_DEPTH];

		if (v->free_fn(*x) || !(*x = arena_alloc()))
			return -1;
	}
	return (floor_now_ns() - t0) / ARENA_FLOOR_PAIRS;
}

/* ns per 4 KiB clear (AVX2 if @avx2, else `rep stosb`) over @blocks in turn, as
 * bench_alloc's scrub reference. */
static double scrub_round(unsigned char *blocks, bool avx2)
{
	double t0 = floor_now_ns();

	for (unsigned long i = 0; i < ARENA_FLOOR_PAIRS; i++) {
		unsigned char *z = blocks + (i % ARENA_FLOOR_DEPTH) * ARENA_FLOOR_BLOCK;

		if (avx2)
			floor_avx2_clear(z, ARENA_FLOOR_BLOCK);
		else
			floor_stosb(z, ARENA_FLOOR_BLOCK);
		__asm__ volatile("" : : "r"(z) : "memory");
	}
	return (floor_now_ns() - t0) / ARENA_FLOOR_PAIRS;
}

static int floor_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(double), floor_cmp);
	return v[n / 2];
}

int main(void)
{
	unsigned char *ref = aligned_alloc(4096, (size_t)ARENA_FLOOR_DEPTH * ARENA_FLOOR_BLOCK);
	double t[NVARIANTS][ARENA_FLOOR_ROUNDS], scrub[2][ARENA_FLOOR_ROUNDS], s[2];
	/* The AVX2 variants run only where the CPU and its OS run AVX2 (CPUID, XCR0). */
	bool avx2 = __builtin_cpu_supports("avx2");
	void *q[ARENA_FLOOR_DEPTH];
	cpu_set_t set;

	arena_pool = aligned_alloc(4096, (size_t)ARENA_FLOOR_BLOCKS * ARENA_FLOOR_BLOCK);
	if (!ref || !arena_pool) {
		fprintf(stderr, "bench_floor_arena: out of memory\n");
		return 1;
	}
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	(void)sched_setaffinity(0, sizeof(set), &set);
	memset(ref, 1, (size_t)ARENA_FLOOR_DEPTH * ARENA_FLOOR_BLOCK);
	memset(arena_pool, 0, (size_t)ARENA_FLOOR_BLOCKS * ARENA_FLOOR_BLOCK);
	for (uint32_t i = 0; i < ARENA_FLOOR_BLOCKS; i++)
		arena_stack[arena_n++] = ARENA_FLOOR_BLOCKS - 1 - i;
	for (unsigned int i = 0; i < ARENA_FLOOR_DEPTH; i++)
		if (!(q[i] = arena_alloc()))
			return 1;
	for (unsigned int r = 0; r < ARENA_FLOOR_ROUNDS; r++) {
		for (unsigned int v = 0; v < NVARIANTS; v++) {
			if (arena_variants[v].scrub == SCRUB_AVX2 && !avx2)
				continue;
			if ((t[v][r] = arena_round(&arena_variants[v], q)) < 0) {
				fprintf(stderr, "bench_floor_arena: %s refused a valid free\n",
					arena_variants[v].name);
				return 1;
			}
		}
		scrub[0][r] = scrub_round(ref, false);
		scrub[1][r] = avx2 ? scrub_round(ref, true) : 0;
	}
	s[0] = median(scrub[0], ARENA_FLOOR_ROUNDS);
	s[1] = median(scrub[1], ARENA_FLOOR_ROUNDS);
	printf("bench_floor_arena: 4 KiB free+alloc, %d in flight, CPU 0, medians of %d rounds "
	       "of %d pairs: rep stosb alone %.1f ns",
	       ARENA_FLOOR_DEPTH, ARENA_FLOOR_ROUNDS, ARENA_FLOOR_PAIRS, s[0]);
	for (unsigned int v = 0; v < NVARIANTS; v++) {
		const struct arena_floor_variant *a = &arena_variants[v];
		double m;

		if (a->scrub == SCRUB_AVX2 && !avx2)
			continue;
		m = median(t[v], ARENA_FLOOR_ROUNDS);
		if (a->scrub == SCRUB_NONE)
			printf("; %s %.1f ns", a->name, m);
		else
			printf("; %s %.1f ns (scrub %+.1f)", a->name, m,
			       m - s[a->scrub == SCRUB_AVX2]);
	}
	if (avx2)
		printf("; AVX2 clear alone %.1f ns", s[1]);
	else
		printf("; no AVX2 variants: this CPU does not run AVX2");
	printf("\n");
	free(ref);
	free(arena_pool);
	return 0;
}
