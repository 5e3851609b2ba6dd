/* SPDX-License-Identifier: MIT */
/*
 * fake_pt.c - page tables from the heap for host tests; see fake_pt.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/fakes/fake_pt.h"

static void *fake_pt_alloc_table(void *ctx)
{
	struct fake_pt *f = ctx;
	void *p;

	if (f->fail_after == 0)
		return NULL;
	if (f->fail_after > 0)
		f->fail_after--;
	if (f->npages == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 64;
		f->pages = realloc(f->pages, f->cap * sizeof(*f->pages));
		assert_non_null(f->pages);
	}
	p = aligned_alloc(PT_SIZE_4K, PT_SIZE_4K);
	assert_non_null(p);
	memset(p, 0, PT_SIZE_4K);
	f->pages[f->npages++] = p;
	return p;
}

static void fake_pt_flush_page(void *ctx, uint64_t va)
{
	struct fake_pt *f = ctx;

	if (f->nflushed == f->fcap) {
		f->fcap = f->fcap ? f->fcap * 2 : 64;
		f->flushed = realloc(f->flushed, f->fcap * sizeof(*f->flushed));
		assert_non_null(f->flushed);
	}
	f->flushed[f->nflushed++] = va;
}

/**
 * fake_pt_init() - an empty address space of one encoding over heap pages.
 * @f: zeroed storage; stays where it is while the space lives (it is the ops'
 *     context).
 * @set_mask: shared_set_mask (pt_init()).
 * @clear_mask: shared_clear_mask (pt_init()).
 *
 * Return: pt_init()'s result; on failure nothing is left to free.
 */
int fake_pt_init(struct fake_pt *f, uint64_t set_mask, uint64_t clear_mask)
{
	struct pt_ops ops = {
		.alloc_table = fake_pt_alloc_table,
		.flush_page = fake_pt_flush_page,
		.ctx = f,
	};
	int rc;

	f->fail_after = -1;
	f->set_mask = set_mask;
	f->clear_mask = clear_mask;
	rc = pt_init(&f->pt, &ops, set_mask, clear_mask);
	if (rc != 0) {
		f->pt.pml4 = NULL; /* nothing to check */
		fake_pt_fini(f);
	}
	return rc;
}

/**
 * fake_pt_fini() - run pt_check() on the space, then free every table page.
 * @f: the space of fake_pt_init().
 *
 * Return: pt_check()'s result, so that a teardown can fail after freeing.
 */
int fake_pt_fini(struct fake_pt *f)
{
	int check = f->pt.pml4 ? pt_check(&f->pt) : 0;

	for (size_t i = 0; i < f->npages; i++)
		free(f->pages[i]);
	free(f->pages);
	free(f->flushed);
	f->pages = NULL;
	f->flushed = NULL;
	f->npages = f->cap = f->nflushed = f->fcap = 0;
	return check;
}

/**
 * fake_pt_frame_mask() - the bits of an entry that hold the next table's address.
 * @f: the space.
 *
 * Return: PT_ADDR_MASK without this encoding's shared or C bit.
 */
uint64_t fake_pt_frame_mask(const struct fake_pt *f)
{
	return PT_ADDR_MASK & ~(f->set_mask | f->clear_mask);
}

/**
 * fake_pt_raw_leaf() - the test's own walk to the raw leaf entry of @va.
 * @f: the space.
 * @va: the address.
 * @level: set to the level the walk stopped at (4 = PML4 ... 1 = PT); may be NULL.
 *
 * An independent walk, so that a policy hidden in a large leaf cannot pass
 * through pt_translate() unseen.
 *
 * Return: the leaf entry, or NULL where nothing is mapped.
 */
uint64_t *fake_pt_raw_leaf(const struct fake_pt *f, uint64_t va, int *level)
{
	uint64_t *t = f->pt.pml4;

	for (int l = 4; l >= 1; l--) {
		uint64_t *e = &t[(va >> (12 + 9 * (l - 1))) & 511];

		if (level)
			*level = l;
		if (!(*e & PT_PRESENT))
			return NULL;
		if (l == 1 || (l <= 3 && (*e & PT_HUGE)))
			return e;
		t = (uint64_t *)(uintptr_t)(*e & fake_pt_frame_mask(f));
	}
	return NULL;
}
