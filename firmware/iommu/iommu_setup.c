/* SPDX-License-Identifier: MIT */
/*
 * iommu_setup.c - the sluice-iommu driver's memory: one bounce pool and a 4 MB
 * arena, both from AllocatePages below 4 GiB (so that the 32-bit Map operations
 * and AllocateBuffer without DUAL_ADDRESS_CYCLE are served from them), converted
 * through the port (iommu_port.c), and given back the same way.
 */
#include "firmware/iommu/iommu_driver.h"

#define TWO_MB (2ull << 20)
#define BELOW_4G 0xFFFFFFFFull

static EFI_STATUS pages_below_4g(UINTN bytes, EFI_PHYSICAL_ADDRESS *addr)
{
	*addr = BELOW_4G;
	return uefi_call_wrapper(BS->AllocatePages, 4, AllocateMaxAddress, EfiBootServicesData,
				 EFI_SIZE_TO_PAGES(bytes), addr);
}

static void pages_free(EFI_PHYSICAL_ADDRESS *addr, UINTN bytes)
{
	if (*addr)
		uefi_call_wrapper(BS->FreePages, 2, *addr, EFI_SIZE_TO_PAGES(bytes));
	*addr = 0;
}

static void pool_free(void **p)
{
	if (*p)
		uefi_call_wrapper(BS->FreePool, 1, *p);
	*p = NULL;
}

static EFI_STATUS status_of(int err)
{
	return err == SLUICE_DMA_ERR_NOMEM ? EFI_OUT_OF_RESOURCES :
	       err == SLUICE_DMA_ERR_IO	   ? EFI_DEVICE_ERROR :
					     EFI_INVALID_PARAMETER;
}

/* The arena: 2 MB aligned inside pages allocated 2 MB larger. */
static EFI_STATUS arena_setup(struct iommu_driver *d)
{
	size_t ml = sluice_dma_arena_meta_size(IOMMU_ARENA_BYTES, 1);
	struct sluice_dma_port_ops ops = iommu_port_ops(&d->port);
	struct sluice_dma_arena_config cfg;
	EFI_STATUS st;
	int err;

	st = pages_below_4g(IOMMU_ARENA_BYTES + TWO_MB, &d->arena_alloc);
	if (EFI_ERROR(st))
		return st;
	st = uefi_call_wrapper(BS->AllocatePool, 3, EfiBootServicesData, ml, &d->arena_meta);
	if (EFI_ERROR(st))
		return st;
	cfg = (struct sluice_dma_arena_config){
		.base = (void *)(UINTN)((d->arena_alloc + TWO_MB - 1) & ~(TWO_MB - 1)),
		.len = IOMMU_ARENA_BYTES,
		.ncpus = 1,
		.meta = d->arena_meta,
		.meta_len = ml,
	};
	err = sluice_dma_arena_init(&d->arena, &ops, &cfg);
	return err ? status_of(err) : EFI_SUCCESS;
}

static EFI_STATUS layer_setup(struct iommu_driver *d, enum sluice_dma_bounce_policy policy)
{
	struct sluice_dma_port_ops ops = iommu_port_ops(&d->port);
	EFI_STATUS st;
	int err;

	d->pool_meta_len = sluice_dma_bounce_meta_size(policy, IOMMU_POOL_BYTES, 1);
	if (!d->pool_meta_len)
		return EFI_INVALID_PARAMETER;
	st = pages_below_4g(IOMMU_POOL_BYTES, &d->pool_mem);
	if (EFI_ERROR(st))
		return st;
	st = uefi_call_wrapper(BS->AllocatePool, 3, EfiBootServicesData, d->pool_meta_len,
			       &d->pool_meta);
	if (EFI_ERROR(st))
		return st;
	/* From-device slots are zeroed: the host never sees what a buffer held. */
	err = sluice_dma_layer_init(&d->dl, &ops, 1, SLUICE_DMA_SCRUB_ZERO);
	if (!err)
		err = sluice_dma_bounce_pool_add(&d->dl, policy, (void *)(UINTN)d->pool_mem,
						 IOMMU_POOL_BYTES, d->pool_meta, d->pool_meta_len);
	if (err) {
		/* A pool that was not added stays private: give its pages back. */
		pages_free(&d->pool_mem, IOMMU_POOL_BYTES);
		return status_of(err);
	}
	return EFI_SUCCESS;
}

static void free_all(struct iommu_driver *d)
{
	pages_free(&d->pool_mem, IOMMU_POOL_BYTES);
	pages_free(&d->arena_alloc, IOMMU_ARENA_BYTES + TWO_MB);
	pool_free(&d->pool_meta);
	pool_free(&d->arena_meta);
}

EFI_STATUS iommu_setup(struct iommu_driver *d, enum sluice_dma_bounce_policy policy,
		       bool arena_buffers)
{
	EFI_STATUS st;

	if ((unsigned int)policy >= SLUICE_DMA_POLICY_COUNT ||
	    !sluice_dma_bounce_policy_available(policy))
		return EFI_INVALID_PARAMETER;
	st = layer_setup(d, policy);
	if (EFI_ERROR(st)) {
		free_all(d);
		return st;
	}
	st = arena_setup(d);
	if (EFI_ERROR(st)) {
		/* The pool was converted: it goes back through the layer. */
		if (sluice_dma_layer_destroy(&d->dl))
			d->pool_mem = 0; /* leaked, maybe still shared: never freed */
		free_all(d);
		return st;
	}
	st = edk2_iommu_init(&d->io, &d->dl, d->maps, IOMMU_MAX_MAPS, d->bufs, IOMMU_MAX_BUFS);
	if (EFI_ERROR(st))
		return st;
	edk2_iommu_set_arena(&d->io, &d->arena, arena_buffers);
	d->policy = policy;
	d->arena_buffers = arena_buffers;
	/* The counters restart, but for what the root bridge handed out before we
	 * were installed: that comes back once, usually before a configure. */
	d->st = (struct sluice_iommu_stats){ .foreign_unmaps = d->st.foreign_unmaps,
					     .foreign_frees = d->st.foreign_frees };
	d->ready = true;
	return EFI_SUCCESS;
}

EFI_STATUS iommu_teardown(struct iommu_driver *d)
{
	unsigned int maps, bufs;
	bool leaked = false;

	edk2_iommu_live(&d->io, &maps, &bufs);
	if (maps || bufs)
		return EFI_ACCESS_DENIED;
	sluice_dma_arena_reclaim(&d->arena, 0);
	if (sluice_dma_arena_destroy(&d->arena)) {
		d->arena_alloc = 0; /* a chunk may still be shared: never reuse */
		leaked = true;
	}
	if (sluice_dma_layer_destroy(&d->dl)) {
		d->pool_mem = 0;
		leaked = true;
	}
	free_all(d);
	d->ready = false;
	return leaked ? EFI_DEVICE_ERROR : EFI_SUCCESS;
}

void iommu_stats(struct iommu_driver *d, struct sluice_iommu_stats *out)
{
	struct sluice_dma_bounce_stats bs;
	unsigned int maps = 0, bufs = 0;

	*out = d->st;
	out->policy = d->policy;
	out->arena_buffers = d->arena_buffers;
	if (d->ready) {
		edk2_iommu_live(&d->io, &maps, &bufs);
		if (!sluice_dma_bounce_stats_get(&d->dl, -1, &bs)) {
			out->bytes_to_device = bs.bytes_to_device;
			out->bytes_from_device = bs.bytes_from_device;
		}
		out->bytes_to_device += d->io.long_bytes_to_device;
		out->bytes_from_device += d->io.long_bytes_from_device;
		out->long_maps = d->io.long_maps;
	}
	out->live_maps = maps;
	out->live_bufs = bufs;
	out->pages_shared = d->port.pages_shared;
	out->conversions = d->port.to_shared + d->port.to_private;
	out->conversions_refused = d->port.refused;
}
