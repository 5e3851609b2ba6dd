/* SPDX-License-Identifier: MIT */
/*
 * pci_window.c - the placement check of PCI device windows (see pci_window.h).
 */
#include "kernel/pci_window.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "boot/memmap.h"

#define PAGE_SIZE 4096ull
#define ERR_INVAL (-22)

static void pci_space_busy(struct pci_space *s, uint64_t base, uint64_t size, const char *name)
{
	if (!size || s->nbusy >= PCI_SPACE_MAX_BUSY)
		return;
	s->busy[s->nbusy].base = base;
	s->busy[s->nbusy].size = size;
	s->busy[s->nbusy].name = name;
	s->nbusy++;
}

void pci_space_init(struct pci_space *s, const struct boot_info *bi, unsigned int phys_addr_bits)
{
	memset(s, 0, sizeof(*s));
	s->ranges = bi->ranges;
	s->nranges = bi->nranges;
	pci_space_busy(s, bi->image_base, bi->image_size, "the kernel image");
	pci_space_busy(s, bi->heap.base, bi->heap.size, "the heap");
	pci_space_busy(s, bi->dma.base, bi->dma.size, "the DMA region");
	pci_space_busy(s, bi->pagetables.base, bi->pagetables.size, "the page-table pool");
	pci_space_busy(s, bi->stack.base, bi->stack.size, "the kernel stack");
	pci_space_busy(s, bi->trampoline.base, bi->trampoline.size, "the AP start-up page");
	/* The kernel sends its IPIs through it in xAPIC mode. */
	if (bi->cpus.lapic_base)
		pci_space_busy(s, bi->cpus.lapic_base, PAGE_SIZE, "the local APIC");
	if (phys_addr_bits >= 12 && phys_addr_bits < 64)
		s->pa_limit = 1ull << phys_addr_bits;
}

/* Whether [@first, @last] meets [@base, @base + @size); inclusive ends, so a
 * range ending at 2^64 compares right. */
static bool pci_overlaps(uint64_t first, uint64_t last, uint64_t base, uint64_t size)
{
	uint64_t end_incl;

	if (!size)
		return false;
	end_incl = base + size - 1;
	if (end_incl < base)
		end_incl = UINT64_MAX;
	return first <= end_incl && base <= last;
}

static const char *pci_kind_what(const struct mem_range *m)
{
	switch (m->kind) {
	case MEM_USABLE:
		return "RAM";
	case MEM_KERNEL:
		return "RAM the kernel uses";
	case MEM_ACPI:
		return "ACPI tables or NVS";
	case MEM_RESERVED:
		return m->cacheable ? "firmware-reserved memory" :
				      "firmware-reserved address space";
	case MEM_MMIO:
		return "MMIO";
	}
	return "?";
}

int pci_window_check(const struct pci_space *s, uint64_t base, uint64_t size, unsigned int flags,
		     char *why, size_t why_len)
{
	uint64_t first, last;

	if (!size) {
		snprintf(why, why_len, "has size 0");
		return ERR_INVAL;
	}
	/* The mapping covers whole pages, so their end must not wrap either. */
	if (base + size < base || base + size > UINT64_MAX - (PAGE_SIZE - 1)) {
		snprintf(why, why_len, "0x%" PRIx64 " + 0x%" PRIx64 " wraps past 2^64", base, size);
		return ERR_INVAL;
	}
	first = base & ~(PAGE_SIZE - 1);
	last = ((base + size + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1)) - 1;
	if (s->pa_limit && last >= s->pa_limit) {
		snprintf(why, why_len,
			 "ends beyond the CPU's physical address space (first unreachable address "
			 "0x%" PRIx64 ")",
			 s->pa_limit);
		return ERR_INVAL;
	}
	/* The regions first: "the heap" says more than "RAM the kernel uses". */
	for (unsigned int i = 0; i < s->nbusy; i++) {
		const struct pci_busy_region *b = &s->busy[i];

		if (pci_overlaps(first, last, b->base, b->size)) {
			snprintf(why, why_len, "overlaps %s 0x%010" PRIx64 "-0x%010" PRIx64,
				 b->name, b->base, b->base + b->size);
			return ERR_INVAL;
		}
	}
	/*
	 * After ExitBootServices only EfiMemoryMappedIO and EfiMemoryMappedIOPortSpace
	 * describe device space (UEFI 2.10, 7.2: "This memory is not used by the OS");
	 * every other type is memory or firmware-owned. Address space the map leaves
	 * out is where firmware put the PCI windows (OVMF lists MMIO only when runtime
	 * services need it, e.g. the flash), so absence is acceptable.
	 */
	for (unsigned int i = 0; i < s->nranges; i++) {
		const struct mem_range *m = &s->ranges[i];

		if (m->kind == MEM_MMIO)
			continue;
		if ((flags & PCI_WINDOW_ECAM) && m->kind == MEM_RESERVED && !m->cacheable)
			continue;
		if (pci_overlaps(first, last, m->base, m->size)) {
			snprintf(why, why_len,
				 "overlaps %s (memory map: %s 0x%010" PRIx64 "-0x%010" PRIx64 ")",
				 pci_kind_what(m), mem_kind_name(m->kind), m->base,
				 m->base + m->size);
			return ERR_INVAL;
		}
	}
	return 0;
}
