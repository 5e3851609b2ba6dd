/* SPDX-License-Identifier: MIT */
/*
 * iommu_thunks.c - the EFIAPI functions of the EDKII_IOMMU_PROTOCOL the driver
 * installs: each raises the TPL to TPL_NOTIFY (the adapter's tables and the
 * layer are not locked; EDK2 calls the protocol at TPL_NOTIFY or below),
 * calls the adapter (edk2_iommu.c), and counts.
 *
 * The driver is installed late, after OVMF's PciHostBridgeDxe has served
 * drivers itself. Its IoMmuProtocolCallback() then sends every root bridge
 * Map, Unmap, AllocateBuffer and FreeBuffer to us, including the Unmap and
 * FreeBuffer of what it handed out before (tianocore/edk2
 * MdeModulePkg/Bus/Pci/PciHostBridgeDxe/PciRootBridgeIo.c: RootBridgeIoUnmap(),
 * RootBridgeIoFreeBuffer() test mIoMmu first). Those are answered as the root
 * bridge would have answered them: its identity handle NO_MAPPING ((VOID *)-1,
 * which it returns for memory the device reaches as it is) ends with
 * EFI_SUCCESS, and pages we never handed out go back with FreePages().
 * Both are counted (foreign_unmaps, foreign_frees).
 */
#include "firmware/iommu/iommu_driver.h"

/* PciRootBridgeIo.c: #define NO_MAPPING (VOID *) (UINTN) -1 */
#define ROOT_BRIDGE_NO_MAPPING ((VOID *)(UINTN)-1)

static EFI_TPL raise(void)
{
	return uefi_call_wrapper(BS->RaiseTPL, 1, TPL_NOTIFY);
}

static void restore(EFI_TPL old)
{
	uefi_call_wrapper(BS->RestoreTPL, 1, old);
}

static EFI_STATUS EFIAPI thunk_map(struct edkii_iommu_protocol *This, EDKII_IOMMU_OPERATION op,
				   VOID *host, UINTN *bytes, EFI_PHYSICAL_ADDRESS *dev,
				   VOID **mapping)
{
	struct iommu_driver *d = &iommu;
	EFI_STATUS st = EFI_NOT_READY;
	EFI_TPL old = raise();

	(void)This;
	if (d->ready)
		st = edk2_iommu_map(&d->io, op, host, bytes, dev, mapping);
	if (EFI_ERROR(st)) {
		d->st.map_failed++;
	} else {
		d->st.maps++;
		if (op == EdkiiIoMmuOperationBusMasterCommonBuffer ||
		    op == EdkiiIoMmuOperationBusMasterCommonBuffer64)
			d->st.common_maps++;
		/* Every device address we give out must be shared memory. */
		if (!iommu_port_is_shared(&d->port, *dev, *bytes))
			d->st.unshared_handouts++;
	}
	restore(old);
	return st;
}

static EFI_STATUS EFIAPI thunk_unmap(struct edkii_iommu_protocol *This, VOID *mapping)
{
	struct iommu_driver *d = &iommu;
	EFI_STATUS st = EFI_SUCCESS;
	EFI_TPL old = raise();

	(void)This;
	if (mapping == ROOT_BRIDGE_NO_MAPPING) {
		d->st.foreign_unmaps++;
	} else {
		st = d->ready ? edk2_iommu_unmap(&d->io, mapping) : EFI_INVALID_PARAMETER;
		if (EFI_ERROR(st))
			d->st.unmap_invalid++;
		else
			d->st.unmaps++;
	}
	restore(old);
	return st;
}

static EFI_STATUS EFIAPI thunk_allocate_buffer(struct edkii_iommu_protocol *This,
					       EFI_ALLOCATE_TYPE type, EFI_MEMORY_TYPE memory_type,
					       UINTN pages, VOID **host, UINT64 attributes)
{
	struct iommu_driver *d = &iommu;
	EFI_STATUS st = EFI_OUT_OF_RESOURCES;
	EFI_TPL old = raise();

	(void)This;
	if (d->ready)
		st = edk2_iommu_allocate_buffer(&d->io, (int)type, (int)memory_type, pages, host,
						attributes);
	if (EFI_ERROR(st))
		d->st.alloc_failed++;
	else
		d->st.allocs++;
	restore(old);
	return st;
}

static EFI_STATUS EFIAPI thunk_free_buffer(struct edkii_iommu_protocol *This, UINTN pages,
					   VOID *host)
{
	struct iommu_driver *d = &iommu;
	EFI_STATUS st;
	EFI_TPL old = raise();

	(void)This;
	if (!pages || pages > (UINTN)-1 / EFI_PAGE_SIZE) {
		st = EFI_INVALID_PARAMETER;
		d->st.free_invalid++;
	} else if (!d->ready || !edk2_iommu_owns(&d->io, host, pages * EFI_PAGE_SIZE)) {
		/* The root bridge's own pages from before we were installed. */
		st = uefi_call_wrapper(BS->FreePages, 2, (EFI_PHYSICAL_ADDRESS)(UINTN)host, pages);
		if (EFI_ERROR(st))
			d->st.free_invalid++;
		else
			d->st.foreign_frees++;
	} else {
		st = edk2_iommu_free_buffer(&d->io, pages, host);
		if (EFI_ERROR(st))
			d->st.free_invalid++;
		else
			d->st.frees++;
	}
	restore(old);
	return st;
}

static EFI_STATUS EFIAPI thunk_set_attribute(struct edkii_iommu_protocol *This, EFI_HANDLE device,
					     VOID *mapping, UINT64 access)
{
	struct iommu_driver *d = &iommu;
	EFI_STATUS st = EFI_INVALID_PARAMETER;
	EFI_TPL old = raise();

	(void)This;
	if (d->ready)
		st = edk2_iommu_set_attribute(&d->io, device, mapping, access);
	restore(old);
	return st;
}

void iommu_protocol_init(struct iommu_driver *d)
{
	d->protocol = (struct edkii_iommu_protocol){
		.Revision = EDKII_IOMMU_PROTOCOL_REVISION,
		.SetAttribute = thunk_set_attribute,
		.Map = thunk_map,
		.Unmap = thunk_unmap,
		.AllocateBuffer = thunk_allocate_buffer,
		.FreeBuffer = thunk_free_buffer,
	};
}
