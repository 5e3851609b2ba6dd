/* SPDX-License-Identifier: MIT */
/*
 * test_iotlb.c - the IOTLB model: hits, compulsory and capacity misses, LRU
 * order, set mapping, granules.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "bench/iotlb.h"

static struct iotlb t;

static void test_geometry(void **state)
{
	(void)state;
	assert_int_equal(iotlb_init(&t, 64, 0, 12), 0);
	assert_int_equal(t.ways, 64);
	assert_int_equal(t.nsets, 1);
	assert_int_equal(iotlb_init(&t, 64, 4, 12), 0);
	assert_int_equal(t.nsets, 16);
	assert_int_equal(iotlb_init(&t, 64, 5, 12), -22);
	assert_int_equal(iotlb_init(&t, 0, 0, 12), -22);
	assert_int_equal(iotlb_init(&t, IOTLB_MAX_ENTRIES + 1, 0, 12), -22);
}

static void test_hits_and_compulsory_misses(void **state)
{
	(void)state;
	iotlb_init(&t, 4, 0, 12);
	iotlb_access(&t, 0x1000, 4096);
	iotlb_access(&t, 0x1800, 16);
	iotlb_access(&t, 0x1fff, 1);
	assert_int_equal(t.lookups, 3);
	assert_int_equal(t.misses, 1);
	/* A range crossing a granule boundary looks up both. */
	iotlb_access(&t, 0x1ff0, 32);
	assert_int_equal(t.lookups, 5);
	assert_int_equal(t.misses, 2);
	/* Zero length counts as one byte. */
	iotlb_access(&t, 0x2000, 0);
	assert_int_equal(t.lookups, 6);
	assert_int_equal(t.misses, 2);
}

static void test_lru_replacement(void **state)
{
	(void)state;
	iotlb_init(&t, 2, 0, 12);
	iotlb_access(&t, 0x1000, 1); /* A miss */
	iotlb_access(&t, 0x2000, 1); /* B miss */
	iotlb_access(&t, 0x1000, 1); /* A hit: B is now LRU */
	iotlb_access(&t, 0x3000, 1); /* C miss, evicts B */
	iotlb_access(&t, 0x1000, 1); /* A hit */
	iotlb_access(&t, 0x2000, 1); /* B miss, evicts C */
	assert_int_equal(t.lookups, 6);
	assert_int_equal(t.misses, 4);
}

static void test_cycling_beyond_capacity_always_misses(void **state)
{
	(void)state;
	iotlb_init(&t, 64, 0, 12);
	for (int round = 0; round < 4; round++)
		for (uint64_t p = 0; p < 65; p++)
			iotlb_access(&t, p << 12, 4096);
	/* LRU with a cyclic working set one larger than the IOTLB: all misses. */
	assert_int_equal(t.misses, t.lookups);
	iotlb_reset_counters(&t);
	for (uint64_t p = 0; p < 64; p++)
		iotlb_access(&t, p << 12, 1);
	iotlb_reset_counters(&t);
	for (uint64_t p = 0; p < 64; p++)
		iotlb_access(&t, p << 12, 1);
	assert_int_equal(t.misses, 0);
}

static void test_set_associative_conflicts(void **state)
{
	(void)state;
	/* 4 sets of 1 way: pages 0 and 4 share set 0 and evict each other. */
	iotlb_init(&t, 4, 1, 12);
	for (int i = 0; i < 10; i++) {
		iotlb_access(&t, 0x0000, 1);
		iotlb_access(&t, 0x4000, 1);
	}
	assert_int_equal(t.misses, 20);
	/* Pages 0..3 fit, one per set. */
	iotlb_reset_counters(&t);
	iotlb_init(&t, 4, 1, 12);
	for (int i = 0; i < 10; i++)
		for (uint64_t p = 0; p < 4; p++)
			iotlb_access(&t, p << 12, 1);
	assert_int_equal(t.misses, 4);
}

static void test_2m_granule_covers_512_pages(void **state)
{
	(void)state;
	iotlb_init(&t, 64, 0, 21);
	/* 8 MiB of 4 KiB buffers under 2 MiB translations: 4 compulsory misses. */
	for (uint64_t off = 0; off < (8u << 20); off += 4096)
		iotlb_access(&t, 0x40000000 + off, 4096);
	assert_int_equal(t.lookups, 2048);
	assert_int_equal(t.misses, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_geometry),
		cmocka_unit_test(test_hits_and_compulsory_misses),
		cmocka_unit_test(test_lru_replacement),
		cmocka_unit_test(test_cycling_beyond_capacity_always_misses),
		cmocka_unit_test(test_set_associative_conflicts),
		cmocka_unit_test(test_2m_granule_covers_512_pages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
