/* SPDX-License-Identifier: MIT */
/*
 * test_matrix.h - run every test of a list once per case of a table (every
 * bounce policy, every queue layout, ...), each under the name "test/case", in
 * one CMocka group. Header-only: the tests that use it include it after
 * <cmocka.h>.
 */
#ifndef SLUICE_TESTS_TEST_MATRIX_H
#define SLUICE_TESTS_TEST_MATRIX_H

#include <stdio.h>
#include <stdlib.h>

/**
 * struct test_matrix_test - one test of the list.
 * @name: its name, the first half of each case's test name.
 * @fn: the test.
 */
struct test_matrix_test {
	const char *name;
	CMUnitTestFunction fn;
};

/**
 * test_matrix_run() - run @ntests tests for each of @ncases cases.
 * @group: the CMocka group name.
 * @tests: the tests.
 * @ntests: how many.
 * @cases: the first case; case c is at @cases + c * @case_size and is each
 *	test's initial state.
 * @case_size: the size of one case.
 * @ncases: how many cases.
 * @case_name: writes case c's name into a buffer (at most @len bytes).
 * @setup: CMocka setup of every test; @teardown: its teardown.
 *
 * Return: CMocka's result (the number of failed tests), or 1 if the table
 * could not be allocated.
 */
static inline int test_matrix_run(const char *group, const struct test_matrix_test *tests,
				  size_t ntests, void *cases, size_t case_size, size_t ncases,
				  void (*case_name)(const void *c, char *buf, size_t len),
				  CMFixtureFunction setup, CMFixtureFunction teardown)
{
	enum { NAME_LEN = 128 };
	struct CMUnitTest *run = calloc(ntests * ncases, sizeof(*run));
	char(*names)[NAME_LEN] = calloc(ntests * ncases, NAME_LEN);
	size_t n = 0;
	int failed;

	if (!run || !names) {
		free(run);
		free(names);
		return 1;
	}
	for (size_t c = 0; c < ncases; c++) {
		void *tc = (char *)cases + c * case_size;
		char cn[NAME_LEN / 2];

		case_name(tc, cn, sizeof(cn));
		for (size_t i = 0; i < ntests; i++, n++) {
			snprintf(names[n], NAME_LEN, "%s/%s", tests[i].name, cn);
			run[n] = (struct CMUnitTest){ .name = names[n],
						      .test_func = tests[i].fn,
						      .setup_func = setup,
						      .teardown_func = teardown,
						      .initial_state = tc };
		}
	}
	failed = _cmocka_run_group_tests(group, run, n, NULL, NULL);
	free(run);
	free(names);
	return failed;
}

#endif /* SLUICE_TESTS_TEST_MATRIX_H */
