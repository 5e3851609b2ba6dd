/* SPDX-License-Identifier: MIT */
/*
 * mmu.h - the kernel's own address space, and the emulated private/shared model.
 *
 * Identity mapping (virtual == physical) with 2 MiB pages wherever possible, built
 * from the UEFI memory map with arch/x86_64/mm/paging.c. "Shared" is the software bit
 * PT_SW_SHARED: converting a page is a page-table change plus TLB invalidation plus
 * one trapping I/O access, so it costs what a MapGPA / page-state-change hypercall
 * costs in exits under KVM (docs/RUNNING.md, "The serial output, line by line", `cpu`/`cc`).
 */
#ifndef SLUICE_ARCH_MMU_H
#define SLUICE_ARCH_MMU_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/mm/mem_range.h"

/**
 * struct mmu_stats - conversion counters, for the boot report and the benchmarks.
 * @to_shared_calls: mmu_set_shared(..., true) calls that succeeded.
 * @to_private_calls: mmu_set_shared(..., false) calls that succeeded.
 * @to_shared_cycles: TSC cycles spent in the former.
 * @to_private_cycles: TSC cycles spent in the latter.
 * @failed_calls: calls that returned an error.
 * @pages_made_shared: 4 KiB pages converted to shared (a 2 MiB leaf counts 512).
 * @pages_made_private: 4 KiB pages converted to private.
 * @splits: 2 MiB mappings split into 4 KiB pages.
 * @flushes: TLB invalidations.
 * @tables_used: 4 KiB page-table pages taken from the pool.
 * @tables_total: pages the pool holds.
 * @shootdowns: conversions that advanced the TLB generation.
 * @tlb_syncs: CR3 reloads by mmu_tlb_sync(), summed over the CPUs.
 */
struct mmu_stats {
	uint64_t to_shared_calls, to_private_calls;
	uint64_t to_shared_cycles, to_private_cycles;
	uint64_t failed_calls;
	uint64_t pages_made_shared, pages_made_private;
	uint64_t splits, flushes;
	uint64_t tables_used, tables_total;
	uint64_t shootdowns, tlb_syncs;
};

/**
 * struct mmu_encoding - how an entry says "shared" (see &struct page_table).
 * @shared_set_mask: bits set in shared leaves, clear in private ones: in a TD
 *	the shared bit, 1 << (GPAW - 1) (Intel TDX module spec, "GPA Space").
 * @shared_clear_mask: bits set in private leaves and in table pointers (and
 *	CR3), clear in shared leaves: in an SEV-SNP guest the C-bit.
 * @name: for the report.
 */
struct mmu_encoding {
	uint64_t shared_set_mask;
	uint64_t shared_clear_mask;
	const char *name;
};

/**
 * struct mmu_memory - what mmu_init() builds the kernel's address space from (the
 *	boot stage fills it from its hand-off).
 * @image_base: where the firmware loaded the image.
 * @image_size: its size in bytes.
 * @pagetables: the pool of 4 KiB pages for the kernel's page tables.
 * @trampoline: the application processors' start-up page (size 0: none).
 * @ranges: the memory map.
 * @nranges: its entries (at most %MEM_MAX_RANGES).
 */
struct mmu_memory {
	uint64_t image_base;
	uint64_t image_size;
	struct mem_region pagetables;
	struct mem_region trampoline;
	const struct mem_range *ranges;
	unsigned int nranges;
};

/**
 * mmu_init() - build the identity map from the memory map and switch CR3 to it.
 * @mem: the memory map, the page-table pool, the image and the trampoline page.
 * @cpu: CPU features (NX support).
 * @enc: the platform's encoding of "shared", or NULL for the emulated one (the
 *	software bit PT_SW_SHARED, which the hardware ignores: QEMU has neither
 *	TDX nor SEV-SNP, and an address bit set there would name other memory).
 *
 * RAM of every kind is mapped write-back; MMIO ranges and the holes below 4 GiB
 * are mapped uncached; page 0 is left unmapped so NULL dereferences fault.
 * W^X (kmap.h): the image's text is read-only and the only executable memory;
 * everything else is non-executable, RAM writable. EFER.NXE is set before the
 * switch and CR0.WP right after it; the tables are checked against the policy
 * before they are loaded.
 * Return: 0 or a negative PT_ERR_* code (the old tables stay loaded).
 */
int mmu_init(const struct mmu_memory *mem, const struct cpu_info *cpu,
	     const struct mmu_encoding *enc);

/**
 * mmu_set_trampoline_exec() - switch the application processors' start-up page.
 * @exec: true: read-only and executable, while an AP runs the trampoline in it;
 *	false: writable and non-executable, while the BSP writes it, and otherwise.
 *
 * The page named by mmu_memory.trampoline is the only memory besides the text
 * that can ever be executable, and it is never writable and executable at
 * once. Flushes this CPU's TLB entry only: a CPU that ran the trampoline must
 * invlpg it after the switch back (smp.c does).
 * Return: 0 or a negative PT_ERR_* code (no such page, or not initialised).
 */
int mmu_set_trampoline_exec(bool exec);

/**
 * mmu_map_mmio() - identity-map a device region (e.g. a 64-bit BAR) uncached, shared.
 * @pa: physical start (rounded down to 4 KiB).
 * @len: bytes (rounded up).
 *
 * Device registers belong to the host, so the pages get PT_ATTR_MMIO: uncached,
 * never executable and shared (the emulated model's PT_SW_SHARED). Pages already
 * mapped exactly so (mmu_init() maps the holes and MMIO ranges that way) are
 * accepted as they are. The caller checks where the region lies first: this
 * function does not know RAM from device space.
 * Return: 0; PT_ERR_EXIST if a page is mapped otherwise (RAM: write-back and
 * private), with nothing changed; another negative PT_ERR_* code.
 */
int mmu_map_mmio(uint64_t pa, uint64_t len);

/**
 * mmu_set_shared() - convert a range between private and shared (emulated model).
 * @va: start, 4 KiB aligned.
 * @len: bytes, a multiple of 4 KiB.
 * @shared: the wanted state.
 *
 * A whole aligned 2 MiB page converts with one entry change; anything smaller
 * splits its 2 MiB mapping first; the split pages keep its permissions. An
 * executable page (the text) is never made shared.
 * Return: 0 or a negative PT_ERR_* code, with nothing changed.
 */
int mmu_set_shared(uint64_t va, uint64_t len, bool shared);

/**
 * mmu_is_shared() - whether the page holding @va is shared.
 * @va: any address.
 */
bool mmu_is_shared(uint64_t va);

/**
 * mmu_range_is_shared() - whether every page touching [@va, @va + @len) is shared.
 * @va: start.
 * @len: bytes (0 gives false).
 */
bool mmu_range_is_shared(uint64_t va, uint64_t len);

/**
 * struct mmu_cc_backend - how a conversion reaches the platform, when it is not
 *	the emulated one (a PTE bit plus one trapping port write).
 * @name: for the report, e.g. "sim-tdx".
 * @convert: convert [@va, @va + @len) (identity-mapped, so also the GPA); it
 *	changes the mappings itself through mmu_pte_set_shared(). Return 0 or a
 *	negative code with the range in a known state (see the backend).
 * @ctx: handed to @convert.
 */
struct mmu_cc_backend {
	const char *name;
	int (*convert)(void *ctx, uint64_t va, uint64_t len, bool shared);
	void *ctx;
};

/**
 * mmu_set_cc_backend() - route every later mmu_set_shared() through @backend.
 * @backend: the platform's protocol (kept by pointer); NULL for the emulated one.
 */
void mmu_set_cc_backend(const struct mmu_cc_backend *backend);

/**
 * mmu_pte_set_shared() - change only the shared attribute of the mappings of a
 *	range (splitting 2 MiB pages as needed) and flush this CPU's TLB entries:
 *	the page-table half of a conversion, for a backend.
 * @va: start, 4 KiB aligned.
 * @len: bytes, a multiple of 4 KiB.
 * @shared: the new attribute.
 * Return: 0 or a negative PT_ERR_* code, with nothing changed.
 */
int mmu_pte_set_shared(uint64_t va, uint64_t len, bool shared);

/**
 * mmu_tlb_shootdown() - a conversion changed the mappings of a range: every
 *	other CPU must drop what its TLB holds of them before it touches the range.
 * @va: start.
 * @len: bytes.
 *
 * The caller's own CPU was flushed page by page (mmu_pte_set_shared()). The
 * other CPUs run their work with interrupts off, so an IPI could wait for a
 * whole benchmark: instead the conversion advances a generation, and each CPU
 * reloads CR3 (no mapping is global, so that drops every entry) in
 * mmu_tlb_sync() before it can reach converted memory. Converted memory is
 * reached only through the DMA layer, under its lock (the kernel's DMA port
 * calls mmu_tlb_sync() there), and by work handed to an AP (smp.c calls it
 * before the work runs), so no CPU uses a translation older than the last
 * conversion. Linux instead flushes every CPU with IPIs before the hypercall
 * (cpa_flush() in arch/x86/mm/pat/set_memory.c); the generation rule is
 * arch/x86_64/mm/tlb_gen.h, and the models' per-CPU TLBs (TDX R7, SNP R10)
 * check that no CPU reaches converted memory through a stale translation.
 */
void mmu_tlb_shootdown(uint64_t va, uint64_t len);

/**
 * mmu_tlb_sync() - drop this CPU's TLB if a conversion happened since its last
 *	sync (one load and compare when none did).
 */
void mmu_tlb_sync(void);

/**
 * mmu_stats_get() - copy the conversion counters.
 * @out: filled in.
 */
void mmu_stats_get(struct mmu_stats *out);

/**
 * mmu_report() - print the address space summary for the boot report.
 */
void mmu_report(void);

#endif /* SLUICE_ARCH_MMU_H */
