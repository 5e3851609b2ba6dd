/* SPDX-License-Identifier: MIT */
/*
 * iommu_driver.c - sluice-iommu.efi, a UEFI boot-services driver that installs
 * EDKII_IOMMU_PROTOCOL with the Sluice DMA library behind it: one bounce pool
 * and a 2 MB-chunk arena, converted through emulated port ops
 * (iommu_port.c), so that firmware drivers' DMA bounces through shared memory
 * as in a confidential guest.
 *
 * What it relies on in tianocore/edk2 (checked against edk2-stable202211, the
 * source of Debian 12's ovmf 2022.11 that the tests boot, and the current tree):
 * - MdeModulePkg/Bus/Pci/PciHostBridgeDxe/PciHostBridge.c: InitializePciHostBridge()
 *   registers IoMmuProtocolCallback() with EfiCreateProtocolNotifyEvent() for
 *   gEdkiiIoMmuProtocolGuid; the callback stores the first instance in the
 *   global mIoMmu and closes the event. So a protocol installed late (this
 *   driver, loaded after boot) is picked up, once, and never let go.
 * - PciRootBridgeIo.c: RootBridgeIoMap/Unmap/AllocateBuffer/FreeBuffer() hand
 *   every call to mIoMmu when it is set (Map clears the 64-bit operations and
 *   DUAL_ADDRESS_CYCLE when the root bridge has no DmaAbove4G), including the
 *   Unmap and FreeBuffer of what the root bridge handed out itself before
 *   (iommu_thunks.c answers those as it would have).
 * - MdeModulePkg/Bus/Pci/PciBusDxe/PciBus.c locates the protocol once, at
 *   PciBusDriverBindingStart(), for SetAttribute() calls from PciIo.c; PCI
 *   enumeration ran before we exist, so PciIo never calls SetAttribute here.
 * - MdeModulePkg/Include/Protocol/IoMmu.h: the GUID, the revision, the order
 *   of the five functions and their statuses (firmware/iommu/edk2_iommu.h).
 * - OvmfPkg/IoMmuDxe/IoMmuDxe.c: outside SEV and TDX, OVMF installs only
 *   gIoMmuAbsentProtocolGuid, no EDKII_IOMMU_PROTOCOL; the root bridge then maps
 *   by identity (or through its own below-4 GiB buffer).
 * - OvmfPkg/IoMmuDxe/AmdSevIoMmu.c (CcIoMmu.c in later trees):
 *   InstallIoMmuProtocol() creates an EVT_SIGNAL_EXIT_BOOT_SERVICES event at
 *   TPL_CALLBACK that signals a second TPL_CALLBACK event, so that
 *   IoMmuUnmapAllMappings() runs after the other ExitBootServices handlers
 *   (which halt their devices) and unmaps without freeing memory. Done the
 *   same way here (exit_boot(), unmap_all()).
 * - OvmfPkg/Virtio10Dxe/Virtio10.c maps through PciIo; OvmfPkg/VirtioBlkDxe/
 *   VirtioBlk.c (VirtioBlkInit) keeps VIRTIO_F_IOMMU_PLATFORM among the
 *   features it accepts from a virtio 1.0 device (as VirtioNetDxe, VirtioScsiDxe),
 *   and maps each request whole with VirtioMapAllBytesInSharedBuffer()
 *   (OvmfPkg/Library/VirtioLib/VirtioLib.c), which fails on a partial Map:
 *   longer mappings bounce through the arena (edk2_iommu.c).
 *
 * Unload: refused (EFI_ACCESS_DENIED) while anything is mapped or allocated;
 * otherwise the protocols are uninstalled and everything converted back and
 * freed. Beware, from the facts above: OVMF's root bridge keeps its mIoMmu
 * pointer after the protocol is gone, so on OVMF a PCI DMA after unloading
 * calls into freed memory. Unload is for firmware whose consumers locate the
 * protocol per call, and for tests that end right after it.
 */
#include "firmware/iommu/iommu_driver.h"

struct iommu_driver iommu;

static EFI_GUID iommu_guid = EDKII_IOMMU_PROTOCOL_GUID;
static EFI_GUID control_guid = SLUICE_IOMMU_CONTROL_GUID;

static void print_log(void *ctx, enum sluice_dma_log_level level, const char *msg)
{
	static const CHAR16 *const prefix[] = { L"error: ", L"warning: ", L"" };

	(void)ctx;
	/* Not after ExitBootServices: ConOut is gone (exit_boot clears BS use). */
	if (iommu.st.exit_boot)
		return;
	Print(L"sluice-iommu: %s%a\n", prefix[level <= SLUICE_DMA_LOG_INFO ? level : 2], msg);
}

/*
 * The port's lock (iommu_port.h): TPL_NOTIFY, and the TPL it replaced as the save
 * word. After ExitBootServices there are no events left to keep out, and no boot
 * services to call.
 */
static uint64_t raise_notify(void *ctx)
{
	(void)ctx;
	if (iommu.st.exit_boot)
		return 0;
	return (uint64_t)uefi_call_wrapper(BS->RaiseTPL, 1, TPL_NOTIFY);
}

static void restore_tpl(void *ctx, uint64_t old)
{
	(void)ctx;
	if (!iommu.st.exit_boot)
		uefi_call_wrapper(BS->RestoreTPL, 1, (EFI_TPL)old);
}

static void print_stats(struct iommu_driver *d)
{
	struct sluice_iommu_stats s;

	iommu_stats(d, &s);
	Print(L"sluice-iommu: policy=%a arena_buffers=%d maps=%ld map_failed=%ld common=%ld "
	      L"long=%ld unmaps=%ld unmap_invalid=%ld foreign_unmaps=%ld\n",
	      sluice_dma_bounce_policy_name((enum sluice_dma_bounce_policy)s.policy),
	      (int)s.arena_buffers, s.maps, s.map_failed, s.common_maps, s.long_maps, s.unmaps,
	      s.unmap_invalid, s.foreign_unmaps);
	Print(L"sluice-iommu: allocs=%ld alloc_failed=%ld frees=%ld free_invalid=%ld "
	      L"foreign_frees=%ld bytes_to_device=%ld bytes_from_device=%ld unshared=%ld "
	      L"live_maps=%ld live_bufs=%ld pages_shared=%ld conversions=%ld refused=%ld\n",
	      s.allocs, s.alloc_failed, s.frees, s.free_invalid, s.foreign_frees, s.bytes_to_device,
	      s.bytes_from_device, s.unshared_handouts, s.live_maps, s.live_bufs, s.pages_shared,
	      s.conversions, s.conversions_refused);
}

/* ---- the control protocol ---- */

static UINT64 SLUICE_IOMMU_EFIAPI ctl_configure(struct sluice_iommu_control *self, uint32_t policy,
						uint32_t arena_buffers)
{
	struct iommu_driver *d = &iommu;
	EFI_STATUS st;
	EFI_TPL old;

	(void)self;
	if (policy >= SLUICE_DMA_POLICY_COUNT || d->st.exit_boot)
		return EFI_INVALID_PARAMETER;
	/* No Map may run while the layer is rebuilt (a timer-driven driver). */
	old = uefi_call_wrapper(BS->RaiseTPL, 1, TPL_NOTIFY);
	st = d->ready ? iommu_teardown(d) : EFI_SUCCESS;
	if (!EFI_ERROR(st))
		st = iommu_setup(d, (enum sluice_dma_bounce_policy)policy, arena_buffers != 0);
	uefi_call_wrapper(BS->RestoreTPL, 1, old);
	return st;
}

static void SLUICE_IOMMU_EFIAPI ctl_get_stats(struct sluice_iommu_control *self,
					      struct sluice_iommu_stats *out)
{
	(void)self;
	iommu_stats(&iommu, out);
}

static void SLUICE_IOMMU_EFIAPI ctl_print_stats(struct sluice_iommu_control *self)
{
	(void)self;
	print_stats(&iommu);
}

/* ---- ExitBootServices ---- */

/* Runs after every other TPL_CALLBACK handler has halted its device. No boot
 * service, no conversion, no allocation: the memory map is final. */
static VOID EFIAPI unmap_all(EFI_EVENT event, VOID *ctx)
{
	struct iommu_driver *d = ctx;
	unsigned int live = 0;

	(void)event;
	d->st.exit_boot = 1;
	if (!d->ready)
		return;
	d->st.exit_boot_unmapped = edk2_iommu_exit_boot(&d->io);
	edk2_iommu_live(&d->io, &live, NULL);
	d->st.live_after_exit_boot = live;
}

static VOID EFIAPI exit_boot(EFI_EVENT event, VOID *ctx)
{
	struct iommu_driver *d = ctx;

	(void)event;
	uefi_call_wrapper(BS->SignalEvent, 1, d->unmap_all_event);
}

/* ---- load and unload ---- */

static EFI_STATUS uninstall(struct iommu_driver *d)
{
	EFI_STATUS st;

	st = uefi_call_wrapper(BS->UninstallMultipleProtocolInterfaces, 6, d->handle, &iommu_guid,
			       &d->protocol, &control_guid, &d->control, NULL);
	if (EFI_ERROR(st))
		return st;
	uefi_call_wrapper(BS->CloseEvent, 1, d->exit_boot_event);
	uefi_call_wrapper(BS->CloseEvent, 1, d->unmap_all_event);
	return EFI_SUCCESS;
}

static EFI_STATUS EFIAPI driver_unload(EFI_HANDLE image)
{
	struct iommu_driver *d = &iommu;
	unsigned int maps, bufs;
	EFI_STATUS st;
	EFI_TPL old;

	(void)image;
	old = uefi_call_wrapper(BS->RaiseTPL, 1, TPL_NOTIFY);
	edk2_iommu_live(&d->io, &maps, &bufs);
	if (d->ready && (maps || bufs)) {
		uefi_call_wrapper(BS->RestoreTPL, 1, old);
		Print(L"sluice-iommu: unload refused: %d mappings and %d buffers live\n", maps,
		      bufs);
		return EFI_ACCESS_DENIED;
	}
	st = uninstall(d);
	if (!EFI_ERROR(st) && d->ready)
		st = iommu_teardown(d);
	uefi_call_wrapper(BS->RestoreTPL, 1, old);
	print_stats(d);
	Print(L"sluice-iommu: unloaded: %r, %ld pages still shared\n", st, d->port.pages_shared);
	return st;
}

static EFI_STATUS install(struct iommu_driver *d)
{
	EFI_STATUS st;

	st = uefi_call_wrapper(BS->CreateEvent, 5, EVT_NOTIFY_SIGNAL, TPL_CALLBACK, unmap_all, d,
			       &d->unmap_all_event);
	if (EFI_ERROR(st))
		return st;
	st = uefi_call_wrapper(BS->CreateEvent, 5, EVT_SIGNAL_EXIT_BOOT_SERVICES, TPL_CALLBACK,
			       exit_boot, d, &d->exit_boot_event);
	if (EFI_ERROR(st)) {
		uefi_call_wrapper(BS->CloseEvent, 1, d->unmap_all_event);
		return st;
	}
	d->handle = NULL;
	st = uefi_call_wrapper(BS->InstallMultipleProtocolInterfaces, 6, &d->handle, &iommu_guid,
			       &d->protocol, &control_guid, &d->control, NULL);
	if (EFI_ERROR(st)) {
		uefi_call_wrapper(BS->CloseEvent, 1, d->exit_boot_event);
		uefi_call_wrapper(BS->CloseEvent, 1, d->unmap_all_event);
	}
	return st;
}

/* GNU-EFI's crt0 relocates the image and calls this with the System V convention. */
EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	EFI_GUID li_guid = LOADED_IMAGE_PROTOCOL;
	struct iommu_driver *d = &iommu;
	EFI_LOADED_IMAGE *li = NULL;
	VOID *other = NULL;
	EFI_STATUS st;

	InitializeLib(image, systab);
	/* The root bridge takes the first instance only: a second would serve nothing. */
	if (!EFI_ERROR(uefi_call_wrapper(BS->LocateProtocol, 3, &iommu_guid, NULL, &other))) {
		Print(L"sluice-iommu: an IoMmu protocol is installed already\n");
		return EFI_ALREADY_STARTED;
	}
	st = uefi_call_wrapper(BS->HandleProtocol, 3, image, &li_guid, (void **)&li);
	if (EFI_ERROR(st))
		return st;
	d->image = image;
	d->port.log = print_log;
	d->port.raise_tpl = raise_notify;
	d->port.restore_tpl = restore_tpl;
	iommu_protocol_init(d);
	d->control = (struct sluice_iommu_control){
		.revision = SLUICE_IOMMU_CONTROL_REVISION,
		.configure = ctl_configure,
		.get_stats = ctl_get_stats,
		.print_stats = ctl_print_stats,
	};
	st = iommu_setup(d, SLUICE_DMA_POLICY_SLUICE, false);
	if (!EFI_ERROR(st)) {
		st = install(d);
		if (EFI_ERROR(st))
			iommu_teardown(d);
	}
	if (EFI_ERROR(st)) {
		Print(L"sluice-iommu: not installed: %r\n", st);
		return st;
	}
	li->Unload = driver_unload;
	Print(L"sluice-iommu: EDKII_IOMMU_PROTOCOL installed (library API %x, pool %d KiB %a, "
	      L"arena %d KiB, emulated conversions)\n",
	      sluice_dma_version(), IOMMU_POOL_BYTES >> 10,
	      sluice_dma_bounce_policy_name(d->policy), IOMMU_ARENA_BYTES >> 10);
	return EFI_SUCCESS;
}
