/* SPDX-License-Identifier: MIT */
/*
 * sluice_iommu.h - the sluice-iommu driver's own control protocol, beside the
 * EDKII_IOMMU_PROTOCOL it installs: choose the bounce policy and where
 * AllocateBuffer's memory comes from, and read the driver's statistics (also
 * after ExitBootServices: get_stats only reads memory). Its users: the e2e
 * test's UEFI application (tests/firmware/iommu_app.c), and anyone who wants
 * the figures from a UEFI shell tool.
 *
 * Plain C with the UEFI calling convention spelled out, so that the header
 * needs no firmware headers.
 */
#ifndef SLUICE_FIRMWARE_SLUICE_IOMMU_H
#define SLUICE_FIRMWARE_SLUICE_IOMMU_H

#include <stdint.h>

/* {5f0b8c31-6a2e-4d57-9c1e-3b7a92d4e815}: ours, random. */
#define SLUICE_IOMMU_CONTROL_GUID                                      \
	{                                                              \
		0x5f0b8c31, 0x6a2e, 0x4d57,                            \
		{                                                      \
			0x9c, 0x1e, 0x3b, 0x7a, 0x92, 0xd4, 0xe8, 0x15 \
		}                                                      \
	}
#define SLUICE_IOMMU_CONTROL_REVISION 0x00010000u

#define SLUICE_IOMMU_EFIAPI __attribute__((ms_abi))

/**
 * struct sluice_iommu_stats - the driver's counters since the last configure
 *	(@foreign_unmaps, @foreign_frees, @conversions and @conversions_refused:
 *	since the driver started).
 * @policy: the bounce policy (enum sluice_dma_bounce_policy).
 * @arena_buffers: AllocateBuffer takes arena blocks.
 * @maps: successful Map() calls (all operations).
 * @map_failed: failed Map() calls.
 * @common_maps: of @maps, CommonBuffer operations (no bounce).
 * @long_maps: of @maps, longer than a pool run: bounced through an arena block.
 * @unmaps: successful Unmap() calls of our mappings.
 * @unmap_invalid: Unmap() calls refused (not a live mapping of ours).
 * @foreign_unmaps: Unmap() of the root bridge's own "no mapping" handle, made
 *	before the protocol was installed (PciRootBridgeIo.c's NO_MAPPING).
 * @allocs: successful AllocateBuffer() calls.
 * @alloc_failed: failed ones.
 * @frees: successful FreeBuffer() calls of our buffers.
 * @free_invalid: FreeBuffer() calls refused.
 * @foreign_frees: FreeBuffer() of pages the root bridge allocated before the
 *	protocol was installed, given back to the firmware as it would have.
 * @bytes_to_device: bytes bounced into shared memory at Map.
 * @bytes_from_device: bytes bounced back at Unmap.
 * @unshared_handouts: device addresses handed out that were not in shared
 *	memory (must stay 0).
 * @live_maps: mappings live now.
 * @live_bufs: buffers live now.
 * @pages_shared: pages of the emulated platform shared now.
 * @conversions: conversions (both ways) since the driver started.
 * @conversions_refused: conversions the emulated platform refused.
 * @exit_boot: ExitBootServices has run the teardown.
 * @exit_boot_unmapped: mappings it ended.
 * @live_after_exit_boot: mappings live after it (must be 0).
 */
struct sluice_iommu_stats {
	uint64_t policy;
	uint64_t arena_buffers;
	uint64_t maps;
	uint64_t map_failed;
	uint64_t common_maps;
	uint64_t long_maps;
	uint64_t unmaps;
	uint64_t unmap_invalid;
	uint64_t foreign_unmaps;
	uint64_t allocs;
	uint64_t alloc_failed;
	uint64_t frees;
	uint64_t free_invalid;
	uint64_t foreign_frees;
	uint64_t bytes_to_device;
	uint64_t bytes_from_device;
	uint64_t unshared_handouts;
	uint64_t live_maps;
	uint64_t live_bufs;
	uint64_t pages_shared;
	uint64_t conversions;
	uint64_t conversions_refused;
	uint64_t exit_boot;
	uint64_t exit_boot_unmapped;
	uint64_t live_after_exit_boot;
};

struct sluice_iommu_control;

/**
 * struct sluice_iommu_control - the control protocol.
 * @revision: SLUICE_IOMMU_CONTROL_REVISION.
 * @configure: tear the layer down and build it again with @policy (enum
 *	sluice_dma_bounce_policy) and, with @arena_buffers, AllocateBuffer from
 *	the arena; counters restart (see &struct sluice_iommu_stats). Returns
 *	EFI_SUCCESS, EFI_ACCESS_DENIED while anything is mapped or allocated
 *	(disconnect the devices first),
 *	EFI_INVALID_PARAMETER for an unknown policy, EFI_OUT_OF_RESOURCES.
 * @get_stats: copy the counters (no boot service used: valid after
 *	ExitBootServices too).
 * @print_stats: print them on the console (boot services only).
 */
struct sluice_iommu_control {
	uint64_t revision;
	uint64_t(SLUICE_IOMMU_EFIAPI *configure)(struct sluice_iommu_control *self, uint32_t policy,
						 uint32_t arena_buffers);
	void(SLUICE_IOMMU_EFIAPI *get_stats)(struct sluice_iommu_control *self,
					     struct sluice_iommu_stats *out);
	void(SLUICE_IOMMU_EFIAPI *print_stats)(struct sluice_iommu_control *self);
};

#endif /* SLUICE_FIRMWARE_SLUICE_IOMMU_H */
