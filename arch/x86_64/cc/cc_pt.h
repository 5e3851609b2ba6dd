/* SPDX-License-Identifier: MIT */
/*
 * cc_pt.h - the guest's page-table half of a conversion, as every CC protocol
 * (tdx.c, snp.c) takes it: one struct for all of them.
 *
 * The protocols are the platform's half (MapGPA and ACCEPT, PSC and
 * PVALIDATE); what the kernel's own mappings, TLBs and caches must do around
 * it comes through these callbacks, so that the protocols also run in host
 * tests against fake tables. In the kernel they point straight at mm/
 * (mmu_pt_set_shared(), mmu_pt_flush_tlb()) and the instruction layer's cache
 * flush; a simulated platform points them at wrappers that also tell its
 * model.
 */
#ifndef SLUICE_ARCH_CC_PT_H
#define SLUICE_ARCH_CC_PT_H

#include <stdbool.h>
#include <stdint.h>

/**
 * struct cc_pt_ops - the guest's side of a conversion.
 * @set_pte_shared: set (@shared) or clear the shared attribute of the CPU
 *	mappings of [@gpa, @gpa + @len): in a TD the shared bit at GPAW - 1, in
 *	an SEV-SNP guest the C-bit cleared. Return 0 or a negative code, with
 *	nothing changed.
 * @flush_tlb: invalidate the translations of the range on every CPU that may
 *	hold them.
 * @flush_cache: write back and invalidate the cache lines of the range: TDX
 *	keeps no coherence between the private and the shared key (Linux
 *	tdx_cache_flush_required()); on SNP the same page read with the other
 *	key would see stale lines (Linux flushes unless SME_COHERENT). May be
 *	NULL (a flush that is not needed).
 * @ctx: handed to each.
 * @evict_cache: SNP only, may be NULL: the cache-coherency mitigation after
 *	PVALIDATE validated @npages 4 KiB pages from @gpa: read the first and the
 *	last byte of each through its private mapping, which evicts every line of
 *	the page (Linux sev_evict_cache(), called from pvalidate_pages() for pages
 *	made private; EDK2 MemEncryptSevSnpDoCoherencyMitigation()). Not called
 *	when CPUID 0x8000001F EBX[31] (COHERENCY_SFW_NO) is set. NULL: the reads
 *	are not made (host tests whose GPAs are not mapped).
 */
struct cc_pt_ops {
	int (*set_pte_shared)(void *ctx, uint64_t gpa, uint64_t len, bool shared);
	void (*flush_tlb)(void *ctx, uint64_t gpa, uint64_t len);
	void (*flush_cache)(void *ctx, uint64_t gpa, uint64_t len);
	void *ctx;
	void (*evict_cache)(void *ctx, uint64_t gpa, uint64_t npages);
};

#endif /* SLUICE_ARCH_CC_PT_H */
