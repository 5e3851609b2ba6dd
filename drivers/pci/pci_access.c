/* SPDX-License-Identifier: MIT */
/*
 * pci_access.c - the two ways to reach configuration space on x86: the PCIe ECAM
 * window (memory-mapped, all 4 KiB of each function) and the legacy 0xCF8/0xCFC
 * port pair (first 256 bytes only).
 */
#include <stddef.h>

#include "arch/x86_64/cpu/cpu.h"
#include "drivers/pci/pci.h"

#define PCI_CONFIG_ADDRESS 0xCF8
#define PCI_CONFIG_DATA 0xCFC

static uint64_t ecam_base_addr;

/* The address of a configuration register in the ECAM window; accessed through
 * the paravirtual I/O layer (arch/x86_64/cc/pvio.h). */
static uint64_t pci_ecam_addr(void *ctx, uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off)
{
	uint64_t base = *(uint64_t *)ctx;

	return base + ((uint64_t)bus << 20) + ((uint64_t)dev << 15) + ((uint64_t)fn << 12) +
	       (off & 0xffcu);
}

static uint32_t pci_ecam_read32(void *ctx, uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off)
{
	return mmio_read32(pci_ecam_addr(ctx, bus, dev, fn, off));
}

static void pci_ecam_write32(void *ctx, uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off,
			     uint32_t val)
{
	mmio_write32(pci_ecam_addr(ctx, bus, dev, fn, off), val);
}

void pci_ecam_ops_init(struct pci_config_ops *ops, uint64_t ecam_base)
{
	ecam_base_addr = ecam_base;
	ops->ctx = &ecam_base_addr;
	ops->read32 = pci_ecam_read32;
	ops->write32 = pci_ecam_write32;
}

static uint32_t pci_port_address(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off)
{
	return 0x80000000u | ((uint32_t)bus << 16) | ((uint32_t)(dev & 31) << 11) |
	       ((uint32_t)(fn & 7) << 8) | (off & 0xfcu);
}

static uint32_t pci_port_read32(void *ctx, uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off)
{
	(void)ctx;
	if (off >= 256)
		return 0xffffffffu;
	outl(PCI_CONFIG_ADDRESS, pci_port_address(bus, dev, fn, off));
	return inl(PCI_CONFIG_DATA);
}

static void pci_port_write32(void *ctx, uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off,
			     uint32_t val)
{
	(void)ctx;
	if (off >= 256)
		return;
	outl(PCI_CONFIG_ADDRESS, pci_port_address(bus, dev, fn, off));
	outl(PCI_CONFIG_DATA, val);
}

void pci_port_ops_init(struct pci_config_ops *ops)
{
	ops->ctx = NULL;
	ops->read32 = pci_port_read32;
	ops->write32 = pci_port_write32;
}
