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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conversions),
		cmocka_unit_test(test_layer_on_port),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
