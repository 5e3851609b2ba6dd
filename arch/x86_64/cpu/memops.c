/* SPDX-License-Identifier: MIT */
/*
 * memops.c - see memops.h. The host benchmark (bench_alloc, copy table)
 * measures the same shapes against glibc's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arch/x86_64/cpu/memops.h"

void memops_copy_movsb(void *ctx, void *dst, const void *src, size_t len)
{
	(void)ctx;
	memops_movsb_body(dst, src, len);
}

void memops_zero_stosb(void *ctx, void *dst, size_t len)
{
	(void)ctx;
	memops_stosb_body(dst, len);
}

void memops_copy_movsq(void *ctx, void *dst, const void *src, size_t len)
{
	size_t words = len >> 3, tail = len & 7;

	(void)ctx;
	/* rdi and rsi stop where the words end: the tail's bytes follow on. */
	__asm__ volatile("rep movsq\n\t"
			 "mov %3, %%rcx\n\t"
			 "rep movsb"
			 : "+D"(dst), "+S"(src), "+c"(words)
			 : "r"(tail)
			 : "memory");
}

void memops_zero_stosq(void *ctx, void *dst, size_t len)
{
	size_t words = len >> 3, tail = len & 7;

	(void)ctx;
	__asm__ volatile("rep stosq\n\t"
			 "mov %2, %%rcx\n\t"
			 "rep stosb"
			 : "+D"(dst), "+c"(words)
			 : "r"(tail), "a"((uint64_t)0)
			 : "memory");
}

#if defined(__SSE2__)
void memops_copy_avx2(void *ctx, void *dst, const void *src, size_t len)
{
	(void)ctx;
	memops_avx2_copy_body(dst, src, len);
}

void memops_zero_avx2(void *ctx, void *dst, size_t len)
{
	(void)ctx;
	memops_avx2_zero_body(dst, len);
}
#endif

const struct memops memops_candidates[MEMOPS_COUNT] = {
	[MEMOPS_MOVSB] = { "movsb", "movsb", memops_copy_movsb, memops_zero_stosb },
	[MEMOPS_MOVSQ] = { "movsq", "movsq", memops_copy_movsq, memops_zero_stosq },
	/* NULL ops: the library calls newlib's memcpy / memset directly. */
	[MEMOPS_LIBC] = { "libc", "libc", NULL, NULL },
#if defined(__SSE2__)
	[MEMOPS_AVX2] = { "avx2", "avx2", memops_copy_avx2, memops_zero_avx2 },
#else
	/* No SSE registers in this build: the candidate is always skipped. */
	[MEMOPS_AVX2] = { "avx2", "avx2", NULL, NULL },
#endif
};

void memops_work_after(void)
{
	unsigned long a = 0, b = 0, c = 0, d = 0;

	/* Four chains, MEMOPS_WORK_ADDS / 4 adds each: the count is the constant's. */
	__asm__ volatile(".rept %c4\n\t"
			 "add $1, %0; add $1, %1; add $1, %2; add $1, %3\n\t"
			 ".endr"
			 : "+r"(a), "+r"(b), "+r"(c), "+r"(d)
			 : "i"(MEMOPS_WORK_ADDS / 4));
}

static void memops_run_copy(const struct memops *m, void *dst, const void *src, size_t len,
			    void (*after)(void))
{
	if (m->copy)
		m->copy(NULL, dst, src, len);
	else
		memcpy(dst, src, len);
	/* The bytes are nobody's: keep the compiler from dropping the copy. */
	__asm__ volatile("" : : "r"(dst) : "memory");
	if (after)
		after();
}

static void memops_run_zero(const struct memops *m, void *dst, size_t len, void (*after)(void))
{
	if (m->zero)
		m->zero(NULL, dst, len);
	else
		memset(dst, 0, len);
	__asm__ volatile("" : : "r"(dst) : "memory");
	if (after)
		after();
}

void memops_time(struct memops_timing *t, const struct memops *cand, void *dst, const void *src,
		 uint64_t (*clock)(void))
{
	unsigned int reps = t->reps ? t->reps : 1;
	unsigned int runs = t->runs ? t->runs : MEMOPS_RUNS;

	for (unsigned int k = 0; k < MEMOPS_COUNT; k++) {
		t->copy[k] = t->zero[k] = UINT64_MAX;
		/* One run of each untimed first: the lines and the code are then warm. */
		if (!t->skip[k])
			memops_run_copy(&cand[k], dst, src, MEMOPS_TIMED_LEN, NULL);
	}
	/* Run by run, every candidate in turn: a slow spell of the machine (an
	 * emulator's, a neighbour's) lands on all of them, not on one. */
	for (unsigned int r = 0; r < runs; r++)
		for (unsigned int k = 0; k < MEMOPS_COUNT; k++) {
			uint64_t t0, t1, t2;

			if (t->skip[k])
				continue;
			t0 = clock();
			for (unsigned int i = 0; i < reps; i++)
				memops_run_copy(&cand[k], dst, src, MEMOPS_TIMED_LEN, t->after);
			t1 = clock();
			for (unsigned int i = 0; i < reps; i++)
				memops_run_zero(&cand[k], dst, MEMOPS_TIMED_LEN, t->after);
			t2 = clock();
			if ((t1 - t0) / reps < t->copy[k])
				t->copy[k] = (t1 - t0) / reps;
			if ((t2 - t1) / reps < t->zero[k])
				t->zero[k] = (t2 - t1) / reps;
		}
}

enum memops_kind memops_pick(const struct memops_timing *t, bool zero)
{
	const uint64_t *cost = zero ? t->zero : t->copy;
	/* A preferred one that cannot run is beaten by any that ran. */
	uint64_t preferred = t->skip[t->preferred] ? UINT64_MAX : cost[t->preferred];
	uint64_t least = preferred;
	enum memops_kind best = t->preferred;

	for (unsigned int k = 0; k < MEMOPS_COUNT; k++)
		if (!t->skip[k] && cost[k] < least)
			best = (enum memops_kind)k, least = cost[k];
	/* The least replaces the preferred one only when faster by more than an eighth. */
	return least < preferred - preferred / 8 ? best : t->preferred;
}

void memops_install(const struct memops_timing *t, const struct memops *cand, struct memops *out)
{
	out->name = cand[t->chosen_copy].name;
	out->copy = cand[t->chosen_copy].copy;
	out->zero_name = cand[t->chosen_zero].zero_name;
	out->zero = cand[t->chosen_zero].zero;
}

void memops_print_candidates(const struct memops_timing *t)
{
	for (unsigned int k = 0; k < MEMOPS_COUNT; k++) {
		printf("%s %s ", k ? "," : "", memops_candidates[k].name);
		if (t->skip[k])
			printf("-");
		else
			printf("%" PRIu64 " + %" PRIu64, t->copy[k], t->zero[k]);
		printf("%s", k == (unsigned int)t->preferred ? " (CPUID's pick)" : "");
	}
}

/* rdtsc after an lfence: it reads the counter only when the copy before it is done. */
static uint64_t memops_rdtsc(void)
{
	__asm__ volatile("lfence" : : : "memory");
	return rdtsc();
}

void memops_choose(const struct cpu_info *cpu, struct memops *out, struct memops_timing *t)
{
	static unsigned char scratch[2][MEMOPS_TIMED_LEN] __attribute__((aligned(4096)));

	memset(scratch[1], 0x5a, MEMOPS_TIMED_LEN);
	memset(t->skip, 0, sizeof(t->skip));
	t->reps = 1;
	t->runs = MEMOPS_RUNS;
	t->after = memops_work_after;
	t->skip[MEMOPS_AVX2] = !cpu->has_avx2 || !memops_candidates[MEMOPS_AVX2].copy;
	memops_time(t, memops_candidates, scratch[0], scratch[1], memops_rdtsc);
	t->preferred = cpu->has_erms ? MEMOPS_MOVSB : MEMOPS_LIBC;
	t->chosen_copy = memops_pick(t, false);
	t->chosen_zero = memops_pick(t, true);
	memops_install(t, memops_candidates, out);
}
