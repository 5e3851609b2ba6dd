/* SPDX-License-Identifier: MIT */
/*
 * pci_window.h - where a PCI device window (a memory BAR, the ECAM window) may lie.
 *
 * In a confidential guest the host chooses every BAR address. A BAR placed over
 * RAM turns each register access of a driver into an access to private memory:
 * ring addresses, status bytes and notifications written into it, "capacity",
 * "features" or a MAC address read out of it. So before a window is mapped it is
 * checked against the UEFI memory map the firmware gave us and against the
 * regions the kernel reserved; it is accepted only in address space the map does
 * not describe or describes as MMIO. Platform-free: the checks run on the host in
 * tests/kernel/test_pci_window.c.
 */
#ifndef SLUICE_BOOT_PCI_WINDOW_H
#define SLUICE_BOOT_PCI_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/boot_info.h"

#define PCI_SPACE_MAX_BUSY 8

/**
 * struct pci_busy_region - a region the kernel owns, whatever the map says.
 * @base: start.
 * @size: bytes (0: unused slot).
 * @name: what it is, for the refusal message.
 */
struct pci_busy_region {
	uint64_t base;
	uint64_t size;
	const char *name;
};

/**
 * struct pci_space - what a PCI window is checked against.
 * @ranges: the memory map (&boot_info.ranges), in any order.
 * @nranges: its entries.
 * @busy: the kernel image, heap, DMA region, page-table pool, stack, AP trampoline
 *	and the local APIC page: also covered by the map (loader memory) on a sane
 *	firmware, checked by name so that a map that lost one of them still keeps
 *	devices away, and so that the message says what the device would have hit.
 * @nbusy: entries used in @busy.
 * @pa_limit: first physical address the CPU cannot reach (2^MAXPHYADDR), or 0
 *	for no limit; a mapping beyond it faults on the first access.
 */
struct pci_space {
	const struct mem_range *ranges;
	unsigned int nranges;
	struct pci_busy_region busy[PCI_SPACE_MAX_BUSY];
	unsigned int nbusy;
	uint64_t pa_limit;
};

/*
 * Flags of pci_window_check(). A BAR gets none: only MMIO and unlisted address
 * space. The ECAM window may also lie in uncached reserved memory: firmware lists
 * the MCFG range as reserved so that no OS uses it as RAM (Linux insists on that
 * before it uses MMCONFIG), and OVMF reports q35's 256 MiB at 0xb0000000 as
 * EfiReservedMemoryType with only the UC attribute. A reserved range that may be
 * cached write-back is memory, not configuration space, and is refused.
 */
#define PCI_WINDOW_ECAM (1u << 0)

/**
 * pci_space_init() - describe the address space from the boot hand-off.
 * @s: filled in.
 * @bi: the memory map and the regions reserved at boot (@bi must outlive @s).
 * @phys_addr_bits: the CPU's physical address width, or 0 if unknown.
 */
void pci_space_init(struct pci_space *s, const struct boot_info *bi, unsigned int phys_addr_bits);

/**
 * pci_window_check() - may a device window lie at [@base, @base + @size)?
 * @s: the address space.
 * @base: physical start.
 * @size: bytes.
 * @flags: 0 for a BAR, %PCI_WINDOW_ECAM for the configuration window.
 * @why: on refusal, the reason (one clause naming what the window hits).
 * @why_len: its size.
 *
 * The whole 4 KiB pages the window touches are checked, since they are what gets
 * mapped. Refused: a zero size; a range that wraps past 2^64 (page rounding
 * included); one reaching @s->pa_limit; one that overlaps, even by a byte, a
 * memory-map range of any kind but %MEM_MMIO (so RAM, loader, boot-services,
 * runtime, ACPI, reserved, unusable, persistent, unaccepted memory and unknown
 * types; with %PCI_WINDOW_ECAM uncached reserved ranges are allowed); one that
 * overlaps a busy region. Everything else, address space the firmware left out
 * of the map (where OVMF puts the PCI windows) or listed as EfiMemoryMappedIO /
 * EfiMemoryMappedIOPortSpace, is accepted.
 *
 * Return: 0 if accepted, -22 if refused.
 */
int pci_window_check(const struct pci_space *s, uint64_t base, uint64_t size, unsigned int flags,
		     char *why, size_t why_len);

#endif /* SLUICE_BOOT_PCI_WINDOW_H */
