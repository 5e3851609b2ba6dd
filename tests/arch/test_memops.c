/* SPDX-License-Identifier: MIT */
/*
 * test_memops.c - the kernel's bounce copies and clears (arch/x86_64/cpu/memops.c)
 * and the start-up choice between them: every candidate copies and clears
 * exactly its bytes at every length and alignment; the timing keeps the least
 * of its runs; the pick takes the fastest, keeps CPUID's candidate on a near
 * tie, and memops_choose() installs what it picked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "arch/x86_64/cpu/memops.h"

#define GUARD 16
#define MAX_LEN 80

/* Every length 0..MAX_LEN - 8 at every source and destination offset 0..7: the
 * bytes copied are the source's, and not one byte around them changes. */
static void copies_exactly(void (*copy)(void *, void *, const void *, size_t))
{
	unsigned char src[MAX_LEN + 2 * GUARD], dst[MAX_LEN + 2 * GUARD];

	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)(i * 7 + 1);
	for (unsigned int so = 0; so < 8; so++)
		for (unsigned int dof = 0; dof < 8; dof++)
			for (size_t len = 0; len <= MAX_LEN - 8; len++) {
				memset(dst, 0xee, sizeof(dst));
				copy(NULL, dst + GUARD + dof, src + GUARD + so, len);
				assert_memory_equal(dst + GUARD + dof, src + GUARD + so, len);
				for (size_t i = 0; i < GUARD + dof; i++)
					assert_int_equal(dst[i], 0xee);
				for (size_t i = GUARD + dof + len; i < sizeof(dst); i++)
					assert_int_equal(dst[i], 0xee);
			}
}

static void clears_exactly(void (*zero)(void *, void *, size_t))
{
	unsigned char dst[MAX_LEN + 2 * GUARD], want[MAX_LEN + 2 * GUARD];

	for (unsigned int dof = 0; dof < 8; dof++)
		for (size_t len = 0; len <= MAX_LEN - 8; len++) {
			memset(dst, 0xee, sizeof(dst));
			memset(want, 0xee, sizeof(want));
			memset(want + GUARD + dof, 0, len);
			zero(NULL, dst + GUARD + dof, len);
			assert_memory_equal(dst, want, sizeof(dst));
		}
}

static void test_movsq_copy_and_clear(void **state)
{
	(void)state;
	copies_exactly(memops_copy_movsq);
	clears_exactly(memops_zero_stosq);
}

static void test_movsb_copy_and_clear(void **state)
{
	(void)state;
	copies_exactly(memops_copy_movsb);
	clears_exactly(memops_zero_stosb);
}

static void test_candidates_named(void **state)
{
	(void)state;
	assert_string_equal(memops_candidates[MEMOPS_MOVSB].name, "movsb");
	assert_ptr_equal(memops_candidates[MEMOPS_MOVSB].copy, memops_copy_movsb);
	assert_string_equal(memops_candidates[MEMOPS_MOVSQ].name, "movsq");
	assert_ptr_equal(memops_candidates[MEMOPS_MOVSQ].zero, memops_zero_stosq);
	/* libc: NULL ops, so that the library calls memcpy / memset itself. */
	assert_string_equal(memops_candidates[MEMOPS_LIBC].name, "libc");
	assert_null(memops_candidates[MEMOPS_LIBC].copy);
	assert_null(memops_candidates[MEMOPS_LIBC].zero);
}

static struct memops_timing timing(uint64_t movsb, uint64_t movsq, uint64_t libc,
				   enum memops_kind preferred)
{
	struct memops_timing t = { .preferred = preferred };

	/* Split each cost between copy and clear: the pick adds them up. */
	t.copy[MEMOPS_MOVSB] = movsb - movsb / 3, t.zero[MEMOPS_MOVSB] = movsb / 3;
	t.copy[MEMOPS_MOVSQ] = movsq / 2, t.zero[MEMOPS_MOVSQ] = movsq - movsq / 2;
	t.copy[MEMOPS_LIBC] = libc, t.zero[MEMOPS_LIBC] = 0;
	return t;
}

static void test_pick_takes_the_fastest(void **state)
{
	struct memops_timing t;

	(void)state;
	/* TCG with ERMS in the CPU model: CPUID says movsb, newlib is 8x faster. */
	t = timing(46170, 7276, 5592, MEMOPS_MOVSB);
	assert_int_equal(memops_pick(&t), MEMOPS_LIBC);
	/* The least of three, whichever position it holds. */
	t = timing(3000, 1000, 2000, MEMOPS_LIBC);
	assert_int_equal(memops_pick(&t), MEMOPS_MOVSQ);
	t = timing(1000, 3000, 2000, MEMOPS_LIBC);
	assert_int_equal(memops_pick(&t), MEMOPS_MOVSB);
	/* The preferred one fastest: it stays. */
	t = timing(900, 3000, 2000, MEMOPS_MOVSB);
	assert_int_equal(memops_pick(&t), MEMOPS_MOVSB);
}

static void test_pick_keeps_cpuid_on_a_near_tie(void **state)
{
	struct memops_timing t;

	(void)state;
	/* 1/8 faster exactly (800 - 100 = 700): not enough, CPUID's stays. */
	t = timing(800, 700, 5000, MEMOPS_MOVSB);
	assert_int_equal(memops_pick(&t), MEMOPS_MOVSB);
	/* One cycle more than an eighth faster: replaced. */
	t = timing(800, 699, 5000, MEMOPS_MOVSB);
	assert_int_equal(memops_pick(&t), MEMOPS_MOVSQ);
	/* Of two that beat it, the faster; of two near ties, neither. */
	t = timing(800, 710, 650, MEMOPS_MOVSB);
	assert_int_equal(memops_pick(&t), MEMOPS_LIBC);
	t = timing(800, 710, 720, MEMOPS_MOVSB);
	assert_int_equal(memops_pick(&t), MEMOPS_MOVSB);
	/* Two equally fast: the first in the list, the same on every boot. */
	t = timing(800, 500, 500, MEMOPS_MOVSB);
	assert_int_equal(memops_pick(&t), MEMOPS_MOVSQ);
}

/*
 * Two fake candidates that do the real work and log each call, and a third
 * with NULL ops (memcpy / memset, as the libc candidate): what memops_time()
 * ran between two clock reads is checked at each read.
 */
enum { LOG_COPY_A, LOG_ZERO_A, LOG_COPY_B, LOG_ZERO_B };
static int fake_log[4 * MEMOPS_RUNS + 8];
static unsigned int fake_nlog;

static void fake_log_op(int op)
{
	if (fake_nlog < sizeof(fake_log) / sizeof(fake_log[0]))
		fake_log[fake_nlog] = op;
	fake_nlog++;
}

static void fake_copy_a(void *ctx, void *dst, const void *src, size_t len)
{
	(void)ctx;
	memcpy(dst, src, len);
	fake_log_op(LOG_COPY_A);
}

static void fake_zero_a(void *ctx, void *dst, size_t len)
{
	(void)ctx;
	memset(dst, 0, len);
	fake_log_op(LOG_ZERO_A);
}

static void fake_copy_b(void *ctx, void *dst, const void *src, size_t len)
{
	(void)ctx;
	memcpy(dst, src, len);
	fake_log_op(LOG_COPY_B);
}

static void fake_zero_b(void *ctx, void *dst, size_t len)
{
	(void)ctx;
	memset(dst, 0, len);
	fake_log_op(LOG_ZERO_B);
}

static const struct memops fake_cands[MEMOPS_COUNT] = {
	{ "a", fake_copy_a, fake_zero_a },
	{ "b", fake_copy_b, fake_zero_b },
	{ "libc", NULL, NULL },
};

/* A clock that advances by the next scripted step on each read. */
static uint64_t fake_now;
static const uint64_t *fake_steps;
static unsigned int fake_reads, fake_nsteps;
static const unsigned char *fake_dst, *fake_src;
static unsigned int fake_wrong;

/* The log a correct memops_time() has written by read @i: the two warm-up
 * copies, then per run a copy and a clear of each fake candidate in turn. */
static unsigned int fake_log_want(unsigned int i, int *last)
{
	unsigned int run = i / (3 * MEMOPS_COUNT), k = (i / 3) % MEMOPS_COUNT, phase = i % 3;
	unsigned int n = 2 + run * 4 + 2 * (k < 2 ? k : 2);

	*last = k == 0 && phase == 0 ? (run ? LOG_ZERO_B : LOG_COPY_B) : -1;
	if (k < 2 && phase)
		n += phase, *last = k == 0 ? (phase == 1 ? LOG_COPY_A : LOG_ZERO_A) :
					     (phase == 1 ? LOG_COPY_B : LOG_ZERO_B);
	return n;
}

/* Each read checks what ran since the last: the right candidate's op by the
 * log, and the bytes: after a copy (the second read of a run) the source's,
 * after a clear (the third) zeros. */
static uint64_t fake_clock(void)
{
	uint64_t v = fake_now;
	unsigned int phase = fake_reads % 3;
	int last;
	unsigned int n = fake_log_want(fake_reads, &last);

	if (fake_nlog != n || (last >= 0 && fake_log[n - 1] != last))
		fake_wrong++;
	if (phase == 1 && memcmp(fake_dst, fake_src, MEMOPS_TIMED_LEN))
		fake_wrong++;
	for (size_t i = 0; phase == 2 && i < MEMOPS_TIMED_LEN; i++)
		if (fake_dst[i]) {
			fake_wrong++;
			break;
		}
	if (fake_reads < fake_nsteps)
		fake_now += fake_steps[fake_reads];
	fake_reads++;
	return v;
}

static void test_time_keeps_the_least_run(void **state)
{
	/* Three reads a run of a candidate (before, after the copy, after the clear):
	 * the copy takes step[3i], the clear step[3i + 1]; step[3i + 2] passes
	 * before the next; i counts (run, candidate) pairs, candidates inner. */
	uint64_t steps[MEMOPS_COUNT * MEMOPS_RUNS * 3];
	static unsigned char dst[MEMOPS_TIMED_LEN], src[MEMOPS_TIMED_LEN];
	struct memops_timing t;

	(void)state;
	for (unsigned int r = 0; r < MEMOPS_RUNS; r++)
		for (unsigned int k = 0; k < MEMOPS_COUNT; k++) {
			uint64_t *s = &steps[(r * MEMOPS_COUNT + k) * 3];

			s[0] = 1000 * (k + 1) + 50 * r;		      /* copy: least at run 0 ... */
			s[1] = 500 * (k + 1) + 7 * (MEMOPS_RUNS - r); /* clear: at the last */
			s[2] = 99999;
		}
	/* One run of a candidate interrupted: much longer, and not kept. */
	steps[(0 * MEMOPS_COUNT + 1) * 3] = 1000000;
	fake_now = 0, fake_reads = 0, fake_steps = steps,
	fake_nsteps = MEMOPS_COUNT * MEMOPS_RUNS * 3;
	memset(src, 0x5a, sizeof(src));
	fake_dst = dst, fake_src = src, fake_wrong = 0, fake_nlog = 0;
	memops_time(&t, fake_cands, dst, src, fake_clock);
	assert_int_equal(fake_reads, MEMOPS_COUNT * MEMOPS_RUNS * 3);
	/* What was timed is what was named: each candidate's own copy between the
	 * first two reads of its run, its own clear between the last two. */
	assert_int_equal(fake_wrong, 0);
	assert_int_equal(fake_nlog, 2 + 4 * MEMOPS_RUNS);
	assert_int_equal(t.copy[0], 1000);
	assert_int_equal(t.copy[1], 2000 + 50); /* run 0 interrupted: run 1 is least */
	assert_int_equal(t.copy[2], 3000);
	for (unsigned int k = 0; k < MEMOPS_COUNT; k++)
		assert_int_equal(t.zero[k], 500 * (k + 1) + 7);
}

static void test_choose_installs_the_pick(void **state)
{
	struct cpu_info cpu;
	struct memops_timing t;
	struct memops m;

	(void)state;
	for (int erms = 0; erms < 2; erms++) {
		memset(&cpu, 0, sizeof(cpu));
		cpu.has_erms = erms;
		memops_choose(&cpu, &m, &t);
		assert_int_equal(t.preferred, erms ? MEMOPS_MOVSB : MEMOPS_LIBC);
		assert_int_equal(t.chosen, memops_pick(&t));
		assert_string_equal(m.name, memops_candidates[t.chosen].name);
		assert_ptr_equal(m.copy, memops_candidates[t.chosen].copy);
		assert_ptr_equal(m.zero, memops_candidates[t.chosen].zero);
		for (unsigned int k = 0; k < MEMOPS_COUNT; k++)
			assert_true(t.copy[k] > 0 && t.copy[k] < UINT64_MAX);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_movsq_copy_and_clear),
		cmocka_unit_test(test_movsb_copy_and_clear),
		cmocka_unit_test(test_candidates_named),
		cmocka_unit_test(test_pick_takes_the_fastest),
		cmocka_unit_test(test_pick_keeps_cpuid_on_a_near_tie),
		cmocka_unit_test(test_time_keeps_the_least_run),
		cmocka_unit_test(test_choose_installs_the_pick),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
