/* SPDX-License-Identifier: MIT */
/*
 * pci_setup.c - the kernel's PCI bring-up: choose ECAM (ACPI MCFG) or the legacy
 * ports, enumerate, make every memory BAR reachable in the page tables, and
 * report what was found.
 */
#include "boot/pci_setup.h"

#include <inttypes.h>
#include <stdio.h>

#include "arch/x86_64/acpi.h"
#include "arch/x86_64/mmu.h"

static struct pci_config_ops config_ops;
static struct pci_device devices[PCI_MAX_DEVICES];
static int ndevices;
static const char *access_name = "none";

static const char *pci_class_name(uint32_t class_code)
{
	switch (class_code >> 8) {
	case 0x0100:
		return "SCSI";
	case 0x0101:
		return "IDE";
	case 0x0106:
		return "SATA";
	case 0x0200:
		return "ethernet";
	case 0x0300:
		return "VGA";
	case 0x0600:
		return "host bridge";
	case 0x0601:
		return "ISA bridge";
	case 0x0604:
		return "PCI bridge";
	case 0x0c05:
		return "SMBus";
	}
	if ((class_code >> 16) == 0x01)
		return "storage";
	return "device";
}

static const char *pci_device_name(const struct pci_device *d)
{
	if (d->vendor_id != 0x1af4)
		return pci_class_name(d->class_code);
	switch (d->device_id) {
	case 0x1041:
		return "virtio-net (modern)";
	case 0x1042:
		return "virtio-blk (modern)";
	case 0x1000:
		return "virtio-net (transitional)";
	case 0x1001:
		return "virtio-blk (transitional)";
	}
	return "virtio";
}

int pci_setup(uint64_t acpi_rsdp)
{
	struct acpi_mcfg_window mcfg;
	unsigned int first_bus = 0, last_bus = 255;

	if (acpi_mcfg(acpi_rsdp, &mcfg)) {
		uint64_t window = ((uint64_t)mcfg.end_bus + 1) << 20;
		int rc = mmu_map_mmio(mcfg.base, window);

		/* Already mapped uncached by the identity map is fine too. */
		if (rc && rc != -17) {
			printf("pci: cannot map the ECAM window at 0x%" PRIx64 " (%d); using ports\n",
			       mcfg.base, rc);
		} else {
			pci_ecam_ops_init(&config_ops, mcfg.base);
			first_bus = mcfg.start_bus;
			last_bus = mcfg.end_bus;
			access_name = "ECAM";
		}
	}
	if (config_ops.read32 == NULL) {
		pci_port_ops_init(&config_ops);
		access_name = "ports 0xCF8/0xCFC";
		first_bus = 0;
		last_bus = 255;
	}
	ndevices = pci_enumerate(&config_ops, first_bus, last_bus, devices, PCI_MAX_DEVICES);

	for (int i = 0; i < ndevices; i++) {
		for (unsigned int b = 0; b < PCI_NUM_BARS; b++) {
			const struct pci_bar *bar = &devices[i].bars[b];
			int rc;

			if (bar->is_io || !bar->size || !bar->base)
				continue;
			rc = mmu_map_mmio(bar->base, bar->size);
			if (rc && rc != -17)
				printf("pci: %02x:%02x.%x BAR%u at 0x%" PRIx64 " cannot be mapped (%d)\n",
				       devices[i].bus, devices[i].dev, devices[i].fn, b, bar->base,
				       rc);
		}
	}
	return ndevices;
}

void pci_report(void)
{
	printf("pci: %d functions through %s\n", ndevices, access_name);
	for (int i = 0; i < ndevices; i++) {
		const struct pci_device *d = &devices[i];

		printf("  %02x:%02x.%x %04x:%04x class %06" PRIx32 " %s", d->bus, d->dev, d->fn,
		       d->vendor_id, d->device_id, d->class_code, pci_device_name(d));
		for (unsigned int b = 0; b < PCI_NUM_BARS; b++) {
			const struct pci_bar *bar = &d->bars[b];

			if (!bar->size)
				continue;
			if (bar->size >= 1024)
				printf(" BAR%u=%s0x%" PRIx64 "/%" PRIu64 "K%s", b,
				       bar->is_io ? "io:" : "", bar->base, bar->size >> 10,
				       bar->is_64bit ? "/64-bit" : "");
			else
				printf(" BAR%u=%s0x%" PRIx64 "/%" PRIu64 "B", b, bar->is_io ? "io:" : "",
				       bar->base, bar->size);
		}
		printf("\n");
	}
}

int pci_devices(const struct pci_device **out)
{
	*out = devices;
	return ndevices;
}
