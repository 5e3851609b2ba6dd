/* SPDX-License-Identifier: MIT */
/*
 * memmap.h - what the kernel makes of the UEFI memory map's memory types.
 *
 * Platform-free (no GNU-EFI): the UEFI stage classifies every descriptor with
 * mem_kind_from_efi_type(), and the kernel's checks (PCI BAR placement) reason in
 * &enum mem_kind only, so the classification is the one place that decides which
 * firmware-described address space is memory.
 */
#ifndef SLUICE_BOOT_MEMMAP_H
#define SLUICE_BOOT_MEMMAP_H

#include <stdint.h>

#include "boot/boot_info.h"

/*
 * EFI_MEMORY_TYPE values (UEFI 2.10, section 7.2.1 "EFI_BOOT_SERVICES.AllocatePages()",
 * Related Definitions; their use in section 7.2, tables 7.6 and 7.7 "Memory Type Usage
 * before / after ExitBootServices()"). Named apart from GNU-EFI's enumerators so this
 * header can sit next to <efi.h>; boot/efi_entry.c checks that the values agree.
 * 0x70000000..0x7fffffff are OEM types, 0x80000000..0xffffffff OS loader types.
 */
#define UEFI_MT_RESERVED 0u
#define UEFI_MT_LOADER_CODE 1u
#define UEFI_MT_LOADER_DATA 2u
#define UEFI_MT_BOOT_SERVICES_CODE 3u
#define UEFI_MT_BOOT_SERVICES_DATA 4u
#define UEFI_MT_RUNTIME_SERVICES_CODE 5u
#define UEFI_MT_RUNTIME_SERVICES_DATA 6u
#define UEFI_MT_CONVENTIONAL 7u
#define UEFI_MT_UNUSABLE 8u
#define UEFI_MT_ACPI_RECLAIM 9u
#define UEFI_MT_ACPI_NVS 10u
#define UEFI_MT_MMIO 11u
#define UEFI_MT_MMIO_PORT_SPACE 12u
#define UEFI_MT_PAL_CODE 13u
#define UEFI_MT_PERSISTENT 14u
#define UEFI_MT_UNACCEPTED 15u

/**
 * mem_kind_from_efi_type() - classify one memory-map descriptor.
 * @type: its EFI_MEMORY_TYPE.
 *
 * After ExitBootServices, conventional and boot-services memory is free RAM
 * (%MEM_USABLE); loader memory is the kernel's (%MEM_KERNEL); ACPI reclaim and NVS
 * are %MEM_ACPI. Only EfiMemoryMappedIO and EfiMemoryMappedIOPortSpace are
 * %MEM_MMIO. Every other type, including runtime-services memory, unusable,
 * PAL code, persistent and unaccepted memory, and types this code does not know
 * (newer spec versions, OEM and OS loader types) is %MEM_RESERVED: unknown
 * memory is kept away from, never treated as device space.
 *
 * Return: the kind.
 */
enum mem_kind mem_kind_from_efi_type(uint32_t type);

#endif /* SLUICE_BOOT_MEMMAP_H */
