/* SPDX-License-Identifier: MIT */
/*
 * test_rounds.c - the guest benchmarks' rounds (bench/rounds.c): the
 * median of odd and even counts, the round a line prints, and what a bounce
 * line adds over direct and over bounce/linux, with rounds that did not run,
 * a missing baseline and a round in which linux added nothing. The e2e
 * bench_smoke.sh checks the same figures of a boot whose rounds all ran.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "bench/rounds.h"

#define R(d, c)                \
	{                      \
		true, (d), (c) \
	}
#define NONE                \
	{                   \
		false, 0, 0 \
	}

static void test_median(void **state)
{
	double odd[] = { 5, 1, 3 }, even[] = { 8, 2, 6, 4 }, one[] = { 7 };

	(void)state;
	assert_true(bench_rounds_median(odd, 3) == 3);
	assert_true(bench_rounds_median(even, 4) == 5); /* (4 + 6) / 2 */
	assert_true(bench_rounds_median(one, 1) == 7);
	/* Sorted in place. */
	assert_true(odd[0] == 1 && odd[1] == 3 && odd[2] == 5);
}

static void test_median_round(void **state)
{
	const struct bench_round_figs all[] = { R(300, 0), R(100, 0), R(200, 0) };
	const struct bench_round_figs two[] = { R(300, 0), NONE, R(100, 0) };
	const struct bench_round_figs one[] = { NONE, R(50, 0), NONE };
	const struct bench_round_figs none[] = { NONE, NONE, NONE };
	const struct bench_round_figs tie[] = { R(100, 0), R(100, 0), R(100, 0) };

	(void)state;
	assert_int_equal(bench_rounds_median_round(all), 2);
	/* Two that ran: the lower middle, a real round (not their mean). */
	assert_int_equal(bench_rounds_median_round(two), 2);
	assert_int_equal(bench_rounds_median_round(one), 1);
	assert_int_equal(bench_rounds_median_round(none), -1);
	assert_int_equal(bench_rounds_median_round(tie), 1);
}

static void test_over_pairs_each_round(void **state)
{
	/* Per round: over 100, 400, 250; linux adds 1000, 800, 500: ratios 0.1, 0.5,
	 * 0.5; floors 50/1000, 200/800, 100/500. The ratio of the medians would be
	 * 250 / 800, not the median ratio 0.5. */
	const struct bench_round_figs d[] = { R(1000, 0), R(2000, 0), R(1500, 0) };
	const struct bench_round_figs l[] = { R(2000, 900), R(2800, 700), R(2000, 400) };
	const struct bench_round_figs x[] = { R(1100, 50), R(2400, 200), R(1750, 100) };
	struct bench_over o;

	(void)state;
	bench_rounds_over(x, d, l, &o);
	assert_true(o.have && o.have_linux);
	assert_true(o.over == 250);
	assert_true(o.vs_linux == 0.5);
	assert_true(o.copy_floor == 0.2);
}

static void test_over_skips_what_did_not_run(void **state)
{
	const struct bench_round_figs d[] = { R(1000, 0), NONE, R(1000, 0) };
	/* A round that did not run counts for nothing, whatever its figures hold. */
	const struct bench_round_figs l[] = { R(2000, 0), R(3000, 0), { false, 5000, 0 } };
	const struct bench_round_figs x[] = { R(1300, 100), R(9999, 100), R(1500, 200) };
	const struct bench_round_figs gone[] = { NONE, NONE, NONE };
	struct bench_over o;

	(void)state;
	/* Round 1 has no direct: no figure; round 2 no linux: an over, no ratio. */
	bench_rounds_over(x, d, l, &o);
	assert_true(o.have && o.over == 400); /* median of 300 and 500 */
	assert_true(o.have_linux && o.vs_linux == 0.3 && o.copy_floor == 0.1);
	/* No bounce/linux set up: the over alone. */
	bench_rounds_over(x, d, NULL, &o);
	assert_true(o.have && o.over == 400 && !o.have_linux);
	assert_true(o.vs_linux == 0 && o.copy_floor == 0);
	/* No direct at all: nothing. */
	bench_rounds_over(x, gone, l, &o);
	assert_false(o.have || o.have_linux);
	/* The line itself never ran: nothing. */
	bench_rounds_over(gone, d, l, &o);
	assert_false(o.have || o.have_linux);
}

static void test_over_needs_linux_to_add(void **state)
{
	/* Linux at or below direct in a round: no ratio from that round. */
	const struct bench_round_figs d[] = { R(1000, 0), R(1000, 0), R(1000, 0) };
	const struct bench_round_figs l[] = { R(1000, 0), R(900, 0), R(1400, 0) };
	const struct bench_round_figs x[] = { R(1100, 0), R(1100, 0), R(1200, 40) };
	const struct bench_round_figs flat[] = { R(1000, 0), R(1000, 0), R(1000, 0) };
	struct bench_over o;

	(void)state;
	bench_rounds_over(x, d, l, &o);
	assert_true(o.have && o.over == 100);
	assert_true(o.have_linux && o.vs_linux == 0.5 && o.copy_floor == 0.1);
	bench_rounds_over(x, d, flat, &o);
	assert_true(o.have && !o.have_linux);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median),
		cmocka_unit_test(test_median_round),
		cmocka_unit_test(test_over_pairs_each_round),
		cmocka_unit_test(test_over_skips_what_did_not_run),
		cmocka_unit_test(test_over_needs_linux_to_add),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
