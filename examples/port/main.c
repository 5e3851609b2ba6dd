/* SPDX-License-Identifier: MIT */
/*
 * main.c - the example port at work: firmware start-up, a device's DMA through
 * the library (to device, from device, scatter-gather, read-only, coherent
 * rings in and beyond the pools), and the ExitBootServices teardown. Every
 * device access goes through port_device_may_access(), as an IOMMU or the
 * host would check it. Exits 0 when every check holds.
 *
 * Metadata is static, sized at compile time: firmware with no allocator.
 */
#include <stdio.h>
#include <string.h>

#include <sluice/arena.h>
#include <sluice/dma.h>

#include "port.h"

#define MIB (1024u * 1024u)
#define ARENA_BYTES (4 * MIB)
#define POOL_BYTES (1 * MIB)
#define NCPUS 1

static struct port port;
static struct sluice_dma_layer layer;
static struct sluice_dma_arena arena;
static struct sluice_dma_inplace_region region;
static unsigned char pool_meta[SLUICE_DMA_BOUNCE_META_SIZE(POOL_BYTES, NCPUS)];
static unsigned char arena_meta[SLUICE_DMA_ARENA_META_SIZE(ARENA_BYTES, NCPUS)];

static int failures;

#define CHECK(cond)                                                                          \
	do {                                                                                 \
		if (!(cond)) {                                                               \
			printf("FAIL %s:%d: %s (last log: %s)\n", __FILE__, __LINE__, #cond, \
			       port.log);                                                    \
			failures++;                                                          \
		}                                                                            \
	} while (0)

/* The device: DMA by bus address, only where the platform lets it. */
static bool device_read(uint64_t bus, void *to, size_t len)
{
	if (!port_device_may_access(&port, bus, len, false))
		return false;
	memcpy(to, port_cpu_addr(bus), len);
	return true;
}

static bool device_write(uint64_t bus, const void *from, size_t len)
{
	if (!port_device_may_access(&port, bus, len, true))
		return false;
	memcpy(port_cpu_addr(bus), from, len);
	return true;
}

int main(void)
{
	const struct sluice_dma_tag tag = SLUICE_DMA_TAG_DEFAULT;
	struct sluice_dma_arena_config acfg = {
		.base = port_mem,
		.len = ARENA_BYTES,
		.ncpus = NCPUS,
		.meta = arena_meta,
		.meta_len = sizeof(arena_meta),
	};
	/* The firmware's own (private) buffers, after the arena and the pool. */
	unsigned char *priv = port_mem + ARENA_BYTES + POOL_BYTES;
	struct sluice_dma_sg sg[3] = { { priv, 100, 0 },
				       { priv + 8192, 3000, 0 },
				       { priv + 20000, 9000, 0 } };
	struct sluice_dma_destroy_report rep;
	unsigned char tmp[9000], *ring;
	uint64_t d, dring;
	size_t len;
	unsigned long n;

	/* 1. Start-up: the port, the layer, one pool, the arena as in-place region. */
	CHECK((sluice_dma_version() >> 8) == (SLUICE_DMA_VERSION >> 8));
	port_init(&port);
	CHECK(sluice_dma_layer_init(&layer, &port.ops, NCPUS, SLUICE_DMA_SCRUB_ZERO) == 0);
	CHECK(sluice_dma_bounce_pool_add(&layer, SLUICE_DMA_POLICY_LINUX, port_mem + ARENA_BYTES,
					 POOL_BYTES, pool_meta, sizeof(pool_meta)) == 0);
	CHECK(sluice_dma_arena_init(&arena, &port.ops, &acfg) == 0);
	sluice_dma_arena_region(&region, &arena);
	sluice_dma_layer_set_inplace(&layer, &region);
	CHECK(port_shared_bytes(&port) == POOL_BYTES); /* the arena converts lazily */
	printf("port: layer %u.%u, pool of %u KiB at bus 0x%llx, caps 0x%x\n",
	       SLUICE_DMA_VERSION_MAJOR, SLUICE_DMA_VERSION_MINOR, POOL_BYTES >> 10,
	       (unsigned long long)port_bus_addr(port_mem + ARENA_BYTES),
	       sluice_dma_layer_caps(&layer));

	/* 2. To device: the device reads a shared copy, never the private buffer. */
	memset(priv, 0xa1, 4096);
	CHECK(!port_device_may_access(&port, port_bus_addr(priv), 4096, false));
	CHECK(sluice_dma_map(&layer, &tag, priv, 4096, SLUICE_DMA_TO_DEVICE, &d) == 0);
	CHECK(d >= PORT_BUS_BASE && d != port_bus_addr(priv));
	CHECK(device_read(d, tmp, 4096) && tmp[0] == 0xa1 && tmp[4095] == 0xa1);
	CHECK(sluice_dma_unmap(&layer, d, 4096, SLUICE_DMA_TO_DEVICE) == 0);

	/* 3. From device: written into slots, copied back at unmap. */
	memset(tmp, 0x5e, 2000);
	CHECK(sluice_dma_map(&layer, &tag, priv, 2000, SLUICE_DMA_FROM_DEVICE, &d) == 0);
	CHECK(device_write(d, tmp, 2000));
	CHECK(sluice_dma_unmap(&layer, d, 2000, SLUICE_DMA_FROM_DEVICE) == 0);
	CHECK(priv[0] == 0x5e && priv[1999] == 0x5e);

	/* 4. Read-only: the platform can say so, and the device cannot write it. */
	len = 600;
	CHECK(sluice_dma_map_attrs(&layer, &tag, priv, &len, SLUICE_DMA_TO_DEVICE,
				   SLUICE_DMA_ATTR_READONLY, &d) == 0);
	CHECK(device_read(d, tmp, len) && !device_write(d, tmp, len));
	CHECK(sluice_dma_unmap(&layer, d, len, SLUICE_DMA_TO_DEVICE) == 0);

	/* 5. Scatter-gather, all or nothing, within limits. */
	{
		struct sluice_dma_sg_limits lim = { .max_segments = 4, .max_bounce_slots = 16 };

		memset(tmp, 0x42, sizeof(tmp));
		CHECK(sluice_dma_map_sg(&layer, &tag, sg, 3, SLUICE_DMA_FROM_DEVICE, &lim) == 0);
		for (int i = 0; i < 3; i++)
			CHECK(device_write(sg[i].dma_addr, tmp, sg[i].len));
		CHECK(sluice_dma_unmap_sg(&layer, sg, 3, SLUICE_DMA_FROM_DEVICE) == 0);
		CHECK(priv[20000 + 8999] == 0x42);
	}

	/* 6. Coherent memory: a small ring from the pool, a 1 MiB one (beyond the
	 *    linux policy's 256 KiB runs) from the arena. */
	ring = sluice_dma_alloc_coherent(&layer, &tag, 4096, &dring);
	CHECK(ring && port_device_may_access(&port, dring, 4096, true));
	CHECK(sluice_dma_free_coherent(&layer, ring, 4096) == 0);
	ring = sluice_dma_alloc_coherent(&layer, &tag, MIB, &dring);
	CHECK(ring && dring == port_bus_addr(ring) &&
	      port_device_may_access(&port, dring, MIB, true));
	CHECK(sluice_dma_free_coherent(&layer, ring, MIB) == 0);

	/* 7. A bad handle is an error, not a crash (EDK2: EFI_INVALID_PARAMETER). */
	CHECK(sluice_dma_unmap(&layer, d, len, SLUICE_DMA_TO_DEVICE) == SLUICE_DMA_ERR_NOENT);
	printf("port: a second unmap is refused: %s\n", sluice_dma_strerror(SLUICE_DMA_ERR_NOENT));

	/* 8. ExitBootServices: end what drivers left, then release everything. */
	CHECK(sluice_dma_map(&layer, &tag, priv, 512, SLUICE_DMA_FROM_DEVICE, &d) == 0);
	CHECK(sluice_dma_layer_destroy_report(&layer, &rep) == SLUICE_DMA_ERR_BUSY &&
	      rep.live_mappings == 1);
	CHECK(sluice_dma_unmap_all(&layer, 0, &n) == 0 && n == 1);
	CHECK(sluice_dma_layer_destroy_report(&layer, &rep) == 0 && rep.pools_released == 1 &&
	      rep.leaked_bytes == 0);
	CHECK(sluice_dma_arena_reclaim(&arena, 0) == 1);
	CHECK(sluice_dma_arena_destroy(&arena) == 0);
	CHECK(port_shared_bytes(&port) == 0);
	/* Every lock released, every saved mask restored, every lock destroyed. */
	CHECK(port.locks_held == 0 && port.irq_mask == 0 && port.locks_live == 0);
	printf("port: %lu conversions, %lu cache maintenance calls, all memory private again\n",
	       port.conversions, port.cache_calls);
	printf("port: %s\n", failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
