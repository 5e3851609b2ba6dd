/* SPDX-License-Identifier: MIT */
/*
 * test_paging.c - host tests of arch/x86_64/mm/paging.c.
 *
 * The address space is tests/fakes/fake_pt.c's: table pages from the heap, an
 * allocator that can be told to fail after N more tables, and every flush_page
 * call recorded so tests can check exactly which translations were
 * invalidated; the mapped addresses themselves are never touched. Most tests
 * run once per confidential-computing encoding (emulated bit 9, TDX shared
 * bit 51/47, SEV C-bit 51/47), and every teardown runs pt_check(). Nothing
 * here measures or asserts a time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "arch/x86_64/mm/paging.h"
#include "tests/fakes/fake_pt.h"

#define KIB 0x400ULL
#define MIB 0x100000ULL
#define GIB 0x40000000ULL
#define PG PT_SIZE_4K

static int fx_setup(void **state, uint64_t set_mask, uint64_t clear_mask)
{
	struct fake_pt *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	if (fake_pt_init(f, set_mask, clear_mask) != 0) {
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

FAKE_PT_ENCODING_SETUPS(fx_setup)

static int teardown(void **state)
{
	struct fake_pt *f = *state;
	/* Report a failed self-check as a failed teardown, after freeing. */
	int check = fake_pt_fini(f);

	free(f);
	return check == 0 ? 0 : -1;
}

/* ---- helpers ----------------------------------------------------------- */

static bool raw_is_shared(const struct fake_pt *f, uint64_t e)
{
	return (e & f->set_mask) == f->set_mask && !(e & f->clear_mask);
}

static bool raw_is_private(const struct fake_pt *f, uint64_t e)
{
	return !(e & f->set_mask) && (e & f->clear_mask) == f->clear_mask;
}

static void expect_map(struct fake_pt *f, uint64_t va, uint64_t pa, uint64_t size, uint64_t flags)
{
	uint64_t got_pa = 0, got_size = 0, got_flags = 0;

	assert_int_equal(pt_translate(&f->pt, va, &got_pa, &got_size, &got_flags), 0);
	assert_int_equal(got_pa, pa);
	assert_int_equal(got_size, size);
	assert_int_equal(got_flags, flags);
}

static void expect_flushes(struct fake_pt *f, const uint64_t *vas, size_t n)
{
	assert_int_equal(f->nflushed, n);
	assert_int_equal(f->pt.flushes, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(f->flushed[i], vas[i]);
}

static void flush_reset(struct fake_pt *f)
{
	f->nflushed = 0;
	f->pt.flushes = 0;
	f->pt.splits = 0;
}

#define PRIV_RW (PT_PRESENT | PT_WRITE | PT_NX)

/* ---- mapping ----------------------------------------------------------- */

/*
 * A 3 GiB identity range starting 12 KiB below a 2 MB boundary that is itself
 * 2 MB below a 1 GiB boundary: 4 KiB pages at both edges, 2 MB in between,
 * several PDPT entries and PDs.
 */
static void test_map_identity_mixed_alignment(void **state)
{
	struct fake_pt *f = *state;
	const uint64_t start = GIB - 2 * MIB - 12 * KIB;
	const uint64_t end = start + 3 * GIB + 2 * MIB + 20 * KIB;
	uint64_t n4k = 0, n2m = 0;

	assert_int_equal(pt_map_range(&f->pt, start, start, end - start, PT_WRITE | PT_NX), 0);
	for (uint64_t va = start; va < end; va += PG) {
		uint64_t b = va & ~(PT_SIZE_2M - 1);
		bool huge = b >= start && b + PT_SIZE_2M <= end;
		int level;
		uint64_t *e;

		expect_map(f, va, va, huge ? PT_SIZE_2M : PG, PRIV_RW);
		e = fake_pt_raw_leaf(f, va, &level);
		assert_non_null(e);
		assert_true(raw_is_private(f, *e));
		if (huge)
			n2m += (va == b);
		else
			n4k++;
	}
	assert_int_equal(n4k, 3 + 2);
	assert_int_equal(n2m, (3 * GIB + 2 * MIB) / PT_SIZE_2M);
	assert_int_equal(pt_translate(&f->pt, start - PG, NULL, NULL, NULL), PT_ERR_NOENT);
	assert_int_equal(pt_translate(&f->pt, end, NULL, NULL, NULL), PT_ERR_NOENT);
	/* Offsets inside a page come through. */
	expect_map(f, start + 0x123, start + 0x123, PG, PRIV_RW);
	expect_map(f, GIB + 0x12345, GIB + 0x12345, PT_SIZE_2M, PRIV_RW);
	/* PML4 + PDPT + PDs for the 1 GiB slots 0..4 + 2 edge PTs. */
	assert_int_equal(f->pt.tables_allocated, 1 + 1 + 5 + 2);
	assert_int_equal(f->nflushed, 0);
	assert_int_equal(pt_check(&f->pt), 0);
}

/* Higher-half mapping (kernel style) and a pa that 2 MB pages cannot follow. */
static void test_map_high_half_and_misaligned_pa(void **state)
{
	struct fake_pt *f = *state;
	const uint64_t kva = 0xffffffff80000000ULL;
	const uint64_t flags = PT_WRITE | PT_GLOBAL;

	assert_int_equal(pt_map_range(&f->pt, kva, 16 * MIB, 8 * MIB + PG, flags), 0);
	expect_map(f, kva, 16 * MIB, PT_SIZE_2M, PT_PRESENT | flags);
	expect_map(f, kva + 8 * MIB - 1, 24 * MIB - 1, PT_SIZE_2M, PT_PRESENT | flags);
	expect_map(f, kva + 8 * MIB, 24 * MIB, PG, PT_PRESENT | flags);
	assert_int_equal(pt_translate(&f->pt, kva + 8 * MIB + PG, NULL, NULL, NULL), PT_ERR_NOENT);

	/* va 2 MB aligned, pa off by 4 KiB: every page must be 4 KiB. */
	assert_int_equal(pt_map_range(&f->pt, 64 * MIB, 128 * MIB + PG, 4 * MIB, PT_WRITE), 0);
	for (uint64_t off = 0; off < 4 * MIB; off += PG)
		expect_map(f, 64 * MIB + off, 128 * MIB + PG + off, PG, PT_PRESENT | PT_WRITE);
}

static void test_map_identical_accepted_conflict_refused(void **state)
{
	struct fake_pt *f = *state;
	uint64_t tables;

	assert_int_equal(pt_map_range(&f->pt, 2 * MIB, 2 * MIB, 4 * MIB, PT_WRITE | PT_NX), 0);
	tables = f->pt.tables_allocated;
	/* The same range again, and a 4 KiB-granular piece inside a 2 MB leaf. */
	assert_int_equal(pt_map_range(&f->pt, 2 * MIB, 2 * MIB, 4 * MIB, PT_WRITE | PT_NX), 0);
	assert_int_equal(pt_map_range(&f->pt, 3 * MIB, 3 * MIB, 8 * KIB, PT_WRITE | PT_NX), 0);
	assert_int_equal(f->pt.tables_allocated, tables);
	expect_map(f, 3 * MIB, 3 * MIB, PT_SIZE_2M, PRIV_RW);
	/* A/D preset in the request do not make it different. */
	assert_int_equal(pt_map_range(&f->pt, 2 * MIB, 2 * MIB, 2 * MIB,
				      PT_WRITE | PT_NX | PT_ACCESSED | PT_DIRTY),
			 0);

	/* Overlap with an identical part extends the mapping. */
	assert_int_equal(pt_map_range(&f->pt, 5 * MIB, 5 * MIB, 3 * MIB, PT_WRITE | PT_NX), 0);
	expect_map(f, 7 * MIB, 7 * MIB, PT_SIZE_2M, PRIV_RW);

	/* Conflicts: other frame, other attributes, other shared state. */
	assert_int_equal(pt_map_range(&f->pt, 7 * MIB, 7 * MIB + PG, 2 * MIB, PT_WRITE | PT_NX),
			 PT_ERR_EXIST);
	assert_int_equal(pt_map_range(&f->pt, 2 * MIB, 2 * MIB, 2 * MIB, PT_WRITE), PT_ERR_EXIST);
	assert_int_equal(pt_map_range(&f->pt, 2 * MIB, 2 * MIB, 2 * MIB,
				      PT_WRITE | PT_NX | PT_ATTR_SHARED),
			 PT_ERR_EXIST);
	/* A conflict at the end must not leave the new head mapped. */
	assert_int_equal(pt_map_range(&f->pt, 8 * MIB, 8 * MIB, 4 * MIB + PG, PT_WRITE), 0);
	assert_int_equal(pt_map_range(&f->pt, 20 * MIB, 20 * MIB, 2 * MIB, PT_WRITE), 0);
	assert_int_equal(pt_map_range(&f->pt, 14 * MIB, 14 * MIB, 8 * MIB, PT_WRITE | PT_NX),
			 PT_ERR_EXIST);
	assert_int_equal(pt_translate(&f->pt, 14 * MIB, NULL, NULL, NULL), PT_ERR_NOENT);

	/* Identical remap over pages that were split since. */
	assert_int_equal(pt_split_2m(&f->pt, 2 * MIB), 0);
	assert_int_equal(pt_map_range(&f->pt, 2 * MIB, 2 * MIB, 2 * MIB, PT_WRITE | PT_NX), 0);
	expect_map(f, 2 * MIB, 2 * MIB, PG, PRIV_RW);
	assert_int_equal(f->nflushed, 1);
}

static void test_invalid_args(void **state)
{
	struct fake_pt *f = *state;
	struct page_table pt2;
	/* The fixture's own callbacks (tests/fakes/fake_pt.c), one time without the allocator. */
	struct pt_ops ops = f->pt.ops;
	struct pt_ops noalloc = { .ctx = f, .flush_page = f->pt.ops.flush_page };
	uint64_t lowest = (f->set_mask | f->clear_mask) & PT_ADDR_MASK;
	uint64_t limit = lowest ? lowest & -lowest : 1ULL << 52;

	/* map: alignment, length, canonical form, wrap, flags, pa limit. */
	assert_int_equal(pt_map_range(&f->pt, 0x1001, 0x1000, PG, 0), PT_ERR_INVAL);
	assert_int_equal(pt_map_range(&f->pt, 0x1000, 0x1001, PG, 0), PT_ERR_INVAL);
	assert_int_equal(pt_map_range(&f->pt, 0x1000, 0x1000, PG + 1, 0), PT_ERR_INVAL);
	assert_int_equal(pt_map_range(&f->pt, 0x1000, 0x1000, 0, 0), PT_ERR_INVAL);
	assert_int_equal(pt_map_range(&f->pt, 1ULL << 47, 0, PG, 0), PT_ERR_INVAL);
	assert_int_equal(pt_map_range(&f->pt, (1ULL << 47) - PG, 0, 2 * PG, 0), PT_ERR_INVAL);
	assert_int_equal(pt_map_range(&f->pt, 0xfffffffffffff000ULL, 0, 2 * PG, 0), PT_ERR_INVAL);
	assert_int_equal(pt_map_range(&f->pt, 0x1000, 0x1000, PG, PT_HUGE), PT_ERR_INVAL);
	assert_int_equal(pt_map_range(&f->pt, 0x1000, 0x1000, PG, 1ULL << 20), PT_ERR_INVAL);
	assert_int_equal(pt_map_range(&f->pt, 0x1000, limit, PG, 0), PT_ERR_INVAL);
	assert_int_equal(pt_map_range(&f->pt, 0x1000, limit - PG, 2 * PG, 0), PT_ERR_INVAL);
	assert_int_equal(pt_map_range(&f->pt, 0x1000, limit - PG, PG, 0), 0);
	assert_int_equal(pt_translate(&f->pt, 0x1000, NULL, NULL, NULL), 0);
	/* The very last page and 2 MB of the address space are fine (end == 2^64). */
	assert_int_equal(pt_map_range(&f->pt, -PT_SIZE_2M, 4 * MIB, PT_SIZE_2M, PT_WRITE), 0);
	expect_map(f, -PG, 6 * MIB - PG, PT_SIZE_2M, PT_PRESENT | PT_WRITE);
	assert_int_equal(pt_set_shared(&f->pt, -PG, PG, true), 0);
	assert_true(pt_range_is_shared(&f->pt, -PG, PG));
	assert_false(pt_range_is_shared(&f->pt, -2 * PG, 2 * PG));
	assert_int_equal(pt_set_shared(&f->pt, -PT_SIZE_2M, PT_SIZE_2M, false), 0);
	assert_false(pt_is_shared(&f->pt, -PG));
	flush_reset(f);

	/* set_shared: alignment, zero length, unmapped, partly unmapped. */
	assert_int_equal(pt_set_shared(&f->pt, 0x1800, PG, true), PT_ERR_INVAL);
	assert_int_equal(pt_set_shared(&f->pt, 0x1000, PG / 2, true), PT_ERR_INVAL);
	assert_int_equal(pt_set_shared(&f->pt, 0x1000, 0, true), PT_ERR_INVAL);
	assert_int_equal(pt_set_shared(&f->pt, 1ULL << 47, PG, true), PT_ERR_INVAL);
	assert_int_equal(pt_set_shared(&f->pt, 0x3000, PG, true), PT_ERR_NOENT);
	assert_int_equal(pt_set_shared(&f->pt, 0x1000, 2 * PG, true), PT_ERR_NOENT);
	assert_false(pt_is_shared(&f->pt, 0x1000));
	assert_int_equal(f->nflushed, 0);

	/* split / translate / queries. */
	assert_int_equal(pt_split_2m(&f->pt, 0x200000), PT_ERR_NOENT);
	assert_int_equal(pt_split_2m(&f->pt, 1ULL << 50), PT_ERR_INVAL);
	assert_int_equal(pt_translate(&f->pt, 0x2000, NULL, NULL, NULL), PT_ERR_NOENT);
	assert_int_equal(pt_translate(&f->pt, 1ULL << 47, NULL, NULL, NULL), PT_ERR_INVAL);
	assert_false(pt_is_shared(&f->pt, 0x2000));
	assert_false(pt_range_is_shared(&f->pt, 0x1000, 0));

	/* init: missing ops, no mask, overlapping masks, masks on hardware bits. */
	assert_int_equal(pt_init(&pt2, &noalloc, PT_SW_SHARED, 0), PT_ERR_INVAL);
	assert_int_equal(pt_init(&pt2, &ops, 0, 0), PT_ERR_INVAL);
	assert_int_equal(pt_init(&pt2, &ops, 1ULL << 51, 1ULL << 51), PT_ERR_INVAL);
	assert_int_equal(pt_init(&pt2, &ops, PT_HUGE, 0), PT_ERR_INVAL);
	assert_int_equal(pt_init(&pt2, &ops, 0, PT_NX), PT_ERR_INVAL);
	assert_int_equal(pt_init(&pt2, &ops, 1ULL << 20, 0), PT_ERR_INVAL);
	f->fail_after = 0;
	assert_int_equal(pt_init(&pt2, &ops, PT_SW_SHARED, 0), PT_ERR_NOMEM);
	f->fail_after = -1;
}

/* ---- split ------------------------------------------------------------- */

static void test_split_preserves_everything(void **state)
{
	struct fake_pt *f = *state;
	const uint64_t va = 4 * MIB, pa = GIB + 6 * MIB;
	const uint64_t flags = PT_WRITE | PT_PCD | PT_ATTR_PAT | PT_GLOBAL | PT_NX;
	const uint64_t want_flush[] = { 6 * MIB, 4 * MIB, 6 * MIB };
	uint64_t tables;
	int level;

	assert_int_equal(pt_map_range(&f->pt, va, pa, 4 * MIB, flags), 0);
	assert_int_equal(pt_set_shared(&f->pt, 6 * MIB, 2 * MIB, true), 0);
	/* Before: 2 MB leaves with PAT at bit 12. */
	assert_true(*fake_pt_raw_leaf(f, va, &level) & PT_PAT_LARGE);
	assert_int_equal(level, 2);
	tables = f->pt.tables_allocated;

	assert_int_equal(pt_split_2m(&f->pt, va + 0x1234), 0);
	assert_int_equal(pt_split_2m(&f->pt, 6 * MIB), 0);
	assert_int_equal(f->pt.splits, 2);
	assert_int_equal(f->pt.tables_allocated, tables + 2);
	expect_flushes(f, want_flush, 3);

	for (uint64_t off = 0; off < 4 * MIB; off += PG) {
		bool shared = off >= 2 * MIB;
		uint64_t *e = fake_pt_raw_leaf(f, va + off, &level);

		expect_map(f, va + off, pa + off, PG,
			   PT_PRESENT | flags | (shared ? PT_ATTR_SHARED : 0));
		assert_int_equal(level, 1);
		/* PAT now at bit 7; bit 12 is a frame bit and must equal pa's. */
		assert_true(*e & PT_PAT_4K);
		assert_int_equal(*e & fake_pt_frame_mask(f), pa + off);
		assert_true(shared ? raw_is_shared(f, *e) : raw_is_private(f, *e));
		assert_int_equal(pt_is_shared(&f->pt, va + off), shared);
	}

	/* Splitting again is a no-op. */
	assert_int_equal(pt_split_2m(&f->pt, va), 0);
	assert_int_equal(f->pt.splits, 2);
	assert_int_equal(f->nflushed, 3);
}

static void test_split_nomem_leaves_mapping(void **state)
{
	struct fake_pt *f = *state;
	uint64_t tables;

	assert_int_equal(pt_map_range(&f->pt, 2 * MIB, 2 * MIB, 2 * MIB, PT_WRITE), 0);
	tables = f->pt.tables_allocated;
	f->fail_after = 0;
	assert_int_equal(pt_split_2m(&f->pt, 2 * MIB), PT_ERR_NOMEM);
	expect_map(f, 2 * MIB + PG, 2 * MIB + PG, PT_SIZE_2M, PT_PRESENT | PT_WRITE);
	assert_int_equal(f->pt.tables_allocated, tables);
	assert_int_equal(f->pt.splits, 0);
	assert_int_equal(f->nflushed, 0);
	f->fail_after = -1;
}

/* ---- shared / private -------------------------------------------------- */

static void test_set_shared_one_page_splits(void **state)
{
	struct fake_pt *f = *state;
	const uint64_t target = 4 * MIB + 5 * PG;
	uint64_t once[] = { target }, twice[] = { target, target };

	assert_int_equal(pt_map_range(&f->pt, 2 * MIB, 2 * MIB, 4 * MIB, PT_WRITE | PT_NX), 0);
	assert_int_equal(pt_set_shared(&f->pt, target, PG, true), 0);
	assert_int_equal(f->pt.splits, 1);
	assert_int_equal(f->pt.pages_made_shared, 1);
	expect_flushes(f, once, 1);

	for (uint64_t va = 2 * MIB; va < 6 * MIB; va += PG) {
		bool is_target = va == target;

		expect_map(f, va, va, va < 4 * MIB ? PT_SIZE_2M : PG,
			   PRIV_RW | (is_target ? PT_ATTR_SHARED : 0));
		assert_int_equal(pt_is_shared(&f->pt, va), is_target);
	}
	assert_true(pt_range_is_shared(&f->pt, target, PG));
	assert_true(pt_range_is_shared(&f->pt, target + 1, 100));
	assert_false(pt_range_is_shared(&f->pt, target, 2 * PG));
	assert_false(pt_range_is_shared(&f->pt, target - 1, 2));

	/* Already shared: nothing to do, nothing flushed. */
	assert_int_equal(pt_set_shared(&f->pt, target, PG, true), 0);
	expect_flushes(f, once, 1);

	assert_int_equal(pt_set_shared(&f->pt, target, PG, false), 0);
	assert_int_equal(f->pt.splits, 1);
	assert_int_equal(f->pt.pages_made_private, 1);
	expect_flushes(f, twice, 2);
	assert_false(pt_is_shared(&f->pt, target));
}

static void test_set_shared_whole_2m_does_not_split(void **state)
{
	struct fake_pt *f = *state;
	uint64_t tables;
	const uint64_t one[] = { 4 * MIB };
	const uint64_t mixed[] = { 4 * MIB - 2 * PG, 4 * MIB - PG, 6 * MIB };
	const uint64_t back[] = { 4 * MIB - 2 * PG, 4 * MIB - PG, 4 * MIB, 6 * MIB };

	assert_int_equal(pt_map_range(&f->pt, 2 * MIB, 2 * MIB, 6 * MIB, PT_WRITE | PT_NX), 0);
	tables = f->pt.tables_allocated;

	/* Private to private: no change at all. */
	assert_int_equal(pt_set_shared(&f->pt, 2 * MIB, 6 * MIB, false), 0);
	assert_int_equal(f->nflushed, 0);

	assert_int_equal(pt_set_shared(&f->pt, 4 * MIB, 2 * MIB, true), 0);
	assert_int_equal(f->pt.splits, 0);
	assert_int_equal(f->pt.tables_allocated, tables);
	assert_int_equal(f->pt.pages_made_shared, 512);
	expect_flushes(f, one, 1);
	expect_map(f, 5 * MIB, 5 * MIB, PT_SIZE_2M, PRIV_RW | PT_ATTR_SHARED);
	assert_true(pt_range_is_shared(&f->pt, 4 * MIB, 2 * MIB));
	assert_false(pt_is_shared(&f->pt, 4 * MIB - PG));
	assert_false(pt_is_shared(&f->pt, 6 * MIB));

	/* Edges in two leaves, an already-shared leaf in between. */
	flush_reset(f);
	assert_int_equal(pt_set_shared(&f->pt, 4 * MIB - 2 * PG, 2 * MIB + 3 * PG, true), 0);
	assert_int_equal(f->pt.splits, 2);
	expect_flushes(f, mixed, 3);
	assert_true(pt_range_is_shared(&f->pt, 4 * MIB - 2 * PG, 2 * MIB + 3 * PG));
	assert_false(pt_is_shared(&f->pt, 4 * MIB - 3 * PG));
	assert_false(pt_is_shared(&f->pt, 6 * MIB + PG));
	expect_map(f, 5 * MIB, 5 * MIB, PT_SIZE_2M, PRIV_RW | PT_ATTR_SHARED);

	/* And everything back. */
	flush_reset(f);
	assert_int_equal(pt_set_shared(&f->pt, 2 * MIB, 6 * MIB, false), 0);
	assert_int_equal(f->pt.splits, 0);
	expect_flushes(f, back, 4);
	assert_int_equal(f->pt.pages_made_private, 2 + 512 + 1);
	for (uint64_t va = 2 * MIB; va < 8 * MIB; va += PG)
		assert_false(pt_is_shared(&f->pt, va));
}

/* Raw encodings for whichever model this run uses. */
static void test_encoding_in_entries(void **state)
{
	struct fake_pt *f = *state;
	const uint64_t mmio = 0xfe000000ULL;
	uint64_t *e;
	int level;

	assert_int_equal(pt_map_range(&f->pt, 2 * MIB, 2 * MIB, 4 * MIB, PT_WRITE | PT_NX), 0);
	assert_int_equal(pt_map_range(&f->pt, mmio, mmio, 16 * KIB, PT_ATTR_MMIO), 0);

	/* Table pointers are private (SEV: C-bit set; TDX: shared bit clear). */
	assert_true(raw_is_private(f, f->pt.pml4[0]));
	e = fake_pt_raw_leaf(f, 2 * MIB, &level);
	assert_true(raw_is_private(f, *e));
	e = fake_pt_raw_leaf(f, mmio, &level);
	assert_int_equal(level, 1);
	assert_true(raw_is_shared(f, *e));
	assert_int_equal(*e & (PT_PCD | PT_PWT), PT_PCD | PT_PWT);
	expect_map(f, mmio + 8, mmio + 8, PG, PT_PRESENT | PT_ATTR_MMIO);

	assert_int_equal(pt_set_shared(&f->pt, 4 * MIB, 2 * MIB, true), 0);
	assert_int_equal(pt_set_shared(&f->pt, 2 * MIB, PG, true), 0);
	assert_true(raw_is_shared(f, *fake_pt_raw_leaf(f, 4 * MIB, &level)));
	assert_true(raw_is_shared(f, *fake_pt_raw_leaf(f, 2 * MIB, &level)));
	assert_true(raw_is_private(f, *fake_pt_raw_leaf(f, 2 * MIB + PG, &level)));
	/* The encoding bit never leaks into the translated address. */
	expect_map(f, 4 * MIB + 0x42, 4 * MIB + 0x42, PT_SIZE_2M, PRIV_RW | PT_ATTR_SHARED);
	expect_map(f, 2 * MIB, 2 * MIB, PG, PRIV_RW | PT_ATTR_SHARED);
}

/* The same facts spelled out with literal bit numbers. */
static void test_sev_c_bit_51(void **state)
{
	struct fake_pt *f = *state;
	const uint64_t cbit = 1ULL << 51;
	int level;

	assert_int_equal(pt_map_range(&f->pt, 2 * MIB, 2 * MIB, 2 * MIB, PT_WRITE), 0);
	assert_int_equal(pt_map_range(&f->pt, 0xfe000000ULL, 0xfe000000ULL, PG, PT_ATTR_MMIO), 0);
	assert_true(*fake_pt_raw_leaf(f, 2 * MIB, &level) & cbit);	  /* private RAM */
	assert_false(*fake_pt_raw_leaf(f, 0xfe000000ULL, &level) & cbit); /* device */
	assert_true(f->pt.pml4[0] & cbit);				  /* table pointer */
	assert_int_equal(pt_set_shared(&f->pt, 3 * MIB, PG, true), 0);
	assert_false(*fake_pt_raw_leaf(f, 3 * MIB, &level) & cbit);
	assert_true(*fake_pt_raw_leaf(f, 3 * MIB + PG, &level) & cbit);
	/* A pa with the C-bit set is not RAM the caller may name. */
	assert_int_equal(pt_map_range(&f->pt, 8 * MIB, cbit | 8 * MIB, PG, 0), PT_ERR_INVAL);
}

static void test_tdx_shared_bit_51(void **state)
{
	struct fake_pt *f = *state;
	const uint64_t sbit = 1ULL << 51;
	int level;

	assert_int_equal(pt_map_range(&f->pt, 2 * MIB, 2 * MIB, 2 * MIB, PT_WRITE), 0);
	assert_false(*fake_pt_raw_leaf(f, 2 * MIB, &level) & sbit);
	assert_false(f->pt.pml4[0] & sbit);
	assert_int_equal(pt_set_shared(&f->pt, 2 * MIB, 2 * MIB, true), 0);
	assert_true(*fake_pt_raw_leaf(f, 2 * MIB, &level) & sbit);
	assert_int_equal(level, 2);
	assert_int_equal(pt_map_range(&f->pt, 8 * MIB, sbit | 8 * MIB, PG, 0), PT_ERR_INVAL);
}

/*
 * A conversion needing two splits (head and tail leaf) when the allocator
 * fails on the second table: every entry must be exactly as before.
 */
static void test_conversion_nomem_is_all_or_nothing(void **state)
{
	struct fake_pt *f = *state;
	const uint64_t start = 2 * MIB, end = 12 * MIB;
	const uint64_t cva = start + PG, clen = end - start - 2 * PG;
	size_t npages = (end - start) / PG;
	uint64_t *before = calloc(npages, sizeof(*before));
	uint64_t tables;
	int level;

	assert_non_null(before);
	assert_int_equal(pt_map_range(&f->pt, start, start, end - start, PT_WRITE | PT_NX), 0);
	/* Make one middle leaf shared already so the result is not uniform. */
	assert_int_equal(pt_set_shared(&f->pt, 6 * MIB, 2 * MIB, true), 0);
	flush_reset(f);
	tables = f->pt.tables_allocated;
	for (size_t i = 0; i < npages; i++)
		before[i] = *fake_pt_raw_leaf(f, start + i * PG, &level);

	f->fail_after = 1;
	assert_int_equal(pt_set_shared(&f->pt, cva, clen, true), PT_ERR_NOMEM);
	for (size_t i = 0; i < npages; i++) {
		uint64_t *e = fake_pt_raw_leaf(f, start + i * PG, &level);

		assert_int_equal(*e, before[i]);
		assert_int_equal(level, 2);
	}
	assert_int_equal(f->nflushed, 0);
	assert_int_equal(f->pt.splits, 0);
	assert_int_equal(f->pt.pages_made_shared, 512);
	assert_int_equal(f->pt.tables_allocated, tables + 1);
	assert_int_equal(f->pt.tables_spare, 1);
	assert_int_equal(pt_check(&f->pt), 0);

	/* With memory it goes through, reusing the spare table. */
	f->fail_after = -1;
	assert_int_equal(pt_set_shared(&f->pt, cva, clen, true), 0);
	assert_int_equal(f->pt.tables_allocated, tables + 2);
	assert_int_equal(f->pt.tables_spare, 0);
	assert_int_equal(f->pt.splits, 2);
	/* 511 head pages, 2 whole leaves (4M, 8M; 6M was shared), 511 tail pages. */
	assert_int_equal(f->nflushed, 511 + 2 + 511);
	for (size_t i = 0; i < 511; i++) {
		assert_int_equal(f->flushed[i], cva + i * PG);
		assert_int_equal(f->flushed[511 + 2 + i], 10 * MIB + i * PG);
	}
	assert_int_equal(f->flushed[511], 4 * MIB);
	assert_int_equal(f->flushed[512], 8 * MIB);
	assert_true(pt_range_is_shared(&f->pt, cva, clen));
	assert_false(pt_is_shared(&f->pt, start));
	assert_false(pt_is_shared(&f->pt, end - PG));
	free(before);
}

static void test_map_nomem_is_all_or_nothing(void **state)
{
	struct fake_pt *f = *state;
	uint64_t tables = f->pt.tables_allocated;

	/* Needs PDPT, PD and PT: the third allocation fails. */
	f->fail_after = 2;
	assert_int_equal(pt_map_range(&f->pt, 5 * GIB - PG, 5 * GIB - PG, 2 * PG, PT_WRITE),
			 PT_ERR_NOMEM);
	assert_int_equal(pt_translate(&f->pt, 5 * GIB - PG, NULL, NULL, NULL), PT_ERR_NOENT);
	assert_int_equal(pt_translate(&f->pt, 5 * GIB, NULL, NULL, NULL), PT_ERR_NOENT);
	assert_int_equal(f->pt.pml4[0], 0);
	assert_int_equal(f->pt.tables_spare, 2);
	f->fail_after = -1;
	assert_int_equal(pt_map_range(&f->pt, 5 * GIB - PG, 5 * GIB - PG, 2 * PG, PT_WRITE), 0);
	/* PDPT + 2 PDs (either side of the 1 GiB line) + 2 PTs. */
	assert_int_equal(f->pt.tables_allocated, tables + 5);
	expect_map(f, 5 * GIB, 5 * GIB, PG, PT_PRESENT | PT_WRITE);
}

/* ---- 1 GiB leaves (the kernel does not make them, firmware tables may) - */

static void test_one_gib_leaf(void **state)
{
	struct fake_pt *f = *state;
	const uint64_t pa = 3 * GIB;
	const uint64_t target = GIB + 3 * PT_SIZE_2M + 7 * PG;
	const uint64_t want_flush[] = { target };
	uint64_t *pdpt;
	uint64_t tables;
	int level;

	/* A 4 KiB mapping creates the PDPT; then plant a 1 GiB leaf beside it. */
	assert_int_equal(pt_map_range(&f->pt, PG, PG, PG, PT_WRITE), 0);
	pdpt = (uint64_t *)(uintptr_t)(f->pt.pml4[0] & fake_pt_frame_mask(f));
	pdpt[1] = pa | PT_PRESENT | PT_WRITE | PT_HUGE | PT_PAT_LARGE | PT_NX | f->clear_mask;
	assert_int_equal(pt_check(&f->pt), 0);

	expect_map(f, GIB + 0x123456, pa + 0x123456, PT_SIZE_1G, PRIV_RW | PT_ATTR_PAT);
	assert_int_equal(pt_split_2m(&f->pt, GIB), PT_ERR_INVAL);
	/* Identical mapping inside it is accepted; a different one is not. */
	assert_int_equal(pt_map_range(&f->pt, GIB + 2 * MIB, pa + 2 * MIB, 4 * MIB,
				      PT_WRITE | PT_NX | PT_ATTR_PAT),
			 0);
	assert_int_equal(pt_map_range(&f->pt, GIB, pa, PG, PT_WRITE | PT_NX), PT_ERR_EXIST);

	/* One page needs two splits; with one table only, nothing changes. */
	tables = f->pt.tables_allocated;
	f->fail_after = 1;
	assert_int_equal(pt_set_shared(&f->pt, target, PG, true), PT_ERR_NOMEM);
	expect_map(f, target, pa + (target - GIB), PT_SIZE_1G, PRIV_RW | PT_ATTR_PAT);
	f->fail_after = -1;

	assert_int_equal(pt_set_shared(&f->pt, target, PG, true), 0);
	assert_int_equal(f->pt.splits, 2);
	assert_int_equal(f->pt.tables_allocated, tables + 2);
	expect_flushes(f, want_flush, 1);
	expect_map(f, target, pa + (target - GIB), PG, PRIV_RW | PT_ATTR_PAT | PT_ATTR_SHARED);
	expect_map(f, target + PG, pa + (target + PG - GIB), PG, PRIV_RW | PT_ATTR_PAT);
	expect_map(f, GIB, pa, PT_SIZE_2M, PRIV_RW | PT_ATTR_PAT);
	expect_map(f, 2 * GIB - PG, pa + GIB - PG, PT_SIZE_2M, PRIV_RW | PT_ATTR_PAT);
	assert_true(*fake_pt_raw_leaf(f, GIB, &level) & PT_PAT_LARGE);
	assert_int_equal(level, 2);
	assert_true(*fake_pt_raw_leaf(f, target, &level) & PT_PAT_4K);
	assert_int_equal(level, 1);
}

static void test_whole_gib_leaf_converts_in_place(void **state)
{
	struct fake_pt *f = *state;
	const uint64_t want_flush[] = { GIB };
	uint64_t *pdpt;

	assert_int_equal(pt_map_range(&f->pt, PG, PG, PG, PT_WRITE), 0);
	pdpt = (uint64_t *)(uintptr_t)(f->pt.pml4[0] & fake_pt_frame_mask(f));
	pdpt[1] = 2 * GIB | PT_PRESENT | PT_WRITE | PT_HUGE | f->clear_mask;
	assert_int_equal(pt_set_shared(&f->pt, GIB, GIB, true), 0);
	assert_int_equal(f->pt.splits, 0);
	assert_int_equal(f->pt.pages_made_shared, GIB / PG);
	expect_flushes(f, want_flush, 1);
	assert_true(pt_range_is_shared(&f->pt, GIB, GIB));
}

/* ---- the self-check catches what it claims to -------------------------- */

static void test_check_detects_corruption(void **state)
{
	struct fake_pt *f = *state;
	uint64_t *e, saved, *pml4e = &f->pt.pml4[0];
	int level;

	assert_int_equal(pt_map_range(&f->pt, 2 * MIB, 2 * MIB, 2 * MIB, PT_WRITE), 0);
	assert_int_equal(pt_check(&f->pt), 0);
	e = fake_pt_raw_leaf(f, 2 * MIB, &level);
	saved = *e;

	*e |= 1ULL << 13; /* reserved in a 2 MB leaf */
	assert_int_equal(pt_check(&f->pt), PT_ERR_INVAL);
	*e = saved;

	saved = *pml4e;
	*pml4e |= PT_HUGE; /* reserved in a PML4E */
	assert_int_equal(pt_check(&f->pt), PT_ERR_INVAL);
	*pml4e = saved;
	/* A table pointer with the shared encoding. */
	*pml4e = (saved & ~(f->set_mask | f->clear_mask)) | f->set_mask;
	assert_int_equal(pt_check(&f->pt), PT_ERR_INVAL);
	*pml4e = saved;

	f->pt.tables_allocated++;
	assert_int_equal(pt_check(&f->pt), PT_ERR_INVAL);
	f->pt.tables_allocated--;
	f->pt.splits = f->pt.tables_allocated;
	f->pt.flushes = 1;
	assert_int_equal(pt_check(&f->pt), PT_ERR_INVAL);
	f->pt.splits = 1;
	f->pt.flushes = 0;
	assert_int_equal(pt_check(&f->pt), PT_ERR_INVAL);
	f->pt.splits = 0;
	assert_int_equal(pt_check(&f->pt), 0);
}

/* With both masks in use (not a real model), a leaf can be neither. */
static int setup_both(void **state)
{
	return fx_setup(state, 1ULL << 51, 1ULL << 47);
}

static void test_check_detects_mixed_encoding(void **state)
{
	struct fake_pt *f = *state;
	uint64_t *e, saved;
	int level;

	assert_int_equal(pt_map_range(&f->pt, 2 * MIB, 2 * MIB, 2 * MIB, PT_WRITE), 0);
	e = fake_pt_raw_leaf(f, 2 * MIB, &level);
	saved = *e;
	assert_true(raw_is_private(f, saved));
	*e |= f->set_mask; /* shared bit and "encrypted" bit together */
	assert_int_equal(pt_check(&f->pt), PT_ERR_INVAL);
	assert_false(pt_is_shared(&f->pt, 2 * MIB));
	*e = saved;
	assert_int_equal(pt_set_shared(&f->pt, 2 * MIB, 2 * MIB, true), 0);
	assert_true(raw_is_shared(f, *e));
}

/* ---- permissions and the W^X / shared-NX policy ----------------------- */

/*
 * Changing one page's permissions inside a shared 2 MB leaf splits it: only
 * that page changes, the 511 others keep W, NX and the shared encoding, and the
 * changed page stays shared. Whole leaves change in place; no-ops flush nothing.
 */
static void test_set_prot_splits_and_keeps_the_rest(void **state)
{
	struct fake_pt *f = *state;
	const uint64_t target = 4 * MIB + 5 * PG;
	const uint64_t once[] = { target }, twice[] = { target, 2 * MIB };
	int level;

	assert_int_equal(pt_map_range(&f->pt, 2 * MIB, 2 * MIB, 4 * MIB, PT_WRITE | PT_NX), 0);
	assert_int_equal(pt_set_shared(&f->pt, 4 * MIB, 2 * MIB, true), 0);
	flush_reset(f);

	assert_int_equal(pt_set_prot(&f->pt, target, PG, PT_NX), 0);
	assert_int_equal(f->pt.splits, 1);
	assert_int_equal(f->pt.protections, 1);
	expect_flushes(f, once, 1);
	for (uint64_t va = 4 * MIB; va < 6 * MIB; va += PG)
		expect_map(f, va, va, PG,
			   PT_PRESENT | PT_NX | PT_ATTR_SHARED | (va == target ? 0 : PT_WRITE));
	assert_true(raw_is_shared(f, *fake_pt_raw_leaf(f, target, &level)));
	assert_int_equal(f->pt.pages_made_shared, 512);

	/* Already so: nothing written, nothing flushed. */
	assert_int_equal(pt_set_prot(&f->pt, target, PG, PT_NX), 0);
	expect_flushes(f, once, 1);
	/* A whole private 2 MB leaf: read-only and executable in place. */
	assert_int_equal(pt_set_prot(&f->pt, 2 * MIB, 2 * MIB, 0), 0);
	assert_int_equal(f->pt.splits, 1);
	expect_flushes(f, twice, 2);
	expect_map(f, 3 * MIB, 3 * MIB, PT_SIZE_2M, PT_PRESENT);
	assert_true(raw_is_private(f, *fake_pt_raw_leaf(f, 3 * MIB, &level)));

	/* Only W and NX: other bits are refused, unmapped pages too, nothing changed. */
	assert_int_equal(pt_set_prot(&f->pt, 2 * MIB, PG, PT_PCD), PT_ERR_INVAL);
	assert_int_equal(pt_set_prot(&f->pt, 2 * MIB, PG, PT_ATTR_SHARED), PT_ERR_INVAL);
	assert_int_equal(pt_set_prot(&f->pt, 6 * MIB - PG, 2 * PG, PT_NX), PT_ERR_NOENT);
	assert_int_equal(pt_set_prot(&f->pt, 2 * MIB + 1, PG, PT_NX), PT_ERR_INVAL);
	expect_map(f, 6 * MIB - PG, 6 * MIB - PG, PG, PRIV_RW | PT_ATTR_SHARED);
	expect_flushes(f, twice, 2);

	/* No table for the split: all or nothing. */
	f->fail_after = 0;
	assert_int_equal(pt_set_prot(&f->pt, 2 * MIB, 4 * PG, PT_WRITE | PT_NX), PT_ERR_NOMEM);
	expect_map(f, 2 * MIB, 2 * MIB, PT_SIZE_2M, PT_PRESENT);
	expect_flushes(f, twice, 2);
	f->fail_after = -1;
}

/*
 * Under PT_POLICY_WX | PT_POLICY_SHARED_NX no mapping, conversion or
 * protection change can leave a page writable and executable, or shared and
 * executable; refused calls change nothing. A tree that already breaks the
 * policy cannot be put under it.
 */
static void test_policy_refuses_wx_and_shared_exec(void **state)
{
	struct fake_pt *f = *state;
	int level;

	assert_int_equal(pt_map_range(&f->pt, 2 * MIB, 2 * MIB, 2 * MIB, PT_WRITE), 0); /* W+X */
	assert_int_equal(pt_map_range(&f->pt, 4 * MIB, 4 * MIB, 2 * MIB, 0), 0);	/* R+X */
	assert_int_equal(pt_map_range(&f->pt, 6 * MIB, 6 * MIB, 2 * MIB, PT_WRITE | PT_NX), 0);
	assert_int_equal(pt_set_policy(&f->pt, PT_POLICY_ALL), PT_ERR_INVAL);
	assert_int_equal(f->pt.policy, 0);
	assert_int_equal(pt_set_policy(&f->pt, 1u << 5), PT_ERR_INVAL);
	/* A shared executable leaf is refused as well. */
	assert_int_equal(pt_set_prot(&f->pt, 2 * MIB, 2 * MIB, PT_WRITE | PT_NX), 0);
	assert_int_equal(pt_set_shared(&f->pt, 4 * MIB, PG, true), 0);
	assert_int_equal(pt_set_policy(&f->pt, PT_POLICY_SHARED_NX), PT_ERR_INVAL);
	assert_int_equal(pt_set_shared(&f->pt, 4 * MIB, PG, false), 0);
	assert_int_equal(pt_set_policy(&f->pt, PT_POLICY_ALL), 0);
	assert_int_equal(pt_check(&f->pt), 0);
	flush_reset(f);

	/* New mappings. */
	assert_int_equal(pt_map_range(&f->pt, 8 * MIB, 8 * MIB, PG, PT_WRITE), PT_ERR_INVAL);
	assert_int_equal(pt_map_range(&f->pt, 8 * MIB, 8 * MIB, PG, PT_ATTR_SHARED), PT_ERR_INVAL);
	assert_int_equal(pt_translate(&f->pt, 8 * MIB, NULL, NULL, NULL), PT_ERR_NOENT);
	assert_int_equal(pt_map_range(&f->pt, 8 * MIB, 8 * MIB, PG, PT_WRITE | PT_NX), 0);
	assert_int_equal(pt_map_range(&f->pt, 8 * MIB + PG, 8 * MIB + PG, PG, PT_ATTR_MMIO), 0);
	assert_int_equal(pt_map_range(&f->pt, 8 * MIB + 2 * PG, 8 * MIB + 2 * PG, PG, 0), 0);

	/* Protection changes: executable code never writable, NX data never W+X. */
	assert_int_equal(pt_set_prot(&f->pt, 4 * MIB + PG, PG, PT_WRITE), PT_ERR_INVAL);
	assert_int_equal(pt_set_prot(&f->pt, 6 * MIB, 2 * MIB, PT_WRITE), PT_ERR_INVAL);
	/* Conversions: executable pages never shared, shared pages never executable. */
	assert_int_equal(pt_set_shared(&f->pt, 4 * MIB, PG, true), PT_ERR_INVAL);
	/* A range half NX, half executable is refused whole. */
	assert_int_equal(pt_set_shared(&f->pt, 4 * MIB - PG, 2 * PG, true), PT_ERR_INVAL);
	assert_false(pt_is_shared(&f->pt, 4 * MIB - PG));
	assert_int_equal(f->nflushed, 0);
	assert_int_equal(f->pt.splits, 0);
	assert_int_equal(pt_set_shared(&f->pt, 6 * MIB, PG, true), 0);
	assert_int_equal(pt_set_prot(&f->pt, 6 * MIB, PG, 0), PT_ERR_INVAL);
	assert_int_equal(pt_set_prot(&f->pt, 6 * MIB, PG, PT_NX), 0);
	assert_true(raw_is_shared(f, *fake_pt_raw_leaf(f, 6 * MIB, &level)));
	/* What stays allowed: RW+NX <-> R+X on private pages. */
	assert_int_equal(pt_set_prot(&f->pt, 7 * MIB, PG, 0), 0);
	expect_map(f, 7 * MIB, 7 * MIB, PG, PT_PRESENT);
	assert_int_equal(pt_set_prot(&f->pt, 7 * MIB, PG, PT_WRITE | PT_NX), 0);
	expect_map(f, 7 * MIB, 7 * MIB, PG, PRIV_RW);
	assert_int_equal(pt_check(&f->pt), 0);

	/* Lifting the policy allows W+X again (the kernel never does). */
	assert_int_equal(pt_set_policy(&f->pt, 0), 0);
	assert_int_equal(pt_set_prot(&f->pt, 7 * MIB, PG, PT_WRITE), 0);
}

static void test_check_detects_policy_violation(void **state)
{
	struct fake_pt *f = *state;
	uint64_t *e, saved;
	int level;

	assert_int_equal(pt_map_range(&f->pt, 2 * MIB, 2 * MIB, 4 * MIB, PT_WRITE | PT_NX), 0);
	assert_int_equal(pt_set_shared(&f->pt, 4 * MIB, PG, true), 0);
	assert_int_equal(pt_set_policy(&f->pt, PT_POLICY_ALL), 0);
	assert_int_equal(pt_check(&f->pt), 0);

	e = fake_pt_raw_leaf(f, 2 * MIB, &level);
	saved = *e;
	*e &= ~PT_NX; /* writable and executable */
	assert_int_equal(pt_check(&f->pt), PT_ERR_INVAL);
	*e &= ~PT_WRITE; /* read-only and executable: allowed */
	assert_int_equal(pt_check(&f->pt), 0);
	*e = saved;

	e = fake_pt_raw_leaf(f, 4 * MIB, &level);
	saved = *e;
	*e &= ~(PT_NX | PT_WRITE); /* shared and executable */
	assert_int_equal(pt_check(&f->pt), PT_ERR_INVAL);
	*e = saved;
	assert_int_equal(pt_check(&f->pt), 0);
}

struct leaf_log {
	uint64_t va[8], size[8], flags[8];
	unsigned int n, stop_at;
};

static int log_leaf(void *ctx, uint64_t va, uint64_t size, uint64_t flags)
{
	struct leaf_log *log = ctx;

	assert_true(log->n < 8);
	log->va[log->n] = va;
	log->size[log->n] = size;
	log->flags[log->n] = flags;
	log->n++;
	return log->n == log->stop_at ? 42 : 0;
}

/* Leaves come in address order, upper-half addresses sign-extended. */
static void test_for_each_leaf_in_order(void **state)
{
	struct fake_pt *f = *state;
	const uint64_t kva = 0xffffffff80000000ULL;
	struct leaf_log log = { .stop_at = 0 };

	assert_int_equal(pt_map_range(&f->pt, kva, 16 * MIB, PT_SIZE_2M, PT_WRITE | PT_NX), 0);
	assert_int_equal(pt_map_range(&f->pt, 2 * MIB - PG, 2 * MIB - PG, PG + PT_SIZE_2M, 0), 0);
	assert_int_equal(pt_set_shared(&f->pt, 2 * MIB, PT_SIZE_2M, true), 0);
	assert_int_equal(pt_for_each_leaf(&f->pt, log_leaf, &log), 0);
	assert_int_equal(log.n, 3);
	assert_int_equal(log.va[0], 2 * MIB - PG);
	assert_int_equal(log.size[0], PG);
	assert_int_equal(log.flags[0], PT_PRESENT);
	assert_int_equal(log.va[1], 2 * MIB);
	assert_int_equal(log.size[1], PT_SIZE_2M);
	assert_int_equal(log.flags[1], PT_PRESENT | PT_ATTR_SHARED);
	assert_int_equal(log.va[2], kva);
	assert_int_equal(log.flags[2], PRIV_RW);

	/* A non-zero return stops the walk and comes back. */
	log = (struct leaf_log){ .stop_at = 2 };
	assert_int_equal(pt_for_each_leaf(&f->pt, log_leaf, &log), 42);
	assert_int_equal(log.n, 2);
	assert_int_equal(pt_for_each_leaf(&f->pt, NULL, &log), PT_ERR_INVAL);
}

/* Run @t once per encoding. */
#define CASE(t, mode)                                                             \
	{                                                                         \
		.name = #t "/" #mode, .test_func = t, .setup_func = setup_##mode, \
		.teardown_func = teardown                                         \
	}
#define MATRIX(t) CASE(t, emulated), CASE(t, tdx51), CASE(t, tdx47), CASE(t, sev51), CASE(t, sev47)

int main(void)
{
	const struct CMUnitTest tests[] = {
		MATRIX(test_map_identity_mixed_alignment),
		MATRIX(test_map_high_half_and_misaligned_pa),
		MATRIX(test_map_identical_accepted_conflict_refused),
		MATRIX(test_invalid_args),
		MATRIX(test_split_preserves_everything),
		MATRIX(test_split_nomem_leaves_mapping),
		MATRIX(test_set_shared_one_page_splits),
		MATRIX(test_set_shared_whole_2m_does_not_split),
		MATRIX(test_encoding_in_entries),
		CASE(test_sev_c_bit_51, sev51),
		CASE(test_tdx_shared_bit_51, tdx51),
		MATRIX(test_conversion_nomem_is_all_or_nothing),
		MATRIX(test_map_nomem_is_all_or_nothing),
		MATRIX(test_one_gib_leaf),
		MATRIX(test_whole_gib_leaf_converts_in_place),
		MATRIX(test_check_detects_corruption),
		CASE(test_check_detects_mixed_encoding, both),
		MATRIX(test_set_prot_splits_and_keeps_the_rest),
		MATRIX(test_policy_refuses_wx_and_shared_exec),
		MATRIX(test_check_detects_policy_violation),
		MATRIX(test_for_each_leaf_in_order),
	};

	return cmocka_run_group_tests_name("paging", tests, NULL, NULL);
}
