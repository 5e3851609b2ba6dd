/* SPDX-License-Identifier: MIT */
/*
 * consumer.c - a program outside the Sluice tree that uses the installed DMA
 * library the way an embedder would: only <sluice/...> headers and the flags
 * `pkg-config --cflags --libs sluice-dma` gives. tests/consumer/run.sh copies it
 * out of the repository, builds it against a fresh `make install` and runs it.
 *
 * Its port is the simplest host one: "shared" memory is ordinary malloc'd
 * memory (conversions only count), the bus address is the CPU address, one
 * CPU, no locks. It checks what any port needs first: the version of the
 * headers matches the library's, a pool can be added, a to-device mapping
 * carries the bytes to the device address, a from-device mapping brings the
 * device's bytes back at unmap, the self-check passes, and destroy converts
 * the pool back. Exit status 0 and "consumer: OK" on success.
 */
#include <sluice/dma.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned int to_shared, to_private;

static int host_set_shared(void *ctx, void *vaddr, size_t len)
{
	(void)ctx, (void)vaddr, (void)len;
	to_shared++;
	return SLUICE_DMA_OK;
}

static int host_set_private(void *ctx, void *vaddr, size_t len)
{
	(void)ctx, (void)vaddr, (void)len;
	to_private++;
	return SLUICE_DMA_OK;
}

/* Identity bus address: what a device is given is the CPU address. */
static uint64_t host_virt_to_dma(void *ctx, const void *vaddr)
{
	(void)ctx;
	return (uint64_t)(uintptr_t)vaddr;
}

static void host_log(void *ctx, enum sluice_dma_log_level level, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "sluice-dma[%d]: %s\n", (int)level, msg);
}

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "consumer: %s:%d: check failed: %s\n", __FILE__, __LINE__, \
				#cond);                                                            \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

int main(void)
{
	struct sluice_dma_port_ops ops;
	struct sluice_dma_layer layer;
	struct sluice_dma_tag tag = SLUICE_DMA_TAG_DEFAULT;
	const size_t pool_bytes = 256 * 1024;
	unsigned char out[1000], in[3000];
	uint64_t out_dma, in_dma;
	size_t meta_len;
	void *pool, *meta;

	printf("consumer: headers %d.%d.%d, library 0x%06lx\n", SLUICE_DMA_VERSION_MAJOR,
	       SLUICE_DMA_VERSION_MINOR, SLUICE_DMA_VERSION_PATCH,
	       (unsigned long)sluice_dma_version());
	CHECK(sluice_dma_version() == SLUICE_DMA_VERSION);

	memset(&ops, 0, sizeof(ops));
	ops.set_shared = host_set_shared;
	ops.set_private = host_set_private;
	ops.virt_to_dma = host_virt_to_dma;
	ops.log = host_log;
	CHECK(sluice_dma_layer_init(&layer, &ops, 1, SLUICE_DMA_SCRUB_ZERO) == SLUICE_DMA_OK);

	meta_len = sluice_dma_bounce_meta_size(SLUICE_DMA_POLICY_SLUICE, pool_bytes, 1);
	CHECK(meta_len > 0);
	pool = aligned_alloc(SLUICE_DMA_PAGE_SIZE, pool_bytes);
	meta = malloc(meta_len);
	CHECK(pool && meta);
	CHECK(sluice_dma_bounce_pool_add(&layer, SLUICE_DMA_POLICY_SLUICE, pool, pool_bytes, meta,
					 meta_len) == SLUICE_DMA_OK);
	CHECK(to_shared == 1);

	/* To the device: the bytes are at the device address while mapped. */
	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (unsigned char)(i * 7 + 1);
	CHECK(sluice_dma_map(&layer, &tag, out, sizeof(out), SLUICE_DMA_TO_DEVICE, &out_dma) ==
	      SLUICE_DMA_OK);
	CHECK(out_dma != (uint64_t)(uintptr_t)out); /* bounced, not in place */
	CHECK(sluice_dma_addr_is_shared(&layer, out_dma, sizeof(out)));
	CHECK(memcmp((void *)(uintptr_t)out_dma, out, sizeof(out)) == 0);

	/* From the device: what it writes reaches the buffer at unmap. */
	memset(in, 0xee, sizeof(in));
	CHECK(sluice_dma_map(&layer, &tag, in, sizeof(in), SLUICE_DMA_FROM_DEVICE, &in_dma) ==
	      SLUICE_DMA_OK);
	memset((void *)(uintptr_t)in_dma, 0x5a, sizeof(in)); /* the "device" writes */
	CHECK(sluice_dma_layer_check(&layer) == SLUICE_DMA_OK);
	sluice_dma_unmap(&layer, in_dma, sizeof(in), SLUICE_DMA_FROM_DEVICE);
	for (size_t i = 0; i < sizeof(in); i++)
		CHECK(in[i] == 0x5a);
	sluice_dma_unmap(&layer, out_dma, sizeof(out), SLUICE_DMA_TO_DEVICE);

	CHECK(sluice_dma_layer_check(&layer) == SLUICE_DMA_OK);
	CHECK(sluice_dma_layer_destroy(&layer) == SLUICE_DMA_OK);
	CHECK(to_private == 1);
	free(meta);
	free(pool);
	printf("consumer: OK\n");
	return 0;
}
