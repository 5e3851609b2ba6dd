/* SPDX-License-Identifier: MIT */
/*
 * kmap.h - what the kernel's identity map holds, and with which permissions.
 *
 * The policy is W^X. The image's text is the only executable memory and it is
 * read-only. Everything else is non-executable: RAM of every kind (heap,
 * stacks, page tables, the DMA region and so every page ever converted to
 * shared, the image's data, relocations and headers, ACPI tables, firmware
 * runtime code, which nothing calls after ExitBootServices) and device memory.
 * RAM is writable. One range named at build time (the application processors'
 * start-up page) may later be switched between "writable, non-executable" and
 * "read-only, executable", and no other range can ever become executable.
 *
 * With NX the tables get PT_POLICY_WX | PT_POLICY_SHARED_NX (paging.h), so no
 * later mapping, conversion or protection change can make a page writable and
 * executable, or shared and executable. Without NX (a CPU without
 * CPUID 0x80000001 EDX[20]) bit 63 is reserved: nothing can be made
 * non-executable, text is still read-only, and no policy is set.
 *
 * Plain C over paging.c: the host tests build exactly the tables the kernel
 * loads. No boot/ header here: mmu.c translates the memory map.
 */
#ifndef SLUICE_ARCH_X86_64_KMAP_H
#define SLUICE_ARCH_X86_64_KMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86_64/mm/paging.h"

/**
 * struct kmap_range - one range of the physical memory map.
 * @base: start, 4 KiB aligned.
 * @size: bytes, a non-zero multiple of 4 KiB.
 * @device: device memory (MMIO, or RAM the firmware says is not cacheable):
 *	mapped uncached, shared, non-executable; else RAM.
 */
struct kmap_range {
	uint64_t base;
	uint64_t size;
	bool device;
};

/**
 * struct kmap_layout - everything kmap_build() decides from.
 * @ranges: the memory map, sorted by base, not overlapping.
 * @nranges: entries in @ranges.
 * @hole_limit: holes between (and after) @ranges below this address are
 *	mapped as device memory (the PCI window, LAPIC, IOAPIC and flash below
 *	4 GiB); 0 maps no hole.
 * @text_start: first byte of the image's text, 4 KiB aligned.
 * @text_end: end of its last page, 4 KiB aligned; [@text_start, @text_end)
 *	must lie in RAM ranges.
 * @switch_start: start of the one range kmap_set_exec() may change
 *	(4 KiB aligned, in RAM, outside the text), or equal to @switch_end for none.
 * @switch_end: its end.
 * @nx: EFER.NXE is (or will be, before the tables are loaded) set.
 */
struct kmap_layout {
	const struct kmap_range *ranges;
	unsigned int nranges;
	uint64_t hole_limit;
	uint64_t text_start;
	uint64_t text_end;
	uint64_t switch_start;
	uint64_t switch_end;
	bool nx;
};

/**
 * struct kmap_summary - what the tables map, counted leaf by leaf.
 * @bytes_4k: bytes mapped by 4 KiB leaves.
 * @bytes_2m: by 2 MB leaves.
 * @bytes_1g: by 1 GiB leaves.
 * @bytes_exec: executable bytes (leaves without NX).
 * @bytes_wx: writable and executable bytes.
 * @bytes_shared_exec: shared and executable bytes.
 * @exec_lo: lowest executable address (0 if none).
 * @exec_hi: end of the highest executable leaf (0 if none).
 */
struct kmap_summary {
	uint64_t bytes_4k, bytes_2m, bytes_1g;
	uint64_t bytes_exec, bytes_wx, bytes_shared_exec;
	uint64_t exec_lo, exec_hi;
};

/**
 * kmap_build() - map every range of @l identity (virtual == physical) into @pt.
 * @pt: an address space from pt_init(), normally empty.
 * @l: the layout.
 *
 * Page 0 stays unmapped (NULL dereferences fault). RAM gets PT_WRITE | PT_NX,
 * the text neither (read-only, executable), device ranges and holes
 * PT_ATTR_MMIO; without @l->nx no PT_NX anywhere. With @l->nx the W^X and
 * shared-NX policies are then put in force on @pt.
 *
 * Return: 0; PT_ERR_INVAL for a bad layout (unsorted, unaligned or
 * overlapping ranges, text or switchable range outside RAM, the two
 * overlapping) or from pt_set_policy(); other pt_map_range() errors.
 */
int kmap_build(struct page_table *pt, const struct kmap_layout *l);

/**
 * kmap_set_exec() - switch part of the layout's switchable range.
 * @pt: the address space kmap_build() filled.
 * @l: the same layout.
 * @va: start, 4 KiB aligned.
 * @len: bytes, a multiple of 4 KiB.
 * @exec: true for read-only and executable, false for writable and
 *	non-executable (writable only, without NX).
 *
 * Never both writable and executable. Only this CPU's TLB is flushed (see
 * pt_set_prot()).
 *
 * Return: 0; PT_ERR_INVAL if [@va, @va + @len) is not inside the switchable
 * range (so text and everything else can never be changed through this), or
 * pt_set_prot()'s errors.
 */
int kmap_set_exec(struct page_table *pt, const struct kmap_layout *l, uint64_t va, uint64_t len,
		  bool exec);

/**
 * kmap_summarize() - count what @pt maps, and how.
 * @pt: the address space.
 * @s: filled in.
 *
 * The kernel checks the tables it is about to load with it: with NX, the
 * executable bytes must be exactly the text, and no byte writable and
 * executable or shared and executable.
 *
 * Return: 0, or PT_ERR_INVAL for NULL arguments.
 */
int kmap_summarize(const struct page_table *pt, struct kmap_summary *s);

#endif /* SLUICE_ARCH_X86_64_KMAP_H */
