/* SPDX-License-Identifier: MIT */
/*
 * pci_setup.h - the kernel's PCI bring-up (see pci_setup.c).
 */
#ifndef SLUICE_BOOT_PCI_SETUP_H
#define SLUICE_BOOT_PCI_SETUP_H

#include <stdint.h>

#include "boot/boot_info.h"
#include "drivers/pci/pci.h"

/**
 * pci_setup() - pick the configuration access, enumerate, admit memory BARs.
 * @bi: the boot hand-off: the RSDP (for MCFG), the memory map and the regions
 *	reserved at boot, which no device window may overlap.
 * @phys_addr_bits: the CPU's physical address width (0 if unknown).
 *
 * The ECAM window from MCFG is used only if its placement check (uncached
 * reserved memory allowed) and its mapping succeed; else the legacy ports are.
 * Every memory BAR of every function must pass pci_window_check(), be mapped by
 * mmu_map_mmio() (PT_ERR_EXIST included, any error refuses) and come out shared;
 * it is then marked &pci_bar.accepted. At the first BAR that does not, or one
 * left at address 0, the function is marked &pci_device.refused, loses every
 * accepted BAR, has memory decoding and bus mastering turned off, and one line
 * names it, the BAR, the address and the reason.
 * Return: the number of functions found.
 */
int pci_setup(const struct boot_info *bi, unsigned int phys_addr_bits);

/**
 * pci_report() - print the functions found, their BARs, which were refused, and
 * how many memory BARs were accepted.
 */
void pci_report(void);

/**
 * pci_devices() - the functions found by pci_setup().
 * @out: set to the array.
 * Return: its length.
 */
int pci_devices(const struct pci_device **out);

#endif /* SLUICE_BOOT_PCI_SETUP_H */
