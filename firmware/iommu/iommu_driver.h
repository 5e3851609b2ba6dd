/* SPDX-License-Identifier: MIT */
/*
 * iommu_driver.h - the sluice-iommu UEFI driver's state, shared by its entry and
 * lifetime code (iommu_driver.c), the layer set-up (iommu_setup.c) and the
 * protocol's EFIAPI thunks (iommu_thunks.c). Includes GNU-EFI: firmware/ is,
 * with boot/, the only floor that does.
 */
#ifndef SLUICE_FIRMWARE_IOMMU_DRIVER_H
#define SLUICE_FIRMWARE_IOMMU_DRIVER_H

#include <efi.h>
#include <efilib.h>

#define EDK2_IOMMU_FIRMWARE_TYPES
#include "firmware/iommu/edk2_iommu.h"
#include "firmware/iommu/iommu_port.h"
#include "firmware/iommu/sluice_iommu.h"

#include <sluice/arena.h>
#include <sluice/dma.h>

/* EDKII_IOMMU_PROTOCOL (tianocore/edk2 MdeModulePkg/Include/Protocol/IoMmu.h). */
#define EDKII_IOMMU_PROTOCOL_GUID                                      \
	{                                                              \
		0x4e939de9, 0xd948, 0x4b0f,                            \
		{                                                      \
			0x88, 0xed, 0xe6, 0xe1, 0xce, 0x51, 0x7c, 0x1e \
		}                                                      \
	}
#define EDKII_IOMMU_PROTOCOL_REVISION 0x00010000u

struct edkii_iommu_protocol;
/* The five functions, in the protocol's order (IoMmu.h, struct _EDKII_IOMMU_PROTOCOL). */
struct edkii_iommu_protocol {
	UINT64 Revision;
	EFI_STATUS(EFIAPI *SetAttribute)
	(struct edkii_iommu_protocol *This, EFI_HANDLE DeviceHandle, VOID *Mapping,
	 UINT64 IoMmuAccess);
	EFI_STATUS(EFIAPI *Map)
	(struct edkii_iommu_protocol *This, EDKII_IOMMU_OPERATION Operation, VOID *HostAddress,
	 UINTN *NumberOfBytes, EFI_PHYSICAL_ADDRESS *DeviceAddress, VOID **Mapping);
	EFI_STATUS(EFIAPI *Unmap)(struct edkii_iommu_protocol *This, VOID *Mapping);
	EFI_STATUS(EFIAPI *AllocateBuffer)
	(struct edkii_iommu_protocol *This, EFI_ALLOCATE_TYPE Type, EFI_MEMORY_TYPE MemoryType,
	 UINTN Pages, VOID **HostAddress, UINT64 Attributes);
	EFI_STATUS(EFIAPI *FreeBuffer)
	(struct edkii_iommu_protocol *This, UINTN Pages, VOID *HostAddress);
};

/* Concurrent mappings and buffers the adapter's tables hold. */
#define IOMMU_MAX_MAPS 256
#define IOMMU_MAX_BUFS 64
/* The bounce pool and the arena (two 2 MB chunks), both below 4 GiB. */
#define IOMMU_POOL_BYTES (2u << 20)
#define IOMMU_ARENA_BYTES (4u << 20)

/**
 * struct iommu_driver - the one instance.
 * @protocol: the EDKII_IOMMU_PROTOCOL interface installed.
 * @control: the control protocol installed beside it.
 * @handle: the handle both are on.
 * @image: our image handle.
 * @exit_boot_event: EVT_SIGNAL_EXIT_BOOT_SERVICES, signals @unmap_all_event.
 * @unmap_all_event: the late teardown (see iommu_driver.c).
 * @port: the emulated platform.
 * @dl: the layer (one pool of @policy).
 * @arena: the arena (long mappings, and buffers with @arena_buffers).
 * @io: the adapter.
 * @maps: its mapping table.
 * @bufs: its buffer table.
 * @ready: @dl, @arena and @io are set up.
 * @policy: the pool's policy.
 * @arena_buffers: AllocateBuffer takes arena blocks.
 * @pool_mem: pages of the pool.
 * @arena_alloc: pages allocated for the arena (2 MB more than it, to align).
 * @pool_meta: the pool's metadata (pool memory of the firmware: private).
 * @pool_meta_len: its size.
 * @arena_meta: the arena's metadata.
 * @st: the driver's counters (the library's are added by iommu_stats()).
 */
struct iommu_driver {
	struct edkii_iommu_protocol protocol;
	struct sluice_iommu_control control;
	EFI_HANDLE handle;
	EFI_HANDLE image;
	EFI_EVENT exit_boot_event;
	EFI_EVENT unmap_all_event;
	struct iommu_port port;
	struct sluice_dma_layer dl;
	struct sluice_dma_arena arena;
	struct edk2_iommu io;
	struct edk2_iommu_map maps[IOMMU_MAX_MAPS];
	struct edk2_iommu_buf bufs[IOMMU_MAX_BUFS];
	bool ready;
	enum sluice_dma_bounce_policy policy;
	bool arena_buffers;
	EFI_PHYSICAL_ADDRESS pool_mem;
	EFI_PHYSICAL_ADDRESS arena_alloc;
	void *pool_meta;
	size_t pool_meta_len;
	void *arena_meta;
	struct sluice_iommu_stats st;
};

extern struct iommu_driver iommu;

/**
 * iommu_setup() - allocate, convert and initialise the pool, the arena, the
 *	layer and the adapter for @policy.
 * @d: the driver (not ready).
 * @policy: the pool's policy.
 * @arena_buffers: AllocateBuffer from the arena.
 * Return: EFI_SUCCESS (@d ready, counters zeroed) or an error (nothing kept).
 */
EFI_STATUS iommu_setup(struct iommu_driver *d, enum sluice_dma_bounce_policy policy,
		       bool arena_buffers);

/**
 * iommu_teardown() - convert everything back and free it.
 * @d: the driver (ready).
 * Return: EFI_SUCCESS; EFI_ACCESS_DENIED while a mapping or buffer is live
 * (nothing changed); EFI_DEVICE_ERROR when a conversion back failed (the
 * memory is leaked, never freed: it may still be shared).
 */
EFI_STATUS iommu_teardown(struct iommu_driver *d);

/**
 * iommu_stats() - the counters with the library's and the port's figures.
 * @d: the driver.
 * @out: filled. Uses no boot service.
 */
void iommu_stats(struct iommu_driver *d, struct sluice_iommu_stats *out);

/**
 * iommu_protocol_init() - fill @d->protocol with the EFIAPI thunks.
 * @d: the driver.
 */
void iommu_protocol_init(struct iommu_driver *d);

#endif /* SLUICE_FIRMWARE_IOMMU_DRIVER_H */
