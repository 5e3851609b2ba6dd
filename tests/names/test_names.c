/* SPDX-License-Identifier: MIT */
/*
 * test_names.c - the lists of names read back through what the C code builds
 * from them: the kernel's error codes (arch/kernel_errno.h) against the DMA
 * library's (<sluice/dma_errors.h>), both texts, the policies' names and
 * availability. tests/names/check_names.py checks that nothing else types
 * them; this checks that what is built from them says the same.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "arch/kernel_errno.h"
#include <sluice/dma.h>

/* A code of both lists has one value: a log line reads the same on both sides. */
static void test_kernel_and_library_codes_agree(void **state)
{
	(void)state;
	assert_int_equal((int)KERR_PERM, (int)SLUICE_DMA_ERR_PERM);
	assert_int_equal((int)KERR_NOENT, (int)SLUICE_DMA_ERR_NOENT);
	assert_int_equal((int)KERR_IO, (int)SLUICE_DMA_ERR_IO);
	assert_int_equal((int)KERR_NOMEM, (int)SLUICE_DMA_ERR_NOMEM);
	assert_int_equal((int)KERR_BUSY, (int)SLUICE_DMA_ERR_BUSY);
	assert_int_equal((int)KERR_INVAL, (int)SLUICE_DMA_ERR_INVAL);
	assert_int_equal((int)KERR_RANGE, (int)SLUICE_DMA_ERR_RANGE);
	assert_int_equal(KERR_INVAL, -22);
}

/* Every code has its own text, from its line, either way round for the library. */
static void test_texts_come_from_the_lists(void **state)
{
	static const struct {
		int value;
		const char *text;
	} kerr[] = {
#define KROW_(name, value, text) { value, text },
		KERNEL_ERRORS(KROW_)
#undef KROW_
	}, derr[] = {
#define DROW_(name, value, text) { value, text },
		SLUICE_DMA_ERRORS(DROW_)
#undef DROW_
	};

	(void)state;
	for (size_t i = 0; i < sizeof(kerr) / sizeof(kerr[0]); i++) {
		assert_true(kerr[i].value < 0);
		assert_string_equal(kernel_strerror(kerr[i].value), kerr[i].text);
		for (size_t j = 0; j < i; j++)
			assert_int_not_equal(kerr[i].value, kerr[j].value);
	}
	for (size_t i = 0; i < sizeof(derr) / sizeof(derr[0]); i++) {
		assert_true(derr[i].value < 0);
		assert_string_equal(sluice_dma_strerror(derr[i].value), derr[i].text);
		assert_string_equal(sluice_dma_strerror(-derr[i].value), derr[i].text);
		for (size_t j = 0; j < i; j++)
			assert_int_not_equal(derr[i].value, derr[j].value);
	}
	assert_string_equal(kernel_strerror(0), "success");
	assert_string_equal(sluice_dma_strerror(0), "success");
	/* A value of neither list is no code. */
	assert_string_equal(kernel_strerror(-3), "unknown error");
	assert_string_equal(kernel_strerror(22), "unknown error");
	assert_string_equal(sluice_dma_strerror(-3), "unknown error");
	assert_string_equal(sluice_dma_strerror(-17), "unknown error");
}

/* The policies: a name per line of the list, in its order, each compiled in. */
static void test_policies_from_the_list(void **state)
{
	static const char *const names[] = {
#define PNAME_(upper, lower) #lower,
		SLUICE_DMA_POLICIES(PNAME_)
#undef PNAME_
	};

	(void)state;
	assert_int_equal(sizeof(names) / sizeof(names[0]), SLUICE_DMA_POLICY_COUNT);
	for (int p = 0; p < SLUICE_DMA_POLICY_COUNT; p++) {
		assert_string_equal(sluice_dma_bounce_policy_name((enum sluice_dma_bounce_policy)p),
				    names[p]);
		assert_true(sluice_dma_bounce_policy_available((enum sluice_dma_bounce_policy)p));
	}
	assert_string_equal(sluice_dma_bounce_policy_name(SLUICE_DMA_POLICY_COUNT), "?");
	assert_false(sluice_dma_bounce_policy_available(SLUICE_DMA_POLICY_COUNT));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_and_library_codes_agree),
		cmocka_unit_test(test_texts_come_from_the_lists),
		cmocka_unit_test(test_policies_from_the_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
