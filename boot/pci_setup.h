/* SPDX-License-Identifier: MIT */
/*
 * pci_setup.h - the kernel's PCI bring-up (see pci_setup.c).
 */
#ifndef SLUICE_BOOT_PCI_SETUP_H
#define SLUICE_BOOT_PCI_SETUP_H

#include <stdint.h>

#include "drivers/pci/pci.h"

/**
 * pci_setup() - pick the configuration access, enumerate, map memory BARs.
 * @acpi_rsdp: the RSDP (for MCFG), or 0.
 * Return: the number of functions found.
 */
int pci_setup(uint64_t acpi_rsdp);

/**
 * pci_report() - print the functions found and their BARs.
 */
void pci_report(void);

/**
 * pci_devices() - the functions found by pci_setup().
 * @out: set to the array.
 * Return: its length.
 */
int pci_devices(const struct pci_device **out);

#endif /* SLUICE_BOOT_PCI_SETUP_H */
