/* SPDX-License-Identifier: MIT */
/*
 * edk2_iommu.c - the EDKII_IOMMU_PROTOCOL-shaped adapter (see edk2_iommu.h for
 * the sources of each rule: tianocore/edk2 MdeModulePkg/Include/Protocol/IoMmu.h
 * and OvmfPkg/IoMmuDxe/CcIoMmu.c).
 */
#include "edk2_iommu.h"

#include <string.h>

#define BELOW_4G (((uint64_t)1 << 32) - 1)

EFI_STATUS edk2_iommu_status(int err)
{
	switch (err) {
	case 0:
		return EFI_SUCCESS;
	case SLUICE_DMA_ERR_NOMEM:
	case SLUICE_DMA_ERR_RANGE:
		/* No room, or nothing the device can reach: a lack of resources. */
		return EFI_OUT_OF_RESOURCES;
	case SLUICE_DMA_ERR_NOSYS:
	case SLUICE_DMA_ERR_PERM:
		return EFI_UNSUPPORTED;
	case SLUICE_DMA_ERR_IO:
	case SLUICE_DMA_ERR_FAULT:
		return EFI_DEVICE_ERROR;
	default:
		/* INVAL, NOENT, BUSY: the caller's argument was wrong. */
		return EFI_INVALID_PARAMETER;
	}
}

EFI_STATUS edk2_iommu_init(struct edk2_iommu *io, struct sluice_dma_layer *dl,
			   struct edk2_iommu_map *maps, unsigned int nmaps,
			   struct edk2_iommu_buf *bufs, unsigned int nbufs)
{
	if (!io || !dl || !maps || !nmaps || !bufs || !nbufs)
		return EFI_INVALID_PARAMETER;
	io->dl = dl;
	io->maps = maps;
	io->nmaps = nmaps;
	io->bufs = bufs;
	io->nbufs = nbufs;
	io->arena = NULL;
	io->buffers_from_arena = false;
	io->long_maps = 0;
	io->long_bytes_to_device = 0;
	io->long_bytes_from_device = 0;
	return EFI_SUCCESS;
}

void edk2_iommu_set_arena(struct edk2_iommu *io, struct sluice_dma_arena *arena, bool buffers)
{
	io->arena = arena;
	io->buffers_from_arena = arena && buffers;
}

void edk2_iommu_live(const struct edk2_iommu *io, unsigned int *maps, unsigned int *bufs)
{
	unsigned int nm = 0, nb = 0;

	for (unsigned int i = 0; i < io->nmaps; i++)
		nm += io->maps[i].live;
	for (unsigned int i = 0; i < io->nbufs; i++)
		nb += io->bufs[i].live;
	if (maps)
		*maps = nm;
	if (bufs)
		*bufs = nb;
}

bool edk2_iommu_owns(const struct edk2_iommu *io, const void *host, size_t len)
{
	uintptr_t p = (uintptr_t)host;

	for (unsigned int i = 0; i < io->nbufs; i++) {
		uintptr_t b = (uintptr_t)io->bufs[i].host;

		if (io->bufs[i].live && p < b + io->bufs[i].pages * EFI_PAGE_SIZE && b < p + len)
			return true;
	}
	/* Identity ports: the pools' CPU addresses are their device addresses. */
	if (sluice_dma_addr_is_shared(io->dl, (uint64_t)p, len))
		return true;
	return io->arena && sluice_dma_arena_owns(io->arena, host, len);
}

/* The device may only reach the low 4 GiB for the operations without "64". */
static struct sluice_dma_tag op_tag(bool dac)
{
	struct sluice_dma_tag t = SLUICE_DMA_TAG_DEFAULT;

	if (!dac)
		t.addr_limit = BELOW_4G;
	return t;
}

/* A Mapping handle is valid only if it points at a live entry of our table. */
static struct edk2_iommu_map *map_of(struct edk2_iommu *io, void *mapping)
{
	uintptr_t p = (uintptr_t)mapping, base = (uintptr_t)io->maps;

	if (!mapping || p < base || p >= base + io->nmaps * sizeof(*io->maps) ||
	    (p - base) % sizeof(*io->maps))
		return NULL;
	return io->maps[(p - base) / sizeof(*io->maps)].live ?
		       &io->maps[(p - base) / sizeof(*io->maps)] :
		       NULL;
}

static struct edk2_iommu_buf *buf_of(struct edk2_iommu *io, const void *host)
{
	for (unsigned int i = 0; i < io->nbufs; i++)
		if (io->bufs[i].live && io->bufs[i].host == host)
			return &io->bufs[i];
	return NULL;
}

/* An arena block is in reach of the device when it ends below the tag's limit. */
static bool block_in_reach(const struct sluice_dma_tag *t, uint64_t dev, size_t len)
{
	return dev <= t->addr_limit && len - 1 <= t->addr_limit - dev;
}

/*
 * A mapping longer than one bounce mapping can hold, through an arena block
 * (shared already; zeroed when it was freed, so a from-device block shows the
 * device no private byte). The copies are bounded by the length recorded here.
 */
static int map_long(struct edk2_iommu *io, struct edk2_iommu_map *m,
		    const struct sluice_dma_tag *tag, size_t len)
{
	void *block = sluice_dma_arena_alloc(io->arena, len);
	uint64_t dev;

	if (!block)
		return SLUICE_DMA_ERR_NOMEM;
	dev = sluice_dma_arena_dma_addr(io->arena, block);
	if (!block_in_reach(tag, dev, len)) {
		sluice_dma_arena_free(io->arena, block);
		return SLUICE_DMA_ERR_RANGE;
	}
	if (m->dir == SLUICE_DMA_TO_DEVICE) {
		memcpy(block, m->host, len);
		io->long_bytes_to_device += len;
	}
	m->block = block;
	m->dev = dev;
	m->bytes = len;
	io->long_maps++;
	return 0;
}

/* BusMasterRead / Write (and their 64-bit twins): bounce. */
static int map_streaming(struct edk2_iommu *io, struct edk2_iommu_map *m, EDKII_IOMMU_OPERATION op,
			 void *host, size_t len)
{
	struct sluice_dma_tag tag = op_tag(op >= EdkiiIoMmuOperationBusMasterRead64);
	unsigned int attrs;
	int err;

	m->dir = op == EdkiiIoMmuOperationBusMasterRead ||
				 op == EdkiiIoMmuOperationBusMasterRead64 ?
			 SLUICE_DMA_TO_DEVICE :
			 SLUICE_DMA_FROM_DEVICE;
	m->host = host;
	m->block = NULL;
	if (io->arena && len > sluice_dma_max_mapping_size(io->dl, &tag)) {
		err = map_long(io, m, &tag, len);
	} else {
		/*
		 * NumberOfBytes is in/out: map what one mapping holds. Own pages,
		 * so that SetAttribute can change this mapping alone; read-only
		 * for a BusMasterRead where the port can enforce it.
		 */
		attrs = SLUICE_DMA_ATTR_PARTIAL | SLUICE_DMA_ATTR_OWN_PAGES;
		if (m->dir == SLUICE_DMA_TO_DEVICE)
			attrs |= SLUICE_DMA_ATTR_READONLY;
		err = sluice_dma_map_attrs(io->dl, &tag, host, &len, m->dir, attrs, &m->dev);
		m->bytes = len;
	}
	if (err)
		return err;
	m->live = true;
	m->op = op;
	return 0;
}

/* End a long mapping: a Write's data copied back (what was mapped, no more). */
static int unmap_long(struct edk2_iommu *io, struct edk2_iommu_map *m)
{
	if (m->dir == SLUICE_DMA_FROM_DEVICE) {
		memcpy(m->host, m->block, m->bytes);
		io->long_bytes_from_device += m->bytes;
	}
	return sluice_dma_arena_free(io->arena, m->block);
}

EFI_STATUS edk2_iommu_map(struct edk2_iommu *io, EDKII_IOMMU_OPERATION op, void *host, UINTN *bytes,
			  EFI_PHYSICAL_ADDRESS *dev, void **mapping)
{
	struct edk2_iommu_map *m = NULL;
	struct edk2_iommu_buf *b;
	size_t len;
	int err;

	if (!io || !host || !bytes || !dev || !mapping)
		return EFI_INVALID_PARAMETER;
	/* OVMF reports 0 bytes mapped on every failure path (its Failed: label). */
	len = *bytes;
	*bytes = 0;
	if ((unsigned int)op >= EdkiiIoMmuOperationMaximum || !len)
		return EFI_INVALID_PARAMETER;
	for (unsigned int i = 0; i < io->nmaps && !m; i++)
		if (!io->maps[i].live)
			m = &io->maps[i];
	if (!m)
		return EFI_OUT_OF_RESOURCES;

	switch (op) {
	case EdkiiIoMmuOperationBusMasterCommonBuffer:
	case EdkiiIoMmuOperationBusMasterCommonBuffer64:
		/*
		 * Only memory from AllocateBuffer can be a common buffer (the
		 * protocol's EFI_UNSUPPORTED case); it is shared already, so the
		 * mapping is the identity. As OVMF, a 32-bit common buffer must
		 * lie below 4 GiB: it cannot be remapped.
		 */
		b = buf_of(io, host);
		if (!b || len > b->pages * EFI_PAGE_SIZE)
			return EFI_UNSUPPORTED;
		if (op == EdkiiIoMmuOperationBusMasterCommonBuffer &&
		    (b->dev > BELOW_4G || len - 1 > BELOW_4G - b->dev))
			return EFI_UNSUPPORTED;
		*m = (struct edk2_iommu_map){ .live = true,
					      .op = op,
					      .host = host,
					      .bytes = len,
					      .dev = b->dev,
					      .dir = SLUICE_DMA_BIDIRECTIONAL };
		break;
	default:
		err = map_streaming(io, m, op, host, len);
		if (err)
			return edk2_iommu_status(err);
		break;
	}
	*bytes = m->bytes;
	*dev = m->dev;
	*mapping = m;
	return EFI_SUCCESS;
}

EFI_STATUS edk2_iommu_unmap(struct edk2_iommu *io, void *mapping)
{
	struct edk2_iommu_map *m = io ? map_of(io, mapping) : NULL;
	int err = 0;

	if (!m)
		return EFI_INVALID_PARAMETER;
	/* A common buffer stays where it is; a Write's data is copied back. */
	if (m->block)
		err = unmap_long(io, m);
	else if (m->op != EdkiiIoMmuOperationBusMasterCommonBuffer &&
		 m->op != EdkiiIoMmuOperationBusMasterCommonBuffer64)
		err = sluice_dma_unmap(io->dl, m->dev, m->bytes, m->dir);
	if (err)
		return edk2_iommu_status(err);
	m->live = false;
	return EFI_SUCCESS;
}

/* A zeroed arena block (blocks are scrubbed on free; new chunks are zeroed). */
static int alloc_from_arena(struct edk2_iommu *io, struct edk2_iommu_buf *b,
			    const struct sluice_dma_tag *tag, size_t len)
{
	b->host = sluice_dma_arena_alloc(io->arena, len);
	if (!b->host)
		return SLUICE_DMA_ERR_NOMEM;
	b->dev = sluice_dma_arena_dma_addr(io->arena, b->host);
	if (!block_in_reach(tag, b->dev, len)) {
		sluice_dma_arena_free(io->arena, b->host);
		return SLUICE_DMA_ERR_RANGE;
	}
	return 0;
}

EFI_STATUS edk2_iommu_allocate_buffer(struct edk2_iommu *io, int type, int memory_type, UINTN pages,
				      void **host, uint64_t attributes)
{
	struct edk2_iommu_buf *b = NULL;
	struct sluice_dma_tag tag;
	int err;

	(void)type;
	/* The order of OVMF's checks: attributes first, then the arguments. */
	if (attributes & ~(uint64_t)EDKII_IOMMU_ATTRIBUTE_VALID_FOR_ALLOCATE_BUFFER)
		return EFI_UNSUPPORTED;
	if (!io || !host || !pages ||
	    (memory_type != EfiBootServicesData && memory_type != EfiRuntimeServicesData))
		return EFI_INVALID_PARAMETER;
	if (pages > SIZE_MAX / EFI_PAGE_SIZE)
		return EFI_OUT_OF_RESOURCES;
	for (unsigned int i = 0; i < io->nbufs && !b; i++)
		if (!io->bufs[i].live)
			b = &io->bufs[i];
	if (!b)
		return EFI_OUT_OF_RESOURCES;
	tag = op_tag(attributes & EDKII_IOMMU_ATTRIBUTE_DUAL_ADDRESS_CYCLE);
	if (io->buffers_from_arena)
		err = alloc_from_arena(io, b, &tag, pages * EFI_PAGE_SIZE);
	else
		err = sluice_dma_alloc_attrs(io->dl, &tag, pages * EFI_PAGE_SIZE, 0, &b->host,
					     &b->dev);
	b->from_arena = io->buffers_from_arena;
	if (err)
		return edk2_iommu_status(err) == EFI_INVALID_PARAMETER ? EFI_INVALID_PARAMETER :
									 EFI_OUT_OF_RESOURCES;
	b->pages = pages;
	b->live = true;
	*host = b->host;
	return EFI_SUCCESS;
}

EFI_STATUS edk2_iommu_free_buffer(struct edk2_iommu *io, UINTN pages, void *host)
{
	struct edk2_iommu_buf *b = io ? buf_of(io, host) : NULL;
	int err;

	if (!b || b->pages != pages)
		return EFI_INVALID_PARAMETER;
	/* A device may still use a live common-buffer mapping of it. */
	for (unsigned int i = 0; i < io->nmaps; i++)
		if (io->maps[i].live && io->maps[i].host == host)
			return EFI_INVALID_PARAMETER;
	err = b->from_arena ? sluice_dma_arena_free(io->arena, b->host) :
			      sluice_dma_free_coherent(io->dl, b->host, pages * EFI_PAGE_SIZE);
	if (err)
		return edk2_iommu_status(err);
	b->live = false;
	return EFI_SUCCESS;
}

EFI_STATUS edk2_iommu_set_attribute(struct edk2_iommu *io, EFI_HANDLE device, void *mapping,
				    uint64_t access)
{
	struct edk2_iommu_map *m = io ? map_of(io, mapping) : NULL;
	uint64_t allowed;

	if (!device || !m ||
	    (access & ~(uint64_t)(EDKII_IOMMU_ACCESS_READ | EDKII_IOMMU_ACCESS_WRITE)))
		return EFI_INVALID_PARAMETER;
	/* IoMmu.h: Read needs READ, Write needs WRITE, a common buffer both. */
	allowed = m->dir == SLUICE_DMA_TO_DEVICE   ? EDKII_IOMMU_ACCESS_READ :
		  m->dir == SLUICE_DMA_FROM_DEVICE ? EDKII_IOMMU_ACCESS_WRITE :
						     EDKII_IOMMU_ACCESS_READ |
							     EDKII_IOMMU_ACCESS_WRITE;
	if (access & ~allowed)
		return EFI_INVALID_PARAMETER;
	/* The values are the library's (SLUICE_DMA_ACCESS_* are EDK2's bits). */
	return edk2_iommu_status(sluice_dma_set_access(io->dl, m->dev, (unsigned int)access));
}

unsigned long edk2_iommu_exit_boot(struct edk2_iommu *io)
{
	unsigned long n = 0;

	if (!io)
		return 0;
	/*
	 * The streaming mappings all at once, with the library's teardown
	 * (from-device data copied back, nothing converted: the memory map is
	 * locked); then the long ones and the common buffers, counted too.
	 */
	if (sluice_dma_unmap_all(io->dl, 0, &n))
		return 0;
	for (unsigned int i = 0; i < io->nmaps; i++) {
		struct edk2_iommu_map *m = &io->maps[i];

		if (!m->live)
			continue;
		/* Long mappings copy back here; common buffers are only forgotten. */
		if (m->block)
			unmap_long(io, m);
		if (m->block || m->dir == SLUICE_DMA_BIDIRECTIONAL)
			n++;
		m->live = false;
	}
	return n;
}
