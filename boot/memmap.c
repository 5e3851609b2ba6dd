/* SPDX-License-Identifier: MIT */
/*
 * memmap.c - classification of the UEFI memory map's types (see memmap.h).
 */
#include "boot/memmap.h"

enum mem_kind mem_kind_from_efi_type(uint32_t type)
{
	switch (type) {
	case UEFI_MT_CONVENTIONAL:
	case UEFI_MT_BOOT_SERVICES_CODE:
	case UEFI_MT_BOOT_SERVICES_DATA:
		return MEM_USABLE;
	case UEFI_MT_LOADER_CODE:
	case UEFI_MT_LOADER_DATA:
		return MEM_KERNEL;
	case UEFI_MT_ACPI_RECLAIM:
	case UEFI_MT_ACPI_NVS:
		return MEM_ACPI;
	case UEFI_MT_MMIO:
	case UEFI_MT_MMIO_PORT_SPACE:
		return MEM_MMIO;
	default:
		return MEM_RESERVED;
	}
}
