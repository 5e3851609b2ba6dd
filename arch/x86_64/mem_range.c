/* SPDX-License-Identifier: MIT */
/*
 * mem_range.c - names of the memory map's kinds (see mem_range.h).
 */
#include "arch/x86_64/mem_range.h"

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
