/* SPDX-License-Identifier: MIT */
/*
 * pci.c - enumeration, BAR sizing and capability walking over a pci_config_ops.
 *
 * Platform-free: the ECAM and port-I/O accessors live in pci_access.c.
 */
#include "drivers/pci/pci.h"

#include <string.h>

#define PCI_MAX_CAPS 48
#define PCI_HEADER_MULTIFUNCTION 0x80

uint32_t pci_read32(const struct pci_device *d, uint16_t off)
{
	return d->ops->read32(d->ops->ctx, d->bus, d->dev, d->fn, off & ~3u);
}

uint16_t pci_read16(const struct pci_device *d, uint16_t off)
{
	return (uint16_t)(pci_read32(d, off) >> ((off & 2) * 8));
}

uint8_t pci_read8(const struct pci_device *d, uint16_t off)
{
	return (uint8_t)(pci_read32(d, off) >> ((off & 3) * 8));
}

void pci_write32(const struct pci_device *d, uint16_t off, uint32_t val)
{
	d->ops->write32(d->ops->ctx, d->bus, d->dev, d->fn, off & ~3u, val);
}

void pci_write16(const struct pci_device *d, uint16_t off, uint16_t val)
{
	uint32_t old = pci_read32(d, off);
	unsigned int shift = (off & 2) * 8;

	/* The status register (upper half of dword 1) is write-one-to-clear:
	 * writing back what was read would clear pending status bits. */
	if ((off & ~3u) == PCI_COMMAND)
		old &= 0x0000ffffu;
	old &= ~(0xffffu << shift);
	pci_write32(d, off, old | ((uint32_t)val << shift));
}

/*
 * The size a BAR's sizing readback claims, if it is one: a BAR decodes a power
 * of two, and its range cannot wrap the address space. A mask with a hole (a
 * host that lies) would give a size of nearly 2^64, and every range checked
 * against it would "fit": such a BAR is left unsized (0), as unimplemented.
 */
static uint64_t pci_bar_size(uint64_t base, uint64_t size)
{
	if (!size || (size & (size - 1)) || base + (size - 1) < base)
		return 0;
	return size;
}

static void pci_size_bars(struct pci_device *d)
{
	uint16_t cmd = pci_read16(d, PCI_COMMAND);

	/* Sizing writes all-ones into live BARs: decoding must be off meanwhile. */
	pci_write16(d, PCI_COMMAND, cmd & ~(PCI_COMMAND_IO | PCI_COMMAND_MEMORY));
	for (unsigned int i = 0; i < PCI_NUM_BARS; i++) {
		uint16_t off = PCI_BAR0 + 4 * i;
		uint32_t orig = pci_read32(d, off), mask;
		struct pci_bar *bar = &d->bars[i];

		pci_write32(d, off, 0xffffffffu);
		mask = pci_read32(d, off);
		pci_write32(d, off, orig);
		if (!mask)
			continue; /* not implemented: reads back zero */
		if (orig & 1) {
			uint32_t m = mask & ~3u;

			bar->is_io = true;
			bar->base = orig & ~3u;
			bar->size = m ? pci_bar_size(bar->base, (uint64_t)(~m & 0xffff) + 1) : 0;
			continue;
		}
		bar->prefetchable = orig & 8;
		if (((orig >> 1) & 3) == 2 && i + 1 < PCI_NUM_BARS) {
			uint32_t orig_hi = pci_read32(d, off + 4), mask_hi;
			uint64_t m;

			pci_write32(d, off + 4, 0xffffffffu);
			mask_hi = pci_read32(d, off + 4);
			pci_write32(d, off + 4, orig_hi);
			m = ((uint64_t)mask_hi << 32) | (mask & ~0xfu);
			bar->is_64bit = true;
			bar->base = ((uint64_t)orig_hi << 32) | (orig & ~0xfu);
			bar->size = m ? pci_bar_size(bar->base, ~m + 1) : 0;
			i++; /* the upper half occupies the next slot */
			continue;
		}
		bar->base = orig & ~0xfu;
		mask &= ~0xfu;
		bar->size = mask ? pci_bar_size(bar->base, (uint64_t)(uint32_t)(~mask + 1)) : 0;
	}
	pci_write16(d, PCI_COMMAND, cmd);
}

int pci_enumerate(const struct pci_config_ops *ops, unsigned int first_bus, unsigned int last_bus,
		  struct pci_device *out, int max)
{
	int n = 0;

	if (last_bus > 255)
		last_bus = 255;
	for (unsigned int bus = first_bus; bus <= last_bus; bus++) {
		for (unsigned int dev = 0; dev < 32; dev++) {
			unsigned int nfn = 1;

			for (unsigned int fn = 0; fn < nfn; fn++) {
				struct pci_device d;
				uint32_t id, cls;
				uint8_t htype;

				memset(&d, 0, sizeof(d));
				d.ops = ops;
				d.bus = (uint8_t)bus;
				d.dev = (uint8_t)dev;
				d.fn = (uint8_t)fn;
				id = pci_read32(&d, PCI_VENDOR_ID);
				if ((id & 0xffff) == 0xffff || (id & 0xffff) == 0)
					continue;
				htype = pci_read8(&d, PCI_HEADER_TYPE);
				if (fn == 0 && (htype & PCI_HEADER_MULTIFUNCTION))
					nfn = 8;
				d.vendor_id = id & 0xffff;
				d.device_id = id >> 16;
				cls = pci_read32(&d, PCI_CLASS_REVISION);
				d.revision = cls & 0xff;
				d.class_code = cls >> 8;
				d.header_type = htype & 0x7f;
				if (d.header_type == 0)
					pci_size_bars(&d);
				if (n < max)
					out[n] = d;
				n++;
			}
		}
	}
	return n < max ? n : max;
}

void pci_enable(const struct pci_device *d)
{
	uint16_t cmd = pci_read16(d, PCI_COMMAND);

	cmd |= PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER | PCI_COMMAND_INTX_DISABLE;
	for (unsigned int i = 0; i < PCI_NUM_BARS; i++)
		if (d->bars[i].is_io && d->bars[i].size)
			cmd |= PCI_COMMAND_IO;
	pci_write16(d, PCI_COMMAND, cmd);
}

uint8_t pci_find_capability(const struct pci_device *d, uint8_t cap_id, uint8_t after)
{
	uint8_t ptr;

	if (!(pci_read16(d, PCI_STATUS) & PCI_STATUS_CAP_LIST))
		return 0;
	ptr = after ? pci_read8(d, after + 1) : pci_read8(d, PCI_CAP_PTR);
	for (unsigned int steps = 0; steps < PCI_MAX_CAPS; steps++) {
		uint8_t id;

		ptr &= 0xfc; /* the two low bits are reserved */
		if (ptr < 0x40)
			return 0;
		id = pci_read8(d, ptr);
		if (id == cap_id)
			return ptr;
		ptr = pci_read8(d, ptr + 1);
	}
	return 0; /* a list this long is a loop */
}
