/* SPDX-License-Identifier: MIT */
/*
 * test_iommu_port.c - the sluice-iommu driver's emulated port
 * (firmware/iommu/iommu_port.c): conversions recorded page-exactly, all or
 * nothing, refused when converted twice or converted back with other bounds;
 * and a layer with a pool on it hands out only shared device addresses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "firmware/iommu/iommu_port.h"
#include <sluice/dma.h>

#define POOL (512u * 1024u)

static void test_conversions(void **state)
{
	struct iommu_port p = { 0 };
	struct sluice_dma_port_ops ops = iommu_port_ops(&p);
	unsigned char *mem = aligned_alloc(4096, 4 * 4096);

	(void)state;
	assert_int_equal(ops.set_shared(ops.ctx, mem, 2 * 4096), 0);
	assert_int_equal(p.pages_shared, 2);
	assert_true(iommu_port_is_shared(&p, (uintptr_t)mem, 2 * 4096));
	assert_false(iommu_port_is_shared(&p, (uintptr_t)mem, 2 * 4096 + 1));
	assert_false(iommu_port_is_shared(&p, (uintptr_t)mem + 2 * 4096, 1));
	assert_false(iommu_port_is_shared(&p, (uintptr_t)mem, 0));
	/* Twice, overlapping, unaligned: refused, nothing recorded. */
	assert_int_equal(ops.set_shared(ops.ctx, mem + 4096, 2 * 4096), SLUICE_DMA_ERR_IO);
	assert_int_equal(ops.set_shared(ops.ctx, mem + 2 * 4096, 100), SLUICE_DMA_ERR_IO);
	assert_int_equal(p.refused, 2);
	assert_int_equal(p.pages_shared, 2);
	/* Back with other bounds: refused; with the same: done. */
	assert_int_equal(ops.set_private(ops.ctx, mem, 4096), SLUICE_DMA_ERR_IO);
	assert_int_equal(ops.set_private(ops.ctx, mem, 2 * 4096), 0);
	assert_int_equal(p.pages_shared, 0);
	assert_int_equal(p.nranges, 0);
	assert_int_equal(p.to_shared, 1);
	assert_int_equal(p.to_private, 1);
	free(mem);
}

static void test_layer_on_port(void **state)
{
	struct iommu_port p = { 0 };
	struct sluice_dma_port_ops ops = iommu_port_ops(&p);
	struct sluice_dma_layer dl;
	struct sluice_dma_tag tag = SLUICE_DMA_TAG_DEFAULT;
	size_t ml = sluice_dma_bounce_meta_size(SLUICE_DMA_POLICY_LINUX, POOL, 1);
	unsigned char *pool = aligned_alloc(4096, POOL), *meta = malloc(ml);
	unsigned char buf[3000];
	uint64_t dev;

	(void)state;
	memset(buf, 0x42, sizeof(buf));
	assert_int_equal(sluice_dma_layer_init(&dl, &ops, 1, SLUICE_DMA_SCRUB_ZERO), 0);
	assert_int_equal(
		sluice_dma_bounce_pool_add(&dl, SLUICE_DMA_POLICY_LINUX, pool, POOL, meta, ml), 0);
	assert_int_equal(p.pages_shared, POOL / 4096);
	assert_int_equal(sluice_dma_map(&dl, &tag, buf, sizeof(buf), SLUICE_DMA_TO_DEVICE, &dev),
			 0);
	assert_true(iommu_port_is_shared(&p, dev, sizeof(buf)));
	assert_memory_equal((void *)(uintptr_t)dev, buf, sizeof(buf)); /* the port's copy op */
	assert_int_equal(sluice_dma_unmap(&dl, dev, sizeof(buf), SLUICE_DMA_TO_DEVICE), 0);
	assert_int_equal(sluice_dma_layer_destroy(&dl), 0);
	assert_int_equal(p.pages_shared, 0);
	assert_int_equal(p.refused, 0);
	free(pool);
	free(meta);
}

/* A fake gBS TPL: RaiseTPL never lowers it, RestoreTPL goes back to what it is told. */
static uint64_t fake_tpl = 4; /* TPL_APPLICATION */
static unsigned int fake_raises;

static uint64_t fake_raise(void *ctx)
{
	uint64_t old = fake_tpl;

	(void)ctx;
	assert_true(fake_tpl <= 16); /* RaiseTPL to a lower TPL is a caller bug */
	fake_tpl = 16;		     /* TPL_NOTIFY */
	fake_raises++;
	return old;
}

static void fake_restore(void *ctx, uint64_t old)
{
	(void)ctx;
	assert_true(old <= fake_tpl); /* RestoreTPL never raises */
	fake_tpl = old;
}

/*
 * With the TPL hooks the port has lock ops: each library lock raises to
 * TPL_NOTIFY and returns the TPL it found, each unlock restores that TPL. After
 * every call the caller's TPL is back, whether it was TPL_APPLICATION or
 * already TPL_CALLBACK; without the hooks there are no lock ops at all.
 */
static void test_tpl_lock(void **state)
{
	struct iommu_port p = { .raise_tpl = fake_raise, .restore_tpl = fake_restore };
	struct sluice_dma_port_ops ops = iommu_port_ops(&p);
	struct iommu_port bare = { 0 };
	struct sluice_dma_layer dl;
	struct sluice_dma_tag tag = SLUICE_DMA_TAG_DEFAULT;
	size_t ml = sluice_dma_bounce_meta_size(SLUICE_DMA_POLICY_SLUICE, POOL, 1);
	unsigned char *pool = aligned_alloc(4096, POOL), *meta = malloc(ml);
	unsigned char buf[3000];
	uint64_t dev;

	(void)state;
	assert_null(iommu_port_ops(&bare).lock);
	assert_null(iommu_port_ops(&bare).unlock);
	assert_non_null(ops.lock);
	memset(buf, 0x17, sizeof(buf));
	assert_int_equal(sluice_dma_layer_init(&dl, &ops, 1, SLUICE_DMA_SCRUB_ZERO), 0);
	assert_int_equal(
		sluice_dma_bounce_pool_add(&dl, SLUICE_DMA_POLICY_SLUICE, pool, POOL, meta, ml), 0);
	for (uint64_t caller = 4; caller <= 8; caller += 4) { /* APPLICATION, CALLBACK */
		fake_tpl = caller;
		assert_int_equal(
			sluice_dma_map(&dl, &tag, buf, sizeof(buf), SLUICE_DMA_TO_DEVICE, &dev), 0);
		assert_int_equal(fake_tpl, caller);
		assert_int_equal(sluice_dma_unmap(&dl, dev, sizeof(buf), SLUICE_DMA_TO_DEVICE), 0);
		assert_int_equal(fake_tpl, caller);
	}
	assert_int_equal(sluice_dma_layer_destroy(&dl), 0);
	assert_int_equal(fake_tpl, 8);
	assert_true(fake_raises > 0);
	assert_int_equal(p.lock_holds, fake_raises);
	free(pool);
	free(meta);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conversions),
		cmocka_unit_test(test_layer_on_port),
		cmocka_unit_test(test_tpl_lock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
