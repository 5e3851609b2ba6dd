/* SPDX-License-Identifier: MIT */
/*
 * edk2_iommu.h - an EDKII_IOMMU_PROTOCOL-shaped adapter over the Sluice DMA
 * library: Map / Unmap / AllocateBuffer / FreeBuffer / SetAttribute with
 * EDK2's status semantics, plus the ExitBootServices teardown OVMF performs.
 *
 * The semantics follow the protocol header and OVMF's implementation for
 * confidential guests, both in tianocore/edk2:
 *   MdeModulePkg/Include/Protocol/IoMmu.h   (the contract and status codes)
 *   OvmfPkg/IoMmuDxe/CcIoMmu.c              (IoMmuMap, IoMmuUnmapWorker,
 *                                            IoMmuAllocateBuffer, IoMmuFreeBuffer,
 *                                            IoMmuSetAttribute, IoMmuUnmapAllMappings)
 * What differs from OVMF, and why: OVMF allocates a bounce buffer per Map()
 * and converts it page by page; here the bounce pools were converted once and
 * Map() takes slots. OVMF's AllocateBuffer returns private memory that Map()
 * decrypts in place for a CommonBuffer operation; here AllocateBuffer returns
 * memory that is shared already (coherent memory of the library), and a
 * CommonBuffer Map() of it is the identity. OVMF's SetAttribute always
 * returns EFI_UNSUPPORTED (no IOMMU); here it narrows the device's access
 * through the port's set_access op when there is one.
 *
 * In real firmware the UEFI types come from the firmware's headers (<Uefi.h>,
 * or GNU-EFI's <efi.h>: define EDK2_IOMMU_FIRMWARE_TYPES and include that
 * first); without it this header carries the few it needs (values from the
 * UEFI specification) so that the adapter builds and is tested on a host.
 * The DXE driver of firmware/iommu/iommu_driver.c wraps these functions in
 * EFIAPI thunks and installs the protocol.
 *
 * Mappings longer than the bounce pools' longest run (256 KiB with the linux,
 * bitmap and lifo policies) bounce through a block of the arena when one is
 * set (edk2_iommu_set_arena()): OVMF's own virtio drivers map a whole request
 * at once and fail when Map() returns fewer bytes
 * (OvmfPkg/Library/VirtioLib/VirtioLib.c, VirtioMapAllBytesInSharedBuffer()),
 * and OVMF's IoMmuDxe bounces any length (one allocation per Map()). Without an
 * arena such a Map() returns the bytes one mapping holds, as IoMmu.h allows.
 *
 * The adapter allocates nothing: the caller gives it tables for mappings
 * and buffers (as the library takes its metadata), and a Mapping handle is
 * a pointer into that table, validated before use - a bad handle is
 * EFI_INVALID_PARAMETER, never a crash.
 *
 * Locking: EDK2 calls the protocol at TPL_NOTIFY or below on one CPU; the
 * tables are not locked. Raise the TPL around the calls (as drivers do) if
 * they can nest.
 */
#ifndef EDK2_IOMMU_H
#define EDK2_IOMMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sluice/dma.h>

#include <sluice/arena.h>

#ifndef EDK2_IOMMU_FIRMWARE_TYPES
/* ---- the UEFI definitions this adapter needs (values from the spec) ---- */
typedef uint64_t EFI_STATUS;
typedef uint64_t EFI_PHYSICAL_ADDRESS;
typedef uintptr_t UINTN;
typedef void *EFI_HANDLE;

#define EDK2_EFI_ERROR_BIT ((EFI_STATUS)1 << 63)
#define EFI_SUCCESS ((EFI_STATUS)0)
#define EFI_INVALID_PARAMETER (EDK2_EFI_ERROR_BIT | 2)
#define EFI_UNSUPPORTED (EDK2_EFI_ERROR_BIT | 3)
#define EFI_DEVICE_ERROR (EDK2_EFI_ERROR_BIT | 7)
#define EFI_OUT_OF_RESOURCES (EDK2_EFI_ERROR_BIT | 9)
#define EFI_ERROR(s) (((s)&EDK2_EFI_ERROR_BIT) != 0)

#define EFI_PAGE_SIZE 4096u

/* EFI_MEMORY_TYPE values AllocateBuffer accepts (OVMF accepts no others). */
#define EfiBootServicesData 4
#define EfiRuntimeServicesData 6
#endif /* EDK2_IOMMU_FIRMWARE_TYPES */

/* ---- the EDK2 definitions (MdeModulePkg/Include/Protocol/IoMmu.h) ---- */

typedef enum {
	EdkiiIoMmuOperationBusMasterRead,
	EdkiiIoMmuOperationBusMasterWrite,
	EdkiiIoMmuOperationBusMasterCommonBuffer,
	EdkiiIoMmuOperationBusMasterRead64,
	EdkiiIoMmuOperationBusMasterWrite64,
	EdkiiIoMmuOperationBusMasterCommonBuffer64,
	EdkiiIoMmuOperationMaximum
} EDKII_IOMMU_OPERATION;

#define EDKII_IOMMU_ACCESS_READ 0x1
#define EDKII_IOMMU_ACCESS_WRITE 0x2

#define EDKII_IOMMU_ATTRIBUTE_MEMORY_WRITE_COMBINE 0x0080
#define EDKII_IOMMU_ATTRIBUTE_MEMORY_CACHED 0x0800
#define EDKII_IOMMU_ATTRIBUTE_DUAL_ADDRESS_CYCLE 0x8000
#define EDKII_IOMMU_ATTRIBUTE_VALID_FOR_ALLOCATE_BUFFER                                     \
	(EDKII_IOMMU_ATTRIBUTE_MEMORY_WRITE_COMBINE | EDKII_IOMMU_ATTRIBUTE_MEMORY_CACHED | \
	 EDKII_IOMMU_ATTRIBUTE_DUAL_ADDRESS_CYCLE)

/* ---- the adapter ---- */

/**
 * struct edk2_iommu_map - one Map() (the Mapping handle points at one).
 * @live: in use.
 * @op: the operation.
 * @host: HostAddress.
 * @bytes: bytes mapped (NumberOfBytes on output).
 * @dev: DeviceAddress.
 * @dir: the library direction (Read: to device, Write: from device).
 * @block: the arena block a long mapping bounces through, else NULL.
 */
struct edk2_iommu_map {
	bool live;
	EDKII_IOMMU_OPERATION op;
	void *host;
	UINTN bytes;
	EFI_PHYSICAL_ADDRESS dev;
	enum sluice_dma_dir dir;
	void *block;
};

/**
 * struct edk2_iommu_buf - one AllocateBuffer().
 * @live: in use.
 * @host: HostAddress returned.
 * @pages: its size in pages.
 * @dev: its device address.
 * @from_arena: an arena block (else coherent memory of the layer).
 */
struct edk2_iommu_buf {
	bool live;
	void *host;
	UINTN pages;
	EFI_PHYSICAL_ADDRESS dev;
	bool from_arena;
};

/**
 * struct edk2_iommu - one protocol instance.
 * @dl: the DMA layer (pools added, port set up).
 * @maps: table of mappings, @nmaps entries, zeroed.
 * @bufs: table of buffers, @nbufs entries, zeroed.
 * @arena: the arena for long mappings (and buffers), or NULL.
 * @buffers_from_arena: AllocateBuffer takes arena blocks, not layer memory.
 * @long_maps: mappings that bounced through the arena.
 * @long_bytes_to_device: bytes copied into arena blocks at Map.
 * @long_bytes_from_device: bytes copied back from them at Unmap.
 */
struct edk2_iommu {
	struct sluice_dma_layer *dl;
	struct edk2_iommu_map *maps;
	unsigned int nmaps;
	struct edk2_iommu_buf *bufs;
	unsigned int nbufs;
	struct sluice_dma_arena *arena;
	bool buffers_from_arena;
	uint64_t long_maps;
	uint64_t long_bytes_to_device;
	uint64_t long_bytes_from_device;
};

/**
 * edk2_iommu_init() - set up an instance on a layer and caller tables.
 * @io: the instance.
 * @dl: an initialised layer with its pools.
 * @maps: zeroed storage for @nmaps concurrent mappings.
 * @nmaps: its entries.
 * @bufs: zeroed storage for @nbufs concurrent buffers.
 * @nbufs: its entries.
 * Return: EFI_SUCCESS or EFI_INVALID_PARAMETER.
 */
EFI_STATUS edk2_iommu_init(struct edk2_iommu *io, struct sluice_dma_layer *dl,
			   struct edk2_iommu_map *maps, unsigned int nmaps,
			   struct edk2_iommu_buf *bufs, unsigned int nbufs);

/**
 * edk2_iommu_set_arena() - give the instance an arena (before any call).
 * @io: the instance.
 * @arena: an initialised arena whose blocks the device can reach, or NULL.
 * @buffers: true: AllocateBuffer takes arena blocks (power-of-two sizes up to
 *	2 MB, shared a chunk at a time) instead of the layer's coherent memory.
 * Mappings longer than sluice_dma_max_mapping_size() bounce through arena
 * blocks whenever @arena is set.
 */
void edk2_iommu_set_arena(struct edk2_iommu *io, struct sluice_dma_arena *arena, bool buffers);

/**
 * edk2_iommu_live() - mappings and buffers still live.
 * @io: the instance.
 * @maps: out, live mappings (NULL: not wanted).
 * @bufs: out, live buffers (NULL: not wanted).
 */
void edk2_iommu_live(const struct edk2_iommu *io, unsigned int *maps, unsigned int *bufs);

/**
 * edk2_iommu_owns() - whether [@host, @host + @len) overlaps memory the instance
 *	hands out (a live buffer, the layer's pools or the arena's region).
 * @io: the instance.
 * @host: an address.
 * @len: bytes.
 * Return: true if it does (a FreeBuffer of it is the instance's to judge).
 */
bool edk2_iommu_owns(const struct edk2_iommu *io, const void *host, size_t len);

/**
 * edk2_iommu_map() - EDKII_IOMMU_MAP.
 * @io: the instance.
 * @op: the operation. BusMasterRead[64]: the device reads HostAddress
 *	(bounced, copied in, read-only for the device where the port can say
 *	so). BusMasterWrite[64]: the device writes it (copied back at Unmap).
 *	CommonBuffer[64]: HostAddress must come from AllocateBuffer (else
 *	EFI_UNSUPPORTED, as the protocol says); it is mapped as it is.
 *	The operations without 64 keep the device address below 4 GiB.
 *	A mapping longer than the pools' longest run bounces through an arena
 *	block when the instance has an arena (edk2_iommu_set_arena()).
 * @host: HostAddress.
 * @bytes: NumberOfBytes: in, bytes to map; out, bytes mapped (fewer when one
 *	mapping cannot hold them all; 0 on failure, as OVMF).
 * @dev: DeviceAddress, out.
 * @mapping: Mapping, out: the handle for Unmap and SetAttribute.
 * Return: EFI_SUCCESS; EFI_INVALID_PARAMETER (a NULL argument, zero bytes,
 * an invalid operation); EFI_UNSUPPORTED (a CommonBuffer not from
 * AllocateBuffer, or above 4 GiB for the 32-bit operation);
 * EFI_OUT_OF_RESOURCES (no slots, no pool below the limit, the table full);
 * EFI_DEVICE_ERROR (the port failed to protect a read-only mapping).
 */
EFI_STATUS edk2_iommu_map(struct edk2_iommu *io, EDKII_IOMMU_OPERATION op, void *host, UINTN *bytes,
			  EFI_PHYSICAL_ADDRESS *dev, void **mapping);

/**
 * edk2_iommu_unmap() - EDKII_IOMMU_UNMAP: end a mapping; a Write's data is
 *	copied back to HostAddress first.
 * @io: the instance.
 * @mapping: a handle from edk2_iommu_map().
 * Return: EFI_SUCCESS; EFI_INVALID_PARAMETER for anything that is not a live
 * handle (NULL, unmapped already, a pointer from elsewhere).
 */
EFI_STATUS edk2_iommu_unmap(struct edk2_iommu *io, void *mapping);

/**
 * edk2_iommu_allocate_buffer() - EDKII_IOMMU_ALLOCATE_BUFFER: pages for a
 *	CommonBuffer mapping, zeroed and shared.
 * @io: the instance.
 * @type: EFI_ALLOCATE_TYPE, ignored (the protocol says so).
 * @memory_type: EfiBootServicesData or EfiRuntimeServicesData.
 *	Memory comes from the layer (coherent memory: its pools' runs, longer
 *	from the in-place region), or from the arena (edk2_iommu_set_arena()).
 * @pages: pages to allocate (>= 1).
 * @host: HostAddress, out.
 * @attributes: EDKII_IOMMU_ATTRIBUTE_* bits; without DUAL_ADDRESS_CYCLE the
 *	memory lies below 4 GiB.
 * Return: EFI_SUCCESS; EFI_UNSUPPORTED for an attribute bit outside the valid
 * set; EFI_INVALID_PARAMETER for a NULL @host, zero @pages or another memory
 * type; EFI_OUT_OF_RESOURCES when there is no room (or the table is full).
 */
EFI_STATUS edk2_iommu_allocate_buffer(struct edk2_iommu *io, int type, int memory_type, UINTN pages,
				      void **host, uint64_t attributes);

/**
 * edk2_iommu_free_buffer() - EDKII_IOMMU_FREE_BUFFER.
 * @io: the instance.
 * @pages: the page count given to AllocateBuffer.
 * @host: the HostAddress it returned.
 * Return: EFI_SUCCESS; EFI_INVALID_PARAMETER when [@host, @pages) is not a
 * live AllocateBuffer() range, or a CommonBuffer mapping of it is still live.
 */
EFI_STATUS edk2_iommu_free_buffer(struct edk2_iommu *io, UINTN pages, void *host);

/**
 * edk2_iommu_set_attribute() - EDKII_IOMMU_SET_ATTRIBUTE.
 * @io: the instance.
 * @device: DeviceHandle (must not be NULL; the adapter serves one IOMMU domain).
 * @mapping: a handle from edk2_iommu_map().
 * @access: EDKII_IOMMU_ACCESS_* bits, 0 to revoke (what PciIo does after use).
 * Return: EFI_SUCCESS; EFI_INVALID_PARAMETER for a NULL @device, a bad handle,
 * undefined bits, or more access than the operation allows (WRITE on a
 * BusMasterRead); EFI_UNSUPPORTED when the port cannot restrict access (as
 * OVMF always answers) or the range is not the mapping's own pages;
 * EFI_DEVICE_ERROR when the port failed.
 */
EFI_STATUS edk2_iommu_set_attribute(struct edk2_iommu *io, EFI_HANDLE device, void *mapping,
				    uint64_t access);

/**
 * edk2_iommu_exit_boot() - what OVMF's IoMmuUnmapAllMappings() does at
 *	ExitBootServices, once every driver has halted its device: end every
 *	live mapping (copying a Write's data back) without touching the
 *	memory map or converting anything (arena blocks of long mappings go
 *	back to the arena's free lists, no conversion). Buffers from
 *	AllocateBuffer stay allocated and shared.
 * @io: the instance.
 * Return: the number of mappings ended.
 */
unsigned long edk2_iommu_exit_boot(struct edk2_iommu *io);

/* The library's error as an EFI_STATUS (for the adapter and its tests). */
EFI_STATUS edk2_iommu_status(int sluice_err);

#endif /* EDK2_IOMMU_H */
