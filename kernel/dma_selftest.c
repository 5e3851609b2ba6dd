/* SPDX-License-Identifier: MIT */
/*
 * dma_selftest.c - the DMA layers' self-test at every boot: map, sync and unmap
 * through a bounce pool, the arena and the direct layer, checking the bytes the
 * device sees and that private memory never becomes shared.
 */
#include "kernel/dma_setup.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/mm/mmu.h"

#define SELFTEST_REPEATS 64

static int selftest_fail(const char *what, uint64_t addr)
{
	printf("dma: selftest FAILED: %s (address 0x%" PRIx64 ")\n", what, addr);
	return -1;
}

/* The device's view: the bytes at a device address (identity mapping). */
static uint8_t *device_view(uint64_t dma_addr)
{
	return (uint8_t *)(uintptr_t)dma_addr;
}

/* To device: the device sees a copy, in shared memory, not the private buffer. */
static int selftest_to_device(struct sluice_dma_layer *bl, const struct sluice_dma_tag *tag,
			      uint8_t *buf, size_t len)
{
	uint64_t addr;

	if (sluice_dma_map(bl, tag, buf, len, SLUICE_DMA_TO_DEVICE, &addr))
		return selftest_fail("map to-device", (uintptr_t)buf);
	if (addr == (uintptr_t)buf || !sluice_dma_addr_is_shared(bl, addr, len) ||
	    !mmu_range_is_shared(addr, len))
		return selftest_fail("to-device mapping is not in converted shared memory", addr);
	if (memcmp(device_view(addr), buf, len))
		return selftest_fail("device does not see the buffer's bytes", addr);
	if (mmu_range_is_shared((uintptr_t)buf, len))
		return selftest_fail("the private buffer became shared", (uintptr_t)buf);
	sluice_dma_unmap(bl, addr, len, SLUICE_DMA_TO_DEVICE);
	return 0;
}

/* From device: what the device writes reaches the buffer at sync and unmap, and
 * the slots it is given hold nothing of the previous mapping. */
static int selftest_from_device(struct sluice_dma_layer *bl, const struct sluice_dma_tag *tag,
				uint8_t *other, size_t len)
{
	uint64_t addr;

	memset(other, 0x5a, len);
	if (sluice_dma_map(bl, tag, other, len, SLUICE_DMA_FROM_DEVICE, &addr))
		return selftest_fail("map from-device", (uintptr_t)other);
	/* scrub=copy shows the device the buffer's own bytes (as Linux does since
	 * CVE-2022-0854), scrub=zero shows zeros: never the earlier mapping's. */
	for (size_t i = 0; i < len; i++)
		if (device_view(addr)[i] != (bl->scrub == SLUICE_DMA_SCRUB_COPY ? 0x5a : 0))
			return selftest_fail("the device sees bytes that are not this mapping's",
					     addr + i);
	memset(device_view(addr), 0xc3, 100);
	if (sluice_dma_sync_for_cpu(bl, addr, 0, 100, SLUICE_DMA_FROM_DEVICE) || other[0] != 0xc3 ||
	    other[99] != 0xc3 || other[100] != 0x5a)
		return selftest_fail("sync_for_cpu did not copy exactly the synced range", addr);
	device_view(addr)[len - 1] = 0x11;
	sluice_dma_unmap(bl, addr, len, SLUICE_DMA_FROM_DEVICE);
	if (other[len - 1] != 0x11)
		return selftest_fail("unmap did not copy the device's bytes back", addr);
	return 0;
}

/* The arena maps its own shared memory in place and bounces anything else; the
 * direct layer maps everything in place (a plain VM). */
static int selftest_in_place(struct kernel_dma *kd, const struct sluice_dma_tag *tag, uint8_t *buf,
			     size_t len)
{
	uint8_t *block = sluice_dma_arena_alloc(&kd->arena, 8192);
	uint64_t addr;
	int rc;

	if (!block)
		return selftest_fail("arena alloc", 0);
	if (!mmu_range_is_shared((uintptr_t)block, 8192))
		return selftest_fail("arena block is not shared in the page tables",
				     (uintptr_t)block);
	rc = sluice_dma_map(&kd->arena_layer, tag, block, 8192, SLUICE_DMA_BIDIRECTIONAL, &addr);
	if (rc || addr != (uintptr_t)block)
		return selftest_fail("arena block did not map in place", (uintptr_t)block);
	sluice_dma_unmap(&kd->arena_layer, addr, 8192, SLUICE_DMA_BIDIRECTIONAL);
	rc = sluice_dma_map(&kd->arena_layer, tag, buf, 64, SLUICE_DMA_TO_DEVICE, &addr);
	if (rc || addr == (uintptr_t)buf || !mmu_range_is_shared(addr, 64))
		return selftest_fail("arena layer did not bounce a private buffer", (uintptr_t)buf);
	sluice_dma_unmap(&kd->arena_layer, addr, 64, SLUICE_DMA_TO_DEVICE);
	rc = sluice_dma_map(&kd->direct, tag, buf, len, SLUICE_DMA_TO_DEVICE, &addr);
	if (rc || addr != (uintptr_t)buf)
		return selftest_fail("direct layer did not map in place", (uintptr_t)buf);
	sluice_dma_unmap(&kd->direct, addr, len, SLUICE_DMA_TO_DEVICE);
	sluice_dma_arena_free(&kd->arena, block);
	return 0;
}

/* Coherent memory for rings: shared and zeroed. Then every layer's self-check. */
static int selftest_coherent_and_checks(struct kernel_dma *kd, struct sluice_dma_layer *bl,
					const struct sluice_dma_tag *tag)
{
	uint64_t ring_addr;
	uint8_t *ring = sluice_dma_alloc_coherent(bl, tag, 4096, &ring_addr);

	if (!ring)
		return selftest_fail("coherent alloc", 0);
	for (size_t i = 0; i < 4096; i++)
		if (ring[i])
			return selftest_fail("coherent memory not zeroed", ring_addr + i);
	if (!mmu_range_is_shared(ring_addr, 4096))
		return selftest_fail("coherent memory is not shared", ring_addr);
	sluice_dma_free_coherent(bl, ring, 4096);

	for (int p = 0; p < SLUICE_DMA_POLICY_COUNT; p++)
		if ((kd->policies & (UINT64_C(1) << p)) && sluice_dma_layer_check(&kd->bounce[p]))
			return selftest_fail("bounce layer self-check", (uint64_t)p);
	if (sluice_dma_layer_check(&kd->direct) || sluice_dma_layer_check(&kd->arena_layer))
		return selftest_fail("layer self-check", 0);
	return 0;
}

/* Warm figures: the first call also pays for cold caches (and, under TCG, for
 * translating the code), so time a run of repeats. */
static int selftest_timing(struct sluice_dma_layer *bl, const struct sluice_dma_tag *tag,
			   uint8_t *buf, size_t len, uint64_t *map_cycles, uint64_t *unmap_cycles)
{
	uint64_t addr, t0;

	*map_cycles = *unmap_cycles = 0;
	for (int i = 0; i < SELFTEST_REPEATS; i++) {
		t0 = rdtsc();
		if (sluice_dma_map(bl, tag, buf, len, SLUICE_DMA_TO_DEVICE, &addr))
			return selftest_fail("repeated map", (uintptr_t)buf);
		*map_cycles += rdtsc() - t0;
		t0 = rdtsc();
		sluice_dma_unmap(bl, addr, len, SLUICE_DMA_TO_DEVICE);
		*unmap_cycles += rdtsc() - t0;
	}
	return 0;
}

int kernel_dma_selftest(struct kernel_dma *kd)
{
	struct sluice_dma_layer *bl = &kd->bounce[__builtin_ctzll(kd->policies)];
	const struct sluice_dma_tag tag = SLUICE_DMA_TAG_DEFAULT;
	const size_t len = 6000; /* 3 slots, not a multiple of anything */
	uint8_t *buf = malloc(len), *other = malloc(len);
	uint64_t map_cycles, unmap_cycles;

	if (!buf || !other)
		return selftest_fail("no heap for test buffers", 0);
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 7 + 1);
	if (selftest_to_device(bl, &tag, buf, len) || selftest_from_device(bl, &tag, other, len) ||
	    selftest_in_place(kd, &tag, buf, len) || selftest_coherent_and_checks(kd, bl, &tag) ||
	    selftest_timing(bl, &tag, buf, len, &map_cycles, &unmap_cycles))
		return -1;
	free(buf);
	free(other);
	printf("dma: selftest passed (bounce to/from device, sync, stale-data guard, arena in "
	       "place, coherent); 6000-byte to-device map %" PRIu64 " cycles, unmap %" PRIu64
	       " cycles (mean of %d, copy included)\n",
	       map_cycles / SELFTEST_REPEATS, unmap_cycles / SELFTEST_REPEATS, SELFTEST_REPEATS);
	return 0;
}
