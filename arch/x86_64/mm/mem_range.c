/* SPDX-License-Identifier: MIT */
/*
 * mem_range.c - names of the memory map's kinds, and what a page of it is
 * (see mem_range.h).
 */
#include "arch/x86_64/mm/mem_range.h"

const char *mem_kind_name(enum mem_kind kind)
{
	switch (kind) {
	case MEM_USABLE:
		return "usable";
	case MEM_KERNEL:
		return "kernel";
	case MEM_ACPI:
		return "acpi";
	case MEM_RESERVED:
		return "reserved";
	case MEM_MMIO:
		return "mmio";
	}
	return "?";
}

bool mem_range_firmware_page(const struct mem_range *ranges, unsigned int n, uint64_t addr)
{
	if (!addr || (addr & 4095) || addr + 4096 < addr)
		return false;
	for (unsigned int i = 0; i < n; i++) {
		const struct mem_range *m = &ranges[i];

		if (addr < m->base || addr + 4096 > m->base + m->size)
			continue;
		return m->cacheable && (m->kind == MEM_ACPI || m->kind == MEM_RESERVED);
	}
	return false;
}

uint64_t mem_range_ram_top(const struct mem_range *ranges, unsigned int n)
{
	uint64_t top = 0;

	for (unsigned int i = 0; i < n; i++) {
		const struct mem_range *m = &ranges[i];

		if (m->kind != MEM_MMIO && m->cacheable && m->base + m->size > top)
			top = m->base + m->size;
	}
	return (top + 4095) & ~UINT64_C(4095);
}
