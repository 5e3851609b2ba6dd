/* SPDX-License-Identifier: MIT */
/*
 * fake_pt.h - page tables from the heap for host tests of arch/x86_64/mm/paging.c
 * and what is built on it (arch/x86_64/mm/kmap.c).
 *
 * Table pages come from aligned_alloc() (physical == virtual, as in the kernel's
 * identity map); the mapped addresses themselves are only numbers. The allocator
 * can be told to fail after N more tables, and every flush_page call is recorded
 * in order so that a test can check exactly which translations were invalidated.
 * Used by tests/arch/test_paging.c and tests/arch/test_kmap.c.
 */
#ifndef SLUICE_TESTS_FAKE_PT_H
#define SLUICE_TESTS_FAKE_PT_H

#include <stddef.h>
#include <stdint.h>

#include "arch/x86_64/mm/paging.h"

/**
 * struct fake_pt - an address space over heap pages, and what it was asked.
 * @pt: the address space under test.
 * @set_mask: shared_set_mask of this run's encoding.
 * @clear_mask: shared_clear_mask of this run's encoding.
 * @pages: every table page handed out, freed by fake_pt_fini().
 * @npages: entries used in @pages.
 * @cap: size of @pages.
 * @fail_after: allocations that still succeed before NULL is returned (-1: never).
 * @flushed: va of every flush_page call, in order.
 * @nflushed: entries used in @flushed.
 * @fcap: size of @flushed.
 */
struct fake_pt {
	struct page_table pt;
	uint64_t set_mask, clear_mask;
	void **pages;
	size_t npages, cap;
	long fail_after;
	uint64_t *flushed;
	size_t nflushed, fcap;
};

int fake_pt_init(struct fake_pt *f, uint64_t set_mask, uint64_t clear_mask);
int fake_pt_fini(struct fake_pt *f);
uint64_t fake_pt_frame_mask(const struct fake_pt *f);
uint64_t *fake_pt_raw_leaf(const struct fake_pt *f, uint64_t va, int *level);

/*
 * FAKE_PT_ENCODING_SETUPS(fx) - one CMocka setup per confidential-computing
 * encoding of the shared bit, each calling fx(state, set_mask, clear_mask):
 * setup_emulated (software bit 9), setup_tdx51 / setup_tdx47 (TDX: the shared
 * bit at GPAW - 1), setup_sev51 / setup_sev47 (SEV: the C-bit, cleared for
 * shared). A test that runs only some of them leaves the others unused.
 */
#define FAKE_PT_ENCODING_SETUP(name, fx, set, clear)                  \
	static int __attribute__((unused)) setup_##name(void **state) \
	{                                                             \
		return fx(state, set, clear);                         \
	}
#define FAKE_PT_ENCODING_SETUPS(fx)                           \
	FAKE_PT_ENCODING_SETUP(emulated, fx, PT_SW_SHARED, 0) \
	FAKE_PT_ENCODING_SETUP(tdx51, fx, 1ULL << 51, 0)      \
	FAKE_PT_ENCODING_SETUP(tdx47, fx, 1ULL << 47, 0)      \
	FAKE_PT_ENCODING_SETUP(sev51, fx, 0, 1ULL << 51)      \
	FAKE_PT_ENCODING_SETUP(sev47, fx, 0, 1ULL << 47)

#endif
