/* SPDX-License-Identifier: MIT */
/*
 * test_edk2_iommu.c - the EDK2 IoMmu adapter's status semantics, as
 * MdeModulePkg/Include/Protocol/IoMmu.h states them and OvmfPkg/IoMmuDxe/CcIoMmu.c
 * implements them (tianocore/edk2): each EFI_STATUS the protocol lists, for
 * each function, plus NumberOfBytes in/out, the 4 GiB rule of the operations
 * without "64", Write data copied back at Unmap, and the ExitBootServices
 * teardown.
 *
 * The port is tests/fakes/mock_port.c. Its identity bus addresses put host memory
 * above 4 GiB; a second layer translates its pool to a bus address below
 * 4 GiB (a non-identity port) for the 32-bit operations.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "firmware/iommu/edk2_iommu.h"
#include "tests/fakes/mock_port.h"

#define POOL (1024u * 1024u)
#define LOW_BUS 0x40000000ull /* the translated pool's bus address */

struct env {
	struct mock_port mp;
	struct sluice_dma_layer dl;
	unsigned char *pool, *meta;
	struct edk2_iommu io;
	struct edk2_iommu_map maps[8];
	struct edk2_iommu_buf bufs[4];
};

static unsigned char *low_pool; /* the pool the translating ops move below 4 GiB */

static uint64_t low_virt_to_dma(void *ctx, const void *v)
{
	(void)ctx;
	return (uintptr_t)v - (uintptr_t)low_pool + LOW_BUS;
}

static void *low_dma_to_virt(void *ctx, uint64_t d)
{
	(void)ctx;
	return low_pool + (d - LOW_BUS);
}

static int rec_access_calls, rec_access_last = -1, rec_access_ret;

static int rec_set_access(void *ctx, uint64_t dma, size_t len, unsigned int access)
{
	(void)ctx, (void)dma, (void)len;
	rec_access_calls++;
	rec_access_last = (int)access;
	return rec_access_ret;
}

static struct env *env_new(bool low)
{
	struct env *e = calloc(1, sizeof(*e));
	size_t ml;

	assert_non_null(e);
	mock_port_init(&e->mp, 1);
	e->pool = aligned_alloc(4096, POOL);
	assert_non_null(e->pool);
	if (low) {
		low_pool = e->pool;
		e->mp.ops.virt_to_dma = low_virt_to_dma;
		e->mp.ops.dma_to_virt = low_dma_to_virt;
	}
	assert_int_equal(sluice_dma_layer_init(&e->dl, &e->mp.ops, 1, SLUICE_DMA_SCRUB_ZERO), 0);
	ml = sluice_dma_bounce_meta_size(SLUICE_DMA_POLICY_SLUICE, POOL, 1);
	e->meta = malloc(ml);
	assert_int_equal(sluice_dma_bounce_pool_add(&e->dl, SLUICE_DMA_POLICY_SLUICE, e->pool, POOL,
						    e->meta, ml),
			 0);
	assert_int_equal(edk2_iommu_init(&e->io, &e->dl, e->maps, 8, e->bufs, 4), EFI_SUCCESS);
	return e;
}

static void env_free(struct env *e)
{
	assert_int_equal(sluice_dma_layer_destroy(&e->dl), 0);
	assert_int_equal(mock_port_shared_bytes(&e->mp), 0);
	free(e->pool);
	free(e->meta);
	free(e);
}

/* ------------------------------------------------------------------ Map / Unmap */

static void test_map_read_write(void **state)
{
	struct env *e = env_new(false);
	unsigned char *buf = malloc(8192);
	UINTN n = 5000;
	EFI_PHYSICAL_ADDRESS dev;
	void *mr, *mw;

	(void)state;
	memset(buf, 0x3c, 8192);
	assert_int_equal(edk2_iommu_map(&e->io, EdkiiIoMmuOperationBusMasterRead64, buf, &n, &dev,
					&mr),
			 EFI_SUCCESS);
	assert_int_equal(n, 5000);
	assert_true(sluice_dma_addr_is_shared(&e->dl, dev, n));
	assert_memory_equal((void *)(uintptr_t)dev, buf, n); /* copied in, as OVMF */
	n = 3000;
	assert_int_equal(edk2_iommu_map(&e->io, EdkiiIoMmuOperationBusMasterWrite64, buf + 5000, &n,
					&dev, &mw),
			 EFI_SUCCESS);
	memset((void *)(uintptr_t)dev, 0xd7, 3000); /* the device writes */
	assert_int_equal(buf[5000], 0x3c);
	assert_int_equal(edk2_iommu_unmap(&e->io, mw), EFI_SUCCESS);
	for (int i = 0; i < 3000; i++)
		assert_int_equal(buf[5000 + i], 0xd7); /* copied back at Unmap */
	assert_int_equal(edk2_iommu_unmap(&e->io, mr), EFI_SUCCESS);
	/* "Mapping is not a value that was returned by Map()". */
	assert_int_equal(edk2_iommu_unmap(&e->io, mr), EFI_INVALID_PARAMETER);
	assert_int_equal(edk2_iommu_unmap(&e->io, NULL), EFI_INVALID_PARAMETER);
	assert_int_equal(edk2_iommu_unmap(&e->io, buf), EFI_INVALID_PARAMETER);
	assert_int_equal(edk2_iommu_unmap(&e->io, (char *)mr + 1), EFI_INVALID_PARAMETER);
	free(buf);
	env_free(e);
}

static void test_map_invalid(void **state)
{
	struct env *e = env_new(false);
	unsigned char buf[64];
	UINTN n = sizeof(buf);
	EFI_PHYSICAL_ADDRESS dev;
	void *m;

	(void)state;
	assert_int_equal(edk2_iommu_map(&e->io, EdkiiIoMmuOperationMaximum, buf, &n, &dev, &m),
			 EFI_INVALID_PARAMETER);
	assert_int_equal(n, 0); /* OVMF: *NumberOfBytes = 0 on failure */
	n = sizeof(buf);
	assert_int_equal(edk2_iommu_map(&e->io, (EDKII_IOMMU_OPERATION)-1, buf, &n, &dev, &m),
			 EFI_INVALID_PARAMETER);
	assert_int_equal(edk2_iommu_map(&e->io, EdkiiIoMmuOperationBusMasterRead64, NULL, &n, &dev,
					&m),
			 EFI_INVALID_PARAMETER);
	assert_int_equal(edk2_iommu_map(&e->io, EdkiiIoMmuOperationBusMasterRead64, buf, NULL, &dev,
					&m),
			 EFI_INVALID_PARAMETER);
	n = sizeof(buf);
	assert_int_equal(edk2_iommu_map(&e->io, EdkiiIoMmuOperationBusMasterRead64, buf, &n, NULL,
					&m),
			 EFI_INVALID_PARAMETER);
	assert_int_equal(edk2_iommu_map(&e->io, EdkiiIoMmuOperationBusMasterRead64, buf, &n, &dev,
					NULL),
			 EFI_INVALID_PARAMETER);
	n = 0;
	assert_int_equal(edk2_iommu_map(&e->io, EdkiiIoMmuOperationBusMasterRead64, buf, &n, &dev,
					&m),
			 EFI_INVALID_PARAMETER);
	env_free(e);
}

/* NumberOfBytes: "On output the number of bytes that were mapped." */
static void test_map_partial(void **state)
{
	struct env *e = env_new(false);
	unsigned char *buf = calloc(1, 2 * POOL);
	UINTN n = 2 * POOL, total = 0;
	EFI_PHYSICAL_ADDRESS dev;
	void *m;

	(void)state;
	/* A caller loops, as PciIo users do, until everything went through. */
	while (total < 2 * POOL) {
		n = 2 * POOL - total;
		assert_int_equal(edk2_iommu_map(&e->io, EdkiiIoMmuOperationBusMasterWrite64,
						buf + total, &n, &dev, &m),
				 EFI_SUCCESS);
		assert_true(n > 0 && n < 2 * POOL);
		assert_int_equal(edk2_iommu_unmap(&e->io, m), EFI_SUCCESS);
		total += n;
	}
	free(buf);
	env_free(e);
}

static void test_map_out_of_resources(void **state)
{
	struct env *e = env_new(false);
	unsigned char *buf = calloc(1, POOL);
	void *m[8];
	UINTN n;
	EFI_PHYSICAL_ADDRESS dev;
	unsigned int i;

	(void)state;
	/* The host pool lies above 4 GiB: a 32-bit operation has nothing to use. */
	n = 64;
	assert_int_equal(edk2_iommu_map(&e->io, EdkiiIoMmuOperationBusMasterRead, buf, &n, &dev,
					&m[0]),
			 EFI_OUT_OF_RESOURCES);
	/* The mapping table holds 8. */
	for (i = 0; i < 8; i++) {
		n = 64;
		assert_int_equal(edk2_iommu_map(&e->io, EdkiiIoMmuOperationBusMasterRead64,
						buf + i * 4096, &n, &dev, &m[i]),
				 EFI_SUCCESS);
	}
	n = 64;
	assert_int_equal(edk2_iommu_map(&e->io, EdkiiIoMmuOperationBusMasterRead64, buf, &n, &dev,
					&m[0]),
			 EFI_OUT_OF_RESOURCES);
	for (i = 0; i < 8; i++)
		assert_int_equal(edk2_iommu_unmap(&e->io, m[i]), EFI_SUCCESS);
	free(buf);
	env_free(e);
}

/* The operations without "64" through a port whose pool sits below 4 GiB. */
static void test_map_below_4g(void **state)
{
	struct env *e = env_new(true);
	unsigned char buf[256];
	UINTN n = sizeof(buf);
	EFI_PHYSICAL_ADDRESS dev;
	void *m, *host = NULL;

	(void)state;
	memset(buf, 0x61, sizeof(buf));
	assert_int_equal(edk2_iommu_map(&e->io, EdkiiIoMmuOperationBusMasterRead, buf, &n, &dev,
					&m),
			 EFI_SUCCESS);
	assert_true(dev >= LOW_BUS && dev + n <= LOW_BUS + POOL);
	assert_memory_equal(low_dma_to_virt(NULL, dev), buf, n);
	assert_int_equal(edk2_iommu_unmap(&e->io, m), EFI_SUCCESS);
	/* A 32-bit common buffer below 4 GiB maps; its address is its own. */
	assert_int_equal(edk2_iommu_allocate_buffer(&e->io, 0, EfiBootServicesData, 2, &host, 0),
			 EFI_SUCCESS);
	n = 8192;
	assert_int_equal(edk2_iommu_map(&e->io, EdkiiIoMmuOperationBusMasterCommonBuffer, host, &n,
					&dev, &m),
			 EFI_SUCCESS);
	assert_int_equal(dev, low_virt_to_dma(NULL, host));
	assert_int_equal(edk2_iommu_unmap(&e->io, m), EFI_SUCCESS);
	assert_int_equal(edk2_iommu_free_buffer(&e->io, 2, host), EFI_SUCCESS);
	env_free(e);
}

/* ------------------------------------------------------------------ buffers */

static void test_buffers(void **state)
{
	struct env *e = env_new(false);
	unsigned char buf[64];
	void *host = NULL, *m;
	UINTN n;
	EFI_PHYSICAL_ADDRESS dev;

	(void)state;
	assert_int_equal(edk2_iommu_allocate_buffer(&e->io, 0, EfiBootServicesData, 1, &host, 0x1),
			 EFI_UNSUPPORTED);
	assert_int_equal(edk2_iommu_allocate_buffer(&e->io, 0, 3 /* EfiBootServicesCode */, 1,
						    &host, 0),
			 EFI_INVALID_PARAMETER);
	assert_int_equal(edk2_iommu_allocate_buffer(&e->io, 0, EfiBootServicesData, 1, NULL, 0),
			 EFI_INVALID_PARAMETER);
	/* Without DUAL_ADDRESS_CYCLE the memory must be below 4 GiB: not here. */
	assert_int_equal(edk2_iommu_allocate_buffer(&e->io, 0, EfiBootServicesData, 1, &host, 0),
			 EFI_OUT_OF_RESOURCES);
	assert_int_equal(edk2_iommu_allocate_buffer(&e->io, 0, EfiRuntimeServicesData, 3, &host,
						    EDKII_IOMMU_ATTRIBUTE_DUAL_ADDRESS_CYCLE |
							    EDKII_IOMMU_ATTRIBUTE_MEMORY_CACHED),
			 EFI_SUCCESS);
	for (int i = 0; i < 3 * 4096; i++)
		assert_int_equal(((unsigned char *)host)[i], 0);
	/* CommonBuffer only for AllocateBuffer memory, 32-bit only below 4 GiB. */
	n = sizeof(buf);
	assert_int_equal(edk2_iommu_map(&e->io, EdkiiIoMmuOperationBusMasterCommonBuffer64, buf, &n,
					&dev, &m),
			 EFI_UNSUPPORTED);
	n = 4096;
	assert_int_equal(edk2_iommu_map(&e->io, EdkiiIoMmuOperationBusMasterCommonBuffer, host, &n,
					&dev, &m),
			 EFI_UNSUPPORTED);
	n = 4 * 4096;
	assert_int_equal(edk2_iommu_map(&e->io, EdkiiIoMmuOperationBusMasterCommonBuffer64, host,
					&n, &dev, &m),
			 EFI_UNSUPPORTED); /* longer than the buffer */
	n = 3 * 4096;
	assert_int_equal(edk2_iommu_map(&e->io, EdkiiIoMmuOperationBusMasterCommonBuffer64, host,
					&n, &dev, &m),
			 EFI_SUCCESS);
	assert_int_equal(dev, (uintptr_t)host);
	/* Not while a device may use it; not with another size; once. */
	assert_int_equal(edk2_iommu_free_buffer(&e->io, 3, host), EFI_INVALID_PARAMETER);
	assert_int_equal(edk2_iommu_unmap(&e->io, m), EFI_SUCCESS);
	assert_int_equal(edk2_iommu_free_buffer(&e->io, 2, host), EFI_INVALID_PARAMETER);
	assert_int_equal(edk2_iommu_free_buffer(&e->io, 3, buf), EFI_INVALID_PARAMETER);
	assert_int_equal(edk2_iommu_free_buffer(&e->io, 3, host), EFI_SUCCESS);
	assert_int_equal(edk2_iommu_free_buffer(&e->io, 3, host), EFI_INVALID_PARAMETER);
	env_free(e);
}

/* ------------------------------------------------------------------ SetAttribute */

static void test_set_attribute(void **state)
{
	struct env *e = env_new(false);
	unsigned char buf[512];
	EFI_HANDLE dh = (EFI_HANDLE)(uintptr_t)0x1234;
	UINTN n = sizeof(buf);
	EFI_PHYSICAL_ADDRESS dev;
	void *mr, *mw;

	(void)state;
	assert_int_equal(edk2_iommu_map(&e->io, EdkiiIoMmuOperationBusMasterRead64, buf, &n, &dev,
					&mr),
			 EFI_SUCCESS);
	n = sizeof(buf);
	assert_int_equal(edk2_iommu_map(&e->io, EdkiiIoMmuOperationBusMasterWrite64, buf, &n, &dev,
					&mw),
			 EFI_SUCCESS);
	/* No IOMMU behind the port: OVMF's answer. */
	assert_int_equal(edk2_iommu_set_attribute(&e->io, dh, mr, EDKII_IOMMU_ACCESS_READ),
			 EFI_UNSUPPORTED);
	assert_int_equal(edk2_iommu_set_attribute(&e->io, NULL, mr, EDKII_IOMMU_ACCESS_READ),
			 EFI_INVALID_PARAMETER);
	assert_int_equal(edk2_iommu_set_attribute(&e->io, dh, buf, EDKII_IOMMU_ACCESS_READ),
			 EFI_INVALID_PARAMETER);
	assert_int_equal(edk2_iommu_set_attribute(&e->io, dh, mr, 0x4), EFI_INVALID_PARAMETER);
	assert_int_equal(edk2_iommu_set_attribute(&e->io, dh, mr, EDKII_IOMMU_ACCESS_WRITE),
			 EFI_INVALID_PARAMETER);
	/* A port that can: the access reaches it; revoking (0) too; failures. */
	e->dl.ops.set_access = rec_set_access;
	assert_int_equal(edk2_iommu_set_attribute(&e->io, dh, mw, EDKII_IOMMU_ACCESS_WRITE),
			 EFI_SUCCESS);
	assert_int_equal(rec_access_last, EDKII_IOMMU_ACCESS_WRITE);
	assert_int_equal(edk2_iommu_set_attribute(&e->io, dh, mw, 0), EFI_SUCCESS);
	assert_int_equal(rec_access_last, 0);
	rec_access_ret = SLUICE_DMA_ERR_IO;
	assert_int_equal(edk2_iommu_set_attribute(&e->io, dh, mw, EDKII_IOMMU_ACCESS_WRITE),
			 EFI_DEVICE_ERROR);
	rec_access_ret = 0;
	assert_int_equal(edk2_iommu_unmap(&e->io, mw), EFI_SUCCESS);
	assert_int_equal(rec_access_last, EDKII_IOMMU_ACCESS_READ | EDKII_IOMMU_ACCESS_WRITE);
	assert_int_equal(edk2_iommu_unmap(&e->io, mr), EFI_SUCCESS);
	e->dl.ops.set_access = NULL;
	env_free(e);
}

/* ------------------------------------------------------------------ ExitBootServices */

static void test_exit_boot(void **state)
{
	struct env *e = env_new(false);
	unsigned char *buf = calloc(1, 8192);
	UINTN n;
	EFI_PHYSICAL_ADDRESS dev;
	void *mr, *mw, *host = NULL;

	(void)state;
	n = 100;
	assert_int_equal(edk2_iommu_map(&e->io, EdkiiIoMmuOperationBusMasterRead64, buf, &n, &dev,
					&mr),
			 EFI_SUCCESS);
	n = 100;
	assert_int_equal(edk2_iommu_map(&e->io, EdkiiIoMmuOperationBusMasterWrite64, buf + 4096, &n,
					&dev, &mw),
			 EFI_SUCCESS);
	memset((void *)(uintptr_t)dev, 0x77, 100);
	assert_int_equal(edk2_iommu_allocate_buffer(&e->io, 0, EfiBootServicesData, 1, &host,
						    EDKII_IOMMU_ATTRIBUTE_DUAL_ADDRESS_CYCLE),
			 EFI_SUCCESS);
	assert_int_equal(edk2_iommu_exit_boot(&e->io), 2);
	assert_int_equal(buf[4096], 0x77); /* the Write's data landed */
	assert_int_equal(edk2_iommu_unmap(&e->io, mr), EFI_INVALID_PARAMETER);
	/* Buffers stay: the layer still holds one allocation until it is freed. */
	assert_int_equal(sluice_dma_layer_destroy(&e->dl), SLUICE_DMA_ERR_BUSY);
	assert_int_equal(edk2_iommu_free_buffer(&e->io, 1, host), EFI_SUCCESS);
	free(buf);
	env_free(e);
}

/* ------------------------------------------------------------------ the arena */

#define ARENA (4u * 1024u * 1024u)
#define TWO_MB (2u * 1024u * 1024u)
/* Longer than the 1 MiB sluice pool's largest mapping (one area). */
#define LONG (1536u * 1024u)

struct arena_env {
	struct env *e;
	unsigned char *mem, *meta;
	struct sluice_dma_arena arena;
};

static void arena_env_new(struct arena_env *a, bool buffers)
{
	struct sluice_dma_arena_config cfg;
	size_t ml = sluice_dma_arena_meta_size(ARENA, 1);

	a->e = env_new(false);
	a->mem = aligned_alloc(TWO_MB, ARENA);
	a->meta = malloc(ml);
	assert_non_null(a->mem);
	cfg = (struct sluice_dma_arena_config){
		.base = a->mem, .len = ARENA, .ncpus = 1, .meta = a->meta, .meta_len = ml
	};
	assert_int_equal(sluice_dma_arena_init(&a->arena, &a->e->mp.ops, &cfg), 0);
	edk2_iommu_set_arena(&a->e->io, &a->arena, buffers);
}

static void arena_env_free(struct arena_env *a)
{
	unsigned int nm, nb;

	edk2_iommu_live(&a->e->io, &nm, &nb);
	assert_int_equal(nm, 0);
	assert_int_equal(nb, 0);
	sluice_dma_arena_reclaim(&a->arena, 0);
	assert_int_equal(sluice_dma_arena_destroy(&a->arena), 0);
	env_free(a->e);
	free(a->mem);
	free(a->meta);
}

/* A Map longer than a pool run bounces through an arena block, whole (VirtioLib
 * fails on fewer bytes), and copies exactly what was mapped each way. */
static void test_map_long_through_arena(void **state)
{
	struct arena_env a;
	size_t len = LONG;
	unsigned char *buf = malloc(len + 16);
	EFI_PHYSICAL_ADDRESS dev;
	void *mr, *mw;
	UINTN n = len;

	(void)state;
	arena_env_new(&a, false);
	for (size_t i = 0; i < len + 16; i++)
		buf[i] = (unsigned char)(i * 7);
	assert_int_equal(edk2_iommu_map(&a.e->io, EdkiiIoMmuOperationBusMasterRead64, buf, &n, &dev,
					&mr),
			 EFI_SUCCESS);
	assert_int_equal(n, len);
	assert_true(sluice_dma_arena_owns(&a.arena, (void *)(uintptr_t)dev, len));
	assert_true(sluice_dma_arena_is_shared(&a.arena, (void *)(uintptr_t)dev, len));
	assert_memory_equal((void *)(uintptr_t)dev, buf, len);
	assert_int_equal(edk2_iommu_unmap(&a.e->io, mr), EFI_SUCCESS);
	n = len;
	assert_int_equal(edk2_iommu_map(&a.e->io, EdkiiIoMmuOperationBusMasterWrite64, buf, &n,
					&dev, &mw),
			 EFI_SUCCESS);
	assert_int_equal(n, len);
	/* The block holds no byte of the caller's buffer before the device writes. */
	for (size_t i = 0; i < len; i += 4096)
		assert_int_equal(((unsigned char *)(uintptr_t)dev)[i], 0);
	memset((void *)(uintptr_t)dev, 0xa5, len);
	assert_int_equal(edk2_iommu_unmap(&a.e->io, mw), EFI_SUCCESS);
	for (size_t i = 0; i < len; i++)
		assert_int_equal(buf[i], 0xa5);
	assert_int_equal(buf[len], (unsigned char)(len * 7)); /* nothing past the mapping */
	assert_int_equal(a.e->io.long_maps, 2);
	assert_int_equal(a.e->io.long_bytes_to_device, len);
	assert_int_equal(a.e->io.long_bytes_from_device, len);
	/* Beyond the arena's largest block: no room. */
	n = 4 * 1024 * 1024;
	assert_int_equal(edk2_iommu_map(&a.e->io, EdkiiIoMmuOperationBusMasterRead64, buf, &n, &dev,
					&mr),
			 EFI_OUT_OF_RESOURCES);
	assert_int_equal(n, 0);
	free(buf);
	arena_env_free(&a);
}

/* AllocateBuffer from the arena; a CommonBuffer map of it is the identity;
 * ExitBootServices copies a long Write back and leaves buffers alone. */
static void test_buffers_from_arena(void **state)
{
	struct arena_env a;
	size_t len = LONG;
	unsigned char *buf = calloc(1, len);
	EFI_PHYSICAL_ADDRESS dev, cdev;
	void *host = NULL, *m, *mw;
	UINTN n = 8192;

	(void)state;
	arena_env_new(&a, true);
	assert_int_equal(edk2_iommu_allocate_buffer(&a.e->io, 0, EfiBootServicesData, 2, &host,
						    EDKII_IOMMU_ATTRIBUTE_DUAL_ADDRESS_CYCLE),
			 EFI_SUCCESS);
	assert_true(sluice_dma_arena_owns(&a.arena, host, 8192));
	assert_true(edk2_iommu_owns(&a.e->io, host, 1));
	assert_false(edk2_iommu_owns(&a.e->io, buf, len));
	assert_int_equal(edk2_iommu_map(&a.e->io, EdkiiIoMmuOperationBusMasterCommonBuffer64, host,
					&n, &cdev, &m),
			 EFI_SUCCESS);
	assert_int_equal(cdev, (uintptr_t)host);
	n = len;
	assert_int_equal(edk2_iommu_map(&a.e->io, EdkiiIoMmuOperationBusMasterWrite64, buf, &n,
					&dev, &mw),
			 EFI_SUCCESS);
	memset((void *)(uintptr_t)dev, 0x5e, len);
	assert_int_equal(edk2_iommu_exit_boot(&a.e->io), 2);
	assert_int_equal(buf[0], 0x5e);
	assert_int_equal(buf[len - 1], 0x5e);
	assert_int_equal(edk2_iommu_unmap(&a.e->io, mw), EFI_INVALID_PARAMETER);
	assert_int_equal(edk2_iommu_free_buffer(&a.e->io, 1, host), EFI_INVALID_PARAMETER);
	assert_int_equal(edk2_iommu_free_buffer(&a.e->io, 2, host), EFI_SUCCESS);
	assert_false(edk2_iommu_owns(&a.e->io, host, 1) &&
		     !sluice_dma_arena_owns(&a.arena, host, 1));
	free(buf);
	arena_env_free(&a);
}

int main(void)
{
	/* One test a line, not packed in columns. */
	/* clang-format off */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_read_write),
		cmocka_unit_test(test_map_invalid),
		cmocka_unit_test(test_map_partial),
		cmocka_unit_test(test_map_out_of_resources),
		cmocka_unit_test(test_map_below_4g),
		cmocka_unit_test(test_buffers),
		cmocka_unit_test(test_set_attribute),
		cmocka_unit_test(test_exit_boot),
		cmocka_unit_test(test_map_long_through_arena),
		cmocka_unit_test(test_buffers_from_arena),
	};
	/* clang-format on */

	return cmocka_run_group_tests(tests, NULL, NULL);
}
