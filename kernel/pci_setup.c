/* SPDX-License-Identifier: MIT */
/*
 * pci_setup.c - the kernel's PCI bring-up: choose ECAM (ACPI MCFG) or the legacy
 * ports, enumerate, admit every memory BAR (placement checked, mapped uncached and
 * shared) or refuse its function, and report what was found.
 */
#include "kernel/pci_setup.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arch/x86_64/fw/acpi.h"
#include "arch/x86_64/mm/mmu.h"
#include "arch/x86_64/mm/paging.h"
#include "kernel/pci_window.h"

#define ERR_INVAL (-22)

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

/*
 * Check a device window's placement, map it, and confirm the mapping is shared.
 * Return: 0, or -22 with @why saying what is wrong.
 */
static int pci_map_window(const struct pci_space *space, uint64_t base, uint64_t size,
			  unsigned int flags, char *why, size_t why_len)
{
	int rc = pci_window_check(space, base, size, flags, why, why_len);

	if (rc)
		return rc;
	/*
	 * PT_ERR_EXIST is a failure, not "already there": mmu_init() maps the holes
	 * and the MMIO / uncached ranges of the memory map with exactly the
	 * attributes mmu_map_mmio() asks for, and identical pages give 0. A page
	 * mapped otherwise is write-back private memory.
	 */
	rc = mmu_map_mmio(base, size);
	if (rc) {
		snprintf(why, why_len, "%s (%d)",
			 rc == PT_ERR_EXIST ? "is already mapped as memory" : "cannot be mapped",
			 rc);
		return ERR_INVAL;
	}
	/*
	 * Registers are the host's: in a confidential guest they are reached through
	 * shared mappings only (TDX: the shared GPA bit; SEV: C-bit clear), and the
	 * emulated model marks them PT_SW_SHARED (PT_ATTR_MMIO). A private mapping
	 * here would mean the range was memory after all.
	 */
	if (!mmu_range_is_shared(base, size)) {
		snprintf(why, why_len, "is mapped, but not shared");
		return ERR_INVAL;
	}
	return 0;
}

/* No driver may use @d: its BARs are unaccepted, its decoding and DMA off. */
static void pci_refuse(struct pci_device *d)
{
	uint16_t cmd = pci_read16(d, PCI_COMMAND);

	d->refused = true;
	for (unsigned int b = 0; b < PCI_NUM_BARS; b++)
		d->bars[b].accepted = false;
	pci_write16(d, PCI_COMMAND, cmd & ~(PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER));
}

/* Accept every memory BAR of @d, or refuse the function at the first bad one. */
static void pci_admit(const struct pci_space *space, struct pci_device *d)
{
	for (unsigned int b = 0; b < PCI_NUM_BARS; b++) {
		struct pci_bar *bar = &d->bars[b];
		char why[192];

		if (bar->is_io || !bar->size)
			continue;
		if (!bar->base)
			snprintf(why, sizeof(why), "is unassigned (address 0)");
		else if (!pci_map_window(space, bar->base, bar->size, 0, why, sizeof(why)))
			bar->accepted = true;
		if (bar->accepted)
			continue;
		printf("pci: %02x:%02x.%x BAR%u at 0x%" PRIx64 " (0x%" PRIx64
		       " bytes) refused: %s; "
		       "the function will not be used\n",
		       d->bus, d->dev, d->fn, b, bar->base, bar->size, why);
		pci_refuse(d);
		return;
	}
}

int pci_setup(const struct boot_info *bi, unsigned int phys_addr_bits)
{
	struct acpi_mcfg_window mcfg;
	struct pci_space space;
	unsigned int first_bus = 0, last_bus = 255;

	memset(&config_ops, 0, sizeof(config_ops));
	access_name = "none";
	pci_space_init(&space, bi, phys_addr_bits);
	if (acpi_mcfg(bi->acpi_rsdp, &mcfg)) {
		uint64_t window = ((uint64_t)mcfg.end_bus + 1) << 20;
		char why[192];

		/*
		 * The MCFG table is firmware's and trusted, but its window goes through
		 * the same check as a BAR, with uncached reserved memory allowed (how
		 * firmware lists it). On OVMF the identity map already covers it
		 * uncached and shared, so the mapping gives 0; PT_ERR_EXIST would mean
		 * part of it is mapped write-back as RAM, where configuration accesses
		 * would read and write memory: then the ports are used.
		 */
		if (pci_map_window(&space, mcfg.base, window, PCI_WINDOW_ECAM, why, sizeof(why))) {
			printf("pci: ECAM window at 0x%" PRIx64 " (0x%" PRIx64
			       " bytes) refused: %s; using ports\n",
			       mcfg.base, window, why);
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
	for (int i = 0; i < ndevices; i++)
		pci_admit(&space, &devices[i]);
	return ndevices;
}

void pci_report(void)
{
	unsigned int accepted = 0, refused = 0;

	printf("pci: %d functions through %s\n", ndevices, access_name);
	for (int i = 0; i < ndevices; i++) {
		const struct pci_device *d = &devices[i];

		refused += d->refused;
		for (unsigned int b = 0; b < PCI_NUM_BARS; b++)
			accepted += d->bars[b].accepted;

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
				printf(" BAR%u=%s0x%" PRIx64 "/%" PRIu64 "B", b,
				       bar->is_io ? "io:" : "", bar->base, bar->size);
		}
		printf("%s\n", d->refused ? " (refused)" : "");
	}
	printf("pci: %u memory BAR%s outside RAM, mapped uncached and shared; %u function%s "
	       "refused\n",
	       accepted, accepted == 1 ? "" : "s", refused, refused == 1 ? "" : "s");
}

int pci_devices(const struct pci_device **out)
{
	*out = devices;
	return ndevices;
}
