/* SPDX-License-Identifier: MIT */
/*
 * test_policy_first.c - the `first` policy's own test: a fixture of
 * tests/names/add_policy.sh, copied to tests/dma/test_policy_first.c in a scratch
 * copy of the tree (tests/dma/dma.mk picks up every tests/dma/test_policy_*.c).
 * The generic tests (test_bounce, test_map, test_bad_args, test_features)
 * run the policy through fx_policies[] without a line of their own; this one
 * checks what only first fit does: a freed low run is the next one handed out.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/fakes/test_bounce_fixture.h"

static void test_first_fit_reuses_the_lowest_run(void **state)
{
	struct fx *f = fx_new(SLUICE_DMA_POLICY_FIRST, 1, 1u << 20, SLUICE_DMA_SCRUB_ZERO);
	static unsigned char buf[3][2048];
	uint64_t dma[3], again;

	(void)state;
	assert_non_null(f);
	/* Appended to the list: the released values stay. */
	assert_int_equal(SLUICE_DMA_POLICY_FIRST, SLUICE_DMA_POLICY_COUNT - 1);
	assert_true(sluice_dma_bounce_policy_available(SLUICE_DMA_POLICY_FIRST));
	for (int i = 0; i < 3; i++)
		assert_int_equal(sluice_dma_map(&f->dl, &SLUICE_DMA_TAG_DEFAULT, buf[i],
						sizeof(buf[i]), SLUICE_DMA_TO_DEVICE, &dma[i]),
				 0);
	assert_int_equal(fx_slot(f, 0, dma[0]), 0);
	assert_int_equal(fx_slot(f, 0, dma[1]), 1);
	assert_int_equal(sluice_dma_unmap(&f->dl, dma[0], sizeof(buf[0]), SLUICE_DMA_TO_DEVICE), 0);
	/* Next fit would go on at slot 3; first fit takes slot 0 again. */
	assert_int_equal(sluice_dma_map(&f->dl, &SLUICE_DMA_TAG_DEFAULT, buf[0], sizeof(buf[0]),
					SLUICE_DMA_TO_DEVICE, &again),
			 0);
	assert_int_equal(fx_slot(f, 0, again), 0);
	assert_int_equal(sluice_dma_layer_check(&f->dl), 0);
	assert_int_equal(sluice_dma_unmap(&f->dl, again, sizeof(buf[0]), SLUICE_DMA_TO_DEVICE), 0);
	for (int i = 1; i < 3; i++)
		assert_int_equal(
			sluice_dma_unmap(&f->dl, dma[i], sizeof(buf[i]), SLUICE_DMA_TO_DEVICE), 0);
	assert_int_equal(fx_free(f), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_fit_reuses_the_lowest_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
