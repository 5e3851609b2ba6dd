/* SPDX-License-Identifier: MIT */
/*
 * test_port_inline.c - a port's inline ops (SLUICE_DMA_PORT_INLINE,
 * <sluice/dma_port.h>). This binary's library is built with
 * tests/dma/port_inline_probe.h, whose bodies count where they ran: with the
 * probe's functions in the table, the map path, the unmap's copy back, the
 * from-device scrub and the arena's CPU cache and scrub run the inline bodies
 * and never the functions; with other functions in the table (or none), those
 * run and the inline bodies never do. The answer is the same either way: the
 * CPU index is folded by the one cpu_id rule, the bytes arrive.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <sluice/arena.h>
#include "dma/bounce.h"
#include "tests/fakes/test_bounce_fixture.h"

#ifndef SLUICE_DMA_INLINE_CPU_ID_FN
#error "build with -DSLUICE_DMA_PORT_INLINE='\"tests/dma/port_inline_probe.h\"' (tests/dma/dma.mk)"
#endif

struct probe_counts probe_counts;
unsigned int probe_cpu;
void *probe_ctx;
unsigned long probe_ctx_wrong;

unsigned int probe_cpu_id(void *ctx)
{
	(void)ctx;
	probe_counts.cpu_called++;
	return probe_cpu;
}

void probe_copy(void *ctx, void *dst, const void *src, size_t len)
{
	(void)ctx;
	probe_counts.copy_called++;
	memcpy(dst, src, len);
}

void probe_zero(void *ctx, void *dst, size_t len)
{
	(void)ctx;
	probe_counts.zero_called++;
	memset(dst, 0, len);
}

/* Functions the header does not name: the library must call them. */
static unsigned long other_calls;

static unsigned int other_cpu_id(void *ctx)
{
	(void)ctx;
	other_calls++;
	return probe_cpu;
}

static void other_copy(void *ctx, void *dst, const void *src, size_t len)
{
	(void)ctx;
	other_calls++;
	memcpy(dst, src, len);
}

static void other_zero(void *ctx, void *dst, size_t len)
{
	(void)ctx;
	other_calls++;
	memset(dst, 0, len);
}

static const struct sluice_dma_tag tag = SLUICE_DMA_TAG_DEFAULT;

enum ops_kind { OPS_PROBE, OPS_OTHER, OPS_NONE };

static void set_ops(struct sluice_dma_port_ops *ops, enum ops_kind kind)
{
	ops->cpu_id = kind == OPS_PROBE ? probe_cpu_id : kind == OPS_OTHER ? other_cpu_id : NULL;
	ops->copy = kind == OPS_PROBE ? probe_copy : kind == OPS_OTHER ? other_copy : NULL;
	ops->zero = kind == OPS_PROBE ? probe_zero : kind == OPS_OTHER ? other_zero : NULL;
}

/*
 * One to-device and one from-device 4 KiB bounce on a 2-CPU layer whose ops
 * are @kind, the caller on CPU index 3 (folded to 1). Checks the bytes both
 * ways and that the map counted on CPU 1's counters.
 */
static void bounce_both_ways(enum ops_kind kind)
{
	struct fx *f = fx_new(SLUICE_DMA_POLICY_SLUICE, 2, 2ul << 20, SLUICE_DMA_SCRUB_ZERO);
	unsigned char *buf = fx_aligned(4096, 4096), *dev;
	uint64_t d;

	assert_non_null(f);
	assert_non_null(buf);
	f->dl.ops.flags = SLUICE_DMA_PORT_CPU_EXCLUSIVE;
	set_ops(&f->dl.ops, kind);
	/* The probe's own functions: the common map and unmap are dma/map_fast.c's. */
	fx_ops_changed(f);
	assert_int_equal(f->dl.fast, kind == OPS_PROBE);
	probe_ctx = f->dl.ops.ctx;
	probe_cpu = kind == OPS_NONE ? 0 : 3;
	memset(buf, 0x5a, 4096);
	assert_int_equal(sluice_dma_map(&f->dl, &tag, buf, 4096, SLUICE_DMA_TO_DEVICE, &d), 0);
	assert_memory_equal(fx_dev(d), buf, 4096);
	assert_int_equal(atomic_load(&f->dl.pools->pcpu[kind == OPS_NONE ? 0 : 1].bytes_to_device),
			 4096);
	assert_int_equal(sluice_dma_unmap(&f->dl, d, 4096, SLUICE_DMA_TO_DEVICE), 0);
	/* From-device: the slots read zero (the scrub), the device's bytes come back. */
	assert_int_equal(sluice_dma_map(&f->dl, &tag, buf, 4096, SLUICE_DMA_FROM_DEVICE, &d), 0);
	dev = fx_dev(d);
	for (unsigned int i = 0; i < 4096; i++)
		assert_int_equal(dev[i], 0);
	memset(dev, 0xc3, 4096);
	assert_int_equal(sluice_dma_unmap(&f->dl, d, 4096, SLUICE_DMA_FROM_DEVICE), 0);
	for (unsigned int i = 0; i < 4096; i++)
		assert_int_equal(buf[i], 0xc3);
	set_ops(&f->dl.ops, OPS_NONE); /* the fixture's teardown counts nothing */
	assert_int_equal(fx_free(f), 0);
	free(buf);
}

/* The probe's functions in the table: every op ran inline, none was called. */
static void test_table_names_the_inline_ops(void **state)
{
	(void)state;
	memset(&probe_counts, 0, sizeof(probe_counts));
	probe_ctx_wrong = 0;
	bounce_both_ways(OPS_PROBE);
	assert_true(probe_counts.cpu_inline >= 4);
	assert_int_equal(probe_counts.copy_inline, 2); /* the copy in, the copy back */
	assert_int_equal(probe_counts.zero_inline, 1); /* the from-device scrub */
	assert_int_equal(probe_counts.cpu_called, 0);
	assert_int_equal(probe_counts.copy_called, 0);
	assert_int_equal(probe_counts.zero_called, 0);
	assert_int_equal(probe_ctx_wrong, 0); /* each body got the table's ctx */
}

/* Other functions in the table: they are called, no inline body runs. */
static void test_table_names_other_ops(void **state)
{
	(void)state;
	memset(&probe_counts, 0, sizeof(probe_counts));
	other_calls = 0;
	bounce_both_ways(OPS_OTHER);
	assert_true(other_calls >= 4 + 2 + 1);
	assert_int_equal(probe_counts.cpu_inline + probe_counts.copy_inline +
				 probe_counts.zero_inline + probe_counts.cpu_called +
				 probe_counts.copy_called + probe_counts.zero_called,
			 0);
}

/* No ops: CPU 0 and the library's memcpy and memset, neither way counted. */
static void test_table_names_no_ops(void **state)
{
	(void)state;
	memset(&probe_counts, 0, sizeof(probe_counts));
	bounce_both_ways(OPS_NONE);
	assert_int_equal(
		probe_counts.cpu_inline + probe_counts.copy_inline + probe_counts.zero_inline, 0);
}

/*
 * The arena runs the same ops (its own copy of the table): its CPU cache and
 * its scrub on free, inline. A block freed on CPU index 3 (folded to 1) is
 * the one CPU 1 allocates next, from its cache.
 */
static void test_arena_runs_the_inline_ops(void **state)
{
	size_t region = 4ul << 20, meta_len = sluice_dma_arena_meta_size(region, 2);
	void *base = fx_aligned(SLUICE_DMA_ARENA_CHUNK_SIZE, region), *meta = malloc(meta_len);
	struct sluice_dma_arena_config ac = {
		.base = base, .len = region, .ncpus = 2, .meta = meta, .meta_len = meta_len
	};
	struct sluice_dma_arena arena;
	struct mock_port mp;
	unsigned char *blk;

	(void)state;
	assert_non_null(base);
	assert_non_null(meta);
	mock_port_init(&mp, 2);
	set_ops(&mp.ops, OPS_PROBE);
	memset(&probe_counts, 0, sizeof(probe_counts));
	probe_ctx_wrong = 0;
	probe_ctx = mp.ops.ctx;
	probe_cpu = 3;
	assert_int_equal(sluice_dma_arena_init(&arena, &mp.ops, &ac), 0);
	blk = sluice_dma_arena_alloc(&arena, 4096);
	assert_non_null(blk);
	memset(blk, 0x77, 4096);
	assert_int_equal(sluice_dma_arena_free(&arena, blk), 0);
	assert_int_equal(blk[0], 0); /* scrubbed on free */
	assert_int_equal(blk[4095], 0);
	probe_cpu = 1;
	assert_ptr_equal(sluice_dma_arena_alloc(&arena, 4096), blk);
	assert_int_equal(sluice_dma_arena_free(&arena, blk), 0);
	assert_true(probe_counts.cpu_inline >= 4);
	assert_true(probe_counts.zero_inline >= 2);
	assert_int_equal(probe_counts.cpu_called + probe_counts.zero_called, 0);
	assert_int_equal(probe_ctx_wrong, 0);
	assert_int_equal(sluice_dma_arena_check(&arena, 0), 0);
	assert_int_equal(sluice_dma_arena_destroy(&arena), 0);
	free(base);
	free(meta);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_names_the_inline_ops),
		cmocka_unit_test(test_table_names_other_ops),
		cmocka_unit_test(test_table_names_no_ops),
		cmocka_unit_test(test_arena_runs_the_inline_ops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
