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
/* Three AVX2 blocks and a tail: the loop, its exit, and the byte tail after it. */
#define MAX_LEN (3 * 128 + 16)

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

/* A CPUID probe of the CPU the tests run on: the plain VM's instruction
 * (pvio_native), which runs in user mode, as XGETBV does. */
static void host_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
	(void)ctx;
	cpuid(leaf, subleaf, r);
}

/* The SEV status MSR cannot be read in user mode: as if SEV were off. */
static uint64_t host_rdmsr(void *ctx, uint32_t msr)
{
	(void)ctx, (void)msr;
	return 0;
}

static uint64_t host_xgetbv(void *ctx, uint32_t xcr)
{
	(void)ctx;
	return xgetbv(xcr);
}

static bool host_has_avx2(void)
{
	const struct cpu_probe probe = { NULL, host_cpuid, host_rdmsr, host_xgetbv };
	struct cpu_info info;

	cpu_identify(&probe, &info);
	return info.has_avx2;
}

static void test_avx2_copy_and_clear(void **state)
{
	(void)state;
	if (!host_has_avx2()) {
		print_message("this CPU (or its OS) runs no AVX2: its copy is not tested here\n");
		skip();
	}
	copies_exactly(memops_copy_avx2);
	clears_exactly(memops_zero_avx2);
}

static void test_candidates_named(void **state)
{
	(void)state;
	assert_string_equal(memops_candidates[MEMOPS_AVX2].name, "avx2");
	assert_ptr_equal(memops_candidates[MEMOPS_AVX2].copy, memops_copy_avx2);
	assert_ptr_equal(memops_candidates[MEMOPS_AVX2].zero, memops_zero_avx2);
	assert_string_equal(memops_candidates[MEMOPS_MOVSB].name, "movsb");
	assert_ptr_equal(memops_candidates[MEMOPS_MOVSB].copy, memops_copy_movsb);
	assert_string_equal(memops_candidates[MEMOPS_MOVSQ].name, "movsq");
	assert_ptr_equal(memops_candidates[MEMOPS_MOVSQ].zero, memops_zero_stosq);
	/* libc: NULL ops, so that the library calls memcpy / memset itself. */
	assert_string_equal(memops_candidates[MEMOPS_LIBC].name, "libc");
	assert_null(memops_candidates[MEMOPS_LIBC].copy);
	assert_null(memops_candidates[MEMOPS_LIBC].zero);
}

/* The same cycles for each candidate's copy and clear; AVX2 skipped. */
static struct memops_timing timing(uint64_t movsb, uint64_t movsq, uint64_t libc,
				   enum memops_kind preferred)
{
	struct memops_timing t = { .preferred = preferred };

	t.copy[MEMOPS_MOVSB] = t.zero[MEMOPS_MOVSB] = movsb;
	t.copy[MEMOPS_MOVSQ] = t.zero[MEMOPS_MOVSQ] = movsq;
	t.copy[MEMOPS_LIBC] = t.zero[MEMOPS_LIBC] = libc;
	t.copy[MEMOPS_AVX2] = t.zero[MEMOPS_AVX2] = UINT64_MAX;
	t.skip[MEMOPS_AVX2] = true;
	return t;
}

/* What memops_pick() picks for the copy, checked to be the clear's pick too. */
static enum memops_kind pick(const struct memops_timing *t)
{
	enum memops_kind k = memops_pick(t, false);

	assert_int_equal(memops_pick(t, true), k);
	return k;
}

static void test_pick_takes_the_fastest(void **state)
{
	struct memops_timing t;

	(void)state;
	/* TCG with ERMS in the CPU model: CPUID says movsb, newlib is 8x faster. */
	t = timing(46170, 7276, 5592, MEMOPS_MOVSB);
	assert_int_equal(pick(&t), MEMOPS_LIBC);
	/* The least of three, whichever position it holds. */
	t = timing(3000, 1000, 2000, MEMOPS_LIBC);
	assert_int_equal(pick(&t), MEMOPS_MOVSQ);
	t = timing(1000, 3000, 2000, MEMOPS_LIBC);
	assert_int_equal(pick(&t), MEMOPS_MOVSB);
	/* The preferred one fastest: it stays. */
	t = timing(900, 3000, 2000, MEMOPS_MOVSB);
	assert_int_equal(pick(&t), MEMOPS_MOVSB);
}

static void test_pick_keeps_cpuid_on_a_near_tie(void **state)
{
	struct memops_timing t;

	(void)state;
	/* 1/8 faster exactly (800 - 100 = 700): not enough, CPUID's stays. */
	t = timing(800, 700, 5000, MEMOPS_MOVSB);
	assert_int_equal(pick(&t), MEMOPS_MOVSB);
	/* One cycle more than an eighth faster: replaced. */
	t = timing(800, 699, 5000, MEMOPS_MOVSB);
	assert_int_equal(pick(&t), MEMOPS_MOVSQ);
	/* Of two that beat it, the faster; of two near ties, neither. */
	t = timing(800, 710, 650, MEMOPS_MOVSB);
	assert_int_equal(pick(&t), MEMOPS_LIBC);
	t = timing(800, 710, 720, MEMOPS_MOVSB);
	assert_int_equal(pick(&t), MEMOPS_MOVSB);
	/* Two equally fast: the first in the list, the same on every boot. */
	t = timing(800, 500, 500, MEMOPS_MOVSB);
	assert_int_equal(pick(&t), MEMOPS_MOVSQ);
}

/*
 * The copy and the clear are picked apart (the AMD EPYC VM's case: AVX2 copies
 * 17 % faster than `rep movsb` and clears 3 % faster), and a skipped
 * candidate is never picked, whatever its cycles say.
 */
static void test_pick_copy_and_clear_apart(void **state)
{
	struct memops_timing t = timing(4380, 9000, 4590, MEMOPS_MOVSB);

	(void)state;
	t.skip[MEMOPS_AVX2] = false;
	t.copy[MEMOPS_AVX2] = 3640;
	t.zero[MEMOPS_MOVSB] = 3720, t.zero[MEMOPS_AVX2] = 3600;
	assert_int_equal(memops_pick(&t, false), MEMOPS_AVX2);
	assert_int_equal(memops_pick(&t, true), MEMOPS_MOVSB);
	/* The clear the other way round: each op its own. */
	t.zero[MEMOPS_AVX2] = 3000;
	assert_int_equal(memops_pick(&t, true), MEMOPS_AVX2);
	assert_int_equal(memops_pick(&t, false), MEMOPS_AVX2);
	/* Skipped: not picked though fastest, for either op. */
	t.skip[MEMOPS_AVX2] = true;
	assert_int_equal(memops_pick(&t, false), MEMOPS_MOVSB);
	assert_int_equal(memops_pick(&t, true), MEMOPS_MOVSB);
	t.copy[MEMOPS_AVX2] = t.zero[MEMOPS_AVX2] = 0;
	assert_int_equal(memops_pick(&t, false), MEMOPS_MOVSB);
	assert_int_equal(memops_pick(&t, true), MEMOPS_MOVSB);
	/* The preferred one skipped, whatever its cycles: the fastest that ran. */
	t.skip[MEMOPS_MOVSB] = true;
	assert_int_equal(memops_pick(&t, false), MEMOPS_LIBC);
	assert_int_equal(memops_pick(&t, true), MEMOPS_LIBC);
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

/* A candidate that must never run: the timing skips it. */
static unsigned int fake_trap_calls;

static void fake_copy_trap(void *ctx, void *dst, const void *src, size_t len)
{
	(void)ctx, (void)dst, (void)src, (void)len;
	fake_trap_calls++;
}

static void fake_zero_trap(void *ctx, void *dst, size_t len)
{
	(void)ctx, (void)dst, (void)len;
	fake_trap_calls++;
}

static const struct memops fake_cands[MEMOPS_COUNT] = {
	[MEMOPS_MOVSB] = { "a", "a", fake_copy_a, fake_zero_a },
	[MEMOPS_MOVSQ] = { "b", "b", fake_copy_b, fake_zero_b },
	[MEMOPS_LIBC] = { "libc", "libc", NULL, NULL },
	[MEMOPS_AVX2] = { "trap", "trap", fake_copy_trap, fake_zero_trap },
};
/* The candidates the fake timing runs: all but the skipped trap, the last. */
#define FAKE_TIMED (MEMOPS_COUNT - 1)

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
	unsigned int run = i / (3 * FAKE_TIMED), k = (i / 3) % FAKE_TIMED, phase = i % 3;
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
	uint64_t steps[FAKE_TIMED * MEMOPS_RUNS * 3];
	static unsigned char dst[MEMOPS_TIMED_LEN], src[MEMOPS_TIMED_LEN];
	struct memops_timing t = { .skip[MEMOPS_AVX2] = true };

	(void)state;
	for (unsigned int r = 0; r < MEMOPS_RUNS; r++)
		for (unsigned int k = 0; k < FAKE_TIMED; k++) {
			uint64_t *s = &steps[(r * FAKE_TIMED + k) * 3];

			s[0] = 1000 * (k + 1) + 50 * r;		      /* copy: least at run 0 ... */
			s[1] = 500 * (k + 1) + 7 * (MEMOPS_RUNS - r); /* clear: at the last */
			s[2] = 99999;
		}
	/* One run of a candidate interrupted: much longer, and not kept. */
	steps[(0 * FAKE_TIMED + 1) * 3] = 1000000;
	fake_now = 0, fake_reads = 0, fake_steps = steps,
	fake_nsteps = FAKE_TIMED * MEMOPS_RUNS * 3;
	memset(src, 0x5a, sizeof(src));
	fake_dst = dst, fake_src = src, fake_wrong = 0, fake_nlog = 0, fake_trap_calls = 0;
	memops_time(&t, fake_cands, dst, src, fake_clock);
	assert_int_equal(fake_trap_calls, 0);
	assert_true(t.copy[MEMOPS_AVX2] == UINT64_MAX && t.zero[MEMOPS_AVX2] == UINT64_MAX);
	assert_int_equal(fake_reads, FAKE_TIMED * MEMOPS_RUNS * 3);
	/* What was timed is what was named: each candidate's own copy between the
	 * first two reads of its run, its own clear between the last two. */
	assert_int_equal(fake_wrong, 0);
	assert_int_equal(fake_nlog, 2 + 4 * MEMOPS_RUNS);
	assert_int_equal(t.copy[0], 1000);
	assert_int_equal(t.copy[1], 2000 + 50); /* run 0 interrupted: run 1 is least */
	assert_int_equal(t.copy[2], 3000);
	for (unsigned int k = 0; k < FAKE_TIMED; k++)
		assert_int_equal(t.zero[k], 500 * (k + 1) + 7);
	/* Not skipped, it runs: once warm, then a copy and a clear per run. */
	t.skip[MEMOPS_AVX2] = false;
	fake_now = 0, fake_reads = 0, fake_nsteps = 0;
	memops_time(&t, fake_cands, dst, src, fake_clock);
	assert_int_equal(fake_trap_calls, 1 + 2 * MEMOPS_RUNS);
}

/*
 * A clock whose reads are 1000 apart in a candidate's first run and 10 less
 * in each later one, and candidates that count their runs.
 */
static uint64_t step_now;
static unsigned int step_reads, count_copies, count_zeros;

static uint64_t step_clock(void)
{
	return step_now += 1000 - 10 * (step_reads++ / 3);
}

static void count_copy(void *ctx, void *dst, const void *src, size_t len)
{
	(void)ctx, (void)dst, (void)src, (void)len;
	count_copies++;
}

static void count_zero(void *ctx, void *dst, size_t len)
{
	(void)ctx, (void)dst, (void)len;
	count_zeros++;
}

/* @reps copies and clears between two reads, cycles given per copy. */
static void test_time_reps(void **state)
{
	static unsigned char dst[MEMOPS_TIMED_LEN], src[MEMOPS_TIMED_LEN];
	struct memops cands[MEMOPS_COUNT] = { [MEMOPS_MOVSB] = { "n", "n", count_copy,
								 count_zero } };
	struct memops_timing t = { .reps = 8 };

	(void)state;
	for (unsigned int k = 0; k < MEMOPS_COUNT; k++)
		t.skip[k] = k != MEMOPS_MOVSB;
	memops_time(&t, cands, dst, src, step_clock);
	assert_int_equal(count_copies, 1 + 8 * MEMOPS_RUNS);
	assert_int_equal(count_zeros, 8 * MEMOPS_RUNS);
	/* The least run, the last, per copy: (1000 - 10 x 15) / 8. */
	assert_int_equal(t.copy[MEMOPS_MOVSB], (1000 - 10 * (MEMOPS_RUNS - 1)) / 8);
	assert_int_equal(t.zero[MEMOPS_MOVSB], (1000 - 10 * (MEMOPS_RUNS - 1)) / 8);
	/* 0 is one. */
	t.reps = 0, count_copies = count_zeros = 0, step_reads = 0;
	memops_time(&t, cands, dst, src, step_clock);
	assert_int_equal(count_copies, 1 + MEMOPS_RUNS);
	assert_int_equal(t.copy[MEMOPS_MOVSB], 1000 - 10 * (MEMOPS_RUNS - 1));
}

static unsigned int count_afters;

static void count_after(void)
{
	count_afters++;
}

/* @after runs after every timed copy and clear, inside the timing, and after nothing else. */
static void test_time_after(void **state)
{
	static unsigned char dst[MEMOPS_TIMED_LEN], src[MEMOPS_TIMED_LEN];
	struct memops cands[MEMOPS_COUNT] = { [MEMOPS_MOVSB] = { "n", "n", count_copy,
								 count_zero } };
	struct memops_timing t = { .reps = 3, .runs = 5, .after = count_after };

	(void)state;
	for (unsigned int k = 0; k < MEMOPS_COUNT; k++)
		t.skip[k] = k != MEMOPS_MOVSB;
	count_copies = count_zeros = count_afters = 0, step_reads = 0;
	memops_time(&t, cands, dst, src, step_clock);
	/* One untimed warm-up copy with nothing after it, then 3 copies and 3 clears a run. */
	assert_int_equal(count_copies, 1 + 3 * 5);
	assert_int_equal(count_zeros, 3 * 5);
	assert_int_equal(count_afters, 2 * 3 * 5);
	/* The stand-in work itself returns: it is only register adds. */
	memops_work_after();
}

/* @runs runs, the least kept; 0 is MEMOPS_RUNS (test_time_reps). */
static void test_time_runs(void **state)
{
	static unsigned char dst[MEMOPS_TIMED_LEN], src[MEMOPS_TIMED_LEN];
	struct memops cands[MEMOPS_COUNT] = { [MEMOPS_MOVSB] = { "n", "n", count_copy,
								 count_zero } };
	struct memops_timing t = { .runs = 40 };

	(void)state;
	for (unsigned int k = 0; k < MEMOPS_COUNT; k++)
		t.skip[k] = k != MEMOPS_MOVSB;
	count_copies = count_zeros = 0, step_reads = 0;
	memops_time(&t, cands, dst, src, step_clock);
	assert_int_equal(count_copies, 1 + 40);
	assert_int_equal(count_zeros, 40);
	/* Each run faster than the one before: the 40th is the least. */
	assert_int_equal(t.copy[MEMOPS_MOVSB], 1000 - 10 * 39);
	assert_int_equal(t.zero[MEMOPS_MOVSB], 1000 - 10 * 39);
}

/* The copy of one pick and the clear of the other, each with its own name. */
static void test_install_takes_each_pick(void **state)
{
	struct memops_timing t = { .chosen_copy = MEMOPS_AVX2, .chosen_zero = MEMOPS_MOVSB };
	struct memops m;

	(void)state;
	memops_install(&t, memops_candidates, &m);
	assert_ptr_equal(m.copy, memops_copy_avx2);
	assert_ptr_equal(m.zero, memops_zero_stosb);
	assert_string_equal(m.name, "avx2");
	assert_string_equal(m.zero_name, "movsb");
	t.chosen_copy = MEMOPS_LIBC, t.chosen_zero = MEMOPS_MOVSQ;
	memops_install(&t, memops_candidates, &m);
	assert_null(m.copy);
	assert_ptr_equal(m.zero, memops_zero_stosq);
	assert_string_equal(m.name, "libc");
	assert_string_equal(m.zero_name, "movsq");
}

static void test_choose_installs_the_pick(void **state)
{
	struct cpu_info cpu;
	struct memops_timing t;
	struct memops m;

	(void)state;
	for (int erms = 0; erms < 2; erms++)
		for (int avx2 = 0; avx2 < 2; avx2++) {
			memset(&cpu, 0, sizeof(cpu));
			cpu.has_erms = erms;
			/* AVX2 only where this CPU runs it: the test runs what it picks. */
			cpu.has_avx2 = avx2 && host_has_avx2();
			memops_choose(&cpu, &m, &t);
			assert_int_equal(t.preferred, erms ? MEMOPS_MOVSB : MEMOPS_LIBC);
			assert_int_equal(t.skip[MEMOPS_AVX2], !cpu.has_avx2);
			assert_int_equal(t.chosen_copy, memops_pick(&t, false));
			assert_int_equal(t.chosen_zero, memops_pick(&t, true));
			/* Timed as the layer pays them: with its stand-in work after each. */
			assert_ptr_equal(t.after, memops_work_after);
			assert_int_equal(t.runs, MEMOPS_RUNS);
			assert_string_equal(m.name, memops_candidates[t.chosen_copy].name);
			assert_string_equal(m.zero_name, memops_candidates[t.chosen_zero].name);
			assert_ptr_equal(m.copy, memops_candidates[t.chosen_copy].copy);
			assert_ptr_equal(m.zero, memops_candidates[t.chosen_zero].zero);
			for (unsigned int k = 0; k < MEMOPS_COUNT; k++)
				if (t.skip[k])
					assert_true(t.copy[k] == UINT64_MAX &&
						    t.zero[k] == UINT64_MAX);
				else
					assert_true(t.copy[k] > 0 && t.copy[k] < UINT64_MAX);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_movsq_copy_and_clear),
		cmocka_unit_test(test_movsb_copy_and_clear),
		cmocka_unit_test(test_avx2_copy_and_clear),
		cmocka_unit_test(test_candidates_named),
		cmocka_unit_test(test_pick_takes_the_fastest),
		cmocka_unit_test(test_pick_keeps_cpuid_on_a_near_tie),
		cmocka_unit_test(test_pick_copy_and_clear_apart),
		cmocka_unit_test(test_time_keeps_the_least_run),
		cmocka_unit_test(test_time_reps),
		cmocka_unit_test(test_time_runs),
		cmocka_unit_test(test_time_after),
		cmocka_unit_test(test_install_takes_each_pick),
		cmocka_unit_test(test_choose_installs_the_pick),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
