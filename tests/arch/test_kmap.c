/* SPDX-License-Identifier: MIT */
/*
 * test_kmap.c - host tests of the kernel map's W^X policy (arch/x86_64/mm/kmap.c
 * over arch/x86_64/mm/paging.c).
 *
 * The layout is the one QEMU + OVMF give the kernel, shape for shape: low RAM
 * with the application processors' start-up page, ACPI and firmware ranges, the
 * DMA region, the image with its text not 2 MB aligned, an uncacheable range,
 * device ranges, holes below 4 GiB and RAM above. Table pages come from the heap
 * (tests/fakes/fake_pt.c); the mapped addresses are only numbers. Every page of
 * the map is checked one by one, through pt_translate() and through the raw
 * entry bits, so that a policy hidden in a large leaf cannot slip through. Each
 * test runs with the emulated shared bit, TDX's shared bit and SEV's C-bit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "arch/x86_64/mm/kmap.h"
#include "tests/fakes/fake_pt.h"

#define KIB 0x400ULL
#define MIB 0x100000ULL
#define GIB 0x40000000ULL
#define PG PT_SIZE_4K

/* The image: text from +32 KiB, 188 KiB long, neither end 2 MB aligned. */
#define IMAGE_BASE 0x3dd68000ULL
#define IMAGE_END (IMAGE_BASE + 644 * KIB)
#define TEXT_START (IMAGE_BASE + 32 * KIB)
#define TEXT_END (TEXT_START + 188 * KIB)
#define TRAMPOLINE 0x9f000ULL
#define DMA_BASE 0x2fa00000ULL
#define DMA_END (DMA_BASE + 128 * MIB)
#define UNCACHED 0x3f000000ULL
#define HIGH_END (5 * GIB)

static const struct kmap_range qemu_map[] = {
	{ 0x0, 0x9f000, false },		  /* usable */
	{ TRAMPOLINE, PG, false },		  /* the start-up page (kernel) */
	{ 0x100000, 0x706000, false },		  /* usable */
	{ 0x806000, 0x2000, false },		  /* ACPI */
	{ 0x808000, 0x8000, false },		  /* usable */
	{ 0x810000, 0xf0000, false },		  /* ACPI NVS */
	{ 0x900000, DMA_BASE - 0x900000, false }, /* usable */
	{ DMA_BASE, DMA_END - DMA_BASE, false },  /* the DMA region (kernel) */
	{ DMA_END, UNCACHED - DMA_END, false },	  /* heap, image, firmware... */
	{ UNCACHED, 1 * MIB, true },		  /* RAM the firmware says is uncacheable */
	{ UNCACHED + MIB, GIB - UNCACHED - MIB, false },
	{ 0xb0000000, 256 * MIB, true },	/* PCIe ECAM */
	{ 0xffc00000, 4 * MIB, true },		/* flash */
	{ 4 * GIB, HIGH_END - 4 * GIB, false }, /* RAM above 4 GiB */
};

/* What a page must be. */
enum page_class { UNMAPPED, TEXT, RAM, DEVICE };

/**
 * struct fx - one test's fixture.
 * @fp: the address space under test, over heap pages (tests/fakes/fake_pt.h).
 * @layout: the kernel's layout (qemu_map, text, start-up page, NX).
 */
struct fx {
	struct fake_pt fp;
	struct kmap_layout layout;
};

static int fx_setup(void **state, uint64_t set_mask, uint64_t clear_mask)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->layout = (struct kmap_layout){
		.ranges = qemu_map,
		.nranges = sizeof(qemu_map) / sizeof(qemu_map[0]),
		.hole_limit = 4 * GIB,
		.text_start = TEXT_START,
		.text_end = TEXT_END,
		.switch_start = TRAMPOLINE,
		.switch_end = TRAMPOLINE + PG,
		.nx = true,
	};
	if (fake_pt_init(&f->fp, set_mask, clear_mask) != 0) {
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

FAKE_PT_ENCODING_SETUPS(fx_setup)

static int teardown(void **state)
{
	struct fx *f = *state;
	int check = fake_pt_fini(&f->fp);

	free(f);
	return check == 0 ? 0 : -1;
}

/* ---- helpers ----------------------------------------------------------- */

static enum page_class expected_class(const struct kmap_layout *l, uint64_t va)
{
	if (va < PG)
		return UNMAPPED;
	if (va >= l->text_start && va < l->text_end)
		return TEXT;
	for (unsigned int i = 0; i < l->nranges; i++) {
		const struct kmap_range *r = &l->ranges[i];

		if (va >= r->base && va < r->base + r->size)
			return r->device ? DEVICE : RAM;
	}
	return va < l->hole_limit ? DEVICE : UNMAPPED;
}

/* The attributes pt_translate() must report for a page of @class. */
static uint64_t class_flags(enum page_class class, bool nx)
{
	switch (class) {
	case TEXT:
		return PT_PRESENT; /* read-only, executable, private */
	case RAM:
		return PT_PRESENT | PT_WRITE | (nx ? PT_NX : 0);
	case DEVICE:
		return PT_PRESENT | (nx ? PT_ATTR_MMIO : PT_ATTR_MMIO & ~PT_NX);
	case UNMAPPED:
		break;
	}
	return 0;
}

/* One page against its class: translation, flags, and the raw W and XD bits. */
static void expect_page(struct fx *f, uint64_t va, enum page_class class, uint64_t extra)
{
	uint64_t pa, flags, *e;
	int rc = pt_translate(&f->fp.pt, va, &pa, NULL, &flags);

	if (class == UNMAPPED) {
		assert_int_equal(rc, PT_ERR_NOENT);
		return;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(pa, va);
	assert_int_equal(flags & ~(PT_ACCESSED | PT_DIRTY),
			 class_flags(class, f->layout.nx) | extra);
	e = fake_pt_raw_leaf(&f->fp, va, NULL);
	assert_non_null(e);
	/* Bit 63 is XD: set on every page but the text (and never without NX). */
	assert_int_equal(*e >> 63, class != TEXT && f->layout.nx);
	/* Bit 1 is R/W: the text is the only read-only memory. */
	assert_int_equal((*e >> 1) & 1, class != TEXT);
}

/* Every 4 KiB page from 0 to just past the top of the map. */
static void expect_whole_map(struct fx *f)
{
	for (uint64_t va = 0; va < HIGH_END + 4 * MIB; va += PG)
		expect_page(f, va, expected_class(&f->layout, va), 0);
}

static void build(struct fx *f)
{
	assert_int_equal(kmap_build(&f->fp.pt, &f->layout), 0);
	assert_int_equal(pt_check(&f->fp.pt), 0);
	f->fp.nflushed = 0;
}

/* ---- tests ------------------------------------------------------------- */

/* NX on everything but the text, the text read-only, page by page. */
static void test_nx_everywhere_but_text(void **state)
{
	struct fx *f = *state;

	build(f);
	expect_whole_map(f);
	/* The edges exactly: the pages around the text, the image's data. */
	expect_page(f, TEXT_START - PG, RAM, 0);
	expect_page(f, TEXT_START, TEXT, 0);
	expect_page(f, TEXT_END - PG, TEXT, 0);
	expect_page(f, TEXT_END, RAM, 0);
	expect_page(f, IMAGE_BASE, RAM, 0);
	expect_page(f, IMAGE_END - PG, RAM, 0);
	expect_page(f, TRAMPOLINE, RAM, 0);
	expect_page(f, DMA_BASE, RAM, 0);
	expect_page(f, UNCACHED, DEVICE, 0);
	expect_page(f, 0xa0000, DEVICE, 0);
	expect_page(f, 0xfee00000, DEVICE, 0);
	expect_page(f, 0, UNMAPPED, 0);
	assert_int_equal(f->fp.pt.policy, PT_POLICY_WX | PT_POLICY_SHARED_NX);
}

/* The tables' own count: exactly the text is executable, nothing is W+X. */
static void test_summary_counts_only_text_executable(void **state)
{
	struct fx *f = *state;
	struct kmap_summary s;

	build(f);
	assert_int_equal(kmap_summarize(&f->fp.pt, &s), 0);
	assert_int_equal(s.bytes_exec, TEXT_END - TEXT_START);
	assert_int_equal(s.exec_lo, TEXT_START);
	assert_int_equal(s.exec_hi, TEXT_END);
	assert_int_equal(s.bytes_wx, 0);
	assert_int_equal(s.bytes_shared_exec, 0);
	/* Everything from 4 KiB to 5 GiB is mapped, once. */
	assert_int_equal(s.bytes_4k + s.bytes_2m + s.bytes_1g, HIGH_END - PG);
	assert_true(s.bytes_2m > 4 * GIB);

	/* An executable start-up page shows up in the count, still not W+X. */
	assert_int_equal(kmap_set_exec(&f->fp.pt, &f->layout, TRAMPOLINE, PG, true), 0);
	assert_int_equal(kmap_summarize(&f->fp.pt, &s), 0);
	assert_int_equal(s.bytes_exec, TEXT_END - TEXT_START + PG);
	assert_int_equal(s.exec_lo, TRAMPOLINE);
	assert_int_equal(s.bytes_wx, 0);
}

/*
 * Converting a 4 KiB page of a 2 MB data leaf splits it: all 512 pages must
 * keep W and NX, the converted one shared. Back to private, the same. Pages
 * already 4 KiB next to the text convert without touching the text.
 */
static void test_conversion_split_keeps_nx(void **state)
{
	struct fx *f = *state;
	const uint64_t leaf = DMA_BASE + 6 * MIB, page = leaf + 17 * PG;
	uint64_t size;

	build(f);
	assert_int_equal(pt_translate(&f->fp.pt, page, NULL, &size, NULL), 0);
	assert_int_equal(size, PT_SIZE_2M);
	assert_int_equal(pt_set_shared(&f->fp.pt, page, PG, true), 0);
	assert_int_equal(f->fp.pt.splits, 1);
	for (uint64_t va = leaf; va < leaf + PT_SIZE_2M; va += PG)
		expect_page(f, va, RAM, va == page ? PT_ATTR_SHARED : 0);
	assert_int_equal(pt_set_shared(&f->fp.pt, page, PG, false), 0);
	for (uint64_t va = leaf; va < leaf + PT_SIZE_2M; va += PG)
		expect_page(f, va, RAM, 0);

	/* A whole 2 MB leaf converts in place and stays NX. */
	assert_int_equal(pt_set_shared(&f->fp.pt, DMA_BASE, PT_SIZE_2M, true), 0);
	assert_int_equal(f->fp.pt.splits, 1);
	expect_page(f, DMA_BASE + 5 * PG, RAM, PT_ATTR_SHARED);

	/* The data pages right after the text: shared, NX; the text unchanged. */
	assert_int_equal(pt_set_shared(&f->fp.pt, TEXT_END, 4 * PG, true), 0);
	for (uint64_t va = TEXT_END; va < TEXT_END + 4 * PG; va += PG)
		expect_page(f, va, RAM, PT_ATTR_SHARED);
	for (uint64_t va = TEXT_START; va < TEXT_END; va += PG)
		expect_page(f, va, TEXT, 0);
	assert_int_equal(pt_check(&f->fp.pt), 0);
}

/* No way to make the text shared or writable, or anything else executable. */
static void test_text_never_shared_or_writable(void **state)
{
	struct fx *f = *state;
	unsigned int splits;

	build(f);
	splits = (unsigned int)f->fp.pt.splits;
	/* Converting text, or a range that reaches into it, is refused whole. */
	assert_int_equal(pt_set_shared(&f->fp.pt, TEXT_START, PG, true), PT_ERR_INVAL);
	assert_int_equal(pt_set_shared(&f->fp.pt, TEXT_START - 4 * PG, 8 * PG, true), PT_ERR_INVAL);
	assert_int_equal(pt_set_shared(&f->fp.pt, IMAGE_BASE, 2 * MIB, true), PT_ERR_INVAL);
	assert_false(pt_is_shared(&f->fp.pt, TEXT_START - PG));
	/* Writable text would be W+X; executable data through pt_set_prot too. */
	assert_int_equal(pt_set_prot(&f->fp.pt, TEXT_START, PG, PT_WRITE), PT_ERR_INVAL);
	assert_int_equal(pt_set_prot(&f->fp.pt, DMA_BASE, PG, PT_WRITE), PT_ERR_INVAL);
	/* A new executable mapping that is writable or shared is refused. */
	assert_int_equal(pt_map_range(&f->fp.pt, HIGH_END, HIGH_END, PG, PT_WRITE), PT_ERR_INVAL);
	assert_int_equal(pt_map_range(&f->fp.pt, HIGH_END, HIGH_END, PG, PT_ATTR_SHARED),
			 PT_ERR_INVAL);
	/* kmap_set_exec() reaches the start-up page and nothing else. */
	assert_int_equal(kmap_set_exec(&f->fp.pt, &f->layout, TEXT_START, PG, false), PT_ERR_INVAL);
	assert_int_equal(kmap_set_exec(&f->fp.pt, &f->layout, DMA_BASE, PG, true), PT_ERR_INVAL);
	assert_int_equal(kmap_set_exec(&f->fp.pt, &f->layout, TRAMPOLINE - PG, 2 * PG, true),
			 PT_ERR_INVAL);
	assert_int_equal(kmap_set_exec(&f->fp.pt, &f->layout, TRAMPOLINE, 0, true), PT_ERR_INVAL);
	/* Nothing of that changed a page or flushed one. */
	assert_int_equal(f->fp.nflushed, 0);
	assert_int_equal(f->fp.pt.splits, splits);
	expect_whole_map(f);
}

/* The start-up page: RW+NX, RX only on request, back; never both W and X. */
static void test_trampoline_switch_is_never_wx(void **state)
{
	struct fx *f = *state;

	build(f);
	expect_page(f, TRAMPOLINE, RAM, 0);
	assert_int_equal(kmap_set_exec(&f->fp.pt, &f->layout, TRAMPOLINE, PG, true), 0);
	expect_page(f, TRAMPOLINE, TEXT, 0);
	assert_int_equal(f->fp.nflushed, 1);
	assert_int_equal(f->fp.flushed[0], TRAMPOLINE);
	/* Executable: it cannot become shared (the host would write the code). */
	assert_int_equal(pt_set_shared(&f->fp.pt, TRAMPOLINE, PG, true), PT_ERR_INVAL);
	assert_int_equal(kmap_set_exec(&f->fp.pt, &f->layout, TRAMPOLINE, PG, true), 0);
	assert_int_equal(f->fp.nflushed, 1); /* already so: no write, no flush */
	assert_int_equal(kmap_set_exec(&f->fp.pt, &f->layout, TRAMPOLINE, PG, false), 0);
	expect_page(f, TRAMPOLINE, RAM, 0);
	assert_int_equal(f->fp.nflushed, 2);
	/* Its neighbours never moved. */
	expect_page(f, TRAMPOLINE - PG, RAM, 0);
	expect_page(f, TRAMPOLINE + PG, DEVICE, 0);
}

/* Without NX bit 63 is reserved: it must appear nowhere; text stays read-only. */
static void test_without_nx_no_xd_bit_text_still_read_only(void **state)
{
	struct fx *f = *state;
	struct kmap_summary s;

	f->layout.nx = false;
	build(f);
	expect_whole_map(f);
	assert_int_equal(f->fp.pt.policy, 0);
	assert_int_equal(kmap_summarize(&f->fp.pt, &s), 0);
	assert_int_equal(s.bytes_exec, HIGH_END - PG);
	/* The start-up page still switches between read-only and writable. */
	assert_int_equal(kmap_set_exec(&f->fp.pt, &f->layout, TRAMPOLINE, PG, true), 0);
	expect_page(f, TRAMPOLINE, TEXT, 0);
	assert_int_equal(kmap_set_exec(&f->fp.pt, &f->layout, TRAMPOLINE, PG, false), 0);
	expect_page(f, TRAMPOLINE, RAM, 0);
}

/* Layouts the policy cannot be built from are refused before anything is mapped. */
static void test_bad_layouts_refused(void **state)
{
	struct fx *f = *state;
	const struct kmap_layout good = f->layout;
	struct kmap_range unsorted[] = { { 4 * MIB, 4 * MIB, false }, { 0, 2 * MIB, false } };
	struct kmap_range overlap[] = { { 0, 4 * MIB, false }, { 2 * MIB, 4 * MIB, false } };
	struct kmap_range odd[] = { { 0x1800, 4 * MIB, false } };
	struct kmap_range gap[] = { { PG, 2 * MIB, false }, { 3 * MIB, 2 * MIB, false } };
	struct kmap_layout l;

	l = good, l.ranges = unsorted, l.nranges = 2;
	assert_int_equal(kmap_build(&f->fp.pt, &l), PT_ERR_INVAL);
	l = good, l.ranges = overlap, l.nranges = 2;
	assert_int_equal(kmap_build(&f->fp.pt, &l), PT_ERR_INVAL);
	l = good, l.ranges = odd, l.nranges = 1;
	assert_int_equal(kmap_build(&f->fp.pt, &l), PT_ERR_INVAL);
	l = good, l.nranges = 0;
	assert_int_equal(kmap_build(&f->fp.pt, &l), PT_ERR_INVAL);
	/* Text: unaligned, empty, in device memory, in a hole, over page 0. */
	l = good, l.text_start = TEXT_START + 8;
	assert_int_equal(kmap_build(&f->fp.pt, &l), PT_ERR_INVAL);
	l = good, l.text_end = l.text_start;
	assert_int_equal(kmap_build(&f->fp.pt, &l), PT_ERR_INVAL);
	l = good, l.text_start = UNCACHED, l.text_end = UNCACHED + PG;
	assert_int_equal(kmap_build(&f->fp.pt, &l), PT_ERR_INVAL);
	l = good, l.text_start = 0xa0000, l.text_end = 0xa1000;
	assert_int_equal(kmap_build(&f->fp.pt, &l), PT_ERR_INVAL);
	l = good, l.ranges = gap, l.nranges = 2, l.switch_start = l.switch_end = 0;
	l.text_start = 2 * MIB, l.text_end = 3 * MIB + PG;
	assert_int_equal(kmap_build(&f->fp.pt, &l), PT_ERR_INVAL);
	l = good, l.text_start = 0, l.text_end = PG;
	assert_int_equal(kmap_build(&f->fp.pt, &l), PT_ERR_INVAL);
	/* Switchable range: overlapping the text, outside RAM, unaligned. */
	l = good, l.switch_start = TEXT_END - PG, l.switch_end = TEXT_END + PG;
	assert_int_equal(kmap_build(&f->fp.pt, &l), PT_ERR_INVAL);
	l = good, l.switch_start = 0xa0000, l.switch_end = 0xa1000;
	assert_int_equal(kmap_build(&f->fp.pt, &l), PT_ERR_INVAL);
	l = good, l.switch_start = TRAMPOLINE + 1;
	assert_int_equal(kmap_build(&f->fp.pt, &l), PT_ERR_INVAL);
	assert_int_equal(kmap_build(NULL, &good), PT_ERR_INVAL);
	assert_int_equal(kmap_build(&f->fp.pt, NULL), PT_ERR_INVAL);
	assert_int_equal(kmap_summarize(&f->fp.pt, NULL), PT_ERR_INVAL);
	/* Nothing was mapped by any of them. */
	assert_int_equal(pt_translate(&f->fp.pt, 4 * MIB, NULL, NULL, NULL), PT_ERR_NOENT);
	assert_int_equal(pt_translate(&f->fp.pt, TEXT_START, NULL, NULL, NULL), PT_ERR_NOENT);
	assert_int_equal(f->fp.pt.tables_allocated, 1);
}

#define CASE(t, mode)                                                             \
	{                                                                         \
		.name = #t "/" #mode, .test_func = t, .setup_func = setup_##mode, \
		.teardown_func = teardown                                         \
	}
#define MATRIX(t) CASE(t, emulated), CASE(t, tdx51), CASE(t, sev51)

int main(void)
{
	const struct CMUnitTest tests[] = {
		MATRIX(test_nx_everywhere_but_text),
		MATRIX(test_summary_counts_only_text_executable),
		MATRIX(test_conversion_split_keeps_nx),
		MATRIX(test_text_never_shared_or_writable),
		MATRIX(test_trampoline_switch_is_never_wx),
		MATRIX(test_without_nx_no_xd_bit_text_still_read_only),
		MATRIX(test_bad_layouts_refused),
	};

	return cmocka_run_group_tests_name("kmap", tests, NULL, NULL);
}
