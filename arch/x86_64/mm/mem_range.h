/* SPDX-License-Identifier: MIT */
/*
 * mem_range.h - the physical memory map as arch/ sees it: ranges of RAM, MMIO and
 * firmware memory, and single regions (a page-table pool, a start-up page).
 *
 * The UEFI stage (boot/efi_entry.c) fills these from the firmware's memory map;
 * arch/ (mmu_init(), smp_init(), the SEV-SNP checks) takes them as parameters and
 * never includes boot/ headers (docs/ARCHITECTURE.md, "Floors").
 */
#ifndef SLUICE_ARCH_MEM_RANGE_H
#define SLUICE_ARCH_MEM_RANGE_H

#include <stdbool.h>
#include <stdint.h>

/* The most ranges a memory map may hold (the UEFI stage merges adjacent ones). */
#define MEM_MAX_RANGES 512

/**
 * enum mem_kind - what the kernel may do with a range of the memory map.
 * @MEM_USABLE: free RAM (conventional, or boot-services memory after EBS).
 * @MEM_KERNEL: RAM in use by the kernel: image, stack, heap, regions below.
 * @MEM_ACPI: ACPI tables (reclaim) or NVS: keep mapped, never reuse.
 * @MEM_RESERVED: firmware, runtime services, unusable: keep mapped, never touch.
 * @MEM_MMIO: memory-mapped I/O described by the firmware.
 */
enum mem_kind {
	MEM_USABLE,
	MEM_KERNEL,
	MEM_ACPI,
	MEM_RESERVED,
	MEM_MMIO,
};

/**
 * struct mem_range - one entry of the kernel's copy of the memory map.
 * @base: physical start (4 KiB aligned).
 * @size: bytes.
 * @kind: see &enum mem_kind.
 * @cacheable: the firmware says the range supports write-back caching (RAM);
 *	false for device memory such as the PCIe ECAM window, which the memory map
 *	lists as "reserved".
 */
struct mem_range {
	uint64_t base;
	uint64_t size;
	enum mem_kind kind;
	bool cacheable;
};

/**
 * struct mem_region - a region of physical memory set aside for one purpose.
 * @base: start (identity mapped: physical == virtual).
 * @size: bytes (0: none).
 */
struct mem_region {
	uint64_t base;
	uint64_t size;
};

/**
 * mem_kind_name() - the short name the boot report prints for a kind.
 * @kind: a kind.
 * Return: "usable", "kernel", "acpi", "reserved", "mmio", or "?".
 */
const char *mem_kind_name(enum mem_kind kind);

/**
 * mem_range_firmware_page() - whether the 4 KiB page at @addr is firmware
 *	memory the kernel never uses: @addr 4 KiB aligned and the page inside one
 *	cacheable range of kind %MEM_ACPI or %MEM_RESERVED.
 * @ranges: the memory map.
 * @n: entries in @ranges.
 * @addr: the page's physical address.
 * Return: true if so.
 */
bool mem_range_firmware_page(const struct mem_range *ranges, unsigned int n, uint64_t addr);

/**
 * mem_range_ram_top() - the end of the guest's RAM: the highest end of a
 *	cacheable range that is not MMIO, rounded up to 4 KiB (what a simulated
 *	platform's model covers, so that a conversion of any page is checked).
 * @ranges: the memory map.
 * @n: entries in @ranges.
 * Return: that address, 0 for a map without RAM.
 */
uint64_t mem_range_ram_top(const struct mem_range *ranges, unsigned int n);

#endif /* SLUICE_ARCH_MEM_RANGE_H */
